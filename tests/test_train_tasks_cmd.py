"""scripts/train_tasks.sh: the 40 runs of issue 28, each a valid `python -m disan train` with the published recipe."""

from __future__ import annotations

import argparse
import json
import os
import shlex
import subprocess
from collections import Counter
from pathlib import Path

from disan.__main__ import add_train
from disan.config import RECIPE_FIELDS
from disan.train import TrainConfig, paper_defaults

ROOT = Path(__file__).resolve().parents[1]


def listed(*tasks: str) -> subprocess.CompletedProcess:
    return subprocess.run(["bash", "scripts/train_tasks.sh", "--list", *tasks], cwd=ROOT, capture_output=True,
                          text=True, env={**os.environ, "RUNS": "/runs"}, timeout=60)


def config_from(argv: list[str]) -> TrainConfig:
    sub = argparse.ArgumentParser().add_subparsers(dest="command")
    add_train(sub)
    args = vars(sub.choices["train"].parse_args(argv))
    given = {k: v for k, v in args.items() if v is not None}
    return TrainConfig(**{**paper_defaults(args["model"], args["task"]), **given})


def test_forty_runs_five_seeds_or_ten_folds_each_with_the_published_recipe():
    proc = listed()
    assert proc.returncode == 0, proc.stderr
    configs = [config_from(shlex.split(line)) for line in proc.stdout.splitlines()]
    assert Counter(c.task for c in configs) == {"trec": 5, "sick": 5, "subj": 10, "mpqa": 10, "cr": 10}
    for task in ("trec", "sick"):
        assert sorted(c.seed for c in configs if c.task == task) == [0, 1, 2, 3, 4]
        assert all(c.fold is None for c in configs if c.task == task)
    for task in ("subj", "mpqa", "cr"):
        assert sorted(c.fold for c in configs if c.task == task) == list(range(10))
    assert len({c.out for c in configs}) == 40
    assert next(c.out for c in configs if c.task == "trec" and c.seed == 0) == "/runs/trec-seed0/disan-trec"
    published = json.loads((ROOT / "pretrained" / "disan-sst5.json").read_text())["train"]["train_config"]
    for c in configs:
        assert all(getattr(c, f) == published[f] for f in (*RECIPE_FIELDS, "optimizer", "lr")), c
        assert (c.threads, c.patience, c.model) == (1, 8, "disan")


def test_unknown_task_is_refused_by_name():
    proc = listed("trec", "imdb")
    assert proc.returncode == 2 and "unknown task 'imdb'" in proc.stderr and proc.stdout == ""
