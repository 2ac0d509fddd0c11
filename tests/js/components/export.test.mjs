import test from "node:test";
import assert from "node:assert/strict";
import { barsCsv, csvField, exportFigure, figureJson, heatmapCsv, provenanceOf, svgDocument } from "../../../viz_app/browser/components/export.mjs";
import { svgPainter, xmlText } from "../../../viz_app/browser/components/painter.mjs";
import { heatmapLayout, paintCells, paintColourbar, paintFrame } from "../../../viz_app/browser/components/heatmap.mjs";
import { THEMES, colourScale } from "../../../viz_app/browser/components/palettes.mjs";
import { measure } from "./measure.mjs";

const SHA = "0123456789abcdef".repeat(4);
const prov = provenanceOf("heatmap:attention", { checkpointSha256: SHA, version: "1.2.3" });
const tokens = ["a,b", 'say "hi"', "line\nbreak", "<b>x</b>"];
const z = [[0.1, 0.2, 0.3, 0.4], [1, 0, NaN, -Infinity], [0.5, 0.5, 0, 0], [0.25, 0.25, 0.25, 0.25]];

test("provenance: missing values say unknown, line breaks cannot start a new line", () => {
  assert.deepEqual(provenanceOf("bars:x", null), { figure: "bars:x", checkpoint_sha256: "unknown", version: "unknown" });
  assert.equal(provenanceOf("bars:x", { version: "1\n2" }).version, "1 2");
});

/* RFC 4180 records (a reader independent of the writer under test). */
function parseCsv(text) {
  const records = [];
  let field = "", record = [], quoted = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i];
    if (quoted) {
      if (ch === '"' && text[i + 1] === '"') { field += '"'; i++; } else if (ch === '"') quoted = false; else field += ch;
    } else if (ch === '"') quoted = true;
    else if (ch === ",") { record.push(field); field = ""; }
    else if (ch === "\r" && text[i + 1] === "\n") { record.push(field); records.push(record); record = []; field = ""; i++; }
    else field += ch;
  }
  return records;
}

test("CSV: the provenance is the first line, one row per cell, fields quoted as RFC 4180 says", () => {
  const lines = heatmapCsv(prov, { z, rowTokens: tokens, colTokens: tokens, valueName: "P" }).split("\r\n");
  assert.equal(lines[0], `# figure=heatmap:attention checkpoint_sha256=${SHA} version=1.2.3`);
  assert.equal(lines[1], "row,row_token,column,column_token,P,masked");
  assert.equal(lines[2], '0,"a,b",0,"a,b",0.1,'); // the view marks no masked cells: unknown, not "false"
  const records = parseCsv(heatmapCsv(prov, { z, rowTokens: tokens, colTokens: tokens }).split("\r\n").slice(1).join("\r\n"));
  assert.equal(records.length, 1 + 16);
  assert.deepEqual(records[1 + 2 * 4 + 3].slice(0, 4), ["2", "line\nbreak", "3", "<b>x</b>"]);
  assert.equal(csvField('say "hi"'), '"say ""hi"""');
  const body = heatmapCsv(prov, { z, rowTokens: tokens, colTokens: tokens });
  assert.ok(body.includes(',-Infinity,') && body.includes(',2,"line\nbreak",,\r\n'));
  const masked = heatmapCsv(prov, { z, rowTokens: tokens, colTokens: tokens, masked: z.map((row, r) => row.map((_, c) => c > r)) });
  assert.ok(masked.split("\r\n")[2].endsWith(",false") && masked.split("\r\n")[3].endsWith(",true"));
  const bars = barsCsv(prov, { values: [0.5, 1], labels: ["x", "y"], valueName: "P" }).split("\r\n");
  assert.deepEqual(bars.slice(0, 4), [`# figure=heatmap:attention checkpoint_sha256=${SHA} version=1.2.3`, "index,label,P,masked", "0,x,0.5,", "1,y,1,"]);
  const row = barsCsv(prov, { values: [0, 0.7], labels: ["x", "y"], valueName: "P", masked: [true, false] }).split("\r\n");
  assert.deepEqual(row.slice(2, 4), ["0,x,0,true", "1,y,0.7,false"]);  // a row's excluded cell, as the map marks it
});

test("JSON: the provenance first, typed arrays as lists, non-finite numbers as null", () => {
  const text = figureJson(prov, { z: [new Float32Array([0.5, NaN])], n: Infinity });
  const parsed = JSON.parse(text);
  assert.deepEqual(Object.keys(parsed)[0], "provenance");
  assert.equal(parsed.provenance.checkpoint_sha256, SHA);
  assert.deepEqual(parsed.z, [[0.5, null]]);
  assert.equal(parsed.n, null);
});

