/* Site — the static explorer's page: any typed sentence, computed in the page, no server (docs/static-explorer.md).
 * The folder works from file://, where Chromium refuses fetch(), so each file is a <script> (viz_app/draw/site.py):
 * assets/site-data.js (DisanSiteData), assets/ort-runtime.js (onnxruntime-web), models/<name>.js (the graphs the page
 * runs, cut at build time, their shared weights and the vocabulary, gzip + base64, loaded when picked),
 * models/<name>.start.js (the folder's own sentence as the build ran it). This file tokenizes, maps tokens to ids,
 * runs the model in a worker, reads its outputs as a trace view (trace_view.js) for sections.js and report.js. The
 * state lives in the address after '#'. */
import WORKER from "disan:worker";
import { fromBase64, inflate } from "./bytes.js";
import { loadScript as loadOnce } from "./load_script.js";
import * as Figures from "./figures.js";
import * as Pair from "./pair.js";
import * as PairView from "./pair_view.js";
import * as Report from "./report.js";
import * as Sections from "./sections.js";
import * as Tokenize from "./tokenize.js";
import { fromOutputs } from "./trace_view.js";
import { nextTask } from "./util.js";

const doc = window.document;
let pairView = null, searchView = null, DATA = null; // site_pair.js, site_search.js (use()); window.DisanSiteData
// view "pair": site_pair.js's minimal pair, sentence B in bText / bHyp (null: still a copy of A)
// view "search": site_search.js's query in q (JSON)
const state = { model: null, text: "", hypothesis: "", alpha: null, feature: 0, talk: false, view: "sentence",
                bText: null, bHyp: null, q: null };
const loaded = {}, timers = {}; // name → Promise<{name, vocab, index, meta, weights, files, graphs}>; rest()'s timers
let pending = null, running = null, generation = 0, typing = false, tokenize = null;
let linkNote = ""; // what the link got wrong (applyHash): said until the reader's next edit, not only while it loads

/** The page's element `id` (an input, a select or a box: any, for the checker). @returns {any} */
export const el = id => doc.getElementById(id);
export const why = err => err && err.message || err;
const warn = (what, err) => console.warn(what + " (" + why(err) + ")");

export const say = (text, kind) => Object.assign(el("status"), { textContent: text || "", className: text ? kind || "note" : "" });

/** A script of the folder, added to the page once (load_script.js). @param {string} src @returns {Promise<void>} */
export const loadScript = (src, fix = "python -m viz_app site") => loadOnce(src, fix);

/** `items` ([value, label]) as the options of `select`, after its first `keep`. */
export function options(select, items, keep = 0) {
  while (select.options.length > keep) select.remove(keep);
  for (const [value, label] of items) select.add(new Option(label, value));
}

/* `fn` once `key` was asked for no more for `ms` (each call restarts the wait). */
function rest(key, ms, fn) {
  clearTimeout(timers[key]);
  timers[key] = setTimeout(() => { delete timers[key]; fn(); }, ms);
}

/* The body's record of a sentence drawn (tests, bench site): data-state and data-generation now, data-drawn-at
 * at the next frame, when its maps are on screen. */
export function markDrawn(mine) {
  doc.body.dataset.state = "ready";
  doc.body.dataset.generation = String(mine);
  requestAnimationFrame(() => { doc.body.dataset.drawnAt = performance.now().toFixed(2); });
}

/* onnxruntime-web runs in workers made from a blob (file:// may not start one from a file): its classic script, then
 * worker.js's bundle (WORKER), so its start (about 400 ms of wasm here) and runs leave the page's thread to typing and
 * drawing. Lane 0 runs every sentence; lane 1, the helper, the other core (one core per worker's wasm): the graph's
 * backward part and leave-one-out's lean graph. A worker answers in order, so a new run waits for at most one. */
const lanes = [];
let callId = 0, helperHolds = null; // helperHolds: holdInHelper

/* One request to lane i's worker, posted at once (the worker answers after its start, or each request with the
 * reason it did not start). */
function call(message, transfer, i = 0) {
  const started = startRuntime(i);
  return lanes[i].worker ? post(lanes[i], message, transfer) : started; // no worker: why the runtime could not start
}

function post(l, message, transfer) {
  return new Promise((resolve, reject) => {
    l.calls[message.id = ++callId] = [resolve, reject];
    l.worker.postMessage(message, transfer || []);
  });
}

