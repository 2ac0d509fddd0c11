"""The static explorer's numbers (issue 18): ``python -m viz_app bench site``.

Builds the folder (``python -m viz_app site``), opens it from disk in headless Chromium with every request
outside the folder aborted, and measures what a visitor meets:

* **opened from disk → first maps drawn**: a fresh browser context per run, from navigation start until the
  maps on screen are drawn (report.js's ``visibleAt``; the sections below the fold follow);
* **typed sentence → every map drawn**: the clock starts in the page just before the text field's
  ``input`` event and stops at the first frame after the page has computed (onnxruntime-web) and drawn
  every section of the new sentence; sentences of 5–20 tokens and of 64 tokens;
* **sizes**: each model's file (weights + vocabulary), the shared assets, and the folder with one model.

Targets (issue 18): typed → drawn p95 ≤ 30 ms at T ≤ 20 and ≤ 100 ms at T = 64; first maps ≤ 2 s; a model's
files ≤ 10 MB; the folder with one model ≤ 30 MB. The machine's load is part of the report.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import tempfile
import time
from pathlib import Path
from urllib.parse import urlencode

from .common import Stats, Table, busy, machine_info, sentence

README_START, README_END = "<!-- site-numbers:start -->", "<!-- site-numbers:end -->"
TIMEOUT_MS = 120_000
TARGETS = {"short": 30.0, "long": 100.0, "first": 2000.0, "model_mb": 10.0, "folder_mb": 30.0}


def parse_args(argv: list[str]) -> argparse.Namespace:
    p = argparse.ArgumentParser(prog="python -m viz_app bench site", description=__doc__.splitlines()[0])
    p.add_argument("--site", default=None, help="an already built folder (default: build one in a temporary folder)")
    p.add_argument("--models", default="disan-sst5,dsa-sst5,dsa-nli", help="models timed in the page")
    p.add_argument("--all-models", action="store_true", help="build every bundled model (the sizes table lists all)")
    p.add_argument("--typed", type=int, default=30, help="timed typed sentences per model and length class")
    p.add_argument("--warmup", type=int, default=3, help="untimed typed sentences first")
    p.add_argument("--opens", type=int, default=5, help="cold opens from disk")
    p.add_argument("--quick", action="store_true", help="smoke run: 3 typed, 1 open")
    p.add_argument("--markdown", metavar="PATH", help="write the report as Markdown (e.g. docs/site-benchmark.md)")
    p.add_argument("--json", metavar="PATH", help="write the raw timings as JSON")
    p.add_argument("--docs", "--readme", dest="docs", metavar="PATH",
                   help="write the summary between the site-numbers markers of PATH "
                        "(docs/benchmarks-and-reliability.md)")
    args = p.parse_args(argv)
    if args.quick:
        args.typed, args.warmup, args.opens = 3, 1, 1
    args.models = [m.strip() for m in args.models.split(",") if m.strip()]
    return args


def _browser(playwright):
    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    if chromium is None:
        raise SystemExit("error: chromium is not installed; bash scripts/setup.sh --dev installs it")
    return playwright.chromium.launch(executable_path=chromium, args=[
        "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking"])


def _open(browser, folder: Path, state: dict):
    """A fresh context on ``index.html#state`` that may read only files inside ``folder``."""
    context = browser.new_context(viewport={"width": 1400, "height": 1000})
    inside = folder.as_uri() + "/"
    context.route("**/*", lambda route: route.continue_() if route.request.url.startswith(inside) else route.abort())
    page = context.new_page()
    page.set_default_timeout(TIMEOUT_MS)
    page.goto((folder / "index.html").as_uri() + "#" + urlencode(state))
    page.wait_for_function("() => document.body.dataset.drawnAt || document.body.dataset.state === 'error'")
    if page.evaluate("document.body.dataset.state") == "error":
        raise SystemExit(f"error: the page refused {state}: {page.inner_text('#status')}")
    return context, page


def _first_maps(browser, folder: Path, model: str, opens: int) -> list[float]:
    times = []
    for _ in range(opens):
        context, page = _open(browser, folder, {"m": model, "t": sentence(12)})
        times.append(float(page.evaluate("document.getElementById('report').dataset.visibleAt")))
        context.close()
    return times


