"""Shipped checkpoints: integrity, cards, labels, and (with the real data) a fresh test evaluation."""

import json
from pathlib import Path

import pytest

import disan
from disan import checkpoint
from disan.config import NLI_LABELS
from disan.data import TASK_LABELS, data_dir, load_task
from disan.evaluate import evaluate

PRETRAINED = Path(__file__).resolve().parents[1] / "pretrained"
NAMES = sorted(p.stem for p in PRETRAINED.glob("*.safetensors"))
CARD_KEYS = ("train_examples", "dev_examples", "params_without_embeddings", "epochs_run",
             "wall_time_s", "hardware", "command", "train_config", "model_config")
#: The test measure a card records: accuracy for a classifier, Pearson's r for SICK relatedness (Shen Table 4).
MEASURE = {"best_dev_acc": "accuracy", "best_dev_pearson": "pearson_r"}

pytestmark = pytest.mark.skipif(not NAMES, reason="no checkpoint in pretrained/ yet")


def card(name):
    return json.loads((PRETRAINED / f"{name}.json").read_text())


@pytest.mark.parametrize("name", NAMES)
def test_checkpoint_is_small_hashed_and_has_a_card(name):
    path = PRETRAINED / f"{name}.safetensors"
    assert path.stat().st_size < 16 * 2**20
    manifest = json.loads((PRETRAINED / "MANIFEST.json").read_text())
    assert manifest[path.name] == checkpoint.sha256(path)
    c = card(name)
    assert all(key in c["train"] for key in CARD_KEYS)
    [dev] = [key for key in MEASURE if key in c["train"]]  # exactly one model-selection measure
    assert 0 < c["evaluation"]["test"][MEASURE[dev]] <= 1
    assert (PRETRAINED / f"{name}.card.md").read_text().startswith(f"# Model card: `{name}`")


@pytest.mark.parametrize("name", NAMES)
def test_the_card_md_is_its_json_rendered_and_names_only_its_architectures_settings(name):
    """The Markdown is ``disan.cards.render`` of the JSON (a card rendered by older code is stale); a DiSAN card
    names no heads or α, which DiSAN does not have (its cards said "disan, heads=5, alpha=1.5")."""
    from disan.cards import read_card, render

    text = (PRETRAINED / f"{name}.card.md").read_text()
    assert text == render(read_card(name)), f"pretrained/{name}.card.md is stale: re-render it from {name}.json"
    arch_line = next(line for line in text.splitlines() if line.startswith("- Architecture:"))
    dsa = card(name)["train"]["model_config"]["arch"] == "dsa"
    assert ("heads=" in arch_line and "alpha=" in arch_line) == dsa, arch_line


@pytest.mark.parametrize("name", NAMES)
def test_loads_by_name_and_predicts_named_labels(name):
    model = disan.load(name, device="cpu")
    assert not model.random_weights
    if card(name)["train"]["train_config"]["task"] == "sick":  # relatedness: predict() gives the score
        (score,) = model.predict([("A man is pouring a glass of tea .", "A man pours a drink .")])
        assert 1.0 <= score <= 5.0
        return
    if model.cfg.pair:
        (pred,) = model.predict([("A man is pouring a glass of tea .", "A man pours a drink .")])
        assert tuple(pred) == NLI_LABELS
    else:  # each single-sentence model names its own task's classes (SST-5, TREC, ...)
        (pred,) = model.predict(["a gorgeous , witty , seductive movie ."])
        assert tuple(pred) == TASK_LABELS[card(name)["train"]["train_config"]["task"]]
    assert abs(sum(pred.values()) - 1) < 1e-5


@pytest.mark.slow
@pytest.mark.data
@pytest.mark.parametrize("name", NAMES)
def test_card_matches_a_fresh_evaluation_on_the_real_test_set(name):
    config = card(name)["train"]["train_config"]
    task, fold = config["task"], config.get("fold")
    try:  # a cross-validated model (CR, SUBJ, MPQA) is scored on its own fold's test part, as its card was
        examples = load_task(task, "test", **({} if fold is None else {"fold": fold}))
    except FileNotFoundError:
        pytest.skip(f"real test data for {task} not found under {data_dir()}; set DISAN_DATA_DIR")
    report = evaluate(disan.load(name, device="cpu"), examples)
    recorded = card(name)["evaluation"]["test"]
    assert report["n"] == recorded["n"]
    measure = "pearson_r" if task == "sick" else "accuracy"
    assert abs(report[measure] - recorded[measure]) < 1e-3, (report[measure], recorded[measure])
