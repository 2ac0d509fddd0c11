"""Attributions beside the attention, as plain numpy records (no Streamlit).

``attribution_view`` turns a ``disan.attribution.Attribution`` into records the app caches; the page draws
them (``viz_app/browser/sections.js``: "attribution-bars", the per-token series each divided by its largest
magnitude, and "tau", the Kendall τ of every pair).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from disan.attribution import METHODS, SCORE, Attribution
from disan.relatedness import score_name


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

    @property
    def score_name(self) -> str:
        """What the explained score is called: a pair's "relatedness score", one sentence's "score"."""
        return score_name(len(self.sides) > 1)

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


def ig_sentence(view: AttributionView) -> str:
    """How Integrated Gradients ran, in one sentence (the Attribution view's caption, the report's note)."""
    f = "ŷ" if view.explains_score else "p"
    return (f"Integrated Gradients: {view.ig_steps} Gauss–Legendre steps from the baseline ({view.ig_baseline}); "
            f"{f}(x) − {f}(baseline) = {view.ig_gap:+.4f}, convergence delta {view.ig_delta:+.2e} (what the scores "
            "miss of that gap).")


def _finite(values) -> list:
    """Values as JSON allows them: a non-finite one (a score not computed, τ below two tokens) is null."""
    return [float(x) if np.isfinite(x) else None for x in values]


def bars_params(side: SideScores, key: str, title: str) -> dict:
    """The "attribution-bars" figure's params (view_figures.js) for one sentence (``key``: premise | hypothesis)."""
    return {"side": key, "title": title, "series": [[LABELS[m], _finite(v)] for m, v in side.scores.items()]}


def tau_params(side: SideScores, title: str) -> dict:
    """The "tau" figure's params (view_figures.js): Kendall τ between every two methods' rankings."""
    return {"names": [LABELS[m] for m in side.methods], "tau": [_finite(row) for row in side.tau], "title": title}


def report_section(a: Attribution, names: tuple[str, str] = ("premise", "hypothesis")) -> dict:
    """The report's last section (``python -m viz_app report --attribution``; sections.js ``page``'s ``extra``): per
    sentence (``names``: what the model calls its two), attention beside every attribution, LRP included, as the
    Attribution view draws them ("attribution-bars"), and the Kendall τ between their rankings ("tau")."""
    view = attribution_view(a)
    what = (f"the predicted {view.score_name} ŷ = {view.probability:.3f}" if view.explains_score
            else f"'{view.target}' (p = {view.probability:.3f})")
    figures = []
    for key, name, side in zip(("premise", "hypothesis"), names, view.sides):
        of = f" — {name}" if len(view.sides) > 1 else ""
        figures += [
            {"id": f"attribution-{key}", "figure": "attribution-bars", "paper": "Attention and token attributions",
             "caption": "Each method's per-token score for the explained class divided by its largest magnitude "
                        "(methods in different units share one axis); LRP is AttnLRP's relevance of the logit "
                        "(docs/lrp.md), rollout and flow are built from the attention weights.",
             "params": bars_params(side, key, f"Attention and attributions per token{of}")},
            {"id": f"tau-{key}", "figure": "tau", "paper": "Kendall τ-b",
             "caption": "Between every two methods' token rankings: +1 the same order, 0 unrelated, −1 reversed "
                        "(signed scores ranked by magnitude; attention has no sign).",
             "params": tau_params(side, f"Kendall τ between the rankings{of}")},
        ]
    note = (f"Explaining {what}. {ig_sentence(view)} The same comparison over whole test sets: "
            "docs/attention-as-explanation.md.")
    return {"id": "attribution", "title": "Attention and attributions", "note": note, "figures": figures}