_TYPE = """([text]) => new Promise(resolve => {
  const body = document.body, before = body.dataset.generation, field = document.getElementById('text');
  const report = document.getElementById('report'), t0 = performance.now();
  field.value = text;
  field.dispatchEvent(new Event('input', {bubbles: true}));
  (function wait() {
    if (body.dataset.state === 'error') return resolve({error: document.getElementById('status').textContent});
    if (body.dataset.generation !== before && body.dataset.state === 'ready' && +body.dataset.drawnAt > t0)
      return resolve({ms: +body.dataset.drawnAt - t0, compute: +body.dataset.runMs,
                      visible: +report.dataset.visibleAt - t0});
    requestAnimationFrame(wait);
  })();
})"""


def _typed(page, lengths: list[int], count: int, warmup: int) -> tuple[list[float], list[float], list[float]]:
    drawn, compute, visible = [], [], []
    for i in range(warmup + count):
        n = lengths[i % len(lengths)]
        result = page.evaluate(_TYPE, [sentence(n, offset=i)])
        if "error" in result:
            raise SystemExit(f"error: the page refused a {n}-token sentence: {result['error']}")
        if i >= warmup:
            drawn.append(result["ms"])
            compute.append(result["compute"])
            visible.append(result["visible"])
    return drawn, compute, visible


def _verdict(value: float, limit: float) -> str:
    return "met" if value <= limit else f"missed by {value - limit:,.1f} ({value / limit:.1f}× the limit)"


def _measure(browser, folder: Path, args) -> tuple[list[float], list[dict]]:
    """Cold opens, then typed sentences per model and length class."""
    first = _first_maps(browser, folder, args.models[0], args.opens)
    rows = []
    for model in args.models:
        context, page = _open(browser, folder, {"m": model, "t": sentence(8), "h": sentence(6, offset=3)})
        for label, lengths in (("short", list(range(5, 21))), ("long", [64])):
            drawn, compute, visible = _typed(page, lengths, args.typed, args.warmup)
            rows.append({"model": model, "class": label, "lengths": [min(lengths), max(lengths)],
                         "drawn_ms": drawn, "compute_ms": compute, "visible_ms": visible})
            s = Stats.of(drawn)
            print(f"[site] {model} T={min(lengths)}–{max(lengths)}: median {s.median:.1f} ms, "
                  f"p95 {s.p95:.1f} ms", flush=True)
        context.close()
    return first, rows


def run(args, browser=None) -> dict:
    """Measure the folder (``--site``) or a freshly built one; ``browser``: a launched Chromium to use
    (the tests'), else one is launched here."""
    from playwright.sync_api import sync_playwright

    from viz_app.draw import site

    info = machine_info()
    work = None
    if args.site:
        folder = Path(args.site).expanduser().resolve()
        sizes = None
    else:
        work = Path(tempfile.mkdtemp(prefix="disan-bench-site-"))
        names = None if args.all_models else sorted(set(args.models))
        print(f"[site] building {'every bundled model' if names is None else ', '.join(names)} …", flush=True)
        built = site.build_site(work / "site", names)
        folder = built.out
        sizes = {"models": {m.name: m.bytes for m in built.models}, "shared": built.shared_bytes}
    try:
        if sizes is None:
            sizes = {"models": {p.stem: p.stat().st_size for p in (folder / "models").glob("*.js")},
                     "shared": sum(p.stat().st_size for p in (folder / "assets").iterdir())
                     + (folder / "index.html").stat().st_size}
        if browser is not None:
            first, rows = _measure(browser, folder, args)
        else:
            with sync_playwright() as p:
                own = _browser(p)
                first, rows = _measure(own, folder, args)
                own.close()
    finally:
        if work is not None:
            shutil.rmtree(work, ignore_errors=True)
    info["load_average_at_end"] = [round(x, 2) for x in os.getloadavg()]
    return {"machine": info, "first_maps_ms": first, "typed": rows, "sizes": sizes}


