"""Masks against the literal matrices of Shen Eqs. 16–18 and Im Figs. 3–4 (rows = attending token)."""

import math

import torch

from disan.masks import (
    additive_mask,
    attention_allowed,
    combined_mask,
    direction_mask,
    distance_mask,
    padding_mask,
)

INF = -math.inf


def test_forward_mask_matches_im_fig3a_and_shen_eq17():
    # Im Fig. 3(a): row 1 all -inf, row 2 [0, -inf, -inf, -inf], ... (diagonal disabled).
    expected = torch.tensor(
        [
            [INF, INF, INF, INF],
            [0.0, INF, INF, INF],
            [0.0, 0.0, INF, INF],
            [0.0, 0.0, 0.0, INF],
        ]
    )
    assert torch.equal(additive_mask(direction_mask(4, "fw")), expected)


def test_backward_mask_matches_im_fig3b_and_shen_eq18():
    expected = torch.tensor(
        [
            [INF, 0.0, 0.0, 0.0],
            [INF, INF, 0.0, 0.0],
            [INF, INF, INF, 0.0],
            [INF, INF, INF, INF],
        ]
    )
    assert torch.equal(additive_mask(direction_mask(4, "bw")), expected)


def test_diag_mask_matches_shen_eq16():
    expected = torch.tensor(
        [
            [INF, 0.0, 0.0, 0.0],
            [0.0, INF, 0.0, 0.0],
            [0.0, 0.0, INF, 0.0],
            [0.0, 0.0, 0.0, INF],
        ]
    )
    assert torch.equal(additive_mask(direction_mask(4, "diag")), expected)


def test_no_mask_allows_everything():
    assert direction_mask(3, "none").all()


def test_shen_eq17_index_convention():
    # Shen: M^fw_ij = 0 iff i < j, with j the attending token. Our [query, key] = M[j, i].
    T = 5
    fw = direction_mask(T, "fw")
    for i in range(T):
        for j in range(T):
            assert bool(fw[j, i]) == (i < j)


def test_distance_mask_matches_im_fig4():
    expected = torch.tensor(
        [
            [0.0, -1.0, -2.0, -3.0, -4.0],
            [-1.0, 0.0, -1.0, -2.0, -3.0],
            [-2.0, -1.0, 0.0, -1.0, -2.0],
            [-3.0, -2.0, -1.0, 0.0, -1.0],
            [-4.0, -3.0, -2.0, -1.0, 0.0],
        ]
    )
    assert torch.equal(distance_mask(5), expected)


def test_combined_mask_is_im_eq7():
    m = combined_mask(4, "fw", alpha=1.5)
    assert m[3, 0] == -4.5 and m[3, 2] == -1.5 and m[2, 1] == -1.5
    assert m[0, 0] == INF and m[1, 2] == INF


def test_padding_and_combined_allowed():
    valid = padding_mask([3, 1], T=3)
    assert valid.tolist() == [[True, True, True], [True, False, False]]
    allowed = attention_allowed(direction_mask(3, "none"), valid)
    assert allowed.shape == (2, 3, 3)
    assert allowed[0].all()
    assert allowed[1].tolist() == [[True, False, False], [False, False, False], [False, False, False]]


def test_unknown_mask_kind_names_value():
    try:
        direction_mask(3, "sideways")
    except ValueError as err:
        assert "sideways" in str(err) and "fw" in str(err)
    else:
        raise AssertionError("no error")
