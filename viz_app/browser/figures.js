/* Figures — the builders of every figure that follows a sentence, defined here only: heatmap, heatmapGrid,
 * smallMultiples, barChart, predictionChart, vectorGrids, tokenFeatureHeatmap, compareHeatmaps and maskPanels
 * return figure specs (figure_spec.js; drawn by figure_host.js, docs/figure-components.md) from arrays;
 * sections.js composes them into a trace view's figures. Non-finite values (null, NaN, ±∞) are masked cells.
 * `configure(context)` takes, once per page, viz_app.draw.site_view.figure_context() (themes, constants, status
 * names). Positional arguments are the data, the rest an options object (camelCase). A matrix is an array of rows
 * (arrays or typed arrays), a vector an array or typed array; `theme` a theme object or its name. */
import { barsPanel, figureSpec, heatmapPanel } from "./figure_spec.js";
import { argmax } from "./util.js";
import { extent } from "./components/palettes.mjs";

var context = null;

/* Take figure_context()'s {themes, constants, status_names, pair_relatedness_names, …}, once, before building. */
function configure(ctx) {
  if (!ctx || !ctx.themes || !ctx.constants) {
    throw new Error("Figures.configure needs the figure context that viz_app.draw.site_view.figure_context() writes");
  }
  context = ctx;
  return ctx;
}

function ctx() {
  if (!context) throw new Error("Figures.configure has not been given the figure context yet");
  return context;
}

function constant(name) {
  var value = ctx().constants[name];
  if (value === undefined) throw new Error("Figures: the figure context has no constant " + name);
  return value;
}

function theme(nameOrTheme) {
  if (nameOrTheme && typeof nameOrTheme === "object") return nameOrTheme;
  var t = ctx().themes[nameOrTheme || "normal"];
  if (!t) throw new Error("Figures: no theme named " + nameOrTheme);
  return t;
}

