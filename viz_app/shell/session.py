"""Streamlit side of ``state.py``: seed the session from the URL once, keep it, write it back."""

from __future__ import annotations

from collections.abc import Sequence

import streamlit as st

from viz_app.shell.state import LOCAL_KEYS, WIDGET_KEYS, parse_query_params, to_query_params

_INIT = "_state_initialised"
_WARNINGS = "_state_warnings"
#: The view a link named (its ``view`` parameter), until the first run opens it (``app.follow_link_view``).
LINK_VIEW_KEY = "_link_view"
#: Whether the model the run shows reads two sentences (``sidebar.render_sidebar`` sets it): the address holds a
#: hypothesis only then (``state.PAIR_KEYS``). A session key, not an argument, because a view's fragment rerun
#: writes the address too (``views/distance_attention.py``) and knows only the view.
SHOWN_PAIR_KEY = "_shown_pair"


def init_from_url(models: Sequence[str], default_model: str) -> None:
    """On a session's first run, copy the query parameters into session state."""
    if st.session_state.get(_INIT):
        return
    values, warnings = parse_query_params(st.query_params.to_dict(), models, default_model)
    for key, value in values.items():
        if key == "view":
            st.session_state[LINK_VIEW_KEY] = value
        elif value is not None:
            st.session_state[key] = value
    st.session_state["alpha_owner"] = values["model"] if values.get("alpha") is not None else None
    st.session_state[_WARNINGS] = warnings
    st.session_state[_INIT] = True


def keep_widget_state() -> None:
    """Re-assign widget values so they survive pages that do not draw the widget."""
    for key in WIDGET_KEYS + LOCAL_KEYS:
        if key in st.session_state:
            st.session_state[key] = st.session_state[key]


def ensure(key: str, value: object) -> None:
    """Give ``key`` a starting value before its widget is drawn (widgets then get no ``value=``)."""
    if key not in st.session_state:
        st.session_state[key] = value


def pop_warnings() -> list[str]:
    """Warnings from parsing the link, returned once."""
    return st.session_state.pop(_WARNINGS, [])


def write_url(view: str) -> None:
    """Mirror the session's settings into the query string (only when they changed)."""
    values = {key: st.session_state.get(key) for key in WIDGET_KEYS}
    values["view"] = view
    target = to_query_params(values, pair=st.session_state.get(SHOWN_PAIR_KEY, True))
    if st.query_params.to_dict() != target:
        st.query_params.from_dict(target)
