"""Im & Cho 2017 case-study figures (Figs. 7–13) drawn from our distance-based SAN traces."""

from __future__ import annotations

import numpy as np
import streamlit as st
import torch

from disan.stats import summarize

from viz_app.draw import claims, settings

from viz_app.shell import loaders, models
from viz_app.shell.context import Context
from viz_app.shell.export import matrices_table, series_table, show_page_figure
from viz_app.draw.presets import IM_SENTENCE, SNLI_LONGEST_TEST
from viz_app.draw.text import md_escape
from viz_app.shell.widgets import caption_claim, summary_text, test_set_line, trace_for


def _stats(probs: np.ndarray) -> dict:
    return summarize(torch.from_numpy(np.asarray(probs, dtype=np.float32)))


def _sentence(model: str, text: str = IM_SENTENCE):
    tv = trace_for(model, text)
    return None if tv is None else tv.premise


def _inputs(model: str, text: str = IM_SENTENCE) -> list[tuple]:
    """The trace ``trace_for`` makes, as ``show_page_figure``'s ``sentences``."""
    hypothesis = settings.DEFAULT_HYPOTHESIS if loaders.model_config(model).pair else None
    return [(model, text, hypothesis, "default", None)]


def _bars(ctx: Context, model: str, key: str, title: str, series: list[dict], table, y_title: str = "",
          y_range: list | None = None) -> None:
    show_page_figure(ctx, "token-bars", key=key, sentences=_inputs(model), table=table,
                     params={"side": "premise", "title": title, "yTitle": y_title, "yRange": y_range, "series": series})


def fig7(ctx: Context, model: str) -> None:
    """Fig. 7: masked multi-head attention averaged over heads, forward and backward."""
    sent = _sentence(model)
    if sent is None:
        return
    fw, bw = sent.fw.attention, sent.bw.attention
    show_page_figure(ctx, "pair", key="im7", sentences=_inputs(model),
                     params={"side": "premise", "titles": ["forward mask", "backward mask"],
                             "title": f"{IM_SENTENCE} — {model}"},
                     table=matrices_table({"forward": fw, "backward": bw}, sent.tokens, sent.tokens))
    caption_claim(claims.locality(fw, sent.fw.allowed, _stats(fw)["mean_distance"]), model)
    caption_claim(claims.locality(bw, sent.bw.allowed, _stats(bw)["mean_distance"]), model)
    top_fw = claims.top_received(fw, sent.fw.allowed, sent.tokens)
    top_bw = claims.top_received(bw, sent.bw.allowed, sent.tokens)
    st.markdown(
        f"**Paper:** 'outside' (forward) and 'Mexican' (backward) get high weight from several words.  \n"
        f"**Ours:** most attended token — forward **{md_escape(top_fw)}**, "
        f"backward **{md_escape(top_bw)}** (relative to uniform attention)."
    )


def fig8(ctx: Context, model: str) -> None:
    """Fig. 8: the longest SNLI test sentence, without (α = 0) and with the distance mask."""
    tv = trace_for(model, SNLI_LONGEST_TEST)
    if tv is None:
        return
    trained = tv.alpha or 0.0
    alpha = trained if trained > 0 else settings.PAPER_ALPHA
    hyp = settings.DEFAULT_HYPOTHESIS if loaders.model_config(model).pair else None
    without = loaders.heads_at_alpha(model, SNLI_LONGEST_TEST, hyp, "default", "premise", 0.0)
    with_ = loaders.heads_at_alpha(model, SNLI_LONGEST_TEST, hyp, "default", "premise", alpha)
    mats = [without["fw"].mean(0), without["bw"].mean(0), with_["fw"].mean(0), with_["bw"].mean(0)]
    titles = [
        "(a) forward, no distance mask",
        "(b) backward, no distance mask",
        f"(c) forward, α = {alpha:g}",
        f"(d) backward, α = {alpha:g}",
    ]
    tokens = tv.premise.tokens
    show_page_figure(ctx, "distance-effect", key="im8", sentences=_inputs(model, SNLI_LONGEST_TEST),
                     params={"side": "premise", "alpha": alpha,
                             "title": f"Longest SNLI test sentence ({len(tokens)} tokens) — {model}"},
                     table=matrices_table(dict(zip(titles, mats)), tokens, tokens))
    st.caption(
        "Same weights: panels (a)–(b) re-weight the cached scores with α = 0 (Im Eq. 7 without M_dis)."
        + ("" if trained > 0 else f" This model was trained without the distance mask, so (c)–(d) use α = {alpha:g}.")
    )
    for d, name in ((0, "Forward"), (1, "Backward")):
        st.markdown(f"*{name} block*")
        verdict = claims.distance_effect(_stats(mats[2 + d]), _stats(mats[d]))
        caption_claim(verdict, model, test_set=False)
    st.markdown(test_set_line(verdict.claim_id, model))  # one statistic over both blocks: said once
    ablation = models.ABLATIONS.get(model)
    if ablation and ablation in ctx.models:
        other = trace_for(ablation, SNLI_LONGEST_TEST)
        if other is not None:
            st.markdown(
                f"*Separately trained {ablation} (forward block)*: {summary_text(other.premise.fw.attention)} "
                f"vs {model}: {summary_text(tv.premise.fw.attention)}"
            )
    elif ablation:
        st.caption(f"The separately trained ablation {ablation} is missing (pretrained/{ablation}.safetensors).")


