/* Figures — the builders of every figure that follows a sentence, defined here only: heatmap, heatmapGrid,
 * smallMultiples, barChart, predictionChart, vectorGrids, tokenFeatureHeatmap, compareHeatmaps and maskPanels
 * return figure specs (figure_spec.js; drawn by figure_host.js, docs/figure-components.md) from arrays;
 * sections.js composes them into a trace view's figures. Non-finite values (null, NaN, ±∞) are masked cells.
 * `configure(context)` takes, once per page, viz_app.draw.site_view.figure_context() (themes, constants, status
 * names). Positional arguments are the data, the rest an options object (camelCase). A matrix is an array of rows
 * (arrays or typed arrays), a vector an array or typed array; `theme` a theme object or its name. */
import { barsPanel, figureSpec, heatmapPanel } from "./figure_spec.js";
import { argmax } from "./util.js";
import { extent, oneUnit } from "./components/palettes.mjs";

let given = null;

/* Take figure_context()'s {themes, constants, status_names, pair_relatedness_names, …}, once, before building. */
export function configure(ctx) {
  if (!ctx?.themes || !ctx.constants) {
    throw new Error("Figures.configure needs the figure context that viz_app.draw.site_view.figure_context() writes");
  }
  return given = ctx;
}

export function context() {
  if (!given) throw new Error("Figures.configure has not been given the figure context yet");
  return given;
}

export function constant(name) {
  const value = context().constants[name];
  if (value === undefined) throw new Error(`Figures: the figure context has no constant ${name}`);
  return value;
}

export function theme(nameOrTheme) {
  if (nameOrTheme && typeof nameOrTheme === "object") return nameOrTheme;
  const t = context().themes[nameOrTheme || "normal"];
  if (!t) throw new Error(`Figures: no theme named ${nameOrTheme}`);
  return t;
}

