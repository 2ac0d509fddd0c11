/* figures.js's builders return figure specs (figure_spec.js) the canvas components draw: each is checked against
 * its literal input (z is the matrix, shared colour domains, one colour bar, masked cells, A − B, diverging scales
 * centred on 0, the argmax outlined, block averaging, tokens kept as text). */
import test from "node:test";
import assert from "node:assert/strict";
import * as F from "../../viz_app/browser/figures.js";
import { checkSpec } from "../../viz_app/browser/figure_spec.js";
import { checkHeatmapView, checkBarsView } from "../../viz_app/browser/components/validate.mjs";
import { THEMES } from "../../viz_app/browser/components/palettes.mjs";

F.configure({ themes: THEMES, constants: { SMALL_MULTIPLE_MAX: 3, HEAD_CELLS: 3, CELL_TEXT_MAX: 12 }, status_names: {} });

const TOKENS = ["the", "<script>", "a&b", "the"];
const A = [[0, 0, 0, 0], [1, 0, 0, 0], [0.5, 0.5, 0, 0], [0.2, 0.3, 0.5, 0]];
const B = A.map((r) => r.map(() => 0.25));
const views = (spec) => spec.panels.map((p) => p.view);

/* Every panel's view is one the components accept (validate.mjs), so the spec draws. */
function drawable(spec) {
  checkSpec(spec);
  for (const p of spec.panels) (p.kind === "heatmap" ? checkHeatmapView : checkBarsView)(p.view);
  return spec;
}

test("heatmapGrid: panels share one colour domain and one colour bar; tokens stay text; a clicked row's bars", () => {
  const wide = A.map((r) => r.slice());
  wide[3][3] = NaN;
  const fig = drawable(F.heatmapGrid([wide, B.map((r) => r.map((v) => 2 * v))], ["fw", "bw"], TOKENS,
    { names: ["forward", "backward"], rowBars: true }));
  const [fw, bw, row] = views(fig);
  assert.deepEqual(fw.z, wide);
  assert.deepEqual([fw.zmin, fw.zmax], [0, 1]);
  assert.deepEqual([bw.zmin, bw.zmax], [0, 1]);
  assert.deepEqual([fw.colourbar, bw.colourbar], [false, true]);
  assert.deepEqual(fw.rowTokens, TOKENS);  // no HTML escaping: the canvas draws text
  assert.deepEqual(fig.panels.map((p) => p.name), ["forward", "backward", "row"]);
  assert.deepEqual(fig.rowBars, { panel: "*", bars: "row", title: "Row" });
  assert.deepEqual(row.values, wide[3]);  // the first panel's last row until a row is clicked
  const bounded = F.heatmapGrid([A, B], ["a", "b"], TOKENS, { zmin: -1, zmax: 2 });
  assert.deepEqual(views(bounded).map((v) => [v.zmin, v.zmax]), [[-1, 2], [-1, 2]]);
  assert.equal(F.heatmapGrid([A, B, A], ["a", "b", "c"], TOKENS, { cols: 2 }).columns, 2);
});

test("masked cells: maskPanels marks −∞, null and NaN as masked and draws the rest at most 0", () => {
  const T = 3, m = [[0, -Infinity, null], [-1, 0, -Infinity], [-2, -1, 0]];
  const fig = drawable(F.maskPanels([["fw <mask>", m]], ["a", "b", "c"]));
  const [v] = views(fig);
  assert.deepEqual(v.masked, [[false, true, true], [false, false, true], [false, false, false]]);
  assert.equal(v.zmax, 0);
  assert.equal(v.title, "fw <mask>");
  assert.ok(Number.isNaN(v.z[0][1]) && v.z[2][0] === -2);
  // a wrong shape is one sentence: the components' own check (validate.mjs), which every drawn view passes
  assert.throws(() => drawable(F.maskPanels([["x", [[0]]]], ["a", "b"])), /z has 1 rows but there are 2 row tokens; give one row per token$/);
  assert.equal(T, v.z.length);
});

test("compareHeatmaps: A and B on one domain, A − B diverging about 0 (NaN where either is)", () => {
  const b = B.map((r) => r.slice());
  b[0][0] = null;
  const fig = drawable(F.compareHeatmaps(A, b, TOKENS, { titles: ["x", "y"] }));
  const [va, vb, vd] = views(fig);
  assert.deepEqual([va.zmin, va.zmax], [vb.zmin, vb.zmax]);
  assert.equal(va.colourbar, false);
  assert.equal(vd.scale, "diverging");
  assert.equal(vd.zmin, -vd.zmax);
  assert.ok(Number.isNaN(vd.z[0][0]));
  assert.ok(Math.abs(vd.z[1][0] - 0.75) < 1e-12 && vd.title === "x − y" && vd.valueName === "ΔP");
  const same = views(F.compareHeatmaps(A, A, TOKENS))[2];
  assert.deepEqual([same.zmin, same.zmax], [-1, 1]);  // the shared domain's width, not 1e-9
  assert.throws(() => F.compareHeatmaps(A, [[1]], TOKENS), /same shape with one row per token: A is 4 × 4, B is 1 × 1/);
});

