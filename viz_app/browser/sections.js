/* Sections — every section and figure that follows a sentence, defined once, here (with figures.js's builders),
 * as a function of the trace view (docs/trace-view.md).
 *
 * The static explorer, the report file and the notebook view call `page(tv)` and hand it to Report.show; the
 * app's chart component draws one figure at a time with `draw(views, id, params, theme)`: a figure of the page by
 * id, or one `define`d (view_figures.js) with parameters. A live figure (α, feature k) is built again at the
 * controls' values by its own function (its binding's `redraw`, recompute.js `render`). Pure functions
 * (figures.js's `configure` first); errors are thrown as one sentence. Tests: test_page_figures.py
 * (against the trace), test_sections_js.py, test_app.py. */
import * as Figures from "./figures.js";
import * as Recompute from "./recompute.js";
import { argmax } from "./util.js";

export const escape = Figures.htmlEscape;

export const capitalize = word => word.charAt(0).toUpperCase() + word.slice(1).toLowerCase();

/* The first letter upper case, the rest as it is (capitalize() would lower the "A" of "sentence A"). */
export const upperFirst = text => text.charAt(0).toUpperCase() + text.slice(1);

/* `rows` rows of `cols` values of `flat` from `offset`, as an array of rows (a plain loop: slice.call on a typed
 * array is about 10× slower, 3 ms a 256 × 256 map). */
export function matrix(flat, rows, cols, offset = 0) {
  const out = new Array(rows);
  for (let r = 0; r < rows; r++) {
    const row = new Array(cols);
    for (let c = 0, o = offset + r * cols; c < cols; c++) row[c] = flat[o + c];
    out[r] = row;
  }
  return out;
}

/* The mean of each row of a rows × cols flat array (numpy's .mean(-1)). */
function rowMeans(flat, rows, cols) {
  const out = new Array(rows);
  for (let r = 0; r < rows; r++) {
    let s = 0;
    for (let c = 0; c < cols; c++) s += flat[r * cols + c];
    out[r] = s / cols;
  }
  return out;
}

export function need(cond, what) {
  if (!cond) throw new Error(`The trace view is not complete: ${what}.`);
}

export function checkArray(value, length, what) {
  need(value && value.length === length, `${what} should have ${length} values` +
       (value && value.length !== undefined ? ` but has ${value.length}` : ""));
}

/* The shapes the sections read, checked up front so a wrong field names itself instead of drawing noise. */
function checkSentence(sent, arch, name) {
  need(Array.isArray(sent?.tokens) && sent.tokens.length > 0, `${name}.tokens is missing or empty`);
  const T = sent.tokens.length;
  need(sent.T === undefined || sent.T === T, `${name}.T is ${sent.T} for ${T} tokens`);
  checkArray(sent.status, T, `${name}.status`);
  checkArray(sent.s2t, T * sent.D2, `${name}.s2t (T·D2)`);
  for (const d of ["fw", "bw"]) {
    const b = sent[d], where = `${name}.${d}`;
    need(b, `${where} is missing`);
    // [field, length, its shape as the message names it]; the distance-based SAN's heads, scores and FFN fields too
    const fields = [["allowed", T * T, ""], ["attention", T * T, ""], ["gate", T * b.D, " (T·D)"]];
    if (arch === "dsa") {
      fields.push(["heads", b.H * T * T, " (H·T·T)"], ["scores", b.H * T * T, " (H·T·T)"],
                  ["ffn_deactivation", T, ""], ["ln_max", T, ""]);
    }
    for (const [field, n, shape] of fields) checkArray(b[field], n, `${where}.${field}${shape}`);
  }
  if (arch === "dsa") checkArray(sent.maxpool_share, T, `${name}.maxpool_share`);
}

/* What a side is called where a reader sees it (a relatedness model's: SICK's sentence A and B). */
function sideLabel(tv, side) {
  return typeof tv.relatedness !== "number" ? side : side === "hypothesis" ? "sentence B" : "sentence A";
}

/* report.check_lengths: a report holds at most REPORT_MAX_TOKENS tokens per sentence. */
function checkLengths(tv) {
  const most = Figures.constant("REPORT_MAX_TOKENS");
  for (const [side, sent] of sides(tv)) {
    const n = sent.tokens.length, what = tv.hypothesis ? sideLabel(tv, side) : "text";
    if (n > most) {
      throw new Error(`The ${what} has ${n} tokens; a report holds at most ${most} per sentence ` +
                      "(its in-page maps grow with the square of the length). Shorten it.");
    }
  }
}

