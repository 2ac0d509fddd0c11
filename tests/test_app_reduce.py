"""Reductions (viz_app/draw/reduce.py) and paper-claim verdicts (viz_app/draw/claims.py) on literal data and a random DSA."""

from __future__ import annotations

import numpy as np
import pytest

import disan
from viz_app.draw import claims
from viz_app.draw.records import trace_view
from viz_app.draw.reduce import block_mean, feature_entropy, received_attention, reweight_alpha, uniform_distance


def test_feature_entropy_is_one_for_equal_features_and_zero_for_one_feature():
    probs = np.zeros((2, 2, 4))
    probs[0, 1] = 0.25
    probs[1, 0, 2] = 1.0
    ent = feature_entropy(probs)
    assert ent[0, 1] == pytest.approx(1.0)
    assert ent[1, 0] == pytest.approx(0.0)
    assert np.isnan(ent[0, 0])


def test_received_attention_is_one_under_uniform_attention():
    allowed = np.tril(np.ones((4, 4), bool), -1)
    probs = np.where(allowed, 1.0 / np.maximum(allowed.sum(-1, keepdims=True), 1), 0.0)
    rec = received_attention(probs, allowed)
    np.testing.assert_allclose(rec[:3], 1.0)
    assert np.isnan(rec[3])


def test_uniform_distance_of_forward_mask():
    allowed = np.tril(np.ones((3, 3), bool), -1)
    assert uniform_distance(allowed) == pytest.approx((1 + 1.5) / 2)


def test_block_mean_averages_blocks():
    m = np.arange(16.0).reshape(4, 4)
    pooled, block = block_mean(m, 2)
    assert block == 2
    np.testing.assert_allclose(pooled, [[2.5, 4.5], [10.5, 12.5]])


@pytest.fixture(scope="module")
def dsa():
    return disan.load("dsa", device="cpu")


def test_reweighting_cached_scores_matches_a_full_pass_at_that_alpha(dsa):
    text = "a lady stands outside of a mexican market ."
    base = trace_view(dsa.trace(text)).premise
    for alpha in (0.0, 3.0):
        full = trace_view(dsa.trace(text, alpha=alpha)).premise
        for d in ("fw", "bw"):
            got = reweight_alpha(base.block(d).scores, base.block(d).allowed, alpha)
            np.testing.assert_allclose(got, full.block(d).heads, atol=1e-5)


def test_reweighting_changes_the_maps(dsa):
    base = trace_view(dsa.trace("one two three four five")).premise
    a = reweight_alpha(base.fw.scores, base.fw.allowed, 0.0)
    b = reweight_alpha(base.fw.scores, base.fw.allowed, 5.0)
    assert not np.allclose(a, b)


def test_gate_verdicts_follow_the_data():
    tokens = ["the", "dog", "of", "market"]
    small_stops = claims.gate_by_word_type(np.array([0.1, 0.9, 0.1, 0.9]), tokens, True, "Shen")
    large_stops = claims.gate_by_word_type(np.array([0.1, 0.9, 0.1, 0.9]), tokens, False, "Im")
    tie = claims.gate_by_word_type(np.array([0.5, 0.5, 0.5, 0.5]), tokens, True, "Shen")
    assert small_stops.shown is True and large_stops.shown is False
    # a gap under MIN_RELATIVE_GAP cannot be called on one sentence, whichever way it goes (it read "not shown")
    small_gap = claims.gate_by_word_type(np.array([0.49, 0.51, 0.49, 0.51]), tokens, True, "Shen")
    assert tie.shown is None and small_gap.shown is None and "too small to call" in small_gap.evidence
    assert "0.100" in small_stops.evidence and "0.900" in small_stops.evidence


def test_distance_and_context_verdicts():
    near = {"mean_distance": 1.0, "entropy": 0.5}
    far = {"mean_distance": 5.0, "entropy": 2.0}
    assert claims.distance_effect(near, far).shown is True
    assert claims.distance_effect(far, near).shown is False
    v = np.arange(10.0)
    assert claims.context_vectors_differ(v, v, "glass").shown is False
    assert claims.context_vectors_differ(v, v[::-1], "glass").shown is True
    assert claims.pooling_agreement(v, v).shown is True
    assert claims.context_vectors_differ(np.ones(3), np.ones(3), "x").shown is None
