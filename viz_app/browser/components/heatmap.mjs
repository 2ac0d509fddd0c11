/* A heatmap on canvas (docs/figure-components.md has its API): cells, token labels, colour bar, title; hover
 * names the cell, a click or Enter on a row emits "figure-rowselect" (the host shows that row's bars), and
 * update(view) repaints only the layers a change touches. Each layer is painted by one function onto a painter
 * (painter.mjs), on screen and in the exports alike: the frame (title, token labels, axis titles), the cells
 * (with their numbers where they fit), the colour bar, the marks (outlines, hover, focus, talk mode's cell). */
import { LUT_SIZE, colourScale, domainOf, hexRgb, textColourOn, themeOf } from "./palettes.mjs";
import { INK, PAD, TICK_PAD, axisRoom, cellTextFits, clipLabels, fitXTicks, fitYTicks, fonts, formatCell, paintLabels,
  paintTitles, tickTexts, titleRoom, titles, valueText } from "./text.mjs";
import { HIGHLIGHT, HOVER, paintBoxes } from "./painter.mjs";
import { createFigure, dataTable } from "./figure.mjs";
import { checkHeatmapView } from "./validate.mjs";
import { heatmapCsv } from "./export.mjs";

const GRID = "#c8d4e3", BAR_WIDTH = 14, BAR_GAP = 14, BAR_TICK = 3;
/* Colour bar numbers start past the ticks by a gap growing with the text: 2 px from a tick, talk mode's read as "-0.8". */
const barTextOffset = (f) => BAR_TICK + Math.round(f.tick * 0.35);

/* Where every part goes, from the view, the size and how wide its text is (`measure(text, size)`: canvas on
 * screen, a stand-in in tests): the left margin holds the widest row label, the bottom one the column labels at
 * the angle text.mjs chose for the column width, the right one the colour bar and its numbers (bar: null without). */
export function heatmapLayout(spec, measure) {
  const { width, height, rowTokens, colTokens } = spec, f = fonts(spec.theme), tickLine = Math.ceil(f.tick * 1.25);
  const [rowLabels, rowWidths] = clipLabels(rowTokens, width * 0.25, f.tick, measure);
  const [colLabels, colWidths] = clipLabels(colTokens, height * 0.3, f.tick, measure);
  const top = titleRoom(spec.title, f);
  const barTextW = Math.max(measure(spec.valueName || "", f.tick), ...spec.barTickTexts.map((s) => measure(s, f.tick)));
  const showBar = spec.colourbar !== false;
  const right = showBar ? BAR_GAP + BAR_WIDTH + barTextOffset(f) + Math.ceil(barTextW) + PAD : PAD;
  const left = PAD + axisRoom(spec.yLabel, f) + Math.ceil(Math.max(0, ...rowWidths)) + TICK_PAD;
  const plotW = Math.max(1, width - left - right), cw = plotW / Math.max(1, colTokens.length);
  const xTicks = fitXTicks(colWidths, cw, tickLine);
  const plotH = Math.max(1, height - top - TICK_PAD - Math.ceil(xTicks.extent) - axisRoom(spec.xLabel, f) - PAD);
  const ch = plotH / Math.max(1, rowTokens.length), plot = { x: left, y: top, w: plotW, h: plotH };
  return {
    width, height, f, plot, cw, ch, rowLabels, colLabels, xTicks, yTicks: fitYTicks(rowWidths, ch, tickLine),
    ...titles(spec, f, plot, height), barTextWidth: Math.ceil(barTextW),
    bar: showBar ? { x: left + plotW + BAR_GAP, y: top + (tickLine + 4), w: BAR_WIDTH, h: Math.max(1, plotH - tickLine - 4) } : null,
  };
}

export function paintFrame(p, L) {
  paintTitles(p, L);
  paintLabels(p, L, L.rowLabels, L.yTicks, L.ch, true);
  paintLabels(p, L, L.colLabels, L.xTicks, L.cw, false);
}

/* Cells in the scale's colours (masked and missing values in the theme's masked colour), then their values when
 * the widest of them fits a cell: every number or none, so that a cell without one never reads as masked beside
 * cells with one ("−0.33" is wider than "0.33"). m: {z, masked, scale, theme}. */
