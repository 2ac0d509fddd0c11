"""One self-contained HTML file of a trace (``python -m disan report``, ``trace.to_html``) and its notebook view.

The file carries everything it needs inline: plotly.js from the installed
``plotly`` package, the app's in-browser recomputation (``browser/recompute.js``:
α and feature k), the page script (``browser/report.js``) and the data. It
makes no network request and needs no server. Figures come from the app's own
pure builders (``report_sections.py`` → ``figures.py``), serialised by Plotly.

plotly.js, the data and the payload arrays inside it are stored gzip-compressed
and base64-encoded (``_packed``), and the page unpacks them with the browser's
own ``DecompressionStream``: a DiSAN NLI pair of two 64-token sentences carries
2 sentences × 2 blocks × d_h per-feature probabilities of every allowed cell, and
stored plainly the file would pass the 10 MB the issue allows
(``scripts/report_sizes.py`` prints the sizes).
"""

from __future__ import annotations

import base64
import gzip
import json
import os
from html import escape
from pathlib import Path
from typing import TYPE_CHECKING

import plotly

from disan.errors import InputError
from disan.output import write_atomic
from disan.vocab import tokenize

from viz_app.draw import live, settings
from viz_app.draw.figure_json import figure_json
from viz_app.draw.records import TraceView, trace_view
from viz_app.draw.report_sections import Section, compact_sections, report_sections, word_frames
from viz_app.draw.theme import NORMAL, PRESENTATION

if TYPE_CHECKING:
    from disan.trace import ModelTrace  # annotations only: importing it imports torch

BROWSER = Path(__file__).resolve().parents[1] / "browser"
PLOTLY_JS = Path(plotly.__file__).resolve().parent / "package_data" / "plotly.min.js"
#: The page's own script, inlined after plotly.js and the recomputation shared with the app (``live.recompute_js``).
PAGE_SCRIPT = BROWSER / "report.js"


def check_lengths(counts: dict[str, int]) -> None:
    """``InputError`` when a sentence (name → token count) is longer than a report holds."""
    for what, n in counts.items():
        if n > settings.REPORT_MAX_TOKENS:
            raise InputError(
                f"The {what} has {n} tokens; a report holds at most {settings.REPORT_MAX_TOKENS} per sentence "
                "(its in-page maps grow with the square of the length). Shorten it."
            )


def check_text(text: str, hypothesis: str | None = None) -> None:
    """The length check before any encoding (the command runs it before loading the model's trace)."""
    counts = {"premise" if hypothesis is not None else "text": len(tokenize(text)) if isinstance(text, str) else 0}
    if isinstance(hypothesis, str):
        counts["hypothesis"] = len(tokenize(hypothesis))
    check_lengths(counts)


def check_length(trace: ModelTrace) -> None:
    """``check_lengths`` for a trace's sentences."""
    if trace.hypothesis is None:
        check_lengths({"text": len(trace.premise.tokens)})
    else:
        check_lengths({"premise": len(trace.premise.tokens), "hypothesis": len(trace.hypothesis.tokens)})


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


def packed_arrays(payload: dict) -> dict:
    """A live payload whose arrays carry ``gz`` (gzipped bytes, base64) instead of ``b64``; report.js turns
    them back into live's own format before ``DisanRecompute.prepare``."""
    def pack(value):
        if isinstance(value, dict) and "b64" in value:
            rest = {k: v for k, v in value.items() if k != "b64"}
            return {**rest, "gz": _gzip_b64(base64.b64decode(value["b64"]))}
        return value

    blocks = {name: {k: pack(v) for k, v in block.items()} for name, block in payload["blocks"].items()}
    return {**payload, "blocks": blocks}


def payload(trace: ModelTrace, side: str) -> dict:
    """The recompute.js payload of one sentence (``viz_app.draw.live``): scores for the DSA, features for DiSAN."""
    sent = trace.hypothesis if side == "hypothesis" else trace.premise
    return live.distance_payload(sent) if trace.arch == "dsa" else live.feature_payload(sent)


def page_data(trace: ModelTrace, tv: TraceView, sections: list[Section], compact: bool) -> dict:
    """What the page script reads: the figures, the bindings of those it redraws and their payloads."""
    figs = [f for s in sections for f in s.figures]
    sides = {"premise": tv.premise, "hypothesis": tv.hypothesis}
    bound = [f for f in figs if f.binding is not None]
    return {
        "arch": trace.arch,
        "alpha": trace.alpha,
        "compact": compact,
        "fonts": {"normal": NORMAL.font_size, "talk": PRESENTATION.font_size},
        "figures": {f.id: json.loads(figure_json(f.figure.to_plotly_json())) for f in figs},
        "live": {f.id: {"side": f.side, "binding": f.binding} for f in bound},
        "payloads": {side: packed_arrays(payload(trace, side)) for side in sorted({f.side for f in bound})},
        "words": {f.side: word_frames(sides[f.side]) for f in figs if f.word},
    }


