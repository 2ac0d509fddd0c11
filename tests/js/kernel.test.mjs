// The fused token2token kernel (viz_app/kernels/token2token.ts, built by scripts/build_kernels.mjs) against a naive
// loop of Shen Eqs. 15-18 and 11 on small literal inputs: f = c·tanh((W1 h_i + b1 + W2 h_j)/c) + M_ji per feature,
// a softmax over the allowed keys i of each query j, s_j = Σ_i P ⊙ h_i and the map's mean over features.
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { test } from "node:test";

import { build, DIST } from "../../scripts/build_kernels.mjs";
import { directionAllowed } from "../../viz_app/browser/recompute.js";
import { loadKernel } from "../../viz_app/kernels/token2token.mjs";

const wasmPath = path.join(DIST, "token2token.wasm");
if (!fs.existsSync(wasmPath)) await build();
const token2token = await loadKernel(fs.readFileSync(wasmPath));
const { instance } = await WebAssembly.instantiate(fs.readFileSync(wasmPath), { env: { abort() {} } });

/** Eqs. 15 and 11 as written, in float64: s (T, D) and the mean over features of P (T, T). */
function naive(kp, qp, v, allowed, T, D, c) {
  const s = new Float64Array(T * D), mean = new Float64Array(T * T);
  for (let j = 0; j < T; j++) {
    for (let d = 0; d < D; d++) {
      const f = [];
      for (let i = 0; i < T; i++) if (allowed[j * T + i]) f.push([i, c * Math.tanh((kp[i * D + d] + qp[j * D + d]) / c)]);
      if (!f.length) continue; // masked_softmax: a query with no allowed key keeps P = 0
      const top = Math.max(...f.map(([, x]) => x)), z = f.reduce((a, [, x]) => a + Math.exp(x - top), 0);
      for (const [i, x] of f) {
        const p = Math.exp(x - top) / z;
        s[j * D + d] += p * v[i * D + d];
        mean[j * T + i] += p / D;
      }
    }
  }
  return { s, mean };
}

const T = 5, D = 3, c = 5;
const kp = Float32Array.from([0.3, -1.2, 2.0, 4.1, 0.0, -0.7, -3.3, 1.1, 0.5, 0.9, -0.2, 6.0, -5.5, 2.2, 0.1]);
const qp = Float32Array.from([1.0, 0.4, -2.5, -0.6, 3.3, 0.2, 0.0, -4.0, 1.7, 2.8, 0.6, -0.9, -1.4, -0.3, 7.5]);
const v = Float32Array.from([1, 2, 3, -1, 0.5, 0, 2.5, -2, 1, 0, 0, 4, -3, 1.5, 0.25]);

function close(got, want, tol, what) {
  assert.equal(got.length, want.length);
  for (let k = 0; k < want.length; k++) {
    assert.ok(Math.abs(got[k] - want[k]) <= tol, `${what}[${k}] = ${got[k]}, want ${want[k]} (tolerance ${tol})`);
  }
}

for (const dir of ["fw", "bw", "none"]) {
  test(`token2token equals Eqs. 15 and 11 under the ${dir} mask (T = 5, D = 3)`, () => {
    const allowed = directionAllowed(T, dir), want = naive(kp, qp, v, allowed, T, D, c);
    const got = token2token(kp, qp, v, allowed, T, D, c);
    close(got.s, want.s, 1e-5, "s");
    close(got.mean, want.mean, 1e-6, "mean");
    for (let j = 0; j < T; j++) {
      const row = Array.from(got.mean.subarray(j * T, (j + 1) * T));
      const any = row.some((_, i) => allowed[j * T + i]);
      // each allowed row of P sums to 1 per feature, so its mean over features sums to 1 too
      if (any) assert.ok(Math.abs(row.reduce((a, b) => a + b, 0) - 1) < 1e-6, `row ${j} sums to 1`);
      for (let i = 0; i < T; i++) if (!allowed[j * T + i]) assert.equal(row[i], 0, `masked cell (${j}, ${i}) is 0`);
    }
  });
}

test("a query with no allowed key gets s = 0 and a zero map row (fw: the first token, bw: the last)", () => {
  for (const [dir, j] of [["fw", 0], ["bw", T - 1]]) {
    const { s, mean } = token2token(kp, qp, v, directionAllowed(T, dir), T, D, c);
    assert.deepEqual(Array.from(s.subarray(j * D, (j + 1) * D)), [0, 0, 0]);
    assert.deepEqual(Array.from(mean.subarray(j * T, (j + 1) * T)), [0, 0, 0, 0, 0]);
  }
  const none = new Uint8Array(T * T);
  const { s, mean } = token2token(kp, qp, v, none, T, D, c);
  assert.ok(s.every((x) => x === 0) && mean.every((x) => x === 0));
});

test("a larger call (D = 30: a block of 24 features, then one at a time, two padding lanes) equals its naive loop", () => {
  const T2 = 9, D2 = 30, n = T2 * D2, f = (k) => Float32Array.from({ length: n }, (_, i) => Math.sin(i * k) * 3);
  const allowed = directionAllowed(T2, "fw"), want = naive(f(1.3), f(0.7), f(2.1), allowed, T2, D2, c);
  const got = token2token(f(1.3), f(0.7), f(2.1), allowed, T2, D2, c);
  close(got.s, want.s, 1e-5, "s");
  close(got.mean, want.mean, 1e-6, "mean");
});

test("the kernel's exp is within 2.5e-7 relative of Math.exp on the range it is used, [-2c, 0]", () => {
  let worst = 0;
  for (let k = 0; k <= 20000; k++) {
    const x = Math.fround(-10 * k / 20000), want = Math.exp(x);
    worst = Math.max(worst, Math.abs(instance.exports.expLane(x) - want) / want);
  }
  assert.ok(worst < 2.5e-7, `worst relative error ${worst}`);
});

test("inputs of the wrong size get one message naming T and D", () => {
  assert.throws(() => token2token(kp, qp, v, directionAllowed(T, "fw"), T, 4, c), /T = 5, D = 4/);
});
