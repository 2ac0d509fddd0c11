// viz_app/browser/onnx_graph.js's protobuf reading on literal bytes (the cuts of real graphs against onnx's own
// reader stay in tests/test_onnx_parts.py and tests/test_pair_js.py).
import assert from "node:assert/strict";
import { test } from "node:test";

import { eachField, varint } from "../../viz_app/browser/onnx_graph.js";

test("varint reads protobuf's base-128 numbers, past 2^31 exactly", () => {
  assert.deepEqual(varint(Uint8Array.from([0x96, 0x01]), 0, 2), [150, 2]);
  assert.deepEqual(varint(Uint8Array.from([0x80, 0x80, 0x80, 0x80, 0x10]), 0, 5), [2 ** 32, 5]);
});

test("a varint or a field that runs past the end is one line naming the fix", () => {
  assert.throws(() => varint(Uint8Array.from([0x96]), 0, 1), /cut short; rebuild the folder with python -m viz_app site/);
  assert.throws(() => eachField(Uint8Array.from([0x0a, 0x05, 0x01]), 0, 3, () => {}), /cut short/);
});

test("eachField hands over varint and length-delimited fields with their spans", () => {
  // field 1 varint 150; field 2 bytes "ab"
  const bytes = Uint8Array.from([0x08, 0x96, 0x01, 0x12, 0x02, 0x61, 0x62]), seen = [];
  eachField(bytes, 0, bytes.length, (number, wire, value, from, to) => seen.push([number, wire, value, from, to]));
  assert.deepEqual(seen, [[1, 0, 150, undefined, undefined], [2, 2, 2, 5, 7]]);
});
