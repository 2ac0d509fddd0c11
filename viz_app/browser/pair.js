/* Pair — comparing two sentences in the page (issue 30: minimal pairs), no drawing here.
 *
 *   align(a, b)                  the tokens of A and B aligned: a minimal Levenshtein edit script;
 *   leaveOneOut(runner, input)   per token, the drop in the predicted class's probability when that token alone
 *                                becomes <unk>: the rule of docs/trace-view.md "Leave-one-out", which
 *                                disan/attribution/erasure.py computes where Python runs the model;
 *   embeddingTable(weights, spec) the model's word table, read from its weights where the build found it;
 *   nearest(table, id, k)        the k rows nearest a row of that table, by cosine (nearestWords: by word);
 *   swapEffects(runner, input)   words swapped in for one token, ranked by how much each changes the prediction.
 *
 * No DOM, so Node imports it too (tests/test_pair_js.py). site.js hands it its model runner (Site.runner).
 */
import { argmax, nextTask } from "./util.js";

/* A minimal edit script turning tokens `a` into tokens `b` (Levenshtein: keep 0, replace, insert, delete 1;
 * tokens equal only when identical), in reading order: {op: "keep" | "replace" | "insert" | "delete", a, b}
 * (indices, null on the side without a token). Ties go left to right, in the order keep, replace, delete,
 * insert: "a a" → "a" keeps the first "a"; a replacement beats a delete plus an insert only at equal cost. */
function align(a, b) {
  if (!Array.isArray(a) || !Array.isArray(b)) throw new Error("align takes two token arrays, got " + typeof a + " and " + typeof b);
  const n = a.length, m = b.length, w = m + 1;
  const cost = new Int32Array((n + 1) * w); // cost[i * w + j]: the edit distance of a[i:] and b[j:]
  for (let i = n; i >= 0; i--) {
    for (let j = m; j >= 0; j--) {
      cost[i * w + j] = i === n ? m - j : j === m ? n - i : Math.min(
        cost[(i + 1) * w + j + 1] + (a[i] === b[j] ? 0 : 1), cost[(i + 1) * w + j] + 1, cost[i * w + j + 1] + 1);
    }
  }
  const ops = [];
  let i = 0, j = 0;
  while (i < n || j < m) {
    const here = cost[i * w + j];
    if (i < n && j < m && a[i] === b[j] && cost[(i + 1) * w + j + 1] === here) ops.push({ op: "keep", a: i++, b: j++ });
    else if (i < n && j < m && a[i] !== b[j] && cost[(i + 1) * w + j + 1] + 1 === here) ops.push({ op: "replace", a: i++, b: j++ });
    else if (i < n && cost[(i + 1) * w + j] + 1 === here) ops.push({ op: "delete", a: i++, b: null });
    else ops.push({ op: "insert", a: null, b: j++ });
  }
  return ops;
}

/* The script's cost: the edit distance of the two token lists. */
const distance = (ops) => ops.filter((o) => o.op !== "keep").length;

/* Erased inputs per message to a worker: fewer round trips than one run per message, while a new sentence's
 * run, sent to the page's worker meanwhile, waits behind at most this many. */
const CHUNK = 2;

/* What leaveOneOut and swapEffects share: `variants(premise ids, hypothesis ids | null)` gives the inputs to run
 * (checking the options at once), then the input is run once and the value explained, p(target) or a relatedness
 * model's ŷ = rᵀp̂ with r = [1, …, K] (target "score"; Tai Sec. 4.2), then the variants in lanes (inLanes),
 * each(index, probabilities, e) per variant. Resolves e = {full, k, score, value, base}, or null when stale() stopped it. */
function explain(runner, input, o, variants, each) {
  const premise = input.premise.ids, hyp = input.hypothesis ? input.hypothesis.ids : null;
  const chunk = o.chunk === undefined ? CHUNK : o.chunk, stale = o.stale || (() => false);
  if (!(Number.isInteger(chunk) && chunk >= 1)) throw new Error("chunk = " + chunk + " must be a whole number ≥ 1 (erased inputs per message)");
  const inputs = variants(premise, hyp);
  return runner.probs(premise, hyp, input.alpha).then((full) => {
    const k = o.target === undefined ? argmax(full) : o.target, score = k === "score";
    if (!score && !(k >= 0 && k < full.length)) throw new Error("class index " + k + " is out of range; choose 0 to " + (full.length - 1) + " or \"score\"");
    const value = (p) => (score ? p.reduce((s, x, i) => s + (i + 1) * x, 0) : p[k]), e = { full, k, score, value, base: value(full) };
    return inLanes(runner, inputs, input.alpha, chunk, stale, (at, p) => each(at, p, e)).then((stopped) => (stopped ? null : e));
  });
}

