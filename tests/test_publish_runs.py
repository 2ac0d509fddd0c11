"""scripts/publish_pretrained.py on run folders laid out as scripts/train_tasks.sh lays them out: five-seed
relatedness runs (SICK) and ten-fold runs (CR), each a real tiny `train` run on files the tests write, with
the dev values in its .train.json set by the test so the pick is known.

The published test scores are checked against the public ``predict()`` on the same test parts, not against
the evaluation code that publishing itself uses.
"""

from __future__ import annotations

import importlib.util
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from scipy.stats import pearsonr, spearmanr

from disan.api import load
from disan.data import load_task
from disan.data.folds import fold_indices
from disan.errors import run_script
from disan.paper_tables import TABLES, ours
from disan.seed_runs import Run, RunError
from disan.train import TrainConfig, train
from tests.task_files import write_glove, write_task_data

ROOT = Path(__file__).resolve().parents[1]
spec = importlib.util.spec_from_file_location("publish_pretrained", ROOT / "scripts" / "publish_pretrained.py")
pp = importlib.util.module_from_spec(spec)
spec.loader.exec_module(pp)

SICK_DEV = {0: 0.61, 1: 0.74, 2: 0.66}  # seed -> dev Pearson's r written into the run's summary: seed 1 ships
CR_DEV = {f: 0.50 + 0.01 * ((3 * f) % 10) for f in range(10)}  # fold -> dev accuracy: fold 3 (0.59) ships


def tiny_run(runs: Path, data: Path, glove: str, task: str, seed: int, fold: int | None, dev: float) -> str:
    """One run at RUNS/<task>-seed<N>/disan-<task> (or -fold<F>), as train writes it; its dev value set to ``dev``."""
    name = f"{task}-{'seed' if fold is None else 'fold'}{seed if fold is None else fold}/disan-{task}"
    cfg = TrainConfig(model="disan", task=task, out=str(runs / name), data_dir=str(data), glove=glove, d_h=8,
                      batch_size=8, optimizer="adam", lr=1e-2, dropout=0.0, epochs=10, max_steps=8, eval_every=4,
                      save_every=4, threads=1, seed=seed, fold=fold, unk_zero=True)
    train(cfg)
    path = (runs / name).with_suffix(".train.json")
    summary = json.loads(path.read_text())
    summary["best_dev_pearson" if task == "sick" else "best_dev_acc"] = dev
    path.write_text(json.dumps(summary, indent=2) + "\n")
    return name


@pytest.fixture(scope="session")
def runs(tmp_path_factory):
    """Tiny real train runs (3 SICK seeds, 10 CR folds), trained once for every module that publishes them."""
    root = tmp_path_factory.mktemp("publish")
    data, glove = write_task_data(root / "data"), write_glove(root / "vectors.8d.txt")
    folder = root / "runs"
    sick = [tiny_run(folder, data, glove, "sick", s, None, SICK_DEV[s]) for s in SICK_DEV]
    cr = [tiny_run(folder, data, glove, "cr", 0, f, CR_DEV[f]) for f in CR_DEV]
    return folder, data, sick, cr


@pytest.fixture()
def published(tmp_path, monkeypatch):
    monkeypatch.setattr(pp, "PRETRAINED_DIR", tmp_path / "pretrained")
    return tmp_path / "pretrained"


def sick_scores(folder: Path, run: str, data: Path) -> dict:
    """Pearson's r, Spearman's ρ and MSE of the run's checkpoint on the test pairs, through predict()."""
    model = load(str((folder / run).with_suffix(".safetensors")), device="cpu")
    test = load_task("sick", "test", data)
    predicted = np.asarray(model.predict([(ex.text, ex.hypothesis) for ex in test]))
    gold = np.asarray([ex.score for ex in test])
    return {"pearson_r": pearsonr(gold, predicted).statistic, "spearman_rho": spearmanr(gold, predicted).statistic,
            "mse": float(np.mean((gold - predicted) ** 2))}


