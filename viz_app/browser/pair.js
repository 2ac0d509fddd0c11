/* Pair — comparing two sentences in the page (issue 30: minimal pairs), no drawing here.
 *
 *   align(a, b)                  the tokens of A and B aligned: a minimal Levenshtein edit script;
 *   leaveOneOut(runner, input)   per token, the drop in the predicted class's probability when that token
 *                                alone becomes <unk> (disan/attribution/erasure.py's leave_one_out), one model
 *                                run per token, a few runs per message to each of the runner's workers;
 *   embeddingTable(graph)        the model's word table, read from the exported ONNX graph's bytes;
 *   nearest(table, id, k)        the k rows nearest a row of that table, by cosine (nearestWords: by word);
 *   swapEffects(runner, input)   words swapped in for one token, ranked by how much each changes the prediction.
 *
 * An ES module; it needs no DOM, so Node imports it too (tests/test_pair_js.py). site.js hands leaveOneOut its
 * model runner (Site.runner).
 */
import * as Graph from "./onnx_graph.js";

/* ------------------------------------------------------------ alignment */

/* A minimal edit script turning tokens `a` into tokens `b` (Levenshtein: keep costs 0, replace, insert and
 * delete 1 each; tokens are equal only when their strings are identical). Returns ops in reading order,
 * {op: "keep" | "replace" | "insert" | "delete", a: index in a or null, b: index in b or null}; both indices
 * rise through the script.
 *
 * Ties between scripts of the same cost are broken reading left to right: at each step the first of keep,
 * replace, delete, insert that still leads to a minimal script. So the earliest tokens are matched first
 * ("a a" → "a" keeps the first "a" and deletes the second) and a replacement is preferred to a delete plus
 * an insert only where both cost the same. */
function align(a, b) {
  if (!Array.isArray(a) || !Array.isArray(b)) throw new Error("align takes two token arrays, got " + typeof a + " and " + typeof b);
  var n = a.length, m = b.length, w = m + 1;
  // cost[i * w + j]: the edit distance of a[i:] and b[j:] (suffixes, so the script is read forwards).
  var cost = new Int32Array((n + 1) * w);
  for (var i = n; i >= 0; i--) {
    for (var j = m; j >= 0; j--) {
      if (i === n) cost[i * w + j] = m - j;
      else if (j === m) cost[i * w + j] = n - i;
      else {
        var diag = cost[(i + 1) * w + j + 1] + (a[i] === b[j] ? 0 : 1);
        cost[i * w + j] = Math.min(diag, cost[(i + 1) * w + j] + 1, cost[i * w + j + 1] + 1);
      }
    }
  }
  var ops = [];
  i = 0; j = 0;
  while (i < n || j < m) {
    var here = cost[i * w + j];
    if (i < n && j < m && a[i] === b[j] && cost[(i + 1) * w + j + 1] === here) ops.push({ op: "keep", a: i++, b: j++ });
    else if (i < n && j < m && a[i] !== b[j] && cost[(i + 1) * w + j + 1] + 1 === here) ops.push({ op: "replace", a: i++, b: j++ });
    else if (i < n && cost[(i + 1) * w + j] + 1 === here) ops.push({ op: "delete", a: i++, b: null });
    else ops.push({ op: "insert", a: null, b: j++ });
  }
  return ops;
}

/* The script's cost: the edit distance of the two token lists. */
function distance(ops) {
  return ops.reduce(function (s, o) { return s + (o.op === "keep" ? 0 : 1); }, 0);
}

/* --------------------------------------------------------- leave-one-out */

/* Erased inputs per message to a worker: fewer round trips than one run per message, while a new sentence's
 * run, sent to the page's worker meanwhile, waits behind at most this many leave-one-out runs there. */
var CHUNK = 2;

