/* The report's bundle, inlined in every report file, pair report and notebook view (viz_app/draw/report.py): its
 * one global, `Disan`, is this module. The file calls `Disan.Report.boot(document)`; tests reach every module
 * through it. */
import "./view_figures.js";

export * as Figures from "./figures.js";
export * as FigureHost from "./figure_host.js";
export * as Pair from "./pair.js";
export * as PairView from "./pair_view.js";
export * as Recompute from "./recompute.js";
export * as Report from "./report.js";
export * as Sections from "./sections.js";
export * as TraceView from "./trace_view.js";
