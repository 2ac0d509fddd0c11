/* Figures — the Plotly figure builders of every figure that follows a sentence, defined here only.
 *
 * heatmap, heatmapGrid, smallMultiples, barChart, predictionChart, vectorGrids, tokenFeatureHeatmap,
 * compareHeatmaps and maskPanels build {data, layout} from arrays; sections.js composes them into the figures
 * of a trace view, which the static explorer, the report, the notebook view and the app all draw. Python
 * builds no per-sentence figure (viz_app/draw/figures.py keeps only the corpus figures' look).
 * tests/test_figures.py, test_figures_port_js.py, test_sections_js.py and test_page_figures.py check them
 * against their input and against the trace. Values are plain arrays (non-finite values as null, as
 * plotly.io writes NaN in lists).
 *
 * Nothing here is retyped from Plotly or from the Python themes: `configure(context)` takes, once per page,
 * what viz_app.draw.site_view.figure_context() writes (Plotly's templates and colour scales, the themes,
 * the tick constants of figures.py and settings.py). An ES module of pure
 * functions (arrays in, new {data, layout} out); no network.
 *
 * Positional arguments are the data; the rest go in an options object in camelCase (valueName, yTitle). A
 * matrix is an array of rows (each row an array or typed array), a stack an array of matrices, a vector an
 * array or typed array. `theme` is a theme object from `theme(name)` or its name ("normal", "presentation").
 */
var context = null;

/* Take the figure context of viz_app.draw.site_view.figure_context(): {templates, colorscales, themes,
 * constants, status_names, pair_relatedness_names}. Call once before building anything. */
function configure(ctx) {
  if (!ctx || !ctx.templates || !ctx.colorscales || !ctx.themes || !ctx.constants) {
    throw new Error("Figures.configure needs the figure context that viz_app.draw.site_view.figure_context() writes");
  }
  // Every figure's layout holds its theme's template itself, not a copy: Plotly only reads a template, an
  // unchanged figure then equals the one drawn at its first key (report.js kept), and a copy per figure was
  // half of building a heatmap (JSON round trip). Frozen, so a write anywhere fails loudly.
  Object.keys(ctx.templates).forEach(function (name) { freeze(ctx.templates[name]); });
  context = ctx;
  return ctx;
}

