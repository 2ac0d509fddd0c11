"""Wait for a background job inside the view's own script run (the Attribution view's attributions, the Minimal
pair's leave-one-out), then draw its result below in the same run.

The views used to poll from a fragment (``st.fragment(run_every=…)``) and call ``st.rerun()`` when the job was
done. That rerun names the page it was made on, and Streamlit keeps the later of two pending requests' pages: a
click on another view that landed while the fragment ran was replaced by a rerun of the old view. Waiting here
requests nothing: every line written while waiting is a point where Streamlit stops this run for a newer request
(a click on a view, a key, a widget), so a click opens its view at once and the job, cached, goes on.
"""

from __future__ import annotations

import time
from concurrent.futures import Future, wait

import streamlit as st

#: Jobs done within this long draw with no "computing" line (leave-one-out of a short pair: tens of ms).
QUIET_S = 0.15
#: How often the line is written again while waiting: how soon a click or a key stops the wait.
POLL_S = 0.1


def wait_for(job: Future, message: str) -> None:
    """Return once ``job`` is done, showing ``message`` (and the seconds waited) if it takes longer than
    ``QUIET_S``; the line is gone when this returns."""
    if wait([job], timeout=QUIET_S).not_done:
        slot, start = st.empty(), time.monotonic()
        while not job.done():
            slot.caption(f"{message} {time.monotonic() - start:.0f} s")
            time.sleep(POLL_S)
        slot.empty()
