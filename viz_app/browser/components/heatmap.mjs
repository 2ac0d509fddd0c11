/* A heatmap on canvas: cells, token labels, colour bar, title; hover names the cell, a click or Enter on a
 * row emits "figure-rowselect" (the host shows that row's bars), arrows move a focused cell whose value is
 * announced, and update(view) repaints only the layers a change touches (docs/figure-components.md).
 *
 *   const hm = createHeatmap(parent, {name: "attention", provenance: {checkpointSha256, version}});
 *   hm.update({z, rowTokens, colTokens, title, xLabel, yLabel, valueName: "P", scale: "sequential",
 *              palette, zmin, zmax, masked, theme: "normal" | "presentation", highlight: [r, c],
 *              colourbar: false (panels sharing one scale show it on one of them),
 *              outlines: [{axis: "row" | "column", index, colour}] (rows or columns framed, e.g. a pair's edits)});
 *   hm.update({z: next});   // same tokens: the cells only
 *   await hm.exportAs("svg");  // {filename, mime, data}; also "png", "json", "csv" */
import { themeOf } from "./palettes.mjs";
import { colourScale, domainOf } from "./scales.mjs";
import { canvasPainter } from "./painter.mjs";
import { cellAt, defaultHeight, heatmapLayout } from "./heatmapLayout.mjs";
import { barTicks, paintCells, paintColourbar, paintFrame, paintMarks } from "./heatmapPaint.mjs";
import { valueText } from "./cellText.mjs";
import { createShell } from "./shell.mjs";
import { attachKeys } from "./keys.mjs";
import { dataTable } from "./table.mjs";
import { checkHeatmapView } from "./validate.mjs";
import { exportFigure } from "./exporter.mjs";
import { heatmapCsv } from "./exportText.mjs";

const LAYERS = ["frame", "cells", "colourbar", "marks"];

