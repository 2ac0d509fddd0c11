"""A user's labelled file as a task like the built-in ones: train/dev/test examples, label names and a record.

The label names come from the file (sorted; numerically when every label is an integer) and are saved in the
checkpoint's config. Splits come from ``--dev``/``--test`` files, a ``--split`` column (train/dev/test), or a
seeded split of the file stratified by label, recorded with its sizes, seed and the SHA-256 of its indices.
``--regression`` reads a numeric label as a score, trained as the relatedness module of ``disan-sick`` does it
(Tai, Socher & Manning 2015, Sec. 4.2), for pairs or one sentence: grades 1..K with K = the training scores'
ceiling, so scores must lie in [1, K].
Every refusal is one ``TableFileError`` line naming the file, the value and the fix.
"""

from __future__ import annotations

import hashlib
import itertools
import json
import math
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from ..checkpoint import sha256
from .example import Example
from .file_labels import class_labels, class_counts, missing_label, number, score_labels, where
from .table_file import TableFileError, check_file, read_chunks, row_lines, table_format

#: Values of a ``--split`` column and the part each names.
SPLIT_NAMES = {"train": "train", "dev": "dev", "validation": "dev", "valid": "dev", "val": "dev", "trial": "dev",
               "test": "test"}
#: Seed and fractions of the split made when the file gives none.
SPLIT_SEED = 13
DEV_FRACTION = 0.1
TEST_FRACTION = 0.1


@dataclass(frozen=True)
class FileSpec:
    """Where a file task's examples are: the file(s), the columns and how to split."""

    data: str
    text: str = "text"
    text_pair: str | None = None
    label: str = "label"
    regression: bool = False
    dev: str | None = None
    test: str | None = None
    split: str | None = None
    split_seed: int = SPLIT_SEED


@dataclass
class FileTask:
    labels: tuple[str, ...]
    pair: bool
    relatedness: bool
    parts: dict[str, list[Example]]
    record: dict = field(default_factory=dict)


@dataclass
class _Rows:
    file: Path
    texts: list[str]
    pairs: list[str] | None
    labels: list[str]
    splits: list[str] | None
    lines: list[str]  # where each row is, for messages and Example.source


def read_rows(path: str, spec: FileSpec, with_split: bool) -> _Rows:
    """Every row of the named columns, checked: rows exist, texts are text and not blank, labels not blank."""
    p = check_file(path)
    fmt = table_format(p)
    wanted = [spec.text] + ([spec.text_pair] if spec.text_pair else []) + [spec.label] + ([spec.split] if with_split else [])
    cols: dict[str, list[str]] = {c: [] for c in wanted}
    rows: list[int] = []
    for frame in read_chunks(p, wanted):
        for c in cols:
            cols[c].extend(frame[c].tolist())
        rows.extend(frame.index.tolist())
    if not rows:
        raise TableFileError(f"{p} has a header but no rows; give at least one labelled row per class.")
    lines = list(itertools.islice(row_lines(p, fmt), len(rows)))  # rows are 0..n-1, in file order
    for flag, column in (("--text", spec.text), ("--text-pair", spec.text_pair)):
        if column is None:
            continue
        values = cols[column]
        blank = [i for i, v in enumerate(values) if not v.strip()]
        if blank:
            raise TableFileError(f"{p}: {len(blank):,} row(s) have a blank {column!r} ({flag}), the first at "
                                 f"{lines[blank[0]]}; fill them in or remove those rows.")
        if all(number(v) is not None for v in values):
            raise TableFileError(f"{p}: column {column!r} given as {flag} holds numbers only (e.g. {values[0]!r}), "
                                 "not sentences; name the text column with " + flag + ".")
    missing = [i for i, v in enumerate(cols[spec.label]) if missing_label(v)]
    if missing:  # each one's line, so they can be found and filled in; a text such as "nan" may be a class's name
        texts = sorted({cols[spec.label][i].strip() for i in missing} - {""})
        named = f" (a class really named {texts[0]!r} needs another name)" if texts else ""
        raise TableFileError(f"{p}: {len(missing):,} row(s) have no label in {spec.label!r} (empty, null, NaN or "
                             f"NA) at {where(lines, missing)}; fill them in or remove those rows{named}.")
    return _Rows(p, cols[spec.text], cols[spec.text_pair] if spec.text_pair else None,
                 [v.strip() for v in cols[spec.label]], cols[spec.split] if with_split else None,
                 [f"{p.name}:{line}" for line in lines])


