"""The views follow typing: the sidebar's sentence box drives the model in the page (issue 27).

A view calls ``follow_typing(ctx)`` once, before its charts, and draws the charts of the current sentence with
``follow=True`` (``export.show_page_figure``): each key reruns the model in the page (the explorer folder of
``explorer.py``) and those charts are redrawn from its trace view with their own figure and parameters
(``chart.js``'s "typing" role). The server learns the sentence once typing rests, or on Enter once the page has drawn it, and it
becomes the session's as a submit would. Where the page cannot run the model (random weights, other masks than
the trained ones, a sentence the server refused, the folder still building or impossible), the view draws as
before and Ctrl+Enter submits.
"""

from __future__ import annotations

import streamlit as st

from viz_app.shell import chart
from viz_app.shell.context import Context
from viz_app.shell.explorer import explorer_base


def follow_typing(ctx: Context) -> bool:
    """Mount the typing element where the page can run ``ctx.model``; True when the view's charts may follow."""
    # The page's model runs the trained masks only: other masks keep the submit path.
    base = None if ctx.input_error or ctx.masks != "default" else explorer_base(ctx.model)
    if base is None:
        return False
    chart.typing_control(key="typing", base=base, model=ctx.model, alpha=ctx.alpha if ctx.is_dsa else None,
                         text=ctx.text, hypothesis=ctx.hypothesis, on_change=_typed)
    return True


def keep_following(ctx: Context, view_follows: bool) -> None:
    """After a view that follows typing drew nothing for a sentence the server refused (an emptied box, an
    over-long one: ``ctx.input_error``), keep the typing element on the page: without it the next keys were left
    to Streamlit, and a sentence typed after clearing the box was never drawn until Ctrl+Enter (issue 58, item 2).
    The page then sends what is typed once typing rests, and the rerun draws it. Called by ``app.py`` after the
    page."""
    if not (view_follows and ctx.input_error and ctx.masks == "default"):
        return
    base = explorer_base(ctx.model)
    if base is not None:
        chart.typing_control(key="typing", base=base, model=ctx.model, alpha=ctx.alpha if ctx.is_dsa else None,
                             text=ctx.text, hypothesis=ctx.hypothesis, on_change=_typed)


def _typed() -> None:
    """The sentence typed in the page (``chart.typing_control``) becomes the session's, as a submit would."""
    typed = (st.session_state.get("typing") or {}).get("typed")
    if not isinstance(typed, dict) or not isinstance(typed.get("text"), str):
        return
    st.session_state["sentence"] = typed["text"]
    if isinstance(typed.get("hypothesis"), str) and "hypothesis" in st.session_state:
        st.session_state["hypothesis"] = typed["hypothesis"]
