// One direction of DiSAN's token2token attention (Shen et al. 2018, Eqs. 15, 11, 17-18) in one fused kernel:
// the work of disan/attention.py `_exported_terms` (s and P's mean over features) without the (T, T, D) tensors
// onnxruntime-web streams through memory pass by pass. Built by scripts/build_kernels.mjs (AssemblyScript, 128-bit
// SIMD); called through viz_app/kernels/token2token.mjs, which lays the arrays out in this module's memory.
//
// Per cell the exported form: e = exp(-2c / (e^{2q_j/c} · e^{2k_i/c} + 1)), exp(c·tanh((q_j + k_i)/c)) over e^c,
// which cancels in the softmax (see `_exported_terms`). For each query j the allowed keys are listed once; then,
// feature block by feature block (24 features, six v128), one pass over those keys keeps Z_j and Σ e·v in registers
// and stores e in a (keys, D) scratch row; s_j = Σ e·v / Z_j. A second pass over the scratch row gives
// mean_ji = Σ_d e_jid / Z_jd / D. A row with no allowed key keeps s_j = 0 and a zero map row, as masked_softmax.

// exp(x) for x in [-87, 0] (here x = -2c/x' in [-2c, 0)): x = n·ln2 + r, |r| <= ln2/2, Cephes' degree-6 polynomial
// for e^r (relative error about 1.2e-7 on that range), 2^n built in the exponent bits.
// @ts-ignore: decorator
@inline function exp4(x: v128): v128 {
  x = f32x4.max(x, f32x4.splat(-87.0));
  const n = f32x4.nearest(f32x4.mul(x, f32x4.splat(1.44269504088896341)));
  const scale = i32x4.shl(i32x4.add(i32x4.trunc_sat_f32x4_s(n), i32x4.splat(127)), 23);  // 2^n, n in [-126, 0]
  return f32x4.mul(expReduced(x, n), scale);
}

// e^r for r = x − n·ln2 (ln2 in two parts, Cephes' reduction), the degree-6 polynomial: exp4's and exp4Wide's
// shared part, 2^n left to each.
// @ts-ignore: decorator
@inline function expReduced(x: v128, n: v128): v128 {
  let r = f32x4.sub(x, f32x4.mul(n, f32x4.splat(0.693359375)));
  r = f32x4.sub(r, f32x4.mul(n, f32x4.splat(-2.12194440e-4)));
  let p = f32x4.splat(1.9875691500e-4);
  p = f32x4.add(f32x4.mul(p, r), f32x4.splat(1.3981999507e-3));
  p = f32x4.add(f32x4.mul(p, r), f32x4.splat(8.3334519073e-3));
  p = f32x4.add(f32x4.mul(p, r), f32x4.splat(4.1665795894e-2));
  p = f32x4.add(f32x4.mul(p, r), f32x4.splat(1.6666665459e-1));
  p = f32x4.add(f32x4.mul(p, r), f32x4.splat(5.0000001201e-1));
  return f32x4.add(f32x4.add(f32x4.mul(f32x4.mul(p, r), r), r), f32x4.splat(1.0));
}

/** The scalar exp4 of lane 0, for tests/js/kernel.test.mjs to measure the exp's error against Math.exp. */
export function expLane(x: f32): f32 {
  return f32x4.extract_lane(exp4(f32x4.splat(x)), 0);
}

/** e^{2x/c} over n floats at p, in place (the key and query parts' factors of the exported form). */
function expScaled(p: usize, n: i32, c: f32): void {
  const k = f32x4.splat(<f32>2.0 / c);
  for (let i = 0; i < n; i += 4) {
    const a = p + (<usize>i << 2);
    v128.store(a, exp4Wide(f32x4.mul(v128.load(a), k)));
  }
}