function freeze(value) {
  if (value && typeof value === "object" && !Object.isFrozen(value)) {
    Object.freeze(value);
    Object.keys(value).forEach(function (k) { freeze(value[k]); });
  }
  return value;
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

/* ------------------------------------------------------------ text (viz_app/draw/text.py) */

var HTML = { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;" };

/* text.html_escape: & < > " only (Plotly renders a subset of HTML in labels and hover text). */
function htmlEscape(text) {
  return String(text).replace(/[&<>"]/g, function (ch) { return HTML[ch]; });
}

/* Python's len() and slicing count code points, not UTF-16 units: an emoji is one character. */
function clip(text, limit) {
  var chars = Array.from(text);
  return chars.length <= limit ? text : chars.slice(0, limit - 1).join("") + "…";
}

/* f"{x:.{digits}f}": JS toFixed rounds exact ties up, Python to even; ties are exact only when 2·x·10^d
 * is an odd integer divisible by 5^d (x = 0.125, 0.375 … for d = 2). */
function formatFixed(x, digits) {
  if (Object.is(x, -0)) return "-" + (0).toFixed(digits);
  var text = x.toFixed(digits), p = Math.pow(10, digits), t = x * p, twice = 2 * t;
  if (Number.isInteger(twice) && Math.abs(twice) % 2 === 1 && twice % Math.pow(5, digits) === 0 && t / p === x) {
    var down = (Math.trunc(t) / p).toFixed(digits), up = text;
    var lastDown = Number(down.slice(-1));
    text = lastDown % 2 === 0 ? down : up;
  }
  return text;
}

/* f"{x:g}": 6 significant digits, trailing zeros dropped, exponent form below 1e-4 and from 1e6. */
function formatG(x) {
  x = Number(x);
  if (!isFinite(x)) return x !== x ? "nan" : x > 0 ? "inf" : "-inf";
  if (x === 0) return Object.is(x, -0) ? "-0" : "0";
  var exp = Number(x.toExponential(5).split("e")[1]);
  if (exp < -4 || exp >= 6) {
    var parts = x.toExponential(5).split("e"), mant = parts[0].replace(/\.?0+$/, ""), e = Number(parts[1]);
    return mant + "e" + (e < 0 ? "-" : "+") + (Math.abs(e) < 10 ? "0" : "") + Math.abs(e);
  }
  var text = x.toFixed(Math.max(0, 5 - exp));
  return text.indexOf(".") >= 0 ? text.replace(/\.?0+$/, "") : text;
}

/* float(f"{x:.6g}"): x rounded to 6 significant digits. */
function round6(x) {
  return Number(x.toPrecision(6));
}

/* ------------------------------------------------------------ helpers */

function tokenLabels(tokens) {
  var limit = constant("TICK_LABEL_MAX");
  return Array.from(tokens, function (t) { return htmlEscape(clip(t, limit)); });
}

function hoverLabels(tokens) {
  var limit = constant("HOVER_LABEL_MAX");
  return Array.from(tokens, function (t, i) { return "#" + i + " " + htmlEscape(clip(t, limit)); });
}

/* (R, C, 2) escaped [row token, column token] pairs for heatmap hover text. */
function cellCustomdata(rows, cols) {
  var r = hoverLabels(rows), c = hoverLabels(cols);
  return r.map(function (a) { return c.map(function (b) { return [a, b]; }); });
}

function ticks(labels, limit) {
  limit = limit === undefined ? constant("TICK_MAX") : limit;
  var step = Math.max(1, Math.ceil(labels.length / limit)), vals = [], text = [];
  for (var i = 0; i < labels.length; i += step) { vals.push(i); text.push(labels[i]); }
  return { tickmode: "array", tickvals: vals, ticktext: text };
}

/* How many token labels fit along an axis of `pixels` without overlapping. */
function tickLimit(pixels, th) {
  return Math.max(8, Math.min(constant("TICK_MAX"), Math.trunc((pixels - 80) / (th.font_size + 2))));
}

/* [lo, hi] over the finite values of `mats` (arrays of rows), zmin/zmax when given. */
function limits(mats, zmin, zmax) {
  var lo = Infinity, hi = -Infinity;
  mats.forEach(function (m) {
    for (var r = 0; r < m.length; r++) {
      var row = m[r];
      for (var c = 0; c < row.length; c++) {
        var v = row[c];
        if (v !== null && isFinite(v)) { if (v < lo) lo = v; if (v > hi) hi = v; }
      }
    }
  });
  if (lo === Infinity) { lo = 0; hi = 0; }
  if (zmin !== null && zmin !== undefined) lo = zmin;
  if (zmax !== null && zmax !== undefined) hi = zmax;
  // a constant map gets a scale one unit wide: an all-masked map (a one-word sentence's) then has the [0, 1] of
  // any longer sentence's attention, so the maps typed after it are painted on the limits they are drawn with
  return [lo, hi > lo ? hi : lo + 1];
}

function template(name) {
  var t = ctx().templates[name];
  if (!t) throw new Error("Figures: the figure context has no Plotly template " + name);
  return t;
}

function scale(nameOrStops) {
  var stops = typeof nameOrStops === "string" ? ctx().colorscales[nameOrStops] : nameOrStops;
  if (!stops) throw new Error("Figures: the figure context has no colour scale " + nameOrStops);
  return stops.map(function (s) { return [s[0], s[1]]; });
}

function axisNames(k) {
  var n = k === 0 ? "" : String(k + 1);
  return ["xaxis" + n, "yaxis" + n, "x" + n, "y" + n];
}

/* Subplot axes on a rows × cols grid (top-left first) and their titles, as make_subplots lays them out. */
function grid(rows, cols, titles, hSpace, vSpace, fontSize) {
  var width = (1.0 - hSpace * (cols - 1)) / cols, height = (1.0 - vSpace * (rows - 1)) / rows;
  var layout = { annotations: [] };
  for (var k = 0; k < rows * cols; k++) {
    var r = Math.floor(k / cols), c = k % cols, x0 = c * (width + hSpace), y1 = 1.0 - r * (height + vSpace);
    var names = axisNames(k);
    layout[names[0]] = { anchor: names[3], domain: [Math.max(0.0, x0), Math.min(1.0, x0 + width)] };
    layout[names[1]] = { anchor: names[2], domain: [Math.max(0.0, y1 - height), Math.min(1.0, y1)] };
    if (k < titles.length) {
      layout.annotations.push({
        text: titles[k], x: x0 + width / 2, y: y1, xref: "paper", yref: "paper",
        xanchor: "center", yanchor: "bottom", showarrow: false, font: { size: fontSize },
      });
    }
  }
  return layout;
}

function range(n) {
  var out = new Array(n);
  for (var i = 0; i < n; i++) out[i] = i;
  return out;
}

/* A matrix as plain rows of numbers, non-finite values as null. */
function finiteRows(z) {
  return Array.from(z, function (row) {
    return Array.from(row, function (v) { return v !== null && isFinite(v) ? v : null; });
  });
}

function heat(z, rows, cols, o) {
  var th = o.theme, name = htmlEscape(o.valueName);
  var colorbar = { title: { text: name } };
  Object.keys(o.colorbar || {}).forEach(function (k) { colorbar[k] = o.colorbar[k]; });
  var trace = {
    type: "heatmap",
    z: finiteRows(z),
    x: range(z.length ? z[0].length : 0),
    y: range(z.length),
    customdata: cellCustomdata(rows, cols),
    hovertemplate: "row: %{customdata[0]}<br>column: %{customdata[1]}<br>" + name + " = %{z:.6g}<extra></extra>",
    colorscale: scale(o.colorscale || th.sequential),
    zmin: o.zmin,
    zmax: o.zmax,
    showscale: o.showscale === undefined ? true : o.showscale,
    colorbar: colorbar,
    textfont: { size: Math.max(9, th.font_size - 3) },
    xgap: 0,
    ygap: 0,
  };
  if (o.zmid !== null && o.zmid !== undefined) trace.zmid = o.zmid;
  if (o.showText) trace.texttemplate = "%{z:.2f}";
  return trace;
}

/* Masked (−∞) cells in theme.masked, a colour outside every scale, with −∞ hover text. */
function maskedOverlay(masked, rows, cols, th) {
  var z = Array.from(masked, function (row) { return Array.from(row, function (m) { return m ? 1.0 : null; }); });
  var trace = {
    type: "heatmap",
    z: z,
    x: range(z.length ? z[0].length : 0),
    y: range(z.length),
    customdata: cellCustomdata(rows, cols),
    hovertemplate: "row: %{customdata[0]}<br>column: %{customdata[1]}<br>value = −∞ (masked)<extra></extra>",
    colorscale: [[0.0, th.masked], [1.0, th.masked]],
    showscale: false,
    textfont: { size: Math.max(9, th.font_size - 3), color: "#333333" },
    name: "masked",
  };
  if (masked.length <= 2 * constant("CELL_TEXT_MAX")) {
    trace.text = Array.from(masked, function (row) { return Array.from(row, function (m) { return m ? "−∞" : ""; }); });
    trace.texttemplate = "%{text}";
  }
  return trace;
}

/* Invisible markers on every cell: Plotly heatmaps cannot be selected, scatter points can. */
function clickLayer(z, rows, cols, valueName) {
  var labels = cellCustomdata(rows, cols), xs = [], ys = [], custom = [];
  for (var r = 0; r < z.length; r++) {
    for (var c = 0; c < z[r].length; c++) {
      var v = z[r][c];
      xs.push(c); ys.push(r);
      custom.push([labels[r][c][0], labels[r][c][1], v !== null && isFinite(v) ? v : null]);
    }
  }
  var name = htmlEscape(valueName), invisible = { marker: { opacity: 0 } };
  return {
    type: "scatter", x: xs, y: ys, mode: "markers", customdata: custom, showlegend: false,
    marker: { opacity: 0, size: 12, symbol: "square" }, selected: invisible, unselected: invisible,
    hovertemplate: "row: %{customdata[0]}<br>column: %{customdata[1]}<br>" + name + " = %{customdata[2]:.6g}<extra></extra>",
    name: "cells",
  };
}

/* The shared look: template, escaped title, font, height and margins (plus `extra` keys). */
function baseLayout(th, title, height, extra) {
  var layout = {
    template: template(th.template),
    title: { text: htmlEscape(title), x: 0.01, xanchor: "left" },
    font: { size: th.font_size },
    height: height,
    margin: { l: 10, r: 10, t: 60 + th.font_size, b: 10 },
  };
  Object.keys(extra || {}).forEach(function (k) { layout[k] = extra[k]; });
  return layout;
}

function assign(target, source) {
  Object.keys(source).forEach(function (k) { target[k] = source[k]; });
  return target;
}

function copyTicks(t) {
  return { tickmode: t.tickmode, tickvals: t.tickvals.slice(), ticktext: t.ticktext.slice() };
}

/* ------------------------------------------------------------ builders */

/* heatmapGrid: panels sharing ONE colour scale. opts: {colTokens, title, theme, cols, valueName,
 * zmin, zmax, masked (array of boolean matrices or null per panel), panelHeight, clickable}. */
function heatmapGrid(mats, titles, rowTokens, opts) {
  var o = opts || {}, th = theme(o.theme), valueName = o.valueName === undefined ? "P" : o.valueName;
  var colTokens = o.colTokens || rowTokens, n = mats.length, cols = o.cols || n, rows = Math.ceil(n / cols);
  var lim = limits(mats, o.zmin, o.zmax);
  var layout = grid(rows, cols, Array.from(titles, htmlEscape), cols > 1 ? 0.06 : 0.02, rows > 1 ? 0.12 : 0.05,
                    th.font_size);
  var T = rowTokens.length, cellMax = constant("CELL_TEXT_MAX");
  var showTicks = T <= (cols > 2 ? constant("GRID_TICK_MAX") : constant("TICK_MAX"));
  var per = o.panelHeight || Math.trunc(Math.min(760, Math.max(260, 90 + th.cell_height * T * (cols <= 2 ? 1.0 : 0.6))));
  var limit = tickLimit(per, th);
  var xTicks = ticks(tokenLabels(colTokens), limit), yTicks = ticks(tokenLabels(rowTokens), limit);
  var data = [];
  mats.forEach(function (mat, k) {
    var names = axisNames(k), onAxes = { xaxis: names[2], yaxis: names[3] };
    var trace = heat(mat, rowTokens, colTokens, {
      theme: th, zmin: lim[0], zmax: lim[1], valueName: valueName, showscale: k === n - 1,
      showText: n <= 2 && T <= cellMax,
    });
    data.push(assign(trace, onAxes));
    var mask = o.masked ? o.masked[k] : null;
    if (mask && mask.some(function (row) { return Array.from(row).some(Boolean); })) {
      data.push(assign(maskedOverlay(mask, rowTokens, colTokens, th), onAxes));
    }
    if (o.clickable) {
      var top = data[data.length - 1];
      delete top.customdata;
      delete top.hovertemplate;
      top.hoverinfo = "skip";
      data.push(assign(clickLayer(mat, rowTokens, colTokens, valueName), onAxes));
    }
    var bottom = k + cols >= n;
    assign(layout[names[0]], assign({ tickangle: -60, showticklabels: showTicks && bottom }, copyTicks(xTicks)));
    assign(layout[names[1]], assign({ autorange: "reversed", showticklabels: showTicks && k % cols === 0 },
                                    copyTicks(yTicks)));
  });
  assign(layout, baseLayout(th, o.title || "", per * rows + 40));
  return { data: data, layout: layout };
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
 * opts: {title, theme, cols, valueName, maxCells}. */
function smallMultiples(stack, tokens, titles, opts) {
  var o = opts || {}, maxCells = o.maxCells === undefined ? constant("SMALL_MULTIPLE_MAX") : o.maxCells;
  var pooled = stack.map(function (m) { return blockMean(m, maxCells); });
  var block = pooled.length ? pooled[0].block : 1, labels = Array.from(tokens), title = o.title || "";
  if (block > 1) {
    labels = [];
    for (var i = 0; i < tokens.length; i += block) {
      labels.push(tokens[i] + "…" + tokens[Math.min(i + block, tokens.length) - 1]);
    }
    title = title + " (averaged over blocks of " + block + " tokens)";
  }
  return heatmapGrid(pooled.map(function (p) { return p.z; }), titles, labels, {
    title: title, theme: o.theme, cols: o.cols || Math.min(pooled.length, 5),
    valueName: o.valueName === undefined ? "P" : o.valueName,
  });
}

function pairs(mapping) {
  return Array.isArray(mapping) ? mapping : Object.keys(mapping).map(function (k) { return [k, mapping[k]]; });
}

/* barChart: grouped bars per token, one colour per series. series: [[name, values], ...] (or an
 * object whose keys are not integer-like). opts: {title, yTitle, theme, yRange}. */
function barChart(series, tokens, opts) {
  var o = opts || {}, th = theme(o.theme), hover = hoverLabels(tokens), list = pairs(series);
  var data = list.map(function (item, k) {
    var name = htmlEscape(item[0]);
    return {
      type: "bar",
      x: range(tokens.length),
      y: Array.from(item[1], function (v) { return v !== null && isFinite(v) ? v : null; }),
      name: name,
      marker: { color: th.categorical[k % th.categorical.length] },
      customdata: hover.slice(),
      hovertemplate: "%{customdata}<br>" + name + " = %{y:.6g}<extra></extra>",
    };
  });
  var yAxis = { title: { text: htmlEscape(o.yTitle || "") } };
  if (o.yRange) yAxis.range = [o.yRange[0], o.yRange[1]];
  return { data: data, layout: baseLayout(th, o.title || "", 360 + 4 * th.font_size, {
    barmode: "group",
    showlegend: list.length > 1,
    legend: { orientation: "h", y: 1.12 },
    xaxis: assign({ tickangle: -60 }, ticks(tokenLabels(tokens))),
    yaxis: yAxis,
  }) };
}

/* predictionChart: horizontal bars of label probabilities, the predicted label in the accent
 * colour. prediction: {label: p} or [[label, p], ...]. opts: {title, theme, xTitle ("probability")}.
 * The label axis is categorical, so grades named "1" … "5" (a relatedness model's p̂) stay labels. */
function predictionChart(prediction, opts) {
  var o = opts || {}, th = theme(o.theme), list = pairs(prediction);
  var labels = list.map(function (p) { return p[0]; }), values = list.map(function (p) { return Number(p[1]); });
  var best = -1;
  values.forEach(function (v, i) { if (best < 0 || v > values[best]) best = i; });
  var bar = {
    type: "bar",
    y: labels.map(htmlEscape),
    x: values,
    orientation: "h",
    marker: { color: labels.map(function (_, i) { return i === best ? th.categorical[1] : th.categorical[0]; }) },
    hovertemplate: "%{y}: %{x:.4f}<extra></extra>",
    text: values.map(function (v) { return formatFixed(v, 2); }),
    textposition: "outside",
    textangle: 0,
    cliponaxis: false,
  };
  return { data: [bar], layout: baseLayout(th, o.title === undefined ? "Prediction" : o.title,
                                           120 + 40 * Math.max(1, labels.length) + 2 * th.font_size, {
    xaxis: { title: { text: o.xTitle || "probability" }, range: [0, 1] },
    yaxis: { autorange: "reversed", type: "category" },
  }) };
}

/* vectorGrids: feature vectors folded into rows × cols grids side by side on ONE scale
 * (Shen Fig. 8). opts: {title, theme, cols (30), valueName, difference}. With `difference` the last vector is a
 * difference of the others: it gets its own colour bar, the theme's diverging scale symmetric about 0 (a
 * difference of probabilities runs below 0, which the sequential "P" scale would call a probability). */
function vectorGrids(vectors, titles, opts) {
  var o = opts || {}, th = theme(o.theme), cols = o.cols || 30, valueName = o.valueName === undefined ? "P" : o.valueName;
  var size = Math.max.apply(null, vectors.map(function (v) { return v.length; }));
  var rows = Math.ceil(size / cols);
  var grids = vectors.map(function (v) {
    var out = [];
    for (var r = 0; r < rows; r++) {
      var line = new Array(cols);
      for (var c = 0; c < cols; c++) { var i = r * cols + c; line[c] = i < v.length ? v[i] : NaN; }
      out.push(line);
    }
    return out;
  });
  var diffAt = o.difference && grids.length > 1 ? grids.length - 1 : -1;
  var lim = limits(diffAt < 0 ? grids : grids.slice(0, diffAt), null, null), bound = 0;
  if (diffAt >= 0) {
    grids[diffAt].forEach(function (line) { line.forEach(function (v) { if (isFinite(v)) bound = Math.max(bound, Math.abs(v)); }); });
    bound = bound > 0 ? bound : lim[1] - lim[0];  // an all-zero difference: the compared vectors' scale width
  }
  var layout = grid(1, grids.length, Array.from(titles, htmlEscape), diffAt < 0 ? 0.06 : 0.09, 0.0, th.font_size);
  var name = htmlEscape(valueName), index = [];
  for (var r = 0; r < rows; r++) index.push(range(cols).map(function (c) { return r * cols + c; }));
  var data = grids.map(function (g, k) {
    var names = axisNames(k);
    layout[names[0]].showticklabels = false;
    assign(layout[names[1]], { showticklabels: false, autorange: "reversed" });
    var trace = {
      type: "heatmap",
      z: finiteRows(g),
      customdata: index.map(function (line) { return line.slice(); }),
      colorscale: scale(th.sequential),
      zmin: lim[0],
      zmax: lim[1],
      showscale: k === grids.length - 1,
      colorbar: { title: { text: name } },
      hovertemplate: "feature %{customdata}<br>" + name + " = %{z:.6g}<extra></extra>",
      xaxis: names[2],
      yaxis: names[3],
    };
    if (k === diffAt - 1) {  // the compared vectors' colour bar, between them and the difference
      trace.showscale = true;
      trace.colorbar = { title: { text: name }, x: layout[names[0]].domain[1] + 0.005, len: 0.9, thickness: 12 };
    }
    if (k === diffAt) {
      assign(trace, { colorscale: scale(th.diverging), zmin: -bound, zmax: bound, zmid: 0.0,
                      colorbar: { title: { text: "Δ" + name }, x: 1.0, len: 0.9, thickness: 12 } });
      trace.hovertemplate = "feature %{customdata}<br>Δ" + name + " = %{z:.6g}<extra></extra>";
    }
    return trace;
  });
  assign(layout, baseLayout(th, o.title || "", 200 + 14 * rows + 2 * th.font_size));
  return { data: data, layout: layout };
}

/* "rows × cols" of a matrix, for error messages. */
function shapeText(m) {
  return m.length + " × " + (m.length ? m[0].length : 0);
}

/* A cell as a number: null (how JSON carries NaN) as NaN, so arithmetic on it stays NaN as in numpy. */
function cellValue(v) {
  return v === null ? NaN : v;
}

/* tokenFeatureHeatmap: rows = tokens, columns = feature index k (e.g. the fusion gate F,
 * Shen Eq. 19). matrix: T × D rows (null or NaN where no value). opts: {title, theme, valueName ("value"),
 * zmin, zmax}. */
function tokenFeatureHeatmap(matrix, tokens, opts) {
  var o = opts || {}, th = theme(o.theme), valueName = o.valueName === undefined ? "value" : o.valueName;
  if (matrix.length !== tokens.length) {
    throw new Error("tokenFeatureHeatmap needs one matrix row per token: the matrix has " + matrix.length +
                    " rows for " + tokens.length + " tokens.");
  }
  var features = range(matrix.length ? matrix[0].length : 0).map(function (k) { return "feature " + k; });
  var lim = limits([matrix], o.zmin, o.zmax);
  var trace = heat(matrix, tokens, features, { theme: th, zmin: lim[0], zmax: lim[1], valueName: valueName });
  var height = Math.trunc(Math.min(900, Math.max(300, 120 + 18 * tokens.length)));
  return { data: [trace], layout: baseLayout(th, o.title || "", height, {
    xaxis: { title: { text: "feature k" }, tickmode: "auto" },
    yaxis: assign({ title: { text: "token" }, autorange: "reversed" }, ticks(tokenLabels(tokens))),
  }) };
}

/* compareHeatmaps: A and B on ONE colour scale (identical zmin/zmax) and A − B on a diverging
 * scale centred at 0 (a null or NaN cell in A or B is NaN in A − B, as in numpy). a, b: T × T rows.
 * opts: {titles ([A, B], default ["A", "B"]), title, theme, valueName ("P")}. */
function compareHeatmaps(a, b, tokens, opts) {
  var o = opts || {}, th = theme(o.theme), valueName = o.valueName === undefined ? "P" : o.valueName;
  var titles = o.titles || ["A", "B"], T = tokens.length;
  if (a.length !== T || b.length !== T || shapeText(a) !== shapeText(b)) {
    throw new Error("compareHeatmaps needs A and B of the same shape with one row per token: A is " + shapeText(a) +
                    ", B is " + shapeText(b) + " for " + T + " tokens.");
  }
  var lim = limits([a, b], null, null), bound = -Infinity, anyFinite = false;
  var diff = Array.from(a, function (row, r) {
    return Array.from(row, function (v, c) {
      var d = cellValue(v) - cellValue(b[r][c]);
      if (isFinite(d)) anyFinite = true;
      if (d === d && Math.abs(d) > bound) bound = Math.abs(d);  // np.nanmax(np.abs(diff)): ±∞ counts
      return d;
    });
  });
  bound = anyFinite ? bound : 0.0;
  // A equal to B: the scale A and B share is as wide as a difference could be, so the all-zero difference is
  // drawn on [−width, width] with plain tick labels (1e-9 wide, Plotly labelled it "−1n…1n")
  bound = bound > 0 ? bound : lim[1] - lim[0];
  var names = [htmlEscape(titles[0]), htmlEscape(titles[1]), htmlEscape(titles[0] + " − " + titles[1])];
  var layout = grid(1, 3, names, 0.09, 0.0, th.font_size);
  var small = T <= Math.floor(constant("CELL_TEXT_MAX") / 2);
  var shared = function (extra) {
    return assign({ theme: th, zmin: lim[0], zmax: lim[1], valueName: valueName, showText: small }, extra);
  };
  var data = [
    heat(a, tokens, tokens, shared({ showscale: false })),
    assign(heat(b, tokens, tokens, shared({ showscale: true, colorbar: { x: 0.645, len: 0.9, thickness: 12 } })),
           { xaxis: "x2", yaxis: "y2" }),
    assign(heat(diff, tokens, tokens, {
      theme: th, zmin: -bound, zmax: bound, zmid: 0.0, colorscale: th.diverging, valueName: "Δ" + valueName,
      colorbar: { x: 1.0, len: 0.9, thickness: 12 }, showText: small,
    }), { xaxis: "x3", yaxis: "y3" }),
  ];
  var labels = tokenLabels(tokens), show = T <= constant("GRID_TICK_MAX") * 2;
  var height = Math.trunc(Math.min(640, Math.max(340, 110 + th.cell_height * T * 0.7)));
  var limit = tickLimit(height, th);
  for (var k = 0; k < 3; k++) {
    var axes = axisNames(k);
    assign(layout[axes[0]], assign({ tickangle: -60, showticklabels: show }, ticks(labels, limit)));
    assign(layout[axes[1]], assign({ autorange: "reversed", showticklabels: show && k === 0 }, ticks(labels, limit)));
  }
  assign(layout, baseLayout(th, o.title || "", height));
  return { data: data, layout: layout };
}

/* heatmap's default axis titles: rows attend, columns are attended (docs/conventions.md). */
var ROW_TITLE = "attending token (row)", COL_TITLE = "attended token (column)";

/* heatmap: one R × C heatmap, rows labelled by `rowTokens`, columns by `colTokens` (null: the row
 * labels). With `diverging` the scale is the theme's diverging one, symmetric about 0 (zmid 0), e.g. the
 * Kendall τ of attribution.tau_heatmap. z: R × C rows (null or NaN where no value). opts: {title, theme,
 * zmin, zmax, diverging, valueName ("P"), xTitle, yTitle, masked (boolean R × C rows: −∞ cells drawn in
 * theme.masked)}. */
function heatmap(z, rowTokens, colTokens, opts) {
  var o = opts || {}, th = theme(o.theme), valueName = o.valueName === undefined ? "P" : o.valueName;
  colTokens = colTokens === null || colTokens === undefined ? rowTokens : colTokens;
  var R = z.length, C = R ? z[0].length : 0;
  if (R !== rowTokens.length || Array.from(z).some(function (row) { return row.length !== colTokens.length; })) {
    throw new Error("heatmap needs one matrix row per row label and one column per column label: z is " +
                    shapeText(z) + " for " + rowTokens.length + " row labels and " + colTokens.length +
                    " column labels.");
  }
  var lim = limits([z], o.zmin, o.zmax), lo = lim[0], hi = lim[1];
  if (o.diverging) {
    var bound = Math.max(Math.abs(lo), Math.abs(hi), 1e-9);
    lo = -bound;
    hi = bound;
  }
  var data = /** @type {any[]} */ ([heat(z, rowTokens, colTokens, {
    theme: th, zmin: lo, zmax: hi, valueName: valueName, colorscale: o.diverging ? th.diverging : null,
    zmid: o.diverging ? 0.0 : null, showText: Math.max(R, C) <= constant("CELL_TEXT_MAX"),
  })]);
  if (o.masked && o.masked.some(function (row) { return Array.from(row).some(Boolean); })) {
    data.push(maskedOverlay(o.masked, rowTokens, colTokens, th));
  }
  var height = Math.trunc(Math.min(900, Math.max(340, 120 + th.cell_height * R)));
  var limit = tickLimit(height, th);
  var xTitle = o.xTitle === undefined ? COL_TITLE : o.xTitle, yTitle = o.yTitle === undefined ? ROW_TITLE : o.yTitle;
  return { data: data, layout: baseLayout(th, o.title || "", height, {
    xaxis: assign({ title: { text: htmlEscape(xTitle) }, tickangle: -60 }, ticks(tokenLabels(colTokens), limit)),
    yaxis: assign({ title: { text: htmlEscape(yTitle) }, autorange: "reversed" }, ticks(tokenLabels(rowTokens), limit)),
  }) };
}

/* maskPanels: additive masks (0 / −∞ / −α|i−j|: Shen Eq. 16–18, Im Eq. 7) as a heatmapGrid,
 * finite cells on the sequential scale and −∞ cells in theme.masked. panels: [[name, T × T rows], ...] (or an object
 * whose keys are not integer-like). JSON cannot carry −∞, so a null cell is read as −∞ (masked), like
 * -Infinity, NaN and +∞ (numpy's ~isfinite). opts: {title, theme, cols (3)}. */
function maskPanels(panels, tokens, opts) {
  var o = opts || {}, list = pairs(panels);
  list.forEach(function (item) {
    if (item[1].length !== tokens.length) {
      throw new Error("maskPanels needs one matrix row per token: panel " + item[0] + " is " + shapeText(item[1]) +
                      " for " + tokens.length + " tokens.");
    }
  });
  var finite = list.map(function (item) {
    return Array.from(item[1], function (row) {
      return Array.from(row, function (v) { return v !== null && isFinite(v) ? v : NaN; });
    });
  });
  var masked = list.map(function (item) {
    return Array.from(item[1], function (row) {
      return Array.from(row, function (v) { return !(v !== null && isFinite(v)); });
    });
  });
  return heatmapGrid(finite, list.map(function (item) { return item[0]; }), tokens, {
    title: o.title || "", theme: o.theme, cols: o.cols || 3, valueName: "mask value", masked: masked, zmax: 0.0,
  });
}

export { configure, ctx as context, constant, theme, htmlEscape, clip, formatFixed, formatG, pairs, round6,
  tokenLabels, hoverLabels, cellCustomdata, ticks, tickLimit, limits, grid, heatmap, heatmapGrid, smallMultiples,
  barChart, predictionChart, vectorGrids, tokenFeatureHeatmap, compareHeatmaps, maskPanels };
