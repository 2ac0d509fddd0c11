/* PairView — the minimal-pair view (issue 30): two trace views A and B of one model, their tokens aligned
 * (Pair.align), drawn as one report page (Report.show).
 *
 *   page(tvA, tvB, opts)   {title, header, body, data, sections}: the two token rows with the edits marked and a
 *                          leave-one-out row under each; both predictions and the change; per sentence side every
 *                          map on the aligned tokens, A and B on one colour scale and B − A diverging (Shen Fig. 6;
 *                          Im Fig. 7 and Figs. 12–13's heads: A's, B's, B − A); the gates (Shen Fig. 7, Im Fig. 9)
 *                          and source2token / pooling (Shen Fig. 8, Im Fig. 11) side by side per aligned token.
 *                          opts.previous (this host's last page) lends every figure whose numbers did not change;
 *   alignedMaps / alignedSeries   a map (series) of A and of B on the alignment's L steps, and B − A;
 *   fillLeaveOneOut(container, which, loo)   the leave-one-out row of side "a" or "b" filled (the explorer computes
 *                          it in the page, the report and the app in Python: docs/trace-view.md "Leave-one-out").
 *
 * On the aligned grid, step p has a token on both sides (kept, replaced), only in B (inserted) or only in A
 * (deleted); a side's map is null where it has no token, B − A where either has none. Edited rows and columns are
 * outlined (insert green, delete red) and labelled "+word" / "−word" / "a→b". */
import * as Figures from "./figures.js";
import * as Pair from "./pair.js";
import { sameSpec } from "./figure_spec.js";
import { GATES, alphaSlider, checkView, escape, figure as sectionFigure, figuresIn, lazy, navLines, pageData, section,
  sectionHtml, sides, tokenSeries, upperFirst } from "./sections.js";
import { argmax } from "./util.js";

const MARKS = { keep: "", replace: "→", insert: "+", delete: "−" };

/* The axis label of each step: the kept token, "a→b", "+b" (inserted in B) or "−a" (deleted from A). */
export function stepLabels(ops, tokensA, tokensB) {
  return ops.map(o => {
    if (o.op === "keep") return tokensA[o.a];
    if (o.op === "replace") return tokensA[o.a] + MARKS.replace + tokensB[o.b];
    if (o.op === "insert") return MARKS.insert + tokensB[o.b];
    return MARKS.delete + tokensA[o.a];
  });
}

/* One side's T × T map (flat, row-major, from `offset`) on the alignment's L × L grid: null in a row or
 * column whose step has no token on this side ("a" or "b"). */
function onGrid(flat, T, ops, side, offset = 0) {
  return ops.map(row => ops.map(col => {
    const i = row[side], j = col[side];
    return i === null || j === null ? null : Number(flat[offset + i * T + j]);
  }));
}

/* A's and B's maps on the aligned grid and B − A, which has a value where both have one (the kept and replaced
 * steps) and is null elsewhere. a: TA·TA flat (from offsetA), b: TB·TB flat (from offsetB). */
export function alignedMaps(a, TA, b, TB, ops, offsetA, offsetB) {
  const ga = onGrid(a, TA, ops, "a", offsetA), gb = onGrid(b, TB, ops, "b", offsetB);
  const diff = ga.map((row, p) => row.map((v, q) => (v === null || gb[p][q] === null ? null : gb[p][q] - v)));
  return { a: ga, b: gb, diff };
}

/* The cells block `dir`'s mask excludes (sections.js excluded) on the aligned grid, for A and B: a cell whose step has
 * no token on that side is not one of them (it is empty). */
export function excludedOnGrid(sa, sb, dir, ops) {
  const one = (s, side) => onGrid(s[dir].allowed, s.tokens.length, ops, side).map(row => row.map(v => v === 0));
  return { a: one(sa, "a"), b: one(sb, "b") };
}

/* A per-token series of A (length TA) and of B (TB) on the L aligned steps, null where a step has no token on
 * that side; diff is B − A where both have one. */
export function alignedSeries(a, b, ops) {
  const on = (values, side) => ops.map(o => (o[side] === null ? null : Number(values[o[side]])));
  const sa = on(a, "a"), sb = on(b, "b");
  return { a: sa, b: sb, diff: sa.map((v, p) => (v === null || sb[p] === null ? null : sb[p] - v)) };
}

