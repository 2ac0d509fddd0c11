"""The Models view, the static site's picker line and the model-page figures for a relatedness model (SICK,
several seeds) and a cross-validated model (CR, ten folds), on tiny models published by
scripts/publish_pretrained.py into a folder of the test's own (tests/test_publish_runs.py's tiny real runs).

The per-pair scores the card stores are checked against the public ``predict()``, not against the evaluation
code that wrote them.
"""

from __future__ import annotations

import json

import numpy as np
import plotly.graph_objects as go
import pytest

import disan
import disan.api
from disan.api import load
from disan.config import ARCHS
from disan.data import load_task
from disan.evaluate import pack_scores, unpack_scores
from disan.paper_tables import LABELS
from tests.test_app import assert_clean, chart_by_key, decode, plain, run_app
from tests.test_app_evidence import check_multi_run_page
from tests.test_publish_runs import SICK_DEV, pp, runs  # noqa: F401 - runs: the shared fixture
from viz_app.draw import corpus_figures as cf
from viz_app.draw import model_pages as mp
from viz_app.draw import site
from viz_app.shell import loaders

pytestmark = pytest.mark.slow

SITE_META = {"arch": "disan", "masks": ["fw", "bw"], "alpha": None}


@pytest.fixture(scope="module")
def published(runs, tmp_path_factory):
    """pretrained/ holding disan-sick (3 seeds; seed 1 ships) and disan-cr (10 folds; fold 3 ships), published
    from the runs test_publish_runs trains (once per session)."""
    folder, data, sick, cr = runs
    out = tmp_path_factory.mktemp("models") / "pretrained"
    with pytest.MonkeyPatch.context() as mp_:
        mp_.setattr(pp, "PRETRAINED_DIR", out)
        assert pp.main(["--runs", str(folder), "disan-sick=" + ",".join(sick), "disan-cr=" + ",".join(cr)]) == 0
    return out, data


def card(published, name: str) -> dict:
    return json.loads((published[0] / f"{name}.json").read_text())


@pytest.fixture()
def app_on(published, monkeypatch):
    """The app reading its checkpoints, cards and claims from the published folder."""
    folder = published[0]
    monkeypatch.setattr(disan.api, "PRETRAINED_DIR", folder)
    monkeypatch.setattr(disan, "available", lambda *a: ["disan-cr", "disan-sick", *ARCHS])
    loaders.load_model.clear()
    loaders.model_config.clear()
    yield folder
    loaders.load_model.clear()
    loaders.model_config.clear()


def test_the_card_stores_every_test_pairs_gold_and_predicted_score_as_predict_gives_them(published):
    folder, data = published
    report = card(published, "disan-sick")["evaluation"]["test"]
    test = load_task("sick", "test", data)
    predicted = np.asarray(load(str(folder / "disan-sick.safetensors"), device="cpu").predict(
        [(ex.text, ex.hypothesis) for ex in test]))
    gold, stored = mp.relatedness_pairs(report)
    assert report["n"] == len(test) and len(gold) == len(stored) == len(test)
    assert gold == pytest.approx([ex.score for ex in test], abs=1e-6)
    assert stored == pytest.approx(predicted, abs=1e-5)
    assert report["pearson_r"] == pytest.approx(np.corrcoef(gold, stored)[0, 1], abs=1e-5)
    with pytest.raises(ValueError, match=f"hold {len(test)} values, not the report's n = {len(test) + 1}"):
        unpack_scores(report["scores_f32"]["gold"], len(test) + 1)
    assert unpack_scores(pack_scores(np.array([1.0, 4.5])), 2).tolist() == [1.0, 4.5]


def test_relatedness_scores_carry_a_bootstrap_interval_over_the_test_pairs(published):
    report = card(published, "disan-sick")["evaluation"]["test"]
    scores = mp.test_relatedness(report)
    assert [s.measure for s in scores] == ["pearson_r", "spearman_rho", "mse"]
    for s in scores:
        assert s.value == report[s.measure] and s.n == report["n"] and s.source == "model card (per-pair scores)"
        assert s.lo < s.hi and s.lo <= s.value + 1e-6 and s.value - 1e-6 <= s.hi
    bare = {k: v for k, v in report.items() if k != "scores_f32"}
    assert [(s.lo, s.source) for s in mp.test_relatedness(bare)] == [(None, "model card")] * 3
    assert mp.test_relatedness({"n": 4, "pearson_r": 0.5}) is None and mp.relatedness_pairs(bare) is None