var HTML = { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#x27;" };

/* Python's html.escape(text, quote=True): the one escaper of the page's own HTML. */
function htmlEscape(text) {
  return String(text).replace(/[&<>"']/g, function (ch) { return HTML[ch]; });
}

/* f"{x:.{digits}f}": JS toFixed rounds exact ties up, Python to even; ties are exact only when 2·x·10^d
 * is an odd integer divisible by 5^d (x = 0.125, 0.375 … for d = 2). */
function formatFixed(x, digits) {
  if (Object.is(x, -0)) return "-" + (0).toFixed(digits);
  var text = x.toFixed(digits), p = Math.pow(10, digits), t = x * p, twice = 2 * t;
  if (Number.isInteger(twice) && Math.abs(twice) % 2 === 1 && twice % Math.pow(5, digits) === 0 && t / p === x) {
    var down = (Math.trunc(t) / p).toFixed(digits);
    if (Number(down.slice(-1)) % 2 === 0) text = down;  // the even one of the two neighbours, as Python rounds
  }
  return text;
}

/* f"{x:g}": 6 significant digits, trailing zeros dropped, exponent form below 1e-4 and from 1e6. */
function formatG(x) {
  x = Number(x);
  if (!isFinite(x)) return x !== x ? "nan" : x > 0 ? "inf" : "-inf";
  if (x === 0) return Object.is(x, -0) ? "-0" : "0";
  var parts = x.toExponential(5).split("e"), exp = Number(parts[1]);
  if (exp < -4 || exp >= 6) {
    return parts[0].replace(/\.?0+$/, "") + "e" + (exp < 0 ? "-" : "+") + (Math.abs(exp) < 10 ? "0" : "") + Math.abs(exp);
  }
  var text = x.toFixed(Math.max(0, 5 - exp));
  return text.indexOf(".") >= 0 ? text.replace(/\.?0+$/, "") : text;
}

/* [lo, hi] over the finite values of `mats` (arrays of rows; the components' extent), zmin/zmax when given. */
function limits(mats, zmin, zmax) {
  var lim = extent(mats.flat());
  var lo = zmin !== null && zmin !== undefined ? zmin : lim[0], hi = zmax !== null && zmax !== undefined ? zmax : lim[1];
  // a constant map gets a scale one unit wide: an all-masked map (a one-word sentence's) then has the [0, 1] of
  // any longer sentence's attention, so the maps typed after it are painted on the limits they are drawn with
  return [lo, hi > lo ? hi : lo + 1];
}

/* The half-width of a difference's diverging scale: the largest finite |value| of `mat`, or for an all-zero
 * difference (A equal to B) the width of the compared maps' scale `lim`. */
function diffBound(mat, lim) {
  var b = 0;
  for (var r = 0; r < mat.length; r++) {
    for (var c = 0; c < mat[r].length; c++) if (mat[r][c] !== null && isFinite(mat[r][c])) b = Math.max(b, Math.abs(mat[r][c]));
  }
  return b > 0 ? b : lim[1] - lim[0];
}

/* "rows × cols" of a matrix, for error messages. */
function shapeText(m) {
  return m.length + " × " + (m.length ? m[0].length : 0);
}

function pairs(mapping) {
  return Array.isArray(mapping) ? mapping : Object.keys(mapping).map(function (k) { return [k, mapping[k]]; });
}

/* A boolean matrix when any cell is true, else null (no masked cells to draw). */
function anyMasked(mask) {
  return mask && mask.some(function (row) { return Array.from(row).some(Boolean); }) ? mask : null;
}

/* heatmapGrid: heatmap panels sharing ONE colour scale (one colour bar, on the last panel sharing it): every map
 * builder below is one. opts: {colTokens, title, theme, cols, valueName, zmin, zmax, masked (array of boolean
 * matrices or null per panel), names (panel names, default "panel-k"), rowBars (a bars panel "row" that a clicked
 * row fills), name, height (null: the component's own), xLabel, yLabel, diverging (the shared scale symmetric
 * about 0), difference (the last matrix is a difference of the others, on its own diverging scale: ±its largest
 * |value|)}. */
function heatmapGrid(mats, titles, rowTokens, opts) {
  var o = opts || {}, th = theme(o.theme), valueName = o.valueName === undefined ? "P" : o.valueName;
  var colTokens = o.colTokens || rowTokens, n = mats.length, cols = o.cols || n, T = rowTokens.length;
  var diffAt = o.difference && n > 1 ? n - 1 : n, lim = limits(mats.slice(0, diffAt), o.zmin, o.zmax);
  var bound = diffAt < n ? diffBound(mats[diffAt], lim) : Math.max(Math.abs(lim[0]), Math.abs(lim[1]), 1e-9);
  // a pair of maps as tall as it was in Plotly, a grid of small multiples shorter
  var height = o.height !== undefined ? o.height : Math.trunc(cols > 2 ? Math.min(760, Math.max(260, 90 + th.cell_height * T * 0.6))
                                                                       : Math.min(720, Math.max(220, 50 + th.cell_height * T)));
  var panels = mats.map(function (mat, k) {
    var diff = k === diffAt, [zmin, zmax] = diff || o.diverging ? [-bound, bound] : lim;
    var view = { z: mat, rowTokens: Array.from(rowTokens), colTokens: Array.from(colTokens), zmin: zmin, zmax: zmax,
      theme: th.name, title: titles[k] === undefined ? "" : String(titles[k]), valueName: diff ? "Δ" + valueName : valueName,
      scale: diff || o.diverging ? "diverging" : "sequential", masked: anyMasked(o.masked && o.masked[k]),
      colourbar: diff || k === diffAt - 1 };
    if (height !== null) view.height = height;
    if (o.xLabel !== undefined) Object.assign(view, { xLabel: o.xLabel, yLabel: o.yLabel });
    return heatmapPanel(o.names ? o.names[k] : "panel-" + k, view);
  });
  if (o.rowBars) {
    var last = mats[0].length - 1;  // the first panel's last row: under a forward mask the one that sees every token
    panels.push(barsPanel("row", { values: Array.from(mats[0][last] || []), labels: Array.from(colTokens),
      title: "Row #" + last + " '" + rowTokens[last] + "' (click a row)", valueName: valueName, theme: th.name }));
  }
  return figureSpec(o.name, o.title, panels, { columns: Math.min(cols, n),
                                               rowBars: o.rowBars ? { panel: "*", bars: "row", title: "Row" } : null });
}

/* viz_app.draw.reduce.block_mean of one matrix: the mean of each block × block square (NaN ignored). */
function blockMean(mat, maxCells) {
  var T = mat.length, block = Math.ceil(T / maxCells);
  if (block <= 1) return { z: mat, block: 1 };
  var n = Math.ceil(T / block), z = [];
  for (var r = 0; r < n; r++) {
    var line = [];
    for (var c = 0; c < n; c++) {
      var s = 0, k = 0;
      for (var i = r * block; i < Math.min(T, (r + 1) * block); i++) {
        for (var j = c * block; j < Math.min(T, (c + 1) * block); j++) {
          var v = mat[i][j];
          if (v !== null && v === v) { s += v; k++; }
        }
      }
      line.push(k ? s / k : NaN);
    }
    z.push(line);
  }
  return { z: z, block: block };
}

/* smallMultiples: one panel per head on a shared scale, block-averaged to maxCells per side.
 * opts: {title, theme, cols, valueName, maxCells, names, name}. */
function smallMultiples(stack, tokens, titles, opts) {
  var o = opts || {}, maxCells = o.maxCells === undefined ? constant("SMALL_MULTIPLE_MAX") : o.maxCells;
  var pooled = stack.map(function (m) { return blockMean(m, maxCells); });
  var block = pooled.length ? pooled[0].block : 1, labels = Array.from(tokens), title = o.title || "";
  if (block > 1) {
    labels = Array.from({ length: Math.ceil(tokens.length / block) }, function (_, k) {
      return tokens[k * block] + "…" + tokens[Math.min((k + 1) * block, tokens.length) - 1];
    });
    title = title + " (averaged over blocks of " + block + " tokens)";
  }
  return heatmapGrid(pooled.map(function (p) { return p.z; }), titles, labels, {
    title: title, theme: o.theme, cols: o.cols || Math.min(pooled.length, 5), name: o.name,
    valueName: o.valueName === undefined ? "P" : o.valueName, names: o.names,
  });
}

/* barChart: bars per token, one panel per series on one value axis. series: [[name, values], ...] (or an
 * object whose keys are not integer-like). opts: {title, yTitle, theme, yRange, name}. */
function barChart(series, tokens, opts) {
  var o = opts || {}, th = theme(o.theme), list = pairs(series);
  var values = list.map(function (item) { return Array.from(item[1], function (v) { return v !== null && isFinite(v) ? v : NaN; }); });
  var lim = o.yRange ? [o.yRange[0], o.yRange[1]] : limits(values.map(function (v) { return [v]; }), null, null);
  var domain = o.yRange ? lim : [Math.min(0, lim[0]), Math.max(0, lim[1])];
  var panels = list.map(function (item, k) {
    return barsPanel(String(item[0]), { values: values[k], labels: Array.from(tokens), title: String(item[0]),
      valueName: o.yTitle || String(item[0]), yLabel: o.yTitle || "", orientation: "vertical", domain: domain, theme: th.name });
  });
  return figureSpec(o.name, o.title, panels, { columns: Math.min(2, panels.length) });
}

/* predictionChart: horizontal bars of label probabilities, the predicted label outlined. prediction: {label: p}
 * or [[label, p], ...]. opts: {title, theme, xTitle ("probability"), name}. */
function predictionChart(prediction, opts) {
  var o = opts || {}, th = theme(o.theme), list = pairs(prediction);
  var labels = list.map(function (p) { return String(p[0]); }), values = list.map(function (p) { return Number(p[1]); });
  var best = argmax(values);
  return figureSpec(o.name, "", [barsPanel("prediction", { values: values, labels: labels, orientation: "horizontal",
    title: o.title === undefined ? "Prediction" : o.title, valueName: "p", xLabel: o.xTitle || "probability",
    domain: [0, 1], highlight: best, theme: th.name })]);
}

/* vectorGrids: feature vectors folded into rows × cols grids side by side on ONE scale (Shen Fig. 8). opts: {title,
 * theme, cols (30), valueName, difference, name}. With `difference` the last vector is a difference of the others,
 * on its own diverging scale symmetric about 0. */
function vectorGrids(vectors, titles, opts) {
  var o = opts || {}, th = theme(o.theme), cols = o.cols || 30;
  var size = Math.max.apply(null, vectors.map(function (v) { return v.length; })), rows = Math.ceil(size / cols);
  var grids = vectors.map(function (v) {
    return Array.from({ length: rows }, function (_, r) {
      return Array.from({ length: cols }, function (_, c) { return r * cols + c < v.length ? v[r * cols + c] : NaN; });
    });
  });
  var difference = o.difference && grids.length > 1;
  return heatmapGrid(grids, titles, Array.from({ length: rows }, function (_, r) {
    return "features " + r * cols + "–" + (Math.min(size, (r + 1) * cols) - 1);
  }), { colTokens: Array.from({ length: cols }, function (_, c) { return "+" + c; }), title: o.title, theme: th,
        valueName: o.valueName, difference: difference, name: o.name, height: Math.trunc(200 + 14 * rows + 2 * th.font_size),
        names: grids.map(function (_, k) { return difference && k === grids.length - 1 ? "difference" : "vector-" + k; }),
        xLabel: "feature (row start + column)" });
}

/* tokenFeatureHeatmap: rows = tokens, columns = feature k (e.g. the gate F, Shen Eq. 19). matrix: T × D rows.
 * opts: {title, theme, valueName ("value"), zmin, zmax, name}. */
function tokenFeatureHeatmap(matrix, tokens, opts) {
  var o = opts || {}, features = Array.from({ length: matrix.length ? matrix[0].length : 0 }, function (_, k) { return String(k); });
  return heatmapGrid([matrix], [o.title || ""], tokens, { colTokens: features, theme: o.theme, zmin: o.zmin, zmax: o.zmax,
    valueName: o.valueName === undefined ? "value" : o.valueName, names: ["features"], name: o.name, height: null,
    xLabel: "feature k", yLabel: "token" });
}

/* compareHeatmaps: A and B on ONE colour scale and A − B diverging about 0 (NaN where A or B is, as numpy). a, b:
 * T × T rows. opts: {titles (["A", "B"]), title, theme, valueName ("P"), diffTitle, name}. */
function compareHeatmaps(a, b, tokens, opts) {
  var o = opts || {}, titles = o.titles || ["A", "B"], T = tokens.length;
  if (a.length !== T || b.length !== T || shapeText(a) !== shapeText(b)) {
    throw new Error("compareHeatmaps needs A and B of the same shape with one row per token: A is " + shapeText(a) +
                    ", B is " + shapeText(b) + " for " + T + " tokens.");
  }
  var num = function (v) { return v === null ? NaN : v; };  // null (JSON's NaN) stays NaN in arithmetic, as in numpy
  var diff = Array.from(a, function (row, r) { return Array.from(row, function (v, c) { return num(v) - num(b[r][c]); }); });
  return heatmapGrid([a, b, diff], [titles[0], titles[1], o.diffTitle || titles[0] + " − " + titles[1]], tokens, {
    title: o.title, theme: o.theme, valueName: o.valueName, name: o.name, names: ["A", "B", "difference"], height: null,
    difference: true });
}

/* heatmap's default axis titles: rows attend, columns are attended (docs/conventions.md). */
var ROW_TITLE = "attending token (row)", COL_TITLE = "attended token (column)";

/* heatmap: one R × C heatmap, rows labelled by `rowTokens`, columns by `colTokens` (null: the row labels);
 * `diverging`: symmetric about 0 (e.g. Kendall τ). opts: {title, theme, zmin, zmax, diverging, valueName ("P"),
 * xTitle, yTitle, masked (boolean R × C rows: −∞ cells), name}. */
function heatmap(z, rowTokens, colTokens, opts) {
  var o = opts || {};
  return heatmapGrid([z], [o.title || ""], rowTokens, { colTokens: colTokens === null ? undefined : colTokens,
    theme: o.theme, zmin: o.zmin, zmax: o.zmax, diverging: o.diverging, valueName: o.valueName, masked: [o.masked],
    names: ["map"], name: o.name, height: null, xLabel: o.xTitle === undefined ? COL_TITLE : o.xTitle,
    yLabel: o.yTitle === undefined ? ROW_TITLE : o.yTitle });
}

/* maskPanels: additive masks (0 / −∞ / −α|i−j|: Shen Eqs. 16–18, Im Eq. 7) as a heatmapGrid, non-finite cells
 * (null too: JSON has no −∞) masked. panels: [[name, T × T rows], ...] or an object. opts: {title, theme, cols (3),
 * name}. */
function maskPanels(panels, tokens, opts) {
  var o = opts || {}, list = pairs(panels);
  var ok = function (v) { return v !== null && isFinite(v); }, each = function (f) {
    return list.map(function (item) { return Array.from(item[1], function (row) { return Array.from(row, f); }); });
  };
  var finite = each(function (v) { return ok(v) ? v : NaN; }), masked = each(function (v) { return !ok(v); });
  return heatmapGrid(finite, list.map(function (item) { return item[0]; }), tokens, {
    title: o.title || "", theme: o.theme, cols: o.cols || 3, valueName: "mask value", masked: masked, zmax: 0.0,
    name: o.name, names: list.map(function (item, k) { return "mask-" + k; }),
  });
}

export { configure, ctx as context, constant, theme, htmlEscape, formatFixed, formatG, pairs, limits, diffBound, blockMean,
  heatmap, heatmapGrid, smallMultiples, barChart, predictionChart, vectorGrids, tokenFeatureHeatmap, compareHeatmaps,
  maskPanels };