/* Both predictions and the change: {labels, a, b (probabilities in label order), bestA, bestB (labels),
 * changed, target (A's predicted label), delta (p_B − p_A of it), relatedness: [A, B] | null, the score ŷ = rᵀp̂
 * of a score model, and its name: a pair's "relatedness", one sentence's "score" (train --data --regression)}. */
export function predictionChange(tvA, tvB) {
  const pa = Figures.pairs(tvA.prediction), pb = Figures.pairs(tvB.prediction), labels = pa.map(p => p[0]);
  if (labels.join("\u0000") !== pb.map(p => p[0]).join("\u0000")) {
    throw new Error("A and B were predicted over different labels; run both through the same model");
  }
  const a = pa.map(p => Number(p[1])), b = pb.map(p => Number(p[1])), ka = argmax(a), kb = argmax(b);
  const relatedness = typeof tvA.relatedness === "number" && typeof tvB.relatedness === "number"
    ? [tvA.relatedness, tvB.relatedness] : null;
  return { labels, a, b, bestA: labels[ka], bestB: labels[kb], changed: ka !== kb, target: labels[ka],
           delta: b[ka] - a[ka], relatedness, scoreName: tvA.hypothesis ? "relatedness" : "score" };
}

/* x with its sign ("+0.12", "−0.12"), as Python's f"{x:+.{digits}f}" but with a true minus, and a change that
 * rounds to zero shown as "0.00" with no sign: a tiny drop (−0.001) or −0 would print "−0.00" otherwise. */
export function signed(x, digits) {
  const text = Figures.formatFixed(Math.abs(x), digits);
  return Number.isNaN(x) || Number(text) === 0 ? text : (x > 0 ? "+" : "−") + text;
}

/* What a score model's change explains, said in a sentence: "the relatedness score" or "the score". */
export function scoreOf(c) {
  return c.scoreName === "score" ? "the score" : "the relatedness score";
}

export function predictionHtml(c) {
  const fx = Figures.formatFixed;
  if (c.relatedness) {
    const [a, b] = c.relatedness;
    return `<p class="pair-change" data-changed="${a !== b}">${c.scoreName} A <b>${fx(a, 2)}</b> → B ` +
      `<b>${fx(b, 2)}</b> (${signed(b - a, 2)})</p>`;
  }
  const k = c.labels.indexOf(c.target);
  return `<p class="pair-change" data-changed="${c.changed}">A: <b>${escape(c.bestA)}</b> (p = ${fx(c.a[k], 2)}) → ` +
    `B: <b>${escape(c.bestB)}</b> (p = ${fx(c.b[c.labels.indexOf(c.bestB)], 2)}) · ` +
    `${c.changed ? "<b>the prediction changed</b>" : "the prediction held"}; p(${escape(c.target)}) ` +
    `${fx(c.a[k], 2)} → ${fx(c.b[k], 2)} (${signed(c.delta, 2)})</p>`;
}

/* Outline the inserted (green) and deleted (red) steps' rows and columns on every heatmap panel of `fig`. */
const EDIT_COLOURS = { insert: "#1a9850", delete: "#d73027" };

function outlineEdits(fig, ops) {
  const outlines = ops.flatMap((o, index) => {
    const colour = EDIT_COLOURS[o.op];
    return colour ? [{ axis: "row", index, colour }, { axis: "column", index, colour }] : [];
  });
  for (const panel of fig.panels) if (panel.kind === "heatmap") panel.view.outlines = outlines;
  return fig;
}

/* A, B and B − A of one aligned map: compareHeatmaps with its third panel B − A (its own A − B negated); A's and
 * B's excluded cells (excludedOnGrid `ex`) masked. */
function compareFigure(m, ex, labels, ops, o) {
  const fig = Figures.compareHeatmaps(m.a, m.b, labels, { titles: ["A", "B"], title: o.title, theme: o.theme,
    valueName: o.valueName, diffTitle: "B − A (aligned cells)", masked: [ex.a, ex.b] });
  fig.panels[2].view.z = m.diff.map(row => row.map(v => (v === null ? NaN : v)));
  return outlineEdits(fig, ops);
}

/* Every head of one block as three one-row figures: A's heads, B's on the same scale, B − A diverging. rows(which)
 * builds "a", "b" or "diff" from maps and scales computed once (three figures: a key waits for one, not all). */