function startRuntime(i = 0) {
  const l = lanes[i] || (lanes[i] = { runtime: null, worker: null, calls: {} }), assets = window.DisanOrtRuntime;
  if (l.runtime) return l.runtime;
  if (!assets || !assets.script) return Promise.reject(new Error("onnxruntime-web is missing from assets/; rebuild the folder with python -m viz_app site"));
  try { l.worker = new Worker(URL.createObjectURL(new Blob([assets.script, "\n", WORKER], { type: "text/javascript" }))); } catch (err) {
    return Promise.reject(new Error("this browser would not start the model's worker (" + why(err) + "); open the page in a current Chrome, Edge, Firefox or Safari"));
  }
  l.worker.onmessage = ({ data }) => settle(l, data.id, data.error === undefined ? 0 : 1, data.error === undefined ? data.value : new Error(data.error));
  l.worker.onerror = e => {
    const stopped = new Error("the model's worker stopped: " + (e.message || "an error without a message"));
    Object.keys(l.calls).forEach(id => settle(l, id, 1, stopped));
  };
  l.runtime = post(l, { type: "init", wasm: assets.wasm, loader: assets.loader, probe: assets.probe })
    .then(() => { if (!i) performance.mark("disan:runtime"); return true; });
  l.runtime.catch(() => { l.runtime = null; });
  return l.runtime;
}

/* Lane l's call `id` resolved (k = 0) or rejected (1) with `v`. */
function settle(l, id, k, v) {
  const waiting = l.calls[id];
  delete l.calls[id];
  if (waiting) waiting[k](v);
}

export const modelMeta = name => DATA.models.find(m => m.name === name) || null;

function loadModel(name) {
  if (loaded[name]) return loaded[name];
  const meta = modelMeta(name);
  startRuntime().catch(() => {}); // the worker starts while the model's file loads; failures surface below
  loaded[name] = loadScript((DATA.base || "") + meta.file).then(() => {
    const files = (window.DisanSiteModels || {})[name];
    if (!files) throw new Error("models/" + name + ".js did not define the model; rebuild the folder");
    return Promise.all([inflate(files.graphs.whole), inflate(files.weights), inflate(files.vocab), files]);
  }).then(([whole, weights, words, files]) => {
    const vocab = JSON.parse(new TextDecoder().decode(words)), index = new Map();
    vocab.words.forEach((w, i) => { if (!index.has(w)) index.set(w, i); });
    // a copy goes to the worker; the page keeps the weights for pair.js's word table and the other graphs' sessions
    const session = call({ type: "session", name, onnx: whole, weights });
    performance.mark("disan:posted:" + name);
    return session.then(() => {
      performance.mark("disan:session:" + name);
      delete window.DisanSiteModels[name]; // the weights' base64 text is no longer needed
      return { name, vocab, index, meta, weights, files: { graphs: files.graphs, cuts: files.cuts, table: files.table }, graphs: {} };
    });
  });
  loaded[name].catch(() => { delete loaded[name]; });
  return loaded[name];
}

/* One of the graphs the build cut (disan/onnx_graphs.py page_graphs: "maps", "probs", "parts.fw", …), unpacked once. */
const graphOf = (model, name) => model.graphs[name] || (model.graphs[name] = inflate(model.files.graphs[name]));

/* The build's cut `name` ("parts", "sentences", "probs") with its graphs: {<part>: bytes, outputs, cuts, reads}, or
 * null where the graph could not be cut (it then runs whole). */
function partsOf(model, name) {
  const plan = model.files.cuts[name], keys = plan ? Object.keys(plan.outputs) : [];
  return Promise.all(keys.map(k => graphOf(model, name + "." + k)))
    .then(graphs => plan && Object.assign(Object.fromEntries(keys.map((k, i) => [k, graphs[i]])), plan));
}

/* The model's outputs for `feeds`, by the graph's parts for a long input once they are ready (splitSoon).
 * `early(out)`: a typed sentence's maps, painted first. */
function run(model, feeds, early) {
  const long = tokenCount(feeds) >= PARTS_MIN_TOKENS, parts = extras["parts:" + model.name];
  doc.body.dataset.parts = long && parts && parts.ready ? "1" : "0"; // which ran the last trace
  if (long && parts && parts.ready) return runParts(model.name, parts, feeds, early);
  const m = extras["maps:" + model.name];
  if (early && m && m.ready) { // posted first: the worker runs the maps' lean graph, then the whole graph
    call({ type: "run", name: "maps:" + model.name, feeds, fetches: null }).then(early, err => {
      m.ready = false; // and never made again: keys paint their maps from the whole run
      warn("the maps follow the whole graph's run: their lean graph failed", err);
    });
  }
  const out = call({ type: "run", name: model.name, feeds, fetches: null });
  if (long && !parts) out.then(() => splitSoon(model, feeds), () => {}); // the first long input starts the parts
  if (!long) warmWhenIdle(model, feeds);
  if (feeds.h_ids) sentencesWhenIdle(model);
  return out;
}

/* For WARM_FOR_MS after a short sentence's run the worker reruns it, undrawn, every WARM_EVERY_MS without a run: once
 * per page a run a second or so after the first maps takes about 40 ms, not 2-4 (the wasm's tier-up,
 * static-explorer.md), and without these runs typing's first key paid it. */
const warming = {}, WARM_EVERY_MS = 250, WARM_FOR_MS = 6000;

