import test from "node:test";
import assert from "node:assert/strict";
import { heatmapLayout, paintColourbar } from "../../../viz_app/browser/components/heatmap.mjs";
import { barsDomain, barsLayout } from "../../../viz_app/browser/components/bars.mjs";
import { cellAt } from "../../../viz_app/browser/components/figure.mjs";
import { THEMES, colourScale } from "../../../viz_app/browser/components/palettes.mjs";
import { measure } from "./measure.mjs";

const tokens = (n) => Array.from({ length: n }, (_, i) => (i % 5 === 0 ? `token-number-${i}` : `t${i}`));

function spec(T, over = {}) {
  return { width: 600, height: 500, rowTokens: tokens(T), colTokens: tokens(T), title: "P", xLabel: "key",
    yLabel: "query", valueName: "P", barTickTexts: ["0.0", "0.5", "1.0"], theme: THEMES.normal, ...over };
}

test("the cells fill the plot, which leaves room for every label drawn", () => {
  for (const T of [1, 10, 64, 256]) {
    const L = heatmapLayout(spec(T), measure);
    assert.ok(Math.abs(L.cw * T - L.plot.w) < 1e-6 && Math.abs(L.ch * T - L.plot.h) < 1e-6);
    const widest = Math.max(...L.rowLabels.map((s) => measure(s, L.f.tick)));
    assert.ok(L.plot.x - 6 - widest >= 8 + L.f.line, `T=${T}: the row labels reach the y title`);
    assert.ok(L.plot.y + L.plot.h + 6 + L.xTicks.extent <= L.height - 8 - L.f.line + 1e-6, `T=${T}: column labels reach the x title`);
    assert.ok(L.yTicks.step * L.ch >= Math.ceil(L.f.tick * 1.25), `T=${T}: row labels overlap`);
  }
});

/* The colour bar's ticks (their right ends) and numbers ([text, x]) as paintColourbar draws them. */
function colourbarMarks(L, kind = "sequential", domain = [0, 1]) {
  const ticks = [], numbers = [], ignore = () => {};
  const painter = { rect: ignore, gradient: ignore, frame: ignore, line: (x0, y0, x1) => ticks.push(x1), text: (s, x) => numbers.push([s, x]) };
  paintColourbar(painter, L, { scale: colourScale({ kind, palette: "RdBu", domain }), valueName: "" });
  return { tickEnd: Math.max(...ticks), numbers: numbers.filter(([s]) => s !== "") };
}

test("the colour bar's numbers stand clear of their ticks and inside the figure, at any text size", () => {
  // 2 px from a 3 px tick, talk mode's 18 px numbers read as negative on a projector ("-0.8", "--0.05")
  for (const theme of [THEMES.normal, THEMES.presentation]) {
    for (const T of [1, 10, 64]) {
      const L = heatmapLayout(spec(T, { theme, barTickTexts: ["−0.10", "0.00", "0.10"] }), measure);
      const { tickEnd, numbers } = colourbarMarks(L, "diverging", [-0.1, 0.1]);
      assert.ok(numbers.length >= 3);
      for (const [s, x] of numbers) {
        assert.ok(x - tickEnd >= L.f.tick / 3, `${theme.name} T=${T}: "${s}" ${x - tickEnd} px from its tick`);
        assert.ok(x + measure(s, L.f.tick) <= L.width, `${theme.name} T=${T}: "${s}" is cut`);
      }
    }
  }
});

test("without a colour bar the cells take its room", () => {
  const withBar = heatmapLayout(spec(10), measure), without = heatmapLayout(spec(10, { colourbar: false }), measure);
  assert.equal(without.bar, null);
  assert.ok(without.plot.w > withBar.plot.w + withBar.barTextWidth);
  assert.equal(without.plot.x + without.plot.w, 600 - 8);
});

test("talk mode's bigger text takes more room", () => {
  const normal = heatmapLayout(spec(10), measure), talk = heatmapLayout(spec(10, { theme: THEMES.presentation }), measure);
  assert.ok(talk.f.tick > normal.f.tick && talk.plot.x > normal.plot.x);
});

test("a point finds its cell, and nothing outside the cells", () => {
  const L = heatmapLayout(spec(4), measure);
  assert.deepEqual(cellAt(L.plot, 4, 4, L.plot.x + 1.5 * L.cw, L.plot.y + 2.5 * L.ch), [2, 1]);
  assert.equal(cellAt(L.plot, 4, 4, L.plot.x - 1, L.plot.y + 1), null);
  assert.equal(cellAt(L.plot, 4, 4, L.plot.x + 1, L.plot.y + L.plot.h + 1), null);
});

test("bars: the value axis includes 0 and is nice; a point finds its bar", () => {
  assert.deepEqual(barsDomain([0.13, 0.72]), [0, 0.8]);
  assert.deepEqual(barsDomain([-0.3, 0.12]), [-0.3, 0.2]);
  assert.deepEqual(barsDomain([0.2], [0, 1]), [0, 1]);
  assert.deepEqual(barsDomain([null, NaN]), [0, 1]);
  for (const orientation of ["horizontal", "vertical"]) {
    const L = barsLayout({ width: 500, height: 300, labels: tokens(12), orientation, domain: [0, 1], theme: THEMES.normal }, measure);
    const mid = L.horizontal ? [L.plot.x + 5, L.plot.y + 3.5 * L.band] : [L.plot.x + 3.5 * L.band, L.plot.y + 5];
    const grid = L.horizontal ? [12, 1] : [1, 12];
    assert.equal(cellAt(L.plot, ...grid, ...mid).reduce((a, b) => a + b), 3, orientation);
    assert.equal(cellAt(L.plot, ...grid, L.plot.x - 2, L.plot.y - 2), null);
  }
});

test("bars: the value axis' numbers never touch, however narrow the chart", () => {
  // the app's Explore puts the prediction in a 250 px column: talk mode's numbers ran together ("0.00.20.40.60.81.0")
  for (const theme of [THEMES.normal, THEMES.presentation]) {
    for (const [width, height] of [[250, 200], [500, 300], [1200, 300], [300, 150]]) {
      for (const orientation of ["horizontal", "vertical"]) {
        const L = barsLayout({ width, height, labels: tokens(5), orientation, domain: [0, 1], theme }, measure);
        const boxes = L.valueTicks.map(([t, s]) => {
          const at = L.value(t), half = (L.horizontal ? measure(s, L.f.tick) : L.f.tick) / 2;
          return [at - half, at + half];
        }).sort((a, b) => a[0] - b[0]);
        assert.ok(L.valueTicks.length >= 2, `${theme.name} ${width}×${height} ${orientation}: no scale left`);
        boxes.slice(1).forEach((box, i) => assert.ok(box[0] - boxes[i][1] >= L.f.tick / 2,
          `${theme.name} ${width}×${height} ${orientation}: ${JSON.stringify(L.valueTicks)} touch`));
      }
    }
  }
});
