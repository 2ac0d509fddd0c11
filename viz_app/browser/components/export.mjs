/* A figure's exports: PNG (its layers painted again at twice the resolution), SVG as vectors (the same painting
 * code on the SVG painter), JSON and CSV of its data. Each names where it came from first: the figure, the
 * checkpoint's SHA-256 and the project's version, as the caller supplied them ("unknown" where it did not). */
import { FONT_FAMILY, canvasPainter, svgPainter, xmlText } from "./painter.mjs";

const MIME = { png: "image/png", svg: "image/svg+xml", json: "application/json", csv: "text/csv" };
export const EXPORT_KINDS = Object.keys(MIME);
const oneLine = (v) => String(v ?? "unknown").replace(/[\r\n]+/g, " ");

/* {figure, model (where the caller names it), checkpoint_sha256, version} of a figure id ("heatmap:attention") and
 * the caller's provenance. */
export function provenanceOf(figure, provenance) {
  const p = provenance || {};
  return { figure: oneLine(figure), ...(p.model ? { model: oneLine(p.model) } : {}),
           checkpoint_sha256: oneLine(p.checkpointSha256), version: oneLine(p.version) };
}

/* "figure=heatmap:x model=… checkpoint_sha256=… version=…": the first line of a CSV (after "# "), PNG's Comment. */
export const provenanceLine = (prov) =>
  `figure=${prov.figure}${prov.model ? ` model=${prov.model}` : ""} checkpoint_sha256=${prov.checkpoint_sha256} version=${prov.version}`;

/* A download's name without its ending: the model's name, then the figure's, so that the exports of two models
 * of one figure do not take each other's name ("disan-sst5_heatmap_mean-premise_forward"). */
export const fileStem = (id, provenance) => [provenance?.model, id].filter(Boolean).join("_").replace(/[^\w.-]+/g, "_");

