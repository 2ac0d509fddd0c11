"""How long the static explorer's page code holds the page's thread as it loads: the classic scripts of a commit
before issue 54 (``--baseline``, default 645ea96) against this checkout's bundle (viz_app/browser/dist/site.js).

Each run opens a fresh page from disk whose scripts are only the page code (no data, no plotly.js, no model)
and reads performance.now() before the first script and after the last. "early" is what ran before the model's
graph was posted to the worker (the baseline's tokenize.js, onnx_graph.js and site.js); the bundle is all of
it. Usage: ``python scripts/probe_page_code.py [--runs 40] [--baseline 645ea96]`` (prints medians, min, max and
the load average; headless Chromium).
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

from playwright.sync_api import sync_playwright

ROOT = Path(__file__).resolve().parents[1]
EARLY = ["tokenize.js", "onnx_graph.js", "site.js"]
LATE = ["recompute.js", "paint.js", "figures.js", "sections.js", "view_figures.js", "report.js", "pair.js",
        "pair_view.js", "site_pair.js"]


def page(folder: Path, name: str, scripts: list[str]) -> str:
    tags = "".join(f'<script src="{s}"></script>' for s in scripts)
    (folder / name).write_text('<!DOCTYPE html><html><head><meta charset="utf-8"></head><body>'
                               f"<script>window.t0 = performance.now();</script>{tags}"
                               "<script>window.t1 = performance.now();</script></body></html>", encoding="utf-8")
    return (folder / name).as_uri()


def main() -> None:
    args = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    args.add_argument("--runs", type=int, default=40)
    args.add_argument("--baseline", default="645ea96")
    opts = args.parse_args()
    sys.path.insert(0, str(ROOT))
    from viz_app.draw import bundles

    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        for name in EARLY + LATE:
            text = subprocess.run(["git", "show", f"{opts.baseline}:viz_app/browser/{name}"], cwd=ROOT, check=True,
                                  capture_output=True, text=True).stdout
            (folder / f"old_{name}").write_text(text, encoding="utf-8")
        shutil.copyfile(bundles.path("site"), folder / "bundle.js")
        early = [f"old_{s}" for s in EARLY]
        cases = {f"{opts.baseline} early (tokenize, onnx_graph, site)": page(folder, "early.html", early),
                 f"{opts.baseline} all twelve scripts": page(folder, "all.html", [f"old_{s}" for s in EARLY + LATE]),
                 "this checkout's bundle (site.js)": page(folder, "bundle.html", ["bundle.js"])}
        times: dict[str, list[float]] = {k: [] for k in cases}
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=shutil.which("chromium"),
                                        args=["--headless", "--no-sandbox", "--disable-gpu"])
            for _ in range(opts.runs):
                for case, url in cases.items():  # interleaved, so a busy spell of the machine hits each alike
                    context = browser.new_context()
                    tab = context.new_page()
                    tab.goto(url)
                    times[case].append(tab.evaluate("window.t1 - window.t0"))
                    context.close()
            browser.close()
    print(f"load average {os.getloadavg()[0]:.1f} (at the end); {opts.runs} runs each")
    for case, ms in times.items():
        print(f"{case}: median {statistics.median(ms):.1f} ms, min {min(ms):.1f}, max {max(ms):.1f}")


if __name__ == "__main__":
    main()
