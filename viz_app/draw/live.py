"""Payloads for the in-browser recomputation (``viz_app/browser/recompute.js``) of the app's live controls.

Pure Python (numpy, no Streamlit): the app's α and feature-k controls send a payload built here from a trace;
the figures they redraw, and the bindings that say which trace of a figure shows which recomputed map, are the
page's own (``sections.js``). The format is read by ``recompute.js``; in short:

* **distance payload** (DSA): per block the pre-mask scores ``QKᵀ/√d_k``
  (H, T, T) as float32 and the allowed mask (T, T) as uint8, so the page can
  evaluate Im Eq. 7, ``softmax(scores + M_dir + α·M_dis)``, for any α;
* **feature payload** (DiSAN, T ≤ ``FEATURE_MAX_TOKENS``): per block DiSAN's
  per-feature probabilities P (Shen Eq. 15) at the allowed cells only,
  feature-major (D, N), quantised to uint16: ``P ≈ q / 65535``, an absolute
  error of at most ``QUANTISATION_ERROR`` (1/131070 ≈ 7.6e-6); masked cells
  are not sent and are exactly 0, so are probabilities of exactly 0 and 1.

Every array is ``{"dtype", "shape", "b64"}``: little-endian bytes, base64.
"""

from __future__ import annotations

import base64
import hashlib
import json
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    from disan.trace import SentenceTrace


#: Longest sentence whose per-feature probabilities are sent to the page (2 blocks × T² / 2 × D × 2 bytes:
#: about 2.4 MB at T = 64, D = 300); longer sentences keep the server path.
FEATURE_MAX_TOKENS = 64

#: uint16 quantisation of probabilities in [0, 1]: value = q · Q16_SCALE.
Q16_SCALE = 1.0 / 65535.0
#: Largest |decoded − P| of the quantised per-feature probabilities (half a quantisation step).
QUANTISATION_ERROR = 0.5 * Q16_SCALE


def encode(array: np.ndarray, dtype: str, scale: float | None = None) -> dict:
    """``{"dtype", "shape", "b64"[, "scale"]}``: ``array`` cast to little-endian ``dtype``, base64."""
    kinds = {"float32": "<f4", "uint16": "<u2", "uint8": "u1"}
    if dtype not in kinds:
        raise ValueError(f"dtype {dtype!r} is not one of {', '.join(kinds)}")
    data = np.ascontiguousarray(array, dtype=kinds[dtype])
    out = {"dtype": dtype, "shape": list(data.shape), "b64": base64.b64encode(data.tobytes()).decode("ascii")}
    if scale is not None:
        out["scale"] = scale
    return out


def decode(array: Mapping) -> np.ndarray:
    """The inverse of ``encode`` (the stored values; ``scale`` is not applied)."""
    kinds = {"float32": "<f4", "uint16": "<u2", "uint8": "u1"}
    raw = base64.b64decode(array["b64"])
    return np.frombuffer(raw, dtype=kinds[array["dtype"]]).reshape(array["shape"])


def quantise(probs: np.ndarray) -> np.ndarray:
    """Probabilities in [0, 1] → uint16 ``round(P · 65535)`` (error ≤ ``QUANTISATION_ERROR``)."""
    return np.rint(np.clip(probs, 0.0, 1.0) * 65535.0).astype(np.uint16)


def _payload(kind: str, tokens: Sequence[str], blocks: dict) -> dict:
    body = {"format": "disan-live/1", "kind": kind, "T": len(tokens), "tokens": list(tokens), "blocks": blocks}
    digest = hashlib.sha1(json.dumps(body, sort_keys=True).encode("utf-8")).hexdigest()[:16]
    return {**body, "id": f"{kind}-{digest}"}


def distance_payload_from_arrays(tokens: Sequence[str], blocks: Mapping[str, Mapping]) -> dict:
    """``blocks``: name → {"mask": str, "scores": (H, T, T), "allowed": (T, T) bool}."""
    out = {}
    for name, b in blocks.items():
        out[name] = {
            "mask": b["mask"],
            "allowed": encode(np.asarray(b["allowed"], bool), "uint8"),
            "scores": encode(b["scores"], "float32"),
        }
    return _payload("distance", tokens, out)


def feature_payload_from_arrays(tokens: Sequence[str], blocks: Mapping[str, Mapping]) -> dict:
    """``blocks``: name → {"mask": str, "probs": (T, T, D), "allowed": (T, T) bool}."""
    T = len(tokens)
    if T > FEATURE_MAX_TOKENS:
        raise ValueError(f"{T} tokens: per-feature payloads stop at {FEATURE_MAX_TOKENS}; use the server path")
    out = {}
    for name, b in blocks.items():
        allowed = np.asarray(b["allowed"], bool)  # (T, T)
        cells = np.asarray(b["probs"], np.float32)[allowed]  # (N, D), row-major allowed cells
        out[name] = {
            "mask": b["mask"],
            "allowed": encode(allowed, "uint8"),
            "features": encode(quantise(cells.T), "uint16", scale=Q16_SCALE),  # (D, N) feature-major
        }
    return _payload("features", tokens, out)


def mask_payload(tokens: Sequence[str]) -> dict:
    """The Masks view needs only T (Im Eq. 7's masks are functions of the length)."""
    return _payload("masks", tokens, {})


def _block_arrays(block, T: int, field: str) -> dict:
    values = getattr(block, field)
    if field == "scores":
        arr = values[0, :, :T, :T]  # (H, T, T)
    else:
        arr = values[0, :T, :T]  # (T, T, D)
    return {"mask": block.mask, "allowed": block.allowed[0, :T, :T].numpy(), field: arr.numpy()}


def distance_payload(sent: SentenceTrace) -> dict:
    """The distance payload of one DSA sentence (B = 1; padding cut off)."""
    from disan.trace import DistanceBlockTrace  # imports torch: only the payload builders need it

    T = len(sent.tokens)
    blocks = {"fw": sent.encoder.fw, "bw": sent.encoder.bw}
    if not all(isinstance(b, DistanceBlockTrace) for b in blocks.values()):
        raise ValueError("distance payloads need a distance-based (DSA) trace")
    return distance_payload_from_arrays(sent.tokens, {k: _block_arrays(b, T, "scores") for k, b in blocks.items()})


def feature_payload(sent: SentenceTrace) -> dict:
    """The per-feature payload of one DiSAN sentence of at most ``FEATURE_MAX_TOKENS`` tokens."""
    from disan.trace import DiSABlockTrace

    T = len(sent.tokens)
    blocks = {"fw": sent.encoder.fw, "bw": sent.encoder.bw}
    if not all(isinstance(b, DiSABlockTrace) and b.probs is not None for b in blocks.values()):
        raise ValueError("feature payloads need a DiSAN trace that kept its per-feature probabilities")
    return feature_payload_from_arrays(sent.tokens, {k: _block_arrays(b, T, "probs") for k, b in blocks.items()})


def format_value(value: float) -> str:
    """α as drawn in titles (``f"{alpha:g}"``), as ``Recompute.formatValue`` writes it."""
    return f"{value:g}"
