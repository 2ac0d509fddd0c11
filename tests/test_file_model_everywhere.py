"""A model trained by ``disan train --data`` is explorable everywhere (issue 55, item 3): ``disan.load(PATH)``, the
app (``disan app --model PATH`` lists it through ``$DISAN_MODELS``), ``disan site --model PATH``, ``disan report
--model PATH``, ``disan claims`` and ``disan faithfulness --model PATH --data FILE``; its labels come from the file
and its presets are its test part's first example of each class."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests import user_vectors
from streamlit.testing.v1 import AppTest

import disan
from disan.__main__ import main as core_main
from viz_app.cli import main as cli_main

DATA = Path(__file__).parent / "fixtures" / "user_data"
APP = Path(__file__).resolve().parent.parent / "viz_app" / "app.py"
LABELS = ("neg", "plot", "pos")


@pytest.fixture(scope="module")
def trained(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("mine") / "reviews-dsa"
    code = core_main(["train", "--model", "dsa", "--data", str(DATA / "reviews.csv"), "--text", "review", "--label",
                      "sentiment", "--glove", str(user_vectors.GLOVE), "--d-h", "10", "--batch-size", "8",
                      "--epochs", "3", "--threads", "1", "--out", str(out)])
    assert code == 0
    return out.with_suffix(".safetensors")


def test_load_by_path_gives_the_files_labels_and_presets_one_per_class(trained):
    model = disan.load(str(trained), "cpu")
    assert model.cfg.labels == LABELS and model.name == "reviews-dsa"
    presets = json.loads(trained.with_suffix(".json").read_text())["presets"]
    assert [p["label"].split("gold ")[1].split(")")[0] for p in presets] == list(LABELS)
    assert len({p["text"] for p in presets}) == 3  # three different rows of the file


def test_load_and_describe_expand_a_home_path_as_the_shell_does(trained, monkeypatch):
    """docs/your-data.md's notebook line: ``disan.load("~/disan-runs/x.safetensors")`` (was "No checkpoint file")."""
    monkeypatch.setenv("HOME", str(trained.parent.parent))
    home_path = f"~/{trained.parent.name}/{trained.name}"
    assert disan.describe(home_path).labels == LABELS
    assert disan.load(home_path, "cpu").name == "reviews-dsa"


def test_app_lists_the_model_beside_the_bundled_ones_and_offers_its_presets(trained, monkeypatch):
    monkeypatch.setenv(disan.api.USER_MODELS_ENV, str(trained))
    names = disan.available()
    assert str(trained) in names and names[-2:] == ["disan", "dsa"]
    at = AppTest.from_file(str(APP), default_timeout=120)
    at.run()  # no model in the address: the app opens on the model given to it
    assert not at.exception, [e.value for e in at.exception]
    picker = next(s for s in at.sidebar.selectbox if s.key == "model")
    assert picker.value == str(trained)
    preset = next(s for s in at.sidebar.selectbox if s.key == "preset")
    mine = [o for o in preset.options if o.startswith("reviews-dsa: test")]
    assert len(mine) == 3


def test_app_refuses_a_path_that_is_not_a_checkpoint_in_one_line(capsys, tmp_path):
    (tmp_path / "x.safetensors").write_bytes(b"not a checkpoint")
    for bad in (str(tmp_path / "x.safetensors"), str(DATA / "reviews.csv")):
        assert cli_main(["app", "--model", bad]) == 2
        err = capsys.readouterr().err.strip().splitlines()
        assert len(err) == 1 and err[0].startswith("error: ")


def test_site_and_report_take_the_path(trained, tmp_path, capsys):
    assert cli_main(["site", "--model", str(trained), "--out", str(tmp_path / "site")]) == 0
    data = (tmp_path / "site" / "assets" / "site-data.js").read_text()
    payload = json.loads(data.split("=", 1)[1].strip().rstrip(";"))
    [entry] = payload["models"]
    assert entry["name"] == "reviews-dsa" and tuple(entry["labels"]) == LABELS
    assert "your file reviews.csv" in entry["title"]
    assert (tmp_path / "site" / "models" / "reviews-dsa.js").is_file()
    assert sum(p["label"].startswith("reviews-dsa: test") for p in payload["presets"]) == 3
    assert cli_main(["report", "the film is good", "--model", str(trained), "--out", str(tmp_path / "r.html")]) == 0
    assert "reviews-dsa" in (tmp_path / "r.html").read_text(encoding="utf-8")


@pytest.mark.slow
def test_claims_on_its_test_part_and_faithfulness_on_a_file(trained, capsys):
    assert core_main(["claims", "--model", str(trained), "--json", "--no-progress"]) == 0
    result = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    card = json.loads(trained.with_suffix(".json").read_text())
    assert result["n_examples"] == card["evaluation"]["test"]["n"] and result["task"] == "file"
    assert core_main(["faithfulness", "--model", str(trained), "--data", str(DATA / "reviews.csv"), "--limit", "4",
                      "--json", "--no-progress"]) == 0
    result = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert result["n"] == 4 and result["n_examples"] == 90


def test_site_search_of_your_model_indexes_the_file_it_was_trained_on(trained, tmp_path, monkeypatch):
    """Before, ``site --model PATH --search`` loaded the model by its file's stem: "No model named 'reviews-dsa'".
    A model of yours searches its own file, read by the card's columns: every row once, with its gold label."""
    from viz_app.draw import site_search

    monkeypatch.setenv("DISAN_INDEX_CACHE", str(tmp_path / "cache"))
    assert cli_main(["site", "--model", str(trained), "--out", str(tmp_path / "site"), "--search"]) == 0
    header, columns = site_search.unpack((tmp_path / "site" / "search" / "reviews-dsa.js").read_text())
    rows = (DATA / "reviews.csv").read_text().strip().splitlines()[1:]
    assert header["rows"]["sentences"] == len(rows)
    values = {f["name"]: f.get("values") for f in header["fields"] if f["table"] == "sentences"}
    assert set(values["gold"]) == set(LABELS)
