"""A user's labelled table (CSV, TSV, JSON Lines, Parquet) read in bounded chunks, with one clear line per bad file.

``read_chunks`` streams the named columns as pandas DataFrames of at most ``CHUNK_ROWS`` rows: pandas' C reader
with ``chunksize`` for CSV/TSV (plain or ``.gz``), ``read_json(lines=True, chunksize=...)`` for JSON Lines and
pyarrow's ``ParquetFile.iter_batches`` for Parquet, so memory is bounded by one chunk whatever the file's size
(``python -m disan bench train-data`` measures it on a million rows). Every value is read as text; a column's
numbers are parsed by the caller that needs them (a label for ``--regression``).

Every column is read, then the named ones kept: pandas' ``usecols`` drops a row's extra fields without a word, so
an unquoted comma in a text ("good, really good .,pos") would have made "really good ." a class; such a row is one
line naming it, the first data row too (which pandas would take for an index column). TSV has no
quoting (IANA's text/tab-separated-values): a text that starts with ``"`` is text, not the start of a field that
runs on over the next rows.
"""

from __future__ import annotations

import csv
import gzip
import itertools
import re
from collections.abc import Iterator, Sequence
from pathlib import Path

import pandas as pd

from ..errors import InputError
from .example import StrPath

#: Rows per chunk: a few MB of text at a time.
CHUNK_ROWS = 50_000
#: File endings (after an optional ``.gz``) and the format each names.
FORMATS = {".csv": "csv", ".tsv": "tsv", ".tab": "tsv", ".txt": "tsv", ".jsonl": "jsonl", ".ndjson": "jsonl",
           ".json": "jsonl", ".parquet": "parquet", ".pq": "parquet"}


class TableFileError(InputError):
    """A data file that cannot be used as it is; the message names the file, the bad value and the fix."""


def table_format(path: StrPath) -> str:
    """csv, tsv, jsonl or parquet, from the file's ending (``.gz`` is looked through)."""
    p = Path(path)
    suffix = Path(p.stem).suffix if p.suffix == ".gz" else p.suffix
    fmt = FORMATS.get(suffix.lower())
    if fmt is None:
        raise TableFileError(f"{p}: cannot tell the format from its ending {p.suffix!r}; name it .csv, .tsv, "
                             ".jsonl or .parquet (CSV/TSV/JSON Lines may end in .gz).")
    if fmt == "parquet" and p.suffix == ".gz":
        raise TableFileError(f"{p}: Parquet is compressed inside; pass the .parquet file without .gz.")
    return fmt


def check_file(path: StrPath) -> Path:
    p = Path(path).expanduser()
    if not p.is_file():
        raise TableFileError(f"Data file {p} does not exist or is not a file; check the path given to --data/--dev/--test.")
    if p.stat().st_size == 0:
        raise TableFileError(f"{p} is empty; give a file with a header row and at least one labelled row.")
    return p


def columns_of(path: StrPath) -> list[str]:
    """The file's column names (the header of CSV/TSV, the keys of the first JSON line, Parquet's schema)."""
    p = check_file(path)
    fmt = table_format(p)
    try:
        if fmt == "parquet":
            import pyarrow.parquet as pq

            return list(pq.ParquetFile(p).schema_arrow.names)
        # the first frame with columns: a JSON Lines file's first line may be blank, a frame of none
        first = next((f for f in _frames(p, fmt, None, 1) if len(f.columns)), None)
        if fmt != "jsonl":
            _check_first_row(p, fmt)
    except TableFileError:
        raise
    except UnicodeDecodeError:  # a header that is not UTF-8: one line here, for train and index alike
        raise TableFileError(_not_utf8(p)) from None
    except (pd.errors.ParserError, ValueError, OSError, EOFError) as err:
        raise TableFileError(_unreadable(p, fmt, str(err) or type(err).__name__)) from None
    return [] if first is None else [str(c) for c in first.columns]


def shown_columns(have: Sequence[str]) -> str:
    """A file's columns as a message lists them (the first 30)."""
    return ", ".join(repr(c) for c in have[:30]) + (" …" if len(have) > 30 else "") or "none"