def load_file_task(spec: FileSpec) -> FileTask:
    """The task of ``spec``: its parts, label names and the record the card prints."""
    main = read_rows(spec.data, spec, with_split=spec.split is not None)
    parts = _split(main, spec)
    for name, path in (("dev", spec.dev), ("test", spec.test)):
        if path is not None:
            parts[name] = _all(read_rows(path, spec, with_split=False))
    if spec.regression:
        labels, to_example = score_labels(parts, spec)
    else:
        labels, to_example = class_labels(parts, spec)
    examples = {name: to_example(rows, idx) for name, (rows, idx) in parts.items()}
    files = {"data": spec.data} | ({"dev": spec.dev} if spec.dev else {}) | ({"test": spec.test} if spec.test else {})
    record = {
        "files": {k: {"path": str(Path(v).expanduser().resolve()), "sha256": sha256(Path(v).expanduser())}
                  for k, v in files.items()},
        "columns": {"text": spec.text, "text_pair": spec.text_pair, "label": spec.label, "split": spec.split},
        "kind": kind_of(spec),
        "splits": _split_record(parts, spec),
        "class_counts": {name: class_counts(exs, labels, spec.regression) for name, exs in examples.items()},
    }
    return FileTask(labels, spec.text_pair is not None, spec.regression, examples, record)


def kind_of(spec: FileSpec) -> str:
    if not spec.regression:
        return "classification"
    return "regression (relatedness module)" if spec.text_pair else "regression (one sentence, grades 1..K)"


def _all(rows: _Rows) -> tuple[_Rows, np.ndarray]:
    return rows, np.arange(len(rows.texts))


def _split(rows: _Rows, spec: FileSpec) -> dict[str, tuple[_Rows, np.ndarray]]:
    """train/dev/test index sets into ``rows``: the --split column's, the rest a seeded stratified split."""
    n = len(rows.texts)
    if rows.splits is not None:
        names = [SPLIT_NAMES.get(v.strip().lower()) for v in rows.splits]
        bad = next((i for i, s in enumerate(names) if s is None), None)
        if bad is not None:
            raise TableFileError(f"{rows.file}: --split column {spec.split!r} has {rows.splits[bad]!r} at "
                                 f"{rows.lines[bad].split(':', 1)[1]}; use train, dev (or validation) and test.")
        given = {part: np.array([i for i, s in enumerate(names) if s == part], dtype=np.int64)
                 for part in ("train", "dev", "test")}
        for part, own in (("dev", spec.dev), ("test", spec.test)):
            if own is not None and len(given[part]):  # two sources for one part: one set of rows would be dropped
                raise TableFileError(f"{rows.file}: --split column {spec.split!r} marks {len(given[part]):,} rows "
                                     f"{part} and --{part} gives a {part} file too; use one of them.")
    else:
        given = {"train": np.arange(n), "dev": np.array([], np.int64), "test": np.array([], np.int64)}
    train = given["train"]
    if not len(train):
        raise TableFileError(f"{rows.file}: no row is in the train part (--split {spec.split!r}); mark some 'train'.")
    strata = _strata(rows, spec, train)
    rng = np.random.default_rng(spec.split_seed)
    for part, fraction, from_file in (("test", TEST_FRACTION, spec.test), ("dev", DEV_FRACTION, spec.dev)):
        if len(given[part]) or from_file is not None:
            continue
        held = _stratified_take(train, strata, fraction * n / max(1, len(train)), rng)
        given[part] = np.sort(held)
        keep = ~np.isin(train, held)
        train, strata = train[keep], strata[keep]
    given["train"] = train
    own_file = {"dev": spec.dev, "test": spec.test}  # a part given as its own file is read by the caller
    return {part: (rows, idx) for part, idx in given.items() if own_file.get(part) is None}


