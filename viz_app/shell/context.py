"""The shared settings every view reads, resolved once per run by the sidebar."""

from __future__ import annotations

from dataclasses import dataclass

from viz_app.draw.theme import Theme


@dataclass(frozen=True)
class Context:
    """Model facts and user inputs for one script run.

    alpha:        the α slider value (DSA only; DiSAN ignores it).
    trained_alpha: the model's own α (None for DiSAN).
    hypothesis:   None for single-sentence models.
    input_error:  one sentence saying what is wrong with the input, or None.
    typing_base:  the explorer folder's URL where this page follows typing (``follow.typing_base``: the page's
                  model runs), else None (the page's typing element only sends the boxes' text).
    """

    model: str
    models: tuple[str, ...]
    arch: str
    pair: bool
    random_weights: bool
    any_trained: bool
    labels: tuple[str, ...]
    d_h: int
    heads: int
    trained_alpha: float | None
    text: str
    hypothesis: str | None
    masks: str
    alpha: float
    side: str
    theme: Theme
    presentation: bool
    image_format: str
    input_error: str | None
    typing_base: str | None = None

    @property
    def is_dsa(self) -> bool:
        return self.arch == "dsa"

    @property
    def trace_alpha(self) -> float | None:
        """α to pass to ``model.trace``: None for DiSAN or when it equals the trained α (shares the cache)."""
        if not self.is_dsa or self.trained_alpha is None or abs(self.alpha - self.trained_alpha) < 1e-9:
            return None
        return self.alpha

    @property
    def source_text(self) -> str:
        """The sentence being drawn: the premise, or the hypothesis when that side is chosen."""
        return self.hypothesis if self.side == "hypothesis" and self.hypothesis else self.text
