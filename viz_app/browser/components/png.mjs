/* Text chunks in a PNG (PNG spec 11.3.4.3, tEXt), so an exported image carries its provenance. A canvas
 * writes no text chunk; this inserts them after IHDR, which must be the first chunk. */

const SIGNATURE = [137, 80, 78, 71, 13, 10, 26, 10];
let table = null;

export function crc32(bytes) {
  if (!table) {
    table = new Uint32Array(256);
    for (let n = 0; n < 256; n++) {
      let c = n;
      for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
      table[n] = c >>> 0;
    }
  }
  let c = 0xffffffff;
  for (const b of bytes) c = table[(c ^ b) & 0xff] ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

/* Latin-1 bytes (tEXt's encoding); a character outside it becomes "?". */
function latin1(s) {
  return Uint8Array.from(Array.from(String(s), (ch) => (ch.codePointAt(0) < 256 ? ch.codePointAt(0) : 63)));
}

function chunk(type, data) {
  const out = new Uint8Array(12 + data.length), view = new DataView(out.buffer);
  view.setUint32(0, data.length);
  out.set(latin1(type), 4);
  out.set(data, 8);
  view.setUint32(8 + data.length, crc32(out.subarray(4, 8 + data.length)));
  return out;
}

/* The PNG `bytes` with one tEXt chunk per [keyword, text] of `entries`, right after IHDR. */
export function pngWithText(bytes, entries) {
  if (bytes.length < 33 || SIGNATURE.some((b, i) => bytes[i] !== b)) throw new Error("not a PNG: the signature is missing");
  const ihdrEnd = 8 + 12 + new DataView(bytes.buffer, bytes.byteOffset).getUint32(8);
  const chunks = entries.map(([key, text]) => {
    const k = latin1(String(key).slice(0, 79)), t = latin1(text), data = new Uint8Array(k.length + 1 + t.length);
    data.set(k, 0);
    data.set(t, k.length + 1);
    return chunk("tEXt", data);
  });
  const size = bytes.length + chunks.reduce((a, c) => a + c.length, 0), out = new Uint8Array(size);
  out.set(bytes.subarray(0, ihdrEnd), 0);
  let at = ihdrEnd;
  for (const c of chunks) { out.set(c, at); at += c.length; }
  out.set(bytes.subarray(ihdrEnd), at);
  return out;
}

/* [keyword, text] of every tEXt chunk of a PNG (for tests and for reading an export back). */
export function pngText(bytes) {
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
