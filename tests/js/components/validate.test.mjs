import test from "node:test";
import assert from "node:assert/strict";
import { checkBarsView, checkHeatmapView } from "../../../viz_app/browser/components/validate.mjs";

function oneLine(fn, pattern) {
  assert.throws(fn, (err) => !err.message.includes("\n") && pattern.test(err.message));
}

test("bad heatmap views get one line naming the bad value and the fix", () => {
  oneLine(() => checkHeatmapView(null), /needs a view object/);
  oneLine(() => checkHeatmapView({ z: "x", rowTokens: ["a"] }), /z must be a list/);
  oneLine(() => checkHeatmapView({ z: [], rowTokens: [] }), /no tokens/);
  oneLine(() => checkHeatmapView({ z: [[1]], rowTokens: ["a", "b"] }), /z has 1 rows but there are 2 row tokens/);
  oneLine(() => checkHeatmapView({ z: [[1, 2], [3]], rowTokens: ["a", "b"] }), /row 1 of z has 1 values but there are 2/);
  oneLine(() => checkHeatmapView({ z: [[1]], rowTokens: ["a"], scale: "log" }), /scale "log" is unknown/);
  oneLine(() => checkHeatmapView({ z: [[1]], rowTokens: Array(5000).fill("a") }), /5000 tokens; at most 4096/);
});

test("a good view comes back with string tokens and its column tokens", () => {
  const v = checkHeatmapView({ z: [new Float32Array([1, 2])], rowTokens: [7], colTokens: ["a", null] });
  assert.deepEqual(v.rowTokens, ["7"]);
  assert.deepEqual(v.colTokens, ["a", ""]);
  assert.equal(v.scale, "sequential");
});

test("bad bar views get one line too", () => {
  oneLine(() => checkBarsView({ values: [1, 2], labels: ["a"] }), /2 values but 1 labels/);
  oneLine(() => checkBarsView({ values: [], labels: [] }), /no bars/);
  oneLine(() => checkBarsView({ values: [1], labels: ["a"], orientation: "diagonal" }), /orientation "diagonal"/);
  assert.equal(checkBarsView({ values: [1], labels: ["a"] }).orientation, "horizontal");
});
