"""Data randomisation test (disan/attribution/data_randomisation.py): a model whose maps the mask fixes fails it
whatever weights the other model has, one whose maps the weights decide passes, a model against itself fails every
method, and ``disan sanity --shuffled`` on fixture data."""

from __future__ import annotations

import json

import numpy as np
import pytest

from disan import checkpoint
from disan.__main__ import main
from disan.api import load
from disan.attribution import data_randomisation as D
from disan.attribution import randomisation as R

from conftest import make_tiny
from fixture_data import fixture_data_dir
from test_randomisation import sentences


def other_weights(model, seed: int = 7):
    """The same architecture with every encoder and head weight re-drawn (a stand-in for a shuffled-label run)."""
    other = R._clone(model)
    R.redraw_(other, ("encoder.", "head."), seed)
    return other


def test_attention_fixed_by_the_mask_fails_and_attention_of_the_weights_passes(tiny_glove):
    sides = sentences(24)
    fixed = make_tiny("dsa", tiny_glove, alpha=50.0)
    per, _ = D.measure_pair(fixed, other_weights(fixed), sides, steps=4)
    result = R.summarize(per, "dsa")
    assert result["steps"] == [D.STEP]
    row = result["by_step"][D.STEP]
    assert result["verdicts"]["token2token_rows"] == "fails" and row["token2token_rows"]["spearman"]["value"] > 0.99
    assert result["verdicts"]["lrp"] == "passes"
    free = make_tiny("dsa", tiny_glove, alpha=0.0)
    per, _ = D.measure_pair(free, other_weights(free), sides, steps=4)
    assert R.summarize(per, "dsa")["verdicts"]["token2token_rows"] == "passes"


def test_a_model_against_itself_fails_every_method(tiny_glove):
    model = make_tiny("disan", tiny_glove)
    per, preds = D.measure_pair(model, model, sentences(12), steps=2)
    result = R.summarize(per, "disan")
    assert set(result["verdicts"].values()) == {"fails"}
    assert all(np.nanmin(per[D.STEP][f"rho:{m}"]) > 0.999 for m in ("lrp", "attention", "integrated_gradients"))
    assert (preds["trained"] == preds["shuffled"]).all()


def test_models_of_different_architectures_are_refused(tiny_glove):
    with pytest.raises(Exception, match="arch"):
        D.check_pair(make_tiny("disan", tiny_glove), make_tiny("dsa", tiny_glove))


def test_sanity_shuffled_command_on_fixture_data(tmp_path, capsys):
    path = tmp_path / "shuffled.safetensors"
    checkpoint.save(other_weights(load("disan-sst5", device="cpu")), path, manifest=False)
    path.with_suffix(".train.json").write_text(json.dumps(
        {"train_config": {"shuffle_labels": 1}, "checkpoint_step": 20, "shuffled_train_acc": 0.4}))
    assert main(["sanity", "--model", "disan-sst5", "--shuffled", str(path), "--data-dir", str(fixture_data_dir()),
                 "--limit", "3", "--json", "--no-progress"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["test"] == "data randomisation" and out["steps"] == [D.STEP] and out["n"] == 3
    assert out["shuffled_training"] == {"shuffle_labels": 1, "checkpoint_step": 20, "shuffled_train_acc": 0.4}
    assert set(out["verdicts"]) == set(R.methods("disan")) and 0 <= out["prediction_agreement"] <= 1
    assert main(["sanity", "--model", "disan-sst5", "--shuffled", str(path), "--data-dir", str(fixture_data_dir()),
                 "--limit", "3", "--no-progress"]) == 0
    assert "trained vs shuffled-label model" in capsys.readouterr().out
    assert main(["sanity", "--model", "disan-sst5", "--shuffled", str(tmp_path / "missing.safetensors"),
                 "--limit", "2"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("error:")


def test_sanity_table_prints_the_stored_numbers(tmp_path, tiny_glove, capsys):
    """scripts/sanity_table.py: the docs' tables are the stored result's numbers, verdicts included."""
    import importlib.util
    from pathlib import Path

    spec = importlib.util.spec_from_file_location("sanity_table", Path(__file__).parents[1] / "scripts" / "sanity_table.py")
    table = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(table)
    model = make_tiny("dsa", tiny_glove, alpha=50.0)
    per, _ = D.measure_pair(model, other_weights(model), sentences(10), steps=2)
    result = {"model": "tiny", "n": 10, "n_examples": 10, "split": "test", "sample_seed": 0,
              "test": "data randomisation", **R.summarize(per, "dsa")}
    path = tmp_path / "r.json"
    path.write_text(json.dumps(result))
    assert table.main([str(path)]) == 0
    out = capsys.readouterr().out
    rho = result["by_step"][D.STEP]["token2token_rows"]["spearman"]
    assert f"| token2token_rows | {rho['value']:+.2f} [{rho['ci95'][0]:+.2f}, {rho['ci95'][1]:+.2f}]" in out
    assert out.count("| fails |") == sum(v == "fails" for v in result["verdicts"].values())
    assert table.main(["--verdicts", str(path)]) == 0
    assert f"| token2token_rows | fails ({rho['value']:+.2f}) |" in capsys.readouterr().out
    assert table.main([str(tmp_path / "missing.json")]) == 2


def test_sanity_table_runs_reads_seconds_and_load_from_the_err_file(tmp_path, capsys):
    import importlib.util
    from pathlib import Path

    spec = importlib.util.spec_from_file_location("sanity_table", Path(__file__).parents[1] / "scripts" / "sanity_table.py")
    table = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(table)
    result = {"model": "m", "task": "trec", "n": 30, "n_examples": 500, "steps": ["head", "embeddings"]}
    (tmp_path / "m.json").write_text(json.dumps(result))
    (tmp_path / "m.err").write_text(" 10:00 up 1:00,  load average: 12.5, 3, 2\nm: 30 examples in 372 s\n"
                                    " 10:06 up 1:06,  load average: 9.25, 3, 2\n")
    assert table.main(["--runs", str(tmp_path / "m.json")]) == 0
    assert "| m | trec | 30 of 500 | head → embeddings | 372 s | 12.5, 9.25 |" in capsys.readouterr().out
