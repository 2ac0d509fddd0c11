import test from "node:test";
import assert from "node:assert/strict";
import { cellFontSize, cellTextFits, formatCell, valueText } from "../../../viz_app/browser/components/cellText.mjs";

test("cell numbers have two decimals, hover values six significant digits", () => {
  assert.equal(formatCell(1), "1.00");
  assert.equal(formatCell(0.4249), "0.42");
  assert.equal(formatCell(-0.17), "−0.17");
  assert.equal(valueText(0.123456789), "0.123457");
  assert.equal(valueText(2), "2");
  assert.equal(valueText(0.5, true), "−∞ (masked)");
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