export function checkView(tv, opts) {
  need(tv?.arch === "disan" || tv?.arch === "dsa", "arch should be \"disan\" or \"dsa\"");
  need(Array.isArray(tv.masks) && tv.masks.length === 2, "masks should be [fw, bw]");
  need(tv.prediction, "prediction is missing");
  checkSentence(tv.premise, tv.arch, "premise");
  if (tv.hypothesis) checkSentence(tv.hypothesis, tv.arch, "hypothesis");
  if (!opts?.anyLength) checkLengths(tv);
}

/* The sentence of `side` ("hypothesis" where the view has one, else the premise). */
export const sentOf = (tv, side) => (side === "hypothesis" && tv.hypothesis ? tv.hypothesis : tv.premise);

/* [[side, sentence], …] of the view's sentences. */
export function sides(tv) {
  return tv.hypothesis ? [["premise", tv.premise], ["hypothesis", tv.hypothesis]] : [["premise", tv.premise]];
}

const named = (title, side, tv) => (tv.hypothesis ? `${title} — ${sideLabel(tv, side)}` : title);

/* obj[key] computed by make() when first read, then kept (an enumerable property, so JSON shows it). */
export function lazy(obj, key, make) {
  Object.defineProperty(obj, key, { enumerable: true, configurable: true, get() {
    const value = make();
    Object.defineProperty(obj, key, { value, enumerable: true, writable: true, configurable: true });
    return value;
  } });
}

/* One figure of a section. `build` makes its figure spec (a function, called when the figure is first read: a
 * keystroke builds only what it draws; called again with the controls' values {alpha, feature} when the figure
 * follows one) or is the spec. extra: {follows: "alpha" | "feature" (a live figure), word: true (the word control
 * swaps its vector), scope (pair_view.js: what its numbers come from)}. */
export function figure(id, build, paper, caption, side, extra = {}) {
  const { follows, word, scope } = extra, out = { id, paper, caption, side: side || "premise", word: !!word, scope };
  lazy(out, "figure", () => Object.assign(typeof build === "function" ? build() : build, { name: id }));
  out.binding = follows ? { follows, redraw: build } : null;
  return out;
}

export function section(id, title, html, figures, control) {
  return { id, title, html: html || "", figures: figures || [], control: control || null };
}

/* Tokens as escaped badges coloured by vocabulary status. */
export function tokensHtml(sent) {
  const names = Figures.context().status_names;
  let unknown = 0, glove = 0;
  const badges = Array.from(sent.tokens, (t, i) => {
    const s = sent.status[i];
    if (s === "unknown") unknown++;
    if (s === "glove") glove++;
    const name = Object.hasOwn(names, s) ? names[s] : s;
    return `<span class="tok tok-${escape(s)}" title="#${i} ${escape(name)}">${escape(t)}</span>`;
  });
  return `<p class="tokens">${badges.join(" ")}</p>` +
    `<p class="counts">${sent.tokens.length} token${sent.tokens.length === 1 ? "" : "s"} · ${unknown} unknown · ` +
    `${glove} GloVe-only</p>`;
}

export function legendHtml() {
  const items = Object.entries(Figures.context().status_names)
    .map(([k, name]) => `<span class="tok tok-${k}">${k}</span> ${escape(name)}`);
  return `<p class="legend">${items.join(" · ")}</p>`;
}

/* A score model's rᵀp̂ and its grades (Tai, Socher & Manning 2015, Sec. 4.2): "relatedness 3.72 (1–5)" for a
 * pair, "score 3.72 (1–5)" for one sentence (--regression); null for a classifier. */
function relatednessText(tv) {
  if (typeof tv.relatedness !== "number") return null;
  const grades = Figures.pairs(tv.prediction).map(p => p[0]);
  return `${tv.hypothesis ? "relatedness" : "score"} ${Figures.formatFixed(tv.relatedness, 2)} ` +
    `(${grades[0]}–${grades[grades.length - 1]})`;
}

const RANDOM_NOTE = " (random weights: meaningless)";

