"""Summary statistics of attention maps, so a difference can be read as a number."""

from __future__ import annotations

import torch
from torch import Tensor


def mean_attention_distance(probs: Tensor) -> Tensor:
    """``Σ_j P[i, j]·|i − j|`` per query row; probs (..., T, T) → (..., T)."""
    T = probs.shape[-1]
    idx = torch.arange(T, dtype=probs.dtype, device=probs.device)  # (T,)
    dist = (idx[:, None] - idx[None, :]).abs()  # (T, T)
    return (probs * dist).sum(-1)  # (..., T)


def row_entropy(probs: Tensor) -> Tensor:
    """Shannon entropy in nats of each row, ``0·log 0 = 0``; (..., T) → (...)."""
    logs = torch.where(probs > 0, probs.log(), torch.zeros_like(probs))
    return -(probs * logs).sum(-1)


def summarize(probs: Tensor) -> dict[str, float]:
    """Mean attention distance and mean row entropy of a (T, T) map, over rows that attend at all."""
    live = probs.sum(-1) > 0  # (T,)
    if not bool(live.any()):
        return {"mean_distance": 0.0, "entropy": 0.0, "rows": 0}
    return {
        "mean_distance": float(mean_attention_distance(probs)[live].mean()),
        "entropy": float(row_entropy(probs)[live].mean()),
        "rows": int(live.sum()),
    }
