/* The layers of a bar chart on a painter: the frame (title, labels, value axis and grid) and the bars with
 * their values (1.00) where the text fits; marks outline the hovered or focused bar and talk mode's one. */
import { formatCell } from "./cellText.mjs";

const INK = "#2a3f5f", GRID = "#e5ecf6";

export function paintBarsFrame(p, L) {
  const { f, plot, horizontal, value } = L, tick = { size: f.tick, fill: INK };
  p.rect(0, 0, L.width, L.height, "#ffffff");
  if (L.title) p.text(L.title.text, L.title.x, L.title.y, { size: f.title, fill: INK });
  for (const [t, s] of L.valueTicks) {
    const at = value(t);
    if (horizontal) {
      p.line(at, plot.y, at, plot.y + plot.h, t === 0 ? INK : GRID, 1);
      p.text(s, at, plot.y + plot.h + 6, { ...tick, align: "center", baseline: "top" });
    } else {
      p.line(plot.x, at, plot.x + plot.w, at, t === 0 ? INK : GRID, 1);
      p.text(s, plot.x - 6, at, { ...tick, align: "right" });
    }
  }
  for (const i of L.cat.indices) {
    const mid = (horizontal ? plot.y : plot.x) + (i + 0.5) * L.band;
    if (horizontal) p.text(L.labels[i], plot.x - 6, mid, { ...tick, align: "right" });
    else if (L.cat.angle === 0) p.text(L.labels[i], mid, plot.y + plot.h + 6, { ...tick, align: "center", baseline: "top" });
    else p.text(L.labels[i], mid, plot.y + plot.h + 6, { ...tick, align: "right", baseline: L.cat.angle === 90 ? "middle" : "top", angle: L.cat.angle });
  }
  if (L.xLabel) p.text(L.xLabel.text, L.xLabel.x, L.xLabel.y, { size: f.size, fill: INK, align: "center" });
  if (L.yLabel) p.text(L.yLabel.text, L.yLabel.x, L.yLabel.y, { size: f.size, fill: INK, align: "center", angle: 90 });
}

/* Bars from 0 (positive in the theme's first colour, negative in its vermilion), values at their ends. */
export function paintBars(p, L, values, theme) {
  const { plot, horizontal, value, band, f } = L, zero = value(Math.max(value.domain()[0], Math.min(0, value.domain()[1])));
  const thick = Math.max(1, band * 0.7), gap = (band - thick) / 2;
  values.forEach((v, i) => {
    if (v === null || !Number.isFinite(v)) return;
    const end = value(Math.max(value.domain()[0], Math.min(v, value.domain()[1]))), colour = v < 0 ? theme.categorical[5] : theme.categorical[0];
    const at = (horizontal ? plot.y : plot.x) + i * band + gap;
    if (horizontal) p.rect(Math.min(zero, end), at, Math.abs(end - zero), thick, colour);
    else p.rect(at, Math.min(zero, end), thick, Math.abs(end - zero), colour);
    const s = formatCell(v), w = p.measure(s, f.cell);
    if (horizontal && f.cell + 2 <= band) {
      const x = v < 0 ? end - 4 - w : end + 4;
      if (x >= plot.x && x + w <= L.width) p.text(s, x, at + thick / 2, { size: f.cell, fill: INK });
    } else if (!horizontal && w + 2 <= band) {
      const y = v < 0 ? end + 2 : end - 2;
      p.text(s, at + thick / 2, y, { size: f.cell, fill: INK, align: "center", baseline: v < 0 ? "top" : "bottom" });
    }
  });
}

export function paintBarsMarks(p, L, marks) {
  for (const mk of marks) {
    const w = mk.kind === "highlight" ? 3 : 2, colour = mk.kind === "highlight" ? "#D55E00" : "#000000";
    const at = (L.horizontal ? L.plot.y : L.plot.x) + mk.i * L.band;
    if (L.horizontal) p.frame(L.plot.x + w / 2, at + w / 2, L.plot.w - w, L.band - w, colour, w);
    else p.frame(at + w / 2, L.plot.y + w / 2, L.band - w, L.plot.h - w, colour, w);
  }
}