/* Per token of each side, p(class | input) − p(class | input with that token alone <unk>), as
 * disan/attribution/erasure.py's leave_one_out: positive where the token supports the class.
 *
 * runner: {probs(ids, hypothesis ids | null, α) → Promise<probabilities (K)>,
 *          probsMany([[ids, hypothesis ids | null], …], α, lane) → Promise<[probabilities (K), …]>: the inputs
 *          run one after another by one worker, lane 0 (the page's own) or 1 (a helper);
 *          lanes() → how many lanes are ready now (1 or 2); unk: the <unk> id}
 *         (Site.runner). The bundled models are trained with --unk-zero, so the <unk> row of the
 *         exported table is the zero vector erasure.py puts in the token's place (ClassProbability.unk_vector);
 *         without it the row is the trained <unk> embedding, which unk_vector returns too.
 * input:  {premise: {ids}, hypothesis: {ids} | absent, alpha}: what runner.prepare(text, hypothesis) gives.
 * options: target (class index; default the predicted class; "score": a relatedness model's score
 *         ŷ = rᵀp̂ with r = [1, …, K], Tai Sec. 4.2, as disan.attribution explains it), sides (default every side),
 *         stale() (checked before each message: true stops and resolves null, so a newer sentence need not
 *         wait), chunk (erased inputs per message, default CHUNK).
 * Resolves {target, probability (p(target), or ŷ), premise: Float64Array (T) | null, hypothesis: Float64Array
 * (T2) | null, runs}.
 * The model takes one unpadded sentence per run (ids are (1, T)), so each erased input is a run of its own.
 * Each ready lane takes the next `chunk` inputs from one queue until none is left, so a helper worker halves
 * the time where two cores are free and a slower lane takes fewer. Each message is sent from a task of its
 * own: keys typed meanwhile are handled between messages (tests/test_pair_browser.py checks that a timer
 * fires between them). A token that is <unk> already drops nothing: 0, without a run. */
function leaveOneOut(runner, input, options) {
  options = options || {};
  var premise = input.premise.ids, hyp = input.hypothesis ? input.hypothesis.ids : null;
  var sides = options.sides || (hyp ? ["premise", "hypothesis"] : ["premise"]);
  sides.forEach(function (s) {
    if (s !== "premise" && s !== "hypothesis") throw new Error("leave-one-out side " + JSON.stringify(s) + " is neither premise nor hypothesis");
    if (s === "hypothesis" && !hyp) throw new Error("leave-one-out on the hypothesis needs an NLI input with a hypothesis");
  });
  var chunk = options.chunk === undefined ? CHUNK : options.chunk;
  if (!(Number.isInteger(chunk) && chunk >= 1)) throw new Error("chunk = " + chunk + " must be a whole number ≥ 1 (erased inputs per message)");
  var stale = options.stale || function () { return false; };
  var out = { target: null, probability: null, premise: null, hypothesis: null, runs: 1 };
  return runner.probs(premise, hyp, input.alpha).then(function (full) {
    var k = options.target === undefined ? argmax(full) : options.target, score = k === "score";
    if (!score && !(k >= 0 && k < full.length)) throw new Error("class index " + k + " is out of range; choose 0 to " + (full.length - 1) + " or \"score\"");
    var value = function (p) {
      if (!score) return p[k];
      for (var s = 0, i = 0; i < p.length; i++) s += (i + 1) * p[i];
      return s;
    };
    var base = value(full);
    out.target = k;
    out.probability = base;
    var jobs = [];
    sides.forEach(function (s) {
      var ids = s === "premise" ? premise : hyp;
      out[s] = new Float64Array(ids.length);
      for (var t = 0; t < ids.length; t++) if (ids[t] !== runner.unk) jobs.push([s, t]);
    });
    function erased(job) {
      var ids = (job[0] === "premise" ? premise : hyp).slice();
      ids[job[1]] = runner.unk;
      return job[0] === "premise" ? [ids, hyp] : [premise, ids];
    }
    return inLanes(runner, jobs.map(erased), input.alpha, chunk, stale, function (at, p) {
      out[jobs[at][0]][jobs[at][1]] = base - value(p);
      out.runs += 1;
    }).then(function (stopped) { return stopped ? null : out; });
  });
}

/* Run `inputs` ([[ids, hypothesis ids | null], …]) `chunk` per message on each ready lane of the runner, from
 * one queue, each message sent from a task of its own (keys typed meanwhile are handled between messages);
 * each(index, probabilities) per input as its message returns. stale() is asked before each message: true
 * stops the runs. Resolves true when stopped, false when every input ran. */
function inLanes(runner, inputs, alpha, chunk, stale, each) {
  var next = 0, stopped = false;
  function lane(i) {
    return nextTask().then(function () {
      if (stopped || next >= inputs.length) return null;
      if (stale()) { stopped = true; return null; }
      var from = next, mine = inputs.slice(from, from + chunk);
      next += mine.length;
      return runner.probsMany(mine, alpha, i).then(function (ps) {
        mine.forEach(function (_, j) { each(from + j, ps[j]); });
        return lane(i);
      });
    });
  }
  var lanes = Math.max(1, Math.min(runner.lanes(), Math.ceil(inputs.length / chunk)));
  var all = [];
  for (var i = 0; i < lanes; i++) all.push(lane(i));
  return Promise.all(all).then(function () { return stopped; });
}

