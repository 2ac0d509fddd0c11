"""The Markdown report of ``python -m viz_app bench --markdown docs/benchmarks.md``."""

from __future__ import annotations

import os
import shlex
import sys
import time
from pathlib import Path

from disan.output import rewrite_marked

from .common import Table, busy


def command_line(argv: list[str] | None) -> str:
    rest = list(sys.argv[1:] if argv is None else argv)
    return "python -m viz_app bench " + " ".join(shlex.quote(a) for a in rest)


def _flags(argv: list[str]):
    """The run's ``--quick`` and ``--note`` from its stored command line."""
    from .cli import parse_args

    try:
        return parse_args(list(argv))
    except SystemExit:
        raise ValueError(f"the stored command line ({' '.join(argv)}) no longer parses; re-run the benchmark") from None


def page(result: dict, out) -> str:
    """``docs/benchmarks.md`` from the stored results (``render.stored``): command, machine, tables, verdicts."""
    from .render import header, run_time

    info, argv = result["machine"], result["argv"]
    args = _flags(argv)
    lines = [
        "# Benchmarks",
        "",
        "Written by the benchmark command itself — do not edit the figures by hand; re-run it instead:",
        "",
        "```",
        command_line(argv),
        "```",
        "",
        *header(result, out),
        "## Machine",
        "",
        "| | |",
        "|---|---|",
        f"| CPU | {info['cpu']} |",
        f"| logical CPUs | {info['logical_cpus']} |",
        f"| torch threads | {info['torch_threads']} |",
        f"| torch | {info['torch']} |",
        f"| Python | {info['python']} |",
        f"| platform | {info['platform']} |",
        f"| GPU | {info['gpu'] or 'none (GPU rows not measured)'} |",
        f"| load average at start / end (1, 5, 15 min) | {info['load_average_at_start']} / {info.get('load_average_at_end')} |",
        f"| low-priority jobs using the CPU at start (nice ≥ 10) | "
        f"{', '.join(info.get('background_jobs_at_start') or []) or 'none'} |",
        f"| run time | {run_time(result)} |",
        "",
    ]
    if busy(info):
        lines += [
            f"> **Measured under load:** the 1-minute load average was {info['load_average_at_start'][0]} on "
            f"{info['logical_cpus']} logical CPUs when the run started, so other processes competed for the CPU; "
            "absolute figures are pessimistic and noisy. Re-run on an idle machine for reference figures."
            + (f" {len(info['background_jobs_at_start'])} of them ran at nice ≥ 10 (e.g. model training at nice 19): "
               "the kernel favours the benchmark over them, but they still share the cores and the caches."
               if info.get("background_jobs_at_start") else ""),
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
        "batches; DiSAN with the fused token2token and with the naive reference (`train` times both on its device "
        "and keeps the faster), interleaved on the same batches, so the speed-up is a ratio measured under the same "
        "load.",
        "- **App latency** (`bench app`): headless Chromium against a local Streamlit server, clocked inside the "
        "page from the input event to the frame that shows the last affected chart: one α step on the Distance "
        "attention view (every map), one feature step on DiSAN's \"one feature k\" (maps and row bars), and "
        "Ctrl+Enter with a new sentence until every heatmap on Explore shows it. The α and feature rows run twice: "
        "the *browser* path (the slider recomputes the maps in the page) and the *server* path it replaced "
        "(`VIZ_BROWSER_RECOMPUTE=0`: a Streamlit rerun per step), as the baseline.",
        "- **Many sessions at once** (`bench load`, not in `all`): 50 sessions submitting together against one "
        "process, N processes behind nginx and an earlier commit, with their own verdicts in "
        "[load-benchmark.md](load-benchmark.md).",
        "- **Cold start** (`bench cold-start`): Chromium already open, then `streamlit run viz_app/app.py` started; "
        "`/` opened as soon as `/_stcore/health` answers; clocked from the server's start to the frame that shows "
        "the first heatmap. `--baseline-rev` measures an earlier commit the same way in the same run (a temporary "
        "copy of its files, same Python). What the app does for it: plotly.js (a partial bundle of npm's plotly.js where npm is installed: "
        "viz_app/draw/plotly_bundle.py) is "
        "preloaded by the first script run before torch is imported; the GloVe matrix is memory-mapped; the "
        "shape check of a checkpoint no longer imports torch's compiler stack.",
        "",
        "What the app does to be quick: α and feature k are recomputed in the page. Im Eq. 7's α enters only "
        "after QKᵀ/√d_k, so each live figure is its own figure function called again at the control's value, "
        "from the pre-mask scores (DiSAN's feature k: Shen Eq. 15's parts) its trace view carries, on every input "
        "event of an ordinary `input[type=range]`, at most once per animation frame, and the canvas heatmap "
        "repaints its cells (`viz_app/browser/recompute.js`, `viz_app/browser/chart.js`; the control sends only "
        "its sentence's key, `viz_app/draw/live.py`). The server learns the final "
        "value 700 ms after the last move (beyond a key-press gap), for the link and the other views, and the figures of that rerun are not drawn again where the page shows them already (the chart names the same trace view, figure and parameters). Charts are one `st.components.v2` "
        "element per key, drawn by the page's canvas components (a corpus figure: `Plotly.react` in place, from "
        "Plotly's canonical dicts without per-property validation); tables are serialised only when shown.",
        "",
        "The fast path (`disan/fused_attention.py`) is a custom autograd function for DiSAN's token2token attention: "
        "cache-sized blocks over (batch rows × queries) with only the allowed key span, one sigmoid instead of "
        "tanh, a fixed shift c instead of a running maximum (the logits lie in [−c, c]), closed-form gradients, and "
        "no (B, T, T, D) tensor kept for the backward pass. `naive` is the reference `attention.multi_dim_token2token` in one piece (no chunking) "
        "with plain autograd. Training (`train.py`, through `DiSABlock`), `predict` and the attributions' gradients "
        "(`disan/attribution`, inside `fused_gradients()`) use the fused kernel; traces "
        "(`record=True`) stay on the reference path, so recorded probabilities are unchanged; without autograd that "
        "path transforms its one (B, T, T, D) buffer in place (`tests/test_attention.py` checks it against the "
        "autograd path and the naive loop). "
        "`tests/test_fast_path.py` checks values and gradients against the reference.",
        "",
    ]
    for t in result["tables"]:
        lines += [Table(**t).to_markdown(), ""]
    return "\n".join(lines)