export function createHeatmap(parent, { name = "heatmap", provenance = null, onRowSelect = null } = {}) {
  const id = `heatmap:${name}`;
  const shell = createShell(parent, { kind: "heatmap", name, layers: LAYERS, buildTable });
  const paints = Object.fromEntries(LAYERS.map((l) => [l, 0]));
  let raw = {}, v = null, theme = null, scale = null, L = null, p = null, keys = { layout: "", scale: "", marks: "" };
  let hover = null, focus = null, selected = null;

  const model = () => ({ z: v.z, masked: v.masked, scale, theme, valueName: v.valueName });
  const cellName = (r, c) => `row: #${r} ${v.rowTokens[r]}\ncolumn: #${c} ${v.colTokens[c]}\n` +
    `${v.valueName || "value"} = ${valueText(v.z[r][c], v.masked?.[r]?.[c])}`;
  const inGrid = (cell) => cell && cell[0] < v.z.length && cell[1] < v.colTokens.length;

  function marks(forExport) {
    const out = [];
    for (const o of v.outlines || []) {
      if (o.index < (o.axis === "row" ? v.z.length : v.colTokens.length)) out.push({ kind: "outline", ...o });
    }
    if (v.highlight && inGrid(v.highlight)) out.push({ kind: "highlight", r: v.highlight[0], c: v.highlight[1] });
    if (forExport) return out;
    if (selected !== null && selected < v.z.length) out.push({ kind: "row", r: selected });
    for (const cell of [hover, focus]) if (inGrid(cell)) out.push({ kind: "cell", r: cell[0], c: cell[1] });
    return out;
  }

  function paint(layer, fn) {
    shell.clear(p[layer].ctx);
    fn(p[layer].painter);
    paints[layer]++;
  }
  const repaintMarks = () => paint("marks", (q) => paintMarks(q, L, marks(false)));

  /* Draw a view (merged into the last one); false, with one line shown instead, when it cannot be drawn. */
  function update(next) {
    try {
      draw(next || {});
      return true;
    } catch (err) {
      shell.error(`heatmap ${name}: ${err.message}`);
      raw = {}; v = null; keys = { layout: "", scale: "", marks: "" };
      return false;
    }
  }

  function draw(next) {
    raw = { ...raw, ...next };  // what the host gave, so colTokens left out keeps following rowTokens
    v = checkHeatmapView(raw);
    theme = themeOf(v.theme);
    const newData = "z" in next || "masked" in next;
    const palette = v.palette || (v.scale === "diverging" ? theme.diverging : theme.sequential);
    const domain = domainOf(v.scale, v.z, v.zmin, v.zmax);
    const scaleKey = JSON.stringify([v.scale, palette, domain]);
    const newScale = scaleKey !== keys.scale;
    if (newScale) scale = colourScale({ kind: v.scale, palette, domain });
    const width = Math.round(v.width || parent.clientWidth || 640);
    const height = Math.round(v.height || defaultHeight(theme, v.rowTokens.length));
    const barTickTexts = barTicks(scale).map((t) => t[1]);
    const layoutKey = JSON.stringify([width, height, v.rowTokens, v.colTokens, v.title, v.xLabel, v.yLabel,
      v.valueName, theme, v.colourbar !== false]);
    const relayout = layoutKey !== keys.layout ||
      (newScale && L.bar && barTickTexts.some((s) => p.frame.painter.measure(s, L.f.tick) > L.barTextWidth));
    if (relayout) {
      const ctxs = shell.resize(width, height);
      p = Object.fromEntries(LAYERS.map((l) => [l, { ctx: ctxs[l], painter: canvasPainter(ctxs[l]) }]));
      L = heatmapLayout({ width, height, rowTokens: v.rowTokens, colTokens: v.colTokens, title: v.title,
        xLabel: v.xLabel, yLabel: v.yLabel, valueName: v.valueName, barTickTexts, theme, colourbar: v.colourbar },
        p.frame.painter.measure);
      paint("frame", (q) => paintFrame(q, L));
      keys.layout = layoutKey;
    }
    if (relayout || newScale) paint("colourbar", (q) => paintColourbar(q, L, model()));
    if (relayout || newScale || newData) paint("cells", (q) => paintCells(q, L, model()));
    const marksKey = JSON.stringify([v.highlight || null, v.outlines || null]);
    if (relayout || marksKey !== keys.marks) repaintMarks();
    const changed = relayout || newScale || newData || marksKey !== keys.marks;
    keys.scale = scaleKey; keys.marks = marksKey;
    if (changed) {
      shell.drawn(v.rowTokens);
      shell.label(`${v.title || name}: heatmap of ${v.rowTokens.length} by ${v.colTokens.length} tokens. ` +
        "Arrow keys move across cells, Enter shows the row's bars.");
      shell.refreshTable();
    }
    shell.error(null);
  }

  function selectRow(r) {
    selected = r;
    repaintMarks();
    shell.announce(`row #${r} ${v.rowTokens[r]} selected`);
    const detail = { figure: id, row: r, token: v.rowTokens[r], values: Array.from(v.z[r]), colTokens: v.colTokens.slice() };
    shell.root.dispatchEvent(new CustomEvent("figure-rowselect", { bubbles: true, detail }));
    if (onRowSelect) onRowSelect(detail);
  }

  shell.stage.addEventListener("pointermove", (e) => {
    if (!v) return;
    const [x, y] = shell.point(e), cell = cellAt(L, v.z.length, v.colTokens.length, x, y);
    if (String(cell) !== String(hover)) { hover = cell; repaintMarks(); }
    shell.tip(cell ? cellName(cell[0], cell[1]) : null, x, y);
  });
  shell.stage.addEventListener("pointerleave", () => { hover = null; shell.tip(null); if (v) repaintMarks(); });
  shell.stage.addEventListener("click", (e) => {
    if (!v) return;
    const [x, y] = shell.point(e), cell = cellAt(L, v.z.length, v.colTokens.length, x, y);
    if (cell) selectRow(cell[0]);
  });
  shell.followWidth((w) => { if (v && !raw.width && Math.round(w) !== L.width) update({}); });
  attachKeys(shell.stage, {
    size: () => (v ? [v.z.length, v.colTokens.length] : [0, 0]),
    move(cell) {
      focus = cell;
      if (!v) return;
      repaintMarks();
      if (cell) shell.announce(cellName(cell[0], cell[1]).replace(/\n/g, ", "));
    },
    activate: ([r]) => selectRow(r),
  });

  function buildTable() {
    if (!v) return document.createElement("table");
    return dataTable(`${v.title || name} (${v.valueName || "value"}; rows: ${v.yLabel || "row tokens"})`, "row \\ column",
      v.colTokens.map((t, c) => `#${c} ${t}`), v.rowTokens.map((t, r) => `#${r} ${t}`),
      (r, c) => valueText(v.z[r][c], v.masked?.[r]?.[c]));
  }

  function exportAs(kind) {
    if (!v) return Promise.reject(new Error(`heatmap ${name}: nothing drawn to export`));
    return exportFigure(kind, {
      id, provenance, width: L.width, height: L.height, title: v.title, measure: p.frame.painter.measure,
      paint(q) { paintFrame(q, L); paintCells(q, L, model()); paintColourbar(q, L, model()); paintMarks(q, L, marks(true)); },
      data: () => ({ kind: "heatmap", name, title: v.title ?? null, value_name: v.valueName ?? null,
        row_tokens: v.rowTokens, col_tokens: v.colTokens, z: Array.from(v.z, (row) => Array.from(row)),
        masked: v.masked ? Array.from(v.masked, (row) => Array.from(row, Boolean)) : null }),
      csv: (prov) => heatmapCsv(prov, v),
    });
  }

  return { root: shell.root, update, exportAs, selectRow, paints, get layout() { return L; }, get view() { return v; } };
}