// e^x for x of either sign (the factors e^{2q/c} may exceed 1): the same reduction with 2^n for n in [-126, 127].
// @ts-ignore: decorator
@inline function exp4Wide(x: v128): v128 {
  x = f32x4.min(f32x4.max(x, f32x4.splat(-87.0)), f32x4.splat(88.0));
  const n = f32x4.nearest(f32x4.mul(x, f32x4.splat(1.44269504088896341)));
  const p = expReduced(x, n);
  // 2^n as two halves so that n = 128 (x near 88.7) does not overflow the exponent field
  const h = i32x4.shr_s(i32x4.trunc_sat_f32x4_s(n), 1);
  const m = i32x4.sub(i32x4.trunc_sat_f32x4_s(n), h);
  const ah = i32x4.shl(i32x4.add(h, i32x4.splat(127)), 23), am = i32x4.shl(i32x4.add(m, i32x4.splat(127)), 23);
  return f32x4.mul(f32x4.mul(p, ah), am);
}

/**
 * s (T, Dp) and mean (T, T) of one direction. Every (·, Dp) array is row-major with Dp = D rounded up to 4 and
 * its padding lanes 0. kp = W1 h + b1 (keys), qp = W2 h (queries), v = values: (T, Dp) each, overwritten (kp and qp
 * become their exponential factors). mask: (T, T) bytes, [query, key], 1 = allowed. Scratch: e (T, Dp) floats,
 * keys (T) i32, inv (Dp) floats.
 */
