// The fused token2token kernel (viz_app/kernels/) against onnxruntime-web on the same work: one direction's
// token2token block of disan-sst5 (Shen Eqs. 15, 11, 17-18: s before the fusion gate and the mean map), cut from the
// site export by scripts/kernel_graphs.py, both fed the block inputs that graph's `front.onnx` computes from ids
// 5, 6, … (as scripts/probe_onnx_run.mjs). ORT runs as the page's worker does (wasm, one thread, `basic`,
// disable_quant_qdq). Every round runs ORT then the kernel for each direction, then the graphs around the block
// (the page's whole forward part, what runs before the block, and after it: `after.onnx`, fusion gates,
// source2token, classifier, and its halves), so a change of load on a
// shared machine touches them alike. Usage:
//   python scripts/kernel_graphs.py DIR && node scripts/build_kernels.mjs
//   node scripts/probe_kernel.mjs DIR [--tokens 64,128,256] [--runs 10] [--warmup 3]
// prints min and median ms of each, the kernel's time over ORT's (of the mins, of the medians, and the median of
// each round's ratio), the largest absolute differences of s and of the mean map, and the load average before and
// after each T. `--warmup` rounds run first, untimed: V8 compiles a wasm function with its baseline compiler first
// and optimises it once it is hot, the kernel as onnxruntime's own code.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { createRequire } from "node:module";

import { DIST } from "./build_kernels.mjs";
import { loadKernel } from "../viz_app/kernels/token2token.mjs";

const ort = createRequire(import.meta.url)("onnxruntime-web");
const args = process.argv.slice(2), opt = { tokens: "64,128,256", runs: 10, warmup: 3 };
let dir = null;
for (let i = 0; i < args.length; i++) {
  if (["--tokens", "--runs", "--warmup"].includes(args[i])) opt[args[i].slice(2)] = args[++i];
  else dir = args[i];
}
const tokens = String(opt.tokens).split(",").map(Number), runs = Number(opt.runs), warmup = Number(opt.warmup);
if (!dir || !fs.existsSync(path.join(dir, "graphs.json")) || !tokens.every((t) => t >= 2) || !(runs >= 1) || !(warmup >= 0)) {
  console.error("usage: node scripts/probe_kernel.mjs DIR [--tokens 64,128,256] [--runs N] [--warmup N]  (DIR: python scripts/kernel_graphs.py DIR)");
  process.exit(2);
}
const wasm = path.join(DIST, "token2token.wasm");
if (!fs.existsSync(wasm)) {
  console.error(`${wasm} is missing; run node scripts/build_kernels.mjs`);
  process.exit(2);
}
const spec = JSON.parse(fs.readFileSync(path.join(dir, "graphs.json"), "utf8"));
ort.env.wasm.numThreads = 1;
const options = { executionProviders: ["wasm"], graphOptimizationLevel: "basic", extra: { session: { disable_quant_qdq: "1" } } };
const open = (name) => ort.InferenceSession.create(fs.readFileSync(path.join(dir, `${name}.onnx`)), options);
const sessions = {};
for (const name of ["front", "front_fw", "front_t2t_fw", "part_fw", "after", "gates", "s2t"]) sessions[name] = await open(name);
for (const d of ["fw", "bw"]) sessions[`t2t_${d}`] = await open(`t2t_${d}`);
const kernel = await loadKernel(fs.readFileSync(wasm));
const load = () => os.loadavg().map((x) => x.toFixed(1)).join(" ");
const stats = (t) => { const s = t.slice().sort((a, b) => a - b); return { min: s[0], med: s[s.length >> 1] }; };
const maxAbs = (a, b) => { let m = 0; for (let i = 0; i < a.length; i++) m = Math.max(m, Math.abs(a[i] - b[i])); return m; };
const timed = async (f) => { const t0 = performance.now(); const out = await f(); return [performance.now() - t0, out]; };

{ // the kernel's exp against Math.exp over the range the kernel feeds it, −2c/x for x >= 1: [−2c, 0)
  const { instance } = await WebAssembly.instantiate(fs.readFileSync(wasm), { env: { abort() {} } });
  let rel = 0, abs = 0;
  for (let k = 0; k <= 200000; k++) {
    const x = Math.fround(-2 * spec.c * k / 200000), want = Math.exp(x), got = instance.exports.expLane(x);
    rel = Math.max(rel, Math.abs(got - want) / want);
    abs = Math.max(abs, Math.abs(got - want));
  }
  console.log(`the kernel's exp on [${-2 * spec.c}, 0], 200,001 points: max relative error ${rel.toExponential(1)}, `
    + `max absolute ${abs.toExponential(1)} (float32 rounding alone: 6e-8 relative)`);
}
{ // the first call of a module just instantiated (V8's baseline code, as on a page's first keystroke), at the largest T
  const T = Math.max(...tokens), fresh = await loadKernel(fs.readFileSync(wasm)), n = T * spec.D;
  const x = Float32Array.from({ length: n }, (_, i) => Math.sin(i));
  const m = new Uint8Array(T * T).map((_, i) => (i % T < ((i / T) | 0) ? 1 : 0)); // the forward mask, key < query
  const t0 = performance.now();
  fresh(x, x, x, m, T, spec.D, spec.c);
  const first = performance.now() - t0, t1 = performance.now();
  fresh(x, x, x, m, T, spec.D, spec.c);
  const second = performance.now() - t1;
  console.log(`the kernel's first call after instantiating, T = ${T}: ${first.toFixed(1)} ms; its second ${second.toFixed(1)} ms`);
}
console.log(`disan-sst5 token2token, one direction: onnxruntime-web ${ort.env.versions?.web ?? ""} (wasm, 1 thread) vs `
  + `the kernel (${path.relative(process.cwd(), wasm)}), D = ${spec.D}, c = ${spec.c}, ${runs} interleaved rounds after ${warmup} untimed`);