def _not_utf8(p: Path) -> str:
    return f"{p}, line {first_undecodable_line(p)}: not UTF-8 text; save the file as UTF-8 (e.g. iconv -f latin1 -t utf-8)."


def read_chunks(path: StrPath, columns: Sequence[str], chunk_rows: int = CHUNK_ROWS) -> Iterator[pd.DataFrame]:
    """The named columns of ``path`` as text, ``chunk_rows`` rows at a time (index: 0-based row number)."""
    p = check_file(path)
    fmt = table_format(p)
    have = columns_of(p)
    missing = [c for c in dict.fromkeys(columns) if c not in have]
    if missing:
        raise TableFileError(f"{p} has no column {', '.join(repr(c) for c in missing)}; its columns are: {shown_columns(have)}. "
                             "Name one of them with --text/--text-pair/--label/--split.")
    try:
        for frame in _frames(p, fmt, list(dict.fromkeys(columns)), chunk_rows):
            yield frame.astype("string").fillna("")
    except UnicodeDecodeError:
        raise TableFileError(_not_utf8(p)) from None
    except (pd.errors.ParserError, ValueError) as err:
        raise TableFileError(_unreadable(p, fmt, str(err))) from None


def _unreadable(p: Path, fmt: str, err: str) -> str:
    if fmt == "jsonl" and (line := first_bad_json_line(p)):
        return f"{p}, line {line}: not one JSON object; each line of JSON Lines is one object such as {{\"text\": …}}."
    fields = re.search(r"Expected (\d+) fields in line (\d+), saw (\d+)", err)
    if fields:
        # pandas' line skips a quoted field's line breaks: the row is found again, by its file line
        return _long_row(p, fmt, *((fmt != "jsonl" and first_long_row(p, fmt)) or (fields[2], fields[3], fields[1])))
    return f"{p} cannot be read as {fmt.upper()} ({err.splitlines()[0][:160]}); check its delimiter and quoting."


def _long_row(p: Path, fmt: str, line, saw, want) -> str:
    inside = 'a comma inside a text: quote that text ("good, really good .")' if fmt == "csv" else "a tab inside a text"
    return f"{p}, line {line}: {saw} fields where the header has {want}; check for {inside}."


def _check_first_row(p: Path, fmt: str) -> None:
    """Refuse a first data row with more fields than the header: pandas' C reader, which refuses any later such
    row, takes the first one's extra field for an index column and shifts the row's values without a word."""
    records = _records(p, fmt)
    try:
        header, first = next(records, None), next(records, None)
    except csv.Error:  # pandas read it; its own errors name what is wrong
        return
    if header and first and first[1] > header[1]:
        raise TableFileError(_long_row(p, fmt, first[0], first[1], header[1]))


def _frames(p: Path, fmt: str, columns: list[str] | None, chunk_rows: int) -> Iterator[pd.DataFrame]:
    if fmt == "parquet":
        import pyarrow.parquet as pq

        start = 0
        for batch in pq.ParquetFile(p).iter_batches(batch_size=chunk_rows, columns=columns):
            frame = batch.to_pandas()
            frame.index = range(start, start + len(frame))
            start += len(frame)
            yield frame
        return
    if fmt == "jsonl":
        _check_json_lines(p)
        reader = pd.read_json(p, lines=True, chunksize=chunk_rows, dtype=False, encoding="utf-8",
                              encoding_errors="strict", compression="infer")
        with reader:
            for frame in reader:
                yield frame if columns is None else frame.reindex(columns=[c for c in columns if c in frame])
        return
    reader = pd.read_csv(p, sep="\t" if fmt == "tsv" else ",", dtype=str, keep_default_na=False,
                         quoting=csv.QUOTE_NONE if fmt == "tsv" else csv.QUOTE_MINIMAL, chunksize=chunk_rows,
                         encoding="utf-8", encoding_errors="strict", compression="infer")
    with reader:
        for frame in reader:
            yield frame if columns is None else frame[columns]


def _check_json_lines(p: Path) -> None:
    """One JSON object per line, not one JSON array (pandas' default ``to_json``), whose elements read as columns."""
    opener = gzip.open if p.suffix == ".gz" else open
    with opener(p, "rb") as handle:
        start = handle.read(4096).lstrip(b"\xef\xbb\xbf \t\r\n")
    if start.startswith(b"["):
        raise TableFileError(f"{p} holds one JSON array; JSON Lines is one object per line (pandas: "
                             "df.to_json(path, orient='records', lines=True)).")


