"""Command line: ``python -m disan trace | report | train | evaluate | bench``.

Every expected failure (bad text, unknown model, missing data file, corrupt
checkpoint) prints one sentence to stderr and exits with status 2.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import sys
from pathlib import Path

from .errors import DisanError


def add_trace(sub) -> None:
    p = sub.add_parser("trace", help="encode a sentence and print its attention trace")
    p.add_argument("text")
    p.add_argument("--model", default="disan", help="pretrained name, checkpoint path, or disan/dsa (random weights)")
    p.add_argument("--hypothesis", default=None)
    p.add_argument("--alpha", type=float, default=None, help="DSA distance weight override")
    p.add_argument("--masks", default=None, help="default | swap | diag | none | 'fw,bw'")
    p.add_argument("--device", default=None)
    p.add_argument("--json", action="store_true", help="print one JSON object")


def run_trace(args) -> int:
    from .api import load

    model = load(args.model, args.device)
    trace = model.trace(args.text, args.hypothesis, alpha=args.alpha, masks=args.masks)
    summary = trace.to_json()
    if args.json:
        print(json.dumps(summary, ensure_ascii=False))
        return 0
    if trace.random_weights:
        print("NOTE: random weights (no trained checkpoint) — the attention is not meaningful.")
    print(f"model: {trace.model}   masks: {','.join(trace.masks)}   alpha: {trace.alpha}")
    print("tokens:", " ".join(f"{t}{'?' if u else ''}" for t, u in zip(trace.tokens, trace.premise.unknown)))
    for label, p in sorted(trace.prediction.items(), key=lambda kv: -kv[1]):
        print(f"  {p:6.3f}  {label}")
    return 0


def add_report(sub) -> None:
    p = sub.add_parser("report", help="write one self-contained HTML report of a sentence (opens offline)")
    p.add_argument("text")
    p.add_argument("--model", required=True, help="pretrained name, checkpoint path, or disan/dsa (random weights)")
    p.add_argument("--out", required=True, help="the HTML file to write (replaced all-or-nothing)")
    p.add_argument("--hypothesis", default=None)
    p.add_argument("--alpha", type=float, default=None, help="DSA distance weight the report starts at")
    p.add_argument("--masks", default=None, help="default | swap | diag | none | 'fw,bw'")
    p.add_argument("--device", default=None)


def run_report(args) -> int:
    from .api import load
    from .output import check_writable

    out = check_writable(args.out)  # before loading anything: a bad path costs nothing
    report = report_module()
    report.check_text(args.text, args.hypothesis)
    trace = load(args.model, args.device).trace(args.text, args.hypothesis, alpha=args.alpha, masks=args.masks)
    path = report.write_report(trace, out)
    print(f"wrote {path} ({path.stat().st_size / 2**20:.1f} MB)")
    return 0


def report_module():
    """``viz_app.report``, imported only here: the model core itself never loads plotly."""
    try:
        from viz_app import report
    except ImportError as err:
        raise DisanError(
            f"The report needs the app's figure code and plotly ({err}); run from the repository root "
            "after `pip install -r requirements.txt`."
        ) from None
    return report


def add_train(sub) -> None:
    from .config import RECIPE_CHOICES
    from .train import TrainConfig

    p = sub.add_parser("train", help="train a model (paper defaults per --model)")
    p.add_argument("--model", choices=["disan", "dsa"], required=True)
    p.add_argument("--task", choices=["sst5", "sst2", "nli", "snli", "trec", "subj", "mpqa", "cr"], required=True)
    p.add_argument("--ablation", choices=["nodir", "nodist"], default=None)
    p.add_argument("--out", default=None, help="checkpoint path (default runs/<model>-<task>[-<ablation>])")
    for f in dataclasses.fields(TrainConfig):
        if f.name in ("model", "task", "ablation", "out"):
            continue
        flag = "--" + f.name.replace("_", "-")
        if f.type == "bool":
            p.add_argument(flag, action=argparse.BooleanOptionalAction, default=None)
        else:
            kind = {"int": int, "float": float}.get(f.type.split(" |")[0], str)
            p.add_argument(flag, type=kind, default=None, choices=RECIPE_CHOICES.get(f.name))


def run_train(args) -> int:
    from .train import TrainConfig, paper_defaults, train

    if args.model == "disan" and args.ablation == "nodist" or args.model == "dsa" and args.ablation == "nodir":
        raise SystemExit(f"--ablation {args.ablation} does not apply to --model {args.model}.")
    given = {k: v for k, v in vars(args).items() if v is not None and k not in ("command", "func")}
    name = "-".join(x for x in (args.model, args.task, args.ablation) if x)
    cfg = TrainConfig(**{**paper_defaults(args.model, args.task), "out": f"runs/{name}", **given})
    summary = train(cfg)
    print(f"best dev accuracy {summary['best_dev_acc']:.4f}; checkpoint {Path(cfg.out).with_suffix('.safetensors')}")
    return 0


def add_evaluate(sub) -> None:
    p = sub.add_parser("evaluate", help="score a model: accuracy, per class, confusion, by length")
    p.add_argument("--model", required=True)
    p.add_argument("--task", required=True)
    p.add_argument("--split", default="test")
    p.add_argument("--data-dir", default=None)
    p.add_argument("--device", default=None)
    p.add_argument("--card", action="store_true", help="write the figures into the model card (pretrained/<name>.json and <name>.card.md)")


def run_evaluate(args) -> int:
    from .api import load
    from .cards import update_card
    from .data import load_task
    from .evaluate import evaluate

    model = load(args.model, args.device)
    report = evaluate(model, load_task(args.task, args.split, args.data_dir))
    report = {"model": model.name, "task": args.task, "split": args.split, **report}
    print(json.dumps(report, indent=2))
    if args.card:
        update_card(model.name, args.split, report)
    return 0


def add_bench(sub) -> None:
    sub.add_parser("bench", help="print latency / throughput tables (python -m disan bench --help)")


COMMANDS = {"trace": (add_trace, run_trace), "report": (add_report, run_report), "train": (add_train, run_train),
            "evaluate": (add_evaluate, run_evaluate), "bench": (add_bench, None)}


def main(argv: list[str] | None = None) -> int:
    for stream in (sys.stdout, sys.stderr):  # a non-UTF-8 console must not crash on an emoji token
        if hasattr(stream, "reconfigure"):
            stream.reconfigure(errors="backslashreplace")
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv[:1] == ["bench"]:  # the bench command owns its own flags
        from .bench import main as bench_main

        return bench_main(argv[1:])
    parser = argparse.ArgumentParser(prog="python -m disan", description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    for add, _ in COMMANDS.values():
        add(sub)
    args = parser.parse_args(argv)
    try:
        return COMMANDS[args.command][1](args)
    except DisanError as err:
        print(f"error: {err}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
