"""Attributions beside the attention, as plain numpy records and pure figures (no Streamlit).

``attribution_view`` turns a ``disan.attribution.Attribution`` into records the app
caches; ``attribution_bars`` draws the per-token series (six for DiSAN, seven for the DSA with its
pooling series) as aligned bars (each divided by its largest magnitude, so methods in different
units share one axis: the table keeps the raw values), and ``tau_heatmap`` the Kendall τ of every pair.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import plotly.graph_objects as go

from disan.attribution import METHODS, Attribution

from viz_app.draw.figures import bar_chart, heatmap
from viz_app.draw.theme import NORMAL, Theme

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


def normalised(scores: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    """Each series divided by its largest magnitude (a series of zeros stays zero), keyed by label."""
    out = {}
    for key, values in scores.items():
        top = float(np.abs(values).max()) if values.size else 0.0
        out[LABELS[key]] = values / top if top > 0 else values
    return out


def attribution_bars(side: SideScores, *, title: str = "", theme: Theme = NORMAL) -> go.Figure:
    """Per-token bars of the weight series and the attributions, each scaled to its largest magnitude; the axis
    goes below zero only when some token lowers the class probability."""
    series = normalised(side.scores)
    low = -1.05 if any((v < 0).any() for v in series.values()) else 0.0
    return bar_chart(series, side.tokens, title=title, y_title="score ÷ largest |score| of its method", theme=theme,
                     y_range=(low, 1.05))


def tau_heatmap(side: SideScores, *, title: str = "", theme: Theme = NORMAL) -> go.Figure:
    """Kendall τ between every two methods' rankings, on a diverging scale from −1 to 1."""
    names = [LABELS[m] for m in side.methods]
    return heatmap(side.tau, names, names, title=title, theme=theme, zmin=-1.0, zmax=1.0, diverging=True,
                   value_name="τ", x_title="ranking by", y_title="ranking by")
