"""The tokenizer's rules as JSON, for the browser's copy of :func:`disan.tokenize`.

The static explorer tokenizes typed text in the visitor's browser
(``viz_app/browser/tokenize.js``), and must give exactly the tokens the model was
trained on. So the browser gets no rules of its own: :func:`tokenizer_rules` reads
``disan.vocab``'s tables, constants and regex templates at call time, and the
JavaScript only runs the same clean-up loop, scanner and clitic split over them.

Every character class becomes explicit code-point ranges, found by asking Python
itself (``re``, ``unicodedata``, ``str.lower``) about every code point from U+0000
to U+10FFFF: JavaScript's ``\\w`` and ``\\d`` are ASCII-only even with the ``u``
flag, its ``\\s`` is not Python's, and its Unicode version is not Python's either.
Ranges are written as one string, ``"lo-hi lo lo-hi ..."`` in hex.

The browser's NFKC and lower case come from ICU, whose Unicode is newer than that of
Python's ``unicodedata`` (Chromium 156: Unicode 17; Python 3.11: 14.0). Over every
code point they disagree in two ways, both settled here with data Python generates:

* NFKC or lower case of code points Python's Unicode does not assign (category
  ``Cn``): Chromium 156 changes 154 of them (U+1C89, U+A7CB, U+10D50-U+10D65,
  U+16EA0..., letters added since 14.0) that Python leaves alone. ``unassigned``
  lists every ``Cn`` range, and the browser leaves those code points alone too.
* Σ's lower case, ``σ`` or word-final ``ς``, depends on the Cased and
  Case_Ignorable properties of its neighbours, which changed since 14.0 for
  U+0295 (Ll to Lo) and U+1171E (Mn to Mc). ``sigma`` carries Python's own
  sets, probed with ``str.lower``, and the browser decides Σ by them.

Everything else (decompositions, compositions, combining classes, every other
case mapping) is the same in both, as Unicode's stability policies promise;
tests/test_tokenize_js.py checks every code point.
"""

from __future__ import annotations

import itertools
import re
import sys
import unicodedata
from collections.abc import Iterable

from disan import vocab

#: Bumped when the meaning of a key changes, so a page can refuse rules it does not understand.
RULES_FORMAT = 1

_SIGMA, _FINAL_SIGMA = "\u03a3", "\u03c2"


def _hex_ranges(runs: Iterable[tuple[int, int]]) -> str:
    """``"lo-hi lo ..."`` (hex) for runs of consecutive code points, ``lo`` alone when lo == hi."""
    return " ".join(f"{lo:x}" if lo == hi else f"{lo:x}-{hi:x}" for lo, hi in runs)


def _ranges(code_points: Iterable[int]) -> str:
    """A set of code points as ranges."""
    runs = itertools.groupby(enumerate(sorted(code_points)), lambda p: p[1] - p[0])
    return _hex_ranges((cps[0][1], cps[-1][1]) for cps in (list(run) for _, run in runs))


def _class_ranges(body: str, every: str) -> str:
    """The code points Python's re matches with ``[body]``, as ranges (``every[n]`` is chr(n))."""
    return _hex_ranges((m.start(), m.end() - 1) for m in re.finditer(f"[{body}]+", every))


def _translate_groups() -> list[list]:
    """``str.translate``'s table of the clean-up as ``[replacement or None, ranges]`` pairs."""
    table = vocab._unicode_tables().translate
    by_value: dict[str | None, list[int]] = {}
    for cp, value in table.items():
        by_value.setdefault(value, []).append(cp)
    return [[value, _ranges(by_value[value])] for value in sorted(by_value, key=lambda v: (v is not None, v or ""))]


def _sigma_context() -> dict[str, str]:
    """Python's Final_Sigma context: the characters str.lower skips next to Σ, and those that count as cased.

    ``c + "Σ"`` ends in ``ς`` exactly when c is cased and not skipped; ``"A" + c + "Σ"`` also
    when c is skipped (case-ignorable), since the cased ``A`` is then what precedes Σ.
    """
    cased, ignorable = [], []
    for cp in range(sys.maxunicode + 1):
        char = chr(cp)
        if (char + _SIGMA).lower().endswith(_FINAL_SIGMA):
            cased.append(cp)
        elif ("A" + char + _SIGMA).lower().endswith(_FINAL_SIGMA):
            ignorable.append(cp)
    return {"cased": _ranges(cased), "case_ignorable": _ranges(ignorable)}


def tokenizer_rules() -> dict:
    """The JSON-able definition ``Tokenize.create`` reads (built in about a second).

    Keys: ``format``; ``unicode_version`` (Python's); ``max_clean_passes``; ``translate``
    (``[replacement or null, ranges]``: null deletes); ``unassigned`` (ranges NFKC and lower case
    must leave alone); ``sigma`` (``cased`` and ``case_ignorable`` ranges); ``ptb_escapes``
    (``[escape, text]`` in the order they are tried); ``classes`` (ranges for each class
    placeholder); ``fragments`` and ``alternatives`` (disan.vocab's regex templates, verbatim).
    """
    every = "".join(map(chr, range(sys.maxunicode + 1)))  # surrogates included, so every[n] is chr(n)
    unassigned = (cp for cp in range(sys.maxunicode + 1) if unicodedata.category(chr(cp)) == "Cn")
    return {
        "format": RULES_FORMAT,
        "unicode_version": unicodedata.unidata_version,
        "max_clean_passes": vocab._MAX_CLEAN_PASSES,
        "translate": _translate_groups(),
        "unassigned": _ranges(unassigned),
        "sigma": _sigma_context(),
        "ptb_escapes": [[escape, text] for escape, text in vocab._PTB_ESCAPES.items()],
        "classes": {name: _class_ranges(body, every) for name, body in vocab._class_bodies().items()},
        "fragments": dict(vocab._FRAGMENTS),
        "alternatives": [[name, template] for name, template in vocab._ALTERNATIVES],
    }