/* [premise ids, hypothesis ids] with token `t` of `side` replaced by `id`. */
function replaced(premise, hyp, side, t, id) {
  const ids = (side === "premise" ? premise : hyp).slice();
  ids[t] = id;
  return side === "premise" ? [ids, hyp] : [premise, ids];
}

/* Per token of each side, p(class | input) − p(class | input with that token alone <unk>), positive where the
 * token supports the class (docs/trace-view.md "Leave-one-out"; disan/attribution/erasure.py leave_one_out).
 * runner: {probs(ids, hypothesis ids | null, α) → Promise<probabilities (K)>, probsMany([[ids, hyp ids], …], α,
 *   lane) → Promise<[probabilities, …]> (one worker, lane 0: the page's own, 1: a helper), lanes() → lanes ready
 *   now, unk: the <unk> id} (Site.runner). The bundled models are trained with --unk-zero, so the <unk> row is
 *   the zero vector erasure.py puts in the token's place (else the trained <unk> row, which unk_vector gives too).
 * input: runner.prepare(text, hypothesis)'s {premise: {ids}, hypothesis: {ids} | absent, alpha}.
 * options: target (class index, default the predicted class, or "score"), sides (default every side), stale()
 *   (asked before each message: true stops and resolves null), chunk (erased inputs per message).
 * Resolves {target, probability (p(target) or ŷ), premise: Float64Array (T) | null, hypothesis | null, runs}.
 * One run per erased input (the model takes one unpadded sentence), `chunk` per message on every ready lane
 * (inLanes). A token that is <unk> already drops nothing: 0, without a run. */
function leaveOneOut(runner, input, options) {
  const o = options || {}, out = { target: null, probability: null, premise: null, hypothesis: null, runs: 1 }, jobs = [];
  return explain(runner, input, o, (premise, hyp) => {
    const sides = o.sides || (hyp ? ["premise", "hypothesis"] : ["premise"]);
    for (const s of sides) {
      if (s !== "premise" && s !== "hypothesis") throw new Error("leave-one-out side " + JSON.stringify(s) + " is neither premise nor hypothesis");
      if (s === "hypothesis" && !hyp) throw new Error("leave-one-out on the hypothesis needs an NLI input with a hypothesis");
    }
    for (const s of sides) {
      const ids = s === "premise" ? premise : hyp;
      out[s] = new Float64Array(ids.length);
      ids.forEach((id, t) => { if (id !== runner.unk) jobs.push([s, t]); });
    }
    return jobs.map(([s, t]) => replaced(premise, hyp, s, t, runner.unk));
  }, (at, p, e) => {
    out[jobs[at][0]][jobs[at][1]] = e.base - e.value(p);
    out.runs += 1;
  }).then((e) => e && Object.assign(out, { target: e.k, probability: e.base }));
}

/* Run `inputs` ([[ids, hypothesis ids | null], …]) `chunk` per message on each ready lane, from one queue, each
 * message sent from a task of its own (keys typed meanwhile are handled between messages: tests/
 * test_pair_browser.py); each(index, probabilities) per input. Resolves true when stale() stopped it. */
function inLanes(runner, inputs, alpha, chunk, stale, each) {
  let next = 0, stopped = false;
  const lane = (i) => nextTask().then(() => {
    if (stopped || next >= inputs.length) return null;
    if (stale()) { stopped = true; return null; }
    const from = next, mine = inputs.slice(from, from + chunk);
    next += mine.length;
    return runner.probsMany(mine, alpha, i).then((ps) => { mine.forEach((_, j) => each(from + j, ps[j])); return lane(i); });
  });
  const lanes = Math.max(1, Math.min(runner.lanes(), Math.ceil(inputs.length / chunk)));
  return Promise.all(Array.from({ length: lanes }, (_, i) => lane(i))).then(() => stopped);
}

/* Swap candidates ranked by how much each changes the prediction (issue 58 item 9): token `index` of `side`
 * replaced by each id of `ids`, one run each, in lanes as leaveOneOut runs. options: {side, index, ids, target,
 * stale, chunk, onProgress(done, total)}. Resolves null when stopped, else {target, label (the class predicted
 * before; null for "score"), value (before), ranked: [{id, value, change (after − before), label (after),
 * flips}] by |change|, largest first (ties: the nearer word first)}. */
