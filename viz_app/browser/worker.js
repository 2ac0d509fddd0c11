/* The model's worker (site.js starts it; docs/front-end.md): onnxruntime-web's sessions of the exported model,
 * answering the page's requests one at a time, in the order they came. A bundle of its own (scripts/build_browser.mjs),
 * which the site's bundle carries as text: a file:// page may not start a worker from a file, so site.js makes
 * the worker from a blob of onnxruntime's classic script (the global `ort`; ort-runtime.js carries its text)
 * followed by this bundle. Inside: the wasm bytes handed over directly, the .mjs loader as a blob URL, one thread
 * (a file:// page has no cross-origin isolation, so no SharedArrayBuffer).
 */
import { fromBase64, inflate } from "./bytes.js";
import { kernelPart } from "./kernel_part.js";

var ready = null, sessions = {}, queue = Promise.resolve();
function tensors(feeds) {
  var out = {};
  Object.keys(feeds).forEach(function (k) { var f = feeds[k]; out[k] = new ort.Tensor(f.type, f.data, f.dims); });
  return out;
}
// outputs are moved to the page, not copied: their buffers go into `buffers`, the transfer list
function plain(out, buffers) {
  var value = {};
  Object.keys(out).forEach(function (k) {
    value[k] = { type: out[k].type, dims: out[k].dims, data: out[k].data };
    buffers.add(out[k].data.buffer);
  });
  return value;
}
// onnxruntime starts on the init message, which carries its wasm (gzip + base64) and loader. The page posts it
// before plotly.js is run, while its thread is free to pass it on (a message to a worker whose script has
// just loaded goes through the page's thread).
function start(m) {
  return inflate(m.wasm).then(function (wasm) {
    ort.env.wasm.numThreads = 1;
    ort.env.wasm.proxy = false;
    ort.env.wasm.wasmBinary = wasm;
    ort.env.wasm.wasmPaths = { mjs: URL.createObjectURL(new Blob([m.loader], { type: "text/javascript" })) };
  }).then(function () {
    // onnxruntime compiles its wasm and starts on its first session: a one-node graph's session starts it
    // while the page still unpacks the model, so the model's own session only builds the graph. Should the
    // probe fail, the model's session starts the runtime itself.
    return ort.InferenceSession.create(fromBase64(m.probe), { executionProviders: ["wasm"] })
      .then(function (s) { return s.release(); }).catch(function () {});
  });
}
/* An NLI model's sentence parts (disan/onnx_graphs.py sentences; `sp`: {p, h, head: graphs, outputs, cuts, reads},
 * the build's plan) as one session: each sentence's part runs only when
 * the inputs it reads changed (a key in the premise leaves the hypothesis's outputs as they were), then the
 * head. `whole`, where given, runs instead should a part fail. Outputs it keeps are copied out, since the page
 * receives outputs by transfer. */