/* The predicted label and its probability (or the score) in one line under the tokens: the first screen names it. */
function predictionLine(tv) {
  const note = escape(tv.random_weights ? RANDOM_NOTE : ""), score = relatednessText(tv);
  if (score !== null) return `<p class="counts">prediction: <b>${escape(score)}</b>${note}</p>`;
  const list = Figures.pairs(tv.prediction), best = list[argmax(list.map(p => Number(p[1])))];
  if (!best) return "";
  return `<p class="counts">prediction: <b>${escape(best[0])}</b> ` +
    `(p = ${Figures.formatFixed(Number(best[1]), 2)})${note}</p>`;
}

/* The tokens (with the predicted label) and the prediction chart. */
export function overview(tv, theme) {
  const body = sides(tv).map(([side, sent]) => `<div class="side">` +
    `${tv.hypothesis ? `<h3>${upperFirst(sideLabel(tv, side))}</h3>` : ""}${tokensHtml(sent)}</div>`);
  const paper = tv.arch === "disan" ? "Shen Sec. 5" : "Im Sec. 4.1";
  const score = relatednessText(tv), note = tv.random_weights ? RANDOM_NOTE : "";
  const chart = score === null ? { title: `Prediction${note}`, theme }
    : { title: upperFirst(score) + note, theme, xTitle: "p̂: probability of each grade" };
  const prediction = figure("prediction", () => Figures.predictionChart(tv.prediction, chart),
    score === null ? `${paper}, classifier output`
      : tv.hypothesis ? "Tai, Socher & Manning 2015, Sec. 4.2 (Shen Sec. 5.3), relatedness output"
      : `${paper}, score output (grades as Tai, Socher & Manning 2015, Sec. 4.2)`,
    score === null ? "Probability of each label from the classifier head on the sentence encoding."
      : tv.hypothesis ? "The distribution p̂ over the relatedness grades r from the head on the two sentence " +
                        "encodings (their product and absolute difference); the score is rᵀp̂."
      : "The distribution p̂ over the grades r from the head on the sentence encoding; the score is rᵀp̂.");
  return [section("tokens", "Tokens", `<div class="sides">${body.join("")}</div>${predictionLine(tv)}${legendHtml()}`),
          section("prediction", "Prediction", "", [prediction])];
}

/* The cells block `direction`'s mask excludes (allowed = 0: Shen Eq. 17, Im Fig. 3) as T rows of booleans. An
 * attention map draws them in the theme's masked colour, so that an excluded cell is not read as a weight near 0. */
export function excluded(sent, direction) {
  const T = sent.tokens.length, allowed = sent[direction].allowed;
  let rows = EXCLUDED.get(allowed);  // once per block: every figure of a keystroke (and each α or k step) reads it
  if (!rows) {
    rows = Array.from({ length: T }, (_, i) => Array.from({ length: T }, (_, j) => !allowed[i * T + j]));
    EXCLUDED.set(allowed, rows);
  }
  return rows;
}
const EXCLUDED = new WeakMap();

/* A block pair's maps (forward, backward) of sentence `sent` on one scale, each block's excluded cells masked; a
 * clicked row shows its bars. */
export function pair(fw, bw, sent, titles, title, theme, valueName) {
  return Figures.heatmapGrid([fw, bw], titles, sent.tokens, { title, theme, valueName: valueName || "P",
    names: ["forward", "backward"], rowBars: true, masked: [excluded(sent, "fw"), excluded(sent, "bw")] });
}

/* A block's head-averaged attention (T × T): the trace's own, or Im Eq. 7 again at another α from the pre-mask
 * scores the trace view keeps (the DSA; exact, as α enters only after them). */
export function attentionAt(tv, sent, direction, a) {
  const b = sent[direction], T = sent.tokens.length;
  if (tv.arch !== "dsa" || a === null || a === undefined) return matrix(b.attention, T, T);
  return matrix(Recompute.headMean(Recompute.headsAt(b, T, a), T), T, T);
}

/* The pair of a sentence's attention maps (Shen Fig. 6, Im Fig. 7), at α `a` (attentionAt); titles default to the
 * blocks' masks. */
export function attentionPair(tv, sent, title, theme, titles, a) {
  return pair(attentionAt(tv, sent, "fw", a), attentionAt(tv, sent, "bw", a), sent, titles || blockTitles(tv),
              title, theme);
}

