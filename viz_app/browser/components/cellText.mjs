/* Numbers in heatmap cells and values in hover text, formatted with d3-format.
 *
 * A cell shows its value (two decimals, like 1.00) only when the text fits inside the cell with a margin on
 * every side; a number that does not fit is left out, so numbers never overlap each other or a cell border. */
import { format } from "d3-format";

export const formatCell = format(".2f");   // in cells and on bars: 0.42, 1.00, −0.17
export const formatValue = format(".6~g"); // in hover text and announcements: f"{x:.6g}" as figures.js writes it
const PAD = 2;

/* The font size of cell numbers for a theme (figures.js heat(): font_size − 3, at least 9). */
export function cellFontSize(theme) {
  return Math.max(9, theme.font_size - 3);
}

/* Whether text `textWidth` wide and `fontSize` tall fits a cell of cellWidth × cellHeight pixels. */
export function cellTextFits(textWidth, fontSize, cellWidth, cellHeight) {
  return textWidth + 2 * PAD <= cellWidth && fontSize + 2 * PAD <= cellHeight;
}

/* A value as hover text shows it: −∞ for a masked cell, "no value" for a missing one. */
export function valueText(v, masked) {
  if (masked) return "−∞ (masked)";
  if (v === null || v === undefined || Number.isNaN(v)) return "no value";
  if (!Number.isFinite(v)) return v > 0 ? "∞" : "−∞";
  return formatValue(v);
}