def fig9(ctx: Context, model: str) -> None:
    """Fig. 9: the forward fusion gate averaged over its d_e features."""
    sent = _sentence(model)
    if sent is None:
        return
    gate = {"forward gate": sent.fw.gate.mean(-1)}
    _bars(ctx, model, "im9", f"Fusion gate (forward) — {model}", [{"name": "forward gate", "field": "gate", "dir": "fw"}],
          series_table(gate, sent.tokens), y_title="mean F", y_range=[0, 1])
    caption_claim(claims.gate_by_word_type(gate["forward gate"], sent.tokens, False, "Im Fig. 9"), model)


def fig10(ctx: Context, model: str) -> None:
    """Fig. 10: (a) FFN deactivation ratio, (b) max of LayerNorm(x + FFN(x)), forward block."""
    sent = _sentence(model)
    if sent is None:
        return
    for key, title, field, values in (
        ("im10a", "(a) deactivation ratio", "ffn_deactivation", sent.fw.ffn_deactivation),
        ("im10b", "(b) max value", "ln_max", sent.fw.ln_max),
    ):
        _bars(ctx, model, key, f"{title} (forward) — {model}", [{"name": title, "field": field, "dir": "fw"}],
              series_table({title: values}, sent.tokens))
    caption_claim(claims.ffn_keywords(sent.fw.ffn_deactivation, sent.fw.ln_max, sent.tokens), model)


def fig11(ctx: Context, model: str) -> None:
    """Fig. 11: (a) multi-dimensional attention weight per token, (b) max-pooling share per token."""
    sent = _sentence(model)
    if sent is None:
        return
    series = {
        "(a) softmax(L), mean over features": sent.s2t.mean(-1),
        "(b) share won in max pooling": sent.maxpool_share,
    }
    _bars(ctx, model, "im11", f"Pooling layer — {model}",
          [{"name": "(a) softmax(L), mean over features", "field": "s2t"},
           {"name": "(b) share won in max pooling", "field": "maxpool_share"}], series_table(series, sent.tokens))
    caption_claim(claims.pooling_agreement(series["(a) softmax(L), mean over features"], sent.maxpool_share), model)


def _heads(ctx: Context, model: str, direction: str, key: str) -> None:
    sent = _sentence(model)
    if sent is None:
        return
    block = sent.block(direction)
    titles = [f"head {h + 1}" for h in range(block.heads.shape[0])]
    name = "Forward" if direction == "fw" else "Backward"
    show_page_figure(ctx, "heads", key=key, sentences=_inputs(model),
                     params={"side": "premise", "dir": direction,
                             "title": f"{name} masked multi-head attention — {model}"},
                     table=matrices_table(dict(zip(titles, block.heads)), sent.tokens, sent.tokens))
    caption_claim(claims.heads_differ(block.heads, block.allowed, name.lower()), model)


def fig12(ctx: Context, model: str) -> None:
    """Fig. 12: every forward head."""
    _heads(ctx, model, "fw", "im12")


def fig13(ctx: Context, model: str) -> None:
    """Fig. 13: every backward head."""
    _heads(ctx, model, "bw", "im13")
