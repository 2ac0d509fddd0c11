"""Payloads and bindings for the in-browser recomputation (``viz_app/browser/recompute.js``).

Pure Python (numpy, no Streamlit): the app's chart component and the offline
report send the same payload, built here from a trace, and the same bindings,
which say which trace of which figure shows which recomputed map (``binding``). The
format is read by ``recompute.js``; in short:

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
import copy
import hashlib
import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
import plotly.graph_objects as go

if TYPE_CHECKING:
    from disan.trace import SentenceTrace

from viz_app.draw.figure_json import figure_json, figure_spec
from viz_app.draw.figures import is_click_layer

#: The browser code every host embeds: classic scripts defining ``DisanRecompute`` (the maths) and
#: ``DisanPaint`` (repainting a drawn Plotly heatmap in place while a slider moves).
RECOMPUTE_JS = Path(__file__).resolve().parents[1] / "browser" / "recompute.js"
PAINT_JS = Path(__file__).resolve().parents[1] / "browser" / "paint.js"

#: Longest sentence whose per-feature probabilities are sent to the page (2 blocks × T² / 2 × D × 2 bytes:
#: about 2.4 MB at T = 64, D = 300); longer sentences keep the server path.
FEATURE_MAX_TOKENS = 64

#: uint16 quantisation of probabilities in [0, 1]: value = q · Q16_SCALE.
Q16_SCALE = 1.0 / 65535.0
#: Largest |decoded − P| of the quantised per-feature probabilities (half a quantisation step).
QUANTISATION_ERROR = 0.5 * Q16_SCALE


def recompute_js() -> str:
    """``recompute.js`` and ``paint.js``, to inline in a page (``<script>…</script>``) or a component."""
    return RECOMPUTE_JS.read_text(encoding="utf-8") + "\n" + PAINT_JS.read_text(encoding="utf-8")


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


# ---------------------------------------------------------------- bindings
def panel_traces(fig: go.Figure) -> list[int]:
    """Indices of the heatmap panels of a figure from ``figures.py``, in panel order
    (masked overlays and click layers skipped)."""
    return [i for i, t in enumerate(fig.data) if t.type == "heatmap" and t.name not in ("masked",)]


def click_traces(fig: go.Figure) -> list[int]:
    """Indices of the invisible click layers (``figures._click_layer``), one per panel when clickable."""
    return [i for i, t in enumerate(figure_spec(fig)["data"]) if is_click_layer(t)]


def templates(fig: go.Figure, replacements: Mapping[str, str]) -> dict[str, str]:
    """``{path: template}`` for every text of ``fig`` that contains a key of ``replacements``.

    ``replacements`` maps the text as drawn now to its template, e.g.
    ``{"α = 1.5": "α = {alpha}"}``; paths are dotted (``layout.annotations.3.text``).
    """
    out: dict[str, str] = {}

    def visit(node, path: str) -> None:
        if isinstance(node, dict):
            for key, value in node.items():
                visit(value, f"{path}.{key}" if path else key)
        elif isinstance(node, (list, tuple)) and node and isinstance(node[0], dict):
            for k, value in enumerate(node):
                visit(value, f"{path}.{k}")
        elif isinstance(node, str):
            text = node
            for old, new in replacements.items():
                text = text.replace(old, new)
            if text != node:
                out[path] = text

    spec = figure_spec(fig)
    visit({"layout": spec["layout"], "data": [_texts_only(t) for t in spec["data"]]}, "")
    return out


def _texts_only(trace: dict) -> dict:
    """The text fields of a trace (z, customdata and the like skipped: they are data, not labels)."""
    keep = ("name", "hovertemplate", "colorbar")
    return {k: v for k, v in trace.items() if k in keep}


def binding(
    panels: Sequence[dict],
    *,
    scales: Sequence[dict] = (),
    texts: Mapping[str, str] | None = None,
    rows: Sequence[dict] = (),
) -> dict:
    """One figure's binding (read by ``DisanRecompute.render``): panels {"trace", "z", ["pool"], ["hover_trace"]},
    scales {"traces", "zmin", "zmax", "diverging"}, rows {"trace", "z", "row"}, texts {path: template}."""
    return {"panels": list(panels), "scales": list(scales), "texts": dict(texts or {}), "rows": list(rows)}


def shared_scale(traces: Sequence[int], zmin: float | None = None, zmax: float | None = None,
                 diverging: bool = False) -> dict:
    """Traces that share one colour scale, recomputed like ``figures._limits``."""
    return {"traces": list(traces), "zmin": zmin, "zmax": zmax, "diverging": diverging}


def grid_binding(
    fig: go.Figure,
    exprs: Sequence[dict],
    replacements: Mapping[str, str],
    *,
    pool: int | None = None,
    zmin: float | None = None,
    zmax: float | None = None,
    hover: bool = False,
) -> dict:
    """The binding of a ``figures.heatmap_grid`` (or ``small_multiples``/``mask_panels``): panel k shows
    ``exprs[k]``, all panels share one colour scale; ``hover`` also rewrites the click layers' values."""
    panels = panel_traces(fig)
    clicks = click_traces(fig) if hover else []
    if len(exprs) != len(panels):
        raise ValueError(f"{len(exprs)} expressions for {len(panels)} heatmap panels")
    items = []
    for k, (trace, expr) in enumerate(zip(panels, exprs)):
        item = {"trace": trace, "z": expr}
        if pool:
            item["pool"] = pool
        if hover:
            item["hover_trace"] = clicks[k]
        items.append(item)
    return binding(items, scales=[shared_scale(panels, zmin, zmax)], texts=templates(fig, replacements))


