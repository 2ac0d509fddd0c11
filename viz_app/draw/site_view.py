"""A trace as plain JSON for the in-page report builder (``viz_app/browser/sections.js``), and the figure
context that builder needs from Python.

The static explorer runs the model in the page and builds the report's sections there, with
``Sections.page(tv)``. ``tv`` is the *JS trace view*: the content of
``viz_app.draw.records.TraceView`` with every array flat and row-major. The site builder writes it
for its preset sentences with ``trace_view_json``; the page's own model run fills the same fields
from its outputs. Arrays may be plain lists or typed arrays (``Float32Array`` …)::

    tv = {model, arch: "disan" | "dsa", random_weights, prediction: {label: p} (label order kept),
          masks: [fw, bw], alpha: number | null, premise: S, hypothesis: S | null,
          relatedness: number | null}   # a relatedness model's score rᵀp̂ (SICK), null for classifiers
    S  = {tokens: [..], status: ["vocab" | "glove" | "unknown", ..], T,
          fw: B, bw: B, s2t: (T·2D), D2: 2D, maxpool_share: (T) | null}
    B  = {mask, allowed: (T·T) 0/1, attention: (T·T), gate: (T·D), D,
          probs_max: (T·T) | null, heads: (H·T·T) | null, H: H | null, scores: (H·T·T) | null,
          ffn_deactivation: (T) | null, ln_max: (T) | null,
          probs: (T·T·D) | null}   # DiSAN's per-feature P (Shen Eq. 15), for the feature scrubber

``attention`` is the mean over features (DiSAN) or heads (DSA); ``heads``, ``scores``,
``ffn_deactivation``, ``ln_max`` and ``maxpool_share`` are the DSA's, ``probs_max`` and ``probs``
DiSAN's, as in ``BlockView``. A prediction whose labels look like integers ("0", "1") loses its order
in a JS object; such a prediction may be given as ``[[label, p], ...]`` instead.

``figure_context`` is what ``Figures.configure`` takes once per page: the Plotly templates and
colour scales the themes name (from Plotly itself, as ``figures.py`` reads them), the two themes, the
figure and report constants, the vocabulary-status names and what the pair view calls a relatedness model's
two inputs, so the page retypes none of them.
"""

from __future__ import annotations

import functools
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
    ``{"$a": [dtype, offset, count]}``; DiSAN's per-feature P is kept on the allowed cells only, quantised to
    uint16 (``{"$q": [offset, count], "scale": 1/65535}``, error ≤ 7.6e-6), so that a 64-token NLI pair stays
    under the report's 10 MB (``settings.REPORT_MAX_BYTES``)."""

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

    def probs(self, probs, allowed) -> dict | None:
        if probs is None:
            return None
        cells = np.asarray(probs)[np.asarray(allowed, dtype=bool)]  # (N, D), allowed cells in row-major order
        q = np.round(np.clip(cells, 0.0, 1.0) * 65535).astype("<u2").ravel()
        return {"$q": [self._put(q), int(q.size)], "scale": 1 / 65535}

    def blob(self) -> bytes:
        return b"".join(self.parts)


def _block(view: BlockView, probs, leaf, per_feature) -> dict:
    heads = view.heads
    return {
        "mask": view.mask,
        "allowed": leaf(view.allowed),
        "attention": leaf(view.attention),
        "gate": leaf(view.gate),
        "D": int(view.gate.shape[1]),
        "probs_max": leaf(view.probs_max),
        "heads": leaf(heads),
        "H": None if heads is None else int(heads.shape[0]),
        "scores": leaf(view.scores),
        "ffn_deactivation": leaf(view.ffn_deactivation),
        "ln_max": leaf(view.ln_max),
        "probs": per_feature(probs, view.allowed),
    }


def _per_feature(block, T: int, arch: str):
    """DiSAN's kept (T, T, D) P of one block (Shen Eq. 15), or None: the DSA's probs are per head, (B, H, T, T),
    and a sentence too long to keep P per feature has none."""
    probs = getattr(block, "probs", None)
    if arch != "disan" or probs is None or probs.dim() != 4:
        return None
    return probs[0, :T, :T].numpy()  # (T, T, D)


def _sentence(view: SentenceView, probs: tuple, leaf, per_feature) -> dict:
    """One sentence of the JS trace view; ``probs``: DiSAN's (T, T, D) P of the fw and bw block, or Nones."""
    return {
        "tokens": list(view.tokens),
        "status": list(view.status),
        "T": view.length,
        "fw": _block(view.fw, probs[0], leaf, per_feature),
        "bw": _block(view.bw, probs[1], leaf, per_feature),
        "s2t": leaf(view.s2t),
        "D2": int(view.s2t.shape[1]),
        "maxpool_share": leaf(view.maxpool_share),
    }


def _view(tv: TraceView, probs: dict, leaf, per_feature) -> dict:
    """The JS trace view of records ``tv``; ``probs``: side → (fw, bw) per-feature P (absent: no P)."""
    def sentence(name: str, view: SentenceView | None) -> dict | None:
        return None if view is None else _sentence(view, probs.get(name, (None, None)), leaf, per_feature)

    return {
        "model": tv.model,
        "arch": tv.arch,
        "random_weights": bool(tv.random_weights),
        "prediction": {k: float(v) for k, v in tv.prediction.items()},
        "masks": list(tv.masks),
        "alpha": None if tv.alpha is None else float(tv.alpha),
        "premise": sentence("premise", tv.premise),
        "hypothesis": sentence("hypothesis", tv.hypothesis),
        "relatedness": None if tv.relatedness is None else float(tv.relatedness),
    }


def _trace_probs(trace: ModelTrace, arch: str) -> dict:
    """side → (fw, bw) DiSAN per-feature P of ``trace`` (``_per_feature``)."""
    out = {}
    for name, sent in (("premise", trace.premise), ("hypothesis", trace.hypothesis)):
        if sent is not None:
            T = len(sent.tokens)
            out[name] = (_per_feature(sent.encoder.fw, T, arch), _per_feature(sent.encoder.bw, T, arch))
    return out


def trace_view_json(trace: ModelTrace) -> dict:
    """The JS trace view (module docstring) of ``trace``, as JSON-ready lists."""
    tv = trace_view(trace)
    return _view(tv, _trace_probs(trace, tv.arch), _flat, lambda probs, allowed: _flat(probs))


def packed_trace_view(trace: ModelTrace) -> tuple[dict, bytes]:
    """The JS trace view of ``trace`` with its arrays as references into one byte string (``_Packer``), which
    ``report.js``'s ``unpackView`` turns back into typed arrays: what a report file and the app's charts carry."""
    tv = trace_view(trace)
    packer = _Packer()
    view = _view(tv, _trace_probs(trace, tv.arch), packer.array, packer.probs)
    return view, packer.blob()


@dataclass(frozen=True)
class PageView:
    """A trace view as the page receives it (``site_view.packed_records_view``): ``id`` names it (a hash of
    its content), ``view`` is its JSON with array references, ``arrays`` the bytes they point into, base64."""

    id: str
    view: str
    arrays: str


def packed_records_view(tv: TraceView) -> tuple[dict, bytes]:
    """``packed_trace_view`` of numpy records (``records.TraceView``, what the app caches and keeps on disk),
    without DiSAN's per-feature P (``probs`` null: the app's feature k comes with its slider, ``live.py``)."""
    packer = _Packer()
    view = _view(tv, {}, packer.array, packer.probs)
    return view, packer.blob()


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
