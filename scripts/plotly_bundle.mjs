// plotly.js with only the trace types the figures use (viz_app/draw/plotly_bundle.py TRACE_TYPES: scatter, bar,
// heatmap), built from npm's plotly.js with esbuild, as plotly.js's own custom bundles are (its CUSTOM_BUNDLE.md).
// Run by `npm ci` (package.json postinstall). Why: npm's cartesian bundle carries a dozen trace types the
// figures never use, and evaluating it held the page's thread several times as long before the first maps
// (viz_app/draw/plotly_bundle.py; bench site measures the cold open).
import { build } from "esbuild";
import { createRequire } from "node:module";
import { mkdirSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const require = createRequire(join(root, "package.json"));
const { version } = require("plotly.js/package.json");
const out = join(root, "node_modules", ".disan", "plotly-disan.min.js");
mkdirSync(dirname(out), { recursive: true });
await build({
  stdin: {
    contents: "var Plotly = require('plotly.js/lib/core');\n" +
              "Plotly.register([require('plotly.js/lib/bar'), require('plotly.js/lib/heatmap')]);\n" +
              "module.exports = Plotly;\n",
    resolveDir: root,
  },
  bundle: true,
  minify: true,
  format: "iife",
  globalName: "Plotly",
  // plotly.js's own esbuild settings (its esbuild-config.js)
  define: { global: "window", "define.amd": "false" },
  alias: { stream: "stream-browserify" },
  target: "es2016",
  // the registry imports maplibre's style sheet for map traces, which this bundle does not have
  loader: { ".css": "empty" },
  // First, V8's explicit compile hint (Chrome 136+; other engines read a comment): compile every function as the
  // script loads, not on first call. A page's first drawing otherwise compiles plotly.js's drawing code on the
  // page's thread (probe, 12 cold opens each way: first maps 2,564 → 2,453 ms, median; bench site measures it).
  // plotly_bundle.py reads the version from the banner's second line, as from npm's bundles.
  banner: { js: `//# allFunctionsCalledOnLoad\n/**\n* plotly.js (disan: scatter, bar, heatmap - minified) v${version}\n*/` },
  outfile: out,
  logLevel: "warning",
});
console.log(`plotly.js v${version} (scatter, bar, heatmap) → ${out}`);
