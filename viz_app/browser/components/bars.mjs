/* A bar chart on canvas (docs/figure-components.md has its API): one bar per token, horizontal or vertical, along
 * a category axis (labels fitted by text.mjs) and a linear value axis with d3's nice ticks; values like 1.00
 * where they fit. Layers: the frame (title, labels, value axis and grid), the bars, the marks (the hovered or
 * focused bar, talk mode's one); update(view) repaints the bars only when the labels and the value axis stay. */
import { scaleLinear } from "d3-scale";
import { themeOf } from "./palettes.mjs";
import { INK, PAD, TICK_PAD, axisRoom, clipLabels, fitXTicks, fitYTicks, fonts, formatCell, paintLabels,
  paintTitles, tickTexts, titleRoom, titles, valueText } from "./text.mjs";
import { HIGHLIGHT, HOVER, paintBoxes } from "./painter.mjs";
import { createFigure, dataTable } from "./figure.mjs";
import { checkBarsView } from "./validate.mjs";
import { barsCsv } from "./export.mjs";

const GRID = "#e5ecf6";

/* The value axis' domain: the caller's, else the data's extent widened to include 0, made nice. */
export function barsDomain(values, domain) {
  if (domain && Number.isFinite(domain[0]) && Number.isFinite(domain[1]) && domain[1] > domain[0]) return [domain[0], domain[1]];
  let lo = 0, hi = 0;
  for (const v of values) if (v !== null && Number.isFinite(v)) { lo = Math.min(lo, v); hi = Math.max(hi, v); }
  return scaleLinear().domain([lo, hi === lo ? lo + 1 : hi]).nice(5).domain();
}

/* spec: {width, height, labels, orientation, domain, title, xLabel, yLabel, theme}. */
export function barsLayout(spec, measure) {
  const { width, height, labels } = spec, f = fonts(spec.theme), tickLine = Math.ceil(f.tick * 1.25);
  const horizontal = spec.orientation === "horizontal", value = scaleLinear().domain(spec.domain);
  let valueTicks = tickTexts(value.ticks(5));
  const [clipped, widths] = clipLabels(labels, (horizontal ? width : height) * 0.25, f.tick, measure);
  const top = titleRoom(spec.title, f), xLabelRoom = axisRoom(spec.xLabel, f), yLabelRoom = axisRoom(spec.yLabel, f);
  let plot, cat;
  if (horizontal) {
    const left = PAD + yLabelRoom + Math.ceil(Math.max(0, ...widths)) + TICK_PAD;
    const endRoom = Math.ceil(measure("−0.00", f.cell)) + 6;  // a value label past the longest bar
    plot = { x: left, y: top, w: Math.max(1, width - left - PAD - endRoom), h: Math.max(1, height - top - TICK_PAD - tickLine - xLabelRoom - PAD) };
    cat = fitYTicks(widths, plot.h / labels.length, tickLine);
  } else {
    const left = PAD + yLabelRoom + Math.ceil(Math.max(...valueTicks.map(([, s]) => measure(s, f.tick)))) + TICK_PAD;
    const w = Math.max(1, width - left - PAD);
    cat = fitXTicks(widths, w / labels.length, tickLine);
    plot = { x: left, y: top + f.cell + 4, w, h: Math.max(1, height - top - f.cell - 4 - TICK_PAD - Math.ceil(cat.extent) - xLabelRoom - PAD) };
  }
  value.range(horizontal ? [plot.x, plot.x + plot.w] : [plot.y + plot.h, plot.y]);
  // fewer value ticks where their numbers would touch (a narrow column in talk mode drew "0.00.20.40.60.81.0")
  const clear = ([a, s], [b, t]) => Math.abs(value(b) - value(a)) >= (horizontal ? (measure(s, f.tick) + measure(t, f.tick)) / 2 : f.tick) + f.tick / 2;
  for (let n = 4; n > 0 && valueTicks.some((t, i) => i > 0 && !clear(valueTicks[i - 1], t)); n--) valueTicks = tickTexts(value.ticks(n));
  return { width, height, f, plot, band: (horizontal ? plot.h : plot.w) / labels.length, horizontal, labels: clipped, cat,
    value, valueTicks, ...titles(spec, f, plot, height) };
}

export function paintBarsFrame(p, L) {
  const { f, plot, horizontal, value } = L;
  paintTitles(p, L);
  for (const [t, s] of L.valueTicks) {
    const at = value(t), colour = t === 0 ? INK : GRID;
    if (horizontal) p.line(at, plot.y, at, plot.y + plot.h, colour, 1);
    else p.line(plot.x, at, plot.x + plot.w, at, colour, 1);
    if (horizontal) p.text(s, at, plot.y + plot.h + TICK_PAD, { size: f.tick, fill: INK, align: "center", baseline: "top" });
    else p.text(s, plot.x - TICK_PAD, at, { size: f.tick, fill: INK, align: "right" });
  }
  paintLabels(p, L, L.labels, L.cat, L.band, horizontal);
}

