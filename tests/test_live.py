"""viz_app/draw/live.py: the live controls' payloads, built from small seeded traces. (A live figure is redrawn
from its own trace view by its figure function: tests/test_recompute_js.py.)"""

from __future__ import annotations

import numpy as np
import pytest

from tests.conftest import make_tiny
from viz_app.draw import live


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
