import test from "node:test";
import assert from "node:assert/strict";
import { barsPanel, checkSpec, figureHtml, figureSpec, heatmapPanel, sameLayout, sameSpec } from "../../viz_app/browser/figure_spec.js";

const view = { z: [[0.5, 0.5], [1, 0]], rowTokens: ["a", "b"] };
const spec = () => figureSpec("mean-premise", "Mean", [heatmapPanel("forward", view), heatmapPanel("backward", view),
  barsPanel("row", { values: [0.5, 0.5], labels: ["a", "b"] })], { rowBars: { panel: "*", bars: "row" } });

test("a good spec passes; each fault is named in one sentence", () => {
  assert.equal(checkSpec(spec()).name, "mean-premise");
  const cases = [
    [{ ...spec(), kind: "plotly" }, /kind "figure"/],
    [{ ...spec(), name: "" }, /needs a name/],
    [{ ...spec(), panels: [] }, /at least one panel/],
    [{ ...spec(), panels: [{ kind: "scatter", name: "x", view }] }, /panel 0 has kind "scatter"; use heatmap or bars/],
    [{ ...spec(), panels: [heatmapPanel("x", view), heatmapPanel("x", view)] }, /two panels are named "x"/],
    [{ ...spec(), panels: [heatmapPanel("x", null)] }, /panel x needs a view/],
    [{ ...spec(), rowBars: { panel: "*", bars: "forward" } }, /rowBars.bars "forward" is not a bars panel/],
    [{ ...spec(), rowBars: { panel: "row", bars: "row" } }, /rowBars.panel "row" is not a heatmap panel/],
  ];
  for (const [bad, message] of cases) {
    assert.throws(() => checkSpec(bad), message);
    assert.throws(() => checkSpec(bad), (err) => !err.message.includes("\n"));
  }
});

test("sameLayout: the same panel kinds and names in order keep the components; anything else rebuilds", () => {
  const a = spec(), b = spec();
  b.panels[0] = heatmapPanel("forward", { ...view, z: [[1, 0], [0, 1]] });  // new data only
  assert.equal(sameLayout(a, b), true);
  assert.equal(sameLayout(a, { ...b, panels: b.panels.slice(0, 2) }), false);
  assert.equal(sameLayout(a, { ...b, panels: [b.panels[1], b.panels[0], b.panels[2]] }), false);
  assert.equal(sameLayout(a, { ...b, columns: 1 }), false);
  assert.equal(sameLayout(a, { ...b, name: "mean-hypothesis" }), false);
});

test("the standalone HTML names the checkpoint and version first, holds the vectors and the data, runs no script", () => {
  const svg = '<?xml version="1.0" encoding="UTF-8"?>\n<!-- figure=heatmap:x -->\n<svg xmlns="http://www.w3.org/2000/svg"><rect class="cell"/></svg>\n';
  const html = figureHtml({ name: "mean-premise", title: "Mean <b>", columns: 2, provenance: { checkpointSha256: "ab".repeat(32), version: "0.9.1" },
    svgs: [svg, svg], data: [{ kind: "heatmap", z: [[1]], row_tokens: ["</script>"] }] });
  const lines = html.split("\n");
  assert.equal(lines[0], "<!DOCTYPE html>");
  assert.equal(lines[1], `<!-- figure=mean-premise checkpoint_sha256=${"ab".repeat(32)} version=0.9.1 -->`);
  assert.match(html, /<meta name="disan-version" content="0.9.1">/);
  assert.equal(html.match(/<rect class="cell"\/>/g).length, 2);
  assert.ok(!html.includes("<?xml"), "inline SVG without its XML declaration");
  assert.match(html, /<title>Mean &lt;b&gt;<\/title>/);
  assert.ok(!/<script(?![^>]*application\/json)/.test(html), "no executable script");
  const json = JSON.parse(html.match(/<script type="application\/json" id="figure-data">(.*)<\/script>/)[1]);
  assert.equal(json.panels[0].row_tokens[0], "</script>");
  assert.equal(json.provenance.version, "0.9.1");
  assert.match(figureHtml({ name: "x", svgs: [svg], data: [] }), /checkpoint_sha256=unknown version=unknown/);
});

test("sameSpec: equal numbers (typed arrays or lists, NaN equal to NaN) are the same figure; any change is not", () => {
  const a = spec(), b = spec();
  b.panels[0] = heatmapPanel("forward", { ...view, z: [Float32Array.from([0.5, 0.5]), [1, 0]] });
  assert.equal(sameSpec(a, b), true);
  assert.equal(sameSpec({ z: [[NaN]] }, { z: [[NaN]] }), true);
  b.panels[0].view.z[1][1] = 1e-9;
  assert.equal(sameSpec(a, b), false);
  assert.equal(sameSpec(a, { ...spec(), title: "other" }), false);
  assert.equal(sameSpec({ x: [1] }, { x: [1], y: undefined }), false);
});