function headRows(sa, sb, dir, ops, labels, o) {
  const H = sa[dir].H, TA = sa.tokens.length, TB = sb.tokens.length, th = Figures.theme(o.theme), shared = {};
  lazy(shared, "c", () => {
    const maps = Array.from({ length: H },
      (_, h) => alignedMaps(sa[dir].heads, TA, sb[dir].heads, TB, ops, h * TA * TA, h * TB * TB));
    const lim = Figures.limits(maps.flatMap(m => [m.a, m.b]), null, null);
    // no head changed: the difference gets the A/B scale's width, not 1e-9 (labelled "−1n…1n")
    return { maps, lim, bound: Figures.diffBound(maps.flatMap(m => m.diff), lim), ex: excludedOnGrid(sa, sb, dir, ops) };
  });
  const NAMES = { a: "A", b: "B", diff: "B − A" };
  return which => {
    const c = shared.c, name = NAMES[which], diff = which === "diff";
    const titles = c.maps.map((m, h) => `${name}, head ${h + 1}`);
    const fig = Figures.heatmapGrid(c.maps.map(m => m[which]), titles, labels, {
      title: `${o.title}, ${name}`, theme: th, cols: H, zmin: diff ? -c.bound : c.lim[0],
      zmax: diff ? c.bound : c.lim[1], valueName: diff ? "B − A" : "P", names: titles.map((t, h) => `head-${h + 1}`),
      diverging: diff, masked: c.maps.map(() => (diff ? Figures.bothMasked(c.ex.a, c.ex.b) : c.ex[which])) });
    return outlineEdits(fig, ops);
  };
}

/* Per-token series [[name, field, dir], …] of A and B (sections.js tokenSeries, as a sentence's own bar figures read
 * them) side by side per aligned step (bars; none where a side has no token). */
function barsFigure(sa, sb, ops, series, labels, o) {
  const list = series.flatMap(([name, field, dir]) => {
    const m = alignedSeries(tokenSeries(sa, field, dir), tokenSeries(sb, field, dir), ops);
    return [[`A: ${name}`, m.a], [`B: ${name}`, m.b]];
  });
  return Figures.barChart(list, labels, { title: o.title, yTitle: o.yTitle, theme: o.theme, yRange: o.yRange || null });
}

/* A figure of the page; `scope` names what its numbers come from: a sentence side or "prediction". */
const figure = (id, build, paper, caption, scope) => sectionFigure(id, build, paper, caption, "premise", { scope });

/* Whether the figures of `scope` (a sentence side or "prediction") are drawn from the same numbers on both pages
 * (inputs: {tvA, tvB, theme}): the same pass and, in A and in B, the same fields of that side or the same
 * prediction (sameSpec: typed arrays cell by cell, NaN equal to NaN). */
function sameScope(now, before, scope) {
  const numbers = tv => (scope === "prediction" ? [tv.prediction, tv.relatedness] : tv[scope]);
  const all = ({ theme, tvA, tvB }) => [[theme, tvA.model, tvA.arch, tvA.alpha, String(tvA.masks), !tvA.hypothesis],
                                        numbers(tvA), numbers(tvB)];
  return sameSpec(all(now), all(before));
}

/* Each figure of `sections` whose numbers equal those of the same figure of `previous` is that figure's object,
 * built once for both (a B typed in the premise leaves every hypothesis figure as it was). */
function keepFigures(sections, inputs, previous) {
  const old = figuresIn(previous.sections), same = {};
  for (const f of sections.flatMap(s => s.figures)) {
    const o = old[f.id];
    if (!o) continue;
    if (!(f.scope in same)) same[f.scope] = sameScope(inputs, previous.inputs, f.scope);
    if (!same[f.scope]) continue;
    const origin = o.origin || o; // the first page of a run of equal ones: no chain of pages is kept alive
    f.origin = origin;
    lazy(f, "figure", () => origin.figure);
  }
}

