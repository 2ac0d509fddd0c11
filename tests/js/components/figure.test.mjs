import test from "node:test";
import assert from "node:assert/strict";
import { nextCell } from "../../../viz_app/browser/components/figure.mjs";

test("arrow keys move one cell and stop at the edges; Home, End, PageUp, PageDown jump", () => {
  assert.deepEqual(nextCell([0, 0], "ArrowRight", 3, 4), [0, 1]);
  assert.deepEqual(nextCell([0, 0], "ArrowLeft", 3, 4), [0, 0]);
  assert.deepEqual(nextCell([2, 3], "ArrowDown", 3, 4), [2, 3]);
  assert.deepEqual(nextCell([1, 1], "ArrowUp", 3, 4), [0, 1]);
  assert.deepEqual(nextCell([1, 1], "End", 3, 4), [1, 3]);
  assert.deepEqual(nextCell([1, 2], "Home", 3, 4), [1, 0]);
  assert.deepEqual(nextCell([1, 2], "PageDown", 3, 4), [2, 2]);
  assert.deepEqual(nextCell([1, 2], "PageUp", 3, 4), [0, 2]);
  assert.equal(nextCell([1, 2], "a", 3, 4), null);
});
