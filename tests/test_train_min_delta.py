"""Early stopping's ``min_delta`` (issue 55, item 5): a dev gain of at most ``min_delta`` is no new best for
``--patience``, so a run whose dev score creeps up by noise stops; ``train --data`` uses it by default."""

from __future__ import annotations

import json
from pathlib import Path

from disan.__main__ import main
from disan.cli_file import MIN_DELTA
from disan.train import evals_since_best, stop_reason
from disan.train_config import TrainConfig
from tests import user_vectors

DATA = Path(__file__).parent / "fixtures" / "user_data"
CREEPING = [0.90, 0.930, 0.9305, 0.931, 0.9315]  # one real gain, then +0.0005 an evaluation


def history(values):
    return [{"dev_acc": v, "global_step": i + 1} for i, v in enumerate(values)]


def test_gains_within_min_delta_do_not_reset_patience():
    assert evals_since_best(history(CREEPING)) == 0  # any gain counts without min_delta
    assert evals_since_best(history(CREEPING), 0.002) == 3
    assert evals_since_best(history(CREEPING + [0.9325]), 0.002) == 0  # gains add up: 0.9325 > 0.930 + 0.002
    assert evals_since_best(history([0.018, 0.020]), 0.002) == 1  # exactly min_delta, though 0.018 + 0.002 < 0.020
    cfg = TrainConfig(patience=3, min_delta=0.002)
    assert stop_reason(cfg, history(CREEPING), 5) == "patience"
    assert stop_reason(TrainConfig(patience=3), history(CREEPING), 5) is None


def test_train_data_stops_with_min_delta_and_the_card_says_so(capsys, tmp_path):
    out = tmp_path / "m"
    code = main(["train", "--model", "dsa", "--data", str(DATA / "reviews.csv"), "--text", "review", "--label",
                 "sentiment", "--glove", str(user_vectors.GLOVE), "--d-h", "10", "--batch-size", "8", "--threads",
                 "1", "--epochs", "30", "--out", str(out)])
    assert code == 0, capsys.readouterr().err
    summary = json.loads(out.with_suffix(".train.json").read_text())
    assert summary["min_delta"] == MIN_DELTA and summary["train_config"]["patience"] == 3
    dev = [h["dev_acc"] for h in summary["history"]]
    assert summary["stopped_by"] == "patience" and len(dev) < 30
    assert evals_since_best(summary["history"], MIN_DELTA) == 3
    assert f"one better by more than {MIN_DELTA:g}" in out.with_suffix(".card.md").read_text()
    from benchmarks import train_data

    capsys.readouterr()
    assert train_data.main(["--runs", str(out.with_suffix(".json"))]) == 0  # bench train-data's row of this run
    printed = capsys.readouterr().out
    row = next(line.split() for line in printed.splitlines() if line.startswith("dsa "))
    assert row[3] == str(len(dev)) and row[6] == "patience" and row[5] == row[9] == "–"  # epochs, stop; no CPU, RSS
    assert "load average" in printed and "read from its card (--runs)" in printed
