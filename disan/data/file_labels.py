"""Label names and label checks of a user's file (``disan.data.file_task``): classes or a score's grades.

Classes: the training part's distinct labels, sorted (numerically when all are integers), at least two; a dev
or test label never seen in train is refused. Scores (``--regression``, pairs or one sentence): grades 1..K of the
relatedness module's output (Tai, Socher & Manning 2015, Sec. 4.2), K = the training scores' ceiling; each score
must lie in [1, K].
"""

from __future__ import annotations

import math
from collections import Counter
from typing import TYPE_CHECKING

import numpy as np

from .example import Example
from .table_file import TableFileError

if TYPE_CHECKING:
    from .file_task import _Rows

#: A classification label column with more distinct numbers than this, some not integers, looks like a score.
SCORE_LIKE_VALUES = 20
#: Texts that stand for a missing value, compared lower-cased: a CSV/TSV is read with no NA parsing (a text
#: "NA" stays text), so a label column written by ``df.astype(str).to_csv`` ("nan"), R ("NA") or a spreadsheet
#: ("#N/A") trained such a text as a class of its own. "none" is left out: it is a real class in many sets.
MISSING_LABELS = frozenset({"", "nan", "-nan", "+nan", "<na>", "na", "n/a", "#n/a", "null"})


def missing_label(value: str) -> bool:
    """Whether a label read as text (a null or NaN read as "", by ``read_chunks``) is a missing value."""
    return value.strip().lower() in MISSING_LABELS


def where(lines: list[str], rows: list[int], shown: int = 5) -> str:
    """``rows``' places from ``lines`` (``"line 3"`` or Parquet's ``"row 3"``, one per row) as one phrase:
    ``line 3``, ``lines 3, 5 and 9``, ``lines 3, 5, 9, 11, 12 and 7 more``."""
    kind, *_ = lines[rows[0]].split()
    numbers = [lines[i].split()[-1] for i in rows[:shown]]
    if len(rows) == 1:
        return f"{kind} {numbers[0]}"
    last = f"{len(rows) - shown:,} more" if len(rows) > shown else numbers.pop()
    return f"{kind}s {', '.join(numbers)} and {last}"


def number(value: str) -> float | None:
    try:
        x = float(value)
    except ValueError:
        return None
    return x if math.isfinite(x) else None


def _label_order(values: set[str]) -> tuple[str, ...]:
    if all(number(v) is not None and float(v).is_integer() for v in values):
        return tuple(sorted(values, key=float))
    return tuple(sorted(values))


def class_labels(parts: dict, spec: FileSpec):
    rows, idx = parts["train"]
    seen = Counter(rows.labels[i] for i in idx)
    if len(seen) < 2:
        only = ", ".join(repr(v) for v in seen) or "none"
        raise TableFileError(f"{rows.file}: the label column {spec.label!r} has one class only in train ({only}); "
                             "a classifier needs at least two (or pass --regression for a numeric score).")
    numbers = [number(v) for v in seen]
    if len(seen) > SCORE_LIKE_VALUES and all(x is not None for x in numbers) and not all(x.is_integer() for x in numbers):
        raise TableFileError(f"{rows.file}: the label column {spec.label!r} holds {len(seen):,} different numbers "
                             f"(e.g. {next(iter(seen))!r}); pass --regression to train a score, or give class names.")
    labels = _label_order(set(seen))
    index = {name: i for i, name in enumerate(labels)}
    for name in ("dev", "test"):
        other, oidx = parts[name]
        unseen = Counter(other.labels[i] for i in oidx if other.labels[i] not in index)
        if unseen:
            shown = ", ".join(f"{v!r} ({n:,} rows)" for v, n in unseen.most_common(5))
            raise TableFileError(f"{other.file}: the {name} part has label(s) never seen in train: {shown}; train "
                                 f"knows {', '.join(map(repr, labels))}. Relabel those rows or move them to train.")

    def to_example(r: _Rows, ids: np.ndarray) -> list[Example]:
        return [Example(r.texts[i], index[r.labels[i]], r.pairs[i] if r.pairs else None, r.lines[i]) for i in ids]

    return labels, to_example


def score_labels(parts: dict, spec: FileSpec):
    scores = {}
    for name, (r, ids) in parts.items():
        values = []
        for i in ids:
            x = number(r.labels[i])
            if x is None:
                raise TableFileError(f"{r.lines[i].split(':')[0]}, {r.lines[i].split(':', 1)[1]}: label {r.labels[i]!r} "
                                     f"in {spec.label!r} is not a number; --regression needs a numeric label column.")
            values.append(x)
        scores[name] = np.array(values, dtype=np.float64)
    k = math.ceil(scores["train"].max())
    for name, values in scores.items():
        if len(values) and (values.min() < 1 or values.max() > k):
            r = parts[name][0]
            raise TableFileError(f"{r.file}: {name} scores run from {values.min():g} to {values.max():g}; the "
                                 f"regression head predicts grades 1..K (here K = {k}, train's highest score "
                                 "rounded up), so rescale the label to lie between 1 and K.")
    if k < 2:
        raise TableFileError(f"{parts['train'][0].file}: every train score is 1; the regression head needs scores "
                             "spread over at least the grades 1..2.")
    labels = tuple(str(g) for g in range(1, k + 1))

    def to_example(r: _Rows, ids: np.ndarray) -> list[Example]:
        out = []
        for i in ids:
            y = float(r.labels[i])
            out.append(Example(r.texts[i], min(k, max(1, math.floor(y + 0.5))) - 1, r.pairs[i] if r.pairs else None,
                               r.lines[i], y))
        return out

    return labels, to_example


def class_counts(examples: list[Example], labels: tuple[str, ...], regression: bool) -> dict:
    """Examples per class (per nearest grade for a score)."""
    counts = Counter(labels[e.label] for e in examples)
    return {name: counts.get(name, 0) for name in labels}