export const blockTitles = tv => [`forward block (mask ${tv.masks[0]})`, `backward block (mask ${tv.masks[1]})`];

/* Every head of block `direction` on one colour scale (Im Figs. 12–13), block-averaged to HEAD_CELLS; the trace's
 * own, or at α `a` from the pre-mask scores. */
export function headsFigure(sent, direction, title, theme, a) {
  const b = sent[direction], T = sent.tokens.length, heads = a === undefined ? b.heads : Recompute.headsAt(b, T, a);
  const stack = [], titles = [];
  for (let h = 0; h < b.H; h++) { stack.push(matrix(heads, T, T, h * T * T)); titles.push(`head ${h + 1}`); }
  return Figures.smallMultiples(stack, sent.tokens, titles, { title, theme, masked: excluded(sent, direction),
    maxCells: Figures.constant("HEAD_CELLS"), names: titles.map((_, k) => `head-${k + 1}`) });
}

/* DiSAN's per-feature P of one block (T·T·D): the trace view's, or from its Eq. 15 parts (recompute.js). */
export function perFeature(sent, direction, what) {
  const P = Recompute.perFeature(sent[direction], sent.tokens.length);
  need(P, `${direction}.probs (DiSAN's per-feature P) or its keys, queries and c are needed for ${what}`);
  return P;
}

/* DiSAN's P[:, :, k] (T × T) of one block from Eq. 15's parts for this feature alone (T² terms, not T²·d). */
export function featureSlice(sent, direction, k) {
  const b = sent[direction], T = sent.tokens.length;
  need(Recompute.hasParts(b), `${direction}: DiSAN's keys, queries and c are needed for one feature k (Shen Eq. 15)`);
  return matrix(Recompute.disanProbs(b.keys, b.queries, T, b.allowed, b.c, k), T, T);
}

/* Shen Eqs. 12–13: one token's 2·d_h source2token probabilities; "length" scales them by T (1 = uniform). */
export function s2tVector(sent, token, scale) {
  const v = sent.s2t.slice(token * sent.D2, (token + 1) * sent.D2);
  return scale === "length" ? Array.from(v, x => x * sent.tokens.length) : Array.from(v);
}

/* Shen Fig. 8 for one word: its 2·d_h source2token probabilities on a grid (`scale` as s2tVector). */
export function s2tWordFigure(sent, token, theme, title, scale) {
  return Figures.vectorGrids([s2tVector(sent, token, scale)],
                             [`#${token} '${sent.tokens[token]}' (${sent.D2} features)`],
                             { title: title || "", theme, valueName: "P" });
}

/* One per-token series of a sentence by its field (docs/trace-view.md): gate (the mean over features of block
 * `dir`'s F), ffn_deactivation and ln_max (block `dir`'s, the DSA's), s2t (the mean over features of the
 * source2token P), maxpool_share (the DSA's). */
export function tokenSeries(sent, field, dir) {
  const T = sent.tokens.length, b = dir ? sent[dir] : null;
  if (field === "gate") return rowMeans(b.gate, T, b.D);
  if (field === "ffn_deactivation" || field === "ln_max") {
    need(b[field], `${dir}.${field} is missing`);
    return Array.from(b[field]);
  }
  if (field === "s2t") return rowMeans(sent.s2t, T, sent.D2);
  if (field === "maxpool_share") {
    need(sent.maxpool_share, "maxpool_share is missing");
    return Array.from(sent.maxpool_share);
  }
  throw new Error(`No per-token series "${field}"; use gate, ffn_deactivation, ln_max, s2t or maxpool_share.`);
}

/* Bars of per-token series [[name, field, dir], …] (tokenSeries) of one sentence on one value axis (the papers' bar
 * figures: Shen Figs. 7–8, Im Figs. 9–11). o: barChart's options. */
export function tokenBars(sent, series, o) {
  return Figures.barChart(series.map(([name, field, dir]) => [name, tokenSeries(sent, field, dir)]), sent.tokens, o);
}

/* A bar figure of the page: tokenBars of one side, its title named after the side. */
function barsFigure(tv, side, theme, id, series, o, paper, caption) {
  return figure(`${id}-${side}`, () => tokenBars(tv[side], series, { ...o, title: named(o.title, side, tv), theme }),
                paper, caption, side);
}

export const GATES = [["forward gate", "gate", "fw"], ["backward gate", "gate", "bw"]];

