"""viz_app/draw/live.py: payloads for the in-browser recomputation, built from small seeded traces."""

from __future__ import annotations

import json

import numpy as np
import pytest

from tests.conftest import make_tiny
from viz_app.draw import figures, live


@pytest.fixture(scope="module")
def traces(tiny_glove):
    dsa = make_tiny("dsa", tiny_glove).trace("the movie is good . the dog is bad")
    disan = make_tiny("disan", tiny_glove).trace("the movie is good . a dog")
    return dsa, disan


@pytest.mark.parametrize("dtype", ["float32", "uint16", "uint8"])
def test_encode_decode_round_trip_little_endian(dtype):
    values = np.arange(24).reshape(2, 3, 4)
    enc = live.encode(values, dtype)
    assert enc["shape"] == [2, 3, 4] and enc["dtype"] == dtype
    out = live.decode(enc)
    assert out.dtype.byteorder in ("<", "|", "=") and np.array_equal(out, values)
    if dtype == "float32":
        import base64

        assert base64.b64decode(enc["b64"])[4:8] == np.float32(1).tobytes()  # little-endian float32 of 1.0


def test_encode_refuses_unknown_dtype():
    with pytest.raises(ValueError, match="float64"):
        live.encode(np.zeros(2), "float64")


def test_quantisation_error_is_within_the_stated_bound():
    p = np.random.default_rng(1).random(100_000)
    back = live.quantise(p) * live.Q16_SCALE
    assert np.abs(back - p).max() <= live.QUANTISATION_ERROR + 1e-12
    assert live.quantise(np.array([0.0, 1.0])).tolist() == [0, 65535]  # exact ends


def test_distance_payload_holds_the_scores_and_mask_of_each_block(traces):
    dsa, _ = traces
    p = live.distance_payload(dsa.premise)
    T = len(dsa.tokens)
    assert p["kind"] == "distance" and p["T"] == T and p["tokens"] == list(dsa.tokens)
    for name in ("fw", "bw"):
        block = getattr(dsa.premise.encoder, name)
        assert np.array_equal(live.decode(p["blocks"][name]["scores"]), block.scores[0].numpy())
        assert np.array_equal(live.decode(p["blocks"][name]["allowed"]).astype(bool), block.allowed[0].numpy())
        assert p["blocks"][name]["mask"] == block.mask


def test_payload_id_changes_with_the_data(traces):
    dsa, _ = traces
    a = live.distance_payload(dsa.premise)
    assert a["id"] == live.distance_payload(dsa.premise)["id"]
    other = live.distance_payload_from_arrays(["x", "y"], {"fw": {"mask": "fw", "scores": np.zeros((1, 2, 2)),
                                                                  "allowed": np.eye(2, dtype=bool)}})
    assert other["id"] != a["id"]


def test_feature_payload_keeps_allowed_cells_feature_major(traces):
    _, disan = traces
    p = live.feature_payload(disan.premise)
    block = disan.premise.encoder.bw
    allowed = block.allowed[0].numpy()
    stored = live.decode(p["blocks"]["bw"]["features"])  # (D, N)
    assert stored.shape == (block.probs.shape[-1], int(allowed.sum()))
    probs = block.probs[0].numpy()  # (T, T, D)
    k = 3
    rebuilt = np.zeros(allowed.shape)
    rebuilt[allowed] = stored[k] * p["blocks"]["bw"]["features"]["scale"]
    assert np.abs(rebuilt - probs[..., k]).max() <= live.QUANTISATION_ERROR
    assert (rebuilt[~allowed] == 0).all()


def test_feature_payload_refuses_long_sentences():
    tokens = [f"w{i}" for i in range(live.FEATURE_MAX_TOKENS + 1)]
    T = len(tokens)
    with pytest.raises(ValueError, match="server path"):
        live.feature_payload_from_arrays(tokens, {"fw": {"mask": "fw", "probs": np.zeros((T, T, 2)),
                                                         "allowed": np.ones((T, T), bool)}})


def test_payload_refuses_the_wrong_architecture(traces):
    dsa, disan = traces
    with pytest.raises(ValueError, match="DSA"):
        live.distance_payload(disan.premise)
    with pytest.raises(ValueError, match="DiSAN"):
        live.feature_payload(dsa.premise)


def test_bindings_find_panels_and_templates():
    z = np.eye(3)
    fig = figures.heatmap_grid([z, z], ["A: α = 1.5", "B"], ["a", "b", "c"], title="at α = 1.5", clickable=True,
                               value_name="P[k=2]")
    assert live.panel_traces(fig) == [0, 2] and live.click_traces(fig) == [1, 3]
    texts = live.templates(fig, {"α = 1.5": "α = {alpha}", "P[k=2]": "P[k={feature}]"})
    assert texts["layout.title.text"] == "at α = {alpha}"
    assert texts["layout.annotations.0.text"] == "A: α = {alpha}"
    assert "P[k={feature}]" in texts["data.1.hovertemplate"]
    masks = figures.mask_panels({"M": np.array([[0.0, -np.inf], [0.0, 0.0]]), "D": -np.ones((2, 2))}, ["a", "b"])
    assert live.panel_traces(masks) == [0, 2]  # the −∞ overlay of panel 0 is skipped


def _grid(stack, tokens, alpha, names=("forward", "backward")):
    fig = figures.heatmap_grid([stack[0], stack[1]], list(names), tokens, title=f"Head-averaged at α = {alpha:g}")
    shown = {f"α = {live.format_value(alpha)}": "α = {alpha}"}
    return fig.to_plotly_json(), live.grid_binding(fig, [{"op": "mean", "dir": "fw"}, {"op": "mean", "dir": "bw"}], shown)


def test_static_key_ignores_what_the_page_recomputes_and_nothing_else():
    rng = np.random.default_rng(0)
    tokens = ["the", "dog", "ran", "home"]
    a = rng.random((2, 4, 4))
    b = rng.random((2, 4, 4)) * 3  # other maps, other colour limits, another α in the title
    key = live.static_key(*_grid(a, tokens, 1.5))
    assert live.static_key(*_grid(b, tokens, 2.5)) == key
    assert live.static_key(*_grid(a, ["the", "cat", "ran", "home"], 1.5)) != key  # a tick label changed
    assert live.static_key(*_grid(a, tokens, 1.5, names=("forward", "other"))) != key  # a panel title changed
    spec, binding = _grid(a, tokens, 1.5)
    before = json.dumps(spec, default=str)
    assert live.static_key(spec, {**binding, "panels": binding["panels"][:1]}) != key  # another binding
    assert json.dumps(spec, default=str) == before  # the spec the page is sent is left as it was


def test_static_key_of_the_uncopied_figure_equals_that_of_its_copy():
    from viz_app.draw.figure_json import figure_spec

    rng = np.random.default_rng(1)
    fig = figures.heatmap_grid([rng.random((4, 4)), rng.random((4, 4))], ["forward", "backward"], list("abcd"),
                               title="at α = 1.5", clickable=True)
    binding = live.grid_binding(fig, [{"op": "mean", "dir": "fw"}, {"op": "mean", "dir": "bw"}],
                                {"α = 1.5": "α = {alpha}"}, hover=True)
    copied = fig.to_plotly_json()
    before = fig.to_json()
    assert live.static_key(figure_spec(fig), binding) == live.static_key(copied, binding)
    assert fig.to_json() == before  # static_key left the figure's own dicts as they were
