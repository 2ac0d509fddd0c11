"""The trace view: a trace as the page's figures read it (``docs/trace-view.md``, the one written contract),
and the figure context those figures need from Python.

``tv`` is the *JS trace view*: the content of ``viz_app.draw.records.TraceView`` with every array flat and
row-major. Python fills it here (``trace_view_json``: JSON lists; ``packed_trace_view`` /
``packed_records_view``: arrays as references into one byte string); the page's own model run fills the very
same fields from its ONNX outputs (``viz_app/browser/trace_view.js`` ``fromOutputs``), and every host decodes a
packed view with ``trace_view.js`` ``decode``. ``tests/test_trace_view.py`` fails when the two field sets differ.
DiSAN's per-feature P and its max over features are no fields: the page computes them from Shen Eq. 15's keys,
queries and c, which both fill (``recompute.js`` ``perFeature`` / ``featureMax``).

A prediction whose labels look like integers ("0", "1") loses its order in a JS object; such a prediction may
be given as ``[[label, p], ...]`` instead.

``figure_context`` is what ``Figures.configure`` takes once per page: the Plotly templates and
colour scales the themes name (from Plotly itself, as ``figures.py`` reads them), the two themes, the
figure and report constants, the vocabulary-status names and what the pair view calls a relatedness model's
two inputs, so the page retypes none of them.
"""

from __future__ import annotations

import functools
import dataclasses
from dataclasses import asdict, dataclass
from typing import TYPE_CHECKING

import numpy as np

from viz_app.draw import figures, settings
from viz_app.draw.records import BlockView, SentenceView, TraceView, trace_view
from viz_app.draw.theme import NORMAL, PRESENTATION

if TYPE_CHECKING:
    from disan.trace import ModelTrace  # annotations only: importing it imports torch (the app's first page must not)


def _flat(array) -> list | None:
    """A flat row-major list of numbers (bools as 0/1), or None."""
    if array is None:
        return None
    a = np.asarray(array)
    return (a.astype(np.uint8) if a.dtype == bool else a).ravel().tolist()


class _Packer:
    """Arrays of a trace view as references into one little-endian byte string (``packed_trace_view``):
    ``{"$a": [dtype, offset, count]}``, dtype ``f4`` or ``u1`` (booleans), each 4-byte aligned."""

    def __init__(self) -> None:
        self.parts: list[bytes] = []
        self.size = 0

    def _put(self, data: np.ndarray) -> int:
        offset = self.size
        raw = data.tobytes()
        raw += b"\0" * (-len(raw) % 4)  # every array starts 4-byte aligned, as a Float32Array view needs
        self.parts.append(raw)
        self.size += len(raw)
        return offset

    def array(self, array) -> dict | None:
        if array is None:
            return None
        a = np.asarray(array)
        dtype = "u1" if a.dtype == bool else "f4"
        data = np.ascontiguousarray(a.ravel(), dtype="<" + dtype if dtype == "f4" else dtype)
        return {"$a": [dtype, self._put(data), int(data.size)]}

    def blob(self) -> bytes:
        return b"".join(self.parts)


#: BlockView fields that stay in Python: the app's own summary, and DiSAN's max over features, which the page
#: computes from Shen Eq. 15's keys, queries and c (recompute.js featureMax), as it does the per-feature P.
_PYTHON_ONLY = ("summary", "probs_max")


def _block(view: BlockView, T: int, leaf) -> dict:
    """One block of the JS trace view (docs/trace-view.md's B): its sizes, then every field of ``BlockView``
    (arrays through ``leaf``) but ``_PYTHON_ONLY``, so a field added to ``BlockView`` needs no change here."""
    heads = view.heads
    out = {"mask": view.mask, "T": T, "D": int(view.gate.shape[1]),
           "H": None if heads is None else int(heads.shape[0])}
    for field in dataclasses.fields(view):
        value = getattr(view, field.name)
        if field.name not in out and field.name not in _PYTHON_ONLY:
            out[field.name] = leaf(value) if isinstance(value, np.ndarray) else None if value is None else float(value)
    return out


