/* Colour scales of the heatmap: a value → a position in [0, 1] → a colour of the palette.
 *
 * Sequential (probabilities) over [lo, hi]; diverging (B − A, compare) centred on 0, so 0 is the palette's
 * middle whatever the data. Colours come from a 257-entry table interpolated in RGB between the palette's
 * stops, as Plotly does, so painting T × T cells is one table look-up per cell. */
import { scaleDiverging, scaleLinear, scaleSequential } from "d3-scale";
import { PALETTES } from "./palettes.mjs";

export const LUT_SIZE = 257;  // odd: 0, the middle of a diverging scale, has a row of its own

/* A palette's stops [[position, css colour], …] from its name (palettes.mjs) or the stops themselves. */
export function stopsOf(palette) {
  if (Array.isArray(palette) && palette.length >= 2) return palette;
  const stops = PALETTES[palette];
  if (!stops) throw new Error(`unknown palette ${JSON.stringify(palette)}: use one of ${Object.keys(PALETTES).join(", ")} or stops`);
  return stops;
}

/* [lo, hi] of the finite values of a matrix (rows of numbers; null, NaN and ±∞ are skipped). A map with no
 * finite value gets [0, 1]; a constant map a scale one unit wide (figures.js limits does the same). */
export function extent(z) {
  let lo = Infinity, hi = -Infinity;
  for (const row of z) {
    for (const v of row) {
      if (v !== null && Number.isFinite(v)) { if (v < lo) lo = v; if (v > hi) hi = v; }
    }
  }
  if (lo === Infinity) return [0, 1];
  return [lo, hi > lo ? hi : lo + 1];
}

/* The domain a scale is drawn on: the caller's zmin/zmax where given, else the data's; a diverging domain is
 * symmetric about 0 (±max |value|) unless both ends are given. */
export function domainOf(kind, z, zmin, zmax) {
  const given = (v) => v !== null && v !== undefined && Number.isFinite(v);
  if (given(zmin) && given(zmax) && zmax > zmin) return [zmin, zmax];
  const [lo, hi] = extent(z);
  if (kind === "diverging") {
    const bound = Math.max(Math.abs(given(zmin) ? zmin : lo), Math.abs(given(zmax) ? zmax : hi)) || 1;
    return [-bound, bound];
  }
  const a = given(zmin) ? zmin : lo, b = given(zmax) ? zmax : hi;
  return [a, b > a ? b : a + 1];
}

function parseRgb(css) {
  const m = /rgb\((\d+),\s*(\d+),\s*(\d+)\)/.exec(css);
  if (!m) throw new Error(`cannot read colour ${css}`);
  return [Number(m[1]), Number(m[2]), Number(m[3])];
}

/* (LUT_SIZE · 3) RGB bytes of a palette. */
export function paletteTable(palette) {
  const stops = stopsOf(palette);
  const interp = scaleLinear().domain(stops.map((s) => s[0])).range(stops.map((s) => s[1])).clamp(true);
  const lut = new Uint8ClampedArray(LUT_SIZE * 3);
  for (let i = 0; i < LUT_SIZE; i++) lut.set(parseRgb(interp(i / (LUT_SIZE - 1))), 3 * i);
  return lut;
}

/* {kind, domain, position(v), index(v), rgb(v), css(v), lut, ticks(n)}: index is the table row of v, −1 for a
 * value with no colour (null, NaN, ±∞: the host draws those as masked). */
export function colourScale({ kind = "sequential", palette, domain }) {
  if (kind !== "sequential" && kind !== "diverging") {
    throw new Error(`unknown scale kind ${JSON.stringify(kind)}: use "sequential" or "diverging"`);
  }
  const [lo, hi] = domain;
  const pos = kind === "diverging"
    ? scaleDiverging((t) => t).domain([lo, 0, hi]).clamp(true)
    : scaleSequential((t) => t).domain([lo, hi]).clamp(true);
  const lut = paletteTable(palette);
  // pos(v) without d3's call chain per cell (a 256 × 256 map is 65k of them): the same arithmetic as d3's
  // sequential and diverging scales with the identity transform and clamp, so the same table row
  const k10 = kind === "diverging" ? (lo === 0 ? 0 : 0.5 / (0 - lo)) : lo === hi ? 0 : 1 / (hi - lo);
  const k21 = hi === 0 ? 0 : 0.5 / hi, s = 0 < lo ? -1 : 1;
  const fast = kind === "diverging"
    ? (v) => { const x = 0.5 + v * (s * v < 0 ? k10 : k21); return x > 0 ? (x > 1 ? 1 : x) : 0; }
    : (v) => { if (k10 === 0) return 0.5; const x = (v - lo) * k10; return x > 0 ? (x > 1 ? 1 : x) : 0; };
  const index = (v) => (v === null || !Number.isFinite(v) ? -1 : Math.round(fast(v) * (LUT_SIZE - 1)));
  const rgb = (v) => { const i = index(v); return i < 0 ? null : [lut[3 * i], lut[3 * i + 1], lut[3 * i + 2]]; };
  const css = (v) => { const c = rgb(v); return c ? `rgb(${c[0]},${c[1]},${c[2]})` : null; };
  const ticks = (n) => scaleLinear().domain([lo, hi]).ticks(n);
  return { kind, domain: [lo, hi], position: (v) => pos(v), index, rgb, css, lut, ticks };
}

/* Black or white, whichever reads better on an RGB colour (WCAG relative luminance). */
export function textColourOn([r, g, b]) {
  const lin = (c) => { c /= 255; return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4; };
  const y = 0.2126 * lin(r) + 0.7152 * lin(g) + 0.0722 * lin(b);
  return (y + 0.05) / 0.05 >= 1.05 / (y + 0.05) ? "#000000" : "#ffffff";
}