def first_undecodable_line(p: Path) -> int:
    """The 1-based line of the first bytes that are not UTF-8 (read line by line: memory stays bounded)."""
    opener = gzip.open if p.suffix == ".gz" else open
    with opener(p, "rb") as handle:
        for number, raw in enumerate(handle, 1):
            try:
                raw.decode("utf-8")
            except UnicodeDecodeError:
                return number
    return 0


def first_bad_json_line(p: Path) -> int:
    """The 1-based line that is not one JSON object (blank lines pass, as pandas skips them); 0 if none."""
    import json

    opener = gzip.open if p.suffix == ".gz" else open
    with opener(p, "rt", encoding="utf-8") as handle:
        for number, line in enumerate(handle, 1):
            if not line.strip():
                continue
            try:
                if not isinstance(json.loads(line), dict):
                    return number
            except ValueError:
                return number
    return 0


def row_lines(p: Path, fmt: str) -> Iterator[str]:
    """Where each data row is, in order, in the words a user looks with: its first file line, or a Parquet row.

    A row is not always one line after the header: pandas skips blank lines (anywhere, the header's too) and a
    quoted CSV field may hold line breaks, so the lines are counted by reading the file once more, split as pandas
    splits it, one row at a time (memory stays bounded; callers take one per row they read).
    """
    if fmt == "parquet":
        return (f"row {row}" for row in itertools.count(1))
    if fmt == "jsonl":
        return (f"line {line}" for line in _json_lines(p))
    return _table_lines(p, fmt)


def _open_text(p: Path):
    """The file as text for counting lines: an undecodable byte is replaced, as it cannot be a line break or a
    quote (the readers themselves refuse it, naming its line)."""
    opener = gzip.open if p.suffix == ".gz" else open
    return opener(p, "rt", encoding="utf-8", errors="replace", newline="")


def _json_lines(p: Path) -> Iterator[int]:
    """The 1-based lines that hold an object: pandas' JSON Lines reader drops lines that are blank once stripped."""
    with _open_text(p) as handle:
        yield from (number for number, line in enumerate(handle, 1) if line.strip())


def _records(p: Path, fmt: str) -> Iterator[tuple[int, int]]:
    """(first file line, number of fields) of each CSV/TSV record pandas' C reader keeps, header first.

    Python's csv module splits records with the same quoting (CSV: ``"`` quotes, doubled inside; TSV: none);
    what pandas skips as blank is checked on the raw line: empty, or spaces and tabs only (a tab is a field in TSV).
    """
    blank = " " if fmt == "tsv" else " \t"
    csv.field_size_limit(max(csv.field_size_limit(), 2**31 - 1))  # pandas has no limit on a field's length
    raw = ""

    def physical(handle) -> Iterator[str]:
        nonlocal raw
        for raw in handle:
            yield raw

    with _open_text(p) as handle:
        reader = csv.reader(physical(handle), delimiter="\t" if fmt == "tsv" else ",",
                            quoting=csv.QUOTE_NONE if fmt == "tsv" else csv.QUOTE_MINIMAL)
        end = 0
        for fields in reader:
            start, end = end + 1, reader.line_num
            if start == end and not raw.rstrip("\r\n").strip(blank):
                continue
            yield start, len(fields)


def _table_lines(p: Path, fmt: str) -> Iterator[str]:
    records = _records(p, fmt)
    row = 0
    try:
        next(records, None)  # the header
        for row, (line, _) in enumerate(records, 1):
            yield f"line {line}"
    except csv.Error:  # a file pandas read and csv cannot: its rows are still numbered, if not by line
        pass
    yield from (f"row {n}" for n in itertools.count(row + 1))


def first_long_row(p: Path, fmt: str) -> tuple[int, int, int] | None:
    """(file line, fields, header's fields) of the first CSV/TSV row with more fields than its header, if any."""
    records = _records(p, fmt)
    try:
        header = next(records, None)
        return next(((line, n, header[1]) for line, n in records if n > header[1]), None) if header else None
    except csv.Error:
        return None
