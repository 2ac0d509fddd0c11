/* Site — the static explorer's page: any typed sentence, computed in the page, no server.
 *
 * An ES module of the site's bundle (entry_site.js; docs/front-end.md), a classic script of the folder, so the
 * folder works from file://, where Chromium refuses fetch(): every file the page needs is a <script> beside it.
 * `python -m viz_app site` (viz_app/draw/site.py) writes the folder:
 *   assets/site-data.js      window.DisanSiteData: models, presets, tokenizer rules, figure constants, limits;
 *   assets/ort-runtime.js    window.DisanOrtRuntime: onnxruntime-web's wasm (gzip + base64), its loader and its
 *                            classic script (text: the model runs in a worker made from it);
 *   models/<name>.js         window.DisanSiteModels[name]: the exported model (ONNX) and its vocabulary,
 *                            each gzip + base64, loaded only when that model is picked;
 *   models/<name>.start.js   window.DisanSiteStart[name]: the folder's own sentence as the build ran it, drawn
 *                            first by a page opened on that sentence (drawStart).
 * The model is the torch modules themselves, exported to ONNX (disan/onnx_export.py) and run by
 * onnxruntime-web; this file only tokenizes (tokenize.js, the rules disan.tokenize uses), maps tokens to
 * ids, runs the session (in a worker), arranges its outputs as a trace view, and hands that to Sections (the
 * report's sections, sections.js) and Report (drawing, α / feature controls, talk mode, report.js).
 * State (model, sentence, hypothesis, α, feature, talk mode) lives in the address after '#', so a
 * copied link reopens the same view.
 */
import WORKER from "disan:worker";
import { fromBase64, inflate } from "./bytes.js";
import * as Figures from "./figures.js";
import * as Pair from "./pair.js";
import * as Report from "./report.js";
import * as Sections from "./sections.js";
import * as Tokenize from "./tokenize.js";
import { fromOutputs } from "./trace_view.js";

var doc = window.document;
var pairView = null; // site_pair.js, where the page has the Pair mode (usePairView)
var searchView = null; // site_search.js, where the page has the Search mode (useSearchView)
var DATA = null; // window.DisanSiteData
// view "pair": the minimal pair of site_pair.js, sentence B in bText / bHyp (null: still a copy of A)
var state = { model: null, text: "", hypothesis: "", alpha: null, feature: 0, talk: false, view: "sentence",
              bText: null, bHyp: null };
var loaded = {}; // name → Promise<{session, vocab, meta}>
var pending = null, running = false, generation = 0, typing = false;

/* ----------------------------------------------------------------- bytes */

/* Several scripts, fetched together and run in the given order (async = false). */
function loadScripts(srcs) {
  return Promise.all(srcs.map(function (src) { return loadScript(src, true); }));
}

function loadScript(src, ordered) {
  return /** @type {Promise<void>} */ (new Promise(function (resolve, reject) {
    var el = doc.createElement("script");
    if (ordered) el.async = false;
    el.src = src;
    el.onload = function () { resolve(); };
    el.onerror = function () { reject(new Error("the file " + src + " is missing from this folder; rebuild it with python -m viz_app site")); };
    doc.head.appendChild(el);
  }));
}

/* ------------------------------------------------------------------ ORT */

/* onnxruntime-web runs in a worker of its own, so its start (about 400 ms of wasm on this 2-core machine),
 * each session and each model run leave the page's thread to plotly.js, typing and drawing. The worker is
 * made from a blob (a file:// page may not start a worker from a file): onnxruntime's classic script, whose
 * text ort-runtime.js carries, then worker.js's bundle (WORKER, its text).
 * A second such worker, the helper (lane 1), runs in parallel with the page's worker (lane 0): onnxruntime-web's
 * wasm uses one core per worker. After the first long sentence it holds the backward part of the model's
 * graph (splitSoon), and leave-one-out's lean graph when that is asked for.
 * Requests are handled one at a time, in the order they came: a request never starts while another's runs
 * are going on, and a new sentence's run waits behind at most the request in progress. */

// lanes[0]: the page's worker (every sentence's run); lanes[1]: leave-one-out's helper, started by runner().lanes
var lanes = [], callId = 0;

function lane(i) {
  return lanes[i] || (lanes[i] = { runtime: null, worker: null, calls: {} });
}

/* One request to lane i's worker (default 0); resolves with its answer, rejects with its error. It is posted
 * at once, not when the runtime has started: the worker answers in order, after its start. */
function call(message, transfer, i) {
  var l = lane(i || 0), started = startRuntime(i || 0);
  if (!l.worker) return started; // rejected: the runtime could not start (its message says why)
  return new Promise(function (resolve, reject) {
    started.catch(reject);
    message.id = ++callId;
    l.calls[message.id] = [resolve, reject];
    l.worker.postMessage(message, transfer || []);
  });
}

function answer(l, e) {
  var waiting = l.calls[e.data.id];
  delete l.calls[e.data.id];
  if (!waiting) return;
  if (e.data.error !== undefined) waiting[1](new Error(e.data.error));
  else waiting[0](e.data.value);
}

function startRuntime(i) {
  var l = lane(i || 0);
  if (l.runtime) return l.runtime;
  var assets = window.DisanOrtRuntime;
  if (!assets || !assets.script) return Promise.reject(new Error("onnxruntime-web is missing from assets/; rebuild the folder with python -m viz_app site"));
  l.runtime = new Promise(function (resolve, reject) {
    var url = URL.createObjectURL(new Blob([assets.script, "\n", WORKER], { type: "text/javascript" }));
    try { l.worker = new Worker(url); } catch (err) {
      throw new Error("this browser would not start the model's worker (" + (err && err.message || err) + "); open the page in a current Chrome, Edge, Firefox or Safari");
    }
    l.worker.onmessage = function (e) { answer(l, e); };
    l.worker.onerror = function (e) {
      var why = new Error("the model's worker stopped: " + (e.message || "an error without a message"));
      Object.keys(l.calls).forEach(function (id) { l.calls[id][1](why); delete l.calls[id]; });
      reject(why);
    };
    l.calls[++callId] = [resolve, reject];
    l.worker.postMessage({ id: callId, type: "init", wasm: assets.wasm, loader: assets.loader, probe: assets.probe });
  }).then(function () { if (!i) window.performance.mark("disan:runtime"); return true; });
  l.runtime.catch(function () { l.runtime = null; });
  return l.runtime;
}

