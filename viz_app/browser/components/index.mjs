/* The figure components: a heatmap and a bar chart on canvas (docs/figure-components.md). */
export { createHeatmap } from "./heatmap.mjs";
export { createBars } from "./bars.mjs";
export { download, EXPORT_KINDS, fileStem } from "./export.mjs";
export { PALETTES, THEMES } from "./palettes.mjs";