def static_key(spec: Mapping, binding: Mapping) -> str:
    """A digest of everything in a figure (``spec``: ``figure_spec(fig)`` or ``fig.to_plotly_json()``, not
    modified; both give the same digest) that the page does
    not recompute from ``binding``, and of the binding.

    Two figures with the same key differ only in the bound maps, colour limits, row bars and templated texts,
    which the page redraws itself at its control's value; so a server figure whose key (and payload) matches
    what a chart shows is not drawn again (``chart.js``)."""
    bound: dict[int, set[str]] = {}
    for p in binding.get("panels", ()):
        bound.setdefault(p["trace"], set()).add("z")
        if "hover_trace" in p:
            bound.setdefault(p["hover_trace"], set()).add("customdata")
    for s in binding.get("scales", ()):
        for t in s["traces"]:
            bound.setdefault(t, set()).update(("zmin", "zmax"))
    for r in binding.get("rows", ()):
        bound.setdefault(r["trace"], set()).add("y")
    static = {
        "data": [{k: v for k, v in trace.items() if k not in bound.get(i, ())} for i, trace in enumerate(spec["data"])],
        "layout": copy.deepcopy(spec["layout"]),
    }
    for path in binding.get("texts", {}):  # the templates themselves are part of the binding, hashed below
        if path.startswith("data."):  # copy the trace entry the path enters: ``spec`` stays as it is
            _, index, key = path.split(".", 3)[:3]
            trace = static["data"][int(index)]
            trace[key] = copy.deepcopy(trace[key]) if key in trace else None
        _set_path(static, path, None)
    text = figure_json(static) + json.dumps(dict(binding), sort_keys=True)
    return hashlib.sha1(text.encode()).hexdigest()


def _set_path(obj: dict, path: str, value) -> None:
    """``DisanRecompute``'s setPath on a dict of dicts and lists (list indices are numbers in ``path``)."""
    *head, last = path.split(".")
    for key in head:
        obj = obj[int(key)] if isinstance(obj, list) else obj.setdefault(key, {})
    if isinstance(obj, list):
        obj[int(last)] = value
    else:
        obj[last] = value


def format_value(value: float) -> str:
    """α as drawn in titles (``f"{alpha:g}"``), as ``DisanRecompute.formatValue`` writes it."""
    return f"{value:g}"
