import test from "node:test";
import assert from "node:assert/strict";
import { cellFontSize, cellTextFits, clipToWidth, fitXTicks, fitYTicks, formatCell, valueText } from "../../../viz_app/browser/components/text.mjs";
import { measure } from "./measure.mjs";

test("clipToWidth keeps what fits and marks the cut with an ellipsis, counting code points", () => {
  const m = (s) => measure(s, 10);
  assert.equal(clipToWidth("cat", 100, m), "cat");
  const cut = clipToWidth("extraordinarily", 36, m);
  assert.ok(cut.endsWith("…") && m(cut) <= 36, cut);
  assert.equal(clipToWidth("🙂🙂🙂🙂", 18, m), "🙂🙂…");
  assert.equal(clipToWidth("abcdefghij", 1000, m, 5), "abcd…");
  assert.equal(clipToWidth("abc", 2, m), "");
});

/* Corners of a label's box: anchored at (x, 0) on the axis, ending there (flat labels centred), rotated
 * counter-clockwise by `angle`, as text.mjs paintLabels draws them. */
function box(x, width, h, angle) {
  const a = (angle * Math.PI) / 180, u = [Math.cos(a), -Math.sin(a)], n = [Math.sin(a), Math.cos(a)];
  const x0 = angle === 0 ? -width / 2 : -width, x1 = angle === 0 ? width / 2 : 0;
  const y0 = angle === 90 || angle === 0 ? -h / 2 : 0, y1 = y0 + h;
  return [[x0, y0], [x1, y0], [x1, y1], [x0, y1]].map(([s, t]) => [x + s * u[0] + t * n[0], s * u[1] + t * n[1]]);
}

/* Separating axis test for two convex polygons (touching counts as apart). */
function overlap(p, q) {
  for (const poly of [p, q]) {
    for (let i = 0; i < poly.length; i++) {
      const [x1, y1] = poly[i], [x2, y2] = poly[(i + 1) % poly.length], ax = y1 - y2, ay = x2 - x1;
      const proj = (pts) => pts.map(([x, y]) => x * ax + y * ay);
      const a = proj(p), b = proj(q);
      if (Math.max(...a) <= Math.min(...b) + 1e-9 || Math.max(...b) <= Math.min(...a) + 1e-9) return false;
    }
  }
  return true;
}

test("x tick labels never overlap, whatever the widths and the band", () => {
  let seed = 7;
  const rnd = () => ((seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) / 2 ** 32);
  const angles = new Set();
  for (let trial = 0; trial < 400; trial++) {
    const n = 1 + Math.floor(rnd() * 60), band = 2 + rnd() * 60, line = 10 + rnd() * 10;
    const widths = Array.from({ length: n }, () => rnd() * 120);
    const t = fitXTicks(widths, band, line);
    angles.add(t.angle);
    const boxes = t.indices.map((i) => box((i + 0.5) * band, widths[i], line, t.angle));
    for (let k = 1; k < boxes.length; k++) {
      assert.ok(!overlap(boxes[k - 1], boxes[k]), `trial ${trial}: labels ${t.indices[k - 1]} and ${t.indices[k]} overlap at ${t.angle}°`);
    }
    const reach = Math.max(0, ...boxes.flat().map(([, y]) => y));
    assert.ok(reach <= t.extent + 1e-6, `trial ${trial}: labels reach ${reach} past the extent ${t.extent}`);
  }
  assert.deepEqual([...angles].sort((a, b) => a - b), [0, 45, 90]);
});

test("every token is labelled when the band allows it, else every step-th from the first", () => {
  assert.deepEqual(fitXTicks([10, 10, 10], 40, 12).indices, [0, 1, 2]);
  assert.equal(fitXTicks([10, 10, 10], 40, 12).angle, 0);
  const tight = fitXTicks(Array(256).fill(30), 2, 12);
  assert.equal(tight.angle, 90);
  assert.equal(tight.step, 7);  // ceil((12 + 2) / 2)
  assert.equal(tight.indices[1], 7);
  const y = fitYTicks(Array(100).fill(30), 3, 12);
  assert.ok(y.step * 3 >= 12 && y.indices.length === Math.ceil(100 / y.step));
  assert.equal(fitXTicks([], 10, 12).indices.length, 0);
});


test("cell numbers have two decimals, hover values six significant digits", () => {
  assert.equal(formatCell(1), "1.00");
  assert.equal(formatCell(0.4249), "0.42");
  assert.equal(formatCell(-0.17), "−0.17");
  assert.equal(valueText(0.123456789), "0.123457");
  assert.equal(valueText(2), "2");
  assert.equal(valueText(null, true), "−∞ (masked)");  // a mask's −∞, which JSON carries as null
  assert.equal(valueText(0, true), "0 (masked)");  // an attention weight the block's mask excludes
  assert.equal(valueText(null), "no value");
  assert.equal(valueText(-Infinity), "−∞");
});

test("a number fits a cell only with a margin on every side", () => {
  assert.ok(cellTextFits(20, 10, 24, 14));
  assert.ok(!cellTextFits(21, 10, 24, 14));
  assert.ok(!cellTextFits(20, 11, 24, 14));
  assert.equal(cellFontSize({ font_size: 13 }), 10);
  assert.equal(cellFontSize({ font_size: 10 }), 9);
});
