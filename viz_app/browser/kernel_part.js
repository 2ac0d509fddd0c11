/* A DiSAN part run as onnxruntime-web → the fused token2token kernel → onnxruntime-web, inside the model's worker
 * (worker.js asks kernelPart for a part's session; docs/token2token-kernel.md). The build (disan/onnx_graphs.py
 * kernel_cut, viz_app/draw/site.py) ships, in the parts' plan, per direction: "front" (the sentence's ids → each
 * token2token block's key part W1 h + b1, query part W2 h, values h and (1, T, T) mask, and the part's outputs
 * that need no block), "after" (the blocks' tensors and s → the part's other outputs), the block's tensor names,
 * Shen's c, and the kernel's wasm (viz_app/kernels/token2token.ts, built by scripts/build_kernels.mjs), all gzip +
 * base64: the page works from file://. In between, the kernel computes each block's s and mean map (Shen Eqs. 15,
 * 11 under the masks of Eqs. 17-18) in place of onnxruntime's passes over (T, T, D) tensors. The session it gives
 * returns exactly the outputs the part returns, so site.js's head and the maps take them as they are.
 * Without WebAssembly SIMD (WebAssembly.validate of a one-function v128 module) or should anything here fail, the
 * part's own graph runs, as before. */
import { inflate } from "./bytes.js";
import { loadKernel } from "../kernels/token2token.mjs";

/** A module whose one function uses v128 (i32.const 0; i8x16.splat; i8x16.popcnt): valid only where the engine has
 * fixed-width SIMD. */
export const SIMD_PROBE = new Uint8Array([0, 97, 115, 109, 1, 0, 0, 0, 1, 5, 1, 96, 0, 1, 123, 3, 2, 1, 0, 10, 10, 1, 8, 0,
                                          65, 0, 253, 15, 253, 98, 11]);

export function simd() {
  try { return typeof WebAssembly === "object" && WebAssembly.validate(SIMD_PROBE); } catch (err) { return false; }
}

/** What the worker did, read by tests and `bench site` from the worker (Playwright's worker.evaluate): whether it
 * found SIMD (null: not asked yet), the parts made with the kernel and the runs by direction, the parts that fell
 * back to their own graph and why. */
const stats = { simd: null, made: [], runs: { fw: 0, bw: 0 }, fallbacks: [] };
/** @type {any} */ (self).disanKernel = stats;

let kernel = null; // Promise<token2token>, made once per worker

/** The session of the part `m` ({name: "fw:<model>" | "bw:<model>", onnx, weights, kernel: the plan's "kernel"}) by
 * the kernel, or null where it does not apply (no plan, another part, no SIMD): the caller makes the part's own.
 * `create(onnx, weights)`: worker.js's session maker. */
export function kernelPart(m, create) {
  const direction = m.name.slice(0, m.name.indexOf(":")), spec = m.kernel && m.kernel[direction];
  if (!spec || !m.kernel.wasm) return null;
  if (!(stats.simd = simd())) {
    stats.fallbacks.push(m.name + ": no WebAssembly SIMD");
    return null;
  }
  kernel = kernel || inflate(m.kernel.wasm).then(loadKernel);
  const graph = name => spec[name] ? inflate(spec[name]).then(onnx => create(onnx, m.weights)) : Promise.resolve(null);
  return Promise.all([kernel, graph("front"), graph("after")]).then(([t2t, front, after]) => {
    stats.made.push(m.name);
    return session(m, direction, spec, t2t, front, after, create);
  }, err => {
    stats.fallbacks.push(m.name + ": " + (err && err.message || err));
    return create(m.onnx, m.weights);
  });
}

const pick = (pool, names) => Object.fromEntries(names.map(n => [n, pool[n]]));

function session(m, direction, spec, t2t, front, after, create) {
  let whole = null; // the part's own graph, made should the kernel's path fail
  function byKernel(feeds) {
    return front.run(pick(feeds, front.inputNames)).then(got => {
      const pool = Object.assign({}, feeds, got);
      for (const b of spec.blocks) {
        const kp = pool[b.key_part], T = kp.dims[1], D = kp.dims[2]; // (1, T, D)
        const out = t2t(kp.data, pool[b.query_part].data, pool[b.values].data, pool[b.allowed].data, T, D, spec.c);
        pool[b.s] = new ort.Tensor("float32", out.s, b.s_rank === 2 ? [T, D] : [1, T, D]);
        pool[b.mean] = new ort.Tensor("float32", out.mean, b.mean_rank === 3 ? [1, T, T] : [T, T]);
      }
      if (!after) return pool;
      return after.run(pick(pool, after.inputNames)).then(rest => Object.assign(pool, rest));
    }).then(pool => {
      stats.runs[direction]++;
      return pick(pool, spec.outputs);
    });
  }
  return {
    kernel: true,
    run(feeds, fetches) {
      const done = whole ? whole.then(s => s.run(feeds)) : byKernel(feeds).catch(err => {
        stats.fallbacks.push(m.name + ": " + (err && err.message || err));
        whole = create(m.onnx, m.weights);
        return whole.then(s => s.run(feeds));
      });
      return done.then(out => fetches ? pick(out, fetches.filter(f => f in out)) : out);
    },
    release() {
      [front, after].forEach(s => s && s.release());
      if (whole) whole.then(s => s.release(), () => {});
    },
  };
}