const STYLE = "<style>.pair-align{border-collapse:collapse;margin:4px 0 10px;font-size:.95em}" +
  ".pair-align th{text-align:right;padding:2px 8px 2px 0;font-weight:600;color:#555;white-space:nowrap}" +
  ".pair-align td{padding:2px 5px;text-align:center;border-left:1px solid #eee;white-space:nowrap}" +
  ".pair-align td.op-replace{background:#fee8c8}.pair-align td.op-insert{background:#d9f0d3}" +
  ".pair-align td.op-delete{background:#fddbc7}.pair-align td.op-delete.a{text-decoration:line-through}" +
  ".pair-align tr.loo td{font-size:.8em;color:#000;min-width:3em}" +
  ".pair-align button{font:inherit;border:1px dashed #888;background:none;border-radius:3px;cursor:pointer;" +
  "padding:0 3px}" +
  ".pair-swap{border:1px solid #ccc;padding:6px;margin:4px 0;border-radius:4px;background:#fafafa}" +
  ".pair-swap button{margin:2px;font:inherit}" +
  // each pair figure a layer of its own: hiding one (report.css's .plot.stale) or repainting it repaints no other
  ".plot[data-fig^=\"pair-\"]{will-change:opacity}</style>";

/* The aligned token rows of one side: A, its leave-one-out, B (buttons that swap a word), its leave-one-out. The
 * leave-one-out cells start empty (td[data-loo="a:3"]: side A, token 3) until the host fills them. */
function alignHtml(side, ops, sa, sb, name, swap) {
  const cell = (o, which) => {
    const i = o[which], cls = `op-${o.op} ${which}`;
    if (i === null) return `<td class="${cls}"></td>`;
    const tok = escape(which === "a" ? sa.tokens[i] : sb.tokens[i]);
    const body = which === "b" && swap
      ? `<button type="button" data-swap="${side}:${i}" title="#${i}: pick another word">${tok}</button>` : tok;
    return `<td class="${cls}" title="${o.op}">${body}</td>`;
  };
  const loo = (o, which) => `<td class="${which}"${o[which] === null ? "" : ` data-loo="${which}:${o[which]}"`}></td>`;
  const row = (head, fn, which, cls) =>
    `<tr${cls ? ` class="${cls}"` : ""}><th>${head}</th>${ops.map(o => fn(o, which)).join("")}</tr>`;
  return `${name ? `<h3>${escape(name)}</h3>` : ""}<table class="pair-align" data-side="${side}">` +
    row("A", cell, "a") + row("leave-one-out", loo, "a", "loo") + row("B", cell, "b") +
    `${row("leave-one-out", loo, "b", "loo")}</table>`;
}

/* A two-sentence model's inputs, [first, second]: premise and hypothesis, or a relatedness model's
 * settings.PAIR_RELATEDNESS_NAMES (SICK's "sentence A" / "B" would clash with the pair's A and B). */
export function inputNames(relatedness) {
  return relatedness ? [...Figures.context().pair_relatedness_names] : ["premise", "hypothesis"];
}

function sideName(tv, side) {
  return tv.hypothesis ? upperFirst(inputNames(typeof tv.relatedness === "number")[side === "premise" ? 0 : 1]) : "";
}

function checkPair(tvA, tvB) {
  checkView(tvA, { anyLength: true });
  checkView(tvB, { anyLength: true });
  if (tvA.model !== tvB.model || tvA.arch !== tvB.arch) {
    throw new Error(`A was run by ${tvA.model} and B by ${tvB.model}; a pair is compared through one model`);
  }
  if (!tvA.hypothesis !== !tvB.hypothesis) throw new Error("A and B should both have a hypothesis or neither");
  if (tvA.arch === "dsa" && tvA.alpha !== tvB.alpha) {
    throw new Error(`A was run at α = ${tvA.alpha} and B at α = ${tvB.alpha}; run both at one α`);
  }
}

