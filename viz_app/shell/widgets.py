"""Small widgets and guards shared by several views (state keys are the query-parameter names)."""

from __future__ import annotations

from collections.abc import Sequence
from functools import partial

import numpy as np
import streamlit as st

import disan

from viz_app.shell import chart, loaders, models

from viz_app.draw import settings
from viz_app.shell.context import Context
from viz_app.shell.export import chart_key
from viz_app.shell.links import claim_url, md_link
from viz_app.draw.records import SentenceView, TraceView
from viz_app.shell.session import ensure
from viz_app.draw.text import md_escape

DIRECTION_NAMES = {"fw": "forward", "bw": "backward"}


def get_trace(ctx: Context, *, alpha: float | None = None, masks: str | None = None) -> TraceView | None:
    """The cached trace for the current inputs, or None after showing one clear error."""
    if ctx.input_error:
        st.error(md_escape(ctx.input_error))
        return None
    try:
        return loaders.trace_view(ctx.model, ctx.text, ctx.hypothesis, masks or ctx.masks, alpha)
    except disan.DisanError as err:
        st.error(md_escape(str(err)))
        return None


def trace_json_source(ctx: Context, alpha: float | None = None, masks: str | None = None):
    """A zero-argument callable giving the trace JSON (for lazy download buttons)."""
    return partial(loaders.trace_json, ctx.model, ctx.text, ctx.hypothesis, masks or ctx.masks, alpha)


def sentence_of(ctx: Context, tv: TraceView) -> SentenceView:
    return tv.side(ctx.side)


def side_of(ctx: Context, tv: TraceView) -> str:
    """The side ``sentence_of`` draws ("premise" or "hypothesis"), as the page's figure ids name it."""
    return "hypothesis" if ctx.side == "hypothesis" and tv.hypothesis is not None else "premise"


def require_arch(ctx: Context, arch: str, what: str) -> bool:
    """True when the model has ``arch``; otherwise explain and offer a one-click switch."""
    if ctx.arch == arch:
        return True
    target = models.best_of_arch(arch, ctx.models)
    paper = "Shen et al. 2018 (DiSAN)" if arch == "disan" else "Im & Cho 2017 (distance-based SAN)"
    st.info(md_escape(f"{what} exists only in {paper} models; {ctx.model} is a {ctx.arch.upper()} model."))
    st.button(f"Switch to {models.label(target)}", key=f"switch_{arch}", on_click=_set_model, args=(target,))
    return False


def _set_model(name: str) -> None:
    st.session_state["model"] = name


def alpha_slider(ctx: Context, help_text: str | None = None) -> float:
    """The α slider (key ``alpha``), 0–5 (Im Eq. 7). Returns its value."""
    ensure("alpha", ctx.trained_alpha if ctx.trained_alpha is not None else settings.PAPER_ALPHA)
    return float(
        st.slider(
            "α — distance-mask weight (Im Eq. 7)",
            settings.ALPHA_MIN,
            settings.ALPHA_MAX,
            step=settings.ALPHA_STEP,
            key="alpha",
            help=help_text,
        )
    )


ALPHA_LABEL = "α — distance-mask weight (Im Eq. 7)"


def live_payload(ctx: Context, kind: str) -> dict | None:
    """The key (``live.live_key``) of the sentence whose maps the page recomputes, or None for the server path
    (no chart component, ``VIZ_BROWSER_RECOMPUTE=0``, bad input, or a sentence too long for features)."""
    if ctx.input_error or not chart.live_available():
        return None
    try:
        return loaders.live_payload(ctx.model, ctx.text, ctx.hypothesis, ctx.masks, ctx.side, kind)
    except disan.DisanError:
        return None  # the view's own trace call shows the error


def live_alpha(ctx: Context, help_text: str, payload: dict | None) -> float:
    """α for a view whose maps the page can recompute: a slider inside the chart component that redraws
    them while it moves (Im Eq. 7 from the charts' trace views; ``payload``: the sentence's key); the server learns the final value (key
    ``alpha``). Without the component (or without a payload) it is ``alpha_slider``, a rerun per step."""
    if payload is None or not chart.live_available():
        return alpha_slider(ctx, help_text)
    ensure("alpha", ctx.trained_alpha if ctx.trained_alpha is not None else settings.PAPER_ALPHA)
    alpha = float(st.session_state["alpha"])
    chart.live_control(
        key="alpha_live",
        group="alpha",
        param="alpha",
        label=ALPHA_LABEL,
        value=alpha,
        bounds=(settings.ALPHA_MIN, settings.ALPHA_MAX, settings.ALPHA_STEP),
        payload=payload,
        on_change=partial(_from_control, "alpha_live", "alpha"),
        help_text=help_text + " Recomputed in the page while you drag.",
    )
    return alpha


def live_feature(d: int, payload: dict | None) -> int:
    """Feature k for DiSAN's "one feature k": a slider whose maps the page recomputes from their trace views
    (``payload``: the sentence's key), or ``feature_input`` (the server path) without one."""
    if payload is None or not chart.live_available():
        return feature_input(d)
    value = st.session_state.get("feature", 0)
    if not isinstance(value, int) or not 0 <= value < d:
        st.warning(f"feature={value} is out of range for d_h={d}; showing feature 0 (choose 0 to {d - 1}).")
        st.session_state["feature"] = 0
    feature = int(st.session_state.get("feature", 0))
    chart.live_control(
        key="feature_live",
        group="feature",
        param="feature",
        label=f"Feature k (0–{d - 1})",
        value=feature,
        bounds=(0, d - 1, 1),
        payload=payload,
        on_change=partial(_from_control, "feature_live", "feature"),
        help_text="Scrubs through the features in the page; arrow keys step by one.",
    )
    return feature


