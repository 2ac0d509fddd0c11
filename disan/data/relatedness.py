"""SICK semantic relatedness (Marelli et al. 2014) on the official SemEval-2014 split files.

Shen Sec. 5.3 (Table 4) uses the 4,500 / 500 / 4,927 train / trial / test pairs; the trial
file is the dev set. Each row's ``relatedness_score`` (a mean of annotators' 1-5 grades) is the
gold value; ``label`` is its nearest integer grade, as an index into :data:`SICK_GRADES`.
"""

from __future__ import annotations

import math
from functools import partial
from types import MappingProxyType

from .example import Example, StrPath, _check_choice
from .labels import SICK_GRADES
from .lines import CorruptLineError, _collect, _text_lines
from .paths import _resolve_root, require_file

#: Official SemEval-2014 task 1 files; the trial set is the dev set (Shen Sec. 5.3: 4,500/500/4,927).
SICK_SPLIT_FILES = MappingProxyType({
    "train": "SICK_train.txt", "dev": "SICK_trial.txt", "test": "SICK_test_annotated.txt",
})
_COLUMNS = ("sentence_A", "sentence_B", "relatedness_score")


def _columns(header: str) -> tuple[int, int, int]:
    """Indices of sentence_A, sentence_B and relatedness_score in a SICK header line."""
    names = [n.strip() for n in header.split("\t")]
    missing = [n for n in _COLUMNS if n not in names]
    if missing:
        raise ValueError(f"header {names} lacks {missing}; expected pair_ID, sentence_A, sentence_B, "
                         "relatedness_score, entailment_judgment (tab-separated)")
    return tuple(names.index(n) for n in _COLUMNS)  # type: ignore[return-value]


def grade_index(score: float) -> int:
    """Nearest integer grade of a 1-5 score, as an index into SICK_GRADES (halves round up)."""
    return min(len(SICK_GRADES), max(1, math.floor(score + 0.5))) - 1


def _parse_row(line: str, source: str, columns: tuple[int, int, int]) -> list[Example]:
    fields = line.split("\t")
    if len(fields) <= max(columns):
        raise ValueError(f"expected at least {max(columns) + 1} tab-separated fields, found {len(fields)}")
    text, hypothesis, raw = (fields[i].strip() for i in columns)
    try:
        score = float(raw)
    except ValueError:
        raise ValueError(f"relatedness_score {raw!r} is not a number") from None
    top = float(len(SICK_GRADES))
    if not 1.0 <= score <= top:  # also refuses nan
        raise ValueError(f"relatedness_score {score} is outside 1..{top:g}")
    if not text or not hypothesis:
        raise ValueError("empty sentence_A or sentence_B")
    return [Example(text, grade_index(score), hypothesis, source, score)]


def load_sick_relatedness(split: str, data_dir: StrPath | None = None,
                          on_error: str = "raise") -> list[Example]:
    """SICK pairs of ``split`` (train / dev = trial / test) with their relatedness scores.

    Reads ``sick/SICK_train.txt``, ``SICK_trial.txt`` or ``SICK_test_annotated.txt``
    (tab-separated, a header first; CRLF line ends allowed). Columns are found by name.
    A bad header raises :class:`CorruptLineError` at line 1 whatever ``on_error`` says.
    """
    _check_choice("split", split, tuple(SICK_SPLIT_FILES))
    path = require_file(_resolve_root(data_dir) / "sick" / SICK_SPLIT_FILES[split], "sick")
    lines = _text_lines(path)
    try:
        columns = _columns(lines[0] if lines else "")
    except ValueError as exc:
        raise CorruptLineError(path, 1, str(exc)) from None
    return _collect(path, lines[1:], partial(_parse_row, columns=columns), on_error, start=2)
