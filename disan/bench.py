"""``python -m disan bench [all|trace|predict|train|app] [options]``: measure, print tables, check targets.

Commands (``all`` runs every one; ``--quick`` is a smoke run of seconds):

* ``trace``   — latency (median, p95) and peak memory of ``model.trace`` and
  ``model.predict`` for one sentence of T = 8 … 1,024 tokens (``bench_trace``);
* ``predict`` — ``model.predict`` on 10,000 sentences (``bench_predict``);
* ``train``   — SNLI-epoch equivalent, fused vs naive, against the papers'
  587 s / 693 s (``bench_train``);
* ``app``     — submit → heatmap and α slider → re-render in headless Chromium
  (``bench_app``; skipped with a reason when chromium/playwright are missing).

Every row runs on the CPU; with ``--device auto`` (default) the trace, predict
and train rows are repeated on CUDA when a GPU is present. ``--markdown
docs/benchmarks.md`` writes the command, the machine, every table and the
target verdicts; ``--json`` writes the raw timings.

Note: ``python -m disan bench`` needs the command word first
(``python -m disan bench all --quick``); ``python -m disan.bench --quick``
also works.
"""

from __future__ import annotations

import argparse
import json
import os
import shlex
import sys
import time
from pathlib import Path

from . import bench_app, bench_predict, bench_trace, bench_train
from .bench_common import Stats, Table, busy, machine_info

COMMANDS = ("all", "trace", "predict", "train", "app")
DEFAULT_SIZES = (8, 16, 20, 32, 64, 128, 256, 512, 1024)


def parse_args(argv: list[str]) -> argparse.Namespace:
    p = argparse.ArgumentParser(prog="python -m disan bench", description=__doc__.splitlines()[0])
    p.add_argument("command", nargs="?", default="all", choices=COMMANDS)
    p.add_argument("--quick", action="store_true", help="smoke run: tiny sizes and repeats (seconds); app only if named")
    p.add_argument("--markdown", metavar="PATH", help="write the report as Markdown, e.g. docs/benchmarks.md")
    p.add_argument("--json", metavar="PATH", help="write the raw timings as JSON")
    p.add_argument("--note", default=None, help="a line for the report, e.g. 'CPU busy with two training jobs'")
    p.add_argument("--threads", type=int, default=None, help="torch threads (default: torch's choice, all cores)")
    p.add_argument("--device", choices=("auto", "cpu"), default="auto", help="auto: CPU, plus CUDA when present")
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
    g = p.add_argument_group("app")
    g.add_argument("--app-lengths", default="10,64", help="sentence lengths (default 10,64)")
    g.add_argument("--app-interactions", type=int, default=None, help="timed interactions per row (default 20)")
    g.add_argument("--app-warmup", type=int, default=None, help="untimed interactions per row (default 3)")
    g.add_argument("--app-models", default="disan,dsa", help="models for submit → heatmap (slider: dsa)")
    args = p.parse_args(argv)
    quick = args.quick
    defaults = {
        "sizes": "8,20" if quick else ",".join(map(str, DEFAULT_SIZES)),
        "warmup": 1 if quick else 2, "repeats": 3 if quick else 20, "max_seconds": 5.0 if quick else 20.0,
        "predict_inputs": 256 if quick else 10_000, "predict_repeats": 1 if quick else 2,
        "train_batches": 1 if quick else 48, "train_warmup": 0 if quick else 4,
        "app_interactions": 3 if quick else 20, "app_warmup": 1 if quick else 3,
    }
    for key, value in defaults.items():
        if getattr(args, key) is None:
            setattr(args, key, value)
    args.in_process = args.in_process or quick
    args.sizes = [int(s) for s in str(args.sizes).split(",") if s.strip()]
    args.app_lengths = [int(s) for s in str(args.app_lengths).split(",") if s.strip()]
    args.models = [m.strip() for m in args.models.split(",") if m.strip()]
    args.app_models = [m.strip() for m in args.app_models.split(",") if m.strip()]
    return args


def devices(args) -> list[str]:
    import torch

    return ["cpu"] + (["cuda"] if args.device == "auto" and torch.cuda.is_available() else [])


def hardware(device: str, threads: int) -> str:
    import torch

    if device.startswith("cuda"):
        return torch.cuda.get_device_name()
    return f"CPU, {threads} thread{'s' if threads != 1 else ''}"