for (const T of tokens) {
  const loadBefore = load();
  const ids = new ort.Tensor("int64", BigInt64Array.from({ length: T }, (_, i) => BigInt(5 + i)), [1, T]);
  const front = await sessions.front.run({ ids });
  const feeds = {}, kin = {};
  for (const d of ["fw", "bw"]) {
    const b = spec.blocks[d];
    feeds[d] = Object.fromEntries(["key_part", "query_part", "values", "allowed"].map((k) => [b[k], front[b[k]]]));
    kin[d] = ["key_part", "query_part", "values", "allowed"].map((k) => front[b[k]].data);
  }
  const afterFeeds = { ids };
  const times = { ort_fw: [], kernel_fw: [], ort_bw: [], kernel_bw: [], part_fw: [], front_fw: [], front_t2t_fw: [], after: [], gates: [], s2t: [] };
  const diff = {};
  const kernelRun = (d) => kernel(...kin[d], T, spec.D, spec.c);
  for (const d of ["fw", "bw"]) { // first runs allocate; they also give the outputs compared
    const want = await sessions[`t2t_${d}`].run(feeds[d]), got = kernelRun(d), b = spec.blocks[d];
    diff[d] = { s: maxAbs(got.s, want[b.s].data), mean: maxAbs(got.mean, want[b.mean].data) };
    afterFeeds[b.s] = want[b.s];
    afterFeeds[b.values] = front[b.values];
  }
  await sessions.part_fw.run({ ids });
  await sessions.front_fw.run({ ids });
  await sessions.front_t2t_fw.run({ ids });
  const s2tFeeds = { ids, "/encoder/Concat_output_0": (await sessions.gates.run(afterFeeds))["/encoder/Concat_output_0"] };
  await sessions.s2t.run(s2tFeeds);
  await sessions.after.run(afterFeeds);
  for (let r = -warmup; r < runs; r++) {
    const tm = r < 0 ? {} : times, push = (k, ms) => tm[k]?.push(ms);
    for (const d of ["fw", "bw"]) {
      push(`ort_${d}`, (await timed(() => sessions[`t2t_${d}`].run(feeds[d])))[0]);
      push(`kernel_${d}`, (await timed(() => kernelRun(d)))[0]);
    }
    push("part_fw", (await timed(() => sessions.part_fw.run({ ids })))[0]);
    push("front_fw", (await timed(() => sessions.front_fw.run({ ids })))[0]);
    push("front_t2t_fw", (await timed(() => sessions.front_t2t_fw.run({ ids })))[0]);
    push("after", (await timed(() => sessions.after.run(afterFeeds)))[0]);
    push("gates", (await timed(() => sessions.gates.run(afterFeeds)))[0]);
    push("s2t", (await timed(() => sessions.s2t.run(s2tFeeds)))[0]);
  }
  const st = Object.fromEntries(Object.entries(times).map(([k, t]) => [k, stats(t)]));
  const f = (x) => x.toFixed(1).padStart(6);
  console.log(`T = ${T} (load average ${loadBefore} before, ${load()} after):`);
  for (const d of ["fw", "bw"]) {
    const o = st[`ort_${d}`], k = st[`kernel_${d}`];
    // each round's kernel time over the ORT run just before it: a load change between rounds cancels
    const paired = stats(times[`kernel_${d}`].map((ms, r) => ms / times[`ort_${d}`][r])).med;
    console.log(`  ${d}: ORT min ${f(o.min)} median ${f(o.med)} ms | kernel min ${f(k.min)} median ${f(k.med)} ms | `
      + `kernel/ORT ${(100 * k.min / o.min).toFixed(0)}% of min, ${(100 * k.med / o.med).toFixed(0)}% of median, `
      + `${(100 * paired).toFixed(0)}% median of rounds | `
      + `max |Δs| ${diff[d].s.toExponential(1)}, max |Δmean| ${diff[d].mean.toExponential(1)}`);
  }
  const m = (k) => `min ${f(st[k].min)} median ${f(st[k].med)} ms`;
  console.log(`  ORT around the block: the page's whole forward part ${m("part_fw")}; before the forward block `
    + `(ids → its inputs) ${m("front_fw")}; the two in one graph (ids → s, mean) ${m("front_t2t_fw")}`);
  console.log(`  ORT after the blocks: both fusion gates + source2token + classifier ${m("after")} `
    + `(gates alone ${m("gates")}; source2token + classifier ${m("s2t")})`);
}