test("SVG: one <rect> per cell, text as escaped <text>, the provenance in its metadata", () => {
  const theme = THEMES.normal, scale = colourScale({ kind: "sequential", palette: "Viridis", domain: [0, 1] });
  const L = heatmapLayout({ width: 500, height: 400, rowTokens: tokens, colTokens: tokens, title: "A <title>",
    valueName: "P", barTickTexts: ["0.0", "1.0"], theme }, measure);
  const p = svgPainter(measure);
  paintFrame(p, L);
  paintCells(p, L, { z, masked: null, scale, theme });
  paintColourbar(p, L, { scale, valueName: "P" });
  const svg = svgDocument(prov, 500, 400, "A <title>", p.body(), "sans-serif");
  assert.equal((svg.match(/<rect class="cell"/g) || []).length, 16);
  assert.ok(svg.includes(">&lt;b&gt;x&lt;/b&gt;</text>") && !svg.includes("<b>"));
  assert.ok(svg.includes(`<metadata>{&quot;figure&quot;:&quot;heatmap:attention&quot;,&quot;checkpoint_sha256&quot;:&quot;${SHA}&quot;`));
  assert.ok(svg.split("\n")[1].includes(`checkpoint_sha256=${SHA}`));
  assert.ok(svg.includes(">0.10</text>"), "cell numbers are text");
  const fills = [...svg.matchAll(/<rect class="cell"[^>]*fill="([^"]+)"/g)].map((m) => m[1]);
  assert.equal(fills[6], "rgb(217,217,217)", "NaN is drawn in the theme's masked colour");
  assert.equal(fills[7], "rgb(217,217,217)", "so is −∞");
  assert.equal(fills[4], "rgb(253,231,37)", "1 is Viridis' last stop");
});

test("XML text drops what XML 1.0 forbids and keeps emoji", () => {
  assert.equal(xmlText("a\u0001b\ud800c🙂&"), "a\ufffdb\ufffdc🙂&amp;");
});

test("cell numbers are drawn only where they fit: all at 4 tokens in 500 px, none at 64", () => {
  const theme = THEMES.normal, scale = colourScale({ kind: "sequential", palette: "Viridis", domain: [0, 1] });
  for (const [T, expected] of [[4, 16], [64, 0]]) {
    const toks = Array.from({ length: T }, (_, i) => `t${i}`), zz = toks.map(() => toks.map(() => 0.5));
    const L = heatmapLayout({ width: 500, height: 400, rowTokens: toks, colTokens: toks, valueName: "P",
      barTickTexts: ["0.0", "1.0"], theme }, measure);
    const p = svgPainter(measure);
    paintCells(p, L, { z: zz, masked: null, scale, theme });
    const numbers = p.body().match(/>0\.50<\/text>/g) || [];
    assert.equal(numbers.length, expected, `T=${T}`);
    if (expected) assert.ok(measure("0.50", L.f.cell) + 4 <= L.cw && L.f.cell + 4 <= L.ch);
  }
});

test("cell numbers: every one or none, so a negative number too wide for its cell takes the others with it", () => {
  const theme = THEMES.normal, scale = colourScale({ kind: "diverging", palette: "RdBu", domain: [-1, 1] });
  const layout = T => {
    const toks = Array.from({ length: T }, (_, i) => `t${i}`);
    return [toks, heatmapLayout({ width: 500, height: 400, rowTokens: toks, colTokens: toks, valueName: "ΔP",
      barTickTexts: ["−1", "1"], theme }, measure)];
  };
  const numbers = (L, zz) => {
    const p = svgPainter(measure);
    paintCells(p, L, { z: zz, masked: null, scale, theme });
    return (p.body().match(/<text/g) || []).length;
  };
  // a size where "0.50" fits a cell and "−0.33" does not (before, those cells alone were left without a number)
  const T = Array.from({ length: 60 }, (_, i) => i + 2).find(t => {
    const L = layout(t)[1], f = L.f.cell;
    return L.ch >= f + 4 && measure("0.50", f) + 4 <= L.cw && measure("−0.33", f) + 4 > L.cw;
  });
  assert.ok(T, "some sentence length puts the cells between the two widths");
  const [toks, L] = layout(T);
  assert.equal(numbers(L, toks.map(() => toks.map(() => 0.5))), T * T);
  assert.equal(numbers(L, toks.map((_, r) => toks.map((_, c) => (r === c ? -0.33 : 0.5)))), 0);
});

test("an export names its model in its first line and its file's name, so two models' exports stay apart", async () => {
  const fig = { id: "bars:prediction/prediction", provenance: { model: "disan-sst5", checkpointSha256: SHA, version: "1.2.3" },
                data: () => ({ values: [0.7] }), csv: (p) => barsCsv(p, { values: [0.7], labels: ["pos"] }) };
  const json = await exportFigure("json", fig), csv = await exportFigure("csv", fig);
  assert.equal(json.filename, "disan-sst5_bars_prediction_prediction.json");
  assert.equal(JSON.parse(json.data).provenance.model, "disan-sst5");
  assert.equal(csv.data.split("\r\n")[0], `# figure=bars:prediction/prediction model=disan-sst5 checkpoint_sha256=${SHA} version=1.2.3`);
  const anonymous = await exportFigure("json", { ...fig, provenance: { checkpointSha256: SHA, version: "1.2.3" } });
  assert.equal(anonymous.filename, "bars_prediction_prediction.json");  // a caller that names no model
});
