/* Figure specs: what every per-sentence figure builder returns (figures.js, sections.js, view_figures.js,
 * pair_view.js) and the hosts draw with figure_host.js (docs/figure-components.md "Figure specs and the host").
 * Pure functions, no DOM: Node's tests import them (tests/js/figure_spec.test.mjs).
 *
 *   {kind: "figure", name, title, columns (panels per row),
 *    panels: [{kind: "heatmap", name, view: <createHeatmap view>} | {kind: "bars", name, view: <createBars view>}],
 *    rowBars: {panel: <heatmap panel name or "*">, bars: <bars panel name>, title} | null}
 *
 * Panels that share one colour domain carry the same zmin/zmax, and all but one say colourbar: false. */
import { provenanceLine, provenanceOf } from "./components/export.mjs";
import { xmlText as esc } from "./components/painter.mjs";

const KINDS = ["heatmap", "bars"];

/* Throws one sentence naming what is wrong with `spec` and the fix; returns it otherwise. */
export function checkSpec(spec) {
  if (!spec || spec.kind !== "figure") throw new Error('a figure spec needs kind "figure"');
  if (typeof spec.name !== "string" || !spec.name) throw new Error("a figure spec needs a name (a non-empty string)");
  if (!Array.isArray(spec.panels) || !spec.panels.length) throw new Error("panels should list at least one panel");
  const names = new Set();
  spec.panels.forEach((p, i) => {
    if (!p || !KINDS.includes(p.kind)) throw new Error(`panel ${i} has kind ${JSON.stringify(p && p.kind)}; use heatmap or bars`);
    if (typeof p.name !== "string" || !p.name) throw new Error(`panel ${i} needs a name`);
    if (names.has(p.name)) throw new Error(`two panels are named ${JSON.stringify(p.name)}; give each its own name`);
    if (!p.view || typeof p.view !== "object") throw new Error(`panel ${p.name} needs a view`);
    names.add(p.name);
  });
  const rb = spec.rowBars;
  if (rb) {
    const bars = spec.panels.find((p) => p.name === rb.bars);
    if (!bars || bars.kind !== "bars") throw new Error(`rowBars.bars ${JSON.stringify(rb.bars)} is not a bars panel of this figure`);
    if (rb.panel !== "*" && !spec.panels.some((p) => p.name === rb.panel && p.kind === "heatmap")) {
      throw new Error(`rowBars.panel ${JSON.stringify(rb.panel)} is not a heatmap panel of this figure`);
    }
  }
  return spec;
}

/* Whether two specs have the same panels (kinds and names, in order) and columns: the host then updates each
 * panel's component instead of building new ones. */
export function sameLayout(a, b) {
  return a.name === b.name && (a.columns || 0) === (b.columns || 0) && a.panels.length === b.panels.length &&
    a.panels.every((p, i) => p.kind === b.panels[i].kind && p.name === b.panels[i].name);
}

/* Whether two specs (or any JSON-like values: objects, arrays, typed arrays, numbers where NaN equals NaN) are
 * equal: a host keeps a figure whose new spec draws the same (an NLI pair's other sentence while one is typed). */
export function sameSpec(a, b) {
  if (a === b) return true;
  if (typeof a === "number" && typeof b === "number") return a !== a && b !== b;
  if (!a || !b || typeof a !== "object" || typeof b !== "object") return false;
  const listA = Array.isArray(a) || ArrayBuffer.isView(a), listB = Array.isArray(b) || ArrayBuffer.isView(b);
  if (listA !== listB) return false;
  if (listA) {
    const x = /** @type {ArrayLike<any>} */ (a), y = /** @type {ArrayLike<any>} */ (b);
    if (x.length !== y.length) return false;
    // from the end: a typed key changes the last tokens, hence a map's last rows, first (a causal mask keeps the
    // rows before it equal), so two specs that differ part at once
    for (let i = x.length - 1; i >= 0; i--) {
      const u = x[i], v = y[i];
      if (u === v) continue; // the common case, a number, without a call per cell (a 256 × 256 map: 65k)
      if (!sameSpec(u, v)) return false;
    }
    return true;
  }
  const keys = Object.keys(a);
  return keys.length === Object.keys(b).length && keys.every((k) => Object.prototype.hasOwnProperty.call(b, k) && sameSpec(a[k], b[k]));
}

/* A figure spec from its panels (builders' shorthand). */
export function figureSpec(name, title, panels, extra) {
  return { kind: "figure", name: name || "figure", title: title || "", columns: panels.length, panels, rowBars: null, ...(extra || {}) };
}

export const heatmapPanel = (name, view) => ({ kind: "heatmap", name, view });
export const barsPanel = (name, view) => ({ kind: "bars", name, view });

/* A standalone HTML file of a figure: its panels as the SVG vectors the components export, its data as JSON,
 * the provenance (checkpoint SHA-256, project version) in <meta> tags and in the first comment. No script,
 * no network: it opens anywhere. {name, title, columns, provenance, svgs: [svg text], data: [panel JSON]}. */
export function figureHtml({ name, title, columns, provenance, svgs, data }) {
  const prov = provenanceOf(name, provenance), sha = prov.checkpoint_sha256, version = prov.version;
  const svgBody = (s) => s.replace(/^<\?xml[^>]*>\s*/, "").replace(/<!--[\s\S]*?-->\s*/, "");
  const cols = Math.max(1, Math.min(columns || svgs.length, svgs.length));
  const json = JSON.stringify({ provenance: prov, panels: data }).replace(/</g, "\\u003c");
  return `<!DOCTYPE html>\n<!-- ${provenanceLine(prov).replace(/--/g, "- -")} -->\n` +
    `<html lang="en"><head><meta charset="utf-8"><title>${esc(title || name)}</title>\n` +
    `<meta name="disan-figure" content="${esc(name)}"><meta name="disan-checkpoint-sha256" content="${esc(sha)}">` +
    `<meta name="disan-version" content="${esc(version)}">\n` +
    `<style>body{font-family:sans-serif;margin:16px}.grid{display:grid;grid-template-columns:repeat(${cols},max-content);gap:8px 16px}</style>` +
    `</head><body>\n<h1>${esc(title || name)}</h1>\n<div class="grid">\n${svgs.map(svgBody).join("\n")}\n</div>\n` +
    `<p>${prov.model ? `model ${esc(prov.model)} · ` : ""}checkpoint SHA-256 ${esc(sha)} · version ${esc(version)}</p>\n` +
    `<script type="application/json" id="figure-data">${json}</script>\n</body></html>\n`;
}
