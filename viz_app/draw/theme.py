"""Colour-blind-safe palettes and font sizes for the normal and presentation modes."""

from __future__ import annotations

from dataclasses import dataclass

#: Okabe & Ito (2008) categorical palette, safe for the common colour-vision deficiencies.
OKABE_ITO = ("#0072B2", "#E69F00", "#009E73", "#CC79A7", "#56B4E9", "#D55E00", "#F0E442", "#000000")


@dataclass(frozen=True)
class Theme:
    """Everything figure builders need to style a figure.

    sequential: Plotly colour scale for probabilities (viridis / cividis are
                perceptually uniform and colour-blind safe).
    diverging:  scale for signed differences, centred at 0 (RdBu / PuOr).
    masked:     colour of ``−∞`` (masked) cells, outside both scales.
    """

    name: str
    font_size: int
    sequential: str
    diverging: str
    categorical: tuple[str, ...]
    masked: str
    template: str
    cell_height: int


NORMAL = Theme("normal", 13, "Viridis", "RdBu", OKABE_ITO, "#d9d9d9", "plotly_white", 24)
# talk mode's masked cells grey too: white ones vanished into the page on a projector (the mask's triangle with them)
PRESENTATION = Theme("presentation", 20, "Cividis", "PuOr", OKABE_ITO, "#d9d9d9", "simple_white", 34)


def theme_for(presentation: bool) -> Theme:
    return PRESENTATION if presentation else NORMAL
