"""``python -m viz_app bench [all|trace|predict|train|app|site|load] [options]``: measure, print tables, check targets.

Commands (``all`` runs every one; ``--quick`` is a smoke run of seconds):

* ``trace``   — latency (median, p95) and peak memory of ``model.trace`` and
  ``model.predict`` for one sentence of T = 8 … 1,024 tokens (``benchmarks/trace.py``);
* ``predict`` — ``model.predict`` on 10,000 sentences (``benchmarks/predict.py``);
* ``train``   — SNLI-epoch equivalent, fused vs naive, against the papers'
  587 s / 693 s (``benchmarks/train.py``);
* ``attribution`` — the five token attributions of one 20-token sentence
  (``benchmarks/attribution.py``; issue 20's 250 ms target), then IG, LRP, one randomisation step and the whole
  cascading test of one sentence at T = 10 and 64 (``--cost-tokens``; issue 57 item 6), with the load average;
* ``app``     — α step, feature step and submit in headless Chromium, in-page
  recomputation against the old server path (``benchmarks/app.py``; skipped
  with a reason when chromium/playwright are missing);
* ``cold-start`` — ``streamlit run`` → browser opens ``/`` → first heatmap drawn, in headless Chromium,
  several runs, with ``--baseline-rev`` measured in the same run from a temporary copy (git archive)
  (``benchmarks/cold_start.py``; issue 19's 3 s target);
* ``site``    — the static explorer in headless Chromium from ``file://``: typed sentence →
  every map drawn, opened → first maps, sizes (``benchmarks/site.py``, its own flags; not in ``all``);
* ``load``    — 50 sessions submitting at once against one app process, N processes behind nginx and
  an earlier commit as the baseline (``benchmarks/load.py``, its own flags; not in ``all``).
* ``components`` — the canvas heatmap component's update against ECharts' heatmap and Plotly.react in
  headless Chromium, T = 10 … 256 (``benchmarks/components.py``, its own flags; not in ``all``);
* ``search``  — ``disan index`` throughput and wall time, ``disan search`` query p95 (``benchmarks/search.py``,
  its own flags; not in ``all``);
* ``train-data`` — a 10,000-example file through ``disan train --data`` per architecture (seconds per epoch, to
  early stopping, peak memory) and a 1-million-row CSV streamed and tokenised (``benchmarks/train_data.py``, its
  own flags; not in ``all``);
* ``render``  — no measuring: rewrite a page and its docs blocks from the JSON a run stored
  (``--json docs/benchmarks.json`` or ``docs/load-benchmark.json``; ``benchmarks/render.py``).

Every row runs on the CPU; with ``--device auto`` (default) the trace, predict
and train rows are repeated on CUDA when a GPU is present. ``--device cuda``
runs only those three, and only on the GPU (``all`` then skips the CPU-only
attribution, app and cold-start rows): the command for a lent GPU machine. ``--markdown
docs/benchmarks.md`` writes the command, the machine, every table and the
target verdicts; ``--json`` writes the raw timings and those tables, from which the page and the ``--docs``
blocks are written (``bench render`` writes them again).

``python -m viz_app bench …`` and ``python -m benchmarks …`` are the same command.
"""

from __future__ import annotations

import argparse
import os
import sys
import time

from . import app as bench_app
from . import attribution as bench_attribution
from . import cold_start as bench_cold_start
from . import predict as bench_predict
from . import render, server
from . import trace as bench_trace
from . import train as bench_train
from .common import Table, busy, machine_info
from .verdicts import Verdicts, app_verdicts, predict_verdicts, train_verdicts, trace_verdicts

COMMANDS = ("all", "trace", "predict", "train", "attribution", "app", "cold-start")
DEFAULT_SIZES = (8, 16, 20, 32, 64, 128, 256, 512, 1024)


