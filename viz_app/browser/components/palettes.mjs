/* Colour: the palettes and themes of today's figures (viz_app/draw/theme.py) and the heatmap's colour scales. The
 * stops are Plotly's, exactly as viz_app.draw.site_view.figure_context() writes them (evenly spaced, the positions
 * computed as Plotly computes them), so a cell has the colour it had in the Plotly figures;
 * tests/test_figure_components.py asserts both tables equal figure_context()'s, so they cannot drift. A value → a
 * position in [0, 1] (sequential over [lo, hi]; diverging centred on 0, so 0 is the palette's middle whatever the
 * data) → a row of a 257-entry table interpolated in RGB between the stops, as Plotly does, so painting T × T cells
 * is one table look-up per cell. */
import { scaleLinear } from "d3-scale";

const spaced = (colours) => colours.map((c, i) => [i * (1 / (colours.length - 1)), c]);
const rgbs = (s) => s.split(" ").map((c) => `rgb(${c})`);
export const PALETTES = Object.freeze({
  Viridis: spaced(["#440154", "#482878", "#3e4989", "#31688e", "#26828e", "#1f9e89", "#35b779", "#6ece58", "#b5de2b", "#fde725"]),
  Cividis: spaced(["#00224e", "#123570", "#3b496c", "#575d6d", "#707173", "#8a8678", "#a59c74", "#c3b369", "#e1cc55", "#fee838"]),
  RdBu: spaced(rgbs("103,0,31 178,24,43 214,96,77 244,165,130 253,219,199 247,247,247 209,229,240 146,197,222 67,147,195 33,102,172 5,48,97")),
  PuOr: spaced(rgbs("127,59,8 179,88,6 224,130,20 253,184,99 254,224,182 247,247,247 216,218,235 178,171,210 128,115,172 84,39,136 45,0,75")),
});

/* Okabe & Ito (2008), theme.OKABE_ITO: categorical colours safe for the common colour-vision deficiencies. */
const OKABE_ITO = ["#0072B2", "#E69F00", "#009E73", "#CC79A7", "#56B4E9", "#D55E00", "#F0E442", "#000000"];

/* theme.NORMAL and theme.PRESENTATION (talk mode: bigger text, Cividis / PuOr), less Plotly's template name. */
export const THEMES = Object.freeze({
  normal: { name: "normal", font_size: 13, sequential: "Viridis", diverging: "RdBu", categorical: OKABE_ITO,
    masked: "#d9d9d9", cell_height: 24 },
  presentation: { name: "presentation", font_size: 20, sequential: "Cividis", diverging: "PuOr",
    categorical: OKABE_ITO, masked: "#d9d9d9", cell_height: 34 },
});

/* A theme object from its name ("normal", "presentation", or "talk" for the latter) or the object itself. */
export function themeOf(nameOrTheme) {
  if (nameOrTheme && typeof nameOrTheme === "object") return nameOrTheme;
  const theme = THEMES[nameOrTheme === "talk" ? "presentation" : nameOrTheme || "normal"];
  if (!theme) throw new Error(`unknown theme ${JSON.stringify(nameOrTheme)}: use "normal" or "presentation"`);
  return theme;
}

export const LUT_SIZE = 257;  // odd: 0, the middle of a diverging scale, has a row of its own

/* [lo, hi] of the finite values of a matrix (null, NaN and ±∞ skipped). A map with no finite value gets
 * [0, 1]; a constant map a scale one unit wide, [0, 1] for a constant in (0, 1] (a one-word sentence's
 * source2token weights, all 1, were drawn on [1, 2], which no probability reaches; figures.js limits is built on it). */
export function extent(z) {
  let lo = Infinity, hi = -Infinity;
  for (const row of z) for (const v of row) if (v !== null && Number.isFinite(v)) { if (v < lo) lo = v; if (v > hi) hi = v; }
  return lo === Infinity ? [0, 1] : hi > lo ? [lo, hi] : oneUnit(lo);
}