export function disanSections(tv, theme) {
  const titles = blockTitles(tv), mean = [], feature = [], gates = [], s2t = [];
  for (const [side, sent] of sides(tv)) {
    mean.push(figure(`mean-${side}`,
      () => attentionPair(tv, sent, named("Token2token attention, mean over features", side, tv), theme),
      "Shen Fig. 6", "P averaged over the d_h features (Shen Sec. 5.4); rows attend, columns are attended.", side));
    feature.push(figure(`feature-${side}`, values => {
      const k = values ? values.feature : 0;
      return pair(featureSlice(sent, "fw", k), featureSlice(sent, "bw", k), sent, titles,
                  named(`Token2token attention, feature k = ${k}`, side, tv), theme, "P[k]");
    }, "Shen Fig. 6, one feature (Eq. 15)",
      "The softmax of one feature k before averaging; drag the slider or use its arrow keys.", side,
      { follows: "feature" }));
    gates.push(barsFigure(tv, side, theme, "gate", GATES, { title: "Fusion gate per token, mean over features",
      yTitle: "F", yRange: [0, 1] }, "Shen Fig. 7 (Eq. 19)",
      "A large F keeps the token's own input h, a small F takes its context s (u = F⊙h + (1−F)⊙s)."));
    s2t.push(figure(`s2t-${side}`, () => s2tWordFigure(sent, 0, theme, named("Source2token score vector", side, tv)),
      "Shen Fig. 8 (Eqs. 12–13)",
      "The feature-wise source2token probability of the chosen word, folded into rows of 30 features.", side,
      { word: true }));
    s2t.push(barsFigure(tv, side, theme, "s2t-mean", [["source2token weight", "s2t"]],
      { title: "Source2token weight per token", yTitle: "mean P" }, "Shen Fig. 8, mean over features",
      "How much each token contributes to the sentence encoding, averaged over the 2·d_h features."));
  }
  return [
    section("disan-mean", "Forward and backward attention", "", mean),
    section("disan-feature", "One feature at a time", "", feature, "feature"),
    section("disan-gate", "Fusion gate", "", gates),
    section("disan-s2t", "Source2token vectors", "", s2t, "word"),
  ];
}

export function dsaSections(tv, theme) {
  const alpha = tv.alpha ?? 0.0, at = values => (values ? values.alpha : alpha);  // a live figure's α, else the pass's
  const mean = [], heads = [], gates = [], ffn = [], pool = [];
  for (const [side, sent] of sides(tv)) {
    mean.push(figure(`alpha-mean-${side}`, values => attentionPair(tv, sent,
      named(`Head-averaged attention weights at α = ${Figures.formatG(at(values))}`, side, tv), theme,
      [`forward (mask ${tv.masks[0]})`, `backward (mask ${tv.masks[1]})`], values?.alpha),
    "Im Fig. 7 (Eq. 7)",
      "softmax(QKᵀ/√d_k + M_dir + α·M_dis) averaged over heads; the α control recomputes it in the page.", side,
      { follows: "alpha" }));
    for (const [direction, name, fig] of [["fw", "Forward", "12"], ["bw", "Backward", "13"]]) {
      heads.push(figure(`alpha-heads-${direction}-${side}`, values => headsFigure(sent, direction,
        named(`${name} heads at α = ${Figures.formatG(at(values))}`, side, tv), theme, values?.alpha),
      `Im Fig. ${fig}`,
        `Every head of the ${name.toLowerCase()} block on one colour scale; Im: the weights differ for each head.`,
        side, { follows: "alpha" }));
    }
    gates.push(barsFigure(tv, side, theme, "gate", GATES,
      { title: `Fusion gate per token at α = ${Figures.formatG(alpha)}`, yTitle: "mean F", yRange: [0, 1] },
      "Im Fig. 9 (Eq. 12)",
      "Mean over features of F: a large F keeps the input S_F, a small F the attention H_F."));
    ffn.push(barsFigure(tv, side, theme, "ffn-deact", [["forward", "ffn_deactivation", "fw"],
      ["backward", "ffn_deactivation", "bw"]], { title: "FFN deactivation ratio", yTitle: "ratio", yRange: [0, 1] },
      "Im Fig. 10a (Eq. 13)", "Share of the d_ff hidden ReLU units that are 0 for each token."));
    ffn.push(barsFigure(tv, side, theme, "ffn-max", [["forward", "ln_max", "fw"], ["backward", "ln_max", "bw"]],
      { title: "Max over features of LayerNorm(x + FFN(x))", yTitle: "max value" }, "Im Fig. 10b",
      "The largest feature of each token after the FFN's residual and LayerNorm."));
    pool.push(barsFigure(tv, side, theme, "pool", [["multi-dimensional attention (mean over features)", "s2t"],
      ["share of features won in max pooling", "maxpool_share"]], { title: "Pooling weight and max-pooling share",
      yTitle: "weight / share" }, "Im Fig. 11 (Eqs. 14–16)",
      "softmax(L) per token averaged over features, and the share of features whose maximum this token holds."));
  }
  const fixed = `<p class="note">${escape(`Computed by the encoder at α = ${Figures.formatG(alpha)}`)}; ` +
    "the α control redraws only the attention maps.</p>";
  return [
    section("dsa-mean", "Head-averaged attention", "", mean, "alpha"),
    section("dsa-heads", "Every head", "", heads, "alpha"),
    section("dsa-gate", "Fusion gate", fixed, gates),
    section("dsa-ffn", "Position-wise FFN", fixed, ffn),
    section("dsa-pool", "Pooling", fixed, pool),
  ];
}