def parse_args(argv: list[str]) -> argparse.Namespace:
    p = argparse.ArgumentParser(prog="python -m viz_app bench", description=__doc__.splitlines()[0])
    p.add_argument("command", nargs="?", default="all", choices=COMMANDS)
    p.add_argument("--quick", action="store_true", help="smoke run: tiny sizes and repeats (seconds); app only if named")
    p.add_argument("--markdown", metavar="PATH", help="write the report as Markdown, e.g. docs/benchmarks.md")
    p.add_argument("--json", metavar="PATH", help="write the raw timings as JSON")
    p.add_argument("--docs", "--readme", dest="docs", metavar="PATH",
                   help="write the app targets (app-latency markers), the attribution timings (attribution-bench "
                        "markers) and the cold start (cold-start markers) into PATH "
                        "(docs/benchmarks-and-reliability.md)")
    p.add_argument("--note", default=None, help="a line for the report, e.g. 'CPU busy with two training jobs'")
    p.add_argument("--threads", type=int, default=None, help="torch threads (default: torch's choice, all cores)")
    p.add_argument("--device", choices=("auto", "cpu", "cuda"), default="auto",
                   help="auto: CPU, plus CUDA when present; cuda: the GPU rows only (trace, predict, train)")
    p.add_argument("--models", default="disan,dsa", help="architectures, comma-separated")
    p.add_argument("--data-dir", default=None, help="dataset root (default: $DISAN_DATA_DIR or ../shared/data)")
    g = p.add_argument_group("trace")
    g.add_argument("--sizes", default=None, help=f"sentence lengths (default {','.join(map(str, DEFAULT_SIZES))})")
    g.add_argument("--warmup", type=int, default=None, help="untimed runs per cell (default 2)")
    g.add_argument("--repeats", type=int, default=None, help="timed runs per cell (default 20)")
    g.add_argument("--max-seconds", type=float, default=None, help="stop a cell's timed runs after this (default 20; ≥ 3 runs)")
    g.add_argument("--in-process", action="store_true", help="no fresh process per cell (no per-cell peak memory)")
    g = p.add_argument_group("predict")
    g.add_argument("--predict-inputs", type=int, default=None, help="sentences (default 10000)")
    g.add_argument("--predict-repeats", type=int, default=None, help="timed passes, best reported (default 2)")
    g = p.add_argument_group("train")
    g.add_argument("--train-batches", type=int, default=None, help="timed batches per implementation (default 48)")
    g.add_argument("--train-warmup", type=int, default=None, help="untimed batches first (default 4)")
    g = p.add_argument_group("attribution")
    g.add_argument("--attribution-tokens", type=int, default=20, help="sentence length (default 20)")
    g.add_argument("--cost-tokens", default="10,64", help="lengths of the LRP / randomisation cost table beside IG "
                   "(default 10,64; 'none' skips it)")
    g = p.add_argument_group("app")
    g.add_argument("--app-lengths", default="10,64", help="sentence lengths (default 10,64)")
    g.add_argument("--app-interactions", type=int, default=None, help="timed interactions per row (default 20)")
    g.add_argument("--app-warmup", type=int, default=None, help="untimed interactions per row (default 3)")
    g.add_argument("--app-models", default="disan-sst5,dsa-sst5", help="models for submit → heatmap (α: dsa, feature: disan)")
    g.add_argument("--app-views", default=None,
                   help="views for submit → heatmap (default: every view whose maps follow the sentence)")
    g.add_argument("--no-baseline", action="store_true", help="skip the baseline rows (server path, earlier commit)")
    g.add_argument("--app-typing-only", action="store_true",
                   help="only Explore's typing rows (keys at 5/s, paste) at the lengths ≤ 20, this checkout")
    g.add_argument("--baseline-rev", default=None,
                   help=f"commit whose app is measured in the same run as the baseline (default {bench_app.BASELINE_REV}; "
                        "none with --quick)")
    g = p.add_argument_group("cold-start")
    g.add_argument("--cold-runs", type=int, default=None, help="timed cold starts per code version (default 5)")
    args = p.parse_args(argv)
    quick = args.quick
    defaults = {
        "sizes": "8,20" if quick else ",".join(map(str, DEFAULT_SIZES)),
        "warmup": 1 if quick else 2, "repeats": 3 if quick else 20, "max_seconds": 5.0 if quick else 20.0,
        "predict_inputs": 256 if quick else 10_000, "predict_repeats": 1 if quick else 2,
        "train_batches": 1 if quick else 48, "train_warmup": 0 if quick else 4,
        "app_interactions": 3 if quick else 20, "app_warmup": 1 if quick else 3,
        "cold_runs": 1 if quick else 5,
    }
    for key, value in defaults.items():
        if getattr(args, key) is None:
            setattr(args, key, value)
    args.in_process = args.in_process or quick
    args.sizes = [int(s) for s in str(args.sizes).split(",") if s.strip()]
    args.app_lengths = [int(s) for s in str(args.app_lengths).split(",") if s.strip()]
    args.models = [m.strip() for m in args.models.split(",") if m.strip()]
    args.app_models = [m.strip() for m in args.app_models.split(",") if m.strip()]
    views = None if args.app_views is None else {v.strip() for v in args.app_views.split(",") if v.strip()}
    args.submit_views = [(v, m) for v, m in bench_app.SUBMIT_VIEWS
                         if m in args.app_models and (views is None or v in views)]
    if args.no_baseline:
        args.baseline_rev = None
    elif args.baseline_rev is None and not quick:
        args.baseline_rev = bench_app.BASELINE_REV
    return args


