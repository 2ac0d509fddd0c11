"""``python -m viz_app bench search`` (installed: ``disan bench search``): issue 56's figures.

* indexing throughput in examples per second per core for each architecture (one torch thread, one chunk of
  SST-5 test sentences; SNLI test pairs for the NLI model), with the sample's tokens T stated, and on every core;
* indexing every corpus of ``../shared/data`` each model reads (``--data all``: disan-sst5 → SST, TREC, SUBJ,
  MPQA, CR; dsa-nli → SNLI dev + test, SICK) in a subprocess per model, with wall time and peak memory, and the
  SST-5 test split alone beside it (the same peak at a fraction of the size: the memory bound);
* a token filter, a sentence filter and a ``--like`` query over each whole index: median and p95 of warm
  queries through one DuckDB connection (as the Search view runs them), and one cold ``disan search`` process.

Prints ``uptime`` first: the machine is shared, and its load changes every figure. ``--docs`` writes the block
into docs/search.md between the bench-search markers; ``--json FILE`` stores the raw figures.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

from .common import Stats, Table, fmt_ms, machine_info, measured_by

START, END = "<!-- bench-search:start -->", "<!-- bench-search:end -->"
FULL = (("disan-sst5", "all"), ("dsa-nli", "all"))
THROUGHPUT = (("disan-sst5", "sst5:test"), ("dsa-sst5", "sst5:test"), ("dsa-nli", "snli:test"))
LIKE = "the plot is thin , but the acting is superb ."
P95_TARGET_S = 0.2


def _uptime() -> str:
    try:
        return subprocess.run(["uptime"], capture_output=True, text=True, check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return f"load average {os.getloadavg()}"


def throughput(model_name: str, data: str, n: int, threads: int, data_dir: str | None) -> dict:
    """Examples per second of ``index_chunk`` on the first ``n`` examples of ``data`` with ``threads`` threads."""
    import torch

    from disan.api import load
    from disan.corpus.chunk import index_chunk
    from disan.corpus.sources import open_corpus
    from disan.vocab import tokenize

    torch.set_num_threads(threads)
    model = load(model_name, "cpu")
    _, items = next(open_corpus(data, model.cfg.pair, data_dir).chunks(n))
    lengths = [len(tokenize(it.text)) for it in items]
    index_chunk(model, 0, items[:32])  # warm-up
    start = time.perf_counter()
    index_chunk(model, 0, items)
    seconds = time.perf_counter() - start
    return {"model": model_name, "arch": model.cfg.arch, "data": data, "n": len(items), "threads": threads,
            "seconds": seconds, "per_s": len(items) / seconds, "T_mean": float(np.mean(lengths)),
            "T_max": int(max(lengths))}


def full_index(model_name: str, data: str, out: Path, data_dir: str | None) -> dict:
    """``disan index`` in its own process (its peak memory is its own); wall time measured around it."""
    cmd = [sys.executable, "-m", "disan", "index", "--model", model_name, "--data", data, "--out", str(out),
           "--overwrite", "--no-progress"] + (["--data-dir", data_dir] if data_dir else [])
    start = time.perf_counter()
    proc = subprocess.run(cmd, capture_output=True, text=True)
    wall = time.perf_counter() - start
    if proc.returncode:
        raise RuntimeError(f"{' '.join(cmd)} failed: {proc.stderr.strip().splitlines()[-1:]}")
    manifest = json.loads((out / "manifest.json").read_text())
    size = sum(p.stat().st_size for p in out.rglob("*.parquet"))
    return {"model": model_name, "data": data, "examples": manifest["examples"], "rows": manifest["rows"],
            "wall_s": wall, "index_s": manifest["seconds"], "peak_rss_mb": manifest["peak_rss_mb"],
            "threads": manifest["torch_threads"], "bytes": size, "out": str(out)}


def queries(index_dir: Path, repeats: int) -> list[dict]:
    from disan.corpus.manifest import open_index
    from disan.corpus.query import Filter, Query
    from disan.corpus.search import connect, run_query

    index = open_index(index_dir)
    con = connect(index, load=True)
    cases = {
        "tokens: word = not and bw_gate > 0.5, sort bw_gate, top 20":
            Query((Filter("word", "=", "not"), Filter("bw_gate", ">", "0.5")), sort="bw_gate"),
        "sentences: correct = false and tau_s2t_grad < -0.3, sort T, top 20":
            Query((Filter("correct", "=", "false"), Filter("tau_s2t_grad", "<", "-0.3")), sort="T"),
        f"--like {LIKE!r}, top 20": Query(like=LIKE),
    }
    out = []
    for name, query in cases.items():
        for _ in range(2):
            hits = run_query(index, query, con)
        times = []
        for _ in range(repeats):
            start = time.perf_counter()
            run_query(index, query, con)
            times.append(time.perf_counter() - start)
        s = Stats.of(times)
        out.append({"index": str(index_dir), "query": name, "hits": len(hits.rows), "n": s.n, "median_s": s.median,
                    "p95_s": s.p95})
    argv = [sys.executable, "-m", "disan", "search", "--index", str(index_dir), "--where", "word", "=", "not",
            "--where", "bw_gate", ">", "0.5", "--sort", "bw_gate"]
    start = time.perf_counter()
    subprocess.run(argv, capture_output=True, check=False)
    out.append({"index": str(index_dir), "query": "cold process: disan search (the token filter above)", "hits": None,
                "n": 1, "median_s": time.perf_counter() - start, "p95_s": float("nan")})
    con.close()
    return out


def view_latency(model_name: str, index_dir: Path, repeats: int) -> dict:
    """The Search view in headless Chromium over ``index_dir``: a changed filter value → the new hits on screen.

    The index is linked into a temporary cache folder under the name the view looks for; each change
    alternates the first filter's word between two values and waits until the hits table's text changes."""
    import shutil
    import socket
    import tempfile
    from urllib.parse import quote

    from playwright.sync_api import sync_playwright

    from disan.corpus import cache
    from disan.corpus.manifest import open_index

    from .server import streamlit_server

    index = open_index(index_dir)
    root = Path(tempfile.mkdtemp(prefix="disan-bench-cache-"))
    os.environ["DISAN_INDEX_CACHE"] = str(root)
    target = cache.index_folder(model_name, index.model["sha256"], index.manifest["corpus"])
    target.parent.mkdir(parents=True)
    target.symlink_to(index_dir.resolve(), target_is_directory=True)
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    q = json.dumps({"corpus": index.manifest["corpus"], "where": [["word", "=", "not"]], "sort": "bw_gate"})
    words = ("bad", "not")
    times = []
    with streamlit_server(port, env={"DISAN_INDEX_CACHE": str(root)}) as (url, _), sync_playwright() as p:
        browser = p.chromium.launch(executable_path=shutil.which("chromium"),
                                    args=["--headless", "--no-sandbox", "--disable-gpu"])
        page = browser.new_page(viewport={"width": 1500, "height": 1100})
        page.set_default_timeout(120_000)
        page.goto(f"{url}/?view=search&model={model_name}&q={quote(q)}")
        page.wait_for_selector("table.disan-search-hits tbody tr")
        page.wait_for_selector(".js-plotly-plot")
        box = page.locator('[data-testid="stMain"] [data-testid="stTextInput"] input').first
        for k in range(repeats + 1):
            before = page.locator("table.disan-search-hits").inner_text()
            start = time.perf_counter()
            box.fill(words[k % 2])
            box.press("Enter")
            page.wait_for_function("(b) => { const t = document.querySelector('table.disan-search-hits'); "
                                   "return t && t.innerText !== b; }", arg=before)
            if k:  # the first change warms the page's caches
                times.append(time.perf_counter() - start)
            page.wait_for_timeout(2000)  # the rest of the page (figures) finishes before the next change
        browser.close()
    shutil.rmtree(root, ignore_errors=True)
    s = Stats.of(times)
    return {"model": model_name, "index": str(index_dir), "examples": index.manifest["examples"], "n": s.n,
            "median_s": s.median, "p95_s": s.p95}


def tables(raw: dict) -> list[Table]:
    t1 = Table("Indexing throughput (one chunk, trace + gradient × input, CPU)",
               ["model", "arch", "sample", "T mean / max", "threads", "examples/s", "per core",
                "core-hours per 10⁶"])
    for r in raw["throughput"]:
        t1.add(r["model"], r["arch"], f"{r['n']:,} of {r['data']}", f"{r['T_mean']:.1f} / {r['T_max']}", r["threads"],
               f"{r['per_s']:.1f}", f"{r['per_s'] / r['threads']:.1f}", f"{1e6 * r['threads'] / r['per_s'] / 3600:.1f}")
    t1.notes.append("a pair model's example is a premise and a hypothesis (two sentences traced)")
    t1.notes.append("on a machine whose cores other jobs share, two threads in one process can run slower than one "
                    "(they wait for each other); compare the rows at the load printed above")
    t1.notes.append("core-hours per 10⁶ = 10⁶ / (examples/s per core) / 3600: what a million examples cost on a "
                    "cluster of such cores (docs/search.md, Ray)")
    t2 = Table("Indexing whole corpora (disan index in its own process, with the torch threads shown)",
               ["model", "--data", "examples", "tokens", "threads", "wall", "examples/s", "peak memory",
                "index size"])
    for r in raw["full"]:
        t2.add(r["model"], r["data"], f"{r['examples']:,}", f"{r['rows']['tokens']:,}", r["threads"], f"{r['wall_s']:.0f} s",
               f"{r['examples'] / r['index_s']:.1f}", f"{r['peak_rss_mb']:,.0f} MB", f"{r['bytes'] / 2**20:.1f} MiB")
    t3 = Table("Queries over the whole index (DuckDB, the index loaded into memory once, as the Search view holds it)",
               ["index", "query", "hits", "runs", "median ms", "p95 ms", f"p95 ≤ {P95_TARGET_S * 1000:.0f} ms"])
    for r in raw["queries"]:
        met = "–" if r["p95_s"] != r["p95_s"] else ("met" if r["p95_s"] <= P95_TARGET_S else "MISSED")
        t3.add(Path(r["index"]).name, r["query"], "–" if r["hits"] is None else r["hits"], r["n"],
               fmt_ms(r["median_s"]), fmt_ms(r["p95_s"]), met)
    out = [t1, t2, t3]
    if raw.get("view"):
        t4 = Table("Search view: a changed filter → the new hits on screen (headless Chromium)",
                   ["model", "index", "examples", "changes", "median ms", "p95 ms", "≤ 1,000 ms"])
        for r in raw["view"]:
            t4.add(r["model"], Path(r["index"]).name, f"{r['examples']:,}", r["n"], fmt_ms(r["median_s"]),
                   fmt_ms(r["p95_s"]), "met" if r["p95_s"] <= 1.0 else "MISSED")
        t4.notes.append("the figures and the rest of the page redraw after the table; the time is to the table")
        out.append(t4)
    return out


def main(argv: list[str]) -> int:
    p = argparse.ArgumentParser(prog="python -m viz_app bench search", description=__doc__.splitlines()[0])
    p.add_argument("--out-dir", default=str(Path.home() / "disan-runs" / "search-bench"),
                   help="where the indexes go (outside the checkout)")
    p.add_argument("--data-dir", default=None)
    p.add_argument("--sample", type=int, default=512, help="examples of the throughput rows")
    p.add_argument("--repeats", type=int, default=40, help="timed runs of each query")
    p.add_argument("--quick", action="store_true", help="smoke run: SST-5 test and SNLI test only, small samples")
    p.add_argument("--docs", action="store_true", help="write the block into docs/search.md")
    p.add_argument("--json", default=None, help="store the raw figures here")
    p.add_argument("--from-json", default=None, metavar="FILE",
                   help="measure nothing: print (and with --docs write) the tables of a run stored with --json")
    p.add_argument("--only-queries", action="store_true",
                   help="measure only the queries over the --data all indexes of the --json run (replacing its rows)")
    p.add_argument("--only-view", action="store_true",
                   help="measure only the Search view over the --data all indexes already in --out-dir, and add "
                        "the figures to the --json file of the run that built them")
    args = p.parse_args(argv)
    if args.only_queries:
        path = Path(args.json)
        raw = json.loads(path.read_text())
        import torch

        torch.set_num_threads(1)
        raw["queries"] = [q for r in raw["full"] if r["data"] == "all" for q in queries(Path(r["out"]), args.repeats)]
        raw["argv_queries"], raw["uptime_queries"] = argv, _uptime()
        path.write_text(json.dumps(raw, indent=1, default=str))
        print(tables(raw)[2].to_text())
        return 0
    if args.only_view:
        path = Path(args.json)
        raw = json.loads(path.read_text())
        raw["view"] = [view_latency(r["model"], Path(r["out"]), 10) for r in raw["full"] if r["data"] == "all"]
        raw["argv_view"], raw["uptime_view"] = argv, _uptime()
        path.write_text(json.dumps(raw, indent=1, default=str))
        print(tables(raw)[-1].to_text())
        return 0
    if args.from_json:
        raw = json.loads(Path(args.from_json).read_text())
        return _report(raw, raw["machine"], raw["uptime_at_start"], args, " ".join(raw["argv"]))
    uptime = _uptime()
    print(f"uptime: {uptime}", flush=True)
    info = machine_info()
    raw: dict = {"machine": info, "uptime_at_start": uptime, "argv": argv, "throughput": [], "full": [], "queries": []}
    sample = 128 if args.quick else args.sample
    cores = os.cpu_count() or 1
    for model, data in THROUGHPUT:
        for threads in sorted({1, cores}):
            raw["throughput"].append(throughput(model, data, sample, threads, args.data_dir))
            print(tables(raw)[0].rows[-1], flush=True)
    out_dir = Path(args.out_dir).expanduser()
    out_dir.mkdir(parents=True, exist_ok=True)
    full = (("disan-sst5", "sst5:test"), ("dsa-nli", "snli:test")) if args.quick else FULL + (("disan-sst5", "sst5:test"),)
    for model, data in full:
        raw["full"].append(full_index(model, data, out_dir / f"{model}-{data.replace(':', '-')}", args.data_dir))
        print(tables(raw)[1].rows[-1], flush=True)
    import torch

    torch.set_num_threads(1)  # a --like query traces one short sentence; more threads only add synchronisation
    for r in raw["full"]:
        if r["data"] == "all" or args.quick:
            raw["queries"] += queries(Path(r["out"]), 5 if args.quick else args.repeats)
    raw["uptime_at_end"] = _uptime()
    return _report(raw, info, uptime, args, " ".join(argv))


def _report(raw: dict, info: dict, uptime: str, args, given: str) -> int:
    rendered = tables(raw)
    for t in rendered:
        print("\n" + t.to_text())
    print(f"\nuptime at the end: {raw['uptime_at_end']}")
    if args.json and not args.from_json:
        Path(args.json).write_text(json.dumps(raw, indent=1, default=str))
    if args.docs:
        from disan.locations import CHECKOUT
        from disan.output import rewrite_marked

        command = f"python -m viz_app bench search {given}".strip()
        later = [f"the query rows by `python -m viz_app bench search {' '.join(raw['argv_queries'])}` (`uptime`: "
                 f"`{raw['uptime_queries']}`)"] if raw.get("argv_queries") else []
        later += [f"the view rows by `python -m viz_app bench search {' '.join(raw['argv_view'])}` (`uptime` at "
                  f"the end: `{raw['uptime_view']}`)"] if raw.get("argv_view") else []
        block = "\n\n".join([measured_by(command, info) + f" `uptime` at the start: `{uptime}`; at the end: "
                             f"`{raw['uptime_at_end']}`." + (" Then " + "; ".join(later) + "." if later else "")]
                            + [t.to_markdown() for t in rendered])
        print(f"updated {rewrite_marked(CHECKOUT / 'docs' / 'search.md', START, END, block)}")
    return 0
