// viz_app/browser/recompute.js's pure maths on literal inputs: the masks (disan/masks.py's conventions) and
// Im Eq. 7's distance-masked softmax. The comparisons with the torch core stay in tests/test_recompute_js.py.
import assert from "node:assert/strict";
import { test } from "node:test";

import { directionAllowed, distanceProbs, headMean } from "../../viz_app/browser/recompute.js";

test("directionAllowed: row i attends column j < i (fw), j > i (bw), j != i (diag), every j (none)", () => {
  assert.deepEqual(Array.from(directionAllowed(3, "fw")), [0, 0, 0, 1, 0, 0, 1, 1, 0]);
  assert.deepEqual(Array.from(directionAllowed(3, "bw")), [0, 1, 1, 0, 0, 1, 0, 0, 0]);
  assert.deepEqual(Array.from(directionAllowed(2, "diag")), [0, 1, 1, 0]);
  assert.deepEqual(Array.from(directionAllowed(2, "none")), [1, 1, 1, 1]);
});

test("distanceProbs: each allowed row sums to 1, a row with no allowed key stays exactly 0, α lowers far keys", () => {
  const T = 3, scores = Float32Array.from([0, 1, 2, 3, 4, 5, 6, 7, 8]), allowed = directionAllowed(T, "fw");
  const p = distanceProbs(scores, T, allowed, 0);
  assert.deepEqual(Array.from(p.slice(0, 3)), [0, 0, 0]); // the first token attends nothing going forward
  for (const i of [1, 2]) assert.ok(Math.abs(p[i * T] + p[i * T + 1] + p[i * T + 2] - 1) < 1e-6);
  assert.equal(p[1 * T + 2], 0); // masked cell
  const far = distanceProbs(Float32Array.from([0, 0, 0, 0, 0, 0, 0, 0, 0]), T, allowed, 1);
  assert.ok(far[2 * T + 0] < far[2 * T + 1]); // Im Eq. 7: −α|i − j| favours the nearer key
  assert.ok(Math.abs(far[2 * T + 1] / far[2 * T + 0] - Math.E) < 1e-5);
});

test("headMean averages the heads cell by cell", () => {
  assert.deepEqual(Array.from(headMean(Float32Array.from([0, 1, 2, 3, 4, 5, 6, 7]), 2)), [2, 3, 4, 5]);
});
