// viz_app/browser/chart_views.js: the app's trace views by id, and a chart's asks for one it lacks.
import assert from "node:assert/strict";
import { test } from "node:test";

import { keepView, viewsOf } from "../../viz_app/browser/chart_views.js";

const never = () => { throw new Error("not expected"); };

test("views kept or carried by another chart of the rerun come without an ask", async () => {
  keepView("kept", { name: "kept" });
  const got = viewsOf(["kept", "later"], { ask: never, wanted: () => true, loading: never }, 50);
  setTimeout(() => keepView("later", { name: "later" }), 10);
  assert.deepEqual(await got, [{ name: "kept" }, { name: "later" }]);
});

test("a chart whose asked-for view was lost asks again until it comes", async () => {
  // the first answer's rerun is cut short (the view never reaches the page): the second ask is answered
  const asks = [];
  let loading = 0;
  const got = await viewsOf(["lost"], {
    ask: id => { asks.push(id); if (asks.length === 2) setTimeout(() => keepView("lost", { name: "lost" }), 5); },
    wanted: () => true,
    loading: () => { loading += 1; },
  }, 20);
  assert.deepEqual(got, [{ name: "lost" }]);
  assert.deepEqual(asks, ["lost", "lost"]);
  assert.equal(loading, 1);
});

test("a chart stops asking once it no longer wants the view, and gives up after its asks", async () => {
  const asks = [];
  let wanted = true;
  const stopped = await viewsOf(["gone"], { ask: id => { asks.push(id); wanted = false; }, wanted: () => wanted,
                                             loading: () => {} }, 5);
  assert.equal(stopped, null);
  assert.deepEqual(asks, ["gone"]);
  const counted = [];
  assert.equal(await viewsOf(["never"], { ask: id => counted.push(id), wanted: () => true, loading: () => {} }, 2), null);
  assert.equal(counted.length, 5);
});