test("compareHeatmaps: A's and B's masked cells are theirs; A − B masks only the cells both mask", () => {
  const fw = TOKENS.map((_, i) => TOKENS.map((_, j) => j >= i)), none = TOKENS.map(() => TOKENS.map(() => false));
  const diag = TOKENS.map((_, i) => TOKENS.map((_, j) => j === i));
  const [va, vb, vd] = views(drawable(F.compareHeatmaps(A, A, TOKENS, { masked: [fw, diag] })));
  assert.deepEqual([va.masked, vb.masked], [fw, diag]);
  assert.deepEqual(vd.masked, diag);  // the diagonal is excluded in both; above it, B has weights to compare
  assert.equal(views(F.compareHeatmaps(A, B, TOKENS, { masked: [fw, none] }))[2].masked, null);
  assert.equal(views(F.compareHeatmaps(A, B, TOKENS))[0].masked, null);
});

test("heatmap: diverging is symmetric about 0; the axis titles default to the attention convention", () => {
  const tau = [[1, -0.5], [-0.5, 1]];
  const [v] = views(drawable(F.heatmap(tau, ["m1", "m2"], null, { diverging: true, zmin: -1, zmax: 1, valueName: "τ" })));
  assert.deepEqual([v.scale, v.zmin, v.zmax, v.valueName], ["diverging", -1, 1, "τ"]);
  const [p] = views(F.heatmap(A, TOKENS, null, {}));
  assert.deepEqual([p.xLabel, p.yLabel], ["attended token (column)", "attending token (row)"]);
  assert.throws(() => drawable(F.heatmap([[1, 2]], ["a", "b"], null, {})), /z has 1 rows but there are 2 row tokens; give one row per token$/);
  assert.throws(() => drawable(F.heatmap([[1], [2]], ["a", "b"], null, {})), /row 0 of z has 1 values but there are 2 column tokens/);
});

test("smallMultiples averages blocks of a long sentence and says so in the title", () => {
  const T = 7, m = Array.from({ length: T }, (_, i) => Array.from({ length: T }, (_, j) => i * T + j));
  const fig = drawable(F.smallMultiples([m, m], Array.from({ length: T }, (_, i) => `t${i}`), ["h1", "h2"], { maxCells: 3 }));
  const [v] = views(fig);
  assert.deepEqual(v.rowTokens, ["t0…t2", "t3…t5", "t6…t6"]);
  assert.equal(v.z[0][0], (0 + 1 + 2 + 7 + 8 + 9 + 14 + 15 + 16) / 9);
  assert.match(fig.title, /averaged over blocks of 3 tokens/);
});

test("barChart: one panel per series on one value axis; predictionChart outlines the argmax on [0, 1]", () => {
  const fig = drawable(F.barChart([["forward", [0.1, 0.9, NaN]], ["backward", [0.4, 0.2, 0.3]]], ["a", "b", "c"],
    { yTitle: "F", yRange: [0, 1] }));
  const [f, b] = views(fig);
  assert.deepEqual([f.domain, b.domain], [[0, 1], [0, 1]]);
  assert.ok(Number.isNaN(f.values[2]));
  const free = views(F.barChart([["s", [-2, 1]]], ["a", "b"], {}))[0];
  assert.deepEqual(free.domain, [-2, 1]);
  const [p] = views(drawable(F.predictionChart({ neg: 0.3, pos: 0.7 }, { theme: "presentation" })));
  assert.deepEqual([p.values, p.labels, p.highlight, p.domain, p.orientation, p.theme],
    [[0.3, 0.7], ["neg", "pos"], 1, [0, 1], "horizontal", "presentation"]);
});

test("vectorGrids fold features into rows of 30 on one domain; a difference gets its own diverging scale", () => {
  const v1 = Array.from({ length: 45 }, (_, i) => i / 45), v2 = v1.map((x) => x / 2), d = v1.map((x, i) => x - v2[i]);
  const fig = drawable(F.vectorGrids([v1, v2, d], ["A", "B", "A − B"], { difference: true }));
  const [a, b, diff] = views(fig);
  assert.equal(a.z.length, 2);
  assert.equal(a.z[1][14], v1[44]);
  assert.ok(Number.isNaN(a.z[1][15]));  // past the vector's end
  assert.deepEqual([a.zmin, a.zmax], [b.zmin, b.zmax]);
  assert.deepEqual([a.colourbar, b.colourbar, diff.colourbar], [false, true, true]);
  assert.equal(diff.scale, "diverging");
  assert.equal(diff.zmin, -diff.zmax);
  assert.equal(a.rowTokens[1], "features 30–44");
});

test("tokenFeatureHeatmap: tokens as rows, feature k as columns; a wrong shape is one sentence", () => {
  const [v] = views(drawable(F.tokenFeatureHeatmap([[0, 1], [1, 0]], ["a", "b"], { zmin: 0, zmax: 1, valueName: "F" })));
  assert.deepEqual([v.colTokens, v.xLabel, v.yLabel, v.valueName], [["0", "1"], "feature k", "token", "F"]);
  assert.throws(() => drawable(F.tokenFeatureHeatmap([[0]], ["a", "b"])), /z has 1 rows but there are 2 row tokens; give one row per token$/);
});

test("limits: a constant map's scale is one unit wide, [0, 1] for a constant probability (a one-word sentence)", () => {
  assert.deepEqual(F.limits([[[1, 1], [1, 1]]]), [0, 1]); // source2token of one word: every feature's weight is 1
  assert.deepEqual(F.limits([[[0.4]]]), [0, 1]);
  assert.deepEqual(F.limits([[[0, 0]]]), [0, 1]);
  assert.deepEqual(F.limits([[[3, 3]]]), [3, 4]);
  assert.deepEqual(F.limits([[[0.2, 0.7]]]), [0.2, 0.7]);
});