# ----------------------------------------------------------------- targets
class Verdicts:
    """Target → met / missed by how much / not measured."""

    def __init__(self):
        self.rows: list[tuple[str, str, str]] = []

    def check(self, target: str, measured: float | None, limit: float, unit: str, what: str, why_missing: str = "") -> None:
        if measured is None or measured != measured:
            self.rows.append((target, "–", f"not measured: {why_missing or 'not run'}"))
            return
        shown = _fmt(measured, unit)
        if measured <= limit:
            self.rows.append((target, f"{what} {shown}", "met"))
        else:
            self.rows.append((target, f"{what} {shown}",
                              f"missed by {_fmt(measured - limit, unit)} ({measured / limit:.{1 if measured >= 1.1 * limit else 2}f}× the limit)"))

    def note(self, target: str, measured: str, verdict: str) -> None:
        self.rows.append((target, measured, verdict))

    def table(self) -> Table:
        t = Table("Targets (issue #5)", ["target", "measured", "verdict"])
        for row in self.rows:
            t.add(*row)
        return t


def _fmt(value: float, unit: str) -> str:
    if unit == "ms":
        return f"{value * 1e3:,.1f} ms" if value < 1 else f"{value * 1e3:,.0f} ms"
    if unit == "s":
        return f"{value:,.1f} s"
    if unit == "MiB":
        return f"{value:,.0f} MiB"
    if unit == "×":
        return f"{value:.2f}×"
    return f"{value:g} {unit}"


def trace_verdicts(v: Verdicts, results: list[dict], archs, isolated: bool) -> None:
    cells = {(r["arch"], r["tokens"], r["mode"], r.get("device", "cpu")): r for r in results}

    def get(arch, T, mode="trace"):
        r = cells.get((arch, T, mode, "cpu"))
        return None if r is None or "error" in r else r

    def why(arch, T):
        r = cells.get((arch, T, "trace", "cpu"))
        return f"T={T} not in --sizes" if r is None else f"failed: {r.get('error')}"

    for arch in archs:
        r = get(arch, 20)
        v.check(f"trace T=20, CPU, {arch}: median ≤ 20 ms", Stats.of(r["times"]).median if r else None, 0.020, "ms",
                "median", why(arch, 20))
        r = get(arch, 256)
        v.check(f"trace T=256, CPU, {arch}: ≤ 1 s", Stats.of(r["times"]).median if r else None, 1.0, "ms", "median",
                why(arch, 256))
        mem = r.get("peak_delta_mib") if r else None
        v.check(f"trace T=256, CPU, {arch}: peak memory ≤ 2 GB", mem, 2048, "MiB", "peak",
                "needs fresh processes (drop --quick/--in-process)" if r else why(arch, 256))
        r1024 = cells.get((arch, 1024, "trace", "cpu"))
        if r1024 is None:
            v.note(f"trace T=1,024, CPU, {arch}: completes, peak ≤ 4 GB", "–", "not measured: T=1024 not in --sizes")
        elif "error" in r1024:
            v.note(f"trace T=1,024, CPU, {arch}: completes, peak ≤ 4 GB", r1024["error"], "missed: did not complete")
        else:
            v.check(f"trace T=1,024, CPU, {arch}: completes, peak ≤ 4 GB", r1024.get("peak_delta_mib"), 4096, "MiB",
                    f"completed in {_fmt(Stats.of(r1024['times']).median, 's')}; peak",
                    "needs fresh processes (drop --quick/--in-process)")


def app_verdicts(v: Verdicts, rows: list[dict] | None, why: str) -> None:
    submit = [r for r in rows or [] if r["kind"].startswith("submit") and r["tokens"] <= 64]
    slider = [r for r in rows or [] if r["kind"].startswith("α")]
    for r in submit or [None]:
        name = f"app submit → heatmap, {r['model']} T={r['tokens']}: p95 ≤ 300 ms" if r else "app submit → heatmap, T ≤ 64: p95 ≤ 300 ms"
        v.check(name, Stats.of(r["times"]).p95 if r and "times" in r else None, 0.300, "ms", "p95",
                (r or {}).get("error") or why)
    for r in slider or [None]:
        name = f"app α slider → re-render, {r['model']} T={r['tokens']}: p95 ≤ 150 ms" if r else "app α slider → re-render: p95 ≤ 150 ms"
        v.check(name, Stats.of(r["times"]).p95 if r and "times" in r else None, 0.150, "ms", "p95",
                (r or {}).get("error") or why)