def test_a_relatedness_models_runs_show_pearson_spearman_and_mse_with_mean_sd_and_interval(published):
    c = card(published, "disan-sick")
    block = c["test_runs"]
    runs = mp.runs(c)
    assert runs.unit == "seed" and runs.shipped == 1 and runs.heading == "This checkpoint is one of 3 runs (seed 1)"
    assert [r["seed"] for r in runs.rows] == ["0", "1 (shipped)", "2"]
    assert [r["dev Pearson's r"] for r in runs.rows] == [f"{SICK_DEV[s]:.4f}" for s in SICK_DEV]
    for m in ("pearson_r", "spearman_rho", "mse"):
        assert [r[f"test {LABELS[m]}"] for r in runs.rows] == [f"{v:.4f}" for v in block[m]]
        st = block["stats"][m]
        assert (f"Test {LABELS[m]} over the 3 seeds: mean {st['mean']:.4f}, sd {st['sd']:.4f}, 95% interval of "
                f"the mean [{st['ci95'][0]:.4f}, {st['ci95'][1]:.4f}].") in runs.lines
    assert "test accuracy" not in runs.rows[0] and "Shen Table 4" in runs.lines[-1]
    assert "seed 1 has the highest dev Pearson's r" in runs.lines[-1]
    xs, dev, _, _ = mp.curve(c["train"])
    assert mp.dev_title(c["train"]) == "dev Pearson's r"
    assert dev == [h["dev_pearson"] for h in c["train"]["history"]] and None not in dev
    assert dict(mp.facts(c))["dev (selection)"].endswith(f"best dev Pearson's r {SICK_DEV[1]:.4f}")
    assert mp.confusion(c) is None


def test_a_fold_models_runs_show_the_folds_and_the_shipped_fold(published):
    c = card(published, "disan-cr")
    block = c["test_runs"]
    runs = mp.runs(c)
    assert runs.heading == "This checkpoint is fold 3 of a 10-fold cross-validation"
    assert [r["fold"] for r in runs.rows if r["fold"].endswith("(shipped)")] == ["3 (shipped)"]
    assert [r["test accuracy"] for r in runs.rows] == [f"{100 * a:.2f}%" for a in block["accuracy"]]
    st = block["stats"]["accuracy"]
    assert runs.lines[0] == (f"Test accuracy over the 10 folds (each fold's model on its own test fold): mean "
                             f"{100 * st['mean']:.2f}%, sd {100 * st['sd']:.2f}, 95% interval of the mean "
                             f"[{100 * st['ci95'][0]:.2f}, {100 * st['ci95'][1]:.2f}].")
    n = c["never_seen"]["n"]
    assert dict(mp.facts(c))["cross-validation"] == (
        f"fold 3 of a seeded, stratified 10-fold split (seed 13): trained on {n['train']:,}, picked on "
        f"{n['dev']:,} dev examples, never saw its {n['test']:,} test examples")
    assert "--task cr --split test --fold 3 --card" in mp.reproduce(c)[1]
    assert mp.dev_title(c["train"]) == "dev accuracy"


def test_an_older_multi_run_card_without_stats_is_summarised_from_its_values():
    block = {"unit": "seed", "accuracy": [0.9, 0.92, 0.88], "mean": 0.9, "sd": 0.02,
             "runs": [{"seed": s, "best_dev_acc": 0.9, "test_accuracy": a, "total_steps": 10, "wall_time_s": 1.0,
                       "hardware": "cpu"} for s, a in enumerate([0.9, 0.92, 0.88])],
             "shipped": {"seed": 0, "why": "seed 0 has the highest dev accuracy"}}
    runs = mp.runs({"name": "disan-trec", "test_runs": block})
    assert runs.lines[0].startswith("Test accuracy over the 3 seeds: mean 90.00%, sd 2.00, 95% interval of the mean [")
    assert [r["test accuracy"] for r in runs.rows] == ["90.00%", "92.00%", "88.00%"]