function warmWhenIdle(model, feeds) {
  const until = warming[model.name] || (warming[model.name] = performance.now() + WARM_FOR_MS);
  if (performance.now() > until) return clearTimeout(timers["warm:" + model.name]);
  rest("warm:" + model.name, WARM_EVERY_MS, () => {
    if (performance.now() > until) return; // a timer the page's thread held past the window
    call({ type: "run", name: model.name, feeds, fetches: null }).then(() => warmWhenIdle(model, feeds), () => {});
  });
}

/* The sessions a model gets beside its whole graph's, each made once, in the background: `key` is "maps:<model>",
 * "parts:<model>", "sentences:<model>" or "lean:<model>". {ready, failed}: ready (and the mark disan:<key>) once
 * make(it) has resolved, unless it was dropped meanwhile (holdInHelper); a failure is warned with `fallback`, what
 * runs instead, and not tried again.
 * @type {Record<string, {ready: boolean, failed: boolean, outputs?: any, cuts?: any}>} */
const extras = {};

function extra(key, make, fallback) {
  if (extras[key]) return extras[key];
  const x = extras[key] = { ready: false, failed: false };
  make(x).then(() => { if ((x.ready = extras[key] === x)) performance.mark("disan:" + key); },
    err => { x.failed = true; warn(fallback, err); });
  return x;
}

/* An NLI model's graph by sentence (the build's "sentences" cut) once no run was asked for SPLIT_AFTER_MS: its three
 * sessions take the worker a few hundred ms, never in the middle of typing. */
function sentencesWhenIdle(model) {
  if (extras["sentences:" + model.name]) return;
  rest("sentences", SPLIT_AFTER_MS, () => extra("sentences:" + model.name, () => partsOf(model, "sentences").then(parts => {
    if (!parts) throw new Error("the folder holds no sentence parts");
    return call({ type: "sentences", name: model.name, parts, weights: model.weights });
  }), "the model's graph runs whole: its sentence parts did not start"));
}

/* While typing, the worker first runs the build's lean graph of the maps' outputs ("maps") and the maps on
 * screen are painted from it (paintMaps) before the whole graph's run. The maps need the embedding and the two
 * attention blocks (Shen Eqs. 14, 15, 17, 18; Im Eq. 7); the gates, FFN, source2token, pooling and classifier
 * they skip are most of a run. Made once the sentence page asked for no run for SPLIT_AFTER_MS (the pair view and
 * traceOf never make one); ready is false again after a run of it failed. */
function mapsWhenIdle(model, input) {
  if (extras["maps:" + model.name]) return;
  const feeds = feedsFor(model, input), name = "maps:" + model.name;
  rest("maps", SPLIT_AFTER_MS, () => extra(name, () => graphOf(model, "maps")
    .then(onnx => call({ type: "session", name, onnx, weights: model.weights }))
    // its first run is its slowest: made here, undrawn, not at the next key
    .then(() => call({ type: "run", name, feeds, fetches: null })), "the maps follow the whole graph's run: their lean graph did not start"));
}

/* A key's maps on screen painted from `out` (the lean graph's run, or a long input's parts' before the head). */
function paintMaps(model, input, mine, out) {
  if (pending !== null || generation !== mine || state.model !== model.meta.name) return;
  const tv = fromOutputs(model.meta, input, out, true);
  Report.preview(el("report"), id => Sections.mapFigure(tv, id)).then(painted => {
    if (painted) doc.body.dataset.mapsFirst = String(mine);
  }).catch(err => warn("the maps wait for the whole graph's run", err));
}

/* The graph's parts per model (the build's "parts" cut; extras "parts:<model>", with its outputs and cuts): forward
 * (lane 0) ‖ backward (lane 1), then the head (lane 0). Each part's run has a fixed cost that inputs under
 * PARTS_MIN_TOKENS do not win back. */
const PARTS_MIN_TOKENS = 28, SPLIT_AFTER_MS = 300;

const tokenCount = feeds => Object.values(feeds).reduce((n, f) => n + (f.type === "int64" ? f.dims[1] : 0), 0);

/* The helper holds one model's sessions (helperHolds): holding another's drops the last one's parts and leave-one-out's
 * lean graph. */
function holdInHelper(name) {
  if (helperHolds !== null && helperHolds !== name) {
    for (const key of ["parts:" + helperHolds, "lean:" + helperHolds]) if (extras[key] && !extras[key].failed) delete extras[key];
  }
  helperHolds = name;
}

/* Start the graph's parts once the first long input's run has answered, while the page draws it and the helper
 * starts (ready about 0.8 s after that input here, 1.5 s if started 300 ms later), then run `feeds` once: the
 * helper's first run compiles its wasm (0.25 s). Meanwhile and after any failure the whole graph runs. */
function splitSoon(model, feeds) {
  startRuntime(1).catch(() => {}); // the call below says why, should it fail
  extra("parts:" + model.name, s => partsOf(model, "parts").then(p => {
    if (!p) throw new Error("the folder holds no parts of its graph");
    if (extras["parts:" + model.name] !== s) return null;
    holdInHelper(model.name);
    const session = (k, lane, only) => call({ type: "session", name: k + ":" + model.name, onnx: p[k], weights: model.weights, only, kernel: p.kernel }, [], lane);
    return Promise.all([session("fw", 0), session("head", 0), session("bw", 1, model.name)])
      .then(() => { s.outputs = p.outputs; s.cuts = p.cuts; return runParts(model.name, s, feeds); });
  }), "the model runs in one worker: its parts did not start");
}

