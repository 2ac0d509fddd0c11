/* Where every part of a heatmap goes, from its size, its tokens and how wide their text is.
 *
 * Margins are measured, not guessed: the left one holds the widest row label shown, the bottom one the
 * column labels at the angle ticks.mjs chose for the column width, the right one the colour bar and its
 * numbers. Pure: `measure(text, size, weight)` gives text widths (canvas on screen, a stand-in in tests). */
import { clipToWidth, fitXTicks, fitYTicks } from "./ticks.mjs";
import { cellFontSize } from "./cellText.mjs";

const TICK_LABEL_MAX = 24;  // characters of a token label (viz_app/draw/figures.py TICK_LABEL_MAX)
const PAD = 8, TICK_PAD = 6, BAR_WIDTH = 14, BAR_GAP = 14;

export function fonts(theme) {
  const size = theme.font_size;
  return { size, tick: Math.max(10, size - 2), title: Math.round(size * 1.25), cell: cellFontSize(theme),
    line: Math.ceil(size * 1.3) };
}

/* The default height of a heatmap with R rows (figures.js: between 260 and 760, cell_height per row). */
export function defaultHeight(theme, rows) {
  return Math.trunc(Math.min(760, Math.max(260, 120 + theme.cell_height * rows)));
}

/* {width, height, f, title, plot {x, y, w, h}, cw, ch, xTicks, yTicks, xLabel, yLabel, bar, barLabels}.
 * spec: {width, height, rowTokens, colTokens, title, xLabel, yLabel, valueName, barTickTexts, theme,
 * colourbar (false: none)}; bar is null without a colour bar. */
export function heatmapLayout(spec, measure) {
  const { width, height, rowTokens, colTokens, theme } = spec;
  const f = fonts(theme), tickLine = Math.ceil(f.tick * 1.25);
  const rowLabels = rowTokens.map((t) => clipToWidth(t, Math.min(160, width * 0.25), (s) => measure(s, f.tick), TICK_LABEL_MAX));
  const colLabels = colTokens.map((t) => clipToWidth(t, Math.min(160, height * 0.3), (s) => measure(s, f.tick), TICK_LABEL_MAX));
  const top = PAD + (spec.title ? Math.ceil(f.title * 1.4) : 0) + PAD;
  const yLabelRoom = spec.yLabel ? f.line + 4 : 0;
  const barTextW = Math.max(measure(spec.valueName || "", f.tick), ...spec.barTickTexts.map((s) => measure(s, f.tick)));
  const showBar = spec.colourbar !== false;  // panels sharing one scale show it once
  const right = showBar ? BAR_GAP + BAR_WIDTH + 4 + Math.ceil(barTextW) + PAD : PAD;
  const rowWidths = rowLabels.map((s) => measure(s, f.tick));
  const left = PAD + yLabelRoom + Math.ceil(Math.max(0, ...rowWidths)) + TICK_PAD;  // room for any row's label
  const plotW = Math.max(1, width - left - right);
  const cw = plotW / Math.max(1, colTokens.length);
  const xTicks = fitXTicks(colLabels.map((s) => measure(s, f.tick)), cw, tickLine);
  const xLabelRoom = spec.xLabel ? f.line + 4 : 0;
  const plotH = Math.max(1, height - top - TICK_PAD - Math.ceil(xTicks.extent) - xLabelRoom - PAD);
  const ch = plotH / Math.max(1, rowTokens.length);
  const yTicks = fitYTicks(rowWidths, ch, tickLine);
  const plot = { x: left, y: top, w: plotW, h: plotH };
  return {
    width, height, f, plot, cw, ch, rowLabels, colLabels, xTicks, yTicks,
    title: spec.title ? { text: spec.title, x: PAD, y: PAD + f.title * 0.7 } : null,
    xLabel: spec.xLabel ? { text: spec.xLabel, x: left + plotW / 2, y: height - PAD - f.line / 2 } : null,
    yLabel: spec.yLabel ? { text: spec.yLabel, x: PAD + f.line / 2, y: top + plotH / 2 } : null,
    bar: !showBar ? null : { x: left + plotW + BAR_GAP, y: top + (tickLine + 4), w: BAR_WIDTH, h: Math.max(1, plotH - tickLine - 4) },
    barTextWidth: Math.ceil(barTextW),
  };
}

/* The cell under a point, or null outside the cells. */
export function cellAt(L, rows, cols, x, y) {
  const c = Math.floor((x - L.plot.x) / L.cw), r = Math.floor((y - L.plot.y) / L.ch);
  return r >= 0 && r < rows && c >= 0 && c < cols ? [r, c] : null;
}
