"""Tai, Socher & Manning 2015's relatedness module (Shen Table 4) against naive formulas."""

from __future__ import annotations

import math

import numpy as np
import pytest
import torch

from disan.heads import RelatednessHead
from disan.relatedness import expected_score, relatedness_loss, relatedness_metrics, sparse_target


def naive_target(y: float, k: int) -> list[float]:
    """Tai Sec. 4.2 written out: p_i = y − ⌊y⌋ if i = ⌊y⌋ + 1; ⌊y⌋ − y + 1 if i = ⌊y⌋; else 0 (i = 1..k)."""
    floor = math.floor(y)
    p = []
    for i in range(1, k + 1):
        if i == floor + 1:
            p.append(y - floor)
        elif i == floor:
            p.append(floor - y + 1)
        else:
            p.append(0.0)
    return p


def test_sparse_target_equals_the_papers_formula_and_its_mean_is_the_score():
    scores = [1.0, 1.3, 2.5, 3.999, 4.0, 4.6, 5.0]
    got = sparse_target(torch.tensor(scores), 5)
    for row, y in zip(got.tolist(), scores):
        assert row == pytest.approx(naive_target(y, 5), abs=1e-6)
        assert sum(row) == pytest.approx(1.0) and min(row) >= 0
        assert sum((i + 1) * p for i, p in enumerate(row)) == pytest.approx(y, abs=1e-5)


def test_expected_score_and_kl_loss_against_loops():
    torch.manual_seed(0)
    logits = torch.randn(4, 5)
    scores = torch.tensor([1.2, 3.0, 4.7, 5.0])
    probs = torch.softmax(logits, -1).tolist()
    assert expected_score(logits).tolist() == pytest.approx([sum((i + 1) * p for i, p in enumerate(r)) for r in probs])
    kl = 0.0
    for row, y in zip(probs, scores.tolist()):
        kl += sum(t * math.log(t / q) for t, q in zip(naive_target(y, 5), row) if t > 0)
    assert float(relatedness_loss(logits, scores)) == pytest.approx(kl / 4, rel=1e-5)
    perfect = torch.log(sparse_target(scores, 5).clamp(min=1e-12))
    assert float(relatedness_loss(perfect, scores)) == pytest.approx(0.0, abs=1e-6)


def test_metrics_against_hand_formulas_with_ties():
    gold = np.array([1.0, 2.0, 2.0, 3.5, 5.0])
    pred = np.array([1.5, 2.5, 1.8, 4.0, 4.0])
    m = relatedness_metrics(gold, pred)
    g, p = gold - gold.mean(), pred - pred.mean()
    assert m["pearson_r"] == pytest.approx((g * p).sum() / math.sqrt((g * g).sum() * (p * p).sum()))
    assert m["mse"] == pytest.approx(float(np.mean((gold - pred) ** 2)))
    rank_gold = np.array([1, 2.5, 2.5, 4, 5])  # the tie at 2.0 shares ranks 2 and 3
    rank_pred = np.array([1, 3, 2, 4.5, 4.5])
    a, b = rank_gold - rank_gold.mean(), rank_pred - rank_pred.mean()
    assert m["spearman_rho"] == pytest.approx((a * b).sum() / math.sqrt((a * a).sum() * (b * b).sum()))
    assert m["n"] == 5


def test_head_uses_product_and_absolute_difference_only():
    torch.manual_seed(0)
    head = RelatednessHead(6, 4, 5, dropout=0.0).eval()
    sa, sb = torch.randn(3, 6), torch.randn(3, 6)
    hidden = torch.sigmoid(sa * sb @ head.w_mul.weight.T + head.w_mul.bias + (sa - sb).abs() @ head.w_abs.weight.T)
    assert torch.allclose(head(sa, sb), hidden @ head.out.weight.T + head.out.bias, atol=1e-6)
    assert torch.allclose(head(sa, sb), head(sb, sa), atol=1e-6)  # symmetric in the two sentences