function modelMeta(name) {
  return DATA.models.filter(function (m) { return m.name === name; })[0] || null;
}

function loadModel(name) {
  if (loaded[name]) return loaded[name];
  var meta = modelMeta(name);
  startRuntime().catch(function () {}); // the worker starts while the model's file loads; failures surface below
  var bytes = loadScript((DATA.base || "") + meta.file).then(function () {
    var files = (window.DisanSiteModels || {})[name];
    if (!files) throw new Error("models/" + name + ".js did not define the model; rebuild the folder");
    return Promise.all([inflate(files.onnx), inflate(files.vocab)]);
  });
  loaded[name] = bytes.then(function (bytes) {
    var vocab = JSON.parse(new TextDecoder().decode(bytes[1]));
    var index = new Map();
    vocab.words.forEach(function (w, i) { if (!index.has(w)) index.set(w, i); });
    // a copy goes to the worker; the page keeps the graph for pair.js: the word table and leave-one-out's
    // lean graph are read from it (runner())
    var session = call({ type: "session", name: name, onnx: bytes[0], keep: true });
    window.performance.mark("disan:posted:" + name); // the graph is on its way to the worker
    return session.then(function () {
      window.performance.mark("disan:session:" + name);
      delete window.DisanSiteModels[name]; // the base64 text is no longer needed
      return { name: name, vocab: vocab, index: index, meta: meta, graph: bytes[0] };
    });
  });
  // settled once the graph is posted to the worker (or could not be): preload() then loads the drawing code
  loaded[name].posted = bytes.then(function () {}, function () {});
  loaded[name].catch(function () { delete loaded[name]; });
  return loaded[name];
}

/* The model's outputs for `feeds` (null `fetches`: every output): {name: {type, dims, data}}, computed in the
 * workers: every output of a long input by the graph's parts where they are ready (splitSoon), else by the
 * whole graph. */
function run(model, feeds, fetches, early) {
  var long = !fetches && tokenCount(feeds) >= PARTS_MIN_TOKENS, parts = splits[model.name];
  if (!fetches) doc.body.dataset.parts = long && parts && parts.ready ? "1" : "0"; // which ran the last trace
  if (long && parts && parts.ready) return runParts(model.name, parts, feeds, early);
  var m = maps[model.name];
  if (early && m && m.ready) { // posted first: the worker runs the maps' lean graph, then the whole graph
    call({ type: "run", name: "maps:" + model.name, feeds: feeds, fetches: null }).then(early, function (err) {
      m.ready = false; // and never made again: keys paint their maps from the whole run
      console.warn("the maps follow the whole graph's run: their lean graph failed (" + (err && err.message || err) + ")");
    });
  }
  var out = call({ type: "run", name: model.name, feeds: feeds, fetches: fetches || null });
  // the first long input starts the parts, for the next
  if (long && !parts) out.then(function () { splitSoon(model, feeds); }, function () {});
  if (!fetches && !long) warmWhenIdle(model, feeds);
  if (feeds.h_ids && !bySentence[model.name]) sentencesWhenIdle(model);
  return out;
}

/* The page's worker runs the last short sentence again, undrawn, every WARM_EVERY_MS that no run was asked for,
 * during its first WARM_FOR_MS. Probed in headless Chromium on this 2-core machine (a trace of the worker and
 * its CPU profile): once per page, a run a second or so after the first maps takes about 40 ms of the
 * worker's CPU where the same sentence otherwise takes 2-4 (no compile or GC event inside it; with V8's
 * --no-liftoff none came after the second run, so it goes with the wasm code's tier-up: static-explorer.md).
 * It came whatever the input's length, and with runs every 50 ms as well as after a pause; one warm-up run
 * 0.3 s after the last did not catch it. Whichever run comes first after it pays it: without
 * these runs, typing's first key. A key meanwhile waits for at most one short run. Long inputs have the
 * parts' own first run (splitSoon). */
var warming = {}, WARM_EVERY_MS = 250, WARM_FOR_MS = 6000;

function warmWhenIdle(model, feeds) {
  var now = window.performance.now();
  var w = warming[model.name] || (warming[model.name] = { until: now + WARM_FOR_MS, timer: null });
  if (w.timer !== null) window.clearTimeout(w.timer);
  w.timer = null;
  if (now > w.until) return;
  w.timer = window.setTimeout(function () {
    w.timer = null;
    if (window.performance.now() > w.until) return; // a timer the page's thread held past the window
    call({ type: "run", name: model.name, feeds: feeds, fetches: null })
      .then(function () { warmWhenIdle(model, feeds); }, function () {});
  }, WARM_EVERY_MS);
}

/* NLI models whose page's worker runs the graph by sentence (onnx_graph.js sentences): true once asked. */
var bySentence = {}, sentenceTimer = null;

/* Cut an NLI model's graph by sentence in the page's worker once no run was asked for SPLIT_AFTER_MS: its three
 * sessions take that worker a few hundred ms, which a run then waits behind (never in the middle of typing). */
