"""`train` on the tasks of issue 28 (trec; subj, mpqa, cr by fold; sick relatedness), on files the tests write."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from disan.__main__ import main
from disan.checkpoint import load_checkpoint, read_metadata
from disan.data import load_task
from disan.errors import InputError
from disan.train import TrainConfig, train
from disan.vocab import load_glove
from tests.task_files import write_glove, write_task_data


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    root = tmp_path_factory.mktemp("tasks")
    return write_task_data(root / "data"), write_glove(root / "vectors.8d.txt")


def config(tmp_path, files, **kw) -> TrainConfig:
    data, glove = files
    base = dict(model="disan", out=str(tmp_path / "run" / "m"), data_dir=str(data), glove=glove, d_h=8,
                batch_size=8, optimizer="adam", lr=1e-2, dropout=0.0, epochs=3, save_every=1, threads=1)
    return TrainConfig(**{**base, **kw})


@pytest.mark.parametrize("task, fold", [("trec", None), ("subj", 1), ("mpqa", 4), ("cr", 9)])
def test_classification_task_trains_and_a_fold_run_records_what_it_never_saw(tmp_path, files, task, fold):
    cfg = config(tmp_path, files, task=task, fold=fold)
    summary = train(cfg)
    assert 0.0 <= summary["best_dev_acc"] <= 1.0 and summary["total_steps"] > 0
    model = load_checkpoint(Path(cfg.out).with_suffix(".safetensors"), load_glove(cfg.glove))
    probs = model.predict(["the movie is good"])[0]
    assert set(probs) == set(model.cfg.labels) and sum(probs.values()) == pytest.approx(1.0)
    record_path = Path(cfg.out).with_suffix(".folds.json")
    if fold is None:
        assert not record_path.exists()
        return
    record = json.loads(record_path.read_text())
    assert record["fold"] == fold and record["k"] == 10
    unseen = {record["sources"][i] for i in record["this_fold"]["test"]["indices"]}
    seen = {ex.source for ex in load_task(task, "train", cfg.data_dir, fold=fold)}
    assert unseen and not unseen & seen
    assert summary["train_examples"] == record["this_fold"]["train"]["n"]


def test_sick_trains_a_relatedness_model_that_predicts_scores_and_traces_both_sentences(tmp_path, files):
    cfg = config(tmp_path, files, task="sick", epochs=4)
    summary = train(cfg)
    assert "best_dev_acc" not in summary and -1.0 <= summary["best_dev_pearson"] <= 1.0
    assert all("dev_pearson" in h for h in summary["history"])
    losses = [h["train_loss"] for h in summary["history"]]
    assert losses[-1] < losses[0], losses  # the KL loss goes down
    path = Path(cfg.out).with_suffix(".safetensors")
    mcfg, _, _ = read_metadata(path)
    assert mcfg.relatedness and mcfg.pair and mcfg.labels == ("1", "2", "3", "4", "5")
    model = load_checkpoint(path, load_glove(cfg.glove))
    scores = model.predict([("a man runs", "a dog runs"), ("the film is good", "the film is good")])
    assert all(isinstance(s, float) and 1.0 <= s <= 5.0 for s in scores)
    trace = model.trace("a man runs", "a dog runs")
    assert trace.premise.tokens == ("a", "man", "runs") and trace.hypothesis.tokens == ("a", "dog", "runs")
    assert trace.relatedness == pytest.approx(scores[0], abs=1e-5)
    assert trace.to_json()["relatedness"] == trace.relatedness
    assert sum(trace.prediction.values()) == pytest.approx(1.0)
    assert trace.relatedness == pytest.approx(sum(int(k) * p for k, p in trace.prediction.items()), abs=1e-5)


def test_fold_is_refused_for_a_task_without_folds_and_out_of_range(tmp_path, files):
    with pytest.raises(InputError, match="--fold 2 applies to the cross-validated tasks"):
        train(config(tmp_path, files, task="trec", fold=2))
    with pytest.raises(InputError, match="use a fold from 0 to 9"):
        train(config(tmp_path, files, task="subj", fold=10))


def test_cli_trains_a_fold_and_names_the_run_after_it(tmp_path, files, capsys, monkeypatch):
    data, glove = files
    monkeypatch.chdir(tmp_path)
    code = main(["train", "--model", "disan", "--task", "cr", "--fold", "3", "--data-dir", str(data), "--glove", glove,
                 "--d-h", "8", "--epochs", "1", "--threads", "1"])
    assert code == 0 and (tmp_path / "runs" / "disan-cr-fold3.folds.json").exists()
    assert main(["train", "--model", "disan", "--task", "sick", "--fold", "1", "--data-dir", str(data)]) == 2
    assert "--fold 1 applies to the cross-validated tasks" in capsys.readouterr().err


def test_evaluate_scores_a_fold_model_on_its_fold_and_a_sick_model_by_correlation(tmp_path, files, capsys,
                                                                                     monkeypatch):
    import json as _json

    from disan.cards import curve_lines

    data, glove = files
    monkeypatch.setenv("DISAN_DATA_DIR", str(data))
    cr = config(tmp_path / "cr", files, task="cr", fold=5, epochs=1)
    train(cr)
    capsys.readouterr()
    assert main(["evaluate", "--model", str(Path(cr.out).with_suffix(".safetensors")), "--task", "cr",
                 "--fold", "5"]) == 0
    report = _json.loads(capsys.readouterr().out)
    assert report["fold"] == 5 and report["n"] == len(load_task("cr", "test", data, fold=5))
    assert main(["evaluate", "--model", str(Path(cr.out).with_suffix(".safetensors")), "--task", "cr",
                 "--fold", "10"]) == 2
    assert "use a fold from 0 to 9" in capsys.readouterr().err
    sick = config(tmp_path / "sick", files, task="sick", epochs=1)
    summary = train(sick)
    capsys.readouterr()
    assert main(["evaluate", "--model", str(Path(sick.out).with_suffix(".safetensors")), "--task", "sick"]) == 0
    report = _json.loads(capsys.readouterr().out)
    assert report["n"] == 16 and {"pearson_r", "spearman_rho", "mse"} <= set(report)
    assert curve_lines(summary["history"])[0].endswith("dev Pearson r |")
