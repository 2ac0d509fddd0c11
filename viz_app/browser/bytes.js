/* Bytes the pages carry as text: base64 (the app's packed trace views) and
 * gzip + base64 (report.py `_packed`, the static explorer's model, wasm and vocabulary files). One copy, imported
 * by the page's modules and by the model's worker (worker.js). */

/** base64 text → bytes: the browser's own decoder where it has one (Chrome 140, Firefox 133, Safari 18.2); for
 * 8 MB of text, 10 ms against 33 ms for atob and a copy loop (headless Chromium 156, this machine).
 * @param {string} text
 * @returns {Uint8Array<ArrayBuffer>} */
export function fromBase64(text) {
  const U8 = /** @type {any} */ (Uint8Array);
  if (U8.fromBase64) return U8.fromBase64(text);
  const bin = atob(text), bytes = new Uint8Array(bin.length);
  for (let i = 0; i < bin.length; i++) bytes[i] = bin.charCodeAt(i);
  return bytes;
}

/** gzip + base64 text → bytes, with the browser's own DecompressionStream.
 * @param {string} text
 * @returns {Promise<Uint8Array<ArrayBuffer>>} */
export function inflate(text) {
  const stream = new Blob([fromBase64(text)]).stream().pipeThrough(new DecompressionStream("gzip"));
  return new Response(stream).arrayBuffer().then(buffer => new Uint8Array(buffer));
}