def _strata(rows: _Rows, spec: FileSpec, idx: np.ndarray) -> np.ndarray:
    """What the held-out parts are stratified by: the label, or a score's nearest integer grade."""
    if spec.regression:
        return np.array([str(round(number(rows.labels[i]) or 0.0)) for i in idx])
    return np.array([rows.labels[i] for i in idx])


def _stratified_take(idx: np.ndarray, strata: np.ndarray, fraction: float, rng: np.random.Generator) -> np.ndarray:
    """About ``fraction`` of each stratum (rounded, at least one when the stratum has two or more)."""
    taken = []
    for value in sorted(set(strata.tolist())):
        members = rng.permutation(idx[strata == value])
        k = min(len(members) - 1, max(1 if len(members) > 1 else 0, int(round(fraction * len(members)))))
        taken.append(members[:k])
    return np.concatenate(taken) if taken else np.array([], np.int64)


def _split_record(parts: dict, spec: FileSpec) -> dict:
    """Sizes, where each part came from, and (for a seeded split) the seed and its indices' SHA-256."""
    out = {}
    for name in ("train", "dev", "test"):
        rows, idx = parts[name]
        own = getattr(spec, name) if name != "train" else None
        if own:
            how = f"file {Path(own).name}"
        elif spec.split and (name == "train" or rows.splits is not None and _marked(rows, name)):
            how = f"--split column {spec.split!r} of {rows.file.name}"
        elif name == "train":
            how = f"file {rows.file.name}, less the held-out parts below" if not (spec.dev and spec.test) else f"file {rows.file.name}"
        else:
            how = None
        entry = {"n": int(len(idx)), "from": how or f"a seeded stratified split of {rows.file.name}"}
        if how is None:
            entry |= {"seed": spec.split_seed, "fraction_of_file": DEV_FRACTION if name == "dev" else TEST_FRACTION,
                      "indices_sha256": hashlib.sha256(json.dumps(idx.tolist()).encode()).hexdigest()}
        out[name] = entry
    return out


def _marked(rows: _Rows, part: str) -> bool:
    """Whether the --split column names any row ``part``."""
    return any(SPLIT_NAMES.get(v.strip().lower()) == part for v in rows.splits or ())


def read_for_model(path: str, spec: FileSpec, labels: tuple[str, ...], relatedness: bool) -> list[Example]:
    """Every row of ``path`` as examples of a trained model's labels (``disan evaluate --data``)."""
    rows = read_rows(path, spec, with_split=False)
    ids = np.arange(len(rows.texts))
    if relatedness:
        k = len(labels)
        out = []
        for i in ids:
            y = number(rows.labels[i])
            if y is None or not 1 <= y <= k:
                raise TableFileError(f"{rows.file}, {rows.lines[i].split(':', 1)[1]}: score {rows.labels[i]!r} in "
                                     f"{spec.label!r} is not a number from 1 to {k}, the model's grades.")
            out.append(Example(rows.texts[i], min(k, max(1, math.floor(y + 0.5))) - 1, rows.pairs[i] if rows.pairs else None,
                               rows.lines[i], y))
        return out
    index = {name: i for i, name in enumerate(labels)}
    unknown = Counter(v for v in rows.labels if v not in index)
    if unknown:
        shown = ", ".join(f"{v!r} ({n:,} rows)" for v, n in unknown.most_common(5))
        raise TableFileError(f"{rows.file} has label(s) the model was not trained on: {shown}; it knows "
                             f"{', '.join(map(repr, labels))}.")
    return [Example(rows.texts[i], index[rows.labels[i]], rows.pairs[i] if rows.pairs else None, rows.lines[i])
            for i in ids]
