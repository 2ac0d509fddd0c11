"""Shen et al. 2018 case-study figures (Figs. 6–8) drawn from our DiSAN traces."""

from __future__ import annotations

import streamlit as st

from viz_app.draw import claims, figures
from viz_app.shell.context import Context
from viz_app.shell.export import matrices_table, matrix_table, series_table, show_figure
from viz_app.draw.presets import SHEN_PAIRS, SHEN_SENTENCES
from viz_app.shell.widgets import caption_claim, trace_for


def fig6(ctx: Context, model: str) -> None:
    """Fig. 6: forward/backward attention averaged over features, for both example sentences."""
    for n, text in enumerate(SHEN_SENTENCES, start=1):
        tv = trace_for(model, text)
        if tv is None:
            return
        sent = tv.premise
        fig = figures.heatmap_grid(
            [sent.fw.attention, sent.bw.attention],
            ["forward DiSA block", "backward DiSA block"],
            sent.tokens,
            title=f"Sentence {n}: {text} — {model}",
            theme=ctx.theme,
        )
        table = matrices_table({"forward": sent.fw.attention, "backward": sent.bw.attention}, sent.tokens, sent.tokens)
        show_figure(fig, ctx, key=f"shen6_{n}", table=table)
        caption_claim(
            claims.content_attention(
                [(sent.fw.attention, sent.fw.allowed), (sent.bw.attention, sent.bw.allowed)], sent.tokens
            ), model
        )


def fig7(ctx: Context, model: str) -> None:
    """Fig. 7: the fusion gate F (Eq. 19) per token, averaged over features, forward and backward."""
    for n, text in enumerate(SHEN_SENTENCES, start=1):
        tv = trace_for(model, text)
        if tv is None:
            return
        sent = tv.premise
        gates = {"forward": sent.fw.gate.mean(-1), "backward": sent.bw.gate.mean(-1)}
        show_figure(
            figures.bar_chart(
                gates,
                sent.tokens,
                title=f"Sentence {n}: fusion gate — {model}",
                y_title="mean F",
                theme=ctx.theme,
                y_range=(0, 1),
            ),
            ctx,
            key=f"shen7_{n}",
            table=series_table(gates, sent.tokens),
        )
        caption_claim(
            claims.gate_by_word_type((gates["forward"] + gates["backward"]) / 2, sent.tokens, True, "Shen Fig. 7"), model
        )


def fig8(ctx: Context, model: str) -> None:
    """Fig. 8: source2token vectors of the same word in two sentences ('glass', 'close')."""
    for word, first, second in SHEN_PAIRS:
        a, b = trace_for(model, first), trace_for(model, second)
        if a is None or b is None:
            return
        va = a.premise.s2t[a.premise.tokens.index(word)] * a.premise.length  # × T: 1 = uniform
        vb = b.premise.s2t[b.premise.tokens.index(word)] * b.premise.length
        show_figure(
            figures.vector_grids(
                [va, vb],
                [first, second],
                title=f"'{word}' in two contexts (P × sentence length) — {model}",
                theme=ctx.theme,
            ),
            ctx,
            key=f"shen8_{word}",
            table=matrix_table([va, vb], [first, second], [f"feature {k}" for k in range(va.size)]),
        )
        caption_claim(claims.context_vectors_differ(va, vb, word), model)
    st.caption(
        "Each grid folds the word's 2·d_h source2token probabilities into rows of 30 features, multiplied by the "
        "sentence length so that 1 = uniform attention and sentences of different lengths share one scale."
    )
