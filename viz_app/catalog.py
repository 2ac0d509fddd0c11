"""The app's views: URL path, title and icon, in navigation order (no Streamlit import)."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class ViewSpec:
    """One page; ``url_path`` doubles as the ``view`` query parameter."""

    url_path: str
    title: str
    icon: str
    module: str


VIEWS = (
    ViewSpec("explore", "Explore", ":material/search:", "explore"),
    ViewSpec("disan_attention", "DiSAN attention", ":material/grid_on:", "disan_attention"),
    ViewSpec("fusion_gate", "Fusion gate", ":material/merge_type:", "fusion_gate"),
    ViewSpec("source2token", "Source2token", ":material/compress:", "source2token"),
    ViewSpec("distance_attention", "Distance attention", ":material/social_distance:", "distance_attention"),
    ViewSpec("ffn_pooling", "FFN and pooling", ":material/filter_alt:", "ffn_pooling"),
    ViewSpec("masks", "Masks", ":material/masks:", "masks"),
    ViewSpec("compare", "Compare", ":material/compare:", "compare"),
    ViewSpec("paper_figures", "Paper figures", ":material/menu_book:", "paper_figures"),
)

VIEW_IDS = tuple(v.url_path for v in VIEWS)
DEFAULT_VIEW = "explore"
