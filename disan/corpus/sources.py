"""``--data NAME|FILE``: the examples an index holds, read in fixed chunks.

NAME is ``all`` (every corpus below the model reads), a comma-separated list, or one of ``CORPORA`` (whole datasets of ``../shared/data`` through the project's own loaders), optionally
``NAME:SPLIT`` for one split of a task (``sst5:test``, ``snli:dev``: ``data.load_task``). A named corpus is read by
its loader (the largest, SNLI dev + test, is 20,000 pairs).

FILE is one of three kinds, each read in a stream so a corpus larger than memory is indexed in bounded memory:

* a labelled table (CSV, TSV, JSON Lines, plain or ``.gz``, and Parquet), read by its columns
  (``table_source``); each example's source is the file's line (header = line 1), or a Parquet row.
* an SNLI-format ``.jsonl[.gz]`` (its first object has ``sentence1``, ``sentence2`` and ``gold_label``) when no
  column is named: ``data.load_nli_jsonl``.
* any other file (``.txt``): strict UTF-8 text, one sentence a line (a pair model: ``premise<TAB>hypothesis``),
  plain or ``.gz``; blank lines are skipped and each example keeps its 1-based line. A ``.tsv``/``.tab`` whose
  first line names no column to read, when no column is named and that line has as many fields as the model
  reads (one, or two for pairs), is such a headerless file too, as before tables were read.

A file that is not UTF-8 text (latin-1, Parquet renamed ``.txt``) is one ``InputError`` naming its line.
"""

from __future__ import annotations

import gzip
import hashlib
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

from ..data import (NLI_LABELS, SST5_LABELS, TASK_LABELS, Example, load_nli_jsonl, load_senteval, load_sick,
                    load_snli, load_sst_trees, load_task, load_trec)
from ..data.labels import CR_LABELS, MPQA_LABELS, SUBJ_LABELS, TREC_LABELS
from ..errors import InputError

#: Examples per chunk: the unit of batching, of a Parquet part, of resuming and of a Ray task.
CHUNK = 1024


@dataclass(frozen=True)


class Item:
    """One example to index: ``gold`` is a label name (None when the source has none)."""

    text: str
    hypothesis: str | None
    gold: str | None
    gold_score: float | None
    source: str
    corpus: str = ""


@dataclass(frozen=True)


class Corpus:
    """What ``--data`` names: ``ident`` goes into the manifest (a name, or a path with its SHA-256)."""

    name: str
    pair: bool
    ident: dict
    read: Callable[[], Iterator[Item]]

    def chunks(self, size: int = CHUNK) -> Iterator[tuple[int, list[Item]]]:
        """(first example id, items) of consecutive chunks of ``size`` examples, in source order."""
        chunk: list[Item] = []
        start = 0
        for item in self.read():
            chunk.append(item)
            if len(chunk) == size:
                yield start, chunk
                start, chunk = start + size, []
        if chunk:
            yield start, chunk


def _items(examples: list[Example], labels: tuple[str, ...], corpus: str) -> Iterator[Item]:
    for e in examples:
        gold = labels[e.label] if 0 <= e.label < len(labels) else None
        yield Item(e.text, e.hypothesis, gold, e.score, e.source, corpus)


def _sst(data_dir) -> list[Example]:
    return [e for split in ("train", "dev", "test") for e in load_sst_trees(split, data_dir, phrases=False)]


#: Whole datasets by name: (loader, label names, pairs?).
CORPORA: dict[str, tuple[Callable, tuple[str, ...], bool]] = {
    "sst": (_sst, SST5_LABELS, False),
    "trec": (lambda d: load_trec("train", d) + load_trec("test", d), TREC_LABELS, False),
    "subj": (lambda d: load_senteval("subj", d), SUBJ_LABELS, False),
    "mpqa": (lambda d: load_senteval("mpqa", d), MPQA_LABELS, False),
    "cr": (lambda d: load_senteval("cr", d), CR_LABELS, False),
    "snli": (lambda d: load_snli("dev", d) + load_snli("test", d), NLI_LABELS, True),
    "sick": (load_sick, NLI_LABELS, True),
}
SINGLE_CORPORA = tuple(n for n, (_, _, pair) in CORPORA.items() if not pair)
PAIR_CORPORA = tuple(n for n, (_, _, pair) in CORPORA.items() if pair)


def file_sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def open_bytes(path: Path):
    return gzip.open(path, "rb") if path.suffix == ".gz" else open(path, "rb")


def _not_text(path: Path, lineno: int) -> InputError:
    return InputError(f"{path}, line {lineno}: not UTF-8 text; save the file as UTF-8 (e.g. iconv -f latin1 -t "
                      "utf-8), one sentence a line, or as a .csv/.tsv/.jsonl/.parquet table.")


def _text_file(path: Path, pair: bool) -> Iterator[Item]:
    """One sentence a line (pairs: ``premise<TAB>hypothesis``), strict UTF-8: a line that is not is one error."""
    try:
        with open_bytes(path) as f:
            yield from _text_lines(path, enumerate(f, 1), pair)
    except (OSError, EOFError) as err:  # a damaged .gz
        raise InputError(f"{path} cannot be read ({err}); give an intact file.") from None


