// viz_app/browser/pair.js on literal inputs (moved from tests/test_pair_js.py's JS-in-Python jobs); the tests
// against Python's references (alignment, the exported table, numpy's cosine ranking) stay in test_pair_js.py.
import assert from "node:assert/strict";
import { test } from "node:test";

import { align, distance, embeddingTable, nearest, swapEffects } from "../../viz_app/browser/pair.js";

/** A table as embeddingTable returns it, from rows × dim values. */
function table(values, rows, dim) {
  const norms = Float64Array.from({ length: rows }, (_, r) => Math.hypot(...values.slice(r * dim, (r + 1) * dim)));
  return { rows, dim, values: Float32Array.from(values), norms };
}

test("align refuses what is not two token lists, in one line", () => {
  assert.throws(() => align(/** @type {any} */ ("a b"), ["a"]), /two token arrays/);
});

test("align gives a replace for a changed word, and distance counts the edits", () => {
  const ops = align(["the", "film", "is", "good"], ["the", "film", "was", "good", "!"]);
  assert.deepEqual(ops.map(o => o.op), ["keep", "keep", "replace", "keep", "insert"]);
  assert.equal(distance(ops), 2);
});

test("nearest breaks ties by id and refuses bad ids in one line", () => {
  // rows 1 and 4 point as row 0 does; row 3 is zero
  const t = table([1, 0, 0, 2, 0, 0, 0, 1, 0, 0, 0, 0, 3, 0, 0], 5, 3);
  const best = nearest(t, 0, 3, []);
  assert.deepEqual(best.map(n => n.id), [1, 4, 2]);
  assert.equal(best[0].cosine, 1);
  assert.equal(best[2].cosine, 0);
  assert.deepEqual(nearest(t, 0, 1, [1]).map(n => n.id), [4]);
  assert.deepEqual(nearest(t, 3, 2, []), []);
  assert.throws(() => nearest(t, 5, 2, []), /word id 5 is outside the table.s 0 to 4/);
  assert.throws(() => nearest(t, 0, -1, []), /k = -1/);
});

test("the word table is read at its offset in the weights; weights cut short are one line naming the fix", () => {
  // float32 rows [1, 2] and [3, 4] after 4 bytes of another weight; float16 1.5 and -2 at offset 2
  const bytes = new Uint8Array(20), view = new DataView(bytes.buffer);
  [1, 2, 3, 4].forEach((v, i) => view.setFloat32(4 + 4 * i, v, true));
  const t = embeddingTable(bytes, { offset: 4, rows: 2, dim: 2, type: "float32" });
  assert.deepEqual(Array.from(t.values), [1, 2, 3, 4]);
  assert.deepEqual(Array.from(t.norms), [Math.hypot(1, 2), 5]);
  view.setUint16(2, 0x3e00, true);
  view.setUint16(4, 0xc000, true);
  assert.deepEqual(Array.from(embeddingTable(bytes, { offset: 2, rows: 1, dim: 2, type: "float16" }).values), [1.5, -2]);
  assert.throws(() => embeddingTable(bytes, { offset: 8, rows: 2, dim: 2, type: "float32" }),
                e => /runs past the model's weights/.test(e.message) && /python -m viz_app site/.test(e.message));
});

/** A model of two classes whose p(class 1) is the sum of the ids' weights (clipped): a runner as Site.runner gives. */
function fakeRunner(weight) {
  const probs = (ids) => { const p1 = Math.min(1, Math.max(0, ids.reduce((s, id) => s + weight[id], 0))); return [1 - p1, p1]; };
  let messages = 0;
  return {
    unk: 0, lanes: () => 2,
    probs: (premise) => Promise.resolve(probs(premise)),
    probsMany: (inputs) => { messages += 1; return Promise.resolve(inputs.map(x => probs(x[0]))); },
    messages: () => messages,
  };
}

test("swapEffects ranks the candidates by how much each changes the prediction, and flags a flip", async () => {
  // ids 1..6 (weights exact in binary); the sentence [1, 2, 3] has p(1) = 0.375 + 0.25 + 0.125 = 0.75, class 1
  const weight = [0, 0.375, 0.25, 0.125, -0.5, 0.375, 0.0625];
  const r = fakeRunner(weight);
  const input = { premise: { ids: [1, 2, 3] }, alpha: 0 };
  const res = await swapEffects(r, input, { side: "premise", index: 1, ids: [5, 4, 6, 3] });
  // token 1 (0.25) swapped for 5 (+0.125), 4 (−0.75: p(1) = 0, class 0), 6 (−0.1875), 3 (−0.125)
  assert.equal(res.target, 1);
  assert.equal(res.label, 1);
  assert.equal(res.value, 0.75);
  assert.deepEqual(res.ranked.map(x => x.id), [4, 6, 5, 3]);  // |Δ| 0.75, 0.1875, then 0.125 twice (the nearer first)
  assert.deepEqual(res.ranked.map(x => x.change), [-0.75, -0.1875, 0.125, -0.125]);
  assert.ok(res.ranked[0].flips && res.ranked[0].label === 0);
  assert.deepEqual(res.ranked.slice(1).map(x => x.flips), [false, false, false]);
  assert.ok(r.messages() >= 2);  // two per message (CHUNK), in lanes
  // stale before the first message: stopped, null
  assert.equal(await swapEffects(r, input, { side: "premise", index: 1, ids: [5, 4], stale: () => true }), null);
  assert.throws(() => swapEffects(r, input, { side: "premise", index: 3, ids: [5] }), /token 3 is outside the premise.s 0 to 2/);
  assert.throws(() => swapEffects(r, input, { side: "hypothesis", index: 0, ids: [5] }), /needs an input with a hypothesis/);
});
