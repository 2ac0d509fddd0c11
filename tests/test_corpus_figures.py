"""Corpus figure builders (viz_app/draw/corpus_figures.py): values drawn where they belong, escaped labels, valid Plotly."""

from __future__ import annotations

import json

import numpy as np
import plotly.graph_objects as go
import pytest

from tests.test_app import decode
from viz_app.draw import corpus_figures as cf
from viz_app.draw.theme import PRESENTATION

ROWS = [cf.ForestRow("model-a", -0.02, -0.03, -0.01, "supported", 100),
        cf.ForestRow("model-b", 0.01, -0.02, 0.04, "inconclusive", 80),
        cf.ForestRow("<script>", 0.05, 0.04, 0.06, "contradicted", 50, stale=True)]
BUCKETS = [{"lo": 0.0, "hi": 5.0, "n": 10, "accuracy": 0.5, "ci95": [0.2, 0.8]},
           {"lo": 5.0, "hi": 10.0, "n": 30, "accuracy": 0.7, "ci95": [0.55, 0.85]}]
DIST = {"of": "tokens", "edges": [0.0, 0.5, 1.0],
        "groups": {"content words": {"counts": [1, 3], "n": 4, "mean": 0.6}, "stop words": {"counts": [2, 0], "n": 2,
                                                                                              "mean": 0.2}}}

BUILDERS = {
    "forest": lambda: cf.forest_plot([cf.ForestPanel("claim", ROWS, 0.0)], title="t"),
    "forest_two": lambda: cf.forest_plot([cf.ForestPanel("a", ROWS, 0.0), cf.ForestPanel("b", ROWS[:1], 0.9)],
                                         theme=PRESENTATION),
    "distribution": lambda: cf.distribution_plot(DIST, title="d", x_title="x"),
    "by_length": lambda: cf.accuracy_by_length_plot({"m": BUCKETS, "n": BUCKETS[:1]}),
    "lengths": lambda: cf.length_histogram([{"length": 3.5, "n": 4}, {"length": 4.0, "n": 6}]),
    "curve": lambda: cf.learning_curve([100, 200], [0.4, 0.5], [None, 0.9]),
    "confusion": lambda: cf.confusion_matrix(["a", "b"], [[3, 1], [0, 4]]),
}


@pytest.mark.parametrize("name", sorted(BUILDERS))
def test_builders_emit_what_plotly_validation_would_build(name):
    fig = BUILDERS[name]()
    assert json.loads(fig.to_json(validate=False)) == json.loads(go.Figure(fig.to_dict()).to_json())
    assert "<script>" not in fig.to_json(validate=False)


def test_forest_plot_draws_each_interval_and_the_no_effect_line():
    fig = BUILDERS["forest"]().to_dict()
    drawn = {}
    for t in fig["data"]:
        for y, x, lo, hi, sym in zip(t["y"], t["x"], t["error_x"]["arrayminus"], t["error_x"]["array"],
                                     t["marker"]["symbol"]):
            drawn[y] = (x - lo, x, x + hi, t["name"], sym)
    assert drawn["model-a"][:3] == pytest.approx((-0.03, -0.02, -0.01)) and drawn["model-a"][3] == "supported"
    assert drawn["&lt;script&gt; (stale)"][3:] == ("contradicted", "circle-open")
    assert fig["layout"]["shapes"][0]["x0"] == 0.0 == fig["layout"]["shapes"][0]["x1"]
    assert [t["marker"]["color"] for t in fig["data"]] == [cf.VERDICT_COLOURS[t["name"]] for t in fig["data"]]


def test_two_panels_sit_side_by_side_with_their_own_no_effect():
    fig = BUILDERS["forest_two"]().to_dict()
    d1, d2 = fig["layout"]["xaxis"]["domain"], fig["layout"]["xaxis2"]["domain"]
    assert d1[1] < d2[0]
    assert [s["x0"] for s in fig["layout"]["shapes"]] == [0.0, 0.9]


def test_accuracy_by_length_points_sit_mid_bucket_with_their_interval():
    t = BUILDERS["by_length"]().to_dict()["data"][0]
    assert list(t["x"]) == [2.5, 7.5] and list(t["y"]) == [0.5, 0.7]
    assert list(t["error_y"]["array"]) == pytest.approx([0.3, 0.15])
    assert list(t["error_y"]["arrayminus"]) == pytest.approx([0.3, 0.15])


def test_distribution_shows_shares_per_group():
    data = json.loads(BUILDERS["distribution"]().to_json(validate=False))["data"]
    assert [decode(t["y"]).tolist() for t in data] == [[0.25, 0.75], [1.0, 0.0]]
    assert "n = 4" in data[0]["name"]


def test_confusion_colour_is_the_row_share_and_text_the_count():
    t = json.loads(BUILDERS["confusion"]().to_json(validate=False))["data"][0]
    assert decode(t["z"]).tolist() == [[0.75, 0.25], [0.0, 1.0]]
    assert np.asarray(t["text"]).tolist() == [["3", "1"], ["0", "4"]]


def test_learning_curve_has_accuracy_and_loss_axes():
    fig = BUILDERS["curve"]().to_dict()
    assert [t.get("yaxis", "y") for t in fig["data"]] == ["y", "y2"]
    assert fig["layout"]["yaxis2"]["overlaying"] == "y"


def test_distance_mass_log_axis_labels_powers_of_ten_not_si_prefixes():
    """Issue 58 (newcomer walk): a DSA's prior on Search's distance plot falls to 1e-18; the log axis read
    "1f, 1p, 1n, 1μ" (Plotly's SI prefixes) for an attention mass."""
    import pandas as pd

    from viz_app.draw import search_figures as sf

    d = np.arange(1, 31)
    profile = pd.DataFrame({"block": "fw", "head": 0, "distance": d, "mass": np.exp(-1.5 * (d - 1)) * 0.3})
    fig = sf.distance_mass(profile, 1.5, PRESENTATION, "mass")
    assert fig.layout.yaxis.type == "log"
    assert fig.layout.yaxis.exponentformat == "power"