/* Every section of the report, in reading order: the tokens, the first maps (a 1400 × 900 window shows the
 * sentence box and the first map together), the prediction chart, the model's other sections. */
export function reportSections(tv, theme) {
  theme = Figures.theme(theme || "normal");
  const [tokens, prediction] = overview(tv, theme);
  const [maps, ...rest] = tv.arch === "disan" ? disanSections(tv, theme) : dsaSections(tv, theme);
  return [tokens, maps, prediction, ...rest];
}

const COMPACT = new Set(["tokens", "prediction", "disan-mean", "dsa-mean"]);

/* The notebook view: tokens, prediction and the two main maps (α control for the DSA). */
export const compactSections = (tv, theme) => reportSections(tv, theme).filter(s => COMPACT.has(s.id));

/* Per token, what the word control swaps into the Shen Fig. 8 figure: its panel's view {z, zmin, zmax, title}. */
export function wordFrames(sent, theme) {
  theme = Figures.theme(theme || "normal");
  return Array.from(sent.tokens, (_, t) => {
    const { z, zmin, zmax, title } = s2tWordFigure(sent, t, theme).panels[0].view;
    return { z, zmin, zmax, title };
  });
}

/* report.page_data: the figures and the bindings of those the page redraws (a live figure is redrawn from its own
 * trace view, recompute.js `render`). */
export function pageData(tv, sections, compact) {
  const data = { arch: tv.arch, alpha: tv.alpha ?? null, compact: !!compact, figures: {}, live: {}, words: {} };
  // Every entry is built when first read: a keystroke builds only what it draws (report.js reads the figures
  // on screen; the others when they come near the window or typing rests).
  for (const f of sections.flatMap(s => s.figures)) {
    lazy(data.figures, f.id, () => f.figure);
    if (f.binding) lazy(data.live, f.id, () => ({ side: f.side, binding: f.binding }));
    if (f.word && !(f.side in data.words)) lazy(data.words, f.side, () => wordFrames(tv[f.side]));
  }
  return data;
}

/* The α slider at `a` (Im Eq. 7); `also` follows its label (the pair view's ", A and B"). */
export function alphaSlider(a, also) {
  const G = Figures.formatG, C = name => G(Figures.constant(name));
  return `<label class="control">α — distance-mask weight (Im Eq. 7)${also || ""} <input type="range" ` +
    `data-control="alpha" min="${C("ALPHA_MIN")}" max="${C("ALPHA_MAX")}" step="${C("ALPHA_STEP")}" value="${G(a)}" ` +
    `aria-label="alpha"> <output>${G(a)}</output></label>`;
}