function mapSections(tvA, tvB, aligned, theme, control) {
  const dsa = tvA.arch === "dsa", alpha = tvA.alpha, at = dsa ? ` at α = ${Figures.formatG(alpha)}` : "";
  const mean = dsa ? "mean over heads" : "mean over features", maps = [], heads = [], gates = [], pool = [];
  for (const [side, sa] of sides(tvA)) {
    const sb = tvB[side], { ops, labels } = aligned[side], TA = sa.tokens.length, TB = sb.tokens.length;
    const name = sideName(tvA, side);
    const suffix = name ? ` — ${name.charAt(0).toLowerCase()}${name.slice(1)}` : ""; // "— second sentence"
    for (const [dir, Dir, k] of [["fw", "Forward", 0], ["bw", "Backward", 1]]) {
      maps.push(figure(`pair-mean-${dir}-${side}`, () => compareFigure(
        alignedMaps(sa[dir].attention, TA, sb[dir].attention, TB, ops), excludedOnGrid(sa, sb, dir, ops), labels, ops,
        { title: `${Dir} block (mask ${tvA.masks[k]}), ${mean}${at}${suffix}`, theme, valueName: "P" }),
        dsa ? "Im Fig. 7 (Eq. 7), A and B" : "Shen Fig. 6, A and B",
        "A and B on the aligned tokens, one colour scale; B − A where both have the cell. Token labels mark " +
        "the edits: +word inserted in B, −word deleted from A, a→b replaced.", side));
      if (!dsa) continue;
      const rows = headRows(sa, sb, dir, ops, labels, { title: `${Dir} heads${at}${suffix}`, theme });
      const paper = `Im Figs. ${k ? "13" : "12"}`;
      for (const [which, what, caption] of [
        ["a", "A", "Each head of A on the aligned tokens, on one colour scale with B's (next)."],
        ["b", "B", "Each head of B on the aligned tokens, on A's colour scale (above)."],
        ["diff", "B − A", "B − A per head where both have the cell, diverging about 0. Token labels mark " +
         "the edits: +word inserted in B, −word deleted from A."]]) {
        heads.push(figure(`pair-heads-${dir}-${side}-${which}`, () => rows(which), `${paper}, ${what}`, caption, side));
      }
    }
    gates.push(figure(`pair-gate-${side}`, () => barsFigure(sa, sb, ops, GATES, labels,
      { title: `Fusion gate per aligned token, mean over features${at}${suffix}`, yTitle: "mean F", theme,
        yRange: [0, 1] }),
      dsa ? "Im Fig. 9 (Eq. 12), A and B" : "Shen Fig. 7 (Eq. 19), A and B",
      "The gate of A's token and of B's, side by side at each aligned step (one bar where a token was inserted or " +
      "deleted).", side));
    pool.push(figure(`${dsa ? "pair-pool-" : "pair-s2t-"}${side}`, () => barsFigure(sa, sb, ops,
      dsa ? [["attention pooling (mean over features)", "s2t"], ["max-pooling share", "maxpool_share"]]
        : [["source2token weight", "s2t"]], labels,
      { title: (dsa ? "Pooling weight and max-pooling share" : "Source2token weight per aligned token") + at + suffix,
        yTitle: dsa ? "weight / share" : "mean P", theme }),
      dsa ? "Im Fig. 11 (Eqs. 14–16), A and B" : "Shen Fig. 8, mean over features, A and B",
      "How much each token of A and of B weighs in its sentence encoding, side by side per aligned step.", side));
  }
  return [
    section("pair-maps", `${dsa ? "Head-averaged" : "Forward and backward"} attention, A, B and B − A`,
            dsa && control ? alphaSlider(alpha, ", A and B") : "", maps),
    ...(dsa ? [section("pair-heads", "Every head, A, B and B − A", "", heads)] : []),
    section("pair-gate", "Fusion gate, A beside B", "", gates),
    section("pair-pool", dsa ? "Pooling, A beside B" : "Source2token, A beside B", "", pool),
  ];
}

/* The page of a minimal pair for Report.show: trace views tvA, tvB of one model (one α for the DSA). opts: {theme;
 * swap: false where no model can run B again (the report); alphaControl: false where α is set outside the page;
 * previous: this host's last page (keepFigures)}. Throws one sentence when they cannot be compared. */