export function paintCells(p, L, m) {
  const { z, masked, scale } = m, R = z.length, C = R ? z[0].length : 0, lut = scale.lut, maskedRgb = hexRgb(m.theme.masked);
  // one [r, g, b] reused for every cell (both painters read it at once): no array per cell of a T × T map
  const rgb = [0, 0, 0], isMasked = (r, c) => Boolean(masked && masked[r] && masked[r][c]);
  const rgbAt = (r, c) => {
    const i = isMasked(r, c) ? -1 : scale.index(z[r][c]);
    if (i < 0) return maskedRgb;
    rgb[0] = lut[3 * i]; rgb[1] = lut[3 * i + 1]; rgb[2] = lut[3 * i + 2];
    return rgb;
  };
  p.cells(L.plot.x, L.plot.y, L.cw, L.ch, R, C, rgbAt);
  if (!numbersMayFit(L, p.measure)) return;  // cells this small hold no number: T is small past here
  const texts = [];
  let widest = 0;
  for (let r = 0; r < R; r++) {
    for (let c = 0; c < C; c++) {
      const v = z[r][c];
      if (isMasked(r, c) || v === null || !Number.isFinite(v)) continue;
      const s = formatCell(v);
      widest = Math.max(widest, p.measure(s, L.f.cell));
      texts.push([r, c, s]);
    }
  }
  if (!cellTextFits(widest, L.f.cell, L.cw, L.ch)) return;
  for (const [r, c, s] of texts) {
    p.text(s, L.plot.x + (c + 0.5) * L.cw, L.plot.y + (r + 0.5) * L.ch, { size: L.f.cell, fill: textColourOn(rgbAt(r, c)), align: "center" });
  }
}

/* Whether a cell is large enough for any number (else the cells are colour alone). */
const numbersMayFit = (L, measure) => L.ch >= L.f.cell + 4 && L.cw >= measure("0.00", L.f.cell) + 4;

/* [value, text] of the colour bar's ticks (d3's nice ticks inside the domain). */
export const barTicks = (scale) => tickTexts(scale.ticks(5));

/* The colour bar's white ground, beside the plot from the bar to the figure's right edge. */
const barBox = (L) => ({ x: L.bar.x - 2, y: L.plot.y - 2, w: L.width - L.bar.x + 2, h: L.plot.h + 4 });

/* The colour bar: its ramp, its value name above it and its tick values beside it. m: {scale, valueName}. */
export function paintColourbar(p, L, m) {
  const { bar, f } = L, t = m.scale.lut;
  if (!bar) return;
  const box = barBox(L);
  p.rect(box.x, box.y, box.w, box.h, "#ffffff");
  const stop = (i, k = 3 * Math.round((i / 15) * (LUT_SIZE - 1))) => [i / 15, `rgb(${t[k]},${t[k + 1]},${t[k + 2]})`];
  p.gradient(bar.x, bar.y, bar.w, bar.h, Array.from({ length: 16 }, (_, i) => stop(i)));  // 16 stops of the table
  p.frame(bar.x, bar.y, bar.w, bar.h, GRID, 1);
  p.text(m.valueName || "", bar.x, L.plot.y, { size: f.tick, fill: INK, baseline: "top" });
  for (const [value, text] of barTicks(m.scale)) {
    const y = bar.y + bar.h * (1 - m.scale.position(value));
    p.line(bar.x + bar.w, y, bar.x + bar.w + BAR_TICK, y, INK, 1);
    p.text(text, bar.x + bar.w + barTextOffset(f), y, { size: f.tick, fill: INK });
  }
}

/* The marks as boxes (painter.mjs paintBoxes) of view v: its outlined rows and columns (the pair view's inserted
 * and deleted steps) and talk mode's cell, then on screen (`live`) the selected row, the hovered and focused cells. */
export function heatmapMarks(v, selected, live) {
  const R = v.z.length, C = v.colTokens.length, inGrid = (cell) => cell && cell[0] < R && cell[1] < C;
  const out = (v.outlines || []).filter((o) => o.index < (o.axis === "row" ? R : C))
    .map((o) => ({ r: o.axis === "row" ? o.index : null, c: o.axis === "row" ? null : o.index, colour: o.colour, width: 2, inset: 1 }));
  if (inGrid(v.highlight)) out.push({ r: v.highlight[0], c: v.highlight[1], ...HIGHLIGHT });
  if (!live) return out;
  if (selected !== null && selected < R) out.push({ r: selected, c: null, colour: "#E69F00", width: 2, inset: 1 });
  for (const cell of [live.hover, live.focus]) if (inGrid(cell)) out.push({ r: cell[0], c: cell[1], ...HOVER });
  return out;
}

