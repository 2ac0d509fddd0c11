"""Attributions beside the attention, as plain numpy records (no Streamlit).

``attribution_view`` turns a ``disan.attribution.Attribution`` into records the app caches; the page draws
them (``viz_app/browser/sections.js``: "attribution-bars", the per-token series each divided by its largest
magnitude, and "tau", the Kendall τ of every pair).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from disan.attribution import METHODS, SCORE, Attribution


LABELS = {key: label for key, (label, _) in METHODS.items()}


@dataclass(frozen=True)
class SideScores:
    """One sentence: tokens, raw (T,) scores per method (``METHODS`` order), Kendall τ (M, M) between the
    methods' importance rankings (NaN below two tokens), the rollout's remainder and, for DiSAN, the rollout's
    vector shares (None for the DSA)."""

    tokens: tuple[str, ...]
    scores: dict[str, np.ndarray]
    tau: np.ndarray
    rollout_remainder: float
    vector_shares: np.ndarray | None = None

    @property
    def methods(self) -> list[str]:
        return list(self.scores)


@dataclass(frozen=True)
class AttributionView:
    """What the Attribution view draws (see ``disan.attribution.Attribution`` for the fields)."""

    target: str
    probability: float
    sides: tuple[SideScores, ...]
    ig_steps: int
    ig_baseline: str
    ig_gap: float
    ig_delta: float
    rollout_exact: bool

    @property
    def explains_score(self) -> bool:
        """The target is a relatedness model's score ŷ = rᵀp̂ (``probability`` holds ŷ)."""
        return self.target == SCORE

    def side(self, name: str) -> SideScores:
        return self.sides[1] if name == "hypothesis" and len(self.sides) > 1 else self.sides[0]


def attribution_view(a: Attribution) -> AttributionView:
    sides = []
    for s in a.sides:
        methods = [m for m in METHODS if m in s.scores]
        tau = np.array([[1.0 if m == n else s.tau(m, n) for n in methods] for m in methods])  # (M, M)
        vector = None if s.vector_shares is None else s.vector_shares.numpy().astype(np.float64)
        sides.append(SideScores(s.tokens, {m: s.scores[m].numpy().astype(np.float64) for m in methods}, tau,
                                s.rollout_remainder, vector))
    return AttributionView(a.target, a.probability, tuple(sides), a.ig_steps, a.ig_baseline, a.ig_gap, a.ig_delta,
                           a.rollout_exact)