function swapEffects(runner, input, options) {
  const o = options || {}, side = o.side || "premise", candidates = Array.from(o.ids || []), results = new Array(candidates.length);
  let done = 0;
  return explain(runner, input, o, (premise, hyp) => {
    const ids = side === "premise" ? premise : hyp;
    if (!ids) throw new Error("a swap in the hypothesis needs an input with a hypothesis");
    if (!(Number.isInteger(o.index) && o.index >= 0 && o.index < ids.length)) {
      throw new Error("token " + o.index + " is outside the " + side + "'s 0 to " + (ids.length - 1));
    }
    return candidates.map((id) => replaced(premise, hyp, side, o.index, id));
  }, (at, p, e) => {
    const after = argmax(p), v = e.value(p);
    results[at] = { id: candidates[at], value: v, change: v - e.base, label: after, flips: after !== argmax(e.full), at };
    if (o.onProgress) o.onProgress(++done, candidates.length);
  }).then((e) => {
    if (!e) return null;
    const ranked = results.slice().sort((x, y) => Math.abs(y.change) - Math.abs(x.change) || x.at - y.at);
    ranked.forEach((r) => delete r.at);
    return { target: e.k, label: e.score ? null : argmax(e.full), value: e.base, ranked };
  });
}

let HALF = null;

/* Every float16 bit pattern as a float32 (IEEE 754 binary16: 1 sign, 5 exponent, 10 fraction bits). */
function halfValues() {
  if (HALF) return HALF;
  HALF = new Float32Array(65536);
  for (let h = 0; h < 65536; h++) {
    const sign = h & 0x8000 ? -1 : 1, e = (h >> 10) & 0x1f, f = h & 0x3ff;
    HALF[h] = e === 0 ? sign * f * Math.pow(2, -24) : e === 31 ? (f ? NaN : sign * Infinity) : sign * (1 + f / 1024) * Math.pow(2, e - 15);
  }
  return HALF;
}

/* The model's word table from the weights its graphs share (the bytes site.js builds the sessions with), where the
 * build found it (`spec`: disan/onnx_graphs.py table_spec, {offset, rows, dim, type: "float16" | "float32"}):
 * {rows, dim, values (Float32Array rows·dim, in vocabulary id order), norms (Float64Array rows)}. */
function embeddingTable(weights, spec) {
  const { rows, dim } = spec, n = rows * dim, values = new Float32Array(n), size = spec.type === "float16" ? 2 : 4;
  if (spec.offset + size * n > weights.byteLength) throw new Error("the word table runs past the model's weights; rebuild the folder with python -m viz_app site");
  const view = new DataView(weights.buffer, weights.byteOffset + spec.offset, size * n); // ONNX's external data is little-endian
  if (size === 2) {
    const half = halfValues();
    for (let i = 0; i < n; i++) values[i] = half[view.getUint16(2 * i, true)];
  } else {
    for (let i = 0; i < n; i++) values[i] = view.getFloat32(4 * i, true);
  }
  const norms = new Float64Array(rows);
  for (let r = 0; r < rows; r++) {
    let s = 0;
    for (let c = 0, o = r * dim; c < dim; c++) s += values[o + c] * values[o + c];
    norms[r] = Math.sqrt(s);
  }
  return { rows, dim, values, norms };
}

/* The k rows nearest row `id` by cosine, best first, as [{id, cosine}]: never the row itself, the ids in `skip`
 * (<pad>, <unk>) or a zero row (with --unk-zero <unk> is one). Equal cosines go to the lower id; a zero query
 * row has no nearest words: []. */
function nearest(table, id, k, skip) {
  if (!(Number.isInteger(id) && id >= 0 && id < table.rows)) throw new Error("word id " + id + " is outside the table's 0 to " + (table.rows - 1));
  if (!(Number.isInteger(k) && k >= 0)) throw new Error("k = " + k + " must be a whole number ≥ 0");
  const dim = table.dim, v = table.values, q = id * dim, qn = table.norms[id], best = [];
  if (!(qn > 0) || k === 0) return best;
  for (let r = 0; r < table.rows; r++) {
    if (r === id || !(table.norms[r] > 0) || (skip || []).includes(r)) continue;
    let dot = 0;
    for (let c = 0, o = r * dim; c < dim; c++) dot += v[q + c] * v[o + c];
    const cos = dot / (qn * table.norms[r]);
    if (best.length === k && cos <= best[k - 1].cosine) continue; // ties keep the lower id already held
    let at = best.length;
    while (at > 0 && best[at - 1].cosine < cos) at--;
    best.splice(at, 0, { id: r, cosine: cos });
    if (best.length > k) best.pop();
  }
  return best;
}

/* The k words nearest `word` in the model's own table (runner: Site.runner's), best first, as [{word, id,
 * cosine}]; never <pad> or <unk>. A word the model lacks is <unk> to it: []. */
function nearestWords(runner, word, k) {
  const id = runner.index.get(word);
  if (id === undefined) return [];
  return nearest(runner.table(), id, k, [runner.pad, runner.unk]).map((n) => ({ word: runner.words[n.id], id: n.id, cosine: n.cosine }));
}

export { align, distance, leaveOneOut, swapEffects, embeddingTable, nearest, nearestWords, CHUNK };