/* Every output from the parts: fw ‖ bw, then the head fed the inputs and the tensors they passed (a failure: the
 * whole graph). */
function runParts(name, parts, feeds, early) {
  const sides = [call({ type: "run", name: "fw:" + name, feeds }, [], 0), call({ type: "run", name: "bw:" + name, feeds }, [], 1)];
  return Promise.all(sides).then(out => {
    const headFeeds = Object.assign({}, feeds), passed = [], blocks = {};
    ["fw", "bw"].forEach((k, i) => {
      // the maps, painted while the head runs, get a copy of any tensor that goes to the head by transfer
      if (early) parts.outputs[k].forEach(o => {
        const t = out[i][o];
        blocks[o] = parts.cuts[k].includes(o) ? { type: t.type, dims: t.dims, data: t.data.slice() } : t;
      });
      for (const c of parts.cuts[k]) {
        headFeeds[c] = out[i][c];
        passed.push(out[i][c].data.buffer);
      }
    });
    if (early) early(blocks);
    return call({ type: "run", name: "head:" + name, feeds: headFeeds }, passed, 0).then(head => {
      const all = Object.assign({}, head);
      ["fw", "bw"].forEach((k, i) => parts.outputs[k].forEach(o => { all[o] = out[i][o]; }));
      return all;
    });
  }).catch(err => {
    if (extras["parts:" + name] === parts) delete extras["parts:" + name]; // cut again later
    warn("the model's parts failed; the whole graph runs", err);
    return call({ type: "run", name, feeds, fetches: null });
  });
}

/* Token → [id, status] as SentenceModel.embed does: the model's own row, else a GloVe row of the export, else <unk>. */
function lookup(model, tokens) {
  const ids = tokens.map(t => model.index.has(t) ? model.index.get(t) : model.vocab.unk);
  return { ids, status: tokens.map((t, k) => !model.index.has(t) ? "unknown" : ids[k] < model.vocab.own ? "vocab" : "glove") };
}

/* One sentence's problem in a sentence a person can act on, or null. */
function checkTokens(tokens, what) {
  const limit = DATA.limits.max_tokens;
  if (!tokens.length) return "The " + what + " is empty (or only invisible characters); type a sentence with at least one word.";
  if (tokens.length > limit) return "The " + what + " has " + tokens.length + " tokens; this page takes at most " + limit + ". Shorten it.";
  return null;
}

/* The session's inputs: token ids of the premise (and hypothesis), α for the DSA. */
function feedsOf(model, premise, hypothesis, alpha) {
  const names = model.meta.inputs, int64 = ids => ({ type: "int64", data: BigInt64Array.from(ids, v => BigInt(v)), dims: [1, ids.length] });
  return Object.assign({ [names.premise]: int64(premise) }, model.meta.pair && { [names.hypothesis]: int64(hypothesis) },
    names.alpha && { [names.alpha]: { type: "float32", data: Float32Array.of(alpha), dims: [1] } });
}

const feedsFor = (model, input) => feedsOf(model, input.premise.ids, model.meta.pair ? input.hypothesis.ids : null, input.alpha);

/* Run the model on a prepared input and return its trace view. */
function compute(model, input, early) {
  return run(model, feedsFor(model, input), early).then(out => fromOutputs(model.meta, input, out));
}

/* A page opened on the folder's own sentence draws its first maps from the run the build stored (site_start.py: this
 * graph's outputs), then starts onnxruntime-web, whose start is most of a cold open and whose wasm compiling takes
 * half a core from the drawing. Whether the address (`h`, readHash, or the state) asks for that sentence. */
function opensOnStart(h, meta) {
  const alpha = h.alpha === undefined || h.alpha === null ? meta.alpha : Number(h.alpha);
  return Boolean(meta.start) && (h.view === undefined || h.view === "sentence") &&
    (h.text === undefined || h.text === DATA.default_text) &&
    (!meta.pair || h.hypothesis === undefined || h.hypothesis === DATA.default_hypothesis) &&
    (meta.arch !== "dsa" || alpha === meta.alpha);
}

/* The trace view of the run the build stored (models/<name>.start.js). */
function storedView(meta, s) {
  // each output {type: "float32" or "int64" (site_start.py writes no other), dims, data: base64 of little-endian bytes}
  const out = Object.fromEntries(Object.entries(s.outputs).map(([k, t]) => [k, { type: t.type, dims: t.dims,
    data: new (t.type === "int64" ? BigInt64Array : Float32Array)(fromBase64(t.data).buffer) }]));
  return fromOutputs(meta, { premise: s.inputs.premise, hypothesis: s.inputs.hypothesis, alpha: s.alpha || 0 }, out);
}

