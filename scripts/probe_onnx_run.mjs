// How long onnxruntime-web runs exported site models' graphs at T tokens, as the page's worker runs them (wasm,
// one thread, `basic` optimisation, disable_quant_qdq; viz_app/browser/worker.js), in Node: every round runs
// each graph once, in turn, so a change of load on a shared machine touches them alike. `export_site_model`
// (disan/onnx_export.py) writes NAME.onnx. Usage:
//   node scripts/probe_onnx_run.mjs --tokens 256 --runs 10 A.onnx B.onnx …
// prints min and median ms per graph and the load average before and after.
import fs from "node:fs";
import os from "node:os";
import { createRequire } from "node:module";

const ort = createRequire(import.meta.url)("onnxruntime-web");
const args = process.argv.slice(2), opt = { tokens: 256, runs: 10 }, paths = [];
for (let i = 0; i < args.length; i++) {
  if (args[i] === "--tokens" || args[i] === "--runs") opt[args[i].slice(2)] = Number(args[++i]);
  else paths.push(args[i]);
}
if (!paths.length || !(opt.tokens >= 1) || !(opt.runs >= 1)) {
  console.error("usage: node scripts/probe_onnx_run.mjs [--tokens T] [--runs N] A.onnx [B.onnx …]");
  process.exit(2);
}
ort.env.wasm.numThreads = 1;
console.log(`load average ${os.loadavg()[0].toFixed(1)} at start`);
const graphs = [];
for (const path of paths) {
  const session = await ort.InferenceSession.create(fs.readFileSync(path), {
    executionProviders: ["wasm"], graphOptimizationLevel: "basic", extra: { session: { disable_quant_qdq: "1" } },
  });
  const ids = BigInt64Array.from({ length: opt.tokens }, (_, i) => BigInt(5 + i)), feeds = {};
  for (const name of session.inputNames) {
    if (name.endsWith("ids")) feeds[name] = new ort.Tensor("int64", ids, [1, opt.tokens]);
    if (name === "alpha") feeds[name] = new ort.Tensor("float32", Float32Array.of(1), [1]);
  }
  await session.run(feeds); // the first run allocates
  graphs.push({ path, session, feeds, times: [] });
}
for (let r = 0; r < opt.runs; r++) {
  for (const g of graphs) {
    const start = performance.now();
    await g.session.run(g.feeds);
    g.times.push(performance.now() - start);
  }
}
for (const g of graphs) {
  const t = g.times.slice().sort((a, b) => a - b);
  console.log(`${g.path}: min ${t[0].toFixed(1)} ms, median ${t[t.length >> 1].toFixed(1)} ms (T = ${opt.tokens}, ${opt.runs} runs)`);
}
console.log(`load average ${os.loadavg()[0].toFixed(1)} at end`);
