"""Minimal pair (issue 30): change a word, see what changed. A is the sidebar's input, B is typed here (it starts
as a copy of A; a relatedness model's two inputs are its first and second sentence here, not SICK's "sentence A"
and "sentence B": ``pair_report.input_names``); both run through the sidebar's model, and the page draws
``PairView.page`` of the two trace views (``viz_app/browser/pair_view.js``, the view the static explorer and the pair report draw:
tokens aligned with the edits marked, both predictions and the change, every map of A and B on one scale with
B − A, gates and source2token / pooling side by side). A pair preset fills A, B and α; a word of B clicked in
the page can be swapped for one of its nearest words or free text (``pair_controls``). The leave-one-out rows under A's and B's tokens are
computed here with ``disan.attribution``'s leave-one-out (``pair_report.pair_leave_one_out``) in a background
thread (``shell/waiting.py``: tens of ms for a short pair) and handed to the same page.
"""

from __future__ import annotations

from concurrent.futures import Future, ThreadPoolExecutor
from functools import partial
from html import escape

import streamlit as st

import disan

from viz_app.draw import pair_report, settings
from viz_app.draw.text import md_escape
from viz_app.shell import chart, loaders, pair_controls
from viz_app.shell.context import Context
from viz_app.shell.export import safe_name
from viz_app.shell.follow import hold
from viz_app.shell.session import ensure
from viz_app.shell.sidebar import side_names, validate
from viz_app.shell.waiting import wait_for
from viz_app.shell.widgets import alpha_slider

#: One thread computes the pairs' leave-one-out off the submit path, one pair at a time.
_LOO = ThreadPoolExecutor(max_workers=1, thread_name_prefix="disan-pair-loo")
#: The line shown while it runs (it contains tests/test_app.py's COMPUTING: the tests wait for it to go).
COMPUTING = "Computing the attributions of the pair: leave-one-out of each token of A and of B…"


def _problem(text: str | None, what: str) -> str | None:
    """One sentence naming what is wrong with B's ``text`` (the sidebar's checks), or None."""
    if text is None or not text.strip():
        return f"The {what} is empty; type a sentence for B (it starts as a copy of A)."
    return validate(text, what)


@st.cache_resource(max_entries=16, show_spinner=False)
def _loo_job(name: str, a: tuple, b: tuple, masks: str, alpha: float | None) -> Future:
    """``pair_report.pair_leave_one_out`` of A = (text, hypothesis) and B in a background thread; the model and
    the traces come from this script run's caches, the thread runs only ``disan.attribution``."""
    model = loaders.load_model(name)
    ta, tb = loaders.full_trace(name, *a, masks, alpha), loaders.full_trace(name, *b, masks, alpha)
    return _LOO.submit(pair_report.pair_leave_one_out, model, ta, tb)


def _report_bytes(name: str, a: tuple, b: tuple, masks: str, alpha: float | None, loo: dict) -> bytes:
    """The pair report (``python -m viz_app report --pair``) of these inputs; one line where it cannot be written."""
    try:
        pair_report.check_pair_text(a, b, pair_report.input_names(loaders.model_config(name).relatedness))
        ta, tb = loaders.full_trace(name, *a, masks, alpha), loaders.full_trace(name, *b, masks, alpha)
        return pair_report.pair_report_html(ta, tb, loo).encode("utf-8")
    except disan.InputError as err:
        return f"<!DOCTYPE html><meta charset=utf-8><p>{escape(str(err))}</p>".encode("utf-8")


def render(ctx: Context) -> None:
    st.title("Minimal pair")
    cfg = loaders.model_config(ctx.model)
    st.caption("Change a word, see what changed: A is the sidebar's input, B starts as a copy of it. The tokens "
               "are aligned (kept, replaced, inserted, deleted), and every map of A and B is drawn on one colour "
               "scale with B − A where the tokens align."
               + (" A relatedness model reads two sentences: A is the sidebar's first and second sentence (the "
                  "other views call them SICK's sentence A and sentence B), B its edited copy."
                  if cfg.relatedness and cfg.pair else ""))
    if ctx.input_error:
        st.error(md_escape(ctx.input_error))
        return
    first, second = pair_report.input_names(cfg.relatedness) if cfg.pair else side_names(cfg)
    pair_controls.preset_picker(ctx)
    ensure("sentence_b", ctx.text)
    b_text = st.text_area(f"B: {first}", key="sentence_b", max_chars=settings.MAX_CHARS, height=70,
                          on_change=hold("sentence_b"))
    b_hyp = None
    if ctx.pair:
        ensure("hypothesis_b", ctx.hypothesis)
        b_hyp = st.text_input(f"B: {second}", key="hypothesis_b", max_chars=settings.MAX_CHARS,
                              on_change=hold("hypothesis_b"))
    if ctx.is_dsa:
        alpha_slider(ctx, "A and B are both run at this α.")
    pair_controls.swap_panel(ctx, {"premise": b_text, "hypothesis": b_hyp}, {"premise": first, "hypothesis": second})
    problem = _problem(b_text, f"{first} of B") or (_problem(b_hyp, f"{second} of B") if ctx.pair else None)
    if problem:
        st.error(md_escape(problem))
        return
    a, b = (ctx.text, ctx.hypothesis), (b_text, b_hyp)
    try:
        views = [loaders.page_view(ctx.model, *side, ctx.masks, ctx.trace_alpha) for side in (a, b)]
    except disan.DisanError as err:
        st.error(md_escape(str(err)))
        return
    job = _loo_job(ctx.model, a, b, ctx.masks, ctx.trace_alpha)
    wait_for(job, COMPUTING)
    loo = job.result() if job.exception() is None else None
    chart.draw_pair(*views, key="pair", theme=ctx.theme.name, loo=loo,
                    on_swap=partial(pair_controls.on_swap, "pair", {"premise": b_text, "hypothesis": b_hyp}))
    st.caption(f"masks {ctx.masks}" + (f" · A and B at α = {ctx.alpha:g}" if ctx.is_dsa else ""))
    if job.exception() is not None:
        st.error(md_escape(f"Leave-one-out could not be computed: {job.exception()}"))
        return
    if not ctx.presentation:
        st.download_button(
            "Download this pair's report (HTML)",
            data=partial(_report_bytes, ctx.model, a, b, ctx.masks, ctx.trace_alpha, loo),
            file_name=f"{safe_name(f'pair-{ctx.model}-{b_text[:40]}')}.html", mime="text/html",
            key="pair_report_download", on_click="ignore",
            help="The same pair in one HTML file that opens offline (python -m viz_app report --pair).",
        )

