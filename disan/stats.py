"""Summary statistics of attention maps, and bootstrap intervals, so a difference can be read as a number."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
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


#: Bootstrap replicates and seed used for every stored interval (deterministic results files).
N_BOOT = 2000
BOOT_SEED = 0


def bootstrap_ci(
    values,
    stat_fn: Callable[..., float] = np.mean,
    n_boot: int = N_BOOT,
    seed: int = BOOT_SEED,
    level: float = 0.95,
) -> tuple[float, float]:
    """Percentile bootstrap interval of ``stat_fn`` over resampled units (sentences).

    ``values``: a 1-D array of per-unit values, or a tuple of equally long arrays
    resampled together (``stat_fn`` then gets one argument per array). Returns
    (lo, hi); (nan, nan) when there are no units.
    """
    arrays = tuple(np.asarray(a) for a in (values if isinstance(values, tuple) else (values,)))
    n = len(arrays[0])
    if any(len(a) != n for a in arrays):
        raise ValueError(f"bootstrap_ci needs arrays of one length, got {[len(a) for a in arrays]}.")
    if n == 0:
        return float("nan"), float("nan")
    rng = np.random.default_rng(seed)
    reps = np.empty(n_boot)
    for b in range(n_boot):
        idx = rng.integers(0, n, n)  # (n,) one resample of the units
        reps[b] = stat_fn(*(a[idx] for a in arrays))
    reps = reps[np.isfinite(reps)]
    if reps.size == 0:
        return float("nan"), float("nan")
    tail = (1 - level) / 2 * 100
    lo, hi = np.percentile(reps, [tail, 100 - tail])
    return float(lo), float(hi)


def paired_bootstrap_diff(
    correct_a, correct_b, n_boot: int = N_BOOT, seed: int = BOOT_SEED, level: float = 0.95
) -> tuple[float, float, float]:
    """Accuracy of A minus accuracy of B on the same examples, with a paired bootstrap interval.

    correct_a, correct_b: (n,) 0/1 per example, in the same order. Resampling
    examples (not models) keeps the pairing, so the interval reflects only
    which examples were drawn. Returns (diff, lo, hi).
    """
    a = np.asarray(correct_a, dtype=float)
    b = np.asarray(correct_b, dtype=float)
    if a.shape != b.shape or a.ndim != 1:
        raise ValueError(f"paired_bootstrap_diff needs two (n,) arrays of one length, got {a.shape} and {b.shape}.")
    if a.size == 0:
        return float("nan"), float("nan"), float("nan")
    lo, hi = bootstrap_ci(a - b, np.mean, n_boot, seed, level)
    return float((a - b).mean()), lo, hi


def verdict(value: float, lo: float, hi: float, no_effect: float, direction: int) -> str:
    """``supported`` when the interval lies on the claimed side of ``no_effect`` (direction +1: above,
    −1: below), ``contradicted`` when it lies on the other side, else ``inconclusive``."""
    if not (np.isfinite(value) and np.isfinite(lo) and np.isfinite(hi)) or lo <= no_effect <= hi:
        return "inconclusive"
    return "supported" if (value - no_effect) * direction > 0 else "contradicted"
