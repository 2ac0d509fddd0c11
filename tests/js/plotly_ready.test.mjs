// viz_app/browser/plotly_ready.js: plotly.js loaded once per page and shared, and a failed load tried again.
import assert from "node:assert/strict";
import { test } from "node:test";

// A page as far as plotly_ready.js and load_script.js use it: <script src> elements that load (defining Plotly)
// or fail, as `serve` says for each address.
const added = [];
let serve = () => "fail";
globalThis.window = globalThis;
globalThis.document = {
  createElement: () => ({}),
  head: {
    appendChild(el) {
      added.push(el.src);
      setTimeout(() => {
        if (serve(el.src) === "ok") { globalThis.Plotly = { version: "test" }; el.onload(); } else el.onerror();
      }, 1);
    },
  },
};

const { plotlyReady } = await import("../../viz_app/browser/plotly_ready.js");

test("a failed load is not kept: the next chart loads plotly.js again, and then every chart shares it", async () => {
  await assert.rejects(plotlyReady("/app/static/plotly.js"), /could not be loaded/);
  serve = () => "ok";
  const first = await plotlyReady("/app/static/plotly.js");
  assert.equal(first.version, "test");
  assert.equal(await plotlyReady("/app/static/plotly.js"), first);
  assert.deepEqual(added, ["/app/static/plotly.js", "/app/static/plotly.js"]);  // tried twice, then shared
});