def tables(result: dict) -> list[Table]:
    typed = Table("Typed sentence → every map drawn (headless Chromium, file://)",
                  ["model", "tokens", "n", "median ms", "p95 ms", "model run: median / p95 ms",
                   "maps on screen: median / p95 ms", "target", "verdict"])
    for r in result["typed"]:
        s, v, c = Stats.of(r["drawn_ms"]), Stats.of(r["visible_ms"]), Stats.of(r["compute_ms"])
        limit = TARGETS[r["class"]]
        lo, hi = r["lengths"]
        typed.add(r["model"], f"{lo}–{hi}" if lo != hi else str(lo), s.n, f"{s.median:.1f}", f"{s.p95:.1f}",
                  f"{c.median:.1f} / {c.p95:.1f}", f"{v.median:.1f} / {v.p95:.1f}", f"p95 ≤ {limit:g} ms",
                  _verdict(s.p95, limit))
    typed.notes.append("every map: every figure of every section, also those below the fold. Model run: onnxruntime-web's "
                       "session.run on the tokenized sentence, until its outputs are read. Maps on screen: input event until "
                       "the figures in the window are drawn; the rest of the time is plotly.js laying out the "
                       "figures below the fold")
    first = Stats.of(result["first_maps_ms"])
    opened = Table("Opened from disk → first maps drawn", ["n", "median ms", "max ms", "target", "verdict"])
    opened.add(first.n, f"{first.median:,.0f}", f"{max(result['first_maps_ms']):,.0f}",
               f"≤ {TARGETS['first']:,.0f} ms", _verdict(max(result["first_maps_ms"]), TARGETS["first"]))
    sizes = Table("Sizes", ["file", "MB", "target", "verdict"])
    shared = result["sizes"]["shared"] / 1e6
    for name, size in sorted(result["sizes"]["models"].items()):
        sizes.add(f"models/{name}.js (weights + vocabulary)", f"{size / 1e6:.2f}", "≤ 10 MB",
                  _verdict(size / 1e6, TARGETS["model_mb"]))
    sizes.add("assets/ (page, plotly.js, onnxruntime-web; shared)", f"{shared:.2f}", "", "")
    largest = max(result["sizes"]["models"].values()) / 1e6
    sizes.add("folder with its largest model", f"{shared + largest:.2f}", "≤ 30 MB",
              _verdict(shared + largest, TARGETS["folder_mb"]))
    return [typed, opened, sizes]


def machine_line(info: dict) -> str:
    load = info.get("load_average_at_start")
    line = (f"{info['logical_cpus']} logical CPUs ({info['cpu']}), Chromium headless; load average at start "
            f"{load[0]:.1f}" if load else f"{info['logical_cpus']} logical CPUs")
    return line + (" (the CPU was busy: figures are slower than on an idle machine)" if busy(info) else "")


def main(argv: list[str] | None = None) -> int:
    args = parse_args(list(argv or []))
    started = time.time()
    result = run(args)
    out = tables(result)
    for t in out:
        print(t.to_text(), "\n")
    day = time.strftime("%Y-%m-%d")
    header = (f"Measured by `python -m viz_app bench site{' --all-models' if args.all_models else ''}` on "
              f"{machine_line(result['machine'])}, {day}.")
    if args.json:
        Path(args.json).write_text(json.dumps({**result, "tables": [t.to_dict() for t in out]}, indent=1) + "\n")
    if args.markdown:
        body = ["# Static explorer benchmark", "", header, ""] + [t.to_markdown() + "\n" for t in out]
        body.append(f"Took {time.time() - started:.0f} s.")
        Path(args.markdown).write_text("\n".join(body) + "\n", encoding="utf-8")
        print(f"wrote {args.markdown}")
    if args.docs:
        from disan.output import rewrite_marked

        block = "\n".join([header, ""] + [t.to_markdown().replace("### ", "**", 1).replace("\n", "**\n", 1) + "\n"
                                           for t in out])
        rewrite_marked(args.docs, README_START, README_END, block)
        print(f"wrote the site numbers into {args.docs}")
    return 0
