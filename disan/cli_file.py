"""The ``--data FILE`` routes of ``disan train`` and ``disan evaluate``: a user's labelled file (issue 55).

``run_train_file`` turns the parsed options into a ``TrainConfig`` (the paper recipe of the architecture, early
stopping on dev, absolute paths so the card and the checkpoint are read from anywhere) and runs
``disan.train_file.train_file``; ``run_evaluate_file`` scores a checkpoint on every row of a file with the columns
its card names, and counts the rows that the model's training or dev part holds verbatim.
"""

from __future__ import annotations

import dataclasses
import json
import os
import sys
from pathlib import Path

from .errors import DisanError, InputError

#: Early stopping of ``train --data``: the run stops after ``PATIENCE`` dev evaluations (one an epoch unless
#: ``--eval-every``) without a new best by more than ``MIN_DELTA`` (accuracy, or Pearson's r).
PATIENCE = 3
MIN_DELTA = 0.002


def check_no_fold(args) -> None:
    """``--fold`` picks the test fold of a 10-fold task (``check_fold``); a ``--data`` file has no folds, and the
    option was dropped without a word, so a user believed they had scored or trained one fold."""
    if getattr(args, "fold", None) is not None:
        from .data import CV_TASKS

        raise InputError(f"--fold {args.fold} picks a fold of the 10-fold tasks (--task "
                         f"{', '.join(sorted(CV_TASKS))}); a --data file has no folds: drop --fold.")


def run_train_file(args) -> int:
    """``train --data FILE``: the file's columns to a checkpoint and its card (``disan.train_file``)."""
    from .train import TrainConfig, paper_defaults
    from .train_config import check_settings
    from .train_file import train_file

    check_no_fold(args)
    given = {k: v for k, v in vars(args).items()
             if v is not None and k not in ("command", "func", "overwrite", "resume", "task")}
    for key in ("data", "dev", "test", "glove"):  # absolute: the card and the checkpoint are read from anywhere
        value = given.get(key)
        if value and (key != "glove" or Path(value).expanduser().exists()):
            given[key] = str(Path(value).expanduser().resolve())
    stem = Path(args.data).name.split(".")[0]
    name = "-".join(x for x in (args.model, stem, args.ablation) if x)
    # Early stopping as the bundled models' recipes do it (patience), where a dev gain of at most MIN_DELTA is no
    # progress: two more right answers in 1,000 dev examples are dev's noise, not a reason to train 3 more epochs.
    defaults = {**paper_defaults(args.model, "nli" if args.text_pair else "sst5"), "patience": PATIENCE,
                "min_delta": MIN_DELTA}
    if args.out and (args.out.endswith(("/", os.sep)) or Path(args.out).expanduser().is_dir()):
        given["out"] = str(Path(args.out).expanduser() / name)  # a folder: the model goes inside, named as by default
    cfg = TrainConfig(**{**defaults, "task": "file", "out": f"runs/{name}", **given})
    check_settings(cfg)
    try:
        card = train_file(cfg, overwrite=bool(args.overwrite), resume=bool(args.resume))
    except KeyboardInterrupt:
        print("interrupted; rerun the same command with --resume to continue from the last saved state.", file=sys.stderr)
        return 130
    test = card["evaluation"]["test"]
    score = (f"Pearson's r {test['pearson_r']:.4f}" if "pearson_r" in test else
             f"accuracy {100 * test['accuracy']:.2f}% [{100 * test['accuracy_ci95'][0]:.2f}, "
             f"{100 * test['accuracy_ci95'][1]:.2f}], macro-F1 {test['macro_f1']:.4f}")
    out = Path(card["train"]["train_config"]["out"])
    print(f"test {score} on {test['n']:,} examples; checkpoint {out.with_suffix('.safetensors')}, card "
          f"{out.parent / (out.name + '.card.md')}")
    return 0



def run_evaluate_file(args) -> int:
    """``evaluate --data FILE``: every row of FILE, columns as the model's card names them unless given."""
    from .api import checkpoint_path, load
    from .cards import read_card, update_card
    from .data.file_task import FileSpec, load_file_task, read_for_model
    from .evaluate import evaluate
    from .overlap import overlap, overlap_line
    from .train_file import spec_of
    from .train_config import TrainConfig

    check_no_fold(args)
    model = load(args.model, args.device)
    folder = checkpoint_path(args.model).parent
    card = read_card(model.name, folder)
    trained = card.get("train", {}).get("train_config", {})
    cols = card.get("data_file", {}).get("columns", {})
    spec = FileSpec(args.data, args.text or cols.get("text") or "text",
                    args.text_pair or cols.get("text_pair") or None, args.label or cols.get("label") or "label",
                    model.cfg.relatedness)
    if model.cfg.pair and spec.text_pair is None:
        raise DisanError(f"{model.name} reads sentence pairs; name the second sentence's column with --text-pair.")
    if not model.cfg.pair and spec.text_pair is not None:
        raise DisanError(f"{model.name} reads single sentences; drop --text-pair.")
    examples = read_for_model(args.data, spec, model.cfg.labels, model.cfg.relatedness)
    report = evaluate(model, examples)
    if trained.get("data"):
        fields = {k: v for k, v in trained.items() if k in {f.name for f in dataclasses.fields(TrainConfig)}}
        try:
            task = load_file_task(spec_of(TrainConfig(**fields)))
        except DisanError as err:
            print(f"duplicates not checked: the model's training data cannot be read ({err})", file=sys.stderr)
        else:
            report["overlap"] = overlap(examples, {"train": task.parts["train"], "dev": task.parts["dev"]}, report)
            print(overlap_line(report["overlap"]).replace("test examples", "examples of this file"), file=sys.stderr)
    report = {"model": model.name, "data": str(Path(args.data).resolve()), **report}
    print(json.dumps(report, indent=2))
    if args.card:
        update_card(model.name, f"file {Path(args.data).name}", report, folder)
    return 0
