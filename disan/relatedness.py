"""Semantic relatedness as Tai, Socher & Manning 2015 (Sec. 4.2) score it, the module Shen Sec. 5.3 puts on DiSAN.

The head (``heads.RelatednessHead``) gives a distribution p̂ over the integer grades r = 1..K (K = 5 for
SICK); the predicted score is ŷ = rᵀp̂ (Tai Eq. for ŷ). Training minimises the KL divergence from the
sparse target distribution p of the gold score y to p̂ (Tai Sec. 4.2): p_{⌊y⌋+1} = y − ⌊y⌋,
p_{⌊y⌋} = ⌊y⌋ − y + 1, every other p_i = 0, so that rᵀp = y exactly.
"""

from __future__ import annotations

import numpy as np
import torch
import torch.nn.functional as F
from torch import Tensor


def sparse_target(scores: Tensor, k: int) -> Tensor:
    """Tai Sec. 4.2's target p for gold scores y in [1, k]: (B,) → (B, k), rows sum to 1 and rᵀp = y.

    y = k puts all mass on grade k (the lower grade is clamped to k − 1 with weight 0).
    """
    y = scores.to(torch.float32)  # (B,)
    lower = y.floor().clamp(1, k - 1)  # (B,)  ⌊y⌋, 1-based
    upper_weight = y - lower  # (B,)  p_{⌊y⌋+1} = y − ⌊y⌋
    target = torch.zeros(len(y), k, dtype=torch.float32, device=scores.device)  # (B, k)
    rows = torch.arange(len(y), device=scores.device)
    target[rows, lower.long() - 1] = 1.0 - upper_weight  # p_{⌊y⌋} = ⌊y⌋ − y + 1
    target[rows, lower.long()] = upper_weight
    return target


def score_name(pair: bool) -> str:
    """What a score model's ŷ = rᵀp̂ is called where a reader sees it: a pair's "relatedness score" (SICK), one
    sentence's "score" (``train --data --regression``: a rating, not the relatedness of anything)."""
    return "relatedness score" if pair else "score"


def expected_score(logits: Tensor) -> Tensor:
    """ŷ = rᵀ softmax(logits) with r = [1, …, K] (Tai Sec. 4.2): (B, K) → (B,)."""
    grades = torch.arange(1, logits.shape[-1] + 1, dtype=torch.float32, device=logits.device)  # (K,)
    return torch.softmax(logits.float(), -1) @ grades


def relatedness_loss(logits: Tensor, scores: Tensor) -> Tensor:
    """Mean over the batch of KL(p ‖ p̂) (Tai Sec. 4.2); the L2 term is the optimizer's weight decay."""
    target = sparse_target(scores, logits.shape[-1])  # (B, K)
    return F.kl_div(torch.log_softmax(logits.float(), -1), target, reduction="batchmean")


def relatedness_metrics(gold: np.ndarray, predicted: np.ndarray) -> dict:
    """Shen Table 4's measures: Pearson's r, Spearman's ρ (ties share their average rank) and MSE."""
    gold = np.asarray(gold, dtype=float)
    predicted = np.asarray(predicted, dtype=float)
    if len(gold) < 2:
        return {"n": int(len(gold)), "pearson_r": float("nan"), "spearman_rho": float("nan"), "mse": float("nan")}
    from scipy.stats import pearsonr, spearmanr  # here: loading a model (disan.model imports this file) stays light

    return {
        "n": int(len(gold)),
        "pearson_r": float(pearsonr(gold, predicted).statistic),
        "spearman_rho": float(spearmanr(gold, predicted).statistic),
        "mse": float(np.mean((gold - predicted) ** 2)),
    }


def pearson(gold: np.ndarray, predicted: np.ndarray) -> float:
    """Pearson's r of two (n,) arrays; NaN when either is constant or n < 2 (a bootstrap resample can be)."""
    if len(gold) < 2 or np.ptp(gold) == 0 or np.ptp(predicted) == 0:
        return float("nan")
    return float(np.corrcoef(gold, predicted)[0, 1])


def spearman(gold: np.ndarray, predicted: np.ndarray) -> float:
    """Spearman's ρ: Pearson's r of the ranks, ties sharing their average rank (as ``scipy.stats.spearmanr``)."""
    from scipy.stats import rankdata

    return pearson(rankdata(gold), rankdata(predicted))


def mse(gold: np.ndarray, predicted: np.ndarray) -> float:
    return float(np.mean((np.asarray(gold, dtype=float) - predicted) ** 2)) if len(gold) else float("nan")


#: Shen Table 4's measures as functions of (gold, predicted), for intervals by a bootstrap over pairs.
RELATEDNESS_MEASURES = {"pearson_r": pearson, "spearman_rho": spearman, "mse": mse}
