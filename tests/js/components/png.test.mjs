import test from "node:test";
import assert from "node:assert/strict";
import { deflateSync } from "node:zlib";
import { crc32, pngText, pngWithText } from "../../../viz_app/browser/components/png.mjs";

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
