"""``viz_app.draw.figure_json``: the app's figure JSON parses to what plotly's own encoder writes."""

import json
import math

import numpy as np
import plotly.io
import pytest

from viz_app.draw import figures
from viz_app.draw.figure_json import figure_json


def _figures():
    rng = np.random.default_rng(0)
    tokens = ["a", "<b>", "a", "ünï", "'q'", "x"]
    T = len(tokens)
    masked = rng.random((T, T))
    masked[np.triu_indices(T)] = np.nan  # masked cells: NaN in z
    return {
        "grid": figures.heatmap_grid([masked, rng.random((T, T))], ["fw", "bw"], tokens, title="t"),
        "heads": figures.small_multiples(rng.random((8, T, T)), tokens, [f"h{i}" for i in range(8)], title="heads"),
        "bars": figures.bar_chart({"F": rng.random(T)}, tokens, title="gate", y_range=(0, 1)),
        "compare": figures.compare_heatmaps(rng.random((T, T)), rng.random((T, T)), tokens),
    }


@pytest.mark.parametrize("name", ["grid", "heads", "bars", "compare"])
def test_parses_equal_to_plotly_encoder(name):
    spec = _figures()[name].to_plotly_json()
    ours = json.loads(figure_json(spec))
    assert ours == json.loads(plotly.io.json.to_json_plotly(spec, engine="json"))
    assert "customdata" not in ours["data"][0] or isinstance(ours["data"][0]["customdata"], list)


def test_numpy_values_nan_and_inf():
    spec = {"data": [{"x": np.array([1.5, np.nan]), "c": np.array([["a", "b"]], dtype=object),
                      "i": np.int64(3), "f": np.float64(0.25), "s": np.array([2.0, 4.0])[::2]}],
            "layout": {"v": math.inf, "w": -math.inf, "n": math.nan}}
    out = json.loads(figure_json(spec))
    assert out == {"data": [{"x": [1.5, None], "c": [["a", "b"]], "i": 3, "f": 0.25, "s": [2.0]}],
                   "layout": {"v": None, "w": None, "n": None}}


def test_unknown_type_names_it():
    with pytest.raises(TypeError, match="object"):
        figure_json({"x": object()})
