"""scripts/recipe_decisions.py compares two runs on dev over the steps both reached."""

import importlib.util
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
spec = importlib.util.spec_from_file_location("recipe_decisions", ROOT / "scripts" / "recipe_decisions.py")
rd = importlib.util.module_from_spec(spec)
sys.modules["recipe_decisions"] = rd  # dataclasses look their module up
spec.loader.exec_module(rd)


def _curve(*pairs):
    return [{"global_step": s, "dev_acc": a} for s, a in pairs]


def test_compare_only_counts_evaluations_both_runs_reached():
    ours = _curve((100, 0.50), (200, 0.60), (300, 0.70))  # its 0.70 comes after the other run stopped
    authors = _curve((100, 0.55), (200, 0.62))
    r = rd.compare(ours, authors)
    assert (r["steps_compared"], r["ours_dev"], r["authors_dev"], r["choice"]) == (200, 0.60, 0.62, "authors")


def test_ours_wins_only_when_strictly_better_on_dev():
    assert rd.compare(_curve((10, 0.7)), _curve((10, 0.6)))["choice"] == "ours"
    assert rd.compare(_curve((10, 0.6)), _curve((10, 0.6)))["choice"] == "authors"


def test_decide_reads_the_run_logs_and_says_what_is_missing(tmp_path):
    point = rd.POINTS[0]
    for name, accs in ((point.ours, (0.40, 0.45)), (point.authors, (0.41, 0.44))):
        lines = [json.dumps({"global_step": 1000 * (i + 1), "dev_acc": a}) for i, a in enumerate(accs)]
        (tmp_path / f"{name}.log.jsonl").write_text("\n".join(lines) + "\n")
    rows = {r["id"]: r for r in rd.decide(tmp_path)}
    assert rows[point.id]["choice"] == "ours" and rows[point.id]["steps_compared"] == 2000
    assert rows["dsa-bias"]["choice"] is None and "missing" in rows["dsa-bias"]["missing"]
    lines = rd.card_lines(list(rows.values()), point.models[0])
    assert len(lines) == 1 and "our way" in lines[0] and "45.00%" in lines[0] and "44.00%" in lines[0]
    assert "not measured yet" in rd.markdown(list(rows.values()))
    assert rows[point.id]["final"] is False and "interim" in rd.markdown(list(rows.values()))


def test_unk_decision_is_kept_once_the_measured_models_carry_the_zero_row(tmp_path, tiny_glove, monkeypatch):
    """Re-running the decisions after publishing must not compare a zeroed row with itself."""
    from disan import checkpoint
    from tests.conftest import make_tiny

    zeroed, trainable = tmp_path / "zeroed.safetensors", tmp_path / "trainable.safetensors"
    checkpoint.save(make_tiny("disan", tiny_glove, unk_zero=True), zeroed, manifest=False)
    checkpoint.save(make_tiny("disan", tiny_glove), trainable, manifest=False)
    assert rd.measurable_unk_models([str(zeroed), str(trainable)]) == [str(trainable)]
    stored = {"id": "unk", "choice": "authors", "ours_dev": 0.4280, "authors_dev": 0.4285}
    monkeypatch.setattr(rd, "OUT", tmp_path / "recipe.json")
    rd.OUT.write_text(json.dumps([stored, {"id": "dsa-bias", "choice": "ours"}]))
    rows = rd.decide(tmp_path / "no-runs", [str(zeroed)])
    assert rows[0] == stored and [r["id"] for r in rows[1:]] == [p.id for p in rd.POINTS]
    assert rd.decide(tmp_path / "no-runs", [str(zeroed), str(trainable)])[0] == stored  # no partial re-measurement
    rd.OUT.unlink()
    assert [r["id"] for r in rd.decide(tmp_path / "no-runs", [str(zeroed)])] == [p.id for p in rd.POINTS]


def test_a_comparison_is_final_once_a_finished_run_is_reached_by_the_other(tmp_path):
    names = ("a", "b")
    for name, steps in (("a", (100, 200)), ("b", (100, 200, 300))):
        lines = [json.dumps({"global_step": s, "dev_acc": 0.5}) for s in steps]
        (tmp_path / f"{name}.log.jsonl").write_text("\n".join(lines) + "\n")
    assert not rd.settled(tmp_path, names, 200)  # neither has finished: the shorter one may go on
    (tmp_path / "b.train.json").write_text(json.dumps({"total_steps": 300}))
    assert not rd.settled(tmp_path, names, 200)  # b finished later than a has reached
    (tmp_path / "a.train.json").write_text(json.dumps({"total_steps": 200}))
    assert rd.settled(tmp_path, names, 200)


def test_training_with_unk_zero_equals_zeroing_the_row_afterwards(tmp_path):
    """Why the <unk> point needs no second run: <unk> never occurs in training, so only its row differs."""
    import numpy as np
    import torch

    from disan.train import TrainConfig, train
    from tests.fixture_data import fixture_data_dir

    words = ["the", "movie", "is", "good", "bad", "a", "great", "awful", "film", ".", ",", "not", "and", "it", "'s"]
    rng = np.random.default_rng(0)
    glove = tmp_path / "vectors.8d.txt"
    glove.write_text("".join(f"{w} {' '.join(f'{v:.4f}' for v in rng.standard_normal(8))}\n" for w in words))
    states = {}
    for unk_zero in (False, True):
        cfg = TrainConfig(model="disan", task="sst5", out=str(tmp_path / f"u{unk_zero}" / "m"),
                          data_dir=str(fixture_data_dir()), glove=str(glove), d_h=10, batch_size=4,
                          optimizer="adam", lr=1e-2, weight_decay=1e-3, epochs=2, threads=1, unk_zero=unk_zero)
        train(cfg)
        states[unk_zero] = torch.load(Path(cfg.out).with_suffix(".state.pt"), weights_only=True)["model"]
    plain, zero = states[False], states[True]
    assert plain.keys() == zero.keys()
    for key in plain:
        if key == "embedding.weight":
            assert torch.equal(plain[key][2:], zero[key][2:]) and torch.equal(plain[key][0], zero[key][0])
            assert not zero[key][1].any() and plain[key][1].any()  # only the <unk> row differs
        else:
            assert torch.equal(plain[key], zero[key]), key


def test_published_cards_state_the_recipe_decisions_as_stored():
    """Each card's recipe lines are docs/recipe.json's, so a later decision cannot leave a card behind."""
    decisions = ROOT / "docs" / "recipe.json"
    cards = sorted((ROOT / "pretrained").glob("*.card.md"))
    if not decisions.exists() or not cards:
        import pytest

        pytest.skip("no recipe decisions or no published card")
    rows = json.loads(decisions.read_text())
    for md in cards:
        card = json.loads(md.with_name(md.name.replace(".card.md", ".json")).read_text())
        assert card.get("recipe") == rd.card_lines(rows, card["name"]), (
            f"{card['name']}: run python scripts/publish_pretrained.py --text-only {card['name']}")
