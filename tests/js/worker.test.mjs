// viz_app/browser/worker.js's start: the runtime's probe (viz_app/draw/site_probe.py) runs once, with graph
// optimisation disabled and no feeds, and is released before the model's session; a probe that fails leaves the
// start to the model's session (the init still answers).
import assert from "node:assert/strict";
import { test } from "node:test";
import { gzipSync } from "node:zlib";

const calls = [], posted = [];
let failing = null; // "create" or "run": where the fake runtime throws
const g = /** @type {any} */ (globalThis);
g.ort = {
  env: { wasm: {} },
  Tensor: class {},
  InferenceSession: {
    async create(bytes, options) {
      calls.push(["create", Array.from(bytes), options.graphOptimizationLevel]);
      if (failing === "create") throw new Error("no kernel for this op");
      return {
        async run(feeds) {
          calls.push(["run", Object.keys(feeds)]);
          if (failing === "run") throw new Error("the run failed");
          return {};
        },
        release() { calls.push(["release"]); },
      };
    },
  },
};
g.self = { postMessage: (message) => posted.push(message) };
await import("../../viz_app/browser/worker.js");

const PROBE = [8, 9, 10];

/** The worker's answer to an init message carrying a fake wasm and the probe's bytes. */
async function init(id) {
  g.self.onmessage({ data: { id, type: "init", wasm: gzipSync(Buffer.from("wasm")).toString("base64"), loader: "",
                             probe: Buffer.from(PROBE).toString("base64") } });
  for (let i = 0; i < 200 && !posted.some((m) => m.id === id); i++) await new Promise((r) => setTimeout(r, 5));
  return posted.find((m) => m.id === id);
}

test("the probe is created unoptimised, run once with no feeds, then released", async () => {
  calls.length = 0;
  failing = null;
  assert.deepEqual(await init(1), { id: 1, value: true });
  assert.deepEqual(calls, [["create", PROBE, "disabled"], ["run", []], ["release"]]);
});

test("a probe that fails to build or to run does not stop the runtime's start", async () => {
  for (const where of ["create", "run"]) {
    calls.length = 0;
    failing = where;
    const id = where === "create" ? 2 : 3;
    assert.deepEqual(await init(id), { id, value: true });
    assert.deepEqual(calls.map((c) => c[0]), where === "create" ? ["create"] : ["create", "run", "release"]);
  }
});