/* Bars from 0 (positive in the theme's first colour, negative in its vermilion), values at their ends; a masked
 * one (`masked[i]`: a cell its block's mask excludes) none. */
export function paintBars(p, L, values, theme, masked = null) {
  const { plot, horizontal, value, band, f } = L, [lo, hi] = value.domain(), zero = value(Math.max(lo, Math.min(0, hi)));
  const thick = Math.max(1, band * 0.7), gap = (band - thick) / 2;
  values.forEach((v, i) => {
    if (v === null || !Number.isFinite(v) || masked?.[i]) return;
    const end = value(Math.max(lo, Math.min(v, hi))), at = (horizontal ? plot.y : plot.x) + i * band + gap;
    const colour = v < 0 ? theme.categorical[5] : theme.categorical[0], s = formatCell(v), w = p.measure(s, f.cell);
    if (horizontal) p.rect(Math.min(zero, end), at, Math.abs(end - zero), thick, colour);
    else p.rect(at, Math.min(zero, end), thick, Math.abs(end - zero), colour);
    if (horizontal && f.cell + 2 <= band) {
      const x = v < 0 ? end - 4 - w : end + 4;
      if (x >= plot.x && x + w <= L.width) p.text(s, x, at + thick / 2, { size: f.cell, fill: INK });
    } else if (!horizontal && w + 2 <= band) {
      p.text(s, at + thick / 2, v < 0 ? end + 2 : end - 2, { size: f.cell, fill: INK, align: "center", baseline: v < 0 ? "top" : "bottom" });
    }
  });
}

export function createBars(parent, { name = "bars", provenance = null } = {}) {
  let v = null, theme = null, L = null, data = 0;
  const grid = () => (v.orientation === "horizontal" ? [v.labels.length, 1] : [1, v.labels.length]);
  const cell = (i) => (v.orientation === "horizontal" ? { r: i, c: 0 } : { r: 0, c: i });  // bar i in the R × 1 or 1 × C grid
  const marks = (live) => {  // talk mode's bar, then on screen the hovered and focused ones: painter.mjs boxes
    const n = v.labels.length, h = v.highlight, out = Number.isInteger(h) && h >= 0 && h < n ? [{ ...cell(h), ...HIGHLIGHT }] : [];
    for (const at of live ? [live.hover, live.focus] : []) if (at && at[0] + at[1] < n) out.push({ r: at[0], c: at[1], ...HOVER });
    return out;
  };

  function draw(next) {
    v = checkBarsView({ ...(v || {}), ...next });
    theme = themeOf(v.theme);
    if ("values" in next || "masked" in next) data++;
    const domain = barsDomain(v.values, v.domain), width = Math.round(v.width || parent.clientWidth || 480);
    const horizontal = v.orientation === "horizontal", n = v.labels.length;
    const height = Math.round(v.height || (horizontal ? Math.min(760, Math.max(200, 90 + theme.cell_height * n)) : 320));
    fig.render({
      width, height, tokens: v.labels, label: `${v.title || name}: ${v.labels.length} bars. Arrow keys move across bars.`,
      keys: { frame: [width, height, v.labels, v.orientation, domain, v.title, v.xLabel, v.yLabel, theme], bars: data, marks: v.highlight ?? null },
      layout: (measure) => { L = barsLayout({ ...v, width, height, domain, theme }, measure); },
    });
  }

  const fig = createFigure(parent, {
    kind: "bars", name, provenance, draw, view: () => v, layout: () => L, separator: ": ",
    reset() { v = null; },
    describe: ([r, c]) => [`#${r + c} ${v.labels[r + c]}`, `${v.valueName || "value"} = ${valueText(v.values[r + c], v.masked?.[r + c])}`],  // r or c is 0
    grid,
    // the bars with their value texts (past a horizontal bar's end up to the stage's edge; above or below a vertical
    // one, in the room barsLayout keeps over the plot), and the marks inside the plot: figure.mjs place
    regions: { bars: () => (L.horizontal ? { x: L.plot.x, y: L.plot.y, w: L.width - L.plot.x, h: L.plot.h }
      : { x: L.plot.x, y: L.plot.y - L.f.cell - 4, w: L.plot.w, h: L.plot.h + 2 * (L.f.cell + 4) }), marks: () => L.plot },
    layers: { frame: (q) => paintBarsFrame(q, L), bars: (q) => paintBars(q, L, v.values, theme, v.masked),
      marks: (q, live) => paintBoxes(q, L.plot, ...grid(), marks(live)) },
    table: () => dataTable(v.title || name, v.labelName || "token", [v.valueName || "value"], v.labels.map((t, i) => `#${i} ${t}`), (r) => valueText(v.values[r], v.masked?.[r])),
    data: () => ({ kind: "bars", name, title: v.title ?? null, value_name: v.valueName ?? null, labels: v.labels, values: Array.from(v.values),
      masked: v.masked ? Array.from(v.masked, Boolean) : null }),
    csv: (prov) => barsCsv(prov, v),
  });

  return fig.api({});
}