/* RFC 4180: a field with a comma, quote or line break is quoted, its quotes doubled. */
export function csvField(v) {
  const s = v === null || v === undefined ? "" : String(v);
  return /[",\r\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
}

const num = (v) => (v === null || v === undefined || Number.isNaN(v) ? "" : String(v));  // full precision, ±Infinity kept
const csv = (prov, header, rows) =>
  [`# ${provenanceLine(prov)}`, header.join(","), ...rows.map((r) => r.map(csvField).join(","))].join("\r\n") + "\r\n";

/* One line per cell: row, row token, column, column token, value, masked (true/false where the view marks masked
 * cells, a mask's −∞; empty where it marks none: an attention map's excluded cells are its zeros, and "false" there
 * read as "this cell was allowed"). */
export function heatmapCsv(prov, d) {
  const rows = Array.from(d.z).flatMap((zr, r) => Array.from(zr, (v, c) => [r, d.rowTokens[r], c, d.colTokens[c], num(v),
    d.masked ? Boolean(d.masked[r]?.[c]) : ""]));
  return csv(prov, ["row", "row_token", "column", "column_token", d.valueName || "value", "masked"], rows);
}

export const barsCsv = (prov, d) => csv(prov, ["index", "label", d.valueName || "value", "masked"],
  d.values.map((v, i) => [i, d.labels[i], num(v), d.masked ? Boolean(d.masked[i]) : ""]));  // masked as heatmapCsv

/* JSON with the provenance first; non-finite numbers become null (JSON has none). */
export function figureJson(prov, data) {
  const clean = (v) => (typeof v === "number" && !Number.isFinite(v) ? null : v);
  const replacer = (key, v) => (ArrayBuffer.isView(v) ? Array.from(/** @type {ArrayLike<number>} */ (/** @type {unknown} */ (v)), clean) : clean(v));
  return JSON.stringify({ provenance: prov, ...data }, replacer, 1) + "\n";
}

/* A standalone SVG document around a painter's body; the provenance in <metadata> and a comment. */
export function svgDocument(prov, width, height, title, body, fontFamily) {
  return `<?xml version="1.0" encoding="UTF-8"?>\n<!-- ${xmlText(provenanceLine(prov).replace(/--/g, "- -"))} -->\n` +
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" ` +
    `font-family="${xmlText(fontFamily)}">\n<metadata>${xmlText(JSON.stringify(prov))}</metadata>\n` +
    `<title>${xmlText(title || prov.figure)}</title>\n${body}\n</svg>\n`;
}

const CRC_TABLE = Uint32Array.from({ length: 256 }, (_, n) => {
  for (let k = 0; k < 8; k++) n = n & 1 ? 0xedb88320 ^ (n >>> 1) : n >>> 1;
  return n >>> 0;
});
export function crc32(bytes) {  // PNG spec, annex D
  let c = 0xffffffff;
  for (const b of bytes) c = CRC_TABLE[(c ^ b) & 0xff] ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

/* The PNG `bytes` with one tEXt chunk (PNG spec 11.3.4.3) per [keyword, text] of `entries` right after IHDR,
 * which must be the first chunk (a canvas writes no text chunk). Text is Latin-1; other characters become "?". */
export function pngWithText(bytes, entries) {
  if (bytes.length < 33 || [137, 80, 78, 71, 13, 10, 26, 10].some((b, i) => bytes[i] !== b)) throw new Error("not a PNG: the signature is missing");
  const latin1 = (s) => Array.from(String(s), (ch) => (ch.codePointAt(0) < 256 ? ch.codePointAt(0) : 63));
  const chunks = entries.map(([key, text]) => {  // length, then type and data, then their CRC
    const data = [...latin1("tEXt"), ...latin1(String(key).slice(0, 79)), 0, ...latin1(text)];
    const out = new Uint8Array(data.length + 8), view = new DataView(out.buffer);
    view.setUint32(0, data.length - 4);
    out.set(data, 4);
    view.setUint32(data.length + 4, crc32(data));
    return out;
  });
  const ihdrEnd = 8 + 12 + new DataView(bytes.buffer, bytes.byteOffset).getUint32(8);
  const parts = [bytes.subarray(0, ihdrEnd), ...chunks, bytes.subarray(ihdrEnd)];
  const out = new Uint8Array(parts.reduce((n, part) => n + part.length, 0));
  parts.reduce((at, part) => (out.set(part, at), at + part.length), 0);
  return out;
}

/* {filename, mime, data (Blob or string)}. fig: {id ("heatmap:x"), provenance, width, height, title,
 * paint(painter) (every layer), measure, data() (JSON fields), csv(prov)}. */
export async function exportFigure(kind, fig) {
  if (!EXPORT_KINDS.includes(kind)) throw new Error(`unknown export ${JSON.stringify(kind)}: use ${EXPORT_KINDS.join(", ")}`);
  const prov = provenanceOf(fig.id, fig.provenance), filename = `${fileStem(fig.id, fig.provenance)}.${kind}`;
  if (kind === "json") return { filename, mime: MIME.json, data: figureJson(prov, fig.data()) };
  if (kind === "csv") return { filename, mime: MIME.csv, data: fig.csv(prov) };
  if (kind === "svg") {
    const p = svgPainter(fig.measure);
    fig.paint(p);
    return { filename, mime: MIME.svg, data: svgDocument(prov, fig.width, fig.height, fig.title, p.body(), FONT_FAMILY) };
  }
  const scale = Math.max(2, window.devicePixelRatio || 1);
  const canvas = new OffscreenCanvas(Math.round(fig.width * scale), Math.round(fig.height * scale)), ctx = canvas.getContext("2d");
  ctx.scale(scale, scale);
  fig.paint(canvasPainter(ctx));
  const bytes = new Uint8Array(await (await canvas.convertToBlob({ type: "image/png" })).arrayBuffer());
  const text = [["Comment", provenanceLine(prov)], ["Software", "DiSAN figure components"]];
  return { filename, mime: MIME.png, data: new Blob([pngWithText(bytes, text)], { type: MIME.png }) };
}

/* Save an export through the browser's download (an <a download> clicked once). */
export function download({ filename, mime, data }) {
  const url = URL.createObjectURL(data instanceof Blob ? data : new Blob([data], { type: mime }));
  Object.assign(document.createElement("a"), { href: url, download: filename }).click();
  setTimeout(() => URL.revokeObjectURL(url), 0);
}