export function page(tvA, tvB, opts = {}) {
  const theme = Figures.theme(opts.theme || "normal"), swap = opts.swap !== false;
  checkPair(tvA, tvB);
  const aligned = {};
  for (const [side, sa] of sides(tvA)) {
    const ta = Array.from(sa.tokens), tb = Array.from(tvB[side].tokens), ops = Pair.align(ta, tb);
    aligned[side] = { ops, labels: stepLabels(ops, ta, tb) };
  }
  const change = predictionChange(tvA, tvB);
  const rows = sides(tvA).map(([side, sa]) =>
    alignHtml(side, aligned[side].ops, sa, tvB[side], sideName(tvA, side), swap));
  // a key: each mark, what it means and how many B has; the edits, every step that is no "keep" (Pair.distance)
  const ops = Object.values(aligned).flatMap(a => a.ops);
  const count = op => ops.filter(o => o.op === op).length, edits = ops.length - count("keep");
  const kinds = [["replace", "#fee8c8", "replaced", "a word of A replaced in B"],
                 ["insert", "#d9f0d3", "inserted", "a word of B not in A"],
                 ["delete", "#fddbc7", "deleted", "a word of A not in B"]];
  const key = kinds.map(([op, colour, what, means]) => `<span class="pair-key" data-kind="${op}" ` +
    `data-count="${count(op)}"><span style="background:${colour}">${what}</span> = ${means}: ${count(op)}</span>`);
  const legend = `<p class="counts">${edits ? `${edits} edit${edits === 1 ? "" : "s"}` : "no edits: B is A"}` +
    ` · key: ${key.join(" · ")}${swap ? " · click a word of B to swap it" : ""} · leave-one-out: the drop in ` +
    `${change.relatedness ? scoreOf(change) : `p(${escape(change.target)})`} when that token alone is ` +
    "&lt;unk&gt;</p>";
  const tokens = section("pair-tokens", "Sentences A and B", `<div class="pair-rows">${rows.join("")}</div>` +
    `<div class="pair-swap" hidden></div>${predictionHtml(change)}${legend}`);
  const prediction = section("pair-prediction", "Prediction", "", [figure("pair-prediction",
    () => Figures.barChart([["A", change.a], ["B", change.b]], change.labels, { title: change.relatedness
      ? `p̂ over the ${change.scoreName === "score" ? "" : "relatedness "}grades, A and B` : "Prediction of A and B",
      yTitle: "probability", labelName: "label", theme, yRange: [0, 1] }),
    tvA.arch === "disan" ? "Shen Sec. 5, A and B" : "Im Sec. 4.1, A and B",
    "The probability of each label for A and for B.", "prediction")]);
  const [maps, ...rest] = mapSections(tvA, tvB, aligned, theme, opts.alphaControl !== false);
  const sections = [tokens, maps, prediction, ...rest];
  const inputs = { tvA, tvB, theme: opts.theme || "normal" };
  if (opts.previous?.inputs) keepFigures(sections, inputs, opts.previous);
  const facts = `masks ${tvA.masks[0]}/${tvA.masks[1]}` +
    (tvA.arch === "dsa" ? ` · both at α = ${Figures.formatG(tvA.alpha)}` : "");
  const text = tv => escape(sides(tv).map(([, sent]) => Array.from(sent.tokens).join(" ")).join(" | "));
  const lines = [`<h1>${escape(tvA.model)}: a minimal pair</h1>`, `<p class="sub">A: ${text(tvA)}</p>`,
                 `<p class="sub">B: ${text(tvB)}</p>`, `<p class="sub">${escape(facts)}</p>`,
                 ...navLines(sections, "j / → next section · k / ← previous · t talk mode")];
  return {
    // the style first: report.js keeps an equal node, so a new B re-parses no sheet. No `parts`: the whole body is
    // replaced, so every new page empties the leave-one-out cells until their new numbers come
    title: `${tvA.model} — minimal pair`, header: `<header>${lines.join("")}</header>`, headerLines: lines,
    body: STYLE + sections.map(sectionHtml).join(""), data: pageData(tvA, sections, false), sections, aligned,
    change, inputs,
  };
}

/* Fill the leave-one-out row of side `which` ("a" | "b") in `container`; loo: {premise, hypothesis: a drop per
 * token, or null} (pair.js's or Python's). Each drop signed, on a background as strong as its share of the row's
 * largest (blue: supports the class, red: against it), in black text: 6.5:1 on the strongest red, 8:1 on blue
 * (WCAG AA: 4.5:1; tests/test_axe_pages.py). */
export function fillLeaveOneOut(container, which, loo) {
  for (const side of ["premise", "hypothesis"]) {
    const values = loo[side], table = container.querySelector(`table.pair-align[data-side="${side}"]`);
    if (!values || !table) continue;
    let top = 0;
    for (let i = 0; i < values.length; i++) top = Math.max(top, Math.abs(values[i]));
    for (let t = 0; t < values.length; t++) {
      const td = table.querySelector(`td[data-loo="${which}:${t}"]`), v = values[t];
      if (!td) continue;
      const strength = (0.6 * (top > 0 ? Math.abs(v) / top : 0)).toFixed(3);
      td.textContent = signed(v, 3);
      td.dataset.value = String(v);
      td.title = `drops by ${v} when this token alone is <unk>`;
      td.style.background = v >= 0 ? `rgba(33,102,172,${strength})` : `rgba(178,24,43,${strength})`;
    }
  }
}