let startChecked = false, startShown = null; // startShown: the model whose stored run is drawn, not yet run
const STARTING = "The maps show this sentence as computed when the folder was built; the model starts in the page for other sentences…";

/* The first update, drawn from the stored run; false where it did not apply or failed (the model computes it). */
function drawStart() {
  if (startChecked) return Promise.resolve(false);
  startChecked = true;
  // the opening sentence's trace view, or null when the state asks for another input or its file did not load
  const meta = modelMeta(state.model), s = (window.DisanSiteStart || {})[state.model];
  let tv = null;
  try {
    tv = s && opensOnStart(state, meta) ? storedView(meta, s) : null;
  } catch (err) { warn("the opening sentence's run is unusable; the model computes it", err); }
  if (!tv) return warmPage(meta, s);
  const mine = pending;
  pending = null;
  doc.body.dataset.state = "computing";
  return draw(tv, false).then(() => {
    markDrawn(mine);
    shownFor(state.model);
    doc.body.dataset.start = startShown = state.model; // whose stored run is on screen (until the next sentence)
    if (pending === null) say(linkNote ? linkNote + " " + STARTING : STARTING, "note");
    return true;
  }, err => {
    warn("the opening sentence's maps could not be drawn; the model computes it", err);
    if (pending === null) pending = mine;
    return false;
  });
}

/* A link's sentence waits for onnxruntime-web to start (about 0.6 s here): meanwhile the page draws the stored
 * opening sentence hidden, so that the link's page finds the report's sections, figures and code ready. On a cold
 * page the first draw took about 200 ms of the 1.05 s to a link's first maps; drawn here at once, while the worker
 * starts on the other core, it leaves about 40 ms after the run (docs/static-explorer.md). The link's page shows the
 * report (report.js show's `hidden`). */
function warmPage(meta, s) {
  if (!s || state.view !== "sentence") return Promise.resolve(false);
  return Promise.resolve().then(() => draw(storedView(meta, s), false, true)).then(() => false, () => false);
}

/* After a stored run was drawn, the model runs that sentence once, undrawn: the worker's first run is its slowest
 * (about 100 ms here), which the first key would otherwise wait for. */
function warmStart(model) {
  if (startShown !== model.meta.name) return;
  startShown = null;
  const input = prepare(model, state.text, state.hypothesis, state.alpha);
  if (input.problem) return;
  run(model, feedsFor(model, input)).catch(() => {}); // a failing model says so at the next sentence
  mapsWhenIdle(model, input);
}

const KEYS = { model: "m", text: "t", hypothesis: "h", alpha: "a", feature: "k", talk: "talk", view: "view", bText: "bt", bHyp: "bh",
               q: "q" };

