// The token2token kernel (token2token.ts, built by scripts/build_kernels.mjs) behind a plain call: Float32Arrays
// in, Float32Arrays out. A prototype for issue 54 item 6 (scripts/probe_kernel.mjs times it against
// onnxruntime-web); the static explorer's worker runs it for DiSAN parts (viz_app/browser/kernel_part.js).

/** The instantiated kernel; `wasm`: the bytes of dist/token2token.wasm. */
export async function loadKernel(wasm) {
  const { instance } = await WebAssembly.instantiate(wasm, { env: { abort: () => { throw new Error("kernel abort"); } } });
  const k = /** @type {any} */ (instance.exports); // the kernel's functions and memory (token2token.ts)
  let cap = { T: 0, Dp: 0 }, at = null;
  const reserve = (T, Dp) => {
    if (T <= cap.T && Dp <= cap.Dp) return;
    k.release();
    const td = T * Dp * 4, tt = T * T * 4, at16 = (n) => (n + 15) & ~15;
    const sizes = { kp: td, qp: td, v: td, s: td, e: td, mean: tt, mask: at16(T * T), keys: at16(T * 4), inv: at16(Dp * 4) };
    at = {};
    for (const [name, bytes] of Object.entries(sizes)) at[name] = k.reserve(bytes + 16) + 15 & ~15;
    cap = { T, Dp };
  };
  /**
   * One direction's s (T, D) and mean map (T, T), Shen Eqs. 15 and 11 as disan/attention.py `_exported_terms`.
   * keyPart = W1 h + b1, queryPart = W2 h, values: (T, D) row-major; allowed: (T, T) [query, key], nonzero =
   * allowed (Uint8Array or any typed array); c: the tanh's scale (Shen's c).
   */
  return function token2token(keyPart, queryPart, values, allowed, T, D, c) {
    if (!(T >= 1 && D >= 1) || keyPart.length !== T * D || queryPart.length !== T * D || values.length !== T * D
        || allowed.length !== T * T) {
      throw new Error(`token2token: inputs of T = ${T}, D = ${D} need (T, D) parts and values and a (T, T) mask`);
    }
    const Dp = (D + 3) & ~3;
    reserve(T, Dp);
    const mem = k.memory.buffer, f = (p, n) => new Float32Array(mem, p, n);
    for (const [name, src] of [["kp", keyPart], ["qp", queryPart], ["v", values]]) {
      const dst = f(at[name], T * Dp);
      if (Dp === D) dst.set(src);
      else for (let t = 0; t < T; t++) { dst.fill(0, t * Dp, (t + 1) * Dp); dst.set(src.subarray(t * D, (t + 1) * D), t * Dp); }
    }
    const mask = new Uint8Array(mem, at.mask, T * T);
    for (let i = 0; i < T * T; i++) mask[i] = allowed[i] ? 1 : 0;
    k.token2token(T, D, Dp, c, at.kp, at.qp, at.v, at.mask, at.s, at.mean, at.e, at.keys, at.inv);
    const sp = f(at.s, T * Dp), s = new Float32Array(T * D);
    if (Dp === D) s.set(sp);
    else for (let t = 0; t < T; t++) s.set(sp.subarray(t * Dp, t * Dp + D), t * D);
    return { s, mean: f(at.mean, T * T).slice() };
  };
}
