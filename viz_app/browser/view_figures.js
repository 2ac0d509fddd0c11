/* ViewFigures — the figures the app's views draw with parameters (a chosen token, direction or reduction, two
 * sentences, data the app computes such as attributions), each `Sections.define(name, build)`: build(views,
 * params, theme, values) → {figure, follows: "alpha" | "feature" | undefined}; a figure that follows a control is
 * built again at its values {alpha, feature} (recompute.js `render`). The app draws them by name (export.py
 * show_page_figure → chart.js → Sections.draw); a one-figure report holds one (the HTML download). */
import * as Figures from "./figures.js";
import * as Recompute from "./recompute.js";
import { define, need, checkArray, matrix, sentOf, s2tVector, s2tWordFigure, tokenBars, capitalize, featureSlice,
  perFeature, pair, excluded, attentionAt, attentionPair, blockTitles, headsFigure } from "./sections.js";

function needIndex(value, T, what) {
  need(Number.isInteger(value) && value >= 0 && value < T,
       `${what} should be a token index below ${T} but is ${value}`);
}

/* reduce.feature_entropy of one block: per cell the entropy of q_k = P[i,j,k] / Σ_k P[i,j,k] over log D
 * (null where the cell has no probability: masked). */
function entropyMatrix(sent, direction) {
  const T = sent.tokens.length, D = sent[direction].D, out = new Array(T), logD = Math.log(Math.max(D, 2));
  const P = perFeature(sent, direction, "the feature entropy");
  for (let i = 0; i < T; i++) {
    const row = new Array(T);
    for (let j = 0; j < T; j++) {
      const base = (i * T + j) * D;
      let total = 0, h = 0;
      for (let k = 0; k < D; k++) total += P[base + k];
      if (!(total > 0)) { row[j] = null; continue; }
      for (let k = 0; k < D; k++) {
        const q = P[base + k] / total;
        if (q > 0) h -= q * Math.log(q);
      }
      row[j] = h / logD;
    }
    out[i] = row;
  }
  return out;
}

const REDUCTIONS = { mean: "mean over features", max: "max over features", entropy: "feature entropy",
                     feature: "one feature k" };

/* The (T × T) map of one DiSAN block under a reduction over its d_h features (Shen Eq. 15). */
function disanMap(sent, direction, reduction, feature) {
  const b = sent[direction], T = sent.tokens.length;
  if (reduction === "max") return matrix(Recompute.featureMax(b, T), T, T);
  if (reduction === "entropy") return entropyMatrix(sent, direction);
  if (reduction === "feature") return featureSlice(sent, direction, feature);
  return matrix(b.attention, T, T);
}

const disanValueName = (reduction, feature) =>
  (reduction === "entropy" ? "H (normalised)" : reduction === "feature" ? `P[k=${feature}]` : "P");

const checkReduction = p => need(REDUCTIONS[p.reduction],
  `reduction should be one of ${Object.keys(REDUCTIONS).join(", ")} but is ${p.reduction}`);

/* Shen Fig. 6 under a reduction; a clicked row shows its bars. p: {side, reduction, feature}. With reduction
 * "feature" it follows the feature-k control. */
define("disan-pair", (views, p, theme, values) => {
  checkReduction(p);
  const tv = views[0], sent = sentOf(tv, p.side), k = values ? values.feature : p.feature || 0;
  const fig = pair(disanMap(sent, "fw", p.reduction, k), disanMap(sent, "bw", p.reduction, k), sent,
                   blockTitles(tv), `Token2token attention — ${REDUCTIONS[p.reduction]}`, theme,
                   disanValueName(p.reduction, k));
  return { figure: fig, follows: p.reduction === "feature" ? "feature" : undefined };
});

/* One row of "disan-pair" as bars: what token p.token attends to, forward and backward. */
define("disan-row", (views, p, theme, values) => {
  checkReduction(p);
  const sent = sentOf(views[0], p.side), k = values ? values.feature : p.feature || 0;
  needIndex(p.token, sent.tokens.length, "token");
  const fig = Figures.barChart([["forward", disanMap(sent, "fw", p.reduction, k)[p.token]],
                                ["backward", disanMap(sent, "bw", p.reduction, k)[p.token]]], sent.tokens,
    { title: `Row #${p.token} '${sent.tokens[p.token]}': what it attends to`, yTitle: disanValueName(p.reduction, k),
      theme, masked: ["fw", "bw"].map(d => excluded(sent, d)[p.token]) });
  return { figure: fig, follows: p.reduction === "feature" ? "feature" : undefined };
});