function sentencesWhenIdle(model) {
  if (sentenceTimer !== null) window.clearTimeout(sentenceTimer);
  sentenceTimer = window.setTimeout(function () {
    sentenceTimer = null;
    if (bySentence[model.name]) return;
    bySentence[model.name] = true;
    call({ type: "sentences", name: model.name }).then(function (cut) {
      if (cut) window.performance.mark("disan:sentences:" + model.name); // the runs from here are by sentence
    }).catch(function (err) {
      console.warn("the model's graph runs whole: its sentence parts did not start (" + (err && err.message || err) + ")");
    });
  }, SPLIT_AFTER_MS);
}

/* ------------------------------------------------------- the maps first */

/* While typing, the page's worker first runs a lean graph that computes only the attention maps' outputs
 * (mapOutputs: Graph.lean keeps the nodes they need, the same nodes in the same order), and the maps on
 * screen are painted from it (Report.preview, Sections.mapFigure) while the worker goes on with the
 * whole graph, whose page then follows as before. The maps need the embedding and the two attention blocks
 * (Shen Eqs. 14, 15, 17 and 18; Im Eq. 7); the fusion gates, the distance-based model's FFN, source2token,
 * pooling and the classifier, which they skip, are most of a run's nodes and time. Per model name: {ready}
 * (false while it is made, and after it failed: it is not made again). It is made once the sentence page
 * (update) has asked for no run for SPLIT_AFTER_MS, as the sentence parts are; pages that draw no maps while
 * typing (the pair view, the app's chart component, which call traceOf) never make one. */
var maps = {};

/* The graph's outputs that the attention figures read (Sections.mapFigure): DiSAN's mean P and Eq. 15's
 * parts, the distance-based model's per-head probabilities and scores, for each sentence. */
function mapOutputs(meta) {
  var out = [];
  [meta.outputs.premise, meta.pair ? meta.outputs.hypothesis : null].forEach(function (n) {
    if (!n) return;
    ["fw", "bw"].forEach(function (d) {
      var b = n[d], fields = meta.arch === "disan" ? [b.mean, b.keys, b.queries] : [b.probs, b.scores];
      fields.forEach(function (o) { if (o) out.push(o); });
    });
  });
  return out;
}

var mapsTimer = null;

function mapsWhenIdle(model, input) {
  if (maps[model.name]) return;
  if (mapsTimer !== null) window.clearTimeout(mapsTimer);
  var feeds = feedsOf(model, input.premise.ids, model.meta.pair ? input.hypothesis.ids : null, input.alpha);
  mapsTimer = window.setTimeout(function () {
    mapsTimer = null;
    if (maps[model.name]) return;
    var m = maps[model.name] = { ready: false };
    call({ type: "session", name: "maps:" + model.name, onnx: model.graph, lean: mapOutputs(model.meta) })
      // its first run is its slowest: made here, undrawn, not at the next key
      .then(function () { return call({ type: "run", name: "maps:" + model.name, feeds: feeds, fetches: null }); })
      .then(function () {
        m.ready = true;
        window.performance.mark("disan:maps:" + model.name); // keys paint their maps from the lean graph from here
      }, function (err) {
        console.warn("the maps follow the whole graph's run: their lean graph did not start (" + (err && err.message || err) + ")");
      });
  }, SPLIT_AFTER_MS);
}

/* A typed input's maps on screen painted from `out`, outputs that hold at least the maps' (mapOutputs): the
 * lean graph's run, or a long input's forward and backward parts' (runParts) before the head runs. `mine`: the
 * key's generation; a newer key paints its own maps. */
function paintMaps(model, input, mine, out) {
  var meta = model.meta;
  if (pending !== null || generation !== mine || state.model !== meta.name) return;
  var tv = fromOutputs(meta, input, out, true);
  Report.preview(el("report"), function (id) { return Sections.mapFigure(tv, id); }).then(function (painted) {
    if (painted) doc.body.dataset.mapsFirst = String(mine);
  }).catch(function (err) { console.warn("the maps wait for the whole graph's run (" + (err && err.message || err) + ")"); });
}

/* ------------------------------------------------------- graph parts */

/* The graph's parts per model name (Graph.parts): {ready, outputs, cuts}, or {failed} where the graph
 * cannot be cut. The forward part runs in the page's worker (lane 0) while the backward part runs in the
 * helper (lane 1), one core each; the head then runs in lane 0 on what they passed. */
var splits = {};
/* Below this many tokens (premise and hypothesis together) the whole graph runs: each part's run has a fixed
 * cost (a message each way, onnxruntime's own per run) that short inputs do not win back; in headless
 * Chromium on this 2-core machine the parts were slower at T = 20 and faster from about T = 28 on. */
var PARTS_MIN_TOKENS = 28, SPLIT_AFTER_MS = 300;

function tokenCount(feeds) {
  return Object.keys(feeds).reduce(function (n, k) { return n + (feeds[k].type === "int64" ? feeds[k].dims[1] : 0); }, 0);
}
// the model whose sessions the helper holds (it keeps one model's at a time)
var helperHolds = null;

/* The helper is to hold `name`'s sessions: another model's are released there, and its parts and lean graph
 * with them. */
function holdInHelper(name) {
  if (helperHolds === name) return;
  if (helperHolds !== null && splits[helperHolds] && !splits[helperHolds].failed) delete splits[helperHolds];
  if (helper !== null && helper.model !== name) helper = null;
  helperHolds = name;
}

/* Cut `model`'s graph into parts, once, as soon as the first long input's run has answered: the page's worker
 * cuts the graph and starts the forward part and the head while the page draws that answer, and the helper
 * starts its runtime meanwhile (about 0.5 s of a core here) rather than after the cut. Short sentences (the
 * first maps, typing a short sentence) never pay for it. Started 300 ms after that run, the parts were ready
 * about 1.5 s after the long input on this 2-core machine, and the keys typed in that time waited behind the
 * cut; started at once, about 0.8 s. The parts then run `feeds` (that input) once before they take a key's
 * run: it is the helper's first run, whose wasm V8 compiles as it is first called, and it kept the parts about
 * 0.25 s longer from being ready here (a probe of the `disan:parts` mark); a key meanwhile runs the whole
 * graph, behind at most that one run. Any failure leaves the whole graph to the page's worker. */
