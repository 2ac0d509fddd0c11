// heatmap.mjs's marks (painter.mjs boxes) on a recording painter: the view's outlined rows and columns (the pair view's edits)
// are framed in their colour across the whole plot, beside the hover, focus and highlight marks.
import test from "node:test";
import assert from "node:assert/strict";
import { heatmapMarks } from "../../../viz_app/browser/components/heatmap.mjs";
import { paintBoxes } from "../../../viz_app/browser/components/painter.mjs";
import { checkHeatmapView } from "../../../viz_app/browser/components/validate.mjs";

const L = { plot: { x: 10, y: 20, w: 300, h: 200 }, cw: 100, ch: 50 };  // 3 columns, 4 rows

function frames(view, selected = null, live = null) {
  const out = [], v = { z: [[0, 0, 0], [0, 0, 0], [0, 0, 0], [0, 0, 0]], colTokens: ["a", "b", "c"], ...view };
  paintBoxes({ frame: (x, y, w, h, stroke, width) => out.push([x, y, w, h, stroke, width]) }, L.plot, 4, 3, heatmapMarks(v, selected, live));
  return out;
}

test("an outlined row spans the plot's width and an outlined column its height, in the outline's colour", () => {
  const outlines = [{ axis: "row", index: 2, colour: "#1a9850" }, { axis: "column", index: 1, colour: "#d73027" },
                    { axis: "row", index: 4, colour: "#000" }];  // past the last row: left out
  assert.deepEqual(frames({ outlines }), [[11, 121, 298, 48, "#1a9850", 2], [111, 21, 98, 198, "#d73027", 2]]);
  // on screen: talk mode's cell (3 px, vermilion), the selected row (orange), hover and focus (2 px, black)
  assert.deepEqual(frames({ highlight: [1, 2] }, 3, { hover: [0, 0], focus: null }),
    [[211.5, 71.5, 97, 47, "#D55E00", 3], [11, 171, 298, 48, "#E69F00", 2], [11, 21, 98, 48, "#000000", 2]]);
  assert.deepEqual(frames({ highlight: [1, 2] }, 3, null), [[211.5, 71.5, 97, 47, "#D55E00", 3]]);  // exports: no hover
});

test("a bad outlines list is one line naming the form it needs", () => {
  const view = { z: [[1]], rowTokens: ["a"] };
  for (const outlines of [{}, [{ axis: "diagonal", index: 0, colour: "red" }], [{ axis: "row", index: 0.5, colour: "red" }]]) {
    assert.throws(() => checkHeatmapView({ ...view, outlines }), (e) => /^outlines must be a list of/.test(e.message) && !e.message.includes("\n"));
  }
  assert.deepEqual(checkHeatmapView({ ...view, outlines: [{ axis: "row", index: 0, colour: "red" }] }).outlines,
    [{ axis: "row", index: 0, colour: "red" }]);
});