def _control(section: Section, tv: TraceView, d_h: int) -> str:
    """The in-page control a section starts with (an ordinary range input or select)."""
    if section.control == "alpha":
        a = tv.alpha if tv.alpha is not None else settings.PAPER_ALPHA
        return (
            '<label class="control">α — distance-mask weight (Im Eq. 7) '
            f'<input type="range" data-control="alpha" min="{settings.ALPHA_MIN:g}" max="{settings.ALPHA_MAX:g}" '
            f'step="{settings.ALPHA_STEP:g}" value="{a:g}" aria-label="alpha"> <output>{a:g}</output></label>'
        )
    if section.control == "feature":
        return (
            f'<label class="control">feature k (0–{d_h - 1}) <input type="range" data-control="feature" min="0" '
            f'max="{d_h - 1}" step="1" value="0" aria-label="feature k"> <output>0</output></label>'
        )
    if section.control == "word":
        out = []
        for side, sent in (("premise", tv.premise), ("hypothesis", tv.hypothesis)):
            if sent is None:
                continue
            options = "".join(f'<option value="{i}">#{i} {escape(t)}</option>' for i, t in enumerate(sent.tokens))
            name = f"{side} word" if tv.hypothesis is not None else "word"
            out.append(f'<label class="control">{name} <select data-control="word" data-side="{side}">'
                       f"{options}</select></label>")
        return "".join(out)
    return ""


def _section_html(section: Section, tv: TraceView, d_h: int) -> str:
    figs = "".join(
        f'<figure class="fig"><div class="plot" id="fig-{f.id}" data-fig="{f.id}"></div>'
        f"<figcaption><b>{escape(f.paper)}.</b> {escape(f.caption)}</figcaption></figure>"
        for f in section.figures
    )
    return (
        f'<section class="section" id="{section.id}" tabindex="-1"><h2>{escape(section.title)}</h2>'
        f"{_control(section, tv, d_h)}{section.html}{figs}</section>"
    )


def _header(tv: TraceView, sections: list[Section], compact: bool) -> str:
    text = " ".join(tv.premise.tokens)
    lines = [f"<h1>{escape(tv.model)}: {escape(text)}</h1>"]
    if tv.hypothesis is not None:
        lines.append(f'<p class="sub">hypothesis: {escape(" ".join(tv.hypothesis.tokens))}</p>')
    facts = [f"masks {tv.masks[0]}/{tv.masks[1]}"]
    if tv.alpha is not None:
        facts.append(f"encoder pass at α = {tv.alpha:g}")
    paper = "Shen et al. 2018 (DiSAN)" if tv.arch == "disan" else "Im & Cho 2017 (distance-based SAN)"
    lines.append(f'<p class="sub">{escape(paper)} · {" · ".join(escape(f) for f in facts)}</p>')
    if tv.random_weights:
        lines.append('<p class="warn">Random weights (no trained checkpoint): these patterns are not learned.</p>')
    if not compact:
        nav = " ".join(f'<a href="#{s.id}">{escape(s.title)}</a>' for s in sections)
        lines.append(
            f'<nav>{nav}</nav><p class="keys"><button type="button" data-control="talk" aria-pressed="false">'
            "Talk mode</button> keys: j / → / PageDown next section · k / ← / PageUp previous · t talk mode "
            "(large fonts, one section per screen)</p>"
        )
    return f'<header>{"".join(lines)}</header>'


def _read(path: Path) -> str:
    return path.read_text(encoding="utf-8")


def report_html(trace: ModelTrace, *, compact: bool = False) -> str:
    """The whole HTML document of ``trace`` (``compact``: the notebook view's subset, no keyboard handling)."""
    return _document(trace, compact)[0]


def _document(trace: ModelTrace, compact: bool) -> tuple[str, list[Section]]:
    check_length(trace)
    tv = trace_view(trace)
    sections = compact_sections(tv, trace) if compact else report_sections(tv, trace)
    d_h = tv.premise.s2t.shape[1] // 2
    data = json.dumps(page_data(trace, tv, sections, compact), ensure_ascii=False, separators=(",", ":"),
                      allow_nan=False)
    scripts = [
        _packed(PLOTLY_JS.read_bytes(), "plotly-js"),
        _packed(data.encode("utf-8"), "report-data"),
        _inline_script(live.recompute_js(), "recompute.js"),
        _inline_script(_read(PAGE_SCRIPT), "report.js"),
    ]
    body = "".join(_section_html(s, tv, d_h) for s in sections)
    page = (
        '<!DOCTYPE html><html lang="en"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"<title>{escape(tv.model)} — attention report</title><style>{_read(BROWSER / 'report.css')}</style>"
        f'</head><body class="{"compact" if compact else "report"}">{_header(tv, sections, compact)}'
        f'<main id="report">{body}</main>{"".join(scripts)}<script>DisanReport.boot(document);</script>'
        "</body></html>"
    )
    size = len(page.encode("utf-8"))
    if size > settings.REPORT_MAX_BYTES:
        raise InputError(
            f"This report would be {size / 1e6:.1f} MB, over the {settings.REPORT_MAX_BYTES / 1e6:g} MB limit; "
            "use the trained masks (--masks default) or shorter sentences."
        )
    return page, sections


def write_report(trace: ModelTrace, path: str | os.PathLike) -> Path:
    """Write the report of ``trace`` to ``path`` all-or-nothing (``disan.output.write_atomic``)."""
    check_length(trace)
    return write_atomic(path, lambda: report_html(trace))


def notebook_html(trace: ModelTrace) -> str:
    """The compact view for Jupyter: the compact report in a sandboxed ``iframe``, so its scripts, styles
    and plotly.js stay out of the notebook page; nothing is loaded from the network."""
    try:
        page, sections = _document(trace, compact=True)
    except InputError as err:
        return f'<p style="color:#a00">{escape(str(err))}</p>'
    height = 360 + sum(f.figure.layout.height or 400 for s in sections for f in s.figures)
    return (
        f'<iframe srcdoc="{escape(page, quote=True)}" sandbox="allow-scripts allow-downloads" '
        f'title="{escape(trace.model)} attention" style="width:100%;height:{height}px;border:1px solid #ddd"></iframe>'
    )