/* Shen Fig. 8: one word's feature-wise source2token vector. p: {side, token, scale: "probability" | "length"}. */
define("s2t-word", (views, p, theme) => {
  const sent = sentOf(views[0], p.side);
  needIndex(p.token, sent.tokens.length, "token");
  return { figure: s2tWordFigure(sent, p.token, theme, "Feature-wise source2token score vector", p.scale) };
});

/* Shen Fig. 8's comparison: the same word in two sentences (views[0] and views[1], premises) and A − B.
 * p: {word, titles: [A, B], scale, difference (default true: a third grid A − B), title}. */
define("s2t-pair", (views, p, theme) => {
  need(views.length === 2, "s2t-pair compares two trace views");
  const vecs = views.map((tv, i) => {
    const t = Array.from(tv.premise.tokens).indexOf(p.word);
    need(t >= 0, `the word '${p.word}' is not in sentence ${i + 1}`);
    return s2tVector(tv.premise, t, p.scale);
  });
  const [a, b] = vecs, withDiff = p.difference !== false;
  return { figure: Figures.vectorGrids(withDiff ? [a, b, a.map((v, k) => v - b[k])] : vecs,
    withDiff ? [p.titles[0], p.titles[1], "difference"] : p.titles,
    { title: p.title || `'${p.word}' in two contexts`, theme, difference: withDiff }) };
});

const DIRECTION_NAMES = { fw: "forward", bw: "backward" };

/* Shen Eq. 19 / Im Eq. 12: one block's gate F for every token and feature. p: {side, dir: "fw" | "bw"}. */
define("gate-features", (views, p, theme) => {
  need(DIRECTION_NAMES[p.dir], `dir should be fw or bw but is ${p.dir}`);
  const sent = sentOf(views[0], p.side), b = sent[p.dir];
  return { figure: Figures.tokenFeatureHeatmap(matrix(b.gate, sent.tokens.length, b.D), sent.tokens, {
    title: `${capitalize(DIRECTION_NAMES[p.dir])} gate F, every feature`, theme, valueName: "F", zmin: 0, zmax: 1 }) };
});

/* Two attention maps on one colour scale and A − B (Shen Tables 1–2 ablations, Im Fig. 8): views[0] is A,
 * views[1] (or views[0] again) B. p: {side, dir, alphas: [α_A, α_B] (null: the trace's own), titles: [A, B],
 * live: A follows the α control ("A: α = …"), B stays at α_B}. */
define("compare", (views, p, theme, values) => {
  need(DIRECTION_NAMES[p.dir], `dir should be fw or bw but is ${p.dir}`);
  const tvA = views[0], tvB = views[1] || tvA, alphas = p.alphas || [null, null];
  const a = sentOf(tvA, p.side), b = sentOf(tvB, p.side);
  need(Array.from(a.tokens).join("\u0000") === Array.from(b.tokens).join("\u0000"),
       "A and B tokenised the sentence differently; they cannot be compared cell by cell");
  const what = tvA.arch === "disan" ? "mean over features" : "mean over heads";
  const titles = [values ? `A: α = ${Figures.formatG(values.alpha)}` : `A: ${p.titles[0]}`, `B: ${p.titles[1]}`];
  const fig = Figures.compareHeatmaps(attentionAt(tvA, a, p.dir, values ? values.alpha : alphas[0]),
    attentionAt(tvB, b, p.dir, alphas[1]), a.tokens, { titles, theme, masked: [excluded(a, p.dir), excluded(b, p.dir)],
      title: `${capitalize(DIRECTION_NAMES[p.dir])} block, ${what} — A and B share one colour scale` });
  return { figure: fig, follows: p.live ? "alpha" : undefined };
});

/** @type {[string, number, string][]} */
const MASK_PANELS = [["diag", 0, "M_diag (Shen Eq. 16)"], ["fw", 0, "M_fw (Shen Eq. 17, Im Fig. 3a)"],
                     ["bw", 0, "M_bw (Shen Eq. 18, Im Fig. 3b)"], ["none", 1, "α·M_dis, α = {α} (Im Fig. 4)"],
                     ["fw", 1, "M_fw + α·M_dis (Im Eq. 7)"], ["bw", 1, "M_bw + α·M_dis (Im Eq. 7)"]];

/* The additive masks for this sentence's length: direction masks (0 / −∞) and Im Eq. 7's M_dir + α·M_dis.
 * p: {side, alpha}; the α panels follow the α control. */
