// viz_app/browser/pair.js on literal inputs (moved from tests/test_pair_js.py's JS-in-Python jobs); the tests
// against Python's references (alignment, onnx's reader, numpy's cosine ranking) stay in test_pair_js.py.
import assert from "node:assert/strict";
import { test } from "node:test";

import { align, distance, embeddingTable, nearest } from "../../viz_app/browser/pair.js";

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

test("a graph without a table, or cut short, is one line naming the fix", () => {
  // a graph holding one odd field; a graph whose length runs past the end
  assert.throws(() => embeddingTable(Uint8Array.from([0x3a, 0x02, 0x08, 0x01])),
                e => /holds no word table/.test(e.message) && /python -m viz_app site/.test(e.message));
  assert.throws(() => embeddingTable(Uint8Array.from([0x3a, 0x09, 0x08])), /cut short/);
});
