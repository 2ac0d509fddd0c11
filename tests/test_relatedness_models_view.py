"""The Models view of a relatedness model (SICK) by length: Pearson's r of the test pairs per length bucket in
place of accuracy by length, and its headline and scatter from the stored claims when the checkpoint has no card,
on the tiny seeded relatedness checkpoint (tests/relatedness_model.py) and the tests' own small SICK files.

What the page shows is checked against ``predict()`` on the test pairs, not against the claims code that stored it.
"""

from __future__ import annotations

import json

import numpy as np
import pytest

import disan
import disan.api
from tests.relatedness_model import write_relatedness_model
from viz_app.draw import corpus_figures as cf
from viz_app.draw import model_pages as mp

BUCKETS = [
    {"lo": 0.0, "hi": 5.0, "n": 1, "pearson_r": None, "pearson_r_ci95": [None, None], "mse": 0.25,
     "mse_ci95": [0.25, 0.25]},
    {"lo": 5.0, "hi": 10.0, "n": 40, "pearson_r": 0.8, "pearson_r_ci95": [0.7, 0.85], "mse": 0.3,
     "mse_ci95": [0.2, 0.4]},
    {"lo": 10.0, "hi": 15.0, "n": 12, "pearson_r": 0.6, "pearson_r_ci95": [0.3, 0.75], "mse": 0.5,
     "mse_ci95": [0.3, 0.7]},
]


def test_the_by_length_plot_draws_pearsons_r_with_intervals_and_leaves_a_gap_where_r_is_undefined():
    from tests.test_app import decode

    spec = json.loads(cf.relatedness_by_length_plot({"<b>disan-sick</b>": BUCKETS}, title="t",
                                                    x_title="length").to_json(validate=False))
    (trace,) = spec["data"]
    assert decode(trace["x"]) == pytest.approx([2.5, 7.5, 12.5])
    y = decode(trace["y"])
    assert np.isnan(y[0]) and y[1:] == pytest.approx([0.8, 0.6]) and trace["connectgaps"] is False
    assert decode(trace["error_y"]["array"])[1:] == pytest.approx([0.05, 0.15])
    assert decode(trace["error_y"]["arrayminus"])[1:] == pytest.approx([0.1, 0.3])
    assert spec["layout"]["yaxis"]["title"]["text"].startswith("Pearson's r")
    assert "MSE %{customdata[3]" in trace["hovertemplate"] and trace["name"] == "&lt;b&gt;disan-sick&lt;/b&gt;"
    assert [row[3] for row in trace["customdata"]] == pytest.approx([0.25, 0.3, 0.5])
    mse = json.loads(cf.relatedness_by_length_plot({"m": BUCKETS}, measure="mse").to_json(validate=False))
    assert decode(mse["data"][0]["y"]) == pytest.approx([0.25, 0.3, 0.5])
    assert mse["layout"]["yaxis"]["title"]["text"].startswith("mean squared error")
    with pytest.raises(ValueError, match="draws one of pearson_r, mse, not 'accuracy'"):
        cf.relatedness_by_length_plot({"m": BUCKETS}, measure="accuracy")


def test_stored_claims_give_the_three_measures_with_their_intervals():
    rows = [("pearson_r", 0.5, 0.4, 0.6), ("spearman_rho", 0.4, 0.25, 0.5), ("mse", 1.2, 1.1, 1.3)]
    block = {m: {"value": v, "ci95": [lo, hi], "n": 16} for m, v, lo, hi in rows}
    scores = mp.claims_relatedness({"relatedness": block})
    assert [(s.measure, s.value, s.lo, s.hi, s.n, s.source) for s in scores] == [
        (*row, 16, "stored claims results") for row in rows]
    assert mp.claims_relatedness({"accuracy": {"value": 0.9}}) is None and mp.claims_relatedness(None) is None
    undefined = {**block, "pearson_r": {"value": None, "ci95": [None, None], "n": 16}}
    assert mp.claims_relatedness({"relatedness": undefined}) is None


