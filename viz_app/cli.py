"""Command line: ``disan`` (installed) or ``python -m viz_app``: the model core's commands plus those that draw
or measure, ``report | site | app | prepare | bench``.

The core's commands (``trace``, ``train``, ``evaluate``, ``claims``, ``faithfulness``, ``tables``) come with
their parsers from ``disan/__main__.py``; this layer adds the ones that need the app's drawing code, Streamlit
or the benchmarks (``benchmarks/``, a checkout only). Every expected failure prints one sentence to stderr and
exits with status 2.
"""

from __future__ import annotations

import sys
from pathlib import Path

from disan.__main__ import COMMANDS as CORE_COMMANDS
from disan.__main__ import run_command
from disan.errors import DisanError


def add_report(sub) -> None:
    p = sub.add_parser("report", help="write one self-contained HTML report of a sentence (opens offline)")
    p.add_argument("text")
    p.add_argument("--model", required=True, help="pretrained name, checkpoint path, or disan/dsa (random weights)")
    p.add_argument("--out", required=True, help="the HTML file to write (replaced all-or-nothing)")
    p.add_argument("--hypothesis", default=None,
                   help="the second sentence of a two-sentence model: an NLI hypothesis, a relatedness model's sentence B")
    p.add_argument("--alpha", type=float, default=None, help="DSA distance weight the report starts at")
    p.add_argument("--masks", default=None, help="default | swap | diag | none | 'fw,bw'")
    p.add_argument("--device", default=None)
    p.add_argument("--pair", default=None, metavar="TEXT_B",
                   help="a minimal pair: B's text beside TEXT (A's), aligned, B − A, leave-one-out of both")
    p.add_argument("--pair-hypothesis", default=None, metavar="HYPOTHESIS_B",
                   help="B's second sentence for a two-sentence model (an NLI model's hypothesis; default: A's, "
                        "from --hypothesis); alone, it makes the pair too")
    p.add_argument("--attribution", action="store_true",
                   help="add a section of attention beside the token attributions for the predicted class (gradient × "
                        "input, Integrated Gradients, leave-one-out, LRP, rollout, flow) and their Kendall τ")


def _needs_second(name: str, cfg, hypothesis: str | None, names: tuple[str, str] | None = None) -> None:
    """One line when a two-sentence model is given one sentence, naming its inputs by ``names`` (default: the
    model's own, ``input_names``: hypothesis, sentence B; a pair report's are the pair view's)."""
    if cfg.pair and hypothesis is None:
        first, second = names or cfg.input_names
        raise DisanError(f"{name} reads two sentences ({first} and {second}); give its {second} with --hypothesis.")


def run_pair_report(args) -> int:
    """``report --pair``: A (TEXT, --hypothesis) and B (--pair, --pair-hypothesis; a side not given is A's)
    through one model into one file (``viz_app/draw/pair_report.py``)."""
    from disan.api import describe, load
    from disan.output import check_writable
    from viz_app.draw import pair_report

    _check_report_alpha(args.alpha)
    out = check_writable(args.out, "--out")
    cfg = describe(args.model)
    if not cfg.pair and args.pair_hypothesis is not None:
        raise DisanError(f"{args.model} reads one sentence; leave out --pair-hypothesis.")
    names = pair_report.input_names(cfg.relatedness)  # a relatedness model's first and second sentence here
    _needs_second(args.model, cfg, args.hypothesis, names)
    b_text = args.text if args.pair is None else args.pair
    b_hypothesis = args.hypothesis if args.pair_hypothesis is None else args.pair_hypothesis
    pair_report.check_pair_text((args.text, args.hypothesis), (b_text, b_hypothesis), names)
    model = load(args.model, args.device)
    trace_a = model.trace(args.text, args.hypothesis, alpha=args.alpha, masks=args.masks)
    trace_b = model.trace(b_text, b_hypothesis, alpha=args.alpha, masks=args.masks)
    path = pair_report.write_pair_report(model, trace_a, trace_b, out)
    print(f"wrote {path} ({path.stat().st_size / 2**20:.1f} MB)")
    return 0


def _check_report_alpha(alpha: float | None) -> None:
    """A report starts its α slider at ``alpha``: one outside the slider's range was drawn by the headings and not
    by the slider, which could not come back to it."""
    from viz_app.draw.settings import ALPHA_MAX, ALPHA_MIN

    if alpha is not None and not ALPHA_MIN <= alpha <= ALPHA_MAX:  # NaN too
        raise DisanError(f"--alpha {alpha}: a report's α slider runs from {ALPHA_MIN:g} to {ALPHA_MAX:g}; give a "
                         "value in that range.")