function splitSoon(model, feeds) {
  if (splits[model.name]) return;
  /** @type {{ready: boolean, failed: boolean, outputs?: any, cuts?: any}} */
  var s = splits[model.name] = { ready: false, failed: false };
  startRuntime(1).catch(function () {}); // the call below says why, should it fail
  call({ type: "split", name: model.name }).then(function (v) {
    if (!v) { s.failed = true; return null; }
    if (splits[model.name] !== s) return null;
    holdInHelper(model.name);
    return call({ type: "session", name: "bw:" + model.name, onnx: v.bw, only: model.name }, [v.bw.buffer], 1)
      .then(function () {
        s.outputs = v.outputs; s.cuts = v.cuts;
        return runParts(model.name, s, feeds);
      }).then(function () {
        s.ready = splits[model.name] === s;
        if (s.ready) window.performance.mark("disan:parts:" + model.name); // the runs from here are the parts'
      });
  }).catch(function (err) {
    s.failed = true;
    console.warn("the model runs in one worker: its parts did not start (" + (err && err.message || err) + ")");
  });
}

/* Every output of the whole graph from its parts: fw (lane 0) ‖ bw (lane 1), then head (lane 0) fed the
 * inputs and the tensors the two passed. Should a part fail (the helper gone), the whole graph runs. */
function runParts(name, parts, feeds, early) {
  var fw = call({ type: "run", name: "fw:" + name, feeds: feeds }, [], 0);
  var bw = call({ type: "run", name: "bw:" + name, feeds: feeds }, [], 1);
  return Promise.all([fw, bw]).then(function (out) {
    var headFeeds = Object.assign({}, feeds), passed = [];
    if (early) { // the maps, painted while the head runs: a copy of any tensor that goes to the head by transfer
      var blocks = {};
      [["fw", out[0]], ["bw", out[1]]].forEach(function (side) {
        parts.outputs[side[0]].forEach(function (o) {
          var t = side[1][o], moved = parts.cuts[side[0]].indexOf(o) >= 0;
          blocks[o] = moved ? { type: t.type, dims: t.dims, data: t.data.slice() } : t;
        });
      });
      early(blocks);
    }
    [["fw", out[0]], ["bw", out[1]]].forEach(function (side) {
      parts.cuts[side[0]].forEach(function (c) {
        var t = side[1][c];
        headFeeds[c] = { type: t.type, data: t.data, dims: t.dims };
        passed.push(t.data.buffer);
      });
    });
    return call({ type: "run", name: "head:" + name, feeds: headFeeds }, passed, 0).then(function (head) {
      var all = Object.assign({}, head);
      ["fw", "bw"].forEach(function (k, i) { parts.outputs[k].forEach(function (o) { all[o] = out[i][o]; }); });
      return all;
    });
  }).catch(function (err) {
    if (splits[name] === parts) delete splits[name]; // cut again later
    console.warn("the model's parts failed; the whole graph runs (" + (err && err.message || err) + ")");
    return call({ type: "run", name: name, feeds: feeds, fetches: null });
  });
}

/* ------------------------------------------------------------- tokenize */

var tokenize = null;

/* Token → [id, status] as SentenceModel.embed does: the model's own row, else an extra GloVe row kept in
 * the export (GloVe's most frequent words, up to the stated limit), else <unk>. */
function lookup(model, tokens) {
  var own = model.vocab.own, ids = [], status = [];
  tokens.forEach(function (t) {
    var id = model.index.get(t);
    if (id === undefined) { ids.push(model.vocab.unk); status.push("unknown"); }
    else { ids.push(id); status.push(id < own ? "vocab" : "glove"); }
  });
  return { ids: ids, status: status };
}

/* One sentence's problem in a sentence a person can act on, or null. */
function checkTokens(tokens, what) {
  var limit = DATA.limits.max_tokens;
  if (!tokens.length) return "The " + what + " is empty (or only invisible characters); type a sentence with at least one word.";
  if (tokens.length > limit) return "The " + what + " has " + tokens.length + " tokens; this page takes at most " + limit + ". Shorten it.";
  return null;
}

/* ------------------------------------------------------------------ run */

function int64(ids) {
  return { type: "int64", data: BigInt64Array.from(ids.map(function (v) { return BigInt(v); })), dims: [1, ids.length] };
}

function arrayOf(out, name) {
  var t = out[name];
  if (!t) throw new Error("the model gave no output " + name + "; rebuild the folder with this version");
  return t.data;
}

/* The session's inputs: token ids of the premise (and hypothesis), α for the DSA. */
function feedsOf(model, premise, hypothesis, alpha) {
  var meta = model.meta, feeds = {};
  feeds[meta.inputs.premise] = int64(premise);
  if (meta.pair) feeds[meta.inputs.hypothesis] = int64(hypothesis);
  if (meta.inputs.alpha) feeds[meta.inputs.alpha] = { type: "float32", data: Float32Array.of(alpha), dims: [1] };
  return feeds;
}

/* Run the model on the current text (and hypothesis) and return its trace view. */
function compute(model, input, early) {
  var meta = model.meta;
  var feeds = feedsOf(model, input.premise.ids, meta.pair ? input.hypothesis.ids : null, input.alpha);
  return run(model, feeds, null, early).then(function (out) { return fromOutputs(meta, input, out); });
}

/* ------------------------------------------------------ opening sentence */

/* A page opened on the folder's own sentence draws its first maps from the run the build stored
 * (models/<name>.start.js, viz_app/draw/site_start.py: the outputs of this very graph, run by onnxruntime in
 * Python), then starts onnxruntime-web in the worker, which runs every other sentence. On this 2-core machine
 * the runtime's start (its 14 MB wasm unpacked and compiled, then the model's session) is most of a cold open,
 * and its wasm's background compiling leaves the page's thread about half a core while it draws
 * (static-explorer.md). Whether the address asks for that sentence, as `h` (readHash) or `state` has it. */