/* The scale of a map whose values are all `c`. */
export const oneUnit = (c) => (c > 0 && c <= 1 ? [0, 1] : [c, c + 1]);

/* The domain a scale is drawn on: the caller's zmin/zmax where given, else the data's; a diverging domain is
 * symmetric about 0 (±max |value|) unless both ends are given. */
export function domainOf(kind, z, zmin, zmax) {
  const given = (v) => v !== null && v !== undefined && Number.isFinite(v);
  if (given(zmin) && given(zmax) && zmax > zmin) return [zmin, zmax];
  const [lo, hi] = extent(z), a = given(zmin) ? zmin : lo, b = given(zmax) ? zmax : hi;
  if (kind !== "diverging") return b > a ? [a, b] : oneUnit(a);
  const bound = Math.max(Math.abs(a), Math.abs(b)) || 1;
  return [-bound, bound];
}

/* (LUT_SIZE · 3) RGB bytes of a palette: its name or its stops [[position, css colour], …]. */
export function paletteTable(palette) {
  const stops = Array.isArray(palette) && palette.length >= 2 ? palette : PALETTES[palette];
  if (!stops) throw new Error(`unknown palette ${JSON.stringify(palette)}: use one of ${Object.keys(PALETTES).join(", ")} or stops`);
  const interp = scaleLinear().domain(stops.map((s) => s[0])).range(stops.map((s) => s[1])).clamp(true);
  const lut = new Uint8ClampedArray(LUT_SIZE * 3);
  for (let i = 0; i < LUT_SIZE; i++) lut.set(interp(i / (LUT_SIZE - 1)).match(/\d+/g).slice(0, 3).map(Number), 3 * i);
  return lut;
}

/* {kind, domain, position(v), index(v), lut, ticks(n)}: index is the table row of v, −1 for a value
 * with no colour (null, NaN, ±∞: drawn as masked). */
export function colourScale({ kind = "sequential", palette, domain }) {
  if (kind !== "sequential" && kind !== "diverging") throw new Error(`unknown scale kind ${JSON.stringify(kind)}: use "sequential" or "diverging"`);
  const [lo, hi] = domain, lut = paletteTable(palette);
  // d3's scaleSequential / scaleDiverging (domain [lo, 0, hi]) with the identity interpolator and clamp, without
  // d3's call chain per cell (a 256 × 256 map is 65k of them): the same arithmetic, so the same table row
  const k10 = kind === "diverging" ? (lo === 0 ? 0 : 0.5 / (0 - lo)) : lo === hi ? 0 : 1 / (hi - lo);
  const k21 = hi === 0 ? 0 : 0.5 / hi, s = 0 < lo ? -1 : 1;
  const position = kind === "diverging"
    ? (v) => { const x = 0.5 + v * (s * v < 0 ? k10 : k21); return x > 0 ? (x > 1 ? 1 : x) : 0; }
    : (v) => { if (k10 === 0) return 0.5; const x = (v - lo) * k10; return x > 0 ? (x > 1 ? 1 : x) : 0; };
  const index = (v) => (v === null || !Number.isFinite(v) ? -1 : Math.round(position(v) * (LUT_SIZE - 1)));
  return { kind, domain: [lo, hi], position, index, lut, ticks: (n) => scaleLinear().domain([lo, hi]).ticks(n) };
}

/* Black or white, whichever reads better on an RGB colour [r, g, b] (WCAG relative luminance). */
export function textColourOn(rgb) {
  const [r, g, b] = rgb;
  const lin = (c) => { c /= 255; return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4; };
  const y = 0.2126 * lin(r) + 0.7152 * lin(g) + 0.0722 * lin(b);
  return (y + 0.05) / 0.05 >= 1.05 / (y + 0.05) ? "#000000" : "#ffffff";
}

/* [r, g, b] of "#rrggbb". */
export const hexRgb = (css) => [1, 3, 5].map((k) => parseInt(css.slice(k, k + 2), 16));