/* ------------------------------------------------------- ranked word swaps */

/* Swap candidates ranked by how much each changes the prediction (issue 58 item 9): token `index` of `side`
 * of `input` (runner.prepare's) replaced by each id of `ids` in turn, one model run each, in lanes as
 * leaveOneOut runs (`chunk` per message, stale() asked before each: a newer input cancels them).
 * options: {side ("premise" | "hypothesis"), index, ids (candidate word ids), target (class index; default the
 * class the input predicts; "score": a relatedness model's ŷ = rᵀp̂), stale, chunk, onProgress(done, total)}.
 * Resolves null when stopped, else {target, label (the predicted class before the swap; null for "score"),
 * value (p(target) or ŷ before), ranked: [{id, value, change (value after − before), label (the class
 * predicted after), flips (label differs)}] ordered by |change|, largest first (equal changes: the
 * earlier candidate, i.e. the nearer word, first)}. */
function swapEffects(runner, input, options) {
  var o = options || {}, side = o.side || "premise";
  var premise = input.premise.ids, hyp = input.hypothesis ? input.hypothesis.ids : null;
  var ids = side === "premise" ? premise : hyp;
  if (!ids) throw new Error("a swap in the hypothesis needs an input with a hypothesis");
  if (!(Number.isInteger(o.index) && o.index >= 0 && o.index < ids.length)) {
    throw new Error("token " + o.index + " is outside the " + side + "'s 0 to " + (ids.length - 1));
  }
  var chunk = o.chunk === undefined ? CHUNK : o.chunk, stale = o.stale || function () { return false; };
  var candidates = Array.from(o.ids || []);
  return runner.probs(premise, hyp, input.alpha).then(function (full) {
    var k = o.target === undefined ? argmax(full) : o.target, score = k === "score";
    if (!score && !(k >= 0 && k < full.length)) throw new Error("class index " + k + " is out of range; choose 0 to " + (full.length - 1) + " or \"score\"");
    var value = function (p) {
      if (!score) return p[k];
      for (var s = 0, i = 0; i < p.length; i++) s += (i + 1) * p[i];
      return s;
    };
    var base = value(full), before = argmax(full), results = new Array(candidates.length), done = 0;
    var inputs = candidates.map(function (id) {
      var swapped = ids.slice();
      swapped[o.index] = id;
      return side === "premise" ? [swapped, hyp] : [premise, swapped];
    });
    return inLanes(runner, inputs, input.alpha, chunk, stale, function (at, p) {
      var after = argmax(p), v = value(p);
      results[at] = { id: candidates[at], value: v, change: v - base, label: after, flips: after !== before, at: at };
      done += 1;
      if (o.onProgress) o.onProgress(done, candidates.length);
    }).then(function (stopped) {
      if (stopped) return null;
      var ranked = results.slice().sort(function (x, y) { return Math.abs(y.change) - Math.abs(x.change) || x.at - y.at; });
      ranked.forEach(function (r) { delete r.at; });
      return { target: k, label: score ? null : before, value: base, ranked: ranked };
    });
  });
}

/* A promise resolved in a new task, after the input events and drawing waiting meanwhile (by a message,
 * which unlike a nested setTimeout is not clamped to 4 ms). */
function nextTask() {
  return /** @type {Promise<void>} */ (new Promise(function (resolve) {
    if (typeof MessageChannel === "undefined") { setTimeout(resolve, 0); return; }
    var channel = new MessageChannel();
    channel.port1.onmessage = function () { channel.port1.close(); resolve(); };
    channel.port2.postMessage(null);
  }));
}

/* The first index of the largest value (torch.argmax and Python's max agree on the first). */
function argmax(values) {
  var best = 0;
  for (var i = 1; i < values.length; i++) if (values[i] > values[best]) best = i;
  return best;
}

/* ------------------------------------------------- the table in the graph */

var ONNX_FLOAT = 1, ONNX_FLOAT16 = 10;
/* disan/onnx_export.py's SiteModule holds the table as the buffer "table"; store_weights renames a
 * float16-stored initializer "<name>_f16" (the table is never int8: int8_candidates leaves it out). */
var TABLE_NAMES = ["table_f16", "table"];

var HALF = null;

