import test from "node:test";
import assert from "node:assert/strict";
import { crc32 as zlibCrc32, deflateSync } from "node:zlib";
import { crc32, pngWithText } from "../../../viz_app/browser/components/export.mjs";

/* [keyword, text] of every tEXt chunk of a PNG (a reader apart from the writer under test). */
function pngText(bytes) {
  const view = new DataView(bytes.buffer, bytes.byteOffset), found = [];
  for (let at = 8; at + 12 <= bytes.length;) {
    const len = view.getUint32(at), type = String.fromCharCode(...bytes.subarray(at + 4, at + 8));
    if (type === "tEXt") {
      const data = bytes.subarray(at + 8, at + 8 + len), zero = data.indexOf(0);
      found.push([String.fromCharCode(...data.subarray(0, zero)), String.fromCharCode(...data.subarray(zero + 1))]);
    }
    at += 12 + len;
  }
  return found;
}

function chunk(type, data) {
  const out = Buffer.alloc(12 + data.length);
  out.writeUInt32BE(data.length, 0);
  out.write(type, 4, "latin1");
  data.copy(out, 8);
  out.writeUInt32BE(crc32(out.subarray(4, 8 + data.length)), 8 + data.length);
  return out;
}

/* A 1 × 1 grey PNG. */
function tinyPng() {
  const ihdr = Buffer.from([0, 0, 0, 1, 0, 0, 0, 1, 8, 0, 0, 0, 0]);
  return new Uint8Array(Buffer.concat([Buffer.from([137, 80, 78, 71, 13, 10, 26, 10]), chunk("IHDR", ihdr),
    chunk("IDAT", deflateSync(Buffer.from([0, 128]))), chunk("IEND", Buffer.alloc(0))]));
}

test("crc32 is the PNG one", () => {
  assert.equal(crc32(new TextEncoder().encode("123456789")), 0xcbf43926);
  const bytes = new TextEncoder().encode("naïve 🙂 figure=heatmap:x");
  assert.equal(crc32(bytes), zlibCrc32(bytes));
});

test("text chunks go after IHDR, read back, with their CRCs right", () => {
  const out = pngWithText(tinyPng(), [["Comment", "figure=heatmap:x checkpoint_sha256=ab version=1"], ["Title", "naïve 🙂"]]);
  assert.deepEqual(pngText(out), [["Comment", "figure=heatmap:x checkpoint_sha256=ab version=1"], ["Title", "naïve ?"]]);
  assert.equal(String.fromCharCode(...out.subarray(37, 41)), "tEXt");
  const view = new DataView(out.buffer);
  for (let at = 8; at < out.length;) {
    const len = view.getUint32(at);
    assert.equal(view.getUint32(at + 8 + len), crc32(out.subarray(at + 4, at + 8 + len)));
    at += 12 + len;
  }
  assert.throws(() => pngWithText(new Uint8Array(40), []), /not a PNG/);
});
