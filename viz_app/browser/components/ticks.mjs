/* Token tick labels along a category axis that never overlap.
 *
 * Each token owns a band of `band` pixels. Labels are clipped to a pixel width (with "…"), then drawn flat
 * when every one fits its band, at 45° when a line of text fits √2 bands, else at 90°; when even that is too
 * tight only every `step`-th token is labelled. Rotated labels end at their tick, so two neighbours are a
 * line's height apart measured across the text. tests/js/components/ticks.test.mjs checks the boxes. */

const GAP = 2;  // pixels kept free between two labels

/* Code points of `text` that fit `maxWidth` pixels as measured by `measure`, "…" marking a cut. */
export function clipToWidth(text, maxWidth, measure, maxChars = Infinity) {
  let chars = Array.from(String(text));
  if (chars.length > maxChars) chars = chars.slice(0, maxChars - 1).concat("…");
  let out = chars.join("");
  if (measure(out) <= maxWidth) return out;
  let lo = 0, hi = chars.length;  // the longest prefix whose "prefix…" fits
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (measure(chars.slice(0, mid).join("") + "…") <= maxWidth) lo = mid; else hi = mid - 1;
  }
  return lo === 0 ? "" : chars.slice(0, lo).join("") + "…";
}

/* Labels for a horizontal axis (x: under the columns): {angle (0, 45 or 90), step, indices, extent (pixels
 * the labels reach from the axis)}. widths[i] is label i's width, lineHeight one text line's. */
export function fitXTicks(widths, band, lineHeight) {
  const n = widths.length;
  if (n === 0) return { angle: 0, step: 1, indices: [], extent: 0 };
  const widest = Math.max(...widths);
  if (widest + GAP <= band) return result(n, 1, 0, widths, lineHeight);
  if (Math.SQRT2 * (lineHeight + GAP) <= band) return result(n, 1, 45, widths, lineHeight);
  return result(n, Math.max(1, Math.ceil((lineHeight + GAP) / band)), 90, widths, lineHeight);
}

/* Labels for a vertical axis (y: beside the rows), always flat: one line per band or every step-th row. */
export function fitYTicks(widths, band, lineHeight) {
  const n = widths.length;
  if (n === 0) return { angle: 0, step: 1, indices: [], extent: 0 };
  const step = Math.max(1, Math.ceil((lineHeight + GAP) / band));
  const indices = every(n, step);
  return { angle: 0, step, indices, extent: Math.max(0, ...indices.map((i) => widths[i])) };
}

function every(n, step) {
  const out = [];
  for (let i = 0; i < n; i += step) out.push(i);
  return out;
}

function result(n, step, angle, widths, lineHeight) {
  const indices = every(n, step);
  const widest = Math.max(0, ...indices.map((i) => widths[i]));
  const rad = (angle * Math.PI) / 180;
  const extent = angle === 0 ? lineHeight : widest * Math.sin(rad) + lineHeight * Math.cos(rad);
  return { angle, step, indices, extent };
}
