"""scripts/train_tasks.sh: the 40 runs of issue 28, each a valid `python -m disan train` with the published recipe."""

from __future__ import annotations

import argparse
import json
import os
import shlex
import subprocess
from collections import Counter
from pathlib import Path

import pytest

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


def published_task_cards() -> list[dict]:
    cards = [json.loads(p.read_text()) for p in sorted((ROOT / "pretrained").glob("*.json")) if p.name != "MANIFEST.json"]
    return [c for c in cards if c.get("train_command", "").startswith("bash scripts/train_tasks.sh")]


@pytest.mark.parametrize("card", published_task_cards(), ids=lambda c: c["name"])
def test_a_published_task_model_is_one_of_the_scripts_runs_and_lists_them_all(card):
    task = card["train"]["train_config"]["task"]
    runs = card["test_runs"]
    unit = runs["unit"]  # seed, or fold (the folds share one seed)
    lines = [config_from(shlex.split(line)) for line in listed(task).stdout.splitlines()]
    assert [r[unit] for r in runs["runs"]] == [getattr(c, unit) for c in lines]  # every run of the script, in order
    measures = runs.get("measures", ["accuracy"])
    assert all(runs[m] == [r[f"test_{m}"] for r in runs["runs"]] for m in measures)
    shipped = next(c for c in lines if getattr(c, unit) == runs["shipped"][unit])
    trained = {**TrainConfig().__dict__, **card["train"]["train_config"]}  # a field added since: its default
    differs = {k: (v, trained[k]) for k, v in shipped.__dict__.items() if k != "out" and v != trained[k]}
    assert not differs, f"{card['name']}: scripts/train_tasks.sh differs from the run that was published: {differs}"
    assert card["evaluation"]["test"][measures[0]] == next(
        r[f"test_{measures[0]}"] for r in runs["runs"] if r[unit] == runs["shipped"][unit])


FAKE_PYTHON = """#!/usr/bin/env bash
# Stands in for python in `-m disan train ARGS`: records its arguments and thread setting; fold 3 fails.
echo "args: $* OMP_NUM_THREADS=$OMP_NUM_THREADS"
case " $* " in *" --fold 3 "*) echo "boom" >&2; exit 1 ;; esac
"""


def test_the_script_runs_every_line_logs_each_run_beside_its_files_and_exits_1_when_one_fails(tmp_path):
    fake = tmp_path / "python"
    fake.write_text(FAKE_PYTHON)
    fake.chmod(0o755)
    runs = tmp_path / "runs"
    env = {**os.environ, "RUNS": str(runs), "PYTHON": str(fake), "JOBS": "2"}
    proc = subprocess.run(["bash", "scripts/train_tasks.sh", "cr"], cwd=ROOT, capture_output=True, text=True,
                          env=env, timeout=120)
    assert proc.returncode == 1 and "some runs failed" in proc.stderr
    done = sorted(line for line in proc.stdout.splitlines() if line.startswith("done "))
    assert done == sorted(f"done {runs}/cr-fold{f}/disan-cr" for f in range(10) if f != 3)
    assert f"FAILED {runs}/cr-fold3/disan-cr (see {runs}/cr-fold3/disan-cr.stdout.log)" in proc.stdout
    expected = listed("cr").stdout.replace("/runs/", f"{runs}/").splitlines()
    for f, line in enumerate(expected):
        log = (runs / f"cr-fold{f}" / "disan-cr.stdout.log").read_text()
        assert log.startswith(f"args: -m disan train {line} OMP_NUM_THREADS=1\n")
    subprocess.run(["bash", "scripts/train_tasks.sh", "cr"], cwd=ROOT, capture_output=True, env=env, timeout=120)
    assert (runs / "cr-fold0" / "disan-cr.stdout.log").read_text().count("args:") == 2  # a rerun appends
