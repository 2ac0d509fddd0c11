"""One self-contained HTML file of a trace (``python -m viz_app report``, ``trace.to_html``) and its notebook view.

Python writes data, the page draws: the file carries the trace view (``site_view.packed_trace_view``),
the figure context, the provenance its exports name (``provenance.py``) and the page code that the static
explorer runs (the report's bundle of ``browser/``'s modules, ``bundles.py``: ``figures.js`` and ``sections.js``
define every figure and section; ``report.js`` draws them with the canvas components through
``figure_host.js``, with ``recompute.js`` for α and feature k). It makes no network request and needs no server.

The trace view and its arrays are stored gzip-compressed and base64-encoded (``_packed``), and the
page unpacks them with the browser's own ``DecompressionStream``: a DiSAN NLI pair of two 64-token sentences
carries 2 sentences × 2 blocks × d_h per-feature probabilities of every allowed cell, and stored plainly the
file would pass the 10 MB the limit allows (``scripts/report_sizes.py`` prints the sizes).
"""

from __future__ import annotations

import base64
import gzip
import json
import os
from html import escape
from pathlib import Path
from typing import TYPE_CHECKING

from disan.errors import InputError
from disan.output import write_atomic
from disan.vocab import tokenize

from viz_app.draw import bundles, settings
from viz_app.draw.provenance import provenance
from viz_app.draw.site_view import figure_context, packed_trace_view

if TYPE_CHECKING:
    from disan.trace import ModelTrace  # annotations only: importing it imports torch

BROWSER = Path(__file__).resolve().parents[1] / "browser"


def check_lengths(counts: dict[str, int]) -> None:
    """``InputError`` when a sentence (name → token count) is longer than a report holds."""
    for what, n in counts.items():
        if n > settings.REPORT_MAX_TOKENS:
            raise InputError(
                f"The {what} has {n} tokens; a report holds at most {settings.REPORT_MAX_TOKENS} per sentence "
                "(its in-page maps grow with the square of the length). Shorten it."
            )


def check_text(text: str, hypothesis: str | None = None, names: tuple[str, str] = ("premise", "hypothesis")) -> None:
    """The length check before any encoding (the command runs it before loading the model's trace). ``names``:
    what the pair's inputs are called (``ModelConfig.input_names``: a relatedness model's sentence A and B)."""
    counts = {names[0] if hypothesis is not None else "text": len(tokenize(text)) if isinstance(text, str) else 0}
    if isinstance(hypothesis, str):
        counts[names[1]] = len(tokenize(hypothesis))
    check_lengths(counts)


def check_length(trace: ModelTrace) -> None:
    """``check_lengths`` for a trace's sentences (a relatedness model's: sentence A and B)."""
    if trace.hypothesis is None:
        check_lengths({"text": len(trace.premise.tokens)})
    else:
        first, second = ("sentence A", "sentence B") if trace.relatedness is not None else ("premise", "hypothesis")
        check_lengths({first: len(trace.premise.tokens), second: len(trace.hypothesis.tokens)})


def _inline_script(source: str, name: str) -> str:
    """``source`` as an inline ``<script>``; refuses text that would end the element early."""
    if "</script" in source.lower():
        raise ValueError(f"{name} contains '</script' and cannot be inlined")
    return f"<script>{source}</script>"


def _gzip_b64(raw: bytes) -> str:
    return base64.b64encode(gzip.compress(raw, compresslevel=9, mtime=0)).decode("ascii")


def _packed(raw: bytes, element_id: str) -> str:
    """``raw`` gzipped and base64-encoded in a script element that never runs (base64 has no ``<``)."""
    return f'<script type="application/gzip-base64" id="{element_id}">{_gzip_b64(raw)}</script>'


def _read(path: Path) -> str:
    return path.read_text(encoding="utf-8")


def report_html(trace: ModelTrace, *, compact: bool = False, only: str | None = None,
                params: dict | None = None, extra: dict | None = None) -> str:
    """The whole HTML document of ``trace`` (``compact``: the notebook view's subset, no keyboard handling;
    ``only``: one figure's id, that figure alone with its control, at ``params`` for a figure that takes them:
    the app's per-figure HTML download; ``extra``: a last section of figures computed beside the trace,
    ``attribution.report_section``'s)."""
    check_length(trace)
    view, arrays = packed_trace_view(trace)
    data = {"view": view, "context": figure_context(), "compact": compact, "only": only, "params": params,
            "extra": extra, "provenance": provenance(trace.model, trace.random_weights)}
    text = json.dumps(data, ensure_ascii=False, separators=(",", ":"), allow_nan=False)
    blobs = {"report-data": text.encode("utf-8"), "report-arrays": arrays}
    return document(f"{trace.model} — attention report", blobs, compact=compact)


def document(title: str, blobs: dict[str, bytes], *, compact: bool = False) -> str:
    """A report file: ``blobs`` (element id → bytes) packed (``_packed``), the page code (the
    report's bundle, ``bundles.text("report")``) and ``Disan.Report.boot``, which unpacks them; ``InputError``
    over ``settings.REPORT_MAX_BYTES``. The pair report (``pair_report.py``) shares it."""
    scripts = [
        *(_packed(raw, element_id) for element_id, raw in blobs.items()),
        _inline_script(bundles.text("report"), "the report's bundle"),
    ]
    page = (
        '<!DOCTYPE html><html lang="en"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"<title>{escape(title)}</title><style>{_read(BROWSER / 'report.css')}{_read(BROWSER / 'tokens.css')}</style>"
        f'</head><body class="{"compact" if compact else "report"}"><header id="report-header"></header>'
        f'<main id="report"></main>{"".join(scripts)}<script>Disan.Report.boot(document);</script>'
        "</body></html>"
    )
    size = len(page.encode("utf-8"))
    if size > settings.REPORT_MAX_BYTES:
        raise InputError(
            f"This report would be {size / 1e6:.1f} MB, over the {settings.REPORT_MAX_BYTES / 1e6:g} MB limit; "
            "use the trained masks (--masks default) or shorter sentences."
        )
    return page


def write_report(trace: ModelTrace, path: str | os.PathLike, extra: dict | None = None) -> Path:
    """Write the report of ``trace`` (with ``extra``, as ``report_html``) to ``path`` all-or-nothing
    (``disan.output.write_atomic``)."""
    check_length(trace)
    return write_atomic(path, lambda: report_html(trace, extra=extra))


def notebook_height(trace: ModelTrace) -> int:
    """The notebook frame's height in pixels, an estimate: the page lays its figures out itself (figures.js) and
    the sandboxed frame cannot tell the notebook its height, so this leaves room for the tokens, one pair of maps
    per sentence at a typical height and the prediction; a taller page scrolls inside the frame."""
    sentences = 1 if trace.hypothesis is None else 2
    return 360 + 300 + sentences * (480 + 80)


def notebook_html(trace: ModelTrace) -> str:
    """The compact view for Jupyter: the compact report in a sandboxed ``iframe``, so its scripts, styles
    stay out of the notebook page; nothing is loaded from the network."""
    try:
        page = report_html(trace, compact=True)
    except InputError as err:
        return f'<p style="color:#a00">{escape(str(err))}</p>'
    return (
        f'<iframe srcdoc="{escape(page, quote=True)}" sandbox="allow-scripts allow-downloads" '
        f'title="{escape(trace.model)} attention" style="width:100%;height:{notebook_height(trace)}px;'
        'border:1px solid #ddd"></iframe>'
    )
