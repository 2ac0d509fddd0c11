/* The attention maps sections.js builds mark the cells each block's mask excludes (Shen Eq. 17, Im Fig. 3) as
 * masked, so that the canvas draws them in the theme's masked colour and not as weights of 0: checked against
 * recompute.js directionAllowed, cell by cell, for the pair maps, the heads (pooled too) and a mask that excludes
 * nothing. */
import test from "node:test";
import assert from "node:assert/strict";
import * as F from "../../viz_app/browser/figures.js";
import { attentionPair, excluded, headsFigure } from "../../viz_app/browser/sections.js";
import { directionAllowed } from "../../viz_app/browser/recompute.js";
import { THEMES } from "../../viz_app/browser/components/palettes.mjs";

F.configure({ themes: THEMES, constants: { HEAD_CELLS: 3 }, status_names: {} });

/* A distance-based SAN sentence of T tokens under masks [fw, bw]: every allowed cell a weight, H heads. */
function sentence(T, masks, H = 2) {
  const block = mask => {
    const allowed = directionAllowed(T, mask), attention = Float32Array.from(allowed, a => (a ? 0.5 : 0));
    const heads = new Float32Array(H * T * T);
    for (let h = 0; h < H; h++) heads.set(attention, h * T * T);
    return { mask, T, allowed, attention, heads, H };
  };
  return { tokens: Array.from({ length: T }, (_, i) => `w${i}`), fw: block(masks[0]), bw: block(masks[1]) };
}

const panels = spec => spec.panels.filter(p => p.kind === "heatmap").map(p => p.view);

test("the pair maps mark exactly the cells each block's mask excludes; the weights stay their numbers", () => {
  const T = 4, sent = sentence(T, ["fw", "bw"]);
  const [fw, bw] = panels(attentionPair({ arch: "dsa", masks: ["fw", "bw"] }, sent, "t", "normal"));
  for (const [view, mask] of [[fw, "fw"], [bw, "bw"]]) {
    const allowed = directionAllowed(T, mask);
    for (let i = 0; i < T; i++) {
      for (let j = 0; j < T; j++) {
        assert.equal(view.masked[i][j], !allowed[i * T + j], `${mask} cell (${i}, ${j})`);
        assert.equal(view.z[i][j], allowed[i * T + j] ? 0.5 : 0);
      }
    }
  }
  assert.ok(fw.masked[0].every(Boolean), "the first token attends to nothing under the forward mask");
  assert.ok(bw.masked[T - 1].every(Boolean), "the last token attends to nothing under the backward mask");
});

test("a block whose mask excludes nothing carries no masked cells", () => {
  const sent = sentence(3, ["none", "diag"]);
  const [none, diag] = panels(attentionPair({ arch: "dsa", masks: ["none", "diag"] }, sent, "t", "normal"));
  assert.equal(none.masked, null);
  assert.deepEqual(diag.masked, [[true, false, false], [false, true, false], [false, false, true]]);
  assert.deepEqual(excluded(sent, "fw"), [[false, false, false], [false, false, false], [false, false, false]]);
});

test("pooled heads mark a block masked only when every cell in it is excluded", () => {
  const T = 7, sent = sentence(T, ["fw", "bw"]);  // HEAD_CELLS 3: blocks of 3 tokens, 3 × 3 pooled cells
  const views = panels(headsFigure(sent, "fw", "heads", "normal"));
  assert.equal(views.length, 2);
  const cover = (r, c) => {  // every cell (i, j) of block (r, c) excluded by the forward mask (j ≥ i)
    for (let i = 3 * r; i < Math.min(T, 3 * r + 3); i++) for (let j = 3 * c; j < Math.min(T, 3 * c + 3); j++) if (j < i) return false;
    return true;
  };
  for (const v of views) {
    assert.equal(v.z.length, 3);
    for (let r = 0; r < 3; r++) for (let c = 0; c < 3; c++) assert.equal(v.masked[r][c], cover(r, c), `block (${r}, ${c})`);
  }
  assert.equal(views[0].masked[0][0], false, "the first block mixes excluded cells with (1, 0), allowed");
  assert.equal(views[0].masked[0][1], true, "above the diagonal every cell is excluded");
});
