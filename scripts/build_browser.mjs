// The page code's bundles: viz_app/browser/'s ES modules bundled by esbuild into one file per host, written to
// viz_app/browser/dist/ (ignored by git, shipped in the wheel). Run by `npm ci` (package.json postinstall) and by
// `npm run build`; docs/front-end.md says which host loads which bundle and why they are built here.
//   site.js     the static explorer (entry_site.js; classic script, one global `Disan`), carrying the model's
//               worker (worker.js, bundled first) as text: a file:// page starts its worker from a blob;
//   report.js   the report, the pair report and the notebook view (entry_report.js; inlined, global `Disan`);
//   chart.js    the app's chart component (chart.js's default export; an ES module Streamlit imports);
//   preload.js  the app's plotly.js preloader component (entry_preload.js; an ES module).
// sources.json holds the digest of the sources they were built from (viz_app/draw/bundles.py refuses stale ones).
import { build } from "esbuild";
import { createHash } from "node:crypto";
import { mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { dirname, join, sep } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const src = join(root, "viz_app", "browser");
const out = join(src, "dist");

/** The .js and .mjs files below `folder` (its dist/ left out) as [path from viz_app/, file], `name` its folder. */
function sources(folder, name) {
  return readdirSync(folder, { recursive: true })
    .map(rel => rel.split(sep).join("/"))
    .filter(rel => /\.m?js$/.test(rel) && rel.split("/")[0] !== "dist" && statSync(join(folder, rel)).isFile())
    .map(rel => [name + "/" + rel, join(folder, rel)]);
}

/** The digest viz_app/draw/bundles.py recomputes: each bundled source's path and bytes, in path order (the page's
 * modules below viz_app/browser and the kernel's loader below viz_app/kernels). */
function sourceDigest() {
  const hash = createHash("sha256");
  const all = [...sources(src, "browser"), ...sources(join(root, "viz_app", "kernels"), "kernels")];
  for (const [name, file] of all.sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0))) {
    hash.update(name + "\n");
    hash.update(readFileSync(file));
    hash.update("\n");
  }
  return hash.digest("hex");
}

// Readable output: no minifying (the files stay close to their sources for a reader and a stack trace), UTF-8
// kept as written, comments dropped (esbuild's bundling keeps only legal comments, and there are none).
const common = { bundle: true, charset: "utf8", legalComments: "none", logLevel: "warning", write: false };

const worker = await build({ ...common, entryPoints: [join(src, "worker.js")], format: "iife" });
const workerText = worker.outputFiles[0].text;
// site.js's `import WORKER from "disan:worker"`: the worker's bundle as a string
const workerPlugin = {
  name: "disan-worker",
  setup(b) {
    b.onResolve({ filter: /^disan:worker$/ }, () => ({ path: "worker", namespace: "disan-worker" }));
    b.onLoad({ filter: /.*/, namespace: "disan-worker" }, () => ({ contents: workerText, loader: "text" }));
  },
};

const bundles = {
  "site.js": { entryPoints: [join(src, "entry_site.js")], format: "iife", globalName: "Disan" },
  "report.js": { entryPoints: [join(src, "entry_report.js")], format: "iife", globalName: "Disan" },
  "chart.js": { entryPoints: [join(src, "chart.js")], format: "esm" },
  "preload.js": { entryPoints: [join(src, "entry_preload.js")], format: "esm" },
};
mkdirSync(out, { recursive: true });
for (const [name, options] of Object.entries(bundles)) {
  const result = await build({ ...common, ...options, plugins: [workerPlugin] });
  writeFileSync(join(out, name), result.outputFiles[0].text);
}
writeFileSync(join(out, "sources.json"), JSON.stringify({ sha256: sourceDigest() }) + "\n");
console.log(`browser bundles (${Object.keys(bundles).join(", ")}) → ${out}`);