/** @returns {any} */
function readHash() {
  const params = new URLSearchParams(location.hash.replace(/^#/, ""));
  return Object.fromEntries(Object.entries(KEYS).filter(([, k]) => params.has(k)).map(([name, k]) => [name, params.get(k)]));
}

function writeHash() {
  const s = state, meta = modelMeta(s.model), pair = s.view === "pair", search = s.view === "search" && searchView;
  const values = { model: s.model, text: s.text, hypothesis: meta.pair ? s.hypothesis : null, alpha: meta.arch === "dsa" ? s.alpha : null,
    feature: meta.arch === "disan" && s.feature || null, talk: s.talk ? "1" : null, view: pair || search ? s.view : null,
    bText: pair ? s.bText ?? s.text : null, bHyp: pair && meta.pair ? s.bHyp ?? s.hypothesis : null, q: search ? s.q : null };
  const p = new URLSearchParams(Object.entries(values).filter(([, v]) => v !== null).map(([k, v]) => [KEYS[k], String(v)]));
  history.replaceState(null, "", "#" + p);
}

/* A key's address once typing rests: replaceState costs a few ms a key and the browser's process a core. */
const writeHashSoon = () => rest("hash", 300, writeHash);

/* A link's values, each checked, shown; anything unusable falls back to the default with a note, said (`booting`:
 * else that the model loads). */
function applyHash(booting) {
  const notes = [], h = readHash(), L = DATA.limits, clip = v => v === undefined ? null : v.slice(0, L.max_chars);
  const known = DATA.models.some(m => m.name === h.model), a = h.alpha !== undefined ? Number(h.alpha) : NaN;
  if (h.model !== undefined && !known) notes.push("The link names a model this folder lacks (" + h.model + "); showing " + DATA.default_model + ".");
  if (h.alpha !== undefined && !(a >= L.alpha_min && a <= L.alpha_max)) notes.push("α = " + h.alpha + " is outside " + L.alpha_min + "–" + L.alpha_max + "; using the model's own.");
  const meta = modelMeta(known ? h.model : DATA.default_model), k = h.feature !== undefined ? Number(h.feature) : 0;
  const search = h.view === "search" && searchView && Boolean(meta.search);
  if (h.view === "search" && searchView && !search) notes.push("This folder has no search for " + meta.name + "; rebuild it with python -m viz_app site --search. Showing one sentence.");
  else if (h.view !== undefined && h.view !== "pair" && h.view !== "sentence" && !search) notes.push("The link's view " + h.view + " is neither sentence nor pair; showing one sentence.");
  if (meta.arch === "disan" && !(Number.isInteger(k) && k >= 0 && k < meta.d_model)) notes.push("Feature k = " + h.feature + " is not one of 0–" + (meta.d_model - 1) + "; showing k = 0.");
  Object.assign(state, {
    model: meta.name, text: clip(h.text) ?? DATA.default_text, hypothesis: clip(h.hypothesis) ?? DATA.default_hypothesis,
    alpha: a >= L.alpha_min && a <= L.alpha_max ? a : meta.alpha ?? null,
    feature: Number.isInteger(k) && k >= 0 && k < meta.d_model ? k : 0, talk: h.talk === "1",
    view: h.view === "pair" && pairView ? "pair" : search ? "search" : "sentence", bText: clip(h.bText), bHyp: clip(h.bHyp),
    q: h.q ?? null,
  });
  showState();
  linkNote = notes.join(" ");
  if (notes.length || booting) say(linkNote || "Loading " + state.model + "…", "note");
}

/* A page drawn: the status line keeps only the link's note, until the reader's next edit (set, a key). */
export function drawnSay() {
  say(linkNote, "note");
}

function showState() {
  const meta = modelMeta(state.model);
  el("model").value = state.model;
  el("text").value = state.text;
  el("hypothesis").value = state.hypothesis;
  el("hyp-row").hidden = !meta.pair;
  // a relatedness model's inputs are SICK's columns, sentence A and B, but its first and second sentence in the pair
  // view (SICK's names would read "B: sentence A")
  // an NLI model's first box is its premise, as its messages and report call it
  const names = !meta.pair ? ["sentence", "hypothesis"] : !meta.relatedness ? ["premise", "hypothesis"]
    : state.view === "pair" ? PairView.inputNames(true) : ["sentence A", "sentence B"];
  ["text", "hypothesis"].forEach((id, i) => {
    el(id).parentNode.firstChild.textContent = names[i] + " ";
    el("b-" + id).parentNode.firstChild.textContent = "B: " + names[i] + " ";
  });
  el("model-facts").textContent = meta.facts;
  if (pairView) pairView.showControls(state);
}

/* Tokens and ids of an input, or {problem}; `names`: a two-sentence model's inputs as a view calls them. */
function prepare(model, text, hypothesis, alpha, names) {
  const meta = model.meta, premise = tokenize(text);
  const n = names || (meta.relatedness ? ["sentence A", "sentence B"] : ["premise", "hypothesis"]);
  let problem = checkTokens(premise, meta.pair ? n[0] : "sentence");
  const input = { premise: Object.assign({ tokens: premise }, lookup(model, premise)), alpha: alpha || 0 };
  if (!problem && meta.pair) {
    const hyp = tokenize(hypothesis);
    problem = hypothesis.trim() === "" || !hyp.length
      ? (meta.relatedness ? "This model scores the relatedness of two sentences: type " + (names ? "the " : "") + n[1] +
        " as well." : "This is an NLI model: type a hypothesis as well as the premise.")
      : checkTokens(hyp, n[1]);
    input.hypothesis = Object.assign({ tokens: hyp }, lookup(model, hyp));
  }
  return problem ? { problem } : input;
}

/* Compute and draw the current state; a newer request replaces one still waiting (one run at most queued). */
function update(typed) {
  if (searchView) searchView.toggle(state.view === "search", state);
  if (state.view === "search" && searchView) return searchView.update(state);
  if (state.view === "pair" && pairView) return pairView.update(typed === true);
  typing = typed === true && (typing || pending === null);
  if (typed === true) Report.hold(el("report")); // the last sentence's figures still drawn off screen wait for this one
  pending = ++generation;
  if (running) return running;
  running = drawStart().then(() => loadModel(state.model)).then(function loop(model) {
    if (el("status").textContent.endsWith(STARTING)) drawnSay(); // the model is ready
    if (pending === null) { warmStart(model); return null; }
    // another model was picked while this one loaded: its request stays pending for that model's run
    if (model.meta.name !== state.model) return loadModel(state.model).then(loop);
    const mine = pending;
    pending = null;
    const input = prepare(model, state.text, state.hypothesis, state.alpha);
    if (input.problem) {
      hideOthers(model.meta.name);
      say(input.problem + (el("report").hidden ? "" : " The maps below are still the last sentence's."), "error");
      doc.body.dataset.state = "error";
      return loop(model);
    }
    const t0 = performance.now();
    doc.body.dataset.state = "computing";
    // a key's maps are painted from what computes them first (paintMaps), its page from the whole run
    return compute(model, input, typing ? out => paintMaps(model, input, mine, out) : null).then(tv => {
      performance.mark("disan:computed");
      mapsWhenIdle(model, input);
      doc.body.dataset.runMs = (performance.now() - t0).toFixed(2); // the model alone (onnxruntime-web)
      if (pending !== null && pending !== mine) return loop(model);
      delete doc.body.dataset.start;
      startShown = null;
      const wasTyping = typing;
      typing = false;
      return draw(tv, wasTyping).then(() => { // the run was the worker's: the page's thread only draws
        shownFor(model.meta.name);
        drawnSay();
        doc.body.dataset.computeMs = (performance.now() - t0).toFixed(2);
        markDrawn(mine);
        return loop(model);
      });
    });
  }).catch(err => {
    console.error(err);
    // the stored run's maps are on screen and right: what failed is the model, which other sentences need
    say(startShown === state.model ? "The model did not load: " + String(why(err)).replace(/\.?$/, ".") +
      " The maps show this sentence as computed when the folder was built." : "This sentence could not be computed: " + why(err), "error");
    doc.body.dataset.state = "error";
  }).then(() => { running = null; });
  return running;
}

/* The report on screen is `model`'s (the sentence or the pair view drew it). */
export function shownFor(model) {
  el("report").dataset.model = model;
  el("report").hidden = el("page-header").hidden = false;
  el("report").classList.remove("stale");
}

/* An input error under `model`: a report of another model must not stand under its name (it is hidden until the
 * next draw); one of this model stays, the last sentence it computed, dimmed (site.css `.stale`): beside a refused
 * input it read as that input's maps. */
export function hideOthers(model) {
  const other = el("report").dataset.model !== model;
  el("report").hidden = el("page-header").hidden = other;
  el("report").classList.toggle("stale", !other);
}

/* The trace view's sections (sections.js), drawn by report.js, which keeps the figures and controls across sentences.
 * `hidden`: drawn with the report hidden (warmPage); the next page shows it (report.js). */
function draw(tv, typed, hidden = false) {
  const page = Sections.page(tv);
  if (!hidden) doc.title = page.title + " — attention explorer";
  return Report.show(el("report"), page, {
    header: el("page-header"), values: { alpha: state.alpha, feature: state.feature }, hash: false,
    typing: typed === true, provenance: modelMeta(state.model).provenance, hidden,
  }).then(() => { if (!hidden && Report.values(el("report")).talk !== state.talk) Report.setTalk(doc, state.talk); });
}

/* The address follows report.js's α, feature k and talk mode; a let-go α runs the model again (report.js redraws the
 * maps from the scores, Im Eq. 7, while it moves). */
function followReport() {
  const sync = ev => {
    const v = Report.values(el("report")), changed = ["alpha", "feature", "talk"].filter(k => v[k] !== undefined && v[k] !== null && v[k] !== state[k]);
    changed.forEach(k => { state[k] = v[k]; });
    if (changed.length) writeHash();
    if (ev.type === "change" && ev.target.dataset && ev.target.dataset.control === "alpha") update();
  };
  // after report.js's own listeners have taken the new value (they may be bound after these)
  const later = ev => setTimeout(() => sync(ev), 0);
  for (const [target, type] of [[el("report"), "input"], [el("report"), "change"], [doc, "keyup"], [doc, "click"]]) target.addEventListener(type, later);
}

/* The header stays on screen while it takes at most a third of the window; a taller one (the pair view's on a
 * laptop's 720 px) scrolls away with the page, or the maps below it would never fit on screen. */
const STICKY_SHARE = 1 / 3;

function fitHeader() {
  const header = el("site-header"), fit = () => doc.body.classList.toggle("header-scrolls",
    header.offsetHeight > STICKY_SHARE * window.innerHeight);
  new ResizeObserver(fit).observe(header);
  window.addEventListener("resize", fit);
}

function bind() {
  fitHeader();
  const edited = patch => { set(patch); update(); };
  el("model").addEventListener("change", () => {
    const meta = modelMeta(el("model").value);
    say("Loading " + meta.name + "…", "note");
    edited({ model: meta.name, alpha: meta.alpha ?? null, feature: 0 });
  });
  // a key in either sentence box: its sentence runs as typing, the address follows once typing rests
  for (const id of ["text", "hypothesis"]) {
    el(id).addEventListener("input", () => {
      state[id] = el(id).value.slice(0, DATA.limits.max_chars);
      linkNote = "";
      update(true);
      writeHashSoon();
    });
  }
  el("preset").addEventListener("change", () => {
    const p = DATA.presets[+el("preset").value];
    el("preset").value = "";
    if (p) edited({ text: p.text, hypothesis: p.hypothesis });
  });
  window.addEventListener("hashchange", () => {
    // a section's own address (an old link, a typed #id) names no state: the page keeps its own
    if (/^#[\w-]+$/.test(location.hash) && doc.getElementById(location.hash.slice(1))) { writeHash(); return; }
    applyHash();
    update();
  });
}

/* Start onnxruntime and the linked model at once, then boot; on the folder's own sentence the stored run is drawn
 * first, and the model starts after it (it would take the cores the maps need, and was ready no sooner for it). */
function preload() {
  DATA = window.DisanSiteData;
  if (!DATA) { doc.body.textContent = "assets/site-data.js is missing; rebuild this folder with python -m viz_app site."; return Promise.resolve(); }
  if (typeof DecompressionStream === "undefined") {
    say("This browser cannot unpack the model (no DecompressionStream); open the page in a current Chrome, Edge, Firefox or Safari.", "error");
    return Promise.resolve();
  }
  const h = readHash(), meta = modelMeta(h.model) || modelMeta(DATA.default_model);
  // on the folder's own sentence the stored run is drawn before the model loads (drawStart); on a link's, it is
  // drawn hidden while the model starts (warmPage)
  if (!opensOnStart(h, meta)) loadModel(meta.name).catch(() => {}); // boot's update() shows the failure
  if (meta.start) return loadScript((DATA.base || "") + meta.start).catch(err => console.warn(err.message)).then(boot);
  return boot();
}

function boot() {
  init(DATA.base);
  options(el("model"), DATA.models.map(m => [m.name, m.name + " — " + m.title]));
  options(el("preset"), DATA.presets.map((p, i) => [String(i), p.label]), 1);
  applyHash(true);
  bind();
  followReport();
  writeHash();
  return update();
}

/* The page's data and tokenizer without its controls: all `traceOf` needs (the app's Explore: the folder at `base`). */
function init(base) {
  DATA = window.DisanSiteData;
  if (!DATA) throw new Error("site-data.js is not loaded");
  DATA.base = base || "";
  tokenize = Tokenize.create(DATA.tokenizer);
  Figures.configure(DATA.figures);
}

/* The trace view of any input, computed but not drawn (tests, the app's Explore, the pair view), or {problem}. */
function traceOf(name, text, hypothesis, alpha, names) {
  return loadModel(name).then(model => {
    const input = prepare(model, text, hypothesis || "", alpha === undefined ? model.meta.alpha : alpha, names);
    return input.problem ? { problem: input.problem } : compute(model, input);
  });
}

/* The helper gets `model`'s lean graph (the build's "probs": the class probabilities alone, by sentence for an NLI
 * model) in a task of its own (the copy takes a few ms); a helper that cannot start leaves leave-one-out to the
 * page's worker. */
function startHelper(model) {
  const key = "lean:" + model.name;
  return extra(key, h => nextTask().then(() => {
    if (extras[key] !== h) return null;
    holdInHelper(model.name);
    const lean = model.files.cuts.probs ? partsOf(model, "probs").then(parts => ({ parts })) : graphOf(model, "probs").then(onnx => ({ onnx }));
    return lean.then(g => call({ type: "session", name: key, weights: model.weights, only: model.name, ...g }, [], 1));
  }), "leave-one-out runs in the page's worker alone: its helper did not start");
}

/* The model as pair.js uses it: prepare, probs (class probabilities alone), probsMany (several inputs in lane 0, the
 * whole graph, or lane 1, the helper's lean graph: the same numbers), lanes() ready, table() the word table. */
function runner(name) {
  return loadModel(name).then(model => {
    const meta = model.meta, prediction = meta.outputs.prediction;
    const probsMany = (inputs, alpha, i) => {
      // the helper may hold another model's graph by now (a model picked meanwhile): then the page's worker runs them
      const lean = i === 1 && extras["lean:" + name] && extras["lean:" + name].ready;
      return call({ type: "runs", name: lean ? "lean:" + name : name, feeds: inputs.map(x => feedsOf(model, x[0], x[1], alpha)),
                    fetches: [prediction] }, [], lean ? 1 : 0).then(outs => outs.map(out => out[prediction].data));
    };
    return {
      meta, words: model.vocab.words, unk: model.vocab.unk, pad: model.vocab.pad, index: model.index, probsMany,
      prepare: (text, hypothesis, alpha) => prepare(model, text, hypothesis || "", alpha ?? meta.alpha),
      probs: (premise, hypothesis, alpha) => probsMany([[premise, hypothesis]], alpha, 0).then(ps => ps[0]),
      lanes: () => startHelper(model).ready ? 2 : 1,
      table: () => model.table || (model.table = Pair.embeddingTable(model.weights, model.files.table)),
    };
  });
}

/* The modes' edits of the state, shown and written to the address (`typed`: once typing rests). */
function set(patch, typed) {
  Object.assign(state, patch);
  linkNote = "";
  showState();
  if (typed) writeHashSoon(); else writeHash();
}

/* The Pair and Search modes, plugged in by entry_site.js (the app's Explore runs the model without them). */
const use = (pair, search) => { [pairView, searchView] = [pair, search]; };
/* Whether this page has the Search mode (the static explorer; the app's Explore folder has none). */
export const searchable = () => searchView !== null;
const currentState = () => Object.assign({}, state);

export { init, preload, boot, currentState as state, update, traceOf, runner, set, use };
