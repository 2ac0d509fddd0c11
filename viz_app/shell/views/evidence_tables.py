"""The Evidence view's "The papers' tables" tab: Shen Tables 1, 2, 4, 5 and Im Table 1, ours beside each cell.

The rows are ``disan.paper_tables.table_rows``, the ones ``python -m disan tables`` prints and writes into
docs/reproduction.md, read from the model cards in ``pretrained/``; nothing is recomputed here.
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import streamlit as st

from disan.locations import PRETRAINED_DIR
from disan.paper_tables import NOT_REPRODUCIBLE, TABLES, table_rows

from viz_app.draw.text import md_escape


@st.cache_data(show_spinner=False)
def _rows(directory: str) -> list[tuple[str, str, list[dict[str, str]]]]:
    """(heading, note, rows) per table; cached per folder (the cards change only when a model is published)."""
    return [(t.heading, t.note, table_rows(t, Path(directory))) for t in TABLES]


def render() -> None:
    st.caption("The papers' numbers as printed, ours on the same test sets from the model cards (the block "
               "`python -m disan tables` writes into docs/reproduction.md). Verdict: matches when the paper's value "
               "lies inside our 95% interval, else by how much we are below or above it.")
    for heading, note, rows in _rows(str(PRETRAINED_DIR)):
        st.markdown(f"**{md_escape(heading)}**")
        st.dataframe(pd.DataFrame(rows), hide_index=True, width="stretch")
        if note:
            st.caption(md_escape(note))
    st.markdown("**What cannot be reproduced here, and why**")
    st.markdown("\n".join(f"- {md_escape(item)}" for item in NOT_REPRODUCIBLE))