define("masks", (views, p, theme, values) => {
  const sent = sentOf(views[0], p.side), T = sent.tokens.length, a = (values ? values.alpha : p.alpha) || 0;
  const panels = MASK_PANELS.map(([kind, withAlpha, title]) => {
    const flat = Array.from(Recompute.maskPanel(T, kind, withAlpha ? a : 0), v => v + 0); // no −0
    return [title.replace("{α}", Figures.formatG(a)), matrix(flat, T, T)];
  });
  return { figure: Figures.maskPanels(panels, sent.tokens, { title: `Masks for T = ${T} tokens`, theme }),
           follows: "alpha" };
});

/* Bars of per-token series of one sentence (the papers' bar figures: Shen Fig. 7, Im Figs. 9–11).
 * p: {side, title, yTitle, yRange, series: [{name, field, dir}]}. */
define("token-bars", (views, p, theme) => {
  const sent = sentOf(views[0], p.side);
  need(Array.isArray(p.series) && p.series.length, "series should list at least one {name, field, dir}");
  return { figure: tokenBars(sent, p.series.map(x => [x.name, x.field, x.dir]),
    { title: p.title || "", yTitle: p.yTitle || "", theme, yRange: p.yRange || null }) };
});

/* Im Fig. 8: the same weights without the distance mask (α = 0) and with it (α), forward and backward,
 * re-weighted in the page from the trace view's pre-mask scores (Im Eq. 7). p: {side, alpha, title}. */
define("distance-effect", (views, p, theme) => {
  const tv = views[0], sent = sentOf(tv, p.side), a = Figures.formatG(p.alpha);
  need(tv.arch === "dsa", "the distance effect needs a distance-based SAN trace view");
  const mats = [0, p.alpha].flatMap(alpha => ["fw", "bw"].map(d => attentionAt(tv, sent, d, alpha)));
  const titles = ["(a) forward, no distance mask", "(b) backward, no distance mask", `(c) forward, α = ${a}`,
                  `(d) backward, α = ${a}`];
  return { figure: Figures.heatmapGrid(mats, titles, sent.tokens, { title: p.title || "", theme, cols: 2,
    masked: ["fw", "bw", "fw", "bw"].map(d => excluded(sent, d)) }) };
});

/* The heads of one block on one colour scale (Im Figs. 12–13). p: {side, dir, title}. */
define("heads", (views, p, theme) => {
  need(DIRECTION_NAMES[p.dir], `dir should be fw or bw but is ${p.dir}`);
  const sent = sentOf(views[0], p.side);
  need(sent[p.dir].heads, "the trace view has no heads (a DiSAN model?)");
  return { figure: headsFigure(sent, p.dir, p.title || "", theme) };
});

/* The forward/backward pair of one sentence (Shen Fig. 6, Im Fig. 7) with the caller's titles.
 * p: {side, titles: [fw, bw], title}. */
define("pair", (views, p, theme) => (
  { figure: attentionPair(views[0], sentOf(views[0], p.side), p.title || "", theme, p.titles) }));

/* Attention beside token attributions for one class (disan.attribution; the app computes them and hands the
 * raw series over): one bar group per token, each series divided by its largest magnitude so methods in
 * different units share one axis; the axis goes below 0 only when some token lowers the class probability.
 * p: {side, title, series: [[label, raw values (T)], ...]}. */
define("attribution-bars", (views, p, theme) => {
  const sent = sentOf(views[0], p.side);
  let low = 0;
  const series = p.series.map(x => {
    const values = Array.from(x[1], v => (v === null ? NaN : Number(v)));  // null (a score not computed): no bar
    checkArray(values, sent.tokens.length, `series ${x[0]}`);
    let top = 0;
    for (const v of values) if (Math.abs(v) > top) top = Math.abs(v);
    const scaled = values.map(v => (top > 0 ? v / top : v));
    if (scaled.some(v => v < 0)) low = -1.05;
    return [x[0], scaled];
  });
  return { figure: Figures.barChart(series, sent.tokens, { title: p.title || "", theme, yRange: [low, 1.05],
                                                           yTitle: "score ÷ largest |score| of its method" }) };
});

/* Kendall τ between every two methods' token rankings, on a diverging scale from −1 to 1 (null: undefined,
 * fewer than two tokens). p: {names, tau: M × M, title}. */
define("tau", (views, p, theme) => ({ figure: Figures.heatmap(p.tau, p.names, p.names, { title: p.title || "", theme,
  zmin: -1, zmax: 1, diverging: true, valueName: "τ", xTitle: "ranking by", yTitle: "ranking by" }) }));