def fold_accuracy(folder: Path, run: str, data: Path, fold: int) -> float:
    model = load(str((folder / run).with_suffix(".safetensors")), device="cpu")
    test = load_task("cr", "test", data, fold=fold)
    probs = model.predict([ex.text for ex in test])
    return float(np.mean([model.cfg.labels.index(max(p, key=p.get)) == ex.label for p, ex in zip(probs, test)]))


@pytest.mark.slow
def test_sick_runs_publish_pearson_spearman_and_mse_over_seeds_beside_shen_table_4(runs, published, capsys):
    folder, data, sick, _ = runs
    assert pp.main(["--runs", str(folder), "disan-sick=" + ",".join(sick)]) == 0
    card = json.loads((published / "disan-sick.json").read_text())
    block = card["test_runs"]
    expected = [sick_scores(folder, run, data) for run in sick]
    assert block["unit"] == "seed" and block["measures"] == ["pearson_r", "spearman_rho", "mse"]
    for m in block["measures"]:
        assert block[m] == pytest.approx([e[m] for e in expected], abs=1e-5)
        assert block["stats"][m]["mean"] == pytest.approx(np.mean(block[m]))
        assert block["stats"][m]["sd"] == pytest.approx(np.std(block[m], ddof=1))
    assert [r["best_dev_pearson"] for r in block["runs"]] == list(SICK_DEV.values())
    assert block["mean"] == block["stats"]["pearson_r"]["mean"]
    assert block["shipped"]["seed"] == 1 and "dev Pearson's r" in block["shipped"]["why"]
    test = card["evaluation"]["test"]
    assert {m: test[m] for m in block["measures"]} == pytest.approx(expected[1], abs=1e-5)
    text = (published / "disan-sick.card.md").read_text()
    assert all(f"{paper} (Shen Table 4)" in text for paper in (".8695 (.0012)", ".8139 (.0012)", ".2879 (.0036)"))
    assert "h× = s_a ⊙ s_b and h+ = |s_a − s_b|" in text and "KL(p ‖ p̂)" in text and "16-d each" in text
    assert "| 1 (shipped) | 0.7400 |" in text
    gap = 0.80 - block["mean"]
    verdict = f"misses it by {gap:.4f}" if gap > 0 else f"meets it (+{-gap:.4f})"
    assert f"Pearson's r ≥ 0.80; the mean of the 3 runs {verdict}" in card["shortfall"]
    assert card["train_command"].startswith("bash scripts/train_tasks.sh sick   # seed 1:")
    for cell in (c for t in TABLES for c in t.cells if c.model == "disan-sick"):  # `disan tables` reads the same
        mine = ours(cell, published)
        assert mine.value == pytest.approx(block["stats"][cell.measure]["mean"]) and "over 3 seeds" in mine.spread
        assert [mine.lo, mine.hi] == pytest.approx(block["stats"][cell.measure]["ci95"])


def test_fold_runs_publish_mean_sd_and_interval_and_ship_the_dev_pick_with_the_examples_it_never_saw(
        runs, published, capsys):
    folder, data, _, cr = runs
    assert pp.main(["--runs", str(folder), "disan-cr=" + ",".join(cr)]) == 0
    card = json.loads((published / "disan-cr.json").read_text())
    block = card["test_runs"]
    expected = [fold_accuracy(folder, run, data, f) for f, run in enumerate(cr)]
    assert block["unit"] == "fold" and block["accuracy"] == pytest.approx(expected)
    stats = block["stats"]["accuracy"]
    assert stats["mean"] == pytest.approx(np.mean(expected)) and stats["sd"] == pytest.approx(np.std(expected, ddof=1))
    assert stats["ci95"][0] <= stats["mean"] <= stats["ci95"][1]
    assert [r["fold"] for r in block["runs"]] == list(range(10)) and {r["seed"] for r in block["runs"]} == {0}
    assert block["shipped"]["fold"] == 3 and "fold 3 has the highest dev accuracy" in block["shipped"]["why"]
    assert card["evaluation"]["test"]["fold"] == 3 and card["evaluation"]["test"]["accuracy"] == block["accuracy"][3]
    unseen = card["never_seen"]
    examples = load_task("cr", "all", data)
    assert unseen["fold"] == 3 and unseen["seed"] == 13
    assert unseen["test_indices"] == fold_indices([ex.label for ex in examples], 3)["test"]
    trained_on = {ex.source for ex in load_task("cr", "train", data, fold=3)}
    assert not {examples[i].source for i in unseen["test_indices"]} & trained_on
    code = unseen["command"].removeprefix('python -c "').removesuffix('"')
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=120,
                         env={**os.environ, "DISAN_DATA_DIR": str(data)})
    assert json.loads(out.stdout) == unseen["test_indices"], out.stderr
    text = (published / "disan-cr.card.md").read_text()
    assert "84.8 (2.0) (Shen Table 5)" in text and "95% interval of the mean" in text and "| 3 (shipped) |" in text
    assert "Fold 3 of the seeded, stratified 10-fold split (seed 13" in text and "--fold 3 --card" in text
    assert "the mean of the 10 folds" in card["shortfall"]
    mine = ours(next(c for t in TABLES for c in t.cells if c.model == "disan-cr"), published)
    assert mine.value == pytest.approx(100 * stats["mean"]) and "over 10 folds" in mine.spread


