"""Query parameters ↔ session state.

Every setting lives in ``st.session_state`` under the same key as its query
parameter (and its widget). A new session (a pasted link) reads the URL once;
every run writes the URL back, so a copied link reopens exactly the same view.
Bad values fall back to defaults with a warning naming the value and the fix.
The parsing half is pure and tested without Streamlit.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from disan.config import MASK_KINDS, MASK_PRESETS

from viz_app.draw import settings
from viz_app.shell.catalog import DEFAULT_VIEW, VIEW_IDS

REDUCTIONS = ("mean", "max", "entropy", "feature")
COMPARE_MODES = ("direction", "distance", "ablation")
DIRECTIONS = ("fw", "bw")
SIDES = ("premise", "hypothesis")
NO_DIRECTION_MASKS = ("none", "diag")
#: The Evidence view opens on the two papers' opposite gate claims.
DEFAULT_CLAIM = "shen7-gate-stop-words"
PAPER_FIGURES = ("shen6", "shen7", "shen8", "im7", "im8", "im9", "im10", "im11", "im12", "im13")


@dataclass(frozen=True)
class Param:
    """A query parameter: its default and a parser that raises ``ValueError(reason)``."""

    key: str
    default: object
    parse: Callable[[str], object]


def _choice(options: Sequence[str]) -> Callable[[str], str]:
    def parse(raw: str) -> str:
        if raw not in options:
            raise ValueError(f"use one of {', '.join(options)}")
        return raw

    return parse


def _claim(raw: str) -> str:
    """A claim id of ``disan.claims`` (imported here, when a link names a claim: it imports torch)."""
    from disan.claims import CLAIM_IDS

    return _choice(CLAIM_IDS)(raw)


def _text(raw: str) -> str:
    if len(raw) > settings.MAX_CHARS:
        raise ValueError(f"it has {len(raw):,} characters, over the limit of {settings.MAX_CHARS:,}")
    return raw


def _alpha(raw: str) -> float:
    try:
        value = float(raw)
    except ValueError:
        raise ValueError(f"use a number from {settings.ALPHA_MIN:g} to {settings.ALPHA_MAX:g}") from None
    if not math.isfinite(value) or not settings.ALPHA_MIN <= value <= settings.ALPHA_MAX:
        raise ValueError(f"use a number from {settings.ALPHA_MIN:g} to {settings.ALPHA_MAX:g}")
    return round(value, 1)


def _index(raw: str) -> int:
    if not raw.strip().isdigit() or int(raw) > 1_000_000:
        raise ValueError("use a whole number ≥ 0")
    return int(raw)


def _masks(raw: str) -> str:
    if raw in MASK_PRESETS:
        return raw
    parts = [p.strip() for p in raw.split(",")]
    if len(parts) == 2 and all(p in MASK_KINDS for p in parts):
        return ",".join(parts)
    raise ValueError(f"use a preset ({', '.join(MASK_PRESETS)}) or two of {', '.join(MASK_KINDS)} such as fw,bw")


def _class_name(raw: str) -> str:
    """A class label (checked against the model's labels by the Attribution view); empty: the predicted class."""
    if len(raw) > 60:
        raise ValueError("use one of the model's class labels, or leave it out for the predicted class")
    return raw


def _flag(raw: str) -> bool:
    if raw.lower() in ("1", "true", "yes", "on"):
        return True
    if raw.lower() in ("0", "false", "no", "off", ""):
        return False
    raise ValueError("use 1 or 0")


PARAMS = (
    Param("view", DEFAULT_VIEW, _choice(VIEW_IDS)),
    Param("sentence", settings.DEFAULT_SENTENCE, _text),
    Param("hypothesis", "", _text),
    # The Minimal pair view's sentence B (None: not set yet, the view starts it as a copy of A).
    Param("sentence_b", None, _text),
    Param("hypothesis_b", None, _text),
    Param("alpha", None, _alpha),
    Param("masks", "default", _masks),
    Param("feature", 0, _index),
    Param("token", 0, _index),
    Param("reduce", "mean", _choice(REDUCTIONS)),
    Param("dir", "fw", _choice(DIRECTIONS)),
    Param("side", "premise", _choice(SIDES)),
    Param("cmp", "direction", _choice(COMPARE_MODES)),
    Param("cmp_b", "none", _choice(NO_DIRECTION_MASKS)),
    Param("fig", PAPER_FIGURES[0], _choice(PAPER_FIGURES)),
    Param("claim", DEFAULT_CLAIM, _claim),
    Param("cls", "", _class_name),
    Param("present", False, _flag),
    Param("q", "", _text),  # the Search view's query as JSON (views/search.py)
)

#: Session keys mirrored in the URL (besides ``view``), all backed by widgets.
WIDGET_KEYS = ("model",) + tuple(p.key for p in PARAMS if p.key != "view")

#: Settings only a two-sentence model reads: its hypothesis, the Minimal pair's B hypothesis and the side drawn.
#: The address leaves them out while a single-sentence model is shown: a link holds what its page shows, and an
#: NLI model's hypothesis left in a sentence model's address came back as the hypothesis of any NLI model the link
#: was later switched to. The session keeps them, so switching back in the same session restores them.
PAIR_KEYS = ("hypothesis", "hypothesis_b", "side")

#: Page-local widget keys that must also survive page switches (not in the URL).
LOCAL_KEYS = ("s2t_scale", "s2t_pair", "s2t_other", "shen_model", "im_model", "cmp_pair", "ev_model", "ev_faith_model")


def parse_query_params(
    raw: Mapping[str, str | list[str]], models: Sequence[str], default_model: str
) -> tuple[dict[str, object], list[str]]:
    """Query parameters → (values for every key, warnings). Never raises."""
    values: dict[str, object] = {"model": default_model}
    warnings: list[str] = []
    model = _last(raw.get("model"))
    if model is not None:
        if model in models:
            values["model"] = model
        else:
            warnings.append(
                f"Unknown model {_short(model)} in the link; showing {default_model} instead "
                f"(available: {', '.join(models)})."
            )
    for param in PARAMS:
        values[param.key] = param.default
        text = _last(raw.get(param.key))
        if text is None:
            continue
        try:
            values[param.key] = param.parse(text)
        except ValueError as err:
            warnings.append(f"Ignored {param.key}={_short(text)} from the link ({err}); using the default.")
    return values, warnings


def to_query_params(values: Mapping[str, object], pair: bool = True) -> dict[str, str]:
    """Session values → query parameters; defaults are left out (``view``, ``model``, ``sentence`` always kept),
    and so are ``PAIR_KEYS`` unless the shown model reads two sentences (``pair``)."""
    out: dict[str, str] = {}
    always = ("view", "model", "sentence")
    for key in ("view", "model") + tuple(p.key for p in PARAMS if p.key != "view"):
        value = values.get(key)
        default = next((p.default for p in PARAMS if p.key == key), None)
        if value is None or (key not in always and value == default) or (not pair and key in PAIR_KEYS):
            continue
        out[key] = _format(value)
    return out


def _format(value: object) -> str:
    if isinstance(value, bool):
        return "1" if value else "0"
    if isinstance(value, float):
        return f"{value:g}"
    return str(value)


def _last(value: str | list[str] | None) -> str | None:
    if isinstance(value, list):
        return value[-1] if value else None
    return value


def _short(text: str) -> str:
    return repr(text if len(text) <= 40 else text[:37] + "…")
