/* A bar chart on canvas: one bar per token (horizontal or vertical), values like 1.00 where they fit,
 * hover naming the bar, arrows moving a focused bar whose value is announced, a table fallback, exports,
 * and update(view) that repaints the bars only when the labels and the value axis stay.
 *
 *   const bars = createBars(parent, {name: "row-3", provenance});
 *   bars.update({values, labels, orientation: "horizontal", title, valueName, xLabel, yLabel,
 *                domain: [0, 1], theme: "normal" | "presentation", highlight: i}); */
import { themeOf } from "./palettes.mjs";
import { canvasPainter } from "./painter.mjs";
import { barAt, barsDomain, barsLayout, defaultBarsHeight } from "./barsLayout.mjs";
import { paintBars, paintBarsFrame, paintBarsMarks } from "./barsPaint.mjs";
import { valueText } from "./cellText.mjs";
import { createShell } from "./shell.mjs";
import { attachKeys } from "./keys.mjs";
import { dataTable } from "./table.mjs";
import { checkBarsView } from "./validate.mjs";
import { exportFigure } from "./exporter.mjs";
import { barsCsv } from "./exportText.mjs";

const LAYERS = ["frame", "bars", "marks"];

export function createBars(parent, { name = "bars", provenance = null } = {}) {
  const id = `bars:${name}`;
  const shell = createShell(parent, { kind: "bars", name, layers: LAYERS, buildTable });
  const paints = Object.fromEntries(LAYERS.map((l) => [l, 0]));
  let v = null, theme = null, L = null, p = null, keys = { layout: "", marks: "" }, hover = null, focus = null;

  const barName = (i) => `#${i} ${v.labels[i]}\n${v.valueName || "value"} = ${valueText(v.values[i])}`;
  const marks = (forExport) => {
    const out = [];
    if (Number.isInteger(v.highlight) && v.highlight >= 0 && v.highlight < v.labels.length) out.push({ kind: "highlight", i: v.highlight });
    if (!forExport) for (const i of [hover, focus]) if (i !== null && i < v.labels.length) out.push({ kind: "bar", i });
    return out;
  };
  function paint(layer, fn) { shell.clear(p[layer].ctx); fn(p[layer].painter); paints[layer]++; }
  const repaintMarks = () => paint("marks", (q) => paintBarsMarks(q, L, marks(false)));

  /* Draw a view (merged into the last one); false, with one line shown instead, when it cannot be drawn. */
  function update(next) {
    try {
      draw(next || {});
      return true;
    } catch (err) {
      shell.error(`bars ${name}: ${err.message}`);
      v = null; keys = { layout: "", marks: "" };
      return false;
    }
  }

  function draw(next) {
    v = checkBarsView({ ...(v || {}), ...next });
    theme = themeOf(v.theme);
    const domain = barsDomain(v.values, v.domain);
    const width = Math.round(v.width || parent.clientWidth || 480);
    const height = Math.round(v.height || defaultBarsHeight(theme, v.labels.length, v.orientation));
    const layoutKey = JSON.stringify([width, height, v.labels, v.orientation, domain, v.title, v.xLabel, v.yLabel, theme]);
    const relayout = layoutKey !== keys.layout, newValues = relayout || "values" in next;
    if (relayout) {
      const ctxs = shell.resize(width, height);
      p = Object.fromEntries(LAYERS.map((l) => [l, { ctx: ctxs[l], painter: canvasPainter(ctxs[l]) }]));
      L = barsLayout({ width, height, labels: v.labels, orientation: v.orientation, domain, title: v.title,
        xLabel: v.xLabel, yLabel: v.yLabel, theme }, p.frame.painter.measure);
      paint("frame", (q) => paintBarsFrame(q, L));
      keys.layout = layoutKey;
    }
    if (newValues) paint("bars", (q) => paintBars(q, L, v.values, theme));
    const marksKey = JSON.stringify(v.highlight ?? null), newMarks = relayout || marksKey !== keys.marks;
    if (newMarks) repaintMarks();
    keys.marks = marksKey;
    if (newValues || newMarks) {
      shell.drawn(v.labels);
      shell.label(`${v.title || name}: ${v.labels.length} bars. Arrow keys move across bars.`);
      shell.refreshTable();
    }
    shell.error(null);
  }

  shell.stage.addEventListener("pointermove", (e) => {
    if (!v) return;
    const [x, y] = shell.point(e), i = barAt(L, v.labels.length, x, y);
    if (i !== hover) { hover = i; repaintMarks(); }
    shell.tip(i === null ? null : barName(i), x, y);
  });
  shell.stage.addEventListener("pointerleave", () => { hover = null; shell.tip(null); if (v) repaintMarks(); });
  shell.followWidth((w) => { if (v && !v.width && Math.round(w) !== L.width) update({}); });
  attachKeys(shell.stage, {
    size: () => (!v ? [0, 0] : v.orientation === "horizontal" ? [v.labels.length, 1] : [1, v.labels.length]),
    move(cell) {
      focus = cell ? cell[0] + cell[1] : null;  // one of them is always 0
      if (!v) return;
      repaintMarks();
      if (cell) shell.announce(barName(focus).replace(/\n/g, ": "));
    },
    activate: () => {},
  });

  function buildTable() {
    if (!v) return document.createElement("table");
    return dataTable(v.title || name, "token", [v.valueName || "value"], v.labels.map((t, i) => `#${i} ${t}`),
      (r) => valueText(v.values[r]));
  }

  function exportAs(kind) {
    if (!v) return Promise.reject(new Error(`bars ${name}: nothing drawn to export`));
    return exportFigure(kind, {
      id, provenance, width: L.width, height: L.height, title: v.title, measure: p.frame.painter.measure,
      paint(q) { paintBarsFrame(q, L); paintBars(q, L, v.values, theme); paintBarsMarks(q, L, marks(true)); },
      data: () => ({ kind: "bars", name, title: v.title ?? null, value_name: v.valueName ?? null,
        labels: v.labels, values: Array.from(v.values) }),
      csv: (prov) => barsCsv(prov, v),
    });
  }

  return { root: shell.root, update, exportAs, paints, get layout() { return L; }, get view() { return v; } };
}
