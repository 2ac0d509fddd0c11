"""Pure numpy/torch reductions of trace tensors to the matrices and vectors the views draw.

Conventions follow ``disan/masks.py``: rows = attending token, columns =
attended token; disallowed cells have probability exactly 0.
"""

from __future__ import annotations

import numpy as np


def feature_entropy(probs: np.ndarray) -> np.ndarray:
    """Per cell, the entropy of the feature profile of DiSAN's P, normalised to [0, 1].

    probs: (T, T, D) per-feature probabilities (Shen Eq. 15 after softmax).
    For cell (i, j) the D values ``P[i, j, k]`` are renormalised to sum to 1
    and ``H = −Σ_k q_k log q_k / log D``. 1 = every feature attends equally to
    this key; near 0 = a few features carry the attention. Cells with no
    probability (masked) are NaN.
    """
    total = probs.sum(-1, keepdims=True)  # (T, T, 1)
    q = np.divide(probs, total, out=np.zeros_like(probs), where=total > 0)  # (T, T, D)
    logs = np.log(q, out=np.zeros_like(q), where=q > 0)
    ent = -(q * logs).sum(-1) / np.log(max(probs.shape[-1], 2))  # (T, T)
    return np.where(total[..., 0] > 0, ent, np.nan).astype(np.float32)


def reweight_alpha(scores: np.ndarray, allowed: np.ndarray, alpha: float) -> np.ndarray:
    """Im Eq. 7 for another α from cached pre-mask scores, without an encoder pass.

    scores: (H, T, T) ``QK^T/√d_k``; allowed: (T, T) bool. Returns (H, T, T),
    exactly what the model's own attention gives at this α
    (``disan.attention.reweight_distance``).
    """
    import torch  # here, not at the top: the app's first page draws from numpy alone (issue 19's cold start)

    from disan.attention import reweight_distance

    s = torch.from_numpy(np.ascontiguousarray(scores, dtype=np.float32))  # (H, T, T)
    ok = torch.from_numpy(np.asarray(allowed, dtype=bool))  # (T, T)
    return reweight_distance(s, ok, alpha).numpy()


def received_attention(probs: np.ndarray, allowed: np.ndarray) -> np.ndarray:
    """How much attention each token receives, relative to uniform attention.

    For column j: the mean over rows i that may attend j of ``P[i, j]·n_i``,
    where n_i is the number of keys row i may attend (so 1 = what a uniform
    row would give). Columns no row may attend are NaN. probs, allowed: (T, T).
    """
    n = allowed.sum(-1, keepdims=True)  # (T, 1)
    rel = np.where(allowed, probs * n, 0.0)  # (T, T)
    count = allowed.sum(0)  # (T,)
    return np.divide(rel.sum(0), count, out=np.full(count.shape, np.nan), where=count > 0)


def uniform_distance(allowed: np.ndarray) -> float:
    """Mean |i − j| that uniform attention over the allowed keys would give (rows with keys only)."""
    T = allowed.shape[-1]
    idx = np.arange(T)
    dist = np.abs(idx[:, None] - idx[None, :])  # (T, T)
    n = allowed.sum(-1)
    live = n > 0
    if not live.any():
        return 0.0
    return float(((dist * allowed).sum(-1)[live] / n[live]).mean())


def block_mean(matrix: np.ndarray, max_cells: int) -> tuple[np.ndarray, int]:
    """Average (…, T, T) over square blocks so each side has at most ``max_cells``; returns (pooled, block)."""
    T = matrix.shape[-1]
    block = -(-T // max_cells)  # ceil
    if block <= 1:
        return matrix, 1
    n = -(-T // block)
    pad = n * block - T
    padded = np.pad(
        matrix.astype(np.float64), [(0, 0)] * (matrix.ndim - 2) + [(0, pad), (0, pad)], constant_values=np.nan
    )
    shape = matrix.shape[:-2] + (n, block, n, block)
    return np.nanmean(padded.reshape(shape), axis=(-3, -1)), block


def pearson(a: np.ndarray, b: np.ndarray) -> float:
    """Pearson correlation of two vectors (NaN pairs dropped); NaN when either is constant."""
    a, b = np.asarray(a, float).ravel(), np.asarray(b, float).ravel()
    keep = np.isfinite(a) & np.isfinite(b)
    a, b = a[keep], b[keep]
    if a.size < 2 or a.std() == 0 or b.std() == 0:
        return float("nan")
    return float(np.corrcoef(a, b)[0, 1])


def head_divergence(heads: np.ndarray, allowed: np.ndarray) -> float:
    """Mean pairwise total-variation distance between heads' rows (Im Figs. 12–13: heads differ).

    heads: (H, T, T); allowed: (T, T). 0 = identical heads, 1 = disjoint.
    """
    live = allowed.any(-1)
    H = heads.shape[0]
    if H < 2 or not live.any():
        return 0.0
    dists = [0.5 * np.abs(heads[a][live] - heads[b][live]).sum(-1).mean() for a in range(H) for b in range(a + 1, H)]
    return float(np.mean(dists))
