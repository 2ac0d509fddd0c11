/* pair_view.js's prediction line and signed numbers (issue 54's defect: a pair report printed
 * "p(entailment) 0.94 → 0.94 (−0.00)"): a change that rounds to zero is "0.00" with no sign. */
import test from "node:test";
import assert from "node:assert/strict";
import * as F from "../../viz_app/browser/figures.js";
import { predictionChange, predictionHtml, scoreOf, signed } from "../../viz_app/browser/pair_view.js";
import { THEMES } from "../../viz_app/browser/components/palettes.mjs";

F.configure({ themes: THEMES, constants: {}, status_names: {} });

test("signed keeps the sign of a change that shows, and none on one that rounds to zero", () => {
  assert.equal(signed(0.125, 2), "+0.12");
  assert.equal(signed(-0.256, 2), "−0.26");
  for (const x of [-0.001, -0.004999, 0.004, 0, -0]) assert.equal(signed(x, 2), "0.00", String(x));
  assert.equal(signed(-0.0004, 3), "0.000");
  assert.equal(signed(-0.0006, 3), "−0.001");
});

test("the pair's prediction line prints a tiny drop of p(target) as (0.00), never (−0.00)", () => {
  const view = (p) => ({ prediction: [["entailment", p], ["neutral", (1 - p) / 2], ["contradiction", (1 - p) / 2]] });
  const change = predictionChange(view(0.9412), view(0.9396));
  const html = predictionHtml(change);
  assert.match(html, /p\(entailment\) 0\.94 → 0\.94 \(0\.00\)<\/p>$/);
  assert.doesNotMatch(html, /−0\.00|-0\.00/);
  assert.match(predictionHtml(predictionChange(view(0.94), view(0.80))), /\(−0\.14\)<\/p>$/);
});

test("a relatedness pair whose score barely moves prints (0.00)", () => {
  const view = (r) => ({ prediction: [["1", 0.2], ["2", 0.8]], relatedness: r });
  assert.match(predictionHtml(predictionChange(view(3.4712), view(3.4688))), /\(0\.00\)<\/p>$/);
});

test("a score model's change is a relatedness for a pair of sentences and a score for one sentence", () => {
  const view = (r, hypothesis) => ({ prediction: [["1", 0.2], ["2", 0.8]], relatedness: r, hypothesis });
  const pair = predictionChange(view(3.1, { tokens: ["a"] }), view(3.6, { tokens: ["b"] }));
  assert.match(predictionHtml(pair), />relatedness A <b>3\.10<\/b> → B <b>3\.60<\/b> \(\+0\.50\)/);
  assert.equal(scoreOf(pair), "the relatedness score");
  const one = predictionChange(view(3.1, null), view(2.4, null));
  assert.match(predictionHtml(one), />score A <b>3\.10<\/b> → B <b>2\.40<\/b> \(−0\.70\)/);
  assert.equal(scoreOf(one), "the score");
  assert.equal(predictionChange(view(null, null), view(null, null)).relatedness, null); // a classifier: no score
});

test("each side's excluded cells follow it onto the aligned grid; a step with no token there is no excluded cell", async () => {
  const { excludedOnGrid } = await import("../../viz_app/browser/pair_view.js");
  const { directionAllowed } = await import("../../viz_app/browser/recompute.js");
  const side = T => ({ tokens: Array.from({ length: T }, (_, i) => `w${i}`), fw: { allowed: directionAllowed(T, "fw") } });
  // A "the film", B "the good film": B inserts step 1
  const ops = [{ op: "keep", a: 0, b: 0 }, { op: "insert", a: null, b: 1 }, { op: "keep", a: 1, b: 2 }];
  const ex = excludedOnGrid(side(2), side(3), "fw", ops);
  assert.deepEqual(ex.a, [[true, false, true], [false, false, false], [false, false, true]]);
  assert.deepEqual(ex.b, [[true, true, true], [false, true, true], [false, false, true]]);
});
