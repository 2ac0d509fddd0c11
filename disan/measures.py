"""Batched per-sentence measures of a trace, the numbers behind each corpus claim (``claims.py``).

Every function takes padded batch tensors and returns one value per sentence
(B,) or per token (B, T); a sentence for which a measure is undefined (no
stop word, no attending row, …) gets NaN, which the statistics skip.
Conventions as in ``masks.py``: rows attend, columns are attended.
"""

from __future__ import annotations

import torch
from torch import Tensor

from .stats import mean_attention_distance, row_entropy


def group_mean(values: Tensor, mask: Tensor) -> Tensor:
    """Mean of ``values`` over the tokens in ``mask`` (and finite), per sentence; NaN when none.

    values: (B, T) float; mask: (B, T) bool → (B,).
    """
    keep = mask & torch.isfinite(values)  # (B, T)
    total = torch.where(keep, values, torch.zeros_like(values)).sum(-1)  # (B,)
    count = keep.sum(-1)  # (B,)
    return torch.where(count > 0, total / count.clamp(min=1), torch.full_like(total, float("nan")))


def received_attention(probs: Tensor, allowed: Tensor) -> Tensor:
    """Attention each token receives relative to uniform (1 = what uniform rows would give).

    For column j: the mean over rows i that may attend j of ``P[i, j]·n_i``,
    n_i = number of keys row i may attend. probs (B, T, T), allowed (B, T, T)
    bool → (B, T); columns no row may attend are NaN.
    """
    n = allowed.sum(-1, keepdim=True).to(probs.dtype)  # (B, T, 1)
    rel = torch.where(allowed, probs * n, torch.zeros_like(probs))  # (B, T, T)
    count = allowed.sum(-2)  # (B, T) rows that may attend each column
    out = rel.sum(-2) / count.clamp(min=1)  # (B, T)
    return torch.where(count > 0, out, torch.full_like(out, float("nan")))


def _live_row_mean(per_row: Tensor, live: Tensor) -> Tensor:
    """Mean over rows with at least one key; per_row, live: (B, T) → (B,)."""
    return group_mean(per_row, live)


def distance_gap(probs: Tensor, allowed: Tensor) -> Tensor:
    """Mean attention distance minus the distance uniform attention over the allowed keys gives.

    Negative = attention is nearer than uniform (Im Fig. 7). probs, allowed:
    (B, T, T) → (B,), averaged over rows that attend.
    """
    T = probs.shape[-1]
    idx = torch.arange(T, dtype=probs.dtype, device=probs.device)  # (T,)
    dist = (idx[:, None] - idx[None, :]).abs()  # (T, T)
    n = allowed.sum(-1)  # (B, T)
    live = n > 0  # (B, T)
    uniform = (dist * allowed).sum(-1) / n.clamp(min=1)  # (B, T)
    return _live_row_mean(mean_attention_distance(probs) - uniform, live)


def mean_distance(probs: Tensor, allowed: Tensor) -> Tensor:
    """Mean ``Σ_j P[i, j]·|i − j|`` over attending rows; (B, T, T) → (B,)."""
    return _live_row_mean(mean_attention_distance(probs), allowed.any(-1))


def mean_entropy(probs: Tensor, allowed: Tensor) -> Tensor:
    """Mean row entropy (nats) over attending rows; (B, T, T) → (B,)."""
    return _live_row_mean(row_entropy(probs), allowed.any(-1))


def pearson_over_tokens(a: Tensor, b: Tensor, valid: Tensor) -> Tensor:
    """Pearson r between two per-token series of each sentence; (B, T) ×2 → (B,).

    NaN when a sentence has fewer than 2 tokens or either series is constant.
    """
    m = valid.to(a.dtype)  # (B, T)
    n = m.sum(-1)  # (B,)
    mean_a = (a * m).sum(-1) / n.clamp(min=1)  # (B,)
    mean_b = (b * m).sum(-1) / n.clamp(min=1)  # (B,)
    da = (a - mean_a[:, None]) * m  # (B, T)
    db = (b - mean_b[:, None]) * m  # (B, T)
    cov = (da * db).sum(-1)  # (B,)
    var = (da * da).sum(-1) * (db * db).sum(-1)  # (B,)
    ok = (n >= 2) & (var > 1e-20)
    return torch.where(ok, cov / var.clamp(min=1e-30).sqrt(), torch.full_like(cov, float("nan")))


def head_divergence(heads: Tensor, allowed: Tensor) -> Tensor:
    """Mean pairwise total-variation distance between heads' rows (0 = identical, 1 = disjoint).

    heads: (B, H, T, T); allowed: (B, T, T) → (B,), averaged over head pairs
    and over rows that attend.
    """
    H = heads.shape[1]
    if H < 2:
        return torch.zeros(heads.shape[0], dtype=heads.dtype)
    tv = 0.5 * (heads[:, :, None] - heads[:, None, :]).abs().sum(-1)  # (B, H, H, T)
    pairs = torch.triu_indices(H, H, offset=1)  # (2, P)
    per_row = tv[:, pairs[0], pairs[1]].mean(1)  # (B, T)
    return _live_row_mean(per_row, allowed.any(-1))


def vector_pearson(a: Tensor, b: Tensor) -> Tensor:
    """Pearson r between matching rows of a and b; (N, K) ×2 → (N,), NaN for a constant row."""
    da = a - a.mean(-1, keepdim=True)  # (N, K)
    db = b - b.mean(-1, keepdim=True)  # (N, K)
    var = (da * da).sum(-1) * (db * db).sum(-1)  # (N,)
    r = (da * db).sum(-1) / var.clamp(min=1e-30).sqrt()
    return torch.where(var > 1e-20, r, torch.full_like(r, float("nan")))
