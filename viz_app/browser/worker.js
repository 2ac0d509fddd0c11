/* The model's worker (site.js starts it; docs/front-end.md): onnxruntime-web's sessions of the exported model,
 * answering the page's requests one at a time, in the order they came. A bundle of its own (scripts/build_browser.mjs),
 * which the site's bundle carries as text: a file:// page may not start a worker from a file, so site.js makes
 * the worker from a blob of onnxruntime's classic script (the global `ort`; ort-runtime.js carries its text)
 * followed by this bundle. Inside: the wasm bytes handed over directly, the .mjs loader as a blob URL, one thread
 * (a file:// page has no cross-origin isolation, so no SharedArrayBuffer).
 */
import { fromBase64, inflate } from "./bytes.js";
import { kernelPart } from "./kernel_part.js";

const sessions = {};
let ready = null, queue = Promise.resolve();

const tensors = feeds => Object.fromEntries(Object.entries(feeds).map(([k, f]) => [k, new ort.Tensor(f.type, f.data, f.dims)]));

// outputs are moved to the page, not copied: their buffers go into `buffers`, the transfer list
function plain(out, buffers) {
  return Object.fromEntries(Object.entries(out).map(([k, t]) => {
    buffers.add(t.data.buffer);
    return [k, { type: t.type, dims: t.dims, data: t.data }];
  }));
}

// onnxruntime starts on the init message, which carries its wasm (gzip + base64) and loader. The page posts it
// before plotly.js is run, while its thread is free to pass it on (a message to a worker whose script has
// just loaded goes through the page's thread).
async function start(m) {
  ort.env.wasm.numThreads = 1;
  ort.env.wasm.proxy = false;
  ort.env.wasm.wasmBinary = await inflate(m.wasm);
  ort.env.wasm.wasmPaths = { mjs: URL.createObjectURL(new Blob([m.loader], { type: "text/javascript" })) };
  // onnxruntime compiles its wasm and starts on its first session: the probe's session starts it while the page
  // still unpacks the model, so the model's own session only builds the graph. The probe's run calls every
  // kernel the models run, before V8 first optimises the runtime's dispatch (viz_app/draw/site_probe.py says
  // why: else the model's first runs throw that code away, 0.7 s of a core while typing starts); unoptimised,
  // so that no node is folded away. Should the probe fail, the model's session starts the runtime itself.
  const probe = await ort.InferenceSession.create(fromBase64(m.probe), { executionProviders: ["wasm"], graphOptimizationLevel: "disabled" })
    .catch(() => null);
  if (probe) await probe.run({}).catch(() => null).then(() => probe.release());
}

/* An NLI model's sentence parts (disan/onnx_graphs.py sentences; `sp`: {p, h, head: graphs, outputs, cuts, reads},
 * the build's plan) as one session: each sentence's part runs only when
 * the inputs it reads changed (a key in the premise leaves the hypothesis's outputs as they were), then the
 * head. `whole`, where given, runs instead should a part fail. Outputs it keeps are copied out, since the page
 * receives outputs by transfer. */
const SENTENCES_KEPT = 4; // inputs remembered per sentence: A's and B's of the pair view, leave-one-out's
async function sentenceParts(sp, weights, whole) {
  const [p, h, head] = await Promise.all([sp.p, sp.h, sp.head].map(g => create(g, weights)));
  const made = { p, h, head }, memo = { p: [], h: [] };
  let broken = false;
  async function side(input, k) {
    const id = sp.reads[k].map(n => n + "=" + input[n].data.join(",")).join(";"), hit = memo[k].find(e => e.key === id);
    if (hit) return hit.out;
    const out = await made[k].run(input);
    memo[k] = [{ key: id, out }, ...memo[k]].slice(0, SENTENCES_KEPT);
    return out;
  }
  async function parts(input, fetches) {
    const got = { p: await side(input, "p"), h: await side(input, "h") }, feeds = { ...input };
    for (const k of ["p", "h"]) sp.cuts[k].forEach(c => { feeds[c] = got[k][c]; });
    const out = { ...await made.head.run(feeds) };
    for (const k of ["p", "h"]) {
      for (const o of sp.outputs[k]) out[o] = { type: got[k][o].type, dims: got[k][o].dims, data: got[k][o].data.slice() };
    }
    return fetches ? Object.fromEntries(Object.entries(out).filter(([o]) => fetches.includes(o))) : out;
  }
  return {
    run(input, fetches) {
      if (broken) return whole.run(input, fetches);
      return parts(input, fetches).catch(err => {
        if (!whole) throw err;
        broken = true; // the whole graph from here on
        return whole.run(input, fetches);
      });
    },
    release() {
      Object.values(made).forEach(s => s.release());
      if (whole) whole.release();
    },
  };
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

/* One request: init, session (a graph, or m.parts: an NLI model's graph by sentence), sentences (that graph in
 * place of the model's whole graph, which it keeps should a part fail), run (one input) or runs (several, one
 * after another: [outputs, …]). The page posts init first.
 * @returns {Promise<any>} */
async function handle(m) {
  if (m.type === "init") return { value: await (ready = start(m)).then(() => true) };
  await ready;
  if (m.type === "session") {
    // m.only: the helper keeps one model's sessions at a time (each holds the model's weights); a
    // session's name is "<role>:<model>"
    for (const k of Object.keys(sessions).filter(k => m.only && k.slice(k.indexOf(":") + 1) !== m.only)) {
      sessions[k].release();
      delete sessions[k];
    }
    // m.parts: leave-one-out's graph by sentence (its premise's erasures leave the hypothesis's part as it was); a
    // DiSAN model's forward or backward part by the token2token kernel where it can (kernel_part.js)
    const session = await (m.parts ? sentenceParts(m.parts, m.weights, null)
      : kernelPart(m, create) || create(m.onnx, m.weights));
    if (sessions[m.name]) sessions[m.name].release(); // the parts made again once the helper dropped one
    sessions[m.name] = session;
    return { value: true };
  }
  const session = sessions[m.name];
  if (!session) throw new Error("no session " + m.name + " in the model's worker; reload the page");
  if (m.type === "sentences") {
    sessions[m.name] = await sentenceParts(m.parts, m.weights, session);
    return { value: true };
  }
  const buffers = new Set(), values = [];
  for (const feeds of m.type === "runs" ? m.feeds : [m.feeds]) {
    values.push(plain(await session.run(tensors(feeds), m.fetches || undefined), buffers));
  }
  return { value: m.type === "runs" ? values : values[0], transfer: Array.from(buffers) };
}

self.onmessage = ({ data: m }) => {
  queue = queue.then(() => handle(m)).then(r => self.postMessage({ id: m.id, value: r.value }, { transfer: r.transfer }),
                                           err => self.postMessage({ id: m.id, error: String(err && err.message || err) }));
};
