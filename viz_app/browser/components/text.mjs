/* Text on a figure: fonts, titles, token labels along an axis that never overlap, numbers (d3-format). Labels are
 * clipped to a pixel width (with "…"), then drawn flat when every one fits its band, at 45° when a line of text
 * fits √2 bands, else at 90°; when even that is too tight only every `step`-th token is labelled. Rotated labels
 * end at their tick, so two neighbours are a line's height apart measured across the text
 * (tests/js/components/text.test.mjs checks the boxes). A cell shows its number only where the text fits with a
 * margin on every side, so numbers never overlap each other or a cell border. */
import { format, precisionFixed } from "d3-format";

export const INK = "#2a3f5f";  // Plotly's default text colour
export const PAD = 8, TICK_PAD = 6;
const GAP = 2, CELL_PAD = 2, TICK_LABEL_MAX = 24;  // figures.py TICK_LABEL_MAX: characters of a token label
export const formatCell = format(".2f");   // in cells and on bars: 0.42, 1.00, −0.17
export const formatValue = format(".6~g"); // in hover text and announcements: f"{x:.6g}" as figures.js writes it
export const cellFontSize = (theme) => Math.max(9, theme.font_size - 3);  // figures.js heat(): font_size − 3

export const fonts = (theme, size = theme.font_size) =>
  ({ size, tick: Math.max(10, size - 2), title: Math.round(size * 1.25), cell: cellFontSize(theme), line: Math.ceil(size * 1.3) });

/* Whether text `textWidth` wide and `fontSize` tall fits a cell of cellWidth × cellHeight pixels. */
export const cellTextFits = (textWidth, fontSize, cellWidth, cellHeight) =>
  textWidth + 2 * CELL_PAD <= cellWidth && fontSize + 2 * CELL_PAD <= cellHeight;

/* A value as hover text shows it: a masked cell's value (an attention weight's exact 0) or −∞ (a mask's, which
 * JSON carries as null) marked "(masked)", "no value" for a missing one. */
export function valueText(v, masked) {
  if (masked) return `${typeof v === "number" && Number.isFinite(v) ? formatValue(v) : "−∞"} (masked)`;
  if (v === null || v === undefined || Number.isNaN(v)) return "no value";
  return Number.isFinite(v) ? formatValue(v) : v > 0 ? "∞" : "−∞";
}

/* [value, text] of an axis' ticks, all with the decimals their spacing needs. */
export const tickTexts = (ticks, fmt = format(`.${ticks.length > 1 ? precisionFixed(ticks[1] - ticks[0]) : 2}f`)) =>
  ticks.map((v) => [v, fmt(v)]);

/* Code points of `text` that fit `maxWidth` pixels as measured by `measure`, "…" marking a cut. */
export function clipToWidth(text, maxWidth, measure, maxChars = Infinity) {
  let chars = Array.from(String(text));
  if (chars.length > maxChars) chars = chars.slice(0, maxChars - 1).concat("…");
  if (measure(chars.join("")) <= maxWidth) return chars.join("");
  let lo = 0, hi = chars.length;  // the longest prefix whose "prefix…" fits
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (measure(chars.slice(0, mid).join("") + "…") <= maxWidth) lo = mid; else hi = mid - 1;
  }
  return lo === 0 ? "" : chars.slice(0, lo).join("") + "…";
}

/* Token labels clipped to min(160, maxWidth) pixels and 24 characters, with their widths. */
export function clipLabels(tokens, maxWidth, size, measure) {
  const labels = tokens.map((t) => clipToWidth(t, Math.min(160, maxWidth), (s) => measure(s, size), TICK_LABEL_MAX));
  return [labels, labels.map((s) => measure(s, size))];
}

const every = (n, step) => Array.from({ length: Math.ceil(n / step) }, (_, k) => k * step);

/* Labels for a horizontal axis (under the columns): {angle (0, 45 or 90), step, indices, extent (pixels the
 * labels reach from the axis)}. widths[i] is label i's width, lineHeight one text line's. */
export function fitXTicks(widths, band, lineHeight) {
  const n = widths.length;
  if (n === 0) return { angle: 0, step: 1, indices: [], extent: 0 };
  const [step, angle] = Math.max(...widths) + GAP <= band ? [1, 0] : Math.SQRT2 * (lineHeight + GAP) <= band ? [1, 45]
    : [Math.max(1, Math.ceil((lineHeight + GAP) / band)), 90];
  const indices = every(n, step), widest = Math.max(0, ...indices.map((i) => widths[i])), rad = (angle * Math.PI) / 180;
  return { angle, step, indices, extent: angle === 0 ? lineHeight : widest * Math.sin(rad) + lineHeight * Math.cos(rad) };
}

/* Labels for a vertical axis (beside the rows), always flat: one line per band or every step-th row. */
export function fitYTicks(widths, band, lineHeight) {
  if (widths.length === 0) return { angle: 0, step: 1, indices: [], extent: 0 };
  const step = Math.max(1, Math.ceil((lineHeight + GAP) / band)), indices = every(widths.length, step);
  return { angle: 0, step, indices, extent: Math.max(0, ...indices.map((i) => widths[i])) };
}

/* Where the title and the axis titles go, around a plot {x, y, w, h}; `top` is where the plot may start. */
export const titleRoom = (title, f) => PAD + (title ? Math.ceil(f.title * 1.4) : 0) + PAD;
export const axisRoom = (label, f) => (label ? f.line + 4 : 0);
export function titles({ title, xLabel, yLabel }, f, plot, height) {
  return {
    title: title ? { text: title, x: PAD, y: PAD + f.title * 0.7 } : null,
    xLabel: xLabel ? { text: xLabel, x: plot.x + plot.w / 2, y: height - PAD - f.line / 2 } : null,
    yLabel: yLabel ? { text: yLabel, x: PAD + f.line / 2, y: plot.y + plot.h / 2 } : null,
  };
}

/* A frame's background and titles (L from `titles`), and its category labels: row labels left of the plot
 * (`rows`), column labels under it (flat, 45° or 90°), label i in the middle of band i. */
export function paintTitles(p, L) {
  p.rect(0, 0, L.width, L.height, "#ffffff");
  if (L.title) p.text(L.title.text, L.title.x, L.title.y, { size: L.f.title, fill: INK });
  if (L.xLabel) p.text(L.xLabel.text, L.xLabel.x, L.xLabel.y, { size: L.f.size, fill: INK, align: "center" });
  if (L.yLabel) p.text(L.yLabel.text, L.yLabel.x, L.yLabel.y, { size: L.f.size, fill: INK, align: "center", angle: 90 });
}
export function paintLabels(p, L, labels, ticks, band, rows) {
  const { angle } = ticks, o = { size: L.f.tick, fill: INK }, y = L.plot.y + L.plot.h + TICK_PAD;
  for (const i of ticks.indices) {
    if (rows) p.text(labels[i], L.plot.x - TICK_PAD, L.plot.y + (i + 0.5) * band, { ...o, align: "right" });
    else p.text(labels[i], L.plot.x + (i + 0.5) * band, y, angle === 0 ? { ...o, align: "center", baseline: "top" }
      : { ...o, align: "right", baseline: angle === 90 ? "middle" : "top", angle });
  }
}
