/* The demo page the browser tests (tests/test_figure_components_browser.py) and axe-core check: every kind
 * of figure at fixed inputs, built by esbuild into one script. window.demo holds the figures and the
 * row-select events they emitted. */
import { createBars, createHeatmap } from "../../../viz_app/browser/components/index.mjs";

/* Fixed pseudo-random numbers (a linear congruential generator), so the stored PNGs stay valid. */
function numbers(seed) {
  let s = seed >>> 0;
  return () => { s = (Math.imul(s, 1664525) + 1013904223) >>> 0; return s / 2 ** 32; };
}

/* A T × T row-stochastic map (each row sums to 1), like an attention map. */
export function attention(T, seed) {
  const rnd = numbers(seed);
  return Array.from({ length: T }, () => {
    const row = Array.from({ length: T }, () => rnd() ** 3);
    const sum = row.reduce((a, b) => a + b, 0);
    return row.map((x) => x / sum);
  });
}

export const TOKENS = ["the", "film", "is", "<b>bold</b>", "naïve", "🙂", "but", "never", "boring", "."];
const PROVENANCE = { checkpointSha256: "ab".repeat(32), version: "0.0.0-demo" };

function section(id, heading) {
  const s = document.createElement("section");
  s.setAttribute("aria-labelledby", `${id}-h`);
  const h = document.createElement("h2");
  h.id = `${id}-h`;
  h.textContent = heading;
  const host = document.createElement("div");
  host.id = id;
  host.style.width = "560px";
  s.append(h, host);
  document.querySelector("main").append(s);
  return host;
}

const a = attention(TOKENS.length, 1), b = attention(TOKENS.length, 2);
const events = [];
document.addEventListener("figure-rowselect", (e) => events.push(e.detail));

const figures = {
  sequential: createHeatmap(section("fig-sequential", "Attention (sequential)"), { name: "attention", provenance: PROVENANCE }),
  diverging: createHeatmap(section("fig-diverging", "B − A (diverging)"), { name: "difference", provenance: PROVENANCE }),
  talk: createHeatmap(section("fig-talk", "Talk mode"), { name: "talk", provenance: PROVENANCE }),
  horizontal: createBars(section("fig-horizontal", "A row's bars"), { name: "row", provenance: PROVENANCE }),
  vertical: createBars(section("fig-vertical", "Vertical bars"), { name: "vertical", provenance: PROVENANCE }),
};
figures.sequential.update({ z: a, rowTokens: TOKENS, title: "Forward attention P", xLabel: "attended token",
  yLabel: "query token", valueName: "P", zmin: 0, zmax: 1, width: 560, height: 440 });
figures.diverging.update({ z: a.map((row, r) => row.map((x, c) => b[r][c] - x)), rowTokens: TOKENS,
  title: "B − A", valueName: "ΔP", scale: "diverging", width: 560, height: 440 });
figures.talk.update({ z: a, rowTokens: TOKENS, title: "Forward attention P", valueName: "P", zmin: 0, zmax: 1,
  theme: "presentation", highlight: [3, 4], width: 560, height: 520 });
figures.horizontal.update({ values: a[3], labels: TOKENS, title: "Row #3: <b>bold</b>", valueName: "P",
  domain: [0, 1], xLabel: "P", width: 560 });
figures.vertical.update({ values: a[0].map((x, i) => (i % 3 === 0 ? -x : x)), labels: TOKENS, orientation: "vertical",
  title: "Signed values", valueName: "score", width: 560, height: 320 });
figures.sequential.root.addEventListener("figure-rowselect", (e) => {
  figures.horizontal.update({ values: e.detail.values, labels: e.detail.colTokens, title: `Row #${e.detail.row}: ${e.detail.token}` });
});

window.demo = { figures, events, attention, TOKENS, createHeatmap, createBars };
