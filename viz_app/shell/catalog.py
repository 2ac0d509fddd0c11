"""The app's views: URL path, title and module, in navigation order (no Streamlit import)."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class ViewSpec:
    """One page; ``url_path`` doubles as the ``view`` query parameter.

    No icons: Streamlit loads a page's icon as the favicon from a CDN, and the app must work offline.
    """

    url_path: str
    title: str
    module: str
    #: Its charts follow typing (``follow.follow_typing``): keys drive the model in the page.
    follows_typing: bool = False


VIEWS = (
    ViewSpec("explore", "Explore", "explore", follows_typing=True),
    ViewSpec("disan_attention", "DiSAN attention", "disan_attention", follows_typing=True),
    ViewSpec("fusion_gate", "Fusion gate", "fusion_gate", follows_typing=True),
    ViewSpec("source2token", "Source2token", "source2token", follows_typing=True),
    ViewSpec("distance_attention", "Distance attention", "distance_attention", follows_typing=True),
    ViewSpec("ffn_pooling", "FFN and pooling", "ffn_pooling", follows_typing=True),
    ViewSpec("masks", "Masks", "masks", follows_typing=True),
    ViewSpec("compare", "Compare", "compare", follows_typing=True),
    ViewSpec("pair", "Minimal pair", "pair"),
    ViewSpec("attribution", "Attribution", "attribution", follows_typing=True),
    ViewSpec("search", "Search", "search"),
    ViewSpec("paper_figures", "Paper figures", "paper_figures"),
    ViewSpec("evidence", "Evidence", "evidence"),
    ViewSpec("models", "Models", "models"),
)

VIEW_IDS = tuple(v.url_path for v in VIEWS)
DEFAULT_VIEW = "explore"
