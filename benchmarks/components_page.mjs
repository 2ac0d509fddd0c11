/* The page `bench components` (benchmarks/components.py) measures in headless Chromium: one T × T heatmap
 * updated with a new z each frame by this project's canvas component, by Apache ECharts' heatmap and by
 * Plotly.react, each through its public API only. window.bench(lib, T, frames, warmup, newTokens) resolves
 * to {drawn, shown}: the milliseconds of each timed update from the call until the library has drawn
 * (ECharts' setOption renders synchronously unless lazyUpdate; Plotly.react's promise resolves once drawn),
 * and until the frame showing it has been produced (two animation frames later, so it includes waiting for
 * the frame clock). With newTokens every frame also has new tokens (as typing gives). */
import * as echarts from "echarts";
import { createHeatmap } from "../viz_app/browser/components/index.mjs";
import { PALETTES } from "../viz_app/browser/components/palettes.mjs";

const SIZE = 560, NUMBERS_MAX = 12;  // cell numbers where they fit (our component decides itself)

function numbers(seed) {
  let s = seed >>> 0;
  return () => { s = (Math.imul(s, 1664525) + 1013904223) >>> 0; return s / 2 ** 32; };
}

/* `count` fresh T × T row-stochastic matrices, made before timing starts. */
function matrices(T, count) {
  const rnd = numbers(T);
  return Array.from({ length: count }, () => Array.from({ length: T }, () => {
    const row = Array.from({ length: T }, () => rnd() ** 3), sum = row.reduce((a, b) => a + b, 0);
    return row.map((x) => x / sum);
  }));
}

const tokensOf = (T, frame = 0) => Array.from({ length: T }, (_, i) => `tok${i}${"'".repeat(frame % 3)}`);

function host(id) {
  document.getElementById(id)?.remove();
  const div = document.createElement("div");
  div.id = id;
  div.style.width = div.style.height = `${SIZE}px`;
  document.body.append(div);
  return div;
}

const LIBS = {
  ours(T) {
    const hm = createHeatmap(host("ours"), { name: "bench" }), tokens = tokensOf(T);
    return {
      first: (z) => hm.update({ z, rowTokens: tokens, title: "P", valueName: "P", zmin: 0, zmax: 1, width: SIZE, height: SIZE }),
      update: (z, tokens) => hm.update(tokens ? { z, rowTokens: tokens } : { z }),
    };
  },
  echarts(T) {
    const chart = echarts.init(host("echarts"), null, { renderer: "canvas", width: SIZE, height: SIZE });
    const tokens = tokensOf(T), cells = (z) => z.flatMap((row, r) => row.map((v, c) => [c, r, v]));
    return {
      first: (z) => chart.setOption({
        animation: false, title: { text: "P" },
        grid: { left: 60, right: 90, top: 40, bottom: 60 },
        xAxis: { type: "category", data: tokens }, yAxis: { type: "category", data: tokens, inverse: true },
        visualMap: { min: 0, max: 1, calculable: false, orient: "vertical", right: 10, top: "middle",
          inRange: { color: PALETTES.Viridis.map((s) => s[1]) } },
        tooltip: {},
        series: [{ type: "heatmap", data: cells(z), progressive: 0, label: { show: T <= NUMBERS_MAX, formatter: (p) => p.value[2].toFixed(2) } }],
      }),
      update: (z, tokens) => chart.setOption(tokens
        ? { xAxis: { data: tokens }, yAxis: { data: tokens }, series: [{ data: cells(z) }] }
        : { series: [{ data: cells(z) }] }),
    };
  },
  plotly(T) {
    const div = host("plotly"), tokens = tokensOf(T);
    const layout = { width: SIZE, height: SIZE, title: { text: "P" }, margin: { l: 60, r: 20, t: 40, b: 60 } };
    const draw = (z, names) => window.Plotly.react(div, [{ type: "heatmap", z, x: names || tokens, y: names || tokens,
      colorscale: "Viridis", zmin: 0, zmax: 1, texttemplate: T <= NUMBERS_MAX ? "%{z:.2f}" : undefined }], layout);
    return { first: draw, update: draw };
  },
};

window.bench = async (lib, T, frames, warmup, newTokens) => {
  const zs = matrices(T, frames + warmup + 1), figure = LIBS[lib](T), frame = () => new Promise(requestAnimationFrame);
  await figure.first(zs[0]);
  const drawn = [], shown = [];
  for (let i = 1; i <= frames + warmup; i++) {
    await frame();
    await new Promise((r) => setTimeout(r, 0));  // one frame apart, as typing is
    const t0 = performance.now();
    await figure.update(zs[i], newTokens ? tokensOf(T, i) : null);
    const t1 = performance.now();
    await frame();  // the frame that paints the update…
    await frame();  // …has been produced when the next one begins
    if (i > warmup) { drawn.push(t1 - t0); shown.push(performance.now() - t0); }
  }
  return { drawn, shown };
};
window.benchReady = true;