def train_verdicts(v: Verdicts, results: dict[str, dict]) -> None:
    cpu = results.get("cpu")
    gpu = results.get("cuda")
    if gpu and ("disan", "auto") in gpu["rows"]:
        ep = bench_train.epoch_seconds(gpu["rows"][("disan", "auto")], gpu["n_batches"])
        name = gpu.get("hardware", "GPU")
        if "H100" in name:
            v.check("SNLI-epoch equivalent, H100, DiSAN: ≤ 30 s", ep, 30.0, "s", "epoch")
        else:
            v.note("SNLI-epoch equivalent, H100, DiSAN: ≤ 30 s", f"{ep:,.1f} s on {name}", "not measured on an H100")
    else:
        v.note("SNLI-epoch equivalent, H100, DiSAN: ≤ 30 s", "–", "not measured: no GPU on this machine")
    if cpu and ("disan", "auto") in cpu["rows"]:
        n = cpu["n_batches"]
        fast = bench_train.epoch_seconds(cpu["rows"][("disan", "auto")], n)
        v.note(f"SNLI-epoch equivalent, {cpu['hardware']}, DiSAN: report it", f"{fast:,.0f} s "
               f"({fast / bench_train.PAPER_EPOCH_S['disan']:.1f}× the paper's 587 s on a GTX 1080 Ti)", "reported")
        if ("disan", "naive") in cpu["rows"]:
            ratio = bench_train.epoch_seconds(cpu["rows"][("disan", "naive")], n) / fast
            verdict = "met" if ratio >= 2 else f"missed by {2 - ratio:.2f}× (speed-up {ratio:.2f}× < 2×)"
            v.note("SNLI-epoch equivalent, CPU, DiSAN: ≥ 2× faster than naive", f"speed-up {ratio:.2f}×", verdict)
    else:
        v.note("SNLI-epoch equivalent, CPU, DiSAN: ≥ 2× faster than naive", "–", "not measured: train not run")


def predict_verdicts(v: Verdicts, rows: list[dict] | None) -> None:
    for r in rows or []:
        if r["impl"] == "auto" and r["device"] == "cpu":
            v.check(f"predict {r['n']:,} sentences, CPU, {r['arch']}: seconds, not minutes (< 60 s)",
                    min(r["times"]), 60.0, "s", "best")


# ------------------------------------------------------------------- main
def main(argv: list[str] | None = None) -> int:
    args = parse_args(list(sys.argv[1:] if argv is None else argv))
    import torch

    if args.threads:
        torch.set_num_threads(args.threads)
    threads = torch.get_num_threads()
    info = machine_info()
    started = time.time()
    run = {args.command} if args.command != "all" else {"trace", "predict", "train", "app"}
    if args.command == "all" and args.quick:
        run.discard("app")  # the browser part is slow to start; name it to include it
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

    if "app" in run:
        why = bench_app.unavailable()
        rows = None
        if why is None:
            print(f"[app] lengths {args.app_lengths}, {args.app_interactions} interactions (+{args.app_warmup} warm-up)")
            rows = bench_app.run(args.app_lengths, args.app_interactions, args.app_warmup, args.app_models,
                                 threads=args.threads)
            tables.append(bench_app.table(rows, args.app_warmup))
            print(tables[-1].to_text(), "\n")
        else:
            print(f"[app] skipped: {why}")
            tables.append(Table("App latency in headless Chromium", ["status"], [[f"not measured: {why}"]]))
        raw["app"] = rows
        app_verdicts(verdicts, rows, why or "")
    elif args.command == "all":
        app_verdicts(verdicts, None, "app not run (--quick skips it; run `bench app`)")

    tables.append(verdicts.table())
    print(tables[-1].to_text())
    elapsed = time.time() - started
    info["load_average_at_end"] = [round(x, 2) for x in os.getloadavg()] if hasattr(os, "getloadavg") else None
    if args.json:
        Path(args.json).parent.mkdir(parents=True, exist_ok=True)
        Path(args.json).write_text(json.dumps({**raw, "tables": [t.to_dict() for t in tables]}, indent=1, default=str) + "\n")
    if args.markdown:
        write_markdown(Path(args.markdown), args, info, threads, tables, elapsed, argv)
        print(f"\nwrote {args.markdown}")
    return 0


def command_line(argv: list[str] | None) -> str:
    rest = list(sys.argv[1:] if argv is None else argv)
    return "python -m disan bench " + " ".join(shlex.quote(a) for a in rest)


