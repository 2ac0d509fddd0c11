/* The layers of a heatmap, each drawn by one function onto a painter (painter.mjs): the frame (title,
 * token labels, axis titles), the cells (with their numbers where they fit), the colour bar, and the marks
 * (hover, keyboard focus, talk mode's highlighted cell). The component repaints only the layers a change
 * touches; the exports call all of them on one painter. */
import { cellTextFits, formatCell } from "./cellText.mjs";
import { LUT_SIZE, textColourOn } from "./scales.mjs";
import { format, precisionFixed } from "d3-format";

const INK = "#2a3f5f", GRID = "#c8d4e3";  // Plotly's default text and axis-line colours

export function paintFrame(p, L) {
  const { f, plot } = L;
  p.rect(0, 0, L.width, L.height, "#ffffff");
  if (L.title) p.text(L.title.text, L.title.x, L.title.y, { size: f.title, fill: INK, baseline: "middle" });
  const tick = { size: f.tick, fill: INK };
  for (const i of L.yTicks.indices) {
    p.text(L.rowLabels[i], plot.x - 6, plot.y + (i + 0.5) * L.ch, { ...tick, align: "right", baseline: "middle" });
  }
  const { angle } = L.xTicks;
  for (const i of L.xTicks.indices) {
    const x = plot.x + (i + 0.5) * L.cw, y = plot.y + plot.h + 6;
    if (angle === 0) p.text(L.colLabels[i], x, y, { ...tick, align: "center", baseline: "top" });
    else p.text(L.colLabels[i], x, y, { ...tick, align: "right", baseline: angle === 90 ? "middle" : "top", angle });
  }
  if (L.xLabel) p.text(L.xLabel.text, L.xLabel.x, L.xLabel.y, { size: f.size, fill: INK, align: "center" });
  if (L.yLabel) p.text(L.yLabel.text, L.yLabel.x, L.yLabel.y, { size: f.size, fill: INK, align: "center", angle: 90 });
}

/* Cells in the scale's colours (masked and missing values in the theme's masked colour), then their values
 * where the text fits the cell. */
export function paintCells(p, L, m) {
  const { z, masked, scale, theme } = m, R = z.length, C = R ? z[0].length : 0, lut = scale.lut;
  const maskedRgb = hexRgb(theme.masked);
  // one [r, g, b] reused for every cell (both painters read it at once): no array per cell of a T × T map
  /** @type {[number, number, number]} */
  const rgb = [0, 0, 0];
  /** @type {(r: number, c: number) => [number, number, number]} */
  const rgbAt = (r, c) => {
    const i = masked && masked[r] && masked[r][c] ? -1 : scale.index(z[r][c]);
    if (i < 0) return /** @type {[number, number, number]} */ (maskedRgb);
    rgb[0] = lut[3 * i]; rgb[1] = lut[3 * i + 1]; rgb[2] = lut[3 * i + 2];
    return rgb;
  };
  p.cells(L.plot.x, L.plot.y, L.cw, L.ch, R, C, rgbAt);
  if (L.ch < L.f.cell + 4 || L.cw < p.measure("0.00", L.f.cell) + 4) return;  // no number can fit
  for (let r = 0; r < R; r++) {
    for (let c = 0; c < C; c++) {
      const v = z[r][c];
      if ((masked && masked[r] && masked[r][c]) || v === null || !Number.isFinite(v)) continue;
      const s = formatCell(v);
      if (!cellTextFits(p.measure(s, L.f.cell), L.f.cell, L.cw, L.ch)) continue;
      p.text(s, L.plot.x + (c + 0.5) * L.cw, L.plot.y + (r + 0.5) * L.ch,
        { size: L.f.cell, fill: textColourOn(rgbAt(r, c)), align: "center", baseline: "middle" });
    }
  }
}

/* The colour bar: its ramp, its value name above it and its tick values beside it. */
export function paintColourbar(p, L, m) {
  const { bar, f } = L, { scale } = m;
  if (!bar) return;
  p.rect(bar.x - 2, L.plot.y - 2, L.width - bar.x + 2, L.plot.h + 4, "#ffffff");
  const stops = [];
  for (let i = 0; i < 16; i++) {
    const k = Math.round((i / 15) * (LUT_SIZE - 1)), t = scale.lut;
    stops.push([i / 15, `rgb(${t[3 * k]},${t[3 * k + 1]},${t[3 * k + 2]})`]);
  }
  p.gradient(bar.x, bar.y, bar.w, bar.h, stops);
  p.frame(bar.x, bar.y, bar.w, bar.h, GRID, 1);
  p.text(m.valueName || "", bar.x, L.plot.y, { size: f.tick, fill: INK, baseline: "top" });
  for (const [value, text] of barTicks(scale)) {
    const y = bar.y + bar.h * (1 - scale.position(value));
    p.line(bar.x + bar.w, y, bar.x + bar.w + 3, y, INK, 1);
    p.text(text, bar.x + bar.w + 5, y, { size: f.tick, fill: INK, baseline: "middle" });
  }
}

/* [value, text] of the colour bar's ticks (d3's nice ticks inside the domain). */
export function barTicks(scale) {
  const ticks = scale.ticks(5), fmt = format(`.${ticks.length > 1 ? precisionFixed(ticks[1] - ticks[0]) : 2}f`);
  return ticks.map((v) => [v, fmt(v)]);
}

/* Outlines: the view's outlined rows and columns (the pair view's inserted and deleted steps), the hovered or
 * focused cell, talk mode's highlighted cell (thicker), the selected row. */
export function paintMarks(p, L, marks) {
  for (const mk of marks) {
    const w = mk.kind === "highlight" ? 3 : 2, colour = mk.kind === "highlight" ? "#D55E00" : "#000000";
    if (mk.kind === "outline") {
      if (mk.axis === "row") p.frame(L.plot.x + 1, L.plot.y + mk.index * L.ch + 1, L.plot.w - 2, L.ch - 2, mk.colour, 2);
      else p.frame(L.plot.x + mk.index * L.cw + 1, L.plot.y + 1, L.cw - 2, L.plot.h - 2, mk.colour, 2);
    } else if (mk.kind === "row") p.frame(L.plot.x + 1, L.plot.y + mk.r * L.ch + 1, L.plot.w - 2, L.ch - 2, "#E69F00", 2);
    else p.frame(L.plot.x + mk.c * L.cw + w / 2, L.plot.y + mk.r * L.ch + w / 2, L.cw - w, L.ch - w, colour, w);
  }
}

export function hexRgb(css) {
  const h = css.replace("#", "");
  return [parseInt(h.slice(0, 2), 16), parseInt(h.slice(2, 4), 16), parseInt(h.slice(4, 6), 16)];
}

