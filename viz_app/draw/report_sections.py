"""What a report shows: sections of figures from the app's own pure builders (``figures.py``).

Each ``Section`` is one screen of a talk: a title, optional server-rendered
HTML (the tokens) and figures, each with its paper figure number and a
one-line caption. A figure the page redraws for α (DSA) or feature k (DiSAN)
carries a *binding* (``viz_app.draw.live``: which trace shows which recomputed map),
which ``viz_app/browser/recompute.js`` — the code the app's charts run — applies.
Nothing here imports Streamlit.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
import plotly.graph_objects as go

from viz_app.draw import figures, live

from viz_app.draw.records import SentenceView, TraceView
from viz_app.draw.text import html_escape
from viz_app.draw.theme import NORMAL, Theme

if TYPE_CHECKING:
    from disan.trace import ModelTrace  # annotations only: importing it imports torch

#: Small multiples in a report are never block-averaged: its sentences have at most 64 tokens and the α
#: control redraws every head cell by cell.
HEAD_CELLS = 64

STATUS_NAMES = {
    "vocab": "in the model's vocabulary",
    "glove": "GloVe vector the model never trained on",
    "unknown": "unknown: no vector, uses the <unk> row",
}


@dataclass(frozen=True)
class Figure:
    """One drawn figure of sentence ``side``. ``binding``: how recompute.js redraws it for α / feature k;
    ``word``: the source2token word control swaps its vector."""

    id: str
    figure: go.Figure
    paper: str
    caption: str
    side: str = "premise"
    binding: dict | None = None
    word: bool = False


@dataclass(frozen=True)
class Section:
    """One screen: ``control`` is the in-page control drawn at its top (``alpha``, ``feature``, ``word``)."""

    id: str
    title: str
    html: str = ""
    figures: tuple[Figure, ...] = ()
    control: str | None = None


def _sides(tv: TraceView) -> list[tuple[str, SentenceView]]:
    sides = [("premise", tv.premise)]
    if tv.hypothesis is not None:
        sides.append(("hypothesis", tv.hypothesis))
    return sides


def _named(title: str, side: str, tv: TraceView) -> str:
    """``title`` with the sentence it is about, for NLI pairs."""
    return f"{title} — {side}" if tv.hypothesis is not None else title


def tokens_html(sent: SentenceView) -> str:
    """Tokens as escaped badges coloured by vocabulary status."""
    badges = (
        f'<span class="tok tok-{html_escape(s)}" title="#{i} {html_escape(STATUS_NAMES.get(s, s))}">'
        f"{html_escape(t)}</span>"
        for i, (t, s) in enumerate(zip(sent.tokens, sent.status))
    )
    unknown = sum(s == "unknown" for s in sent.status)
    glove = sum(s == "glove" for s in sent.status)
    counts = f"{sent.length} tokens · {unknown} unknown · {glove} GloVe-only"
    return f'<p class="tokens">{" ".join(badges)}</p><p class="counts">{counts}</p>'


def legend_html() -> str:
    return '<p class="legend">' + " · ".join(
        f'<span class="tok tok-{k}">{k}</span> {html_escape(v)}' for k, v in STATUS_NAMES.items()
    ) + "</p>"


def overview(tv: TraceView, theme: Theme) -> list[Section]:
    """Every model: tokens with their vocabulary status, and the prediction."""
    body = "".join(
        (f"<h3>{side.capitalize()}</h3>" if tv.hypothesis is not None else "") + tokens_html(sent)
        for side, sent in _sides(tv)
    )
    paper = "Shen Sec. 5" if tv.arch == "disan" else "Im Sec. 4.1"
    title = "Prediction (random weights: meaningless)" if tv.random_weights else "Prediction"
    prediction = Figure(
        "prediction",
        figures.prediction_chart(tv.prediction, title=title, theme=theme),
        f"{paper}, classifier output",
        "Probability of each label from the classifier head on the sentence encoding.",
    )
    return [
        Section("tokens", "Tokens", body + legend_html()),
        Section("prediction", "Prediction", figures=(prediction,)),
    ]


def _pair(fw: np.ndarray, bw: np.ndarray, tokens: Sequence[str], titles: Sequence[str], title: str,
          theme: Theme, value_name: str = "P") -> go.Figure:
    return figures.heatmap_grid([fw, bw], titles, tokens, title=title, theme=theme, value_name=value_name)


def feature_slice(trace: ModelTrace, side: str, direction: str, k: int) -> np.ndarray:
    """DiSAN's P[:, :, k] (T, T) of one block, from the trace (reports hold at most 64 tokens, so the trace
    keeps the full per-feature tensor)."""
    sent = trace.hypothesis if side == "hypothesis" else trace.premise
    block = sent.encoder.fw if direction == "fw" else sent.encoder.bw
    T = len(sent.tokens)
    return block.probs[0, :T, :T, k].numpy()  # (T, T)


def disan_sections(tv: TraceView, trace: ModelTrace, theme: Theme) -> list[Section]:
    """DiSAN: fw/bw maps (mean over features), one feature k, gates, source2token vectors (Shen Figs. 6–8)."""
    titles = [f"forward block (mask {tv.masks[0]})", f"backward block (mask {tv.masks[1]})"]
    mean, feature, gates, s2t = [], [], [], []
    for side, sent in _sides(tv):
        mean.append(Figure(
            f"mean-{side}",
            _pair(sent.fw.attention, sent.bw.attention, sent.tokens, titles,
                  _named("Token2token attention, mean over features", side, tv), theme),
            "Shen Fig. 6",
            "P averaged over the d_h features (Shen Sec. 5.3); rows attend, columns are attended.",
            side,
        ))
        fig = _pair(feature_slice(trace, side, "fw", 0), feature_slice(trace, side, "bw", 0), sent.tokens, titles,
                    _named("Token2token attention, feature k = 0", side, tv), theme, "P[k]")
        feature.append(Figure(
            f"feature-{side}",
            fig,
            "Shen Fig. 6, one feature (Eq. 15)",
            "The softmax of one feature k before averaging; drag the slider or use its arrow keys.",
            side,
            binding=live.grid_binding(fig, [{"op": "feature", "dir": "fw"}, {"op": "feature", "dir": "bw"}],
                                      {"feature k = 0": "feature k = {feature}"}),
        ))
        means = {"forward gate": sent.fw.gate.mean(-1), "backward gate": sent.bw.gate.mean(-1)}
        gates.append(Figure(
            f"gate-{side}",
            figures.bar_chart(means, sent.tokens, title=_named("Fusion gate per token, mean over features", side, tv),
                              y_title="F", theme=theme, y_range=(0, 1)),
            "Shen Fig. 7 (Eq. 19)",
            "A large F keeps the token's own input h, a small F takes its context s (u = F⊙h + (1−F)⊙s).",
            side,
        ))
        s2t.append(Figure(
            f"s2t-{side}",
            s2t_word_figure(sent, 0, theme, _named("Source2token score vector", side, tv)),
            "Shen Fig. 8 (Eqs. 12–13)",
            "The feature-wise source2token probability of the chosen word, folded into rows of 30 features.",
            side,
            word=True,
        ))
        weight = {"source2token weight": sent.s2t.mean(-1)}
        s2t.append(Figure(
            f"s2t-mean-{side}",
            figures.bar_chart(weight, sent.tokens, title=_named("Source2token weight per token", side, tv),
                              y_title="mean P", theme=theme),
            "Shen Fig. 8, mean over features",
            "How much each token contributes to the sentence encoding, averaged over the 2·d_h features.",
            side,
        ))
    return [
        Section("disan-mean", "Forward and backward attention", figures=tuple(mean)),
        Section("disan-feature", "One feature at a time", figures=tuple(feature), control="feature"),
        Section("disan-gate", "Fusion gate", figures=tuple(gates)),
        Section("disan-s2t", "Source2token vectors", figures=tuple(s2t), control="word"),
    ]


def s2t_word_figure(sent: SentenceView, token: int, theme: Theme = NORMAL, title: str = "") -> go.Figure:
    """Shen Fig. 8 for one word: its 2·d_h source2token probabilities on a grid."""
    return figures.vector_grids(
        [sent.s2t[token]], [f"#{token} '{sent.tokens[token]}' ({sent.s2t.shape[1]} features)"],
        title=title, theme=theme, value_name="P",
    )


def dsa_sections(tv: TraceView, theme: Theme) -> list[Section]:
    """DSA: head-averaged maps, every head (both redrawn for α in the page), gates, FFN, pooling (Im Figs. 7–13)."""
    alpha = tv.alpha if tv.alpha is not None else 0.0
    at = {f"α = {live.format_value(alpha)}": "α = {alpha}"}
    mean, heads, gates, ffn, pool = [], [], [], [], []
    for side, sent in _sides(tv):
        fig = _pair(sent.fw.attention, sent.bw.attention, sent.tokens,
                    [f"forward (mask {tv.masks[0]})", f"backward (mask {tv.masks[1]})"],
                    _named(f"Head-averaged attention weights at α = {live.format_value(alpha)}", side, tv), theme)
        mean.append(Figure(
            f"alpha-mean-{side}",
            fig,
            "Im Fig. 7 (Eq. 7)",
            "softmax(QKᵀ/√d_k + M_dir + α·M_dis) averaged over heads; the α control recomputes it in the page.",
            side,
            binding=live.grid_binding(fig, [{"op": "mean", "dir": "fw"}, {"op": "mean", "dir": "bw"}], at),
        ))
        for direction, name, number in (("fw", "Forward", 12), ("bw", "Backward", 13)):
            stack = sent.block(direction).heads
            fig = figures.small_multiples(
                stack, sent.tokens, [f"head {h + 1}" for h in range(stack.shape[0])],
                title=_named(f"{name} heads at α = {live.format_value(alpha)}", side, tv), theme=theme,
                max_cells=HEAD_CELLS,
            )
            heads.append(Figure(
                f"alpha-heads-{direction}-{side}",
                fig,
                f"Im Fig. {number}",
                f"Every head of the {name.lower()} block on one colour scale; heads specialise on different distances.",
                side,
                binding=live.grid_binding(
                    fig, [{"op": "head", "dir": direction, "head": h} for h in range(stack.shape[0])], at
                ),
            ))
        means = {"forward gate": sent.fw.gate.mean(-1), "backward gate": sent.bw.gate.mean(-1)}
        gates.append(Figure(
            f"gate-{side}",
            figures.bar_chart(means, sent.tokens, title=_named(f"Fusion gate per token at α = {alpha:g}", side, tv),
                              y_title="mean F", theme=theme, y_range=(0, 1)),
            "Im Fig. 9 (Eq. 12)",
            "Mean over features of F: a large F keeps the input S_F, a small F the attention H_F.",
            side,
        ))
        deact = {"forward": sent.fw.ffn_deactivation, "backward": sent.bw.ffn_deactivation}
        ln = {"forward": sent.fw.ln_max, "backward": sent.bw.ln_max}
        ffn.append(Figure(
            f"ffn-deact-{side}",
            figures.bar_chart(deact, sent.tokens, title=_named("FFN deactivation ratio", side, tv),
                              y_title="ratio", theme=theme, y_range=(0, 1)),
            "Im Fig. 10a (Eq. 13)",
            "Share of the d_ff hidden ReLU units that are 0 for each token.",
            side,
        ))
        ffn.append(Figure(
            f"ffn-max-{side}",
            figures.bar_chart(ln, sent.tokens, title=_named("Max over features of LayerNorm(x + FFN(x))", side, tv),
                              y_title="max value", theme=theme),
            "Im Fig. 10b",
            "The largest feature of each token after the FFN's residual and LayerNorm.",
            side,
        ))
        shares = {"multi-dimensional attention (mean over features)": sent.s2t.mean(-1),
                  "share of features won in max pooling": sent.maxpool_share}
        pool.append(Figure(
            f"pool-{side}",
            figures.bar_chart(shares, sent.tokens, title=_named("Pooling weight and max-pooling share", side, tv),
                              y_title="weight / share", theme=theme),
            "Im Fig. 11 (Eqs. 14–16)",
            "softmax(L) per token averaged over features, and the share of features whose maximum this token holds.",
            side,
        ))
    fixed = f"Computed by the encoder at α = {alpha:g}; the α control redraws only the attention maps."
    return [
        Section("dsa-mean", "Head-averaged attention", figures=tuple(mean), control="alpha"),
        Section("dsa-heads", "Every head", figures=tuple(heads), control="alpha"),
        Section("dsa-gate", "Fusion gate", f'<p class="note">{html_escape(fixed)}</p>', tuple(gates)),
        Section("dsa-ffn", "Position-wise FFN", f'<p class="note">{html_escape(fixed)}</p>', tuple(ffn)),
        Section("dsa-pool", "Pooling", f'<p class="note">{html_escape(fixed)}</p>', tuple(pool)),
    ]


def report_sections(tv: TraceView, trace: ModelTrace, theme: Theme = NORMAL) -> list[Section]:
    """Every section of the report for this trace, in reading order."""
    detail = disan_sections(tv, trace, theme) if tv.arch == "disan" else dsa_sections(tv, theme)
    return overview(tv, theme) + detail


def compact_sections(tv: TraceView, trace: ModelTrace, theme: Theme = NORMAL) -> list[Section]:
    """The notebook view: tokens, prediction and the two main maps (α control for the DSA)."""
    sections = report_sections(tv, trace, theme)
    keep = {"tokens", "prediction", "disan-mean", "dsa-mean"}
    return [s for s in sections if s.id in keep]


def word_frames(sent: SentenceView, theme: Theme = NORMAL) -> list[dict]:
    """Per token, what the word control swaps into the Shen Fig. 8 figure: z, colour limits, panel title."""
    frames = []
    for t in range(sent.length):
        fig = s2t_word_figure(sent, t, theme)
        heat = fig.data[0]
        frames.append({
            "z": [[None if np.isnan(v) else float(f"{v:.6g}") for v in row] for row in np.asarray(heat.z, float)],
            "zmin": heat.zmin,
            "zmax": heat.zmax,
            "title": fig.layout.annotations[0].text,
        })
    return frames
