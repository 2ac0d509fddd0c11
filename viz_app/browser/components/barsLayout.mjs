/* Where every part of a bar chart goes. One band per label along the category axis (y for horizontal bars,
 * x for vertical ones, labels fitted by ticks.mjs), a linear value axis with d3's nice ticks. Pure. */
import { scaleLinear } from "d3-scale";
import { format, precisionFixed } from "d3-format";
import { clipToWidth, fitXTicks, fitYTicks } from "./ticks.mjs";
import { fonts } from "./heatmapLayout.mjs";

const PAD = 8, TICK_PAD = 6, TICK_LABEL_MAX = 24;

/* The value axis' domain: the caller's, else the data's extent widened to include 0, made nice. */
export function barsDomain(values, domain) {
  if (domain && Number.isFinite(domain[0]) && Number.isFinite(domain[1]) && domain[1] > domain[0]) return [domain[0], domain[1]];
  let lo = 0, hi = 0;
  for (const v of values) if (v !== null && Number.isFinite(v)) { lo = Math.min(lo, v); hi = Math.max(hi, v); }
  if (hi === lo) hi = lo + 1;
  return scaleLinear().domain([lo, hi]).nice(5).domain();
}

export function defaultBarsHeight(theme, n, orientation) {
  return orientation === "horizontal" ? Math.trunc(Math.min(760, Math.max(200, 90 + theme.cell_height * n))) : 320;
}

/* spec: {width, height, labels, orientation, domain, title, xLabel, yLabel, theme}. */
export function barsLayout(spec, measure) {
  const { width, height, labels, orientation, theme } = spec, f = fonts(theme), tickLine = Math.ceil(f.tick * 1.25);
  const horizontal = orientation === "horizontal";
  const value = scaleLinear().domain(spec.domain);
  const ticks = value.ticks(5), fmt = format(`.${ticks.length > 1 ? precisionFixed(ticks[1] - ticks[0]) : 2}f`);
  const valueTicks = ticks.map((t) => [t, fmt(t)]);
  const clipped = labels.map((t) => clipToWidth(t, Math.min(160, (horizontal ? width : height) * 0.25), (s) => measure(s, f.tick), TICK_LABEL_MAX));
  const widths = clipped.map((s) => measure(s, f.tick));
  const top = PAD + (spec.title ? Math.ceil(f.title * 1.4) : 0) + PAD;
  const xLabelRoom = spec.xLabel ? f.line + 4 : 0, yLabelRoom = spec.yLabel ? f.line + 4 : 0;
  const valueTextW = Math.max(...valueTicks.map(([, s]) => measure(s, f.tick)));
  const endRoom = Math.ceil(measure("−0.00", f.cell)) + 6;  // a value label past the longest bar
  let plot, cat;
  if (horizontal) {
    const left = PAD + yLabelRoom + Math.ceil(Math.max(0, ...widths)) + TICK_PAD;
    const h = Math.max(1, height - top - TICK_PAD - tickLine - xLabelRoom - PAD);
    plot = { x: left, y: top, w: Math.max(1, width - left - PAD - endRoom), h };
    cat = fitYTicks(widths, h / labels.length, tickLine);
  } else {
    const left = PAD + yLabelRoom + Math.ceil(valueTextW) + TICK_PAD, w = Math.max(1, width - left - PAD);
    cat = fitXTicks(widths, w / labels.length, tickLine);
    plot = { x: left, y: top + f.cell + 4, w, h: Math.max(1, height - top - f.cell - 4 - TICK_PAD - Math.ceil(cat.extent) - xLabelRoom - PAD) };
  }
  const band = (horizontal ? plot.h : plot.w) / labels.length;
  value.range(horizontal ? [plot.x, plot.x + plot.w] : [plot.y + plot.h, plot.y]);
  return {
    width, height, f, plot, band, horizontal, labels: clipped, cat, value, valueTicks,
    title: spec.title ? { text: spec.title, x: PAD, y: PAD + f.title * 0.7 } : null,
    xLabel: spec.xLabel ? { text: spec.xLabel, x: plot.x + plot.w / 2, y: height - PAD - f.line / 2 } : null,
    yLabel: spec.yLabel ? { text: spec.yLabel, x: PAD + f.line / 2, y: plot.y + plot.h / 2 } : null,
  };
}

/* The bar under a point (its band, anywhere across the plot), or null. */
export function barAt(L, n, x, y) {
  const { plot } = L;
  if (x < plot.x || x > plot.x + plot.w || y < plot.y || y > plot.y + plot.h) return null;
  const i = Math.floor(L.horizontal ? (y - plot.y) / L.band : (x - plot.x) / L.band);
  return i >= 0 && i < n ? i : null;
}