function control(sec, tv, dH) {
  if (sec.control === "alpha") return alphaSlider(tv.alpha ?? Figures.constant("PAPER_ALPHA"));
  if (sec.control === "feature") {
    return `<label class="control">feature k (0–${dH - 1}) <input type="range" data-control="feature" min="0" ` +
      `max="${dH - 1}" step="1" value="0" aria-label="feature k"> <output>0</output></label>`;
  }
  if (sec.control === "word") {
    return sides(tv).map(([side, sent]) => {
      const options = Array.from(sent.tokens, (t, i) => `<option value="${i}">#${i} ${escape(t)}</option>`);
      return `<label class="control">${tv.hypothesis ? `${sideLabel(tv, side)} word` : "word"} ` +
        `<select data-control="word" data-side="${side}">${options.join("")}</select></label>`;
    }).join("");
  }
  return "";
}

export function sectionHtml(sec, tv, dH) {
  const figs = sec.figures.map(f => `<figure class="fig"><div class="plot" id="fig-${f.id}" data-fig="${f.id}"></div>` +
    `<figcaption><b>${escape(f.paper)}.</b> ${escape(f.caption)}</figcaption></figure>`);
  return `<section class="section" id="${sec.id}" tabindex="-1"><h2>${escape(sec.title)}</h2>` +
    `${control(sec, tv, dH)}${sec.html}${figs.join("")}</section>`;
}

/* The lines (HTML, one element each) of the page's <header>. */
function headerLines(tv, sections, compact) {
  const text = sent => escape(Array.from(sent.tokens).join(" "));
  const lines = [`<h1>${escape(tv.model)}: ${text(tv.premise)}</h1>`];
  if (tv.hypothesis) lines.push(`<p class="sub hyp">${sideLabel(tv, "hypothesis")}: ${text(tv.hypothesis)}</p>`);
  const facts = [`masks ${tv.masks[0]}/${tv.masks[1]}`];
  if (tv.alpha !== null && tv.alpha !== undefined) facts.push(`encoder pass at α = ${Figures.formatG(tv.alpha)}`);
  const paper = tv.arch === "disan" ? "Shen et al. 2018 (DiSAN)" : "Im & Cho 2017 (distance-based SAN)";
  lines.push(`<p class="sub">${escape(paper)} · ${facts.map(escape).join(" · ")}</p>`);
  if (tv.random_weights) {
    lines.push('<p class="warn">Random weights (no trained checkpoint): these patterns are not learned.</p>');
  }
  if (compact) return lines;
  return [...lines, ...navLines(sections, "j / → / PageDown next section · k / ← / PageUp previous · " +
                                          "t talk mode (large fonts, one section per screen)")];
}

/* The header's section links and the talk button with the keys. */
export function navLines(sections, keys) {
  const links = sections.map(s => `<a href="#${s.id}">${escape(s.title)}</a>`);
  return [`<nav>${links.join(" ")}</nav>`, '<p class="keys"><button type="button" data-control="talk" ' +
          `aria-pressed="false">Talk mode</button> keys: ${keys}</p>`];
}

/* The report's page for a trace view: {title, header (<header>'s HTML), headerLines (its children's), body
 * (<main>'s inner HTML), parts (its sections' HTML), data (what Report.show draws: arch, alpha, compact,
 * figures {id: spec}, live {id: {side, binding}}, words {side: frames}), sections}.
 * opts: {compact, only (one figure's id: that figure alone; a `define`d one at opts.params), extra (a last section
 * of `define`d figures, below)}. Throws one sentence
 * when the trace view is incomplete or a sentence is longer than a report holds. */
export function page(tv, opts = {}) {
  const { compact, only, params, extra } = opts;
  checkView(tv);
  let sections = compact ? compactSections(tv) : reportSections(tv);
  // figures the report's maker computed beside the trace (viz_app report --attribution), `define`d ones at their
  // params: {id, title, note, figures: [{id, figure, params, paper, caption}]}
  if (extra?.figures?.length) {
    sections.push(section(extra.id || "extra", extra.title, extra.note ? `<p class="note">${escape(extra.note)}</p>` : "",
      extra.figures.map(x => draw([tv], x.figure, x.params, "normal", x))));
  }
  if (only && BUILDERS.has(only)) {
    // One `define`d figure at opts.params (the app's per-figure HTML download), with the control it follows.
    const one = draw([tv], only, params, "normal");
    sections = [section(only, "", "", [one], one.binding?.follows)];
  } else if (only) {
    // One figure of the page (the app's per-figure HTML download), in its section, with the section's control.
    sections = sections.map(s => section(s.id, s.title, s.html, s.figures.filter(f => f.id === only), s.control))
      .filter(s => s.figures.length);
    need(sections.length, `it has no figure "${only}"`);
  }
  const dH = Math.floor(tv.premise.D2 / 2), parts = sections.map(s => sectionHtml(s, tv, dH));
  const lines = headerLines(tv, sections, compact || only);
  return { title: `${tv.model} — attention report`, header: `<header>${lines.join("")}</header>`, headerLines: lines,
           body: parts.join(""), parts, data: pageData(tv, sections, compact || only), sections };
}

