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


VIEWS = (
    ViewSpec("explore", "Explore", "explore"),
    ViewSpec("disan_attention", "DiSAN attention", "disan_attention"),
    ViewSpec("fusion_gate", "Fusion gate", "fusion_gate"),
    ViewSpec("source2token", "Source2token", "source2token"),
    ViewSpec("distance_attention", "Distance attention", "distance_attention"),
    ViewSpec("ffn_pooling", "FFN and pooling", "ffn_pooling"),
    ViewSpec("masks", "Masks", "masks"),
    ViewSpec("compare", "Compare", "compare"),
    ViewSpec("pair", "Minimal pair", "pair"),
    ViewSpec("attribution", "Attribution", "attribution"),
    ViewSpec("search", "Search", "search"),
    ViewSpec("paper_figures", "Paper figures", "paper_figures"),
    ViewSpec("evidence", "Evidence", "evidence"),
    ViewSpec("models", "Models", "models"),
)

VIEW_IDS = tuple(v.url_path for v in VIEWS)
DEFAULT_VIEW = "explore"