def _text_lines(path: Path, lines, pair: bool) -> Iterator[Item]:
    for lineno, raw in lines:
        try:
            line = raw.decode("utf-8")
        except UnicodeDecodeError:
            raise _not_text(path, lineno) from None
        if "\x00" in line:  # UTF-8 may hold NUL, text does not: a binary file
            raise _not_text(path, lineno)
        if lineno == 1:
            line = line.removeprefix("\ufeff")
        line = line.rstrip("\n").rstrip("\r")
        if not line.strip():
            continue
        source = f"{path.name}:{lineno}"
        if not pair:
            yield Item(line, None, None, None, source, path.name)
            continue
        if "\t" not in line:
            raise InputError(f"{source} has no tab; a pair model's file needs 'premise<TAB>hypothesis' lines.")
        premise, hypothesis = line.split("\t", 1)
        yield Item(premise, hypothesis, None, None, source, path.name)


def _open_file(path: Path, pair: bool, given: dict, model: str | None, relatedness: bool) -> Corpus:
    from . import table_source  # it reads Item from here

    ident = {"file": str(path.resolve()), "sha256": file_sha256(path)}
    if given["text_pair"] and not pair:
        raise InputError(f"--text-pair {given['text_pair']!r}: the model reads single sentences; drop --text-pair.")
    named = any(given.values())
    if not named and table_source.is_snli(path):
        if not pair:
            raise InputError(f"{path.name} holds sentence pairs, but the model reads single sentences; name the "
                             "column to read with --text (e.g. --text sentence1).")
        return Corpus(path.name, True, ident, lambda: _items(load_nli_jsonl(path), NLI_LABELS, path.name))
    if table_source.is_table(path):
        fmt, have = table_source.columns_of(path)
        columns = table_source.table_columns(path, fmt, have, pair, given, table_source.card_columns(model))
        if columns is not None:
            ident = {**ident, "columns": columns}
            return Corpus(path.name, pair, ident, lambda: table_source.table_items(path, fmt, columns, relatedness))
    elif named:
        flags = " ".join(f"--{k.replace('_', '-')}" for k, v in given.items() if v)
        raise InputError(f"{path.name} is read as plain text, one sentence a line, which has no columns for {flags}; "
                         "drop them, or give a table (.csv, .tsv, .jsonl, .parquet) with a header.")
    return Corpus(path.name, pair, ident, lambda: _text_file(path, pair))


def _known(data: str) -> bool:
    """Whether ``data`` can name something to read: ``all``, a corpus, a TASK:SPLIT or an existing path."""
    return data == "all" or data in CORPORA or ":" in data or Path(data).exists()


def open_corpus(data: str, pair: bool, data_dir: str | None = None, *, text: str | None = None,
                text_pair: str | None = None, label: str | None = None, model: str | None = None,
                relatedness: bool = False) -> Corpus:
    """The corpus ``data`` names, checked against the model's input kind (``pair``). ``all`` is every named
    corpus the model reads; ``a,b,c`` several, one after another (the ``corpus`` column tells them apart), unless
    a file of that name exists: a path may hold a comma (``/tmp/my,data.csv``).

    ``text``/``text_pair``/``label``: a table file's columns (``--text``, ``--text-pair``, ``--label``); ``model``
    (a ``.safetensors`` path) lends its card's columns as defaults when ``disan train --data`` made it;
    ``relatedness``: the label is a score (``gold_score``), not a class name (``gold``)."""
    given = {"text": text, "text_pair": text_pair, "label": label}
    if data == "all" or ("," in data and not Path(data).is_file()):  # a file's name may hold a comma: it wins
        names = (PAIR_CORPORA if pair else SINGLE_CORPORA) if data == "all" else [d.strip() for d in data.split(",")]
        unknown = next((name for name in names if not _known(name)), None)
        if unknown is not None:
            raise InputError(f"--data {data!r} is not an existing file, and as a list of corpora its part {unknown!r} "
                             f"is neither a corpus ({', '.join(CORPORA)}, or TASK:SPLIT such as sst5:test) nor an "
                             "existing file; give corpus names such as trec,cr or an existing file's path.")
        parts = [open_corpus(name, pair, data_dir, **given, model=model, relatedness=relatedness) for name in names]
        return Corpus(data, pair, {"parts": [c.ident for c in parts]},
                      lambda: (item for c in parts for item in c.read()))
    path = Path(data)
    if not _known(data):
        raise InputError(f"--data {data!r} is neither a corpus ({', '.join(CORPORA)}, or TASK:SPLIT such as "
                         "sst5:test) nor an existing file; give one of those or a text file's path.")
    if path.is_file():
        return _open_file(path, pair, given, model, relatedness)
    if any(given.values()):
        flags = " ".join(f"--{k.replace('_', '-')}" for k, v in given.items() if v)
        raise InputError(f"{flags} name a file's columns; --data {data} is a named corpus, read by its own loader. "
                         "Drop them, or give a table file.")
    if data in CORPORA:
        loader, labels, is_pair = CORPORA[data]
        read = lambda: _items(loader(data_dir), labels, data)  # noqa: E731
    else:
        task, _, split = data.partition(":")
        if task not in TASK_LABELS:
            raise InputError(f"--data {data!r}: no task {task!r}; use one of {', '.join(TASK_LABELS)}.")
        is_pair = task in ("nli", "snli", "sick")
        labels = TASK_LABELS[task]

        def read() -> Iterator[Item]:
            try:
                examples = load_task(task, split, data_dir)
            except ValueError as err:
                if hasattr(err, "path"):  # a data file's own error names its file
                    raise
                raise InputError(f"--data {data!r}: {err}") from None  # a bad TASK:SPLIT names the value given
            return _items(examples, labels, data)
    if is_pair != pair:
        kind, fits = ("pairs", SINGLE_CORPORA) if is_pair else ("single sentences", PAIR_CORPORA)
        raise InputError(f"--data {data} holds {kind}, which this model does not read; choose one of "
                         f"{', '.join(fits)}.")
    return Corpus(data, is_pair, {"name": data}, read)
