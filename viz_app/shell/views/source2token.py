"""Source2token attention vectors (Shen Fig. 8; Eqs. 12–13): one probability per feature and token."""

from __future__ import annotations

import numpy as np
import streamlit as st

from viz_app.draw import claims, settings
from viz_app.shell.context import Context
from viz_app.shell.follow import follow_typing, hold
from viz_app.shell.export import matrix_table, show_page_figure
from viz_app.draw.presets import SHEN_PAIRS
from viz_app.shell.session import ensure
from viz_app.draw.text import md_escape
from viz_app.shell.widgets import (
    caption_claim,
    get_trace,
    sentence_of,
    side_of,
    token_select,
    trace_for,
    trace_json_source,
)

_CUSTOM = "this sentence vs another sentence"
_SCALES = ("probability", "probability × sentence length")


def _vector(sent, index: int, scale: str) -> np.ndarray:
    vec = sent.s2t[index]
    return vec * sent.length if scale == _SCALES[1] else vec


def _pair_vectors(ctx: Context, choice: str, token: int, sent, scale: str):
    """(word, vector A, vector B, title A, title B, [inputs of trace A, of trace B]) or None when the
    comparison cannot be made."""
    if choice == _CUSTOM:
        word = sent.tokens[token]
        other_text = st.text_input("Other sentence", key="s2t_other", on_change=hold("s2t_other"))
        other = trace_for(ctx.model, other_text, masks=ctx.masks, alpha=ctx.trace_alpha)
        if other is None:
            return None
        if word not in other.premise.tokens:
            st.warning(md_escape(f"'{word}' does not occur in the other sentence; type a sentence that contains it."))
            return None
        first, second = ctx.text, other_text
        va, vb = _vector(sent, token, scale), _vector(other.premise, other.premise.tokens.index(word), scale)
        titles = (ctx.source_text, other_text)
    else:
        word, first, second = next(p for p in SHEN_PAIRS if p[0] == choice)
        a = trace_for(ctx.model, first, masks=ctx.masks, alpha=ctx.trace_alpha)
        b = trace_for(ctx.model, second, masks=ctx.masks, alpha=ctx.trace_alpha)
        if a is None or b is None:
            return None
        va = _vector(a.premise, a.premise.tokens.index(word), scale)
        vb = _vector(b.premise, b.premise.tokens.index(word), scale)
        titles = (first, second)
    hypothesis = settings.DEFAULT_HYPOTHESIS if ctx.pair else None  # as trace_for traces them
    return word, va, vb, *titles, [(ctx.model, text, hypothesis, ctx.masks, ctx.trace_alpha) for text in (first, second)]


def render(ctx: Context) -> None:
    st.title("Source2token (Shen Fig. 8)")
    tv = get_trace(ctx, alpha=ctx.trace_alpha)
    if tv is None:
        return
    sent = sentence_of(ctx, tv)
    hold("s2t_other")  # its box comes after the charts that follow typing, so before the element mounts
    follow = follow_typing(ctx)
    ensure("s2t_scale", _SCALES[0])
    scale = st.radio(
        "Scale",
        _SCALES,
        key="s2t_scale",
        horizontal=True,
        help=(
            "Probabilities sum to 1 over the tokens of a sentence, per feature; × length makes 1 = uniform, "
            "so sentences of different lengths compare fairly."
        ),
    )
    token = token_select(sent.tokens, "Word")
    page_scale = "length" if scale == _SCALES[1] else "probability"
    show_page_figure(
        ctx,
        "s2t-word",
        key="s2t_word",
        alpha=ctx.trace_alpha,
        params={"side": side_of(ctx, tv), "token": token, "scale": page_scale},
        table=matrix_table(
            sent.s2t[token][None], [sent.tokens[token]], [f"feature {k}" for k in range(sent.s2t.shape[1])]
        ),
        trace_json=trace_json_source(ctx, ctx.trace_alpha),
        follow=follow,
    )
    st.caption(
        "Shen Eqs. 12–13: for each feature k a softmax over the tokens gives P[t, k]; the sentence "
        "encoding is Σ_t P[t] ⊙ u_t. The grid folds the feature vector into rows of 30 (read left to right)."
    )
    st.subheader("Same word, two sentences")
    ensure("s2t_pair", SHEN_PAIRS[0][0])
    ensure("s2t_other", SHEN_PAIRS[0][2])
    choice = st.radio(
        "Pair",
        [p[0] for p in SHEN_PAIRS] + [_CUSTOM],
        key="s2t_pair",
        horizontal=True,
        format_func=lambda c: c if c == _CUSTOM else f"'{c}' (Shen Fig. 8)",
    )
    result = _pair_vectors(ctx, choice, token, sent, scale)
    if result is None:
        return
    word, va, vb, ta, tb, sentences = result
    show_page_figure(
        ctx,
        "s2t-pair",
        key="s2t_pair_fig",
        sentences=sentences,
        params={"word": word, "titles": [ta, tb], "scale": page_scale},
        table=matrix_table(np.stack([va, vb]), [ta, tb], [f"feature {k}" for k in range(va.size)]),
    )
    caption_claim(claims.context_vectors_differ(va, vb, word), ctx.model)