export function createHeatmap(parent, { name = "heatmap", provenance = null, onRowSelect = null } = {}) {
  let raw = {}, v = null, theme = null, scale = null, scaleKey = "", data = 0, L = null, selected = null;

  function draw(next) {
    raw = { ...raw, ...next };  // what the host gave, so colTokens left out keeps following rowTokens
    v = checkHeatmapView(raw);
    theme = themeOf(v.theme);
    const palette = v.palette || (v.scale === "diverging" ? theme.diverging : theme.sequential);
    const domain = domainOf(v.scale, v.z, v.zmin, v.zmax), key = JSON.stringify([v.scale, palette, domain]);
    if (key !== scaleKey) [scale, scaleKey] = [colourScale({ kind: v.scale, palette, domain }), key];
    if ("z" in next || "masked" in next) data++;
    const width = Math.round(v.width || parent.clientWidth || 640);
    const height = Math.round(v.height || Math.min(760, Math.max(260, 120 + theme.cell_height * v.rowTokens.length)));  // as figures.js
    const barTickTexts = barTicks(scale).map((t) => t[1]);
    fig.render({
      width, height, tokens: v.rowTokens,
      keys: { frame: [width, height, v.rowTokens, v.colTokens, v.title, v.xLabel, v.yLabel, v.valueName, theme, v.colourbar !== false],
        cells: [scaleKey, data], colourbar: scaleKey, marks: [v.highlight || null, v.outlines || null] },
      relayout: L?.bar && barTickTexts.some((s) => fig.measure(s, L.f.tick) > L.barTextWidth),  // a new scale's numbers need more room
      layout: (measure) => { L = heatmapLayout({ ...v, width, height, barTickTexts, theme }, measure); },
      label: `${v.title || name}: heatmap of ${v.rowTokens.length} by ${v.colTokens.length} tokens. ` +
        "Arrow keys move across cells, Enter shows the row's bars.",
    });
  }

  function selectRow(r) {
    selected = r;
    fig.paint("marks");
    fig.announce(`row #${r} ${v.rowTokens[r]} selected`);
    const detail = { figure: `heatmap:${name}`, row: r, token: v.rowTokens[r], values: Array.from(v.z[r]), colTokens: v.colTokens.slice() };
    fig.root.dispatchEvent(new CustomEvent("figure-rowselect", { bubbles: true, detail }));
    if (onRowSelect) onRowSelect(detail);
  }

  const fig = createFigure(parent, {
    kind: "heatmap", name, provenance, draw, view: () => v, layout: () => L, separator: ", ",
    reset() { raw = {}; v = null; },
    describe: ([r, c]) => [`row: #${r} ${v.rowTokens[r]}`, `column: #${c} ${v.colTokens[c]}`,
      `${v.valueName || "value"} = ${valueText(v.z[r][c], v.masked?.[r]?.[c])}`],
    grid: () => [v.z.length, v.colTokens.length],
    select: ([r]) => selectRow(r),
    // the cells as one canvas pixel each where no number fits in them, the rest where they paint (figure.mjs place)
    pixels: { layer: "cells", rect: () => (numbersMayFit(L, fig.measure) ? null
      : { x: L.plot.x, y: L.plot.y, w: L.plot.w, h: L.plot.h, R: v.z.length, C: v.colTokens.length }) },
    regions: { cells: () => L.plot, marks: () => L.plot,
      // the ground and the lowest tick's text, half a line below it; without a bar the layer paints nothing
      colourbar: () => (L.bar ? { ...barBox(L), h: barBox(L).h + L.f.tick } : { x: 0, y: 0, w: 1, h: 1 }) },
    layers: { frame: (q) => paintFrame(q, L), cells: (q) => paintCells(q, L, { ...v, scale, theme }),
      colourbar: (q) => paintColourbar(q, L, { ...v, scale }),
      marks: (q, live) => paintBoxes(q, L.plot, v.z.length, v.colTokens.length, heatmapMarks(v, selected, live)) },
    table: () => dataTable(`${v.title || name} (${v.valueName || "value"}; rows: ${v.yLabel || "row tokens"})`, "row \\ column",
      v.colTokens.map((t, c) => `#${c} ${t}`), v.rowTokens.map((t, r) => `#${r} ${t}`), (r, c) => valueText(v.z[r][c], v.masked?.[r]?.[c])),
    data: () => ({ kind: "heatmap", name, title: v.title ?? null, value_name: v.valueName ?? null, row_tokens: v.rowTokens,
      col_tokens: v.colTokens, z: v.z, masked: v.masked ? Array.from(v.masked, (row) => Array.from(row, Boolean)) : null }),
    csv: (prov) => heatmapCsv(prov, v),
  });

  return fig.api({ selectRow });
}
