"""A figure's JSON for the page, written by orjson.

``plotly.io.json.to_json_plotly`` with the standard library's encoder walks every list in Python: a Distance
attention figure at T = 64 (eight heads, each with a T × T × 2 array of hover labels) took 95 ms to write,
the largest part of that view's server time per submit (py-spy, issue 19). orjson writes the same JSON in
about 3 ms. Plotly's own orjson engine is no help here: it first copies every list in Python
(``clean_to_json_compatible``), which was slower still, so this module calls orjson directly.

The result parses to what ``to_json_plotly`` gives (tested): numeric arrays are already base64 typed arrays in
``fig.to_plotly_json()``, object arrays (hover labels) become lists, NaN and ±inf become null.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import orjson

_OPTIONS = orjson.OPT_SERIALIZE_NUMPY


def _default(value):
    """What orjson cannot write itself: object and text arrays (hover labels, as lists) and numpy scalars."""
    if isinstance(value, np.ndarray):
        return value.tolist()
    if isinstance(value, np.generic):
        return value.item()
    raise TypeError(f"figure_json cannot write a value of type {type(value).__name__}")


def figure_json(spec: Mapping) -> str:
    """``spec`` (``fig.to_plotly_json()``, or any dict of the same kinds of values) as JSON text."""
    return orjson.dumps(spec, default=_default, option=_OPTIONS).decode("utf-8")
