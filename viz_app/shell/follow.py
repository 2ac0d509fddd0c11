"""The views follow typing: the sidebar's sentence box drives the model in the page (issue 27).

A view calls ``follow_typing(ctx)`` once, before its charts, and draws the charts of the current sentence with
``follow=True`` (``export.show_page_figure``): each key reruns the model in the page (the explorer folder of
``explorer.py``) and those charts are redrawn from its trace view with their own figure and parameters
(``chart.js``'s "typing" role). The server learns the sentence once typing rests, or on Enter once the page has drawn it, and it
becomes the session's as a submit would. Where the page cannot run the model (random weights, other masks than
the trained ones, a sentence the server refused, the folder still building or impossible), the view draws as
before and the element only sends the text.

The sidebar's boxes never rerun on a commit of their own (blur, Enter, Ctrl+Enter: ``on_change="ignore"``):
every page carries the typing element, which sends the text, and on a page that cannot follow typing (a view
without a sentence figure, random weights, other masks, the folder still building) it only sends
(``keep_following``). A box's rerun names the page it was made on, and Streamlit keeps the later of two
requests' pages, so a commit sent by the blur of a click on another view cancelled that click (the reader typed,
clicked "Fusion gate" and stayed where they were). With the commit held in the browser the click's own rerun
carries the sentence to the view it opens. A view's own text boxes do the same through ``hold``: the Minimal
pair's B boxes, the Search view's filter values, Source2token's other sentence.
"""

from __future__ import annotations

import streamlit as st

from viz_app.shell import chart
from viz_app.shell.catalog import VIEWS
from viz_app.shell.context import Context
from viz_app.shell.explorer import explorer_base

#: The typing element is on this run's page (``begin_page`` clears it, ``_mount`` sets it).
MOUNTED = "_typing_mounted"
#: The keys of the view's own text boxes whose text the typing element sends (``hold``), on this run's page.
HELD = "_typing_held"
#: Every key a page of this session held: a box's text may arrive once its page is left (typed, then a click on
#: another view: the element sends it from the view the click opened).
HELD_EVER = "_typing_held_ever"


def typing_base(view: str | None, model: str, masks: str) -> str | None:
    """The explorer folder's URL when the page of ``view`` (its ``url_path``) follows typing with ``model``: the
    view follows typing, the masks are the trained ones and the folder is ready; else None (the page's typing
    element only sends). The run's ``Context.typing_base``."""
    spec = next((s for s in VIEWS if s.url_path == view), None)
    return explorer_base(model) if spec and spec.follows_typing and masks == "default" else None


def begin_page() -> None:
    """Before the view runs (``app.py``): no typing element is on the page yet."""
    st.session_state[MOUNTED] = False
    st.session_state[HELD] = ()


def hold(*keys: str) -> str:
    """The view's text boxes ``keys`` (made after this call with ``on_change=hold(...)``) never rerun on a commit
    of their own, as the sidebar's: the page's typing element sends their text with the sidebar's once typing
    rests or at Enter (``_typed``). A box's commit made by the blur of a click on another view cancelled that
    click, as the sidebar's did (tests/test_browser_typing.py). Returns Streamlit's ``on_change`` value."""
    st.session_state[HELD] = tuple(dict.fromkeys(st.session_state.get(HELD, ()) + keys))
    st.session_state[HELD_EVER] = tuple(dict.fromkeys(st.session_state.get(HELD_EVER, ()) + keys))
    return "ignore"


def _mount(ctx: Context, draws: bool) -> None:
    st.session_state[MOUNTED] = True
    held = {key: st.session_state.get(key) for key in st.session_state.get(HELD, ())}
    chart.typing_control(key="typing", base=ctx.typing_base, model=ctx.model,
                         alpha=ctx.alpha if ctx.is_dsa else None, text=ctx.text, hypothesis=ctx.hypothesis,
                         boxes={key: value for key, value in held.items() if isinstance(value, str)},
                         on_change=_typed, draws=draws)


def follow_typing(ctx: Context) -> bool:
    """Mount the typing element where the page can run ``ctx.model``; True when the view's charts may follow."""
    if ctx.input_error or ctx.typing_base is None:
        return False
    _mount(ctx, draws=True)
    return True


def keep_following(ctx: Context) -> None:
    """Put the typing element on a page whose view did not mount it: the sidebar holds its boxes' commits, whose
    text only the element sends. Where the page can run the model (``ctx.typing_base``), a view that drew
    nothing for a sentence the server refused (an emptied box, an over-long one: ``ctx.input_error``) gets the
    element that runs the model (without it a sentence typed after clearing the box was never drawn until
    Ctrl+Enter, issue 58, item 2); every other page (a view without a sentence figure, Compare's separately
    trained ablation, a view that returned early, a model the page cannot run) gets one that only sends. The page
    sends what is typed once typing rests or at Enter, and the rerun draws it. Called by ``app.py`` after the
    page."""
    if not st.session_state.get(MOUNTED):
        _mount(ctx, draws=ctx.typing_base is not None and bool(ctx.input_error))


def _typed() -> None:
    """The sentence typed in the page (``chart.typing_control``) becomes the session's, as a submit would, and so
    does the text of each box a page held (``hold``; the page that sent it may be the one a click opened)."""
    typed = (st.session_state.get("typing") or {}).get("typed")
    if not isinstance(typed, dict) or not isinstance(typed.get("text"), str):
        return
    st.session_state["sentence"] = typed["text"]
    if isinstance(typed.get("hypothesis"), str) and "hypothesis" in st.session_state:
        st.session_state["hypothesis"] = typed["hypothesis"]
    boxes = typed.get("boxes")
    held = st.session_state.get(HELD_EVER, ())
    for key, value in (boxes.items() if isinstance(boxes, dict) else ()):
        if key in held and isinstance(value, str):
            st.session_state[key] = value