def _from_control(control: str, target: str) -> None:
    """``on_value_change`` of a live control: its final value becomes the session's (and the URL's)."""
    value = (st.session_state.get(control) or {}).get("value")
    if not isinstance(value, (int, float)):
        return
    if target == "alpha":
        st.session_state["alpha"] = round(min(settings.ALPHA_MAX, max(settings.ALPHA_MIN, float(value))), 1)
    else:
        st.session_state[target] = max(0, int(value))


def direction_radio(label: str = "Block") -> str:
    ensure("dir", "fw")
    return st.radio(label, ("fw", "bw"), key="dir", horizontal=True, format_func=DIRECTION_NAMES.get)


def token_select(tokens: Sequence[str], label: str = "Token") -> int:
    """Selectbox of ``#i token`` (key ``token``); an out-of-range value falls back to 0 with a warning."""
    value = st.session_state.get("token", 0)
    if not isinstance(value, int) or not 0 <= value < len(tokens):
        st.warning(f"token={value} is out of range for this {len(tokens)}-token sentence; showing token 0.")
        st.session_state["token"] = 0
    return st.selectbox(label, list(range(len(tokens))), key="token", format_func=lambda i: f"#{i} {tokens[i]}")


def feature_input(d: int) -> int:
    """Feature index k in [0, d) (key ``feature``); out-of-range values fall back to 0 with a warning."""
    value = st.session_state.get("feature", 0)
    if not isinstance(value, int) or not 0 <= value < d:
        st.warning(f"feature={value} is out of range for d_h={d}; showing feature 0 (choose 0 to {d - 1}).")
        st.session_state["feature"] = 0
    return int(st.number_input(f"Feature k (0–{d - 1})", min_value=0, max_value=d - 1, step=1, key="feature"))


def select_row_from_chart(key: str) -> None:
    """``on_select`` callback of figure ``key``: a clicked heatmap cell picks its row as the chosen token."""
    event = st.session_state.get(chart_key(key)) or {}
    points = (event.get("selection") or {}).get("points") or []
    if not points:
        return
    y = points[0].get("y")
    if isinstance(y, (int, float)) and y >= 0:
        st.session_state["token"] = int(y)


def summary_text(probs: np.ndarray) -> str:
    """``disan.stats.summarize`` as one line: mean |i − j| and mean row entropy."""
    import torch

    from disan.stats import summarize

    return summary_line(summarize(torch.from_numpy(np.asarray(probs, dtype=np.float32))))


def summary_line(s: dict[str, float]) -> str:
    """A ``summarize`` result as one line (``BlockView.summary`` holds it for a trace's own maps)."""
    return (
        f"mean attention distance |i−j| = {s['mean_distance']:.2f} tokens · "
        f"attention entropy = {s['entropy']:.2f} nats · {s['rows']} attending rows"
    )


def caption_claim(verdict, model: str | None = None, test_set: bool = True) -> None:
    """Paper claim, what this one sentence shows (``verdict``, in words that say it is one sentence) and, beside
    it, the test set's verdict on the same claim for ``model`` (``test_set_line``; ``test_set=False``: a view that
    shows one claim on several panels says it once, after them)."""
    lines = [f"**Paper:** {md_escape(verdict.claim)}\\.",
             f"**This sentence:** {md_escape(verdict.evidence)} → **{verdict.label}**\\."]
    if test_set and verdict.claim_id and model:
        lines.append(test_set_line(verdict.claim_id, model))
    st.markdown("  \n".join(lines))


def test_set_line(claim_id: str, model: str) -> str:
    """The test set's verdict on claim ``claim_id`` for ``model`` in Evidence's words (``viz_app/draw/verdicts.py``)
    and the statistic it measures, linked to the Evidence view; or that the test set has no result for it."""
    from viz_app.draw.verdicts import on_test_set_with_n
    from viz_app.shell.results import load_results

    stored = load_results().by_name(model)
    result = stored.claim(claim_id) if stored is not None else None
    link = md_link("Evidence ↗", claim_url(claim_id, model))
    if result is None:
        return f"**Test set:** no stored result of this claim for {md_escape(model)} ({link})\\."
    stale = " (stale: measured on an earlier checkpoint)" if stored.stale else ""
    what = f"; {md_escape(result['statistic'])}" if result.get("statistic") else ""
    return (f"**Test set ({md_escape(model)}):** **{md_escape(on_test_set_with_n(result))}**{stale} "
            f"({link}: value and 95% interval over the test sentences{what})\\.")


def trace_for(model: str, text: str, *, masks: str = "default", alpha: float | None = None) -> TraceView | None:
    """Trace ``text`` with any model (NLI models get the default hypothesis; the premise side is
    unaffected because both sentences go through the same tied encoder). Shows one error on failure."""
    try:
        pair = loaders.model_config(model).pair
        hypothesis = settings.DEFAULT_HYPOTHESIS if pair else None
        return loaders.trace_view(model, text, hypothesis, masks, alpha)
    except disan.DisanError as err:
        st.error(md_escape(str(err)))
        return None
