"""What a cross-validated model never saw: its test fold, checked against the fold record its run wrote.

A fold run writes ``<prefix>.folds.json`` (``disan.data.folds.fold_record``). Publishing regenerates the fold
from the recorded k, seed and dev parts on the data here and refuses a record that differs, so the card's
``never_seen`` block, and the command it prints, name exactly the examples the shipped model was never trained on.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path

from .data import Example
from .data.folds import fold_record
from .seed_runs import RunError


def regenerate_command(task: str, fold: int, k: int, seed: int, dev_parts: int) -> str:
    """A shell line that prints the fold's test indices into ``load_task(task, 'all')`` (the file's line order)."""
    return ('python -c "from disan.data import load_task; from disan.data.folds import fold_indices; '
            f"ex = load_task('{task}', 'all'); "
            f"print(fold_indices([e.label for e in ex], {fold}, k={k}, seed={seed}, dev_parts={dev_parts})['test'])\"")


def read_record(run: str, prefix: Path) -> dict:
    path = prefix.with_suffix(".folds.json")
    if not path.is_file():
        raise RunError(f"run {run}: {path} is missing; a fold run writes it when it starts: rerun "
                       "`bash scripts/train_tasks.sh TASK` (a finished run ends at once) to write it again.")
    return json.loads(path.read_text())


def never_seen(run: str, prefix: Path, examples: Sequence[Example]) -> dict:
    """The card's ``never_seen`` block for the fold run at ``prefix``; ``examples``: the task's 'all' split here."""
    record = read_record(run, prefix)
    missing = [k for k in ("task", "fold", "k", "seed", "dev_parts", "examples_sha256", "this_fold") if k not in record]
    if missing:
        raise RunError(f"run {run}: its fold record has no {missing[0]!r}; rerun the fold to write it again.")
    here = fold_record(record["task"], examples, record["fold"], record["k"], record["seed"], record["dev_parts"])
    if here["examples_sha256"] != record["examples_sha256"]:
        raise RunError(f"run {run}: the {record['task']} data here differs from the data the fold run was drawn from "
                       "(examples_sha256); publish with the data it trained on.")
    test = here["this_fold"]["test"]["indices"]
    if test != record["this_fold"]["test"]["indices"]:
        raise RunError(f"run {run}: fold {record['fold']} regenerated with seed {record['seed']} differs from its "
                       "record; the fold assignment code changed since the run; retrain the folds.")
    return {
        "task": record["task"], "fold": record["fold"], "k": record["k"], "seed": record["seed"],
        "dev_parts": record["dev_parts"], "n_examples": record["n_examples"],
        "examples_sha256": record["examples_sha256"],
        "n": {part: rows["n"] for part, rows in here["this_fold"].items()},
        "test_indices": test,
        "command": regenerate_command(record["task"], record["fold"], record["k"], record["seed"], record["dev_parts"]),
    }


def never_seen_lines(block: dict) -> list[str]:
    """The card's section on the examples the shipped fold model never saw."""
    n = block["n"]
    return ["", "## Examples this model never saw", "",
            f"- Fold {block['fold']} of the seeded, stratified {block['k']}-fold split (seed {block['seed']}, "
            f"`disan.data.folds`): its {n['test']:,} test examples of {block['n_examples']:,}; the model trained "
            f"on {n['train']:,} and picked its checkpoint on a dev slice of {n['dev']:,} (1/{block['dev_parts']} "
            "of the other folds).",
            f"- Their positions in `load_task('{block['task']}', 'all')` (the data file's examples in file order; a "
            "line with no sentence is not an example, and each example's `source` names its file:line) are "
            "`test_indices` in this card's JSON; regenerate them with:", "", "```", block["command"], "```", "",
            f"- Data digest (sources, labels, texts): `{block['examples_sha256']}`."]
