"""Shen et al. 2018 case-study figures (Figs. 6–8) drawn from our DiSAN traces."""

from __future__ import annotations

import streamlit as st

from viz_app.draw import claims, settings
from viz_app.shell import loaders
from viz_app.shell.context import Context
from viz_app.shell.export import matrices_table, matrix_table, series_table, show_page_figure
from viz_app.draw.presets import SHEN_PAIRS, SHEN_SENTENCES
from viz_app.shell.widgets import caption_claim, trace_for


def _inputs(model: str, text: str) -> list[tuple]:
    """The trace ``trace_for`` makes, as ``show_page_figure``'s ``sentences``."""
    hypothesis = settings.DEFAULT_HYPOTHESIS if loaders.model_config(model).pair else None
    return [(model, text, hypothesis, "default", None)]


def fig6(ctx: Context, model: str) -> None:
    """Fig. 6: forward/backward attention averaged over features, for both example sentences."""
    for n, text in enumerate(SHEN_SENTENCES, start=1):
        tv = trace_for(model, text)
        if tv is None:
            return
        sent = tv.premise
        table = matrices_table({"forward": sent.fw.attention, "backward": sent.bw.attention}, sent.tokens, sent.tokens)
        show_page_figure(ctx, "pair", key=f"shen6_{n}", sentences=_inputs(model, text), table=table,
                         params={"side": "premise", "titles": ["forward DiSA block", "backward DiSA block"],
                                 "title": f"Sentence {n}: {text} — {model}"})
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
        show_page_figure(ctx, "token-bars", key=f"shen7_{n}", sentences=_inputs(model, text),
                         table=series_table(gates, sent.tokens),
                         params={"side": "premise", "title": f"Sentence {n}: fusion gate — {model}", "yTitle": "mean F",
                                 "yRange": [0, 1], "series": [{"name": "forward", "field": "gate", "dir": "fw"},
                                                              {"name": "backward", "field": "gate", "dir": "bw"}]})
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
        show_page_figure(ctx, "s2t-pair", key=f"shen8_{word}", sentences=_inputs(model, first) + _inputs(model, second),
                         table=matrix_table([va, vb], [first, second], [f"feature {k}" for k in range(va.size)]),
                         params={"word": word, "titles": [first, second], "scale": "length", "difference": False,
                                 "title": f"'{word}' in two contexts (P × sentence length) — {model}"})
        caption_claim(claims.context_vectors_differ(va, vb, word), model)
    st.caption(
        "Each grid folds the word's 2·d_h source2token probabilities into rows of 30 features, multiplied by the "
        "sentence length so that 1 = uniform attention and sentences of different lengths share one scale."
    )