export function token2token(
  T: i32, D: i32, Dp: i32, c: f32,
  kp: usize, qp: usize, v: usize, mask: usize, s: usize, mean: usize, e: usize, keys: usize, inv: usize,
): void {
  expScaled(kp, T * Dp, c);
  expScaled(qp, T * Dp, c);
  const row = <usize>Dp << 2, minus2c = f32x4.splat(<f32>-2.0 * c), one = f32x4.splat(1.0);
  const zero = f32x4.splat(0.0), meanScale = f32x4.splat(<f32>1.0 / <f32>D);
  for (let j = 0; j < T; j++) {
    // the keys this query may attend to (Eqs. 17-18 and padding), listed once for every feature block
    let n = 0;
    const mrow = mask + <usize>j * <usize>T;
    for (let i = 0; i < T; i++) {
      if (load<u8>(mrow + <usize>i) != 0) {
        store<i32>(keys + (<usize>n << 2), i);
        n++;
      }
    }
    const sj = s + <usize>j * row, qj = qp + <usize>j * row, mj = mean + (<usize>j * <usize>T << 2);
    memory.fill(mj, 0, <usize>T << 2);
    if (n == 0) {
      memory.fill(sj, 0, row);
      continue;
    }
    // 24 features (six v128) a block: fewer passes over the key list than 8 or 16 and enough independent
    // exps per key to hide their latency (scripts/probe_kernel.mjs; 32 or 40 were no faster, 4 one at a time slower)
    let d = 0;
    for (; d + 24 <= Dp; d += 24) {
      const off = <usize>d << 2, qo = qj + off;
      const q0 = v128.load(qo), q1 = v128.load(qo, 16), q2 = v128.load(qo, 32);
      const q3 = v128.load(qo, 48), q4 = v128.load(qo, 64), q5 = v128.load(qo, 80);
      let z0 = zero, z1 = zero, z2 = zero, z3 = zero, z4 = zero, z5 = zero;
      let a0 = zero, a1 = zero, a2 = zero, a3 = zero, a4 = zero, a5 = zero;
      for (let p = 0; p < n; p++) {
        const i = <usize>load<i32>(keys + (<usize>p << 2));
        const ki = kp + i * row + off, vi = v + i * row + off, ep = e + <usize>p * row + off;
        const e0 = exp4(f32x4.div(minus2c, f32x4.add(f32x4.mul(q0, v128.load(ki, 0)), one)));
        const e1 = exp4(f32x4.div(minus2c, f32x4.add(f32x4.mul(q1, v128.load(ki, 16)), one)));
        const e2 = exp4(f32x4.div(minus2c, f32x4.add(f32x4.mul(q2, v128.load(ki, 32)), one)));
        const e3 = exp4(f32x4.div(minus2c, f32x4.add(f32x4.mul(q3, v128.load(ki, 48)), one)));
        const e4 = exp4(f32x4.div(minus2c, f32x4.add(f32x4.mul(q4, v128.load(ki, 64)), one)));
        const e5 = exp4(f32x4.div(minus2c, f32x4.add(f32x4.mul(q5, v128.load(ki, 80)), one)));
        z0 = f32x4.add(z0, e0);
        z1 = f32x4.add(z1, e1);
        z2 = f32x4.add(z2, e2);
        z3 = f32x4.add(z3, e3);
        z4 = f32x4.add(z4, e4);
        z5 = f32x4.add(z5, e5);
        a0 = f32x4.add(a0, f32x4.mul(e0, v128.load(vi, 0)));
        a1 = f32x4.add(a1, f32x4.mul(e1, v128.load(vi, 16)));
        a2 = f32x4.add(a2, f32x4.mul(e2, v128.load(vi, 32)));
        a3 = f32x4.add(a3, f32x4.mul(e3, v128.load(vi, 48)));
        a4 = f32x4.add(a4, f32x4.mul(e4, v128.load(vi, 64)));
        a5 = f32x4.add(a5, f32x4.mul(e5, v128.load(vi, 80)));
        v128.store(ep, e0, 0);
        v128.store(ep, e1, 16);
        v128.store(ep, e2, 32);
        v128.store(ep, e3, 48);
        v128.store(ep, e4, 64);
        v128.store(ep, e5, 80);
      }
      const i0 = f32x4.div(one, z0);
      const i1 = f32x4.div(one, z1);
      const i2 = f32x4.div(one, z2);
      const i3 = f32x4.div(one, z3);
      const i4 = f32x4.div(one, z4);
      const i5 = f32x4.div(one, z5);
      v128.store(sj + off, f32x4.mul(a0, i0), 0);
      v128.store(sj + off, f32x4.mul(a1, i1), 16);
      v128.store(sj + off, f32x4.mul(a2, i2), 32);
      v128.store(sj + off, f32x4.mul(a3, i3), 48);
      v128.store(sj + off, f32x4.mul(a4, i4), 64);
      v128.store(sj + off, f32x4.mul(a5, i5), 80);
      v128.store(inv + off, f32x4.mul(i0, meanScale), 0);
      v128.store(inv + off, f32x4.mul(i1, meanScale), 16);
      v128.store(inv + off, f32x4.mul(i2, meanScale), 32);
      v128.store(inv + off, f32x4.mul(i3, meanScale), 48);
      v128.store(inv + off, f32x4.mul(i4, meanScale), 64);
      v128.store(inv + off, f32x4.mul(i5, meanScale), 80);
    }
    // the last features, one v128 at a time
    for (; d < Dp; d += 4) {
      const off = <usize>d << 2;
      const q0 = v128.load(qj + off);
      let z0 = zero, a0 = zero;
      for (let p = 0; p < n; p++) {
        const i = <usize>load<i32>(keys + (<usize>p << 2));
        const e0 = exp4(f32x4.div(minus2c, f32x4.add(f32x4.mul(q0, v128.load(kp + i * row + off)), one)));
        z0 = f32x4.add(z0, e0);
        a0 = f32x4.add(a0, f32x4.mul(e0, v128.load(v + i * row + off)));
        v128.store(e + <usize>p * row + off, e0);
      }
      const i0 = f32x4.div(one, z0);
      v128.store(sj + off, f32x4.mul(a0, i0));
      v128.store(inv + off, f32x4.mul(i0, meanScale));
    }
    // padding lanes take no part in the mean over features
    for (let k = D; k < Dp; k++) store<f32>(inv + (<usize>k << 2), 0);
    // the mean map: mean_ji = Σ_d e_jid · (1 / Z_jd) / D over the stored row of e
    for (let p = 0; p < n; p++) {
      const ep = e + <usize>p * row;
      let acc = zero;
      for (let k = 0; k < Dp; k += 4) {
        const off = <usize>k << 2;
        acc = f32x4.add(acc, f32x4.mul(v128.load(ep + off), v128.load(inv + off)));
      }
      const total = f32x4.extract_lane(acc, 0) + f32x4.extract_lane(acc, 1) + f32x4.extract_lane(acc, 2)
        + f32x4.extract_lane(acc, 3);
      store<f32>(mj + (<usize>load<i32>(keys + (<usize>p << 2)) << 2), total);
    }
  }
}

/** Bytes from this module's heap (the stub runtime's bump allocator; memory grows as needed). */
export function reserve(bytes: usize): usize {
  return heap.alloc(bytes);
}

/** Forget every reservation (the next ones start over at the heap's base). */
export function release(): void {
  heap.reset();
}