README_START, README_END = "<!-- app-latency:start -->", "<!-- app-latency:end -->"


def readme_block(verdicts: Table, info: dict, argv, markdown: str | None = None, date: str | None = None,
                 baseline_rev: str | None = None) -> str:
    """The app rows of the targets table, with the command and the machine's load, for the docs page; ``markdown``:
    the file holding the full tables (``--markdown``), as a link relative to that page; ``date``: the run's (default
    today); ``baseline_rev``: the commit of the rows labelled *baseline*, named once under the first line."""
    load = info.get("load_average_at_start")
    jobs = info.get("background_jobs_at_start") or []
    lines = [
        f"Measured by `{command_line(argv)}` on {info['logical_cpus']} logical CPUs ({info['cpu']}); "
        f"load average at start {load[0] if load else '–'}"
        + (f", with {len(jobs)} low-priority (nice ≥ 10) jobs, such as model training at nice 19, sharing the "
           "cores" if jobs else "")
        + f", {date or time.strftime('%Y-%m-%d')}." + (f" Full tables: [{markdown}]({markdown})." if markdown else ""),
        "",
    ]
    if baseline_rev:
        from .render import baseline_line

        lines += [baseline_line(baseline_rev), ""]
    lines += ["| target | measured | verdict |", "|---|---|---|"]
    lines += [f"| {t} | {m} | {v} |" for t, m, v in verdicts.rows if t.startswith(("app ", "goal: app ", "baseline: app "))]
    return "\n".join(lines)


def texts(result: dict, out) -> tuple[str, list[tuple[str, str, str, str]]]:
    """The page of ``bench all`` (and its single commands) and its docs blocks — app targets, cold start,
    attributions, each where the run measured it — from the stored results (``render.stored``)."""
    from . import attribution, cold_start
    from .render import names_baseline, run_date

    info, argv, date = result["machine"], result["argv"], run_date(result)
    rev = result.get("baseline_rev")
    blocks = []
    if "app" in result:
        full = link_from(out.docs, out.markdown) if out.docs and out.markdown else None
        compared = names_baseline(r["path"] for r in result["app"] or [])
        blocks.append((README_START, README_END, readme_block(Table(**result["tables"][-1]), info, argv, full, date,
                                                              rev if compared else None), "the app targets"))
    if result.get("cold_start"):
        compared = names_baseline(r["code"] for r in result["cold_start"])
        blocks.append((cold_start.README_START, cold_start.README_END,
                       cold_start.readme_block(result["cold_start"], info, command_line(argv), date,
                                               rev if compared else None), "the cold-start times"))
    if "attribution" in result:
        blocks.append((attribution.README_START, attribution.README_END,
                       attribution.readme_block(result["attribution"], info, command_line(argv), date),
                       "the attribution timings"))
    return page(result, out), blocks


def link_from(page: str | Path, target: str | Path) -> str:
    """``target`` as a Markdown link written into ``page`` (both relative to the working directory): a block moved
    into docs/ links docs/benchmarks.md as ``benchmarks.md``."""
    return Path(os.path.relpath(Path(target), Path(page).parent)).as_posix()


def write_readme(path: Path, block: str) -> None:
    """Replace the text between the app-latency markers of ``path`` (a docs page) by ``block``."""
    rewrite_marked(path, README_START, README_END, block)

