"""``viz_app.draw.figure_json``: the app's figure JSON parses to what plotly's own encoder writes."""

import base64
import json
import math

import numpy as np
import plotly.io
import pytest

from viz_app.draw import figures
from viz_app.draw.figure_json import figure_json, figure_spec


def _figures():
    rng = np.random.default_rng(0)
    tokens = ["a", "<b>", "a", "ünï", "'q'", "x"]
    T = len(tokens)
    masked = rng.random((T, T))
    masked[np.triu_indices(T)] = np.nan  # masked cells: NaN in z
    return {
        "grid": figures.heatmap_grid([masked, rng.random((T, T))], ["fw", "bw"], tokens, title="t"),
        "clickable": figures.heatmap_grid([rng.random((T, T))] * 2, ["fw", "bw"], tokens, clickable=True,
                                          masked=[np.tri(T, dtype=bool).T, None]),
        "heads": figures.small_multiples(rng.random((8, T, T)), tokens, [f"h{i}" for i in range(8)], title="heads"),
        "bars": figures.bar_chart({"F": rng.random(T)}, tokens, title="gate", y_range=(0, 1)),
        "compare": figures.compare_heatmaps(rng.random((T, T)), rng.random((T, T)), tokens),
        "heatmap": figures.heatmap(masked, tokens, masked=np.isnan(masked), diverging=True),
        "prediction": figures.prediction_chart({"neg": 0.25, "pos": 0.75}),
        "features": figures.token_feature_heatmap(rng.random((T, 20)), tokens),
        "vectors": figures.vector_grids([rng.random(60), rng.random(60)], ["u", "v"], cols=30),
        "masks": figures.mask_panels({"fw": np.where(np.tri(T, k=-1, dtype=bool), 0.0, -np.inf),
                                      "dist": -np.abs(np.subtract.outer(np.arange(T), np.arange(T)))}, tokens),
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
    fig = _figures()["grid"]
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
