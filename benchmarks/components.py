"""``python -m viz_app bench components``: the heatmap's update with a new z each frame in headless Chromium,
this project's canvas component (viz_app/browser/components/) against Apache ECharts' heatmap and
Plotly.react, each through its public API, at T = 10 … 256: p50 / p95 milliseconds per update (issue 54,
item 2: measure before choosing). Prints the table with the load average before and after."""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

from .common import Table

ROOT = Path(__file__).resolve().parents[1]
LIBS = {"ours": "canvas component (this project)", "echarts": "ECharts heatmap", "plotly": "Plotly.react"}
MODES = ("z", "tokens")  # a new z each frame; new tokens and a new z each frame (typing)
PLOTLY = ROOT / "node_modules" / "plotly.js" / "dist" / "plotly-cartesian.min.js"


def unavailable() -> str | None:
    if not (shutil.which("chromium") or shutil.which("chromium-browser")):
        return "chromium is not installed"
    for need in (ROOT / "node_modules" / ".bin" / "esbuild", ROOT / "node_modules" / "echarts", PLOTLY):
        if not need.exists():
            return f"{need.relative_to(ROOT)} is missing: run npm ci"
    try:
        import playwright  # noqa: F401
    except ImportError:
        return "playwright is not installed: pip install -r requirements-dev.txt"
    return None


def build_page(out: Path) -> Path:
    subprocess.run([str(ROOT / "node_modules" / ".bin" / "esbuild"), str(ROOT / "benchmarks" / "components_page.mjs"),
                    "--bundle", "--format=iife", "--minify", f"--outfile={out / 'bench.js'}", "--log-level=warning"],
                   cwd=ROOT, check=True, timeout=300)
    shutil.copy(PLOTLY, out / "plotly.js")
    page = out / "bench.html"
    page.write_text('<!doctype html><html lang="en"><head><meta charset="utf-8"><title>bench components</title>'
                    '</head><body><script src="plotly.js"></script><script src="bench.js"></script></body></html>')
    return page


def load() -> str:
    return ", ".join(f"{x:.2f}" for x in os.getloadavg())


def run(sizes: list[int], frames: int, warmup: int, libs: list[str]) -> list[dict]:
    from playwright.sync_api import sync_playwright

    rows = []
    with tempfile.TemporaryDirectory(prefix="disan-bench-components-") as tmp, sync_playwright() as pw:
        url = build_page(Path(tmp)).as_uri()
        browser = pw.chromium.launch(executable_path=shutil.which("chromium") or shutil.which("chromium-browser"),
                                     args=["--headless", "--no-sandbox", "--disable-gpu"])
        try:
            for T in sizes:
                for lib in libs:
                    row = {"lib": lib, "T": T}
                    for mode in MODES:
                        page = browser.new_page(viewport={"width": 800, "height": 800})  # a fresh page per cell
                        page.goto(url)
                        page.wait_for_function("window.benchReady === true")
                        page.set_default_timeout(600_000)
                        got = page.evaluate("([l, T, f, w, n]) => bench(l, T, f, w, n)",
                                            [lib, T, frames, warmup, mode == "tokens"])
                        page.close()
                        drawn, shown = np.array(got["drawn"]), np.array(got["shown"])
                        row[mode] = {"frames": len(drawn), "p50_ms": float(np.percentile(drawn, 50)),
                                     "p95_ms": float(np.percentile(drawn, 95)), "max_ms": float(drawn.max()),
                                     "shown_p95_ms": float(np.percentile(shown, 95)),
                                     "drawn_ms": got["drawn"], "shown_ms": got["shown"]}
                        print(f"  T={T:4d} {LIBS[lib]:<32} new {mode:<6} p50 {row[mode]['p50_ms']:8.1f} ms  "
                              f"p95 {row[mode]['p95_ms']:8.1f} ms  on screen p95 {row[mode]['shown_p95_ms']:7.1f} ms",
                              flush=True)
                    rows.append(row)
        finally:
            browser.close()
    return rows


def table(rows: list[dict], frames: int, warmup: int, before: str, after: str) -> Table:
    t = Table("Heatmap update, headless Chromium (ms per update)",
              ["T", "library", "new z: drawn p50", "p95", "p95 / ours", "on screen p95",
               "new tokens + z: drawn p50", "p95 ", "p95 / ours ", "on screen p95 "])
    ours = {r["T"]: r for r in rows if r["lib"] == "ours"}
    for r in rows:
        cells = []
        for mode in MODES:
            mine = ours.get(r["T"], {}).get(mode, {}).get("p95_ms")
            cells += [f"{r[mode]['p50_ms']:.1f}", f"{r[mode]['p95_ms']:.1f}",
                      f"{r[mode]['p95_ms'] / mine:.1f}×" if mine else "–", f"{r[mode]['shown_p95_ms']:.1f}"]
        t.add(r["T"], LIBS[r["lib"]], *cells)
    t.notes.append(f"{frames} timed updates per row after {warmup} untimed, one frame apart; 560 × 560 px, "
                   "zmin 0 / zmax 1, cell numbers at T ≤ 12; chromium --headless --disable-gpu (software canvas)")
    t.notes.append("drawn: the update call until the library has drawn (ECharts' setOption renders synchronously, "
                   "Plotly.react's promise resolves); on screen: until the frame showing it has been produced "
                   "(two animation frames after the call, so about 33 ms at least with the 60 Hz frame clock)")
    t.notes.append(f"load average (1, 5, 15 min): {before} before, {after} after; {os.cpu_count()} logical CPUs")
    return t


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m viz_app bench components", description=__doc__.splitlines()[0])
    p.add_argument("--sizes", default="10,20,64,128,256", help="tokens T per side (default 10,20,64,128,256)")
    p.add_argument("--frames", type=int, default=30, help="timed updates per row (default 30)")
    p.add_argument("--warmup", type=int, default=5, help="untimed updates first (default 5)")
    p.add_argument("--libs", default=",".join(LIBS), help=f"comma-separated, of {', '.join(LIBS)}")
    p.add_argument("--markdown", metavar="PATH", help="also write the table as Markdown")
    p.add_argument("--json", metavar="PATH", help="also write every timing as JSON")
    args = p.parse_args(argv)
    libs = [x.strip() for x in args.libs.split(",") if x.strip()]
    bad = [x for x in libs if x not in LIBS]
    if bad:
        print(f"--libs: unknown {', '.join(bad)}; use {', '.join(LIBS)}", file=sys.stderr)
        return 2
    try:
        sizes = [int(s) for s in args.sizes.split(",") if s.strip()]
    except ValueError:
        print(f"--sizes: {args.sizes!r} is not a list of integers such as 10,64,256", file=sys.stderr)
        return 2
    why = unavailable()
    if why:
        print(f"bench components: skipped: {why}", file=sys.stderr)
        return 2
    before, started = load(), time.time()
    print(f"[components] T {sizes}, {args.frames} updates (+{args.warmup} warm-up); load average {before}")
    rows = run(sizes, args.frames, args.warmup, libs)
    t = table(rows, args.frames, args.warmup, before, load())
    print()
    print(t.to_text())
    print(f"\n({time.time() - started:.0f} s)")
    if args.markdown:
        Path(args.markdown).write_text(t.to_markdown() + "\n")
    if args.json:
        Path(args.json).write_text(json.dumps({"argv": argv if argv is not None else sys.argv[1:], "rows": rows,
                                               "table": t.to_dict()}, indent=1) + "\n")
    return 0