/* name → (views, params, theme, values) → {figure, follows: "alpha" | "feature" | undefined}: view_figures.js's
 * `define`s; a figure that follows a control is built again at its values {alpha, feature} (its binding's redraw). */
const BUILDERS = new Map();

export function define(name, build) {
  BUILDERS.set(name, build);
}

/* A section's HTML for a host that lays it out itself (the app's Explore): "tokens" (the Tokens section of one
 * side, params.side). */
export function sectionBody(views, id, params) {
  const tv = views[0];
  checkView(tv, { anyLength: true });
  if (id !== "tokens") throw new Error(`No section "${id}"; the app draws "tokens".`);
  return tokensHtml(sentOf(tv, params?.side)) + predictionLine(tv) + legendHtml();
}

/* The figure `id` of `views` with `params` ({id, figure, binding, side, …}: sections' `figure`): a `define`d figure
 * (built afresh; its spec named `id`, or `as.id` with its caption `as.paper`, `as.caption`: data-figure=
 * "figure:<id>"), else a figure of the first view's page (`figureById`). */
export function draw(views, id, params, themeName, as = {}) {
  const build = BUILDERS.get(id);
  if (!build) return figureById(views[0], id, themeName);
  for (const tv of views) checkView(tv, { anyLength: true });
  const p = params || {}, theme = Figures.theme(themeName || "normal"), built = build(views, p, theme);
  return figure(as.id || id, values => (values ? build(views, p, theme, values).figure : built.figure), as.paper || "",
                as.caption || "", p.side, { follows: built.follows });
}

/* The figures of `sections` by id. */
export const figuresIn = sections => Object.fromEntries(sections.flatMap(s => s.figures.map(f => [f.id, f])));

// a trace view's figures per theme (and "maps": mapFigure's), built once (no field is added to the view)
const figuresOfView = new WeakMap();

function figuresOf(tv, key, make) {
  const byKey = figuresOfView.get(tv) || figuresOfView.set(tv, {}).get(tv);
  return (byKey[key] ||= make());
}

/* Figure `id` of the trace view's page ({id, figure, binding, paper, caption, side}), for a host that draws
 * figures one by one (the app). Each figure is built when first read; any length is accepted. */
export function figureById(tv, id, themeName) {
  const key = themeName || "normal", all = figuresOf(tv, key, () => {
    checkView(tv, { anyLength: true });
    return figuresIn(reportSections(tv, key));
  });
  if (!all[id]) {
    throw new Error(`No figure "${id}" for this ${tv.arch} trace view; it has ${Object.keys(all).join(", ")}.`);
  }
  return all[id];
}

/* The figures drawn from a sentence's attention alone: DiSAN's mean and one-feature maps (fw/bw attention, Eq.
 * 15's keys and queries), the distance-based model's head-averaged and per-head maps (fw/bw heads). */
const MAP_FIGURES = /^(mean|feature|alpha-mean|alpha-heads-fw|alpha-heads-bw)-(premise|hypothesis)$/;

/* Figure `id` of a trace view that may hold only the attention's fields (site.js paintMaps: the lean graph's
 * run), built as the page builds it; null for a figure that needs more of the trace. */
export function mapFigure(tv, id) {
  if (!MAP_FIGURES.test(id)) return null;
  // the architecture's own sections: reportSections' overview reads the prediction, which a maps-only view lacks
  const f = figuresOf(tv, "maps", () => {
    const theme = Figures.theme("normal");
    return figuresIn(tv.arch === "disan" ? disanSections(tv, theme) : dsaSections(tv, theme));
  })[id], side = f && tv[f.side];
  if (!side?.fw.attention || !side.bw.attention) return null;
  if (id.startsWith("feature-") && !Recompute.hasParts(side.fw)) return null;
  if (id.startsWith("alpha-heads-") && !side.fw.heads) return null;
  return f.figure;
}
