"""Rankings of tokens: Kendall's τ-b between two score vectors, and the top k% of a sentence.

τ-b (Kendall 1945) counts concordant minus discordant token pairs, corrected for
ties: τ_b = (C − D) / sqrt((n₀ − t_a)(n₀ − t_b)), n₀ = n(n − 1)/2 pairs, t_a and t_b the
pairs tied in one vector. It is undefined (NaN) for fewer than two tokens or a
constant vector. O(T²) per sentence, which is nothing at sentence lengths.
"""

from __future__ import annotations

import math

import numpy as np


def kendall_tau(a, b) -> float:
    """Kendall's τ-b of two equally long 1-D score vectors; NaN when undefined."""
    a, b = np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64)
    if a.shape != b.shape or a.ndim != 1:
        raise ValueError(f"kendall_tau needs two 1-D vectors of one length, got shapes {a.shape} and {b.shape}.")
    n = a.size
    if n < 2:
        return float("nan")
    upper = np.triu_indices(n, 1)
    da = np.sign(a[:, None] - a[None, :])[upper]  # (n₀,) sign of each pair's difference
    db = np.sign(b[:, None] - b[None, :])[upper]  # (n₀,)
    denom = math.sqrt(float(np.count_nonzero(da)) * float(np.count_nonzero(db)))
    return float((da * db).sum() / denom) if denom > 0 else float("nan")


def top_count(length: int, fraction: float) -> int:
    """Tokens in "the top ``fraction``" of a side of ``length`` tokens: ⌈fraction·length⌉, at most length − 1
    so that removing them never empties the side (a 1-token side loses nothing)."""
    return min(math.ceil(fraction * length - 1e-9), max(length - 1, 0))


def top_positions(scores, count: int) -> list[int]:
    """Positions of the ``count`` highest scores (ties: the earlier token first), ascending."""
    order = np.argsort(-np.asarray(scores, dtype=np.float64), kind="stable")
    return sorted(int(i) for i in order[:count])