const HTML = { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#x27;" };

/* Python's html.escape(text, quote=True): the one escaper of the page's own HTML. */
export const htmlEscape = text => String(text).replace(/[&<>"']/g, ch => HTML[ch]);

/* f"{x:.{digits}f}": JS toFixed rounds exact ties up, Python to even; ties are exact only when 2·x·10^d
 * is an odd integer divisible by 5^d (x = 0.125, 0.375 … for d = 2). */
export function formatFixed(x, digits) {
  if (Object.is(x, -0)) return `-${(0).toFixed(digits)}`;
  const p = 10 ** digits, t = x * p, twice = 2 * t;
  if (Number.isInteger(twice) && Math.abs(twice) % 2 === 1 && twice % 5 ** digits === 0 && t / p === x) {
    const down = (Math.trunc(t) / p).toFixed(digits);
    if (Number(down.slice(-1)) % 2 === 0) return down;  // the even one of the two neighbours, as Python rounds
  }
  return x.toFixed(digits);
}

/* f"{x:g}": 6 significant digits, trailing zeros dropped, exponent form below 1e-4 and from 1e6. */
export function formatG(x) {
  x = Number(x);
  if (!isFinite(x)) return Number.isNaN(x) ? "nan" : x > 0 ? "inf" : "-inf";
  if (x === 0) return Object.is(x, -0) ? "-0" : "0";
  const [digits, e] = x.toExponential(5).split("e"), exp = Number(e);
  if (exp < -4 || exp >= 6) {
    return `${digits.replace(/\.?0+$/, "")}e${exp < 0 ? "-" : "+"}${String(Math.abs(exp)).padStart(2, "0")}`;
  }
  const text = x.toFixed(Math.max(0, 5 - exp));
  return text.includes(".") ? text.replace(/\.?0+$/, "") : text;
}

/* [lo, hi] over the finite values of `mats` (arrays of rows; the components' extent), zmin/zmax when given. */
export function limits(mats, zmin, zmax) {
  const [min, max] = extent(mats.flat()), lo = zmin ?? min, hi = zmax ?? max;
  // a constant map gets a scale one unit wide: an all-masked map (a one-word sentence's) then has the [0, 1] of
  // any longer sentence's attention, so the maps typed after it are painted on the limits they are drawn with
  return hi > lo ? [lo, hi] : oneUnit(lo);
}

/* The half-width of a difference's diverging scale: the largest finite |value| of `mat`, or for an all-zero
 * difference (A equal to B) the width of the compared maps' scale `lim`. */
export function diffBound(mat, lim) {
  let b = 0;
  for (const row of mat) for (const v of row) if (v !== null && isFinite(v)) b = Math.max(b, Math.abs(v));
  return b > 0 ? b : lim[1] - lim[0];
}

/* "rows × cols" of a matrix, for error messages. */
const shapeText = m => `${m.length} × ${m.length ? m[0].length : 0}`;

export const pairs = mapping => (Array.isArray(mapping) ? mapping : Object.entries(mapping));

/* A boolean matrix when any cell is true, else null (no masked cells to draw). */
const anyMasked = mask => (mask?.some(row => Array.from(row).some(Boolean)) ? mask : null);

/* heatmapGrid: heatmap panels sharing ONE colour scale (one colour bar, on the last panel sharing it): every map
 * builder below is one. opts: {colTokens, title, theme, cols, valueName, zmin, zmax, masked (array of boolean
 * matrices or null per panel), names (panel names, default "panel-k"), rowBars (a bars panel "row" that a clicked
 * row fills), name, height (null: the component's own), xLabel, yLabel, diverging (the shared scale symmetric
 * about 0), difference (the last matrix is a difference of the others, on its own diverging scale: ±its largest
 * |value|)}. */
export function heatmapGrid(mats, titles, rowTokens, o = {}) {
  const th = theme(o.theme), { valueName = "P" } = o, colTokens = o.colTokens || rowTokens;
  const n = mats.length, cols = o.cols || n, T = rowTokens.length, diverging = o.diverging;
  const diffAt = o.difference && n > 1 ? n - 1 : n, lim = limits(mats.slice(0, diffAt), o.zmin, o.zmax);
  const bound = diffAt < n ? diffBound(mats[diffAt], lim) : Math.max(Math.abs(lim[0]), Math.abs(lim[1]), 1e-9);
  // a pair of maps as tall as it was in Plotly, a grid of small multiples shorter
  const { height = Math.trunc(cols > 2 ? Math.min(760, Math.max(260, 90 + th.cell_height * T * 0.6))
                                       : Math.min(720, Math.max(220, 50 + th.cell_height * T))) } = o;
  const panels = mats.map((mat, k) => {
    const diff = k === diffAt, [zmin, zmax] = diff || diverging ? [-bound, bound] : lim;
    const view = { z: mat, rowTokens: Array.from(rowTokens), colTokens: Array.from(colTokens), zmin, zmax,
      theme: th.name, title: titles[k] === undefined ? "" : String(titles[k]),
      valueName: diff ? `Δ${valueName}` : valueName, scale: diff || diverging ? "diverging" : "sequential",
      masked: anyMasked(o.masked?.[k]), colourbar: diff || k === diffAt - 1 };
    if (height !== null) view.height = height;
    if (o.xLabel !== undefined) Object.assign(view, { xLabel: o.xLabel, yLabel: o.yLabel });
    return heatmapPanel(o.names ? o.names[k] : `panel-${k}`, view);
  });
  if (o.rowBars) {
    const last = mats[0].length - 1;  // the first panel's last row: under a forward mask the one that sees every token
    panels.push(barsPanel("row", { values: Array.from(mats[0][last] || []), labels: Array.from(colTokens),
      title: `Row #${last} '${rowTokens[last]}' (click a row)`, valueName, theme: th.name,
      masked: anyMasked(o.masked?.[0]) ? o.masked[0][last] : null }));
  }
  return figureSpec(o.name, o.title, panels, { columns: Math.min(cols, n),
                                               rowBars: o.rowBars ? { panel: "*", bars: "row", title: "Row" } : null });
}

/* viz_app.draw.reduce.block_mean of one matrix: the mean of each block × block square (NaN ignored). */
export function blockMean(mat, maxCells) {
  const T = mat.length, block = Math.ceil(T / maxCells);
  if (block <= 1) return { z: mat, block: 1 };
  const n = Math.ceil(T / block), z = [];
  for (let r = 0; r < n; r++) {
    const line = [];
    for (let c = 0; c < n; c++) {
      let s = 0, k = 0;
      for (let i = r * block; i < Math.min(T, (r + 1) * block); i++) {
        for (let j = c * block; j < Math.min(T, (c + 1) * block); j++) {
          const v = mat[i][j];
          if (v !== null && v === v) { s += v; k++; }
        }
      }
      line.push(k ? s / k : NaN);
    }
    z.push(line);
  }
  return { z, block };
}

/* smallMultiples: one panel per head on a shared scale, block-averaged to maxCells per side.
 * opts: {title, theme, cols, valueName, maxCells, names, name, masked (T × T booleans every panel shares: a
 * block is masked when each of its cells is)}. */
export function smallMultiples(stack, tokens, titles, o = {}) {
  const { maxCells = constant("SMALL_MULTIPLE_MAX"), valueName = "P" } = o;
  const pooled = stack.map(m => blockMean(m, maxCells)), block = pooled.length ? pooled[0].block : 1;
  const share = o.masked && blockMean(o.masked.map(row => row.map(Number)), maxCells).z;  // 1: all cells masked
  const masked = share && share.map(row => row.map(v => v === 1));
  let labels = Array.from(tokens), title = o.title || "";
  if (block > 1) {
    labels = Array.from({ length: Math.ceil(tokens.length / block) },
      (_, k) => `${tokens[k * block]}…${tokens[Math.min((k + 1) * block, tokens.length) - 1]}`);
    title += ` (averaged over blocks of ${block} tokens)`;
  }
  return heatmapGrid(pooled.map(p => p.z), titles, labels, {
    title, theme: o.theme, cols: o.cols || Math.min(pooled.length, 5), name: o.name, valueName, names: o.names,
    masked: masked && pooled.map(() => masked),
  });
}

/* barChart: bars per token, one panel per series on one value axis. series: [[name, values], ...] (or an
 * object whose keys are not integer-like). opts: {title, yTitle, theme, yRange, name, masked (per series: booleans
 * per token, a bar its block's mask excludes, or null)}. */
export function barChart(series, tokens, o = {}) {
  const th = theme(o.theme), list = pairs(series);
  const values = list.map(item => Array.from(item[1], v => (v !== null && isFinite(v) ? v : NaN)));
  const lim = o.yRange ? [o.yRange[0], o.yRange[1]] : limits(values.map(v => [v]), null, null);
  const domain = o.yRange ? lim : [Math.min(0, lim[0]), Math.max(0, lim[1])];
  const panels = list.map((item, k) => {
    const name = String(item[0]);
    return barsPanel(name, { values: values[k], labels: Array.from(tokens), title: name, labelName: o.labelName,
      valueName: o.yTitle || name, masked: o.masked?.[k] || null,
      yLabel: o.yTitle || "", orientation: "vertical", domain, theme: th.name });
  });
  return figureSpec(o.name, o.title, panels, { columns: Math.min(2, panels.length) });
}

/* predictionChart: horizontal bars of label probabilities, the predicted label outlined. prediction: {label: p}
 * or [[label, p], ...]. opts: {title, theme, xTitle ("probability"), name}. */
export function predictionChart(prediction, o = {}) {
  const th = theme(o.theme), list = pairs(prediction), { title = "Prediction" } = o;
  const labels = list.map(p => String(p[0])), values = list.map(p => Number(p[1]));
  return figureSpec(o.name, "", [barsPanel("prediction", { values, labels, orientation: "horizontal", title,
    labelName: "label", valueName: "p", xLabel: o.xTitle || "probability", domain: [0, 1], highlight: argmax(values), theme: th.name })]);
}

/* vectorGrids: feature vectors folded into rows × cols grids side by side on ONE scale (Shen Fig. 8). opts: {title,
 * theme, cols (30), valueName, difference, name}. With `difference` the last vector is a difference of the others,
 * on its own diverging scale symmetric about 0. */
export function vectorGrids(vectors, titles, o = {}) {
  const th = theme(o.theme), cols = o.cols || 30, size = Math.max(...vectors.map(v => v.length));
  const rows = Math.ceil(size / cols), difference = o.difference && vectors.length > 1;
  const grids = vectors.map(v => Array.from({ length: rows },
    (_, r) => Array.from({ length: cols }, (_, c) => (r * cols + c < v.length ? v[r * cols + c] : NaN))));
  const rowTitles = Array.from({ length: rows }, 
    (_, r) => `features ${r * cols}–${Math.min(size, (r + 1) * cols) - 1}`);
  return heatmapGrid(grids, titles, rowTitles, { colTokens: Array.from({ length: cols }, (_, c) => `+${c}`),
    title: o.title, theme: th, valueName: o.valueName, difference, name: o.name,
    height: Math.trunc(200 + 14 * rows + 2 * th.font_size),
    names: grids.map((_, k) => (difference && k === grids.length - 1 ? "difference" : `vector-${k}`)),
    xLabel: "feature (row start + column)" });
}

/* tokenFeatureHeatmap: rows = tokens, columns = feature k (e.g. the gate F, Shen Eq. 19). matrix: T × D rows.
 * opts: {title, theme, valueName ("value"), zmin, zmax, name}. */
export function tokenFeatureHeatmap(matrix, tokens, o = {}) {
  const { valueName = "value" } = o;
  const features = Array.from({ length: matrix.length ? matrix[0].length : 0 }, (_, k) => String(k));
  return heatmapGrid([matrix], [o.title || ""], tokens, { colTokens: features, theme: o.theme, zmin: o.zmin,
    zmax: o.zmax, valueName, names: ["features"], name: o.name, height: null, xLabel: "feature k", yLabel: "token" });
}

/* The cells masked in A and in B (T × T booleans each): where neither has a weight, A − B is no difference. */
export const bothMasked = (a, b) => a.map((row, r) => row.map((m, c) => m && b[r][c]));

/* compareHeatmaps: A and B on ONE colour scale and A − B diverging about 0 (NaN where A or B is, as numpy). a, b:
 * T × T rows. opts: {titles (["A", "B"]), title, theme, valueName ("P"), diffTitle, name, masked ([A's, B's]
 * T × T booleans: A − B masks the cells both do)}. */
export function compareHeatmaps(a, b, tokens, o = {}) {
  const titles = o.titles || ["A", "B"], T = tokens.length;
  if (a.length !== T || b.length !== T || shapeText(a) !== shapeText(b)) {
    throw new Error(`compareHeatmaps needs A and B of the same shape with one row per token: A is ${shapeText(a)}, ` +
                    `B is ${shapeText(b)} for ${T} tokens.`);
  }
  const num = v => (v === null ? NaN : v);  // null (JSON's NaN) stays NaN in arithmetic, as in numpy
  const diff = Array.from(a, (row, r) => Array.from(row, (v, c) => num(v) - num(b[r][c])));
  return heatmapGrid([a, b, diff], [titles[0], titles[1], o.diffTitle || `${titles[0]} − ${titles[1]}`], tokens, {
    title: o.title, theme: o.theme, valueName: o.valueName, name: o.name, names: ["A", "B", "difference"], height: null,
    difference: true, masked: o.masked && [...o.masked, bothMasked(o.masked[0], o.masked[1])] });
}

/* heatmap's default axis titles: rows attend, columns are attended (docs/conventions.md). */
const ROW_TITLE = "attending token (row)", COL_TITLE = "attended token (column)";

/* heatmap: one R × C heatmap, rows labelled by `rowTokens`, columns by `colTokens` (null: the row labels);
 * `diverging`: symmetric about 0 (e.g. Kendall τ). opts: {title, theme, zmin, zmax, diverging, valueName ("P"),
 * xTitle, yTitle, masked (boolean R × C rows: −∞ cells), name}. */
export function heatmap(z, rowTokens, colTokens, o = {}) {
  const { xTitle = COL_TITLE, yTitle = ROW_TITLE } = o;
  return heatmapGrid([z], [o.title || ""], rowTokens, { colTokens, theme: o.theme, zmin: o.zmin, zmax: o.zmax,
    diverging: o.diverging, valueName: o.valueName, masked: [o.masked], names: ["map"], name: o.name, height: null,
    xLabel: xTitle, yLabel: yTitle });
}

/* maskPanels: additive masks (0 / −∞ / −α|i−j|: Shen Eqs. 16–18, Im Eq. 7) as a heatmapGrid, non-finite
 * cells (null too: JSON has no −∞) masked. panels: [[name, T × T rows], ...] or an object. opts: {title, theme,
 * cols (3), name}. */
export function maskPanels(panels, tokens, o = {}) {
  const list = pairs(panels), ok = v => v !== null && isFinite(v);
  const each = f => list.map(item => Array.from(item[1], row => Array.from(row, f)));
  return heatmapGrid(each(v => (ok(v) ? v : NaN)), list.map(item => item[0]), tokens, {
    title: o.title || "", theme: o.theme, cols: o.cols || 3, valueName: "mask value", masked: each(v => !ok(v)),
    zmax: 0.0, name: o.name, names: list.map((_, k) => `mask-${k}`),
  });
}