/* Every float16 bit pattern as a float32 (IEEE 754 binary16: 1 sign, 5 exponent, 10 fraction bits). */
function halfValues() {
  if (HALF) return HALF;
  HALF = new Float32Array(65536);
  for (var h = 0; h < 65536; h++) {
    var sign = h & 0x8000 ? -1 : 1, e = (h >> 10) & 0x1f, f = h & 0x3ff;
    HALF[h] = e === 0 ? sign * f * Math.pow(2, -24)
      : e === 31 ? (f ? NaN : sign * Infinity)
        : sign * (1 + f / 1024) * Math.pow(2, e - 15);
  }
  return HALF;
}

/* The model's word table from its exported ONNX graph (the bytes site.js builds the session from):
 * {rows, dim, values (Float32Array rows·dim, row-major, in vocabulary id order), norms (Float64Array rows)}. */
function embeddingTable(graph) {
  var t = Graph.initializer(graph, TABLE_NAMES);
  if (!t || !t.raw) throw new Error("the model file holds no word table named " + TABLE_NAMES.join(" or ") + "; rebuild the folder with python -m viz_app site");
  if (t.dims.length !== 2) throw new Error("the word table has shape [" + t.dims.join(", ") + "], not (words, dim); rebuild the folder");
  var rows = t.dims[0], dim = t.dims[1], n = rows * dim, values = new Float32Array(n);
  var view = new DataView(t.raw.buffer, t.raw.byteOffset, t.raw.byteLength);
  if (t.type === ONNX_FLOAT16 && t.raw.byteLength === 2 * n) {
    var half = halfValues();
    for (var i = 0; i < n; i++) values[i] = half[view.getUint16(2 * i, true)]; // ONNX raw data is little-endian
  } else if (t.type === ONNX_FLOAT && t.raw.byteLength === 4 * n) {
    for (var j = 0; j < n; j++) values[j] = view.getFloat32(4 * j, true);
  } else {
    throw new Error("the word table is stored as ONNX type " + t.type + " in " + t.raw.byteLength + " bytes, not float16 or float32 of " + rows + " × " + dim + "; rebuild the folder");
  }
  var norms = new Float64Array(rows);
  for (var r = 0; r < rows; r++) {
    var s = 0;
    for (var c = 0, o = r * dim; c < dim; c++) s += values[o + c] * values[o + c];
    norms[r] = Math.sqrt(s);
  }
  return { rows: rows, dim: dim, values: values, norms: norms };
}

/* The k rows nearest row `id` by cosine, best first, as [{id, cosine}]: never the row itself, the ids in
 * `skip` (the page passes <pad> and <unk>) or a zero row (no direction; with --unk-zero <unk> is one). Equal
 * cosines go to the lower id. A zero query row has no nearest words: []. */
function nearest(table, id, k, skip) {
  if (!(Number.isInteger(id) && id >= 0 && id < table.rows)) throw new Error("word id " + id + " is outside the table's 0 to " + (table.rows - 1));
  if (!(Number.isInteger(k) && k >= 0)) throw new Error("k = " + k + " must be a whole number ≥ 0");
  var dim = table.dim, v = table.values, q = id * dim, qn = table.norms[id], best = [];
  if (!(qn > 0) || k === 0) return best;
  skip = skip || [];
  for (var r = 0; r < table.rows; r++) {
    if (r === id || !(table.norms[r] > 0) || skip.indexOf(r) >= 0) continue;
    var dot = 0;
    for (var c = 0, o = r * dim; c < dim; c++) dot += v[q + c] * v[o + c];
    var cos = dot / (qn * table.norms[r]);
    if (best.length === k && cos <= best[k - 1].cosine) continue; // ties keep the lower id already held
    var at = best.length;
    while (at > 0 && best[at - 1].cosine < cos) at--;
    best.splice(at, 0, { id: r, cosine: cos });
    if (best.length > k) best.pop();
  }
  return best;
}

/* The k words nearest `word` in the model's own table (runner: Site.runner's), best first, as
 * [{word, id, cosine}]; never <pad> or <unk>. A word the model lacks is <unk> to it: no nearest words, []. */
function nearestWords(runner, word, k) {
  var id = runner.index.get(word);
  if (id === undefined) return [];
  return nearest(runner.table(), id, k, [runner.pad, runner.unk]).map(function (n) {
    return { word: runner.words[n.id], id: n.id, cosine: n.cosine };
  });
}

export { align, distance, leaveOneOut, swapEffects, embeddingTable, nearest, nearestWords, CHUNK };
