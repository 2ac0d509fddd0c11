/* The text exports of a figure: CSV and JSON of its data and the SVG document around its painted vectors.
 * Each names where it came from first: the figure, the checkpoint's SHA-256 and the project's version,
 * as the caller supplied them ("unknown" where it did not). */
import { xmlText } from "./painter.mjs";

const oneLine = (v) => String(v ?? "unknown").replace(/[\r\n]+/g, " ");

/* {figure, checkpoint_sha256, version} of a figure id ("heatmap:attention") and the caller's provenance. */
export function provenanceOf(figure, provenance) {
  const p = provenance || {};
  return { figure: oneLine(figure), checkpoint_sha256: oneLine(p.checkpointSha256), version: oneLine(p.version) };
}

/* "figure=heatmap:x checkpoint_sha256=… version=…": the first line of a CSV (after "# "), PNG's Comment. */
export function provenanceLine(prov) {
  return `figure=${prov.figure} checkpoint_sha256=${prov.checkpoint_sha256} version=${prov.version}`;
}

/* RFC 4180: a field with a comma, quote or line break is quoted, its quotes doubled. */
export function csvField(v) {
  const s = v === null || v === undefined ? "" : String(v);
  return /[",\r\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
}

const num = (v) => (v === null || v === undefined || Number.isNaN(v) ? "" : String(v));  // full precision, ±Infinity kept

function csv(prov, header, rows) {
  return [`# ${provenanceLine(prov)}`, header.join(","), ...rows.map((r) => r.map(csvField).join(","))].join("\r\n") + "\r\n";
}

/* One line per cell: row, row token, column, column token, value, masked. */
export function heatmapCsv(prov, d) {
  const rows = [];
  d.z.forEach((zr, r) => Array.from(zr).forEach((v, c) => {
    rows.push([r, d.rowTokens[r], c, d.colTokens[c], num(v), Boolean(d.masked && d.masked[r] && d.masked[r][c])]);
  }));
  return csv(prov, ["row", "row_token", "column", "column_token", d.valueName || "value", "masked"], rows);
}

export function barsCsv(prov, d) {
  return csv(prov, ["index", "label", d.valueName || "value"], d.values.map((v, i) => [i, d.labels[i], num(v)]));
}

/* JSON with the provenance first; non-finite numbers become null (JSON has none). */
export function figureJson(prov, data) {
  const clean = (v) => (typeof v === "number" && !Number.isFinite(v) ? null : v);
  const replacer = (key, v) => (ArrayBuffer.isView(v) ? Array.from(/** @type {ArrayLike<number>} */ (/** @type {unknown} */ (v)), clean) : clean(v));
  return JSON.stringify({ provenance: prov, ...data }, replacer, 1) + "\n";
}

/* A standalone SVG document around a painter's body; the provenance in <metadata> and a comment. */
export function svgDocument(prov, width, height, title, body, fontFamily) {
  const comment = provenanceLine(prov).replace(/--/g, "- -");
  return `<?xml version="1.0" encoding="UTF-8"?>\n<!-- ${xmlText(comment)} -->\n` +
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" ` +
    `font-family="${xmlText(fontFamily)}">\n<metadata>${xmlText(JSON.stringify(prov))}</metadata>\n` +
    `<title>${xmlText(title || prov.figure)}</title>\n${body}\n</svg>\n`;
}
