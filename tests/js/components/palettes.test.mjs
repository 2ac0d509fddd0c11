import test from "node:test";
import assert from "node:assert/strict";
import { PALETTES, colourScale, domainOf, extent, paletteTable, textColourOn, LUT_SIZE } from "../../../viz_app/browser/components/palettes.mjs";

const rgbOf = (s, v) => Array.from(s.lut.slice(3 * s.index(v), 3 * s.index(v) + 3));

test("extent skips null, NaN and infinities; an empty or constant map gets a scale one unit wide", () => {
  assert.deepEqual(extent([[0.2, null, NaN], [-Infinity, 0.7, Infinity]]), [0.2, 0.7]);
  assert.deepEqual(extent([[null, NaN]]), [0, 1]);
  assert.deepEqual(extent([[3, 3]]), [3, 4]);
});

test("a diverging domain is symmetric about 0 unless both ends are given", () => {
  assert.deepEqual(domainOf("diverging", [[-0.2, 0.5]]), [-0.5, 0.5]);
  assert.deepEqual(domainOf("diverging", [[-0.9, 0.5]]), [-0.9, 0.9]);
  assert.deepEqual(domainOf("diverging", [[-0.2, 0.5]], -1, 2), [-1, 2]);
  assert.deepEqual(domainOf("sequential", [[0.1, 0.3]], 0, null), [0, 0.3]);
  assert.deepEqual(domainOf("diverging", [[0, 0]]), [-1, 1]);
});

test("0 is the diverging palette's middle colour whatever the data", () => {
  for (const domain of [[-0.5, 0.5], [-1, 3]]) {
    const s = colourScale({ kind: "diverging", palette: "RdBu", domain });
    assert.equal(s.position(0), 0.5);
    assert.deepEqual(rgbOf(s, 0), [247, 247, 247]);  // RdBu's middle stop
    assert.equal(s.position(domain[0]), 0);
    assert.equal(s.position(domain[1]), 1);
  }
});

test("the sequential scale clamps and gives no colour to non-finite values", () => {
  const s = colourScale({ kind: "sequential", palette: "Viridis", domain: [0, 1] });
  assert.deepEqual(rgbOf(s, -5), [0x44, 0x01, 0x54]);
  assert.deepEqual(rgbOf(s, 7), [0xfd, 0xe7, 0x25]);
  for (const v of [null, NaN, Infinity, -Infinity]) assert.equal(s.index(v), -1);
  assert.throws(() => colourScale({ kind: "rainbow", palette: "Viridis", domain: [0, 1] }), /sequential.*diverging/);
});

test("every palette's table passes through its stops (RGB interpolation like Plotly)", () => {
  for (const [name, stops] of Object.entries(PALETTES)) {
    const lut = paletteTable(name);
    for (const [pos, css] of stops) {
      const i = Math.round(pos * (LUT_SIZE - 1));
      if (Math.abs(i / (LUT_SIZE - 1) - pos) > 1e-9) continue;  // a stop between two table rows
      const hex = css.startsWith("#") ? [1, 3, 5].map((k) => parseInt(css.slice(k, k + 2), 16)) : css.match(/\d+/g).map(Number);
      assert.deepEqual(Array.from(lut.slice(3 * i, 3 * i + 3)), hex, `${name} at ${pos}`);
    }
  }
  assert.throws(() => paletteTable("Jet"), /unknown palette "Jet"/);
});

test("cell text is black on light colours and white on dark ones", () => {
  assert.equal(textColourOn([0xfd, 0xe7, 0x25]), "#000000");
  assert.equal(textColourOn([0x44, 0x01, 0x54]), "#ffffff");
});

test("index(v) is d3-scale's row exactly (sequential and diverging, clamped, constant domains), without d3 per cell", async () => {
  const { scaleDiverging, scaleSequential } = await import("d3-scale");
  const domains = [[0, 1], [0, 0.37], [-1, 1], [-0.2, 0.9], [-3, -1], [0.5, 0.5], [0, 0], [2, 5], [-0.004, 0.004], [-5, 0], [0, 5]];
  let seed = 7;
  const random = () => ((seed = (seed * 16807) % 2147483647) / 2147483647);
  for (const kind of ["sequential", "diverging"]) {
    for (const d of domains) {
      const pos = kind === "diverging" ? scaleDiverging((t) => t).domain([d[0], 0, d[1]]).clamp(true)
        : scaleSequential((t) => t).domain(d).clamp(true);
      const scale = colourScale({ kind, palette: "Viridis", domain: d });
      const values = [d[0], d[1], 0, -0, (d[0] + d[1]) / 2, 1e30, -1e30];
      for (let i = 0; i < 2000; i++) values.push(d[0] + (d[1] - d[0]) * (random() * 1.4 - 0.2));
      for (const v of values) assert.equal(scale.index(v), Math.round(pos(v) * (LUT_SIZE - 1)), `${kind} ${d} ${v}`);
      assert.equal(scale.index(NaN), -1);
    }
  }
});
