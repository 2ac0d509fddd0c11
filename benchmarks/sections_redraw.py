"""How long the explorer takes from a new trace view to every figure drawn, in headless Chromium.

``python -m benchmarks.sections_redraw [--repeats N] [--models disan-sst5 dsa-sst5] [--lengths 10 20]``

For each model and length the page builds ``DisanSections.page(tv)`` (sections.js) and draws it with
``DisanReport.show`` (report.js) into the same document, alternating two sentences of that length, so
every drawing after the first reuses the plots (``Plotly.react``). The trace views' arrays are typed
arrays, as onnxruntime-web returns them. The page is scrolled to the first attention maps
(``#disan-mean`` / ``#dsa-mean``; ``--at top``: left at the tokens and prediction). Prints, from the trace view in hand, the median and the slowest of:
the build, the figures on screen drawn (report.js draws those first), every figure drawn (``show``
resolved) and the next painted frame; and the costliest figures (each figure's ``Plotly.react`` timed
alone). Not part of ``python -m disan bench``: it measures one piece of the
static explorer.
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
from pathlib import Path

import disan

from benchmarks.common import sentence
from viz_app.draw.live import recompute_js
from viz_app.draw.report import PLOTLY_JS
from viz_app.draw.site_view import figure_context, trace_view_json

BROWSER = Path(__file__).resolve().parents[1] / "viz_app" / "browser"
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu"]

#: Runs in the page: converts the trace views to typed arrays, then times build + draw per sentence.
MEASURE = """async ([views, repeats, anchor]) => {
  const typed = (s) => { for (const d of ["fw", "bw"]) { const b = s[d];
      for (const k of ["attention", "gate", "probs_max", "heads", "scores", "probs"]) if (b[k]) b[k] = Float32Array.from(b[k]);
      b.allowed = Uint8Array.from(b.allowed); }
    for (const k of ["s2t", "maxpool_share"]) if (s[k]) s[k] = Float32Array.from(s[k]); };
  for (const tv of views) { typed(tv.premise); if (tv.hypothesis) typed(tv.hypothesis); }
  const root = document.getElementById("report"), header = document.getElementById("head");
  const ended = new Map();
  for (const name of ["react", "newPlot"]) {
    const original = Plotly[name];
    Plotly[name] = (gd, ...rest) => original(gd, ...rest).then(out => { ended.set(gd, performance.now()); return out; });
  }
  const frame = () => new Promise(r => requestAnimationFrame(() => setTimeout(r, 0)));
  const onScreen = (el) => { const r = el.getBoundingClientRect(); return r.bottom > 0 && r.top < innerHeight; };
  const rows = [];
  for (let i = 0; i < 2 * repeats + 2; i++) {
    const tv = views[i % 2];
    ended.clear();
    const t0 = performance.now();
    const page = DisanSections.page(tv);
    const t1 = performance.now();
    await DisanReport.show(root, page, { header });
    const t2 = performance.now();
    await frame();
    const t3 = performance.now();
    if (i === 0) document.getElementById(anchor).scrollIntoView({ block: "start" });
    const shown = Array.from(root.querySelectorAll(".plot[data-fig]")).filter(onScreen);
    const visible = Math.max(t1, ...shown.map(gd => ended.get(gd) || t1)) - t0;
    if (i >= 2) rows.push({ build: t1 - t0, visible, draw: t2 - t0, painted: t3 - t0,
                            shown: shown.map(gd => gd.dataset.fig) });
  }
  const figures = {};
  for (const gd of root.querySelectorAll(".plot[data-fig]")) {
    const other = DisanSections.page(views[0]).data.figures[gd.dataset.fig];
    const t0 = performance.now();
    await Plotly.react(gd, other.data, other.layout);
    figures[gd.dataset.fig] = performance.now() - t0;
  }
  return { rows, figures };
}"""


def views(model: str, T: int) -> list[dict]:
    m = disan.load(model, device="cpu")
    hyp = (sentence(T, 3), sentence(T, 5)) if m.cfg.pair else (None, None)
    return [trace_view_json(m.trace(sentence(T, k), hyp[i])) for i, k in enumerate((0, 7))]


def run(models: list[str], lengths: list[int], repeats: int, at: str = "maps") -> list[dict]:
    from playwright.sync_api import sync_playwright

    out = []
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=shutil.which("chromium"), args=CHROMIUM_ARGS)
        try:
            for model in models:
                for T in lengths:
                    page = browser.new_page(viewport={"width": 1400, "height": 1000})
                    page.route("**/*", lambda route: route.abort())
                    page.set_content('<!doctype html><html><head><style>'
                                     + (BROWSER / "report.css").read_text(encoding="utf-8")
                                     + '</style></head><body class="report"><div id="head"></div>'
                                       '<main id="report"></main></body></html>')
                    for script in (PLOTLY_JS.read_text(encoding="utf-8"), recompute_js(),
                                   *((BROWSER / f).read_text(encoding="utf-8") for f in ("figures.js", "sections.js", "report.js"))):
                        page.add_script_tag(content=script)
                    page.evaluate("(c) => DisanFigures.configure(c)", figure_context())
                    anchor = "tokens" if at == "top" else "disan-mean" if model.startswith("disan") else "dsa-mean"
                    result = page.evaluate(MEASURE, [views(model, T), repeats, anchor])
                    out.append({"model": model, "T": T, **result})
                    page.close()
        finally:
            browser.close()
    return out


def _stats(values: list[float]) -> str:
    values = sorted(values)
    return f"{values[len(values) // 2]:6.1f} / {values[-1]:6.1f}"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--models", nargs="+", default=["disan-sst5", "dsa-sst5"])
    parser.add_argument("--lengths", nargs="+", type=int, default=[10, 20])
    parser.add_argument("--repeats", type=int, default=10)
    parser.add_argument("--at", choices=["maps", "top"], default="maps",
                        help="scroll to the first attention maps (default) or stay at the top (tokens, prediction)")
    parser.add_argument("--json", action="store_true", help="print the raw timings as JSON")
    args = parser.parse_args(argv)
    results = run(args.models, args.lengths, args.repeats, args.at)
    if args.json:
        print(json.dumps(results, indent=1))
        return 0
    print("| model | T | build ms (median / max) | maps on screen drawn ms | all drawn ms | painted ms | "
          "costliest figures (react ms) |")
    print("|---|---|---|---|---|---|---|")
    for r in results:
        rows = r["rows"]
        top = sorted(r["figures"].items(), key=lambda kv: -kv[1])[:3]
        print(f"| {r['model']} | {r['T']} | {_stats([x['build'] for x in rows])} | {_stats([x['visible'] for x in rows])} | "
              f"{_stats([x['draw'] for x in rows])} | "
              f"{_stats([x['painted'] for x in rows])} | {', '.join(f'{k} {v:.0f}' for k, v in top)} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
