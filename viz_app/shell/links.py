"""Links between views: a URL that reopens a view with a model and sentence (the app's state is its URL).

Markdown links open a new tab, which starts a new session that reads its
settings from the query string (``session.init_from_url``).
"""

from __future__ import annotations

from urllib.parse import quote, urlencode

from viz_app.shell.catalog import DEFAULT_VIEW

#: Extra query parameters that put a view in the state a claim is drawn in.
CLAIM_VIEW_PARAMS = {
    "im6-distance-mask-long": {"cmp": "ablation"},
    "im8-distance-spread": {"cmp": "distance"},
    "im8-entropy": {"cmp": "distance"},
    "im13-backward-heads": {"dir": "bw"},
}


def view_url(view: str, **params: str | None) -> str:
    """A relative URL (``fusion_gate?view=fusion_gate&model=…``) of a view with these settings."""
    query = {"view": view, **{k: v for k, v in params.items() if v is not None}}
    # The default view is served at the app's root only (``app.main``): its own name as a path is "Page not found".
    path = "./" if view == DEFAULT_VIEW else view
    return f"{path}?{urlencode(query, quote_via=quote, safe='')}"


def sentence_url(claim_id: str, view: str, model: str, text: str) -> str:
    """Open ``text`` with ``model`` in the view that draws claim ``claim_id``."""
    return view_url(view, model=model, sentence=text, **CLAIM_VIEW_PARAMS.get(claim_id, {}))


def claim_url(claim_id: str, model: str | None = None) -> str:
    """The Evidence view on claim ``claim_id`` (with ``model`` selected in the sidebar)."""
    return view_url("evidence", claim=claim_id, model=model)


def model_url(model: str) -> str:
    return view_url("models", model=model)


def md_link(label: str, url: str) -> str:
    """A Markdown link; ``label`` must already be escaped, the URL is percent-encoded (no ``)``)."""
    return f"[{label}]({url})"