def devices(args) -> list[str]:
    import torch

    if args.device == "cuda":
        return ["cuda"]
    return ["cpu"] + (["cuda"] if args.device == "auto" and torch.cuda.is_available() else [])


def hardware(device: str, threads: int) -> str:
    import torch

    if device.startswith("cuda"):
        return torch.cuda.get_device_name()
    return f"CPU, {threads} thread{'s' if threads != 1 else ''}"


# ------------------------------------------------------------------- main
def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv[:1] == ["site"]:  # the static explorer's numbers have their own flags (benchmarks/site.py)
        from . import site as bench_site

        return bench_site.main(argv[1:])
    if argv[:1] == ["load"]:  # many sessions at once, its own flags (benchmarks/load.py)
        from . import load as bench_load

        return bench_load.main(argv[1:])
    if argv[:1] == ["components"]:  # the heatmap component against ECharts and Plotly (benchmarks/components.py)
        from . import components as bench_components

        return bench_components.main(argv[1:])
    if argv[:1] == ["search"]:  # issue 56's index and query figures, its own flags (benchmarks/search.py)
        from . import search as bench_search

        return bench_search.main(argv[1:])
    if argv[:1] == ["train-data"]:  # a user's file through `disan train --data`, its own flags (benchmarks/train_data.py)
        from . import train_data as bench_train_data

        return bench_train_data.main(argv[1:])
    if argv[:1] == ["render"]:  # a page and its docs blocks from stored results, no measuring (benchmarks/render.py)
        return render.main(argv[1:])
    args = parse_args(argv)
    import torch

    if args.threads:
        torch.set_num_threads(args.threads)
    threads = torch.get_num_threads()
    info = machine_info()
    started = time.time()
    run = {args.command} if args.command != "all" else {"trace", "predict", "train", "attribution", "app",
                                                        "cold-start"}
    if args.command == "all" and args.quick:
        run -= {"app", "attribution", "cold-start"}  # the browser part is slow to start, Captum slow to import; name them
    if args.device == "cuda":
        if not torch.cuda.is_available():
            print("--device cuda: torch sees no CUDA device here; use --device auto or cpu.", file=sys.stderr)
            return 2
        run &= {"trace", "predict", "train"}  # the rest runs on the CPU or in a browser only
        if not run:
            print(f"--device cuda measures trace, predict and train, not {args.command}.", file=sys.stderr)
            return 2
    print(f"machine: {info['cpu']}, {info['logical_cpus']} logical CPUs, torch {info['torch']} "
          f"({threads} threads), GPU: {info['gpu'] or 'none'}; load average {info['load_average_at_start']}")
    if busy(info):
        print("WARNING: the CPU was busy when the benchmark started; figures are slower than on an idle machine.")
    tables: list[Table] = []
    raw: dict = {"machine": info, "argv": list(argv or sys.argv[1:])}
    verdicts = Verdicts()

    if "trace" in run:
        results = []
        for dev in devices(args):
            print(f"[trace] {dev}: sizes {args.sizes}, {args.repeats} repeats (≤ {args.max_seconds:g} s per cell)")
            res = bench_trace.run(args.models, args.sizes, args.warmup, args.repeats, args.max_seconds, args.threads,
                                  dev, isolated=not args.in_process)
            for r in res:
                r.setdefault("device", dev)
            results += res
            tables.append(bench_trace.table(res, f"{dev} ({hardware(dev, threads)})", not args.in_process))
            print(tables[-1].to_text(), "\n")
        raw["trace"] = results
        if "cpu" in devices(args):  # the targets are the CPU's (issue 5)
            trace_verdicts(verdicts, results, args.models, not args.in_process)

    pool = None
    if "predict" in run or "train" in run:
        pool = bench_train.load_pairs(args.data_dir, limit=2_000 if args.quick else None)
        print(f"pairs: {pool.source}")

    if "predict" in run:
        texts = bench_predict.texts_from(pool, args.predict_inputs)
        rows = []
        for dev in devices(args):
            print(f"[predict] {dev}: {len(texts):,} sentences")
            res = bench_predict.run(args.models, texts, args.predict_repeats, dev, args.threads)
            rows += res
            tables.append(bench_predict.table(res, pool.source, bench_predict.mean_tokens(texts), hardware(dev, threads)))
            print(tables[-1].to_text(), "\n")
        raw["predict"] = rows
        predict_verdicts(verdicts, rows)

    if "train" in run:
        per_device = {}
        for dev in devices(args):
            print(f"[train] {dev}: {args.train_batches} timed batches (+{args.train_warmup} warm-up) per implementation")
            res = bench_train.run(args.models, pool, args.train_batches, args.train_warmup, dev, args.threads)
            res["hardware"] = hardware(dev, threads)
            per_device[dev] = res
            tables.append(bench_train.table(res, res["hardware"]))
            print(tables[-1].to_text(), "\n")
        raw["train"] = {dev: {**r, "rows": {f"{a}/{i}": v for (a, i), v in r["rows"].items()}}
                        for dev, r in per_device.items()}
        train_verdicts(verdicts, per_device)

    if "attribution" in run:
        print(f"[attribution] T={args.attribution_tokens}, {args.repeats} repeats (≤ {args.max_seconds:g} s per model)")
        rows = bench_attribution.run(args.models, args.attribution_tokens, args.warmup, args.repeats,
                                     args.max_seconds, args.threads)
        tables.append(bench_attribution.table(rows))
        print(tables[-1].to_text(), "\n")
        raw["attribution"] = rows
        bench_attribution.verdicts(verdicts, rows)
        if args.cost_tokens != "none":
            lengths = [int(x) for x in args.cost_tokens.split(",")]
            print(f"[attribution] LRP and the randomisation test beside IG, T = {lengths}")
            costs = bench_attribution.run_costs(args.models, lengths, args.warmup, args.repeats, args.max_seconds,
                                                args.threads)
            tables.append(bench_attribution.costs_table(costs))
            print(tables[-1].to_text(), "\n")
            raw["attribution_costs"] = costs

    if "app" in run:
        why = server.unavailable()
        rows = None
        if why is None:
            print(f"[app] lengths {args.app_lengths}, {args.app_interactions} interactions (+{args.app_warmup} warm-up)")
            rows = bench_app.run(args.app_lengths, args.app_interactions, args.app_warmup, args.submit_views,
                                 baseline=not args.no_baseline, baseline_rev=args.baseline_rev,
                                 threads=args.threads, only_typing=args.app_typing_only)
            tables.append(bench_app.table(rows, args.app_warmup))
            print(tables[-1].to_text(), "\n")
        else:
            print(f"[app] skipped: {why}")
            tables.append(Table("App latency in headless Chromium", ["status"], [[f"not measured: {why}"]]))
        raw["app"] = rows
        app_verdicts(verdicts, rows, why or "")
    elif args.command == "all" and args.device != "cuda":
        app_verdicts(verdicts, None, "app not run (--quick skips it; run `bench app`)")

    if "cold-start" in run:
        why = server.unavailable()
        rows = None
        if why is None:
            print(f"[cold-start] {args.cold_runs} runs per code version"
                  + (f", baseline {args.baseline_rev}" if args.baseline_rev else ""))
            rows = bench_cold_start.run(args.cold_runs, args.baseline_rev)
            tables.append(bench_cold_start.table(rows))
            print(tables[-1].to_text(), "\n")
        else:
            print(f"[cold-start] skipped: {why}")
            tables.append(Table("Cold start in headless Chromium", ["status"], [[f"not measured: {why}"]]))
        raw["cold_start"] = rows
        bench_cold_start.verdicts(verdicts, rows, why or "")

    tables.append(verdicts.table())
    print(tables[-1].to_text())
    info["load_average_at_end"] = [round(x, 2) for x in os.getloadavg()] if hasattr(os, "getloadavg") else None
    compared = args.baseline_rev if run & {"app", "cold-start"} else None
    result = {**raw, **render.run_fields(started, compared), "tables": [t.to_dict() for t in tables]}
    # The page and the docs blocks are written from the JSON as stored, as `bench render` writes them later.
    render.publish(result, render.Outputs(args.json, args.markdown, args.docs))
    return 0

if __name__ == "__main__":
    sys.exit(main())