def write_markdown(path: Path, args, info: dict, threads: int, tables: list[Table], elapsed: float, argv) -> None:
    lines = [
        "# Benchmarks",
        "",
        "Written by the benchmark command itself — do not edit the figures by hand; re-run it instead:",
        "",
        "```",
        command_line(argv),
        "```",
        "",
        "## Machine",
        "",
        "| | |",
        "|---|---|",
        f"| CPU | {info['cpu']} |",
        f"| logical CPUs | {info['logical_cpus']} |",
        f"| torch threads | {threads} |",
        f"| torch | {info['torch']} |",
        f"| Python | {info['python']} |",
        f"| platform | {info['platform']} |",
        f"| GPU | {info['gpu'] or 'none (GPU rows not measured)'} |",
        f"| load average at start / end (1, 5, 15 min) | {info['load_average_at_start']} / {info.get('load_average_at_end')} |",
        f"| run time | {elapsed / 60:.1f} min, finished {time.strftime('%Y-%m-%d %H:%M %Z')} |",
        "",
    ]
    if busy(info):
        lines += [
            f"> **Measured under load:** the 1-minute load average was {info['load_average_at_start'][0]} on "
            f"{info['logical_cpus']} logical CPUs when the run started, so other processes competed for the CPU; "
            "absolute figures are pessimistic and noisy. Re-run on an idle machine for reference figures.",
            "",
        ]
    if args.quick:
        lines += ["> **Smoke run (`--quick`):** tiny sizes and repeats; not reference figures.", ""]
    if args.note:
        lines += [f"> {args.note}", ""]
    lines += [
        "## What is measured",
        "",
        "- **Trace latency** (`bench trace`): one sentence of T tokens through `model.trace` (every intermediate, "
        "reference attention) and through `model.predict` (label probabilities only); median and p95 of repeated runs "
        "after warm-up; peak memory = peak resident set of a fresh process per cell minus the resident set after the "
        "model load (`ru_maxrss`; `tracemalloc` cannot see torch's allocations).",
        "- **Batch prediction** (`bench predict`): `model.predict` on 10,000 short real sentences.",
        "- **Training throughput** (`bench train`): forward + backward + optimizer step on batches of a simulated SNLI "
        "epoch (549,367 pairs, batch 64, length-bucketed as in `train.py`), extrapolated from a random sample of "
        "batches; DiSAN with the fused token2token that training uses and with the naive reference, interleaved on "
        "the same batches, so the speed-up is a ratio measured under the same load.",
        "- **App latency** (`bench app`): headless Chromium against a local Streamlit server: Ctrl+Enter in the "
        "sentence box → heatmap drawn; one α-slider step → heatmap redrawn.",
        "",
        "What the app does to be quick: charts are one `st.components.v2` element per key that hands each new "
        "figure to `Plotly.react` (`viz_app/chart.py`; `st.plotly_chart` derives a chart's identity from its "
        "figure and so re-mounted every chart on every rerun); figure builders emit Plotly's canonical dicts "
        "without per-property validation (`tests/test_figures.py` checks validation would change nothing); the "
        "Distance view's α slider reruns only its maps (`st.fragment`, no encoder pass); the table behind each "
        "figure is serialised only when its toggle is on. What is left is mostly the browser: every data change "
        "makes plotly.js redraw the whole chart (axes and tick labels included), on the same two cores as the "
        "Streamlit server and the benchmark.",
        "",
        "The fast path (`disan/fused_attention.py`) is a custom autograd function for DiSAN's token2token attention: "
        "cache-sized blocks over (batch rows × queries) with only the allowed key span, one sigmoid instead of "
        "tanh, a fixed shift c instead of a running maximum (the logits lie in [−c, c]), closed-form gradients, and "
        "no (B, T, T, D) tensor kept for the backward pass. `naive` is the reference `attention.multi_dim_token2token` in one piece (no chunking) "
        "with plain autograd. Training (`train.py`, through `DiSABlock`) and `predict` use the fused kernel; traces "
        "(`record=True`) stay on the reference path, so recorded probabilities are unchanged; without autograd that "
        "path transforms its one (B, T, T, D) buffer in place (`tests/test_attention.py` checks it against the "
        "autograd path and the naive loop). "
        "`tests/test_fast_path.py` checks values and gradients against the reference.",
        "",
    ]
    for t in tables:
        lines += [t.to_markdown(), ""]
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("\n".join(lines))


if __name__ == "__main__":
    sys.exit(main())