def run_report(args) -> int:
    from disan.api import describe, load
    from disan.output import check_writable
    from disan.trace import drawing_backend

    if args.pair is not None or args.pair_hypothesis is not None:
        if args.attribution:
            raise DisanError("--attribution adds a section to one sentence's report; leave it out with --pair "
                             "(the pair report has leave-one-out rows under both sentences).")
        return run_pair_report(args)
    _check_report_alpha(args.alpha)
    out = check_writable(args.out, "--out")  # before loading anything: a bad path costs nothing
    report = drawing_backend()
    cfg = describe(args.model)
    _needs_second(args.model, cfg, args.hypothesis)
    report.check_text(args.text, args.hypothesis, cfg.input_names)
    model = load(args.model, args.device)
    trace = model.trace(args.text, args.hypothesis, alpha=args.alpha, masks=args.masks)
    extra = None
    if args.attribution:
        from disan.attribution import attribute
        from viz_app.draw.attribution import report_section

        extra = report_section(attribute(model, trace), cfg.input_names)
    path = report.write_report(trace, out, extra=extra)
    print(f"wrote {path} ({path.stat().st_size / 2**20:.1f} MB)")
    return 0


def add_site(sub) -> None:
    p = sub.add_parser("site", help="write the static explorer: a folder where the models run in the page (no server)")
    p.add_argument("--out", required=True, help="the folder to write (created; an earlier site there is replaced)")
    p.add_argument("--model", action="append", default=None,
                   help="a bundled model or a checkpoint path to include (repeat for several; default: every bundled "
                        "checkpoint)")
    p.add_argument("--extra-words", type=int, default=None,
                   help="GloVe words kept beyond each model's own vocabulary (default: disan.onnx_export's)")
    p.add_argument("--search", action="store_true",
                   help="add the Search mode: each model's bundled test-set index (docs/search.md; built into the "
                        "user cache on first use, skipped with a note where the data is absent)")
    p.add_argument("--search-data", default=None, metavar="NAME|FILE",
                   help="with --search: index this corpus for every model instead of its bundled test set")
    p.add_argument("--data-dir", default=None, help="with --search: the datasets' folder (default: ../shared/data)")


def run_site(args) -> int:
    try:
        from viz_app.draw import site
    except ImportError as err:
        raise DisanError(f"The site needs the app's figure code and plotly ({err}); reinstall the package with "
                         "`pip install .`, or in a checkout run `bash scripts/setup.sh`.") from None
    search = (args.search_data or True) if (args.search or args.search_data) else False
    info = site.build_site(args.out, args.model, extra_words=args.extra_words, search=search, data_dir=args.data_dir,
                           log=lambda line: print(line, file=sys.stderr, flush=True))
    print(site.describe(info))
    return 0


def add_app(sub) -> None:
    p = sub.add_parser("app", help="start the Streamlit app on http://localhost:8501 (further options go to "
                                   "`streamlit run`, e.g. --server.port 8502)")
    p.add_argument("--model", action="append", default=None, metavar="PATH",
                   help="a checkpoint of yours (.safetensors) to list beside the bundled models (repeat for several)")


def run_app(args) -> int:
    import os

    from disan.api import USER_MODELS_ENV, describe
    from viz_app.launch import run

    if args.model:  # checked here, one line each; the app lists them through disan.api.user_models
        for path in args.model:
            if not path.endswith(".safetensors"):
                raise DisanError(f"--model {path!r} is not a checkpoint path; give a .safetensors file "
                                 "(the bundled models are listed already).")
            describe(path, verify=True)
        os.environ[USER_MODELS_ENV] = os.pathsep.join(str(Path(p).expanduser().resolve()) for p in args.model)

    return run(args.extra_options)  # in this process: Streamlit receives Ctrl+C and a PaaS's SIGTERM itself


def add_bench(sub) -> None:
    sub.add_parser("bench", help="print latency / throughput tables (benchmarks/; python -m viz_app bench --help)")


def run_bench(argv: list[str]) -> int:
    from disan.locations import CHECKOUT

    if CHECKOUT is not None and str(CHECKOUT) not in sys.path:  # the `disan` script does not start in the checkout
        sys.path.insert(0, str(CHECKOUT))
    try:
        from benchmarks.cli import main as bench_main
    except ImportError as err:
        print(f"error: the benchmarks package is not importable ({err}); `disan bench` needs a repository "
              "checkout (benchmarks/ is not installed with the package): run it from a clone", file=sys.stderr)
        return 2
    return bench_main(argv)


def add_prepare(sub) -> None:
    from viz_app import prepare

    prepare.add_parser(sub)


def run_prepare(args) -> int:
    from viz_app import prepare

    return prepare.run(args)


COMMANDS = {**CORE_COMMANDS, "report": (add_report, run_report), "site": (add_site, run_site),
            "app": (add_app, run_app), "prepare": (add_prepare, run_prepare), "bench": (add_bench, None)}
#: Commands whose unknown options are passed on (to ``streamlit run``) instead of refused.
PASS_THROUGH = frozenset({"app"})


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv[:1] == ["bench"]:  # the bench command owns its own flags
        return run_bench(argv[1:])
    prog = "python -m viz_app" if Path(sys.argv[0]).name == "__main__.py" else "disan"
    return run_command(argv, COMMANDS, prog, __doc__.splitlines()[0], PASS_THROUGH)