var SENTENCES_KEPT = 4; // inputs remembered per sentence: A's and B's of the pair view, leave-one-out's
function sentenceSession(sp, made, whole) {
  var memo = { p: [], h: [] }, broken = false;
  function key(input, names) {
    return names.map(function (n) { return n + "=" + input[n].data.join(","); }).join(";");
  }
  function side(input, k) {
    var id = key(input, sp.reads[k]), hit = memo[k].filter(function (e) { return e.key === id; })[0];
    if (hit) return Promise.resolve(hit.out);
    return made[k].run(input).then(function (out) {
      memo[k] = [{ key: id, out: out }].concat(memo[k]).slice(0, SENTENCES_KEPT);
      return out;
    });
  }
  function parts(input, fetches) {
    return side(input, "p").then(function (p) {
      return side(input, "h").then(function (h) {
        var feeds = Object.assign({}, input), got = { p: p, h: h };
        ["p", "h"].forEach(function (k) { sp.cuts[k].forEach(function (c) { feeds[c] = got[k][c]; }); });
        return made.head.run(feeds).then(function (head) {
          var out = Object.assign({}, head);
          ["p", "h"].forEach(function (k) {
            sp.outputs[k].forEach(function (o) { var t = got[k][o]; out[o] = { type: t.type, dims: t.dims, data: t.data.slice() }; });
          });
          if (fetches) Object.keys(out).forEach(function (o) { if (fetches.indexOf(o) < 0) delete out[o]; });
          return out;
        });
      });
    });
  }
  return {
    run: function (input, fetches) {
      if (broken) return whole.run(input, fetches);
      return parts(input, fetches).catch(function (err) {
        if (!whole) throw err;
        broken = true; // the whole graph from here on
        return whole.run(input, fetches);
      });
    },
    release: function () {
      ["p", "h", "head"].forEach(function (k) { made[k].release(); });
      if (whole) whole.release();
    },
  };
}
function sentenceParts(sp, weights, whole) {
  return Promise.all([create(sp.p, weights), create(sp.h, weights), create(sp.head, weights)]).then(function (made) {
    return sentenceSession(sp, { p: made[0], h: made[1], head: made[2] }, whole);
  });
}
// every graph of a model refers to the same weights, ONNX external data (disan/onnx_graphs.py shared_weights)
function create(onnx, weights) {
  // The export stored the graph optimized (disan/onnx_export.py optimize_graph, which says what "all" cost
  // here): "basic" adds its constant folding, which turns the float16 weights into float32 once, and its
  // other basic rewrites. disable_quant_qdq: onnxruntime then folds each
  // DequantizeLinear of an int8-stored weight (the export's int8 head) into a float constant once, instead of
  // dequantizing it on every run
  return ort.InferenceSession.create(onnx, { executionProviders: ["wasm"], graphOptimizationLevel: "basic",
                                             externalData: [{ path: "weights", data: weights }],
                                             extra: { session: { disable_quant_qdq: "1" } } });
}
function handle(m) {
  if (m.type === "init") {
    ready = start(m);
    return ready.then(function () { return { value: true }; });
  }
  if (!ready) throw new Error("the runtime was not started");
  if (m.type === "session") {
    return ready.then(function () {
      // m.only: the helper keeps one model's sessions at a time (each holds the model's weights); a
      // session's name is "<role>:<model>"
      if (m.only) Object.keys(sessions).forEach(function (k) {
        if (k.slice(k.indexOf(":") + 1) !== m.only) { sessions[k].release(); delete sessions[k]; }
      });
      // m.parts: an NLI model's graph by sentence (leave-one-out's: its premise's erasures leave the
      // hypothesis's part as it was)
      // a DiSAN model's forward or backward part by the token2token kernel where it can (kernel_part.js)
      return m.parts ? sentenceParts(m.parts, m.weights, null) : kernelPart(m, create) || create(m.onnx, m.weights);
    }).then(function (session) {
      if (sessions[m.name]) sessions[m.name].release(); // the parts made again once the helper dropped one
      sessions[m.name] = session;
      return { value: true };
    });
  }
  if (m.type === "sentences") {
    // An NLI model's graph by sentence (m.parts), in place of its whole graph (kept should a part fail)
    if (!sessions[m.name] || sessions[m.name].sentences) return { value: false };
    return sentenceParts(m.parts, m.weights, sessions[m.name]).then(function (session) {
      session.sentences = true;
      sessions[m.name] = session;
      return { value: true };
    });
  }
  if (!sessions[m.name]) throw new Error("no session " + m.name + " in the model's worker; reload the page");
  if (m.type === "run") {
    return sessions[m.name].run(tensors(m.feeds), m.fetches || undefined).then(function (out) {
      var buffers = new Set(), value = plain(out, buffers);
      return { value: value, transfer: Array.from(buffers) };
    });
  }
  if (m.type === "runs") { // several inputs, one after another: [outputs, …]
    var values = [], buffers = new Set();
    return m.feeds.reduce(function (done, feeds) {
      return done.then(function () { return sessions[m.name].run(tensors(feeds), m.fetches); })
        .then(function (out) { values.push(plain(out, buffers)); });
    }, Promise.resolve()).then(function () { return { value: values, transfer: Array.from(buffers) }; });
  }
  throw new Error("unknown request " + m.type);
}
self.onmessage = function (e) {
  var m = e.data;
  queue = queue.then(function () { return handle(m); }).then(
    function (r) { self.postMessage({ id: m.id, value: r.value }, r.transfer || []); },
    function (err) { self.postMessage({ id: m.id, error: String(err && err.message || err) }); });
};