def _sentence(view: SentenceView, leaf) -> dict:
    """One sentence of the JS trace view (docs/trace-view.md's S)."""
    T = view.length
    return {
        "tokens": list(view.tokens),
        "status": list(view.status),
        "T": T,
        "fw": _block(view.fw, T, leaf),
        "bw": _block(view.bw, T, leaf),
        "s2t": leaf(view.s2t),
        "D2": int(view.s2t.shape[1]),
        "maxpool_share": leaf(view.maxpool_share),
    }


def _view(tv: TraceView, leaf) -> dict:
    """The JS trace view of records ``tv``, each array given to ``leaf`` (a list, or a packed reference)."""
    return {
        "model": tv.model,
        "arch": tv.arch,
        "random_weights": bool(tv.random_weights),
        "prediction": {k: float(v) for k, v in tv.prediction.items()},
        "relatedness": None if tv.relatedness is None else float(tv.relatedness),
        "masks": list(tv.masks),
        "alpha": None if tv.alpha is None else float(tv.alpha),
        "premise": _sentence(tv.premise, leaf),
        "hypothesis": None if tv.hypothesis is None else _sentence(tv.hypothesis, leaf),
    }


def trace_view_json(trace: ModelTrace) -> dict:
    """The JS trace view (docs/trace-view.md) of ``trace``, as JSON-ready lists."""
    return _view(trace_view(trace), _flat)


def packed_records_view(tv: TraceView) -> tuple[dict, bytes]:
    """The JS trace view of numpy records ``tv`` with its arrays as references into one byte string
    (``_Packer``), which ``trace_view.js``'s ``decode`` turns back into typed arrays: what a report file and the
    app's charts carry."""
    packer = _Packer()
    view = _view(tv, packer.array)
    return view, packer.blob()


def packed_trace_view(trace: ModelTrace) -> tuple[dict, bytes]:
    """``packed_records_view`` of ``trace``."""
    return packed_records_view(trace_view(trace))


@dataclass(frozen=True)
class PageView:
    """A trace view as the page receives it (``site_view.packed_records_view``): ``id`` names it (a hash of
    its content), ``view`` is its JSON with array references, ``arrays`` the bytes they point into, base64."""

    id: str
    view: str
    arrays: str


@functools.lru_cache(maxsize=1)
def figure_context() -> dict:
    """(Cached: read it, never change it.) What ``Figures.configure`` needs (module docstring): Plotly's own templates and colour scales,
    the themes, and the constants of ``figures.py`` and ``settings.py`` the page uses."""
    themes = {t.name: {**asdict(t), "categorical": list(t.categorical)} for t in (NORMAL, PRESENTATION)}
    scales = sorted({t.sequential for t in (NORMAL, PRESENTATION)} | {t.diverging for t in (NORMAL, PRESENTATION)})
    return {
        "templates": {name: figures._template(name) for name in sorted({NORMAL.template, PRESENTATION.template})},
        "colorscales": {name: figures._scale(name) for name in scales},
        "themes": themes,
        "constants": {
            "TICK_MAX": figures.TICK_MAX,
            "GRID_TICK_MAX": figures.GRID_TICK_MAX,
            "TICK_LABEL_MAX": figures.TICK_LABEL_MAX,
            "HOVER_LABEL_MAX": figures.HOVER_LABEL_MAX,
            "CELL_TEXT_MAX": settings.CELL_TEXT_MAX,
            "SMALL_MULTIPLE_MAX": settings.SMALL_MULTIPLE_MAX,
            "HEAD_CELLS": settings.HEAD_CELLS,
            "ALPHA_MIN": settings.ALPHA_MIN,
            "ALPHA_MAX": settings.ALPHA_MAX,
            "ALPHA_STEP": settings.ALPHA_STEP,
            "PAPER_ALPHA": settings.PAPER_ALPHA,
            "REPORT_MAX_TOKENS": settings.REPORT_MAX_TOKENS,
        },
        "status_names": dict(settings.STATUS_NAMES),
        "pair_relatedness_names": list(settings.PAIR_RELATEDNESS_NAMES),
    }