function opensOnStart(h, meta) {
  var s = meta.start && (h.view === undefined || h.view === "sentence");
  var text = h.text === undefined ? DATA.default_text : h.text;
  var hyp = h.hypothesis === undefined ? DATA.default_hypothesis : h.hypothesis;
  var alpha = h.alpha === undefined || h.alpha === null ? meta.alpha : Number(h.alpha);
  return Boolean(s) && text === DATA.default_text && (!meta.pair || hyp === DATA.default_hypothesis) &&
    (meta.arch !== "dsa" || alpha === meta.alpha);
}

/* {type, dims, data: base64 of little-endian bytes} → the tensor a worker's answer holds. */
function tensorOf(t) {
  var bytes = fromBase64(t.data);
  if (t.type !== "float32" && t.type !== "int64") throw new Error("the opening sentence's file holds a " + t.type + " output");
  var data = t.type === "int64" ? new BigInt64Array(bytes.buffer) : new Float32Array(bytes.buffer);
  return { type: t.type, dims: t.dims, data: data };
}

/* The opening sentence's trace view, or null when the state asks for another input or its file did not load. */
function startView() {
  var meta = modelMeta(state.model), s = (window.DisanSiteStart || {})[state.model];
  if (!s || !opensOnStart(state, meta)) return null;
  var out = {};
  Object.keys(s.outputs).forEach(function (k) { out[k] = tensorOf(s.outputs[k]); });
  var input = { premise: s.inputs.premise, hypothesis: s.inputs.hypothesis, alpha: s.alpha || 0 };
  return fromOutputs(meta, input, out);
}

var startChecked = false, startShown = null; // startShown: the model whose stored run is drawn, not yet run
var STARTING = "The maps show this sentence as computed when the folder was built; the model starts in the page for other sentences…";

/* The first update of a page opened on the folder's own sentence: drawn from its stored run, then the loop of
 * update() goes on (the model loads; a key typed meanwhile waits for it). Resolves false where it did not
 * apply, or its drawing failed (the model then computes the sentence). */
function drawStart() {
  if (startChecked) return Promise.resolve(false);
  startChecked = true;
  var tv = null;
  try { tv = startView(); } catch (err) { console.warn("the opening sentence's run is unusable (" + (err && err.message || err) + "); the model computes it"); }
  if (!tv) return Promise.resolve(false);
  var mine = pending;
  pending = null;
  doc.body.dataset.state = "computing";
  return draw(tv, false).then(function () {
    doc.body.dataset.state = "ready";
    doc.body.dataset.generation = String(mine);
    doc.body.dataset.start = startShown = state.model; // whose stored run is on screen (until the next sentence)
    if (pending === null) say(STARTING, "note");
    window.requestAnimationFrame(function () { doc.body.dataset.drawnAt = window.performance.now().toFixed(2); });
    return true;
  }, function (err) {
    console.warn("the opening sentence's maps could not be drawn (" + (err && err.message || err) + "); the model computes it");
    if (pending === null) pending = mine;
    return false;
  });
}

/* Once the model is ready after a stored run was drawn: that sentence run once, undrawn (its maps are on
 * screen). The worker's first run is its slowest (about 100 ms here), which the first key would otherwise wait
 * for; run() then keeps the worker warm as after any first run. */
function warmStart(model) {
  if (startShown !== model.meta.name) return;
  startShown = null;
  var input = prepare(model, state.text, state.hypothesis, state.alpha);
  if (input.problem) return;
  var meta = model.meta;
  run(model, feedsOf(model, input.premise.ids, meta.pair ? input.hypothesis.ids : null, input.alpha))
    .catch(function () {}); // a failing model says so at the next sentence
  mapsWhenIdle(model, input);
}

/* ---------------------------------------------------------------- state */

var KEYS = { model: "m", text: "t", hypothesis: "h", alpha: "a", feature: "k", talk: "talk", view: "view", bText: "bt",
             bHyp: "bh" };

