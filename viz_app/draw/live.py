"""Keys of the app's live controls (α, feature k): what a control sends the page besides its value.

Pure Python (no Streamlit, no torch). A live figure is redrawn in the page from its own trace view by its own
figure function (``sections.js``, ``recompute.js``: Im Eq. 7 from a DSA's pre-mask scores, Shen Eq. 15 from
DiSAN's parts), so a control needs to tell its group's charts only which sentence it moves: the key's ``id``
names the kind, the tokens and the context (model, masks, side). A chart drawn for another sentence is not
redrawn by the control until the server's rerun brings its figure of this one.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence

#: Longest sentence whose feature-k maps the page redraws while the slider moves (per feature, from the trace
#: view's Eq. 15 parts: D softmaxes over T² cells); a longer sentence keeps the server path.
FEATURE_MAX_TOKENS = 64

KINDS = ("distance", "features", "masks")


def live_key(kind: str, tokens: Sequence[str], *context: str) -> dict:
    """``{"kind", "id"}`` of a control's group: ``id`` is the same for the same kind, tokens and context, and
    differs otherwise (a hash, 16 hex digits)."""
    if kind not in KINDS:
        raise ValueError(f"kind {kind!r} is not one of {', '.join(KINDS)}")
    body = json.dumps([kind, list(tokens), list(context)], ensure_ascii=False)
    return {"kind": kind, "id": f"{kind}-{hashlib.sha1(body.encode('utf-8')).hexdigest()[:16]}"}


def format_value(value: float) -> str:
    """α as drawn in titles (``f"{alpha:g}"``), as ``Recompute.formatValue`` writes it."""
    return f"{value:g}"
