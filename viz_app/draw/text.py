"""Escaping of user text before it reaches Plotly (pseudo-HTML) or Streamlit markdown."""

from __future__ import annotations

import re

_HTML = {"&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;"}
_MD_SPECIAL = re.compile(r"([\\`*_{}\[\]()#+\-.!|<>~:$&=\"'^%@;/?,])")


def html_escape(text: object) -> str:
    """Escape ``& < > "`` so Plotly shows the characters instead of interpreting tags.

    Plotly renders a subset of HTML (``<b>``, ``<a href>``, ``<br>``…) in axis
    labels, titles and hover text, and turns ``&lt;`` back into ``<`` on screen.
    """
    return "".join(_HTML.get(ch, ch) for ch in str(text))


def md_escape(text: object) -> str:
    """Backslash-escape every ASCII punctuation character that markdown could act on.

    CommonMark allows a backslash before any ASCII punctuation, so the escaped
    text renders literally; newlines become spaces so it stays inline.
    """
    flat = " ".join(str(text).split())
    return _MD_SPECIAL.sub(r"\\\1", flat)


def _escape_keeping_spaces(part: str) -> str:
    return _MD_SPECIAL.sub(r"\\\1", part)


def md_escape_code(text: object) -> str:
    """``md_escape`` that keeps the text's `code` spans as code (a model card's recipe notes write `<unk>` and
    model names so): the text between a pair of backticks is a code span, which Markdown shows literally; the
    rest is escaped. Text with an unpaired backtick is escaped whole."""
    parts = " ".join(str(text).split()).split("`")
    if len(parts) % 2 == 0:
        return md_escape(text)
    return "".join(f"`{part}`" if k % 2 and part.strip() else _escape_keeping_spaces(f"`{part}`" if k % 2 else part)
                   for k, part in enumerate(parts))