function readHash() {
  var params = new URLSearchParams(window.location.hash.replace(/^#/, ""));
  var out = {};
  Object.keys(KEYS).forEach(function (k) { if (params.has(KEYS[k])) out[k] = params.get(KEYS[k]); });
  return out;
}

function writeHash() {
  var params = new URLSearchParams();
  params.set(KEYS.model, state.model);
  params.set(KEYS.text, state.text);
  if (modelMeta(state.model).pair) params.set(KEYS.hypothesis, state.hypothesis);
  if (state.alpha !== null && modelMeta(state.model).arch === "dsa") params.set(KEYS.alpha, String(state.alpha));
  if (state.feature && modelMeta(state.model).arch === "disan") params.set(KEYS.feature, String(state.feature));
  if (state.talk) params.set(KEYS.talk, "1");
  if (state.view === "pair") {
    params.set(KEYS.view, "pair");
    params.set(KEYS.bText, state.bText === null ? state.text : state.bText);
    if (modelMeta(state.model).pair) params.set(KEYS.bHyp, state.bHyp === null ? state.hypothesis : state.bHyp);
  }
  if (state.view === "search" && searchView) { params.set(KEYS.view, "search"); searchView.address(params); }
  window.history.replaceState(null, "", "#" + params.toString());
}

/* A key's address, written once typing rests (ADDRESS_REST_MS after the last key). history.replaceState costs
 * the page's thread a few milliseconds a key at T = 64, and the browser's own process more: written beside
 * each run, it took one of the two cores the model's workers run on (a Chromium trace of typing showed the
 * browser's main thread busy while they ran). bench site's typing rows measure the page with it. */
var hashTimer = null, ADDRESS_REST_MS = 300;
function writeHashSoon() {
  if (hashTimer !== null) window.clearTimeout(hashTimer);
  hashTimer = window.setTimeout(function () { hashTimer = null; writeHash(); }, ADDRESS_REST_MS);
}

/* A link's values, each checked; anything unusable falls back to the default with a note. */
function applyHash(notes) {
  var h = readHash();
  var names = DATA.models.map(function (m) { return m.name; });
  if (h.model !== undefined && names.indexOf(h.model) < 0) notes.push("The link names a model this folder lacks (" + h.model + "); showing " + DATA.default_model + ".");
  state.model = names.indexOf(h.model) >= 0 ? h.model : DATA.default_model;
  var meta = modelMeta(state.model);
  state.text = h.text !== undefined ? h.text.slice(0, DATA.limits.max_chars) : DATA.default_text;
  state.hypothesis = h.hypothesis !== undefined ? h.hypothesis.slice(0, DATA.limits.max_chars) : DATA.default_hypothesis;
  var a = h.alpha !== undefined ? Number(h.alpha) : NaN;
  if (h.alpha !== undefined && !(a >= DATA.limits.alpha_min && a <= DATA.limits.alpha_max)) notes.push("α = " + h.alpha + " is outside " + DATA.limits.alpha_min + "–" + DATA.limits.alpha_max + "; using the model's own.");
  state.alpha = a >= DATA.limits.alpha_min && a <= DATA.limits.alpha_max ? a : (meta.alpha === undefined ? null : meta.alpha);
  var k = h.feature !== undefined ? Number(h.feature) : 0;
  state.feature = Number.isInteger(k) && k >= 0 && k < meta.d_model ? k : 0;
  state.talk = h.talk === "1";
  var search = h.view === "search" && searchView;
  if (h.view !== undefined && h.view !== "pair" && h.view !== "sentence" && !search) notes.push("The link's view " + h.view + " is neither sentence nor pair; showing one sentence.");
  state.view = h.view === "pair" && pairView ? "pair" : search ? "search" : "sentence";
  state.bText = h.bText !== undefined ? h.bText.slice(0, DATA.limits.max_chars) : null;
  state.bHyp = h.bHyp !== undefined ? h.bHyp.slice(0, DATA.limits.max_chars) : null;
}

/* ------------------------------------------------------------------- UI */

/** The page's element `id` (an input, a select or a box: any, for the checker). @returns {any} */
function el(id) { return doc.getElementById(id); }

function say(text, kind) {
  var box = el("status");
  box.textContent = text || "";
  box.className = text ? (kind || "note") : "";
}

function fillControls() {
  var select = el("model");
  select.textContent = "";
  DATA.models.forEach(function (m) {
    var opt = doc.createElement("option");
    opt.value = m.name;
    opt.textContent = m.name + " — " + m.title;
    select.appendChild(opt);
  });
  var presets = el("preset");
  DATA.presets.forEach(function (p, i) {
    var opt = doc.createElement("option");
    opt.value = String(i);
    opt.textContent = p.label;
    presets.appendChild(opt);
  });
}

function showState() {
  var meta = modelMeta(state.model);
  el("model").value = state.model;
  el("text").value = state.text;
  el("hypothesis").value = state.hypothesis;
  el("hyp-row").hidden = !meta.pair;
  el("hyp-row").firstChild.textContent = meta.relatedness ? "sentence B " : "hypothesis "; // SICK's column names
  el("text").parentNode.firstChild.textContent = meta.relatedness ? "sentence A " : "sentence ";
  el("model-facts").textContent = meta.facts;
  if (pairView) pairView.showControls(state);
}

/* Tokens and ids of an input, or a message when it cannot be run. `names`: what the messages call a two-sentence
 * model's inputs, [first, second], where a view names them otherwise (the pair view, whose sides are A and B:
 * PairView.inputNames); by default the model's own (a relatedness model's: SICK's sentence A and B). */
function prepare(model, text, hypothesis, alpha, names) {
  var meta = model.meta, premise = tokenize(text);
  var n = names || (meta.relatedness ? ["sentence A", "sentence B"] : ["premise", "hypothesis"]);
  var problem = checkTokens(premise, meta.pair ? n[0] : "sentence");
  var input = { premise: Object.assign({ tokens: premise }, lookup(model, premise)), alpha: alpha || 0 };
  if (!problem && meta.pair) {
    var hyp = tokenize(hypothesis);
    problem = hypothesis.trim() === "" || !hyp.length
      ? (meta.relatedness ? "This model scores the relatedness of two sentences: type " + (names ? "the " : "") + n[1] +
        " as well." : "This is an NLI model: type a hypothesis as well as the premise.")
      : checkTokens(hyp, n[1]);
    input.hypothesis = Object.assign({ tokens: hyp }, lookup(model, hyp));
  }
  return problem ? { problem: problem } : input;
}

/* Compute and draw the current state; a newer request replaces one still waiting, so typing never queues
 * more than one run behind the one in flight. */
function update(typed) {
  if (searchView) searchView.toggle(state.view === "search", state);
  if (state.view === "search" && searchView) return searchView.update(state);
  if (state.view === "pair" && pairView) return pairView.update(typed === true);
  typing = typed === true && (typing || pending === null);
  // a key: the last sentence's figures still being drawn off screen wait for this one (Report.hold)
  if (typed === true) Report.hold(el("report"));
  pending = ++generation;
  if (running) return running;
  running = drawStart().then(function () { return loadModel(state.model); }).then(function loop(model) {
    if (el("status").textContent === STARTING) say(""); // the model is ready
    if (pending === null) { warmStart(model); return null; }
    var mine = pending;
    pending = null;
    if (model.meta.name !== state.model) return loadModel(state.model).then(loop);
    var input = prepare(model, state.text, state.hypothesis, state.alpha);
    if (input.problem) { say(input.problem, "error"); doc.body.dataset.state = "error"; return loop(model); }
    var t0 = window.performance.now();
    doc.body.dataset.state = "computing";
    // a key's maps are painted from what computes them first (paintMaps), its page from the whole run
    var early = typing ? function (out) { paintMaps(model, input, mine, out); } : null;
    return compute(model, input, early).then(function (tv) {
      window.performance.mark("disan:computed");
      mapsWhenIdle(model, input);
      doc.body.dataset.runMs = (window.performance.now() - t0).toFixed(2); // the model alone (onnxruntime-web)
      if (pending !== null && pending !== mine) return loop(model);
      delete doc.body.dataset.start;
      startShown = null;
      var typed = typing;
      typing = false;
      // The run was the worker's (its answer comes in a task of its own): the page's thread only draws.
      return draw(tv, typed).then(function () {
        say("");
        doc.body.dataset.state = "ready";
        doc.body.dataset.generation = String(mine);
        doc.body.dataset.computeMs = (window.performance.now() - t0).toFixed(2);
        // The benchmark's clock stops at the next frame, when the new maps are on screen.
        window.requestAnimationFrame(function () { doc.body.dataset.drawnAt = window.performance.now().toFixed(2); });
        return loop(model);
      });
    });
  }).catch(function (err) {
    console.error(err);
    var why = err && err.message || err;
    // The stored run's maps are on screen and right: what failed is the model, which other sentences need.
    say(startShown === state.model
      ? "The model did not load: " + String(why).replace(/\.?$/, ".") +
        " The maps show this sentence as computed when the folder was built."
      : "This sentence could not be computed: " + why, "error");
    doc.body.dataset.state = "error";
  }).then(function () { running = null; });
  return running;
}

/* The report's sections for this trace view (sections.js), drawn into the page by report.js, which keeps
 * the plots, talk mode and the α / feature controls across sentences. */
function draw(tv, typed) {
  var page = Sections.page(tv);
  doc.title = page.title + " — attention explorer";
  return Report.show(el("report"), page, {
    header: el("page-header"), values: { alpha: state.alpha, feature: state.feature }, hash: false,
    typing: typed === true, provenance: (modelMeta(state.model) || {}).provenance,
  }).then(function () {
    if (Report.values(el("report")).talk !== state.talk) Report.setTalk(doc, state.talk);
  });
}

/* α, feature k and talk mode are report.js's controls; the address follows them. While α moves, report.js
 * redraws the maps in the page (Im Eq. 7 from the scores); once it is let go the model runs again at the new
 * α, so the gates, FFN and pooling follow too. */
function followReport() {
  var sync = function (ev) {
    var v = Report.values(el("report"));
    var changed = false;
    ["alpha", "feature", "talk"].forEach(function (k) {
      if (v[k] !== undefined && v[k] !== null && v[k] !== state[k]) { state[k] = v[k]; changed = true; }
    });
    if (changed) writeHash();
    if (ev && ev.type === "change" && ev.target.dataset && ev.target.dataset.control === "alpha") update();
  };
  // After report.js's own listeners have taken the new value (they may be bound after these).
  var later = function (ev) { window.setTimeout(function () { sync(ev); }, 0); };
  el("report").addEventListener("input", later);
  el("report").addEventListener("change", later);
  doc.addEventListener("keyup", later);
  doc.addEventListener("click", later);
}

function bind() {
  el("model").addEventListener("change", function () {
    state.model = el("model").value;
    var meta = modelMeta(state.model);
    state.alpha = meta.alpha === undefined ? null : meta.alpha;
    state.feature = 0;
    showState();
    writeHash();
    say("Loading " + state.model + "…", "note");
    update();
  });
  // a key in either sentence box: its sentence runs as typing, the address follows once typing rests
  ["text", "hypothesis"].forEach(function (id) {
    el(id).addEventListener("input", function () {
      state[id] = el(id).value.slice(0, DATA.limits.max_chars);
      update(true);
      writeHashSoon();
    });
  });
  el("preset").addEventListener("change", function () {
    var p = DATA.presets[+el("preset").value];
    if (!p) return;
    state.text = p.text;
    state.hypothesis = p.hypothesis;
    el("preset").value = "";
    showState();
    writeHash();
    update();
  });
  window.addEventListener("hashchange", function () {
    var notes = [];
    applyHash(notes);
    showState();
    if (notes.length) say(notes.join(" "), "note");
    update();
  });
}

/* Start onnxruntime and the linked model, then load `late` (plotly.js and the drawing code, in order) and boot.
 * The late scripts load only once the model's graph is posted to the worker: evaluating plotly.js holds the
 * page's thread, and until the graph is posted the model's start waits on that thread (the worker's start
 * from its blob, the model's file run, its graph unpacked). The worker meanwhile unpacks its wasm and starts
 * the runtime. A page opened on the folder's own sentence loads its stored run with the late scripts at once
 * and the model after its first maps (opensOnStart). bench site's first maps measure both orders. */
function preload(late) {
  DATA = window.DisanSiteData;
  var posted = Promise.resolve();
  if (DATA && typeof DecompressionStream !== "undefined") {
    var h = readHash(), meta = modelMeta(h.model) || modelMeta(DATA.default_model);
    if (opensOnStart(h, meta)) {
      // the opening sentence's run and the drawing code at once; onnxruntime's start and the model's file after
      // the first maps: they would take the cores the maps need (and the model was ready no sooner for it)
      var start = loadScript((DATA.base || "") + meta.start).catch(function (err) { console.warn(err.message); });
      return Promise.all([start, loadScripts(late || [])]).then(boot, function (err) { say(err.message, "error"); });
    }
    var model = loadModel(meta.name);
    model.catch(function () {}); // boot's update() shows the failure
    posted = model.posted;
  }
  return posted.then(function () { return loadScripts(late || []); })
    .then(boot, function (err) { say(err.message, "error"); });
}

function boot() {
  DATA = window.DisanSiteData;
  if (!DATA) { doc.body.textContent = "assets/site-data.js is missing; rebuild this folder with python -m viz_app site."; return Promise.resolve(); }
  if (typeof DecompressionStream === "undefined") {
    say("This browser cannot unpack the model (no DecompressionStream); open the page in a current Chrome, Edge, Firefox or Safari.", "error");
    return Promise.resolve();
  }
  tokenize = Tokenize.create(DATA.tokenizer);
  Figures.configure(DATA.figures);
  var notes = [];
  fillControls();
  applyHash(notes);
  showState();
  bind();
  followReport();
  if (notes.length) say(notes.join(" "), "note");
  else say("Loading " + state.model + "…", "note");
  writeHash();
  return update();
}

/* The page's data and tokenizer without its controls: all `traceOf` needs. The app's Explore runs the
 * model this way, with the folder served at `base` (viz_app/shell/explorer.py). */
function init(base) {
  DATA = window.DisanSiteData;
  if (!DATA) throw new Error("site-data.js is not loaded");
  DATA.base = base || "";
  tokenize = Tokenize.create(DATA.tokenizer);
  Figures.configure(DATA.figures);
}

/* The trace view of any input, computed as the page computes it but not drawn: the equality tests compare
 * it with the torch model's trace, and the app's Explore draws it while the sentence is typed. Resolves
 * {problem} for input the page refuses, its message naming the inputs by `names` (prepare's). */
function traceOf(name, text, hypothesis, alpha, names) {
  return loadModel(name).then(function (model) {
    var input = prepare(model, text, hypothesis || "", alpha === undefined ? model.meta.alpha : alpha, names);
    if (input.problem) return { problem: input.problem };
    return compute(model, input);
  });
}

/* Leave-one-out's helper worker (lane 1) and the model whose lean graph it holds: {model, ready, failed}. */
var helper = null;

/* Give the helper `model`'s lean graph (the class probabilities and what they need: Graph.lean, or an NLI
 * model's sentences, which the helper cuts from a copy of the graph), replacing any other model's. Started in a
 * task of its own (copying the graph takes a few ms of the page's thread), once per model. A helper that cannot
 * start leaves leave-one-out to the page's worker alone. */
function startHelper(model, fetch) {
  var h = helper = { model: model.name, ready: false, failed: false };
  window.setTimeout(function () {
    if (helper !== h) return;
    holdInHelper(model.name);
    // a copy of the graph: the helper cuts it (the page keeps its own for the word table)
    call({ type: "session", name: "lean:" + model.name, onnx: model.graph, lean: fetch, only: model.name }, [], 1)
      .then(function () { h.ready = true; }, function (err) {
        h.failed = true;
        console.warn("leave-one-out runs in the page's worker alone: its helper did not start (" + (err && err.message || err) + ")");
      });
  }, 0);
}

/* The model `name` as pair.js's leave-one-out and nearest words use it: prepare(text, hypothesis, α) gives
 * the input (tokens, ids, status; {problem} for input the page refuses), probs(ids, hypothesis ids, α) the
 * class probabilities alone (only that output is fetched), probsMany(inputs, α, lane) those of several inputs
 * run one after another by lane 0 (the page's worker, the whole graph) or lane 1 (the helper, the lean graph;
 * the same numbers: the nodes it drops feed only the trace outputs), lanes() how many lanes are ready (its
 * first call starts the helper), table() the word table, read from the graph once. */
function runner(name) {
  return loadModel(name).then(function (model) {
    var meta = model.meta, prediction = meta.outputs.prediction;
    function many(outs) { return outs.map(function (out) { return arrayOf(out, prediction); }); }
    return {
      meta: meta, words: model.vocab.words, unk: model.vocab.unk, pad: model.vocab.pad, index: model.index,
      prepare: function (text, hypothesis, alpha) {
        return prepare(model, text, hypothesis || "", alpha === undefined || alpha === null ? meta.alpha : alpha);
      },
      probs: function (premise, hypothesis, alpha) {
        return run(model, feedsOf(model, premise, hypothesis, alpha), [prediction])
          .then(function (out) { return arrayOf(out, prediction); });
      },
      probsMany: function (inputs, alpha, i) {
        var feeds = inputs.map(function (x) { return feedsOf(model, x[0], x[1], alpha); });
        // the helper may hold another model's graph by now (a model picked meanwhile): then the page's worker runs them
        var lean = i === 1 && helper !== null && helper.model === name && helper.ready;
        return call({ type: "runs", name: lean ? "lean:" + name : name, feeds: feeds, fetches: [prediction] }, [], lean ? 1 : 0)
          .then(many);
      },
      lanes: function () {
        if (!helper || helper.model !== name) startHelper(model, [prediction]);
        return helper.ready ? 2 : 1;
      },
      table: function () {
        if (!model.table) model.table = Pair.embeddingTable(model.graph);
        return model.table;
      },
    };
  });
}

/* A copy of the state (site_pair.js reads it). */
function currentState() {
  return Object.assign({}, state);
}

/* site_pair.js's edits of the state (sentence B, the view, a pair preset), written to the controls and the
 * address (`typed`: a key in B, whose address waits until typing rests, as a key in A's does). */
function set(patch, typed) {
  Object.assign(state, patch);
  showState();
  if (typed) writeHashSoon(); else writeHash();
}

/* The Pair mode (site_pair.js: {update, showControls}), plugged in by the static explorer's bundle
 * (entry_site.js); the app's Explore runs the model without it. */
function usePairView(view) {
  pairView = view;
}

/* The Search mode (site_search.js: {toggle, update, address}), plugged in by entry_site.js. */
function useSearchView(view) {
  searchView = view;
}

export { init, preload, boot, currentState as state, update, traceOf, runner, set, usePairView, useSearchView, modelMeta };