def one_line_error(capsys, argv: list[str]) -> str:
    with pytest.raises(SystemExit) as stop:
        run_script(lambda: pp.main(argv))
    err = capsys.readouterr().err
    assert stop.value.code == 2 and err.count("\n") == 1 and "Traceback" not in err
    return err


def test_a_missing_field_is_one_line_naming_the_run_and_the_field(runs, published, tmp_path, capsys):
    folder, _, sick, cr = runs
    broken = tmp_path / "runs"
    shutil.copytree(folder, broken)
    summary_path = (broken / sick[2]).with_suffix(".train.json")
    summary = json.loads(summary_path.read_text())
    del summary["best_dev_pearson"]
    summary_path.write_text(json.dumps(summary))
    err = one_line_error(capsys, ["--runs", str(broken), "disan-sick=" + ",".join(sick)])
    assert sick[2] in err and "'best_dev_pearson'" in err
    assert not published.exists()  # refused before anything was copied
    (broken / cr[3]).with_suffix(".folds.json").unlink()
    err = one_line_error(capsys, ["--runs", str(broken), "disan-cr=" + ",".join(cr)])
    assert cr[3] in err and ".folds.json is missing" in err
    err = one_line_error(capsys, ["--runs", str(broken), "disan-cr=" + ",".join([*cr[:2], cr[1]])])
    assert "repeat a fold" in err
    with pytest.raises(RunError, match=r"run sick-seed0/disan-sick: its test report has no 'spearman_rho'"):
        Run("sick-seed0/disan-sick", {"train_config": {"task": "sick", "seed": 0}}, {"pearson_r": 0.5}).score(
            "spearman_rho")


def test_a_cross_validation_with_folds_still_training_or_left_out_is_refused_in_one_line(runs, published, tmp_path,
                                                                                          capsys):
    """Folds 7–9 still training have no .train.json yet (train writes it when the run ends): naming all ten names
    the three at once; naming the seven finished ones would publish a 7-fold mean as the 10-fold one: refused."""
    folder, _, _, cr = runs
    partial = tmp_path / "runs"
    shutil.copytree(folder, partial)
    for f in (7, 8, 9):
        (partial / cr[f]).with_suffix(".train.json").unlink()
    err = one_line_error(capsys, ["--runs", str(partial), "disan-cr=" + ",".join(cr)])
    unfinished = ", ".join(f"cr-fold{f}/disan-cr" for f in (7, 8, 9))
    assert f"disan-cr: 3 of the 10 runs have not finished ({unfinished})" in err
    assert "the run has not finished" in err
    err = one_line_error(capsys, ["--runs", str(partial), "disan-cr=" + ",".join(cr[:7])])
    assert "disan-cr: folds 7, 8, 9 of the 10-fold cross-validation are not among the runs given" in err
    err = one_line_error(capsys, ["--runs", str(partial), "disan-cr=" + ",".join(cr[:6] + cr[7:8])])
    assert "the run has not finished" in err and "cr-fold7/disan-cr" in err  # one unfinished run: its own line
    assert not published.exists()  # refused before anything was copied