def test_the_relatedness_scatter_draws_every_pair_against_the_line_of_perfect_agreement():
    gold, predicted = [1.0, 2.5, 4.9, 3.0], [1.4, 2.2, 4.1, 3.3]
    fig = cf.relatedness_scatter(gold, predicted, title="<b>pairs</b>")
    assert json.loads(fig.to_json(validate=False)) == json.loads(go.Figure(fig.to_dict()).to_json())
    spec = json.loads(fig.to_json(validate=False))
    (trace,) = spec["data"]
    assert decode(trace["x"]) == pytest.approx(gold) and decode(trace["y"]) == pytest.approx(predicted)
    assert decode(trace["customdata"]) == pytest.approx([0, 1, 2, 3])
    (line,) = spec["layout"]["shapes"]
    assert (line["x0"], line["y0"], line["x1"], line["y1"]) == (1.0, 1.0, 5.0, 5.0)
    assert "<b>" not in spec["layout"]["title"]["text"]
    with pytest.raises(ValueError, match=r"one predicted score per gold score, got \(4,\) and \(3,\)"):
        cf.relatedness_scatter(gold, predicted[:3])
    curve = cf.learning_curve([1, 2], [0.5, 0.6], [0.9, 0.8], dev_title="dev Pearson's r").to_dict()
    assert curve["layout"]["yaxis"]["tickformat"] == ".2f" and curve["data"][0]["name"] == "dev Pearson's r"


def test_the_static_sites_picker_gives_pearson_for_sick_and_the_fold_mean_for_cr(published, monkeypatch):
    monkeypatch.setattr(disan.api, "PRETRAINED_DIR", published[0])
    sick, cr = card(published, "disan-sick"), card(published, "disan-cr")
    title, facts = site._facts("disan-sick", {**SITE_META, "pair": True})
    assert title.endswith("SICK relatedness") and "no model card" not in facts
    assert (f"test Pearson's r {sick['evaluation']['test']['pearson_r']:.4f} (the seed picked on dev; mean of 3: "
            f"{sick['test_runs']['mean']:.4f})") in facts
    title, facts = site._facts("disan-cr", {**SITE_META, "pair": False})
    block = cr["test_runs"]
    assert title.endswith("CR")
    assert (f"10-fold cross-validation accuracy {100 * block['mean']:.2f}% (mean over the folds, sd "
            f"{100 * block['sd']:.2f}); this checkpoint is fold 3, picked on dev: "
            f"{100 * block['accuracy'][3]:.2f}% on its test fold") in facts
    assert site._facts("nothing-here", {**SITE_META, "pair": False})[1].endswith("no model card; masks fw/bw")


def test_the_models_view_shows_a_relatedness_model_with_its_scatter(published, app_on):
    c = card(published, "disan-sick")
    at = run_app(view="models", model="disan-sick")
    check_multi_run_page(at, c, None)
    metrics = {m.label: m.value for m in at.metric}
    assert "Test accuracy" not in metrics
    assert metrics["Test Pearson's r"] == f"{c['evaluation']['test']['pearson_r']:.4f}"
    scores = mp.test_relatedness(c["evaluation"]["test"])
    assert metrics["95% interval"] == f"{scores[0].lo:.3f}–{scores[0].hi:.3f}"
    (trace,) = chart_by_key(at, "mdl_scatter")["data"]
    gold, predicted = mp.relatedness_pairs(c["evaluation"]["test"])
    assert decode(trace["x"]) == pytest.approx(gold) and decode(trace["y"]) == pytest.approx(predicted)
    captions = " ".join(plain(x.value) for x in at.caption)
    assert "Spearman's ρ" in captions and "bootstrap over test pairs" in captions
    assert not at.info or all("Accuracy by length" not in plain(i.value) for i in at.info)


def test_the_models_view_shows_a_fold_model_with_its_folds_and_what_it_never_saw(published, app_on):
    c = card(published, "disan-cr")
    at = run_app(view="models", model="disan-cr")
    check_multi_run_page(at, c, None)
    assert_clean(at)
    text = " ".join(plain(m.value) for m in at.markdown)
    assert "This checkpoint is fold 3 of a 10-fold cross-validation" in text
    assert c["never_seen"]["command"] in [x.value for x in at.code]
    captions = " ".join(plain(x.value) for x in at.caption)
    assert f"Test accuracy on the test part of fold 3 {100 * c['evaluation']['test']['accuracy']:.2f}%" in captions
