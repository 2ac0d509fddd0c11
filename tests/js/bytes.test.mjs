// viz_app/browser/bytes.js: the one base64 and gzip + base64 decoder of the pages and the model's worker.
import assert from "node:assert/strict";
import { test } from "node:test";
import { gzipSync } from "node:zlib";

import { fromBase64, inflate } from "../../viz_app/browser/bytes.js";

const BYTES = Uint8Array.from({ length: 300 }, (_, i) => (i * 37) % 256);

test("fromBase64 gives the bytes back, with and without the platform's own decoder", () => {
  const text = Buffer.from(BYTES).toString("base64");
  assert.deepEqual(fromBase64(text), BYTES);
  const own = /** @type {any} */ (Uint8Array).fromBase64;
  /** @type {any} */ (Uint8Array).fromBase64 = undefined; // the atob path, as in a browser without it
  try {
    assert.deepEqual(fromBase64(text), BYTES);
    assert.deepEqual(fromBase64(""), new Uint8Array(0));
  } finally {
    /** @type {any} */ (Uint8Array).fromBase64 = own;
  }
});

test("inflate unpacks gzip + base64 text as report.py and site.py write it", async () => {
  const text = gzipSync(BYTES, { level: 9 }).toString("base64");
  assert.deepEqual(await inflate(text), BYTES);
});

test("inflate refuses text that is not gzip", async () => {
  await assert.rejects(inflate(Buffer.from("not gzip at all").toString("base64")));
});
