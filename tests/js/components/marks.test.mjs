// heatmap.mjs's marks on a recording painter: the view's outlined rows and columns (the pair view's edits)
// are framed in their colour across the whole plot, beside the hover, focus and highlight marks.
import test from "node:test";
import assert from "node:assert/strict";
import { paintMarks } from "../../../viz_app/browser/components/heatmap.mjs";
import { checkHeatmapView } from "../../../viz_app/browser/components/validate.mjs";

const L = { plot: { x: 10, y: 20, w: 300, h: 200 }, cw: 100, ch: 50 };  // 3 columns, 4 rows

function frames(marks) {
  const out = [];
  paintMarks({ frame: (x, y, w, h, stroke, width) => out.push([x, y, w, h, stroke, width]) }, L, marks);
  return out;
}

test("an outlined row spans the plot's width and an outlined column its height, in the outline's colour", () => {
  const got = frames([{ kind: "outline", axis: "row", index: 2, colour: "#1a9850" },
                      { kind: "outline", axis: "column", index: 1, colour: "#d73027" }]);
  assert.deepEqual(got, [[11, 121, 298, 48, "#1a9850", 2], [111, 21, 98, 198, "#d73027", 2]]);
});

test("a bad outlines list is one line naming the form it needs", () => {
  const view = { z: [[1]], rowTokens: ["a"] };
  for (const outlines of [{}, [{ axis: "diagonal", index: 0, colour: "red" }], [{ axis: "row", index: 0.5, colour: "red" }]]) {
    assert.throws(() => checkHeatmapView({ ...view, outlines }), (e) => /^outlines must be a list of/.test(e.message) && !e.message.includes("\n"));
  }
  assert.deepEqual(checkHeatmapView({ ...view, outlines: [{ axis: "row", index: 0, colour: "red" }] }).outlines,
    [{ axis: "row", index: 0, colour: "red" }]);
});