@pytest.fixture()
def app_sick(tmp_path, monkeypatch):
    """A pretrained/ folder with the tiny disan-sick (no card) and its claims as `claims --write` stores them, the
    app reading it; returns (folder, test pairs)."""
    from disan.__main__ import main
    from disan.config import ARCHS
    from disan.data import load_task
    from tests.task_files import write_task_data
    from viz_app.shell import loaders

    folder = tmp_path / "pretrained"
    write_relatedness_model(folder, "disan")
    data = write_task_data(tmp_path / "data")
    monkeypatch.setattr(disan.api, "PRETRAINED_DIR", folder)
    monkeypatch.setattr(disan, "available", lambda *a: ["disan-sick", *ARCHS])
    assert main(["claims", "--model", str(folder / "disan-sick.safetensors"), "--data-dir", str(data), "--write",
                 "--no-progress"]) == 0
    caches = (loaders.load_model, loaders.model_config)
    for cache in caches:
        cache.clear()
    yield folder, load_task("sick", "test", data)
    for cache in caches:
        cache.clear()


def test_the_models_view_shows_pearsons_r_by_length_and_the_scatter_of_a_relatedness_model(app_sick):
    from tests.test_app import assert_clean, chart_by_key, decode, plain, run_app

    folder, test = app_sick
    model = disan.load(str(folder / "disan-sick.safetensors"), device="cpu")
    predicted = np.asarray(model.predict([(e.text, e.hypothesis) for e in test]))  # the public path
    gold = np.asarray([e.score for e in test])
    lengths = np.array([(len(disan.tokenize(e.text)) + len(disan.tokenize(e.hypothesis))) / 2 for e in test])
    at = run_app(view="models", model="disan-sick")
    assert_clean(at)
    metrics = {m.label: m.value for m in at.metric}
    assert "Test accuracy" not in metrics
    assert metrics["Test Pearson's r"] == f"{np.corrcoef(gold, predicted)[0, 1]:.4f}"
    (trace,) = chart_by_key(at, "mdl_length")["data"]
    lows = np.floor(lengths / 5) * 5
    expected = []
    for lo in np.unique(lows):
        g, p = gold[lows == lo], predicted[lows == lo]
        expected.append(np.corrcoef(g, p)[0, 1] if len(g) > 1 and np.std(p) > 0 and np.std(g) > 0 else np.nan)
    assert decode(trace["x"]) == pytest.approx(np.unique(lows) + 2.5)
    assert decode(trace["y"]) == pytest.approx(expected, abs=1e-4, nan_ok=True)
    assert np.isfinite(expected).any()  # at least one bucket has a defined r, so the check is not vacuous
    (scatter,) = chart_by_key(at, "mdl_scatter")["data"]
    assert decode(scatter["x"]) == pytest.approx(gold) and decode(scatter["y"]) == pytest.approx(predicted, abs=1e-5)
    captions = " ".join(plain(c.value) for c in at.caption)
    assert "Pearson's r of gold against predicted relatedness over the test pairs of each length bucket" in captions
    assert "from the stored claims results" in captions
    assert not any("Accuracy by length" in plain(i.value) for i in at.info)


def test_without_stored_claims_the_view_says_how_to_compute_pearsons_r_by_length(tmp_path, monkeypatch):
    from tests.test_app import assert_clean, plain, run_app
    from viz_app.shell import loaders

    folder = tmp_path / "pretrained"
    write_relatedness_model(folder, "disan")
    card_json = {"name": "disan-sick", "train": {"model_config": {"relatedness": True, "arch": "disan"}}}
    (folder / "disan-sick.json").write_text(json.dumps(card_json))
    monkeypatch.setattr(disan.api, "PRETRAINED_DIR", folder)
    monkeypatch.setattr(disan, "available", lambda *a: ["disan-sick"])
    loaders.load_model.clear()
    loaders.model_config.clear()
    at = run_app(view="models", model="disan-sick")
    assert_clean(at)
    infos = " ".join(plain(i.value) for i in at.info)
    assert "Pearson's r by length comes from the stored claims" in infos and "Accuracy by length" not in infos
