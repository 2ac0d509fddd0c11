// Runs an ONNX file in onnxruntime-web (node, wasm, one thread) with no inputs and graph optimisation disabled,
// as the static explorer's worker runs its probe (viz_app/browser/worker.js), and prints each output's dims as
// JSON. Called by tests/test_site_probe.py: node tests/js/ort_web_run.mjs FILE.onnx
import fs from "node:fs";
import { createRequire } from "node:module";

const ort = createRequire(import.meta.url)("onnxruntime-web");
ort.env.wasm.numThreads = 1;
const session = await ort.InferenceSession.create(new Uint8Array(fs.readFileSync(process.argv[2])),
                                                  { executionProviders: ["wasm"], graphOptimizationLevel: "disabled" });
const out = await session.run({});
console.log(JSON.stringify(Object.fromEntries(Object.entries(out).map(([name, t]) => [name, t.dims]))));
