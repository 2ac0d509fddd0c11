"""``viz_app.draw.figure_json``: the app's figure JSON parses to what plotly's own encoder writes."""

import base64
import json
import math

import numpy as np
import plotly.graph_objects as go
import plotly.io
import pytest

from viz_app.draw import corpus_figures as cf
from viz_app.draw import figures
from viz_app.draw.figure_json import figure_json, figure_spec
from viz_app.draw.theme import NORMAL, PRESENTATION


def _figures():
    """Figures Python still builds (the corpus figures) and hand-written ones holding every kind of value the
    JSON must carry: NaN and ±inf in numeric arrays, object arrays of hover labels, float32/int/bool arrays."""
    rng = np.random.default_rng(0)
    tokens = ["a", "<b>", "a", "ünï", "'q'", "x"]
    T = len(tokens)
    masked = rng.random((T, T))
    masked[np.triu_indices(T)] = np.nan  # masked cells: NaN in z
    masked[0, 0] = -np.inf
    labels = np.empty((T, T, 2), dtype=object)  # hover labels: [row token, column token] per cell
    labels[..., 0] = np.asarray(tokens, dtype=object)[:, None]
    labels[..., 1] = np.asarray(tokens, dtype=object)[None, :]
    buckets = [{"lo": 0.0, "hi": 5.0, "n": 10, "accuracy": 0.5, "ci95": [0.2, 0.8]}]
    return {
        "heatmap": figures._figure(
            [{"type": "heatmap", "z": masked, "x": np.arange(T), "y": np.arange(T), "customdata": labels,
              "colorscale": figures._scale("Viridis"), "zmin": np.float64(0.0), "zmax": 1.0,
              "hovertemplate": "%{customdata[0]} → %{customdata[1]}: %{z:.6g}<extra></extra>"},
             {"type": "scatter", "x": np.repeat(np.arange(T), T), "y": np.tile(np.arange(T), T), "mode": "markers",
              "customdata": [[tokens[i], tokens[j], None if np.isnan(masked[i, j]) else float(masked[i, j])]
                             for i in range(T) for j in range(T)], "name": "cells"}],
            figures._layout(NORMAL, "grid <b>", 400, xaxis={"tickvals": np.arange(T), "ticktext": tokens})),
        "bars": figures._figure(
            [{"type": "bar", "x": np.arange(T, dtype=np.int32), "y": rng.random(T).astype(np.float32),
              "customdata": np.asarray(tokens, dtype=object), "selectedpoints": np.array([1, 3])},
             {"type": "bar", "x": np.arange(T), "y": np.array([True, False] * 3), "visible": np.bool_(True)}],
            figures._layout(PRESENTATION, "gate", 360, yaxis={"range": (0, 1)})),
        "validated": go.Figure(go.Heatmap(z=masked, customdata=labels, colorscale="RdBu", zmid=0.0)),
        "forest": cf.forest_plot([cf.ForestPanel("claim", [cf.ForestRow("m", -0.02, -0.03, -0.01, "supported", 100),
                                                           cf.ForestRow("<s>", 0.05, 0.04, 0.06, "contradicted", 50,
                                                                        stale=True)], 0.0)], title="t"),
        "distribution": cf.distribution_plot({"of": "tokens", "edges": [0.0, 0.5, 1.0],
                                              "groups": {"a": {"counts": [1, 3], "n": 4, "mean": 0.6}}}),
        "by_length": cf.accuracy_by_length_plot({"m": buckets}),
        "curve": cf.learning_curve([100, 200], [0.4, None], [None, 0.9]),  # None: NaN in the arrays
        "confusion": cf.confusion_matrix(["a", "<b>"], [[3, 1], [0, 0]]),
    }


@pytest.mark.parametrize("name", list(_figures()))
def test_parses_equal_to_plotly_encoder(name):
    fig = _figures()[name]
    spec = fig.to_plotly_json()
    expected = json.loads(plotly.io.json.to_json_plotly(spec, engine="json"))
    assert json.loads(figure_json(spec)) == expected
    before = plotly.io.json.to_json_plotly(fig.to_plotly_json(), engine="json")
    assert json.loads(figure_json(figure_spec(fig))) == expected  # the uncopied dicts give the same JSON …
    assert plotly.io.json.to_json_plotly(fig.to_plotly_json(), engine="json") == before  # … and stay as they were


def test_figure_spec_is_the_figure_not_a_copy():
    fig = _figures()["heatmap"]
    assert figure_spec(fig)["data"][0] is figure_spec(fig)["data"][0]
    assert isinstance(figure_spec(fig)["data"][0]["z"], np.ndarray)  # base64 comes only when written


def test_numpy_values_nan_and_inf():
    spec = {"data": [{"x": np.array([1.5, np.nan]), "c": np.array([["a", "b"]], dtype=object),
                      "i": np.int64(3), "f": np.float64(0.25), "s": np.array([2.0, 4.0])[::2],
                      "b": np.array([True, False]), "e": np.zeros(0)}],
            "layout": {"v": math.inf, "w": -math.inf, "n": math.nan}}
    out = json.loads(figure_json(spec))
    x, s = out["data"][0].pop("x"), out["data"][0].pop("s")
    assert out == {"data": [{"c": [["a", "b"]], "i": 3, "f": 0.25, "b": [True, False], "e": []}],
                   "layout": {"v": None, "w": None, "n": None}}
    assert x["dtype"] == "f8" and np.array_equal(np.frombuffer(base64.b64decode(x["bdata"])), [1.5, np.nan],
                                                  equal_nan=True)
    assert np.frombuffer(base64.b64decode(s["bdata"])).tolist() == [2.0]  # a strided view is written as its values


def test_unknown_type_names_it():
    with pytest.raises(TypeError, match="object"):
        figure_json({"x": object()})
