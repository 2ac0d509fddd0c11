"""A figure's JSON for the page, written by orjson from the figure's own dicts.

``plotly.io.json.to_json_plotly`` with the standard library's encoder walks every list in Python: a Distance
attention figure at T = 64 (eight heads, each with a T × T × 2 array of hover labels) took 95 ms to write,
the largest part of that view's server time per submit (py-spy, issue 19). orjson writes the same JSON in
about 3 ms. Plotly's own orjson engine is no help here: it first copies every list in Python
(``clean_to_json_compatible``), which was slower still, so this module calls orjson directly.

``fig.to_plotly_json()`` itself deep-copies every trace and then base64-encodes its numeric arrays in Python,
for every chart of every rerun (a visible part of Explore's server time in py-spy). ``figure_spec`` hands
over the figure's own dicts instead, and ``figure_json`` writes numeric numpy arrays as the same typed-array
specs (plotly's ``to_typed_array_spec``, base64) while it writes the JSON.

The result parses to what ``to_json_plotly(fig.to_plotly_json())`` gives (tested on every figure builder):
numeric arrays as base64 typed arrays, object arrays (hover labels) as lists, NaN and ±inf as null.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import orjson
import plotly.graph_objects as go
from _plotly_utils.utils import to_typed_array_spec


def _default(value):
    """What orjson does not write itself: numpy arrays (numeric ones as Plotly's typed-array specs, the rest,
    such as hover labels, as lists) and numpy scalars."""
    if isinstance(value, np.ndarray):
        spec = to_typed_array_spec(value) if value.dtype.kind in "iuf" else value
        return spec if isinstance(spec, dict) else value.tolist()
    if isinstance(value, np.generic):
        return value.item()
    raise TypeError(f"figure_json cannot write a value of type {type(value).__name__}")


def figure_spec(fig: go.Figure) -> dict:
    """``fig``'s trace and layout dicts as Plotly holds them, not copied: what ``fig.to_plotly_json()`` returns
    before its deep copy and base64 step. Read it, never change it (it is the figure)."""
    return {"data": fig._data, "layout": fig._layout}


def figure_json(spec: Mapping) -> str:
    """``spec`` (``figure_spec(fig)``, ``fig.to_plotly_json()``, or any dict of the same kinds of values) as JSON
    text."""
    return orjson.dumps(spec, default=_default).decode("utf-8")
