"""A labelled table as a corpus to index (``disan index --data FILE.csv|.tsv|.jsonl|.parquet``, issue 56): its
columns read in chunks with ``disan.data.table_file``, the reader of ``disan train --data``.

The columns are ``--text``/``--text-pair``/``--label`` when given; else those of the model's card when ``disan
train --data`` made it and the file has them; else ``text``, ``hypothesis`` (a pair model) and ``label``
(optional). The label is ``gold`` (a classifier) or ``gold_score`` (a score model). Before, any file was read as
text lines: a CSV's header was sentence 0 and each sentence ended in ",label"; a Parquet file indexed binary.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

from ..errors import InputError
from ..data.table_file import shown_columns
from .sources import Item, open_bytes

#: File endings (after an optional ``.gz``) read as a table by their columns; any other file is plain text.
TABLE_ENDINGS = (".csv", ".tsv", ".tab", ".jsonl", ".ndjson", ".json", ".parquet", ".pq")
#: The keys of an SNLI-format JSON Lines object (``data.load_nli_jsonl``).
SNLI_KEYS = ("sentence1", "sentence2", "gold_label")


def is_table(path: Path) -> bool:
    name = path.name.lower().removesuffix(".gz")
    return name.endswith(TABLE_ENDINGS)


def is_snli(path: Path) -> bool:
    """An SNLI-format ``.jsonl[.gz]``: its first object has ``SNLI_KEYS`` (a line over 1 MB is not looked into)."""
    if not path.name.endswith((".jsonl", ".jsonl.gz")):
        return False
    try:
        with open_bytes(path) as f:
            for _ in range(1000):
                raw = f.readline(1 << 20)
                if not raw:
                    return False
                if raw.strip():
                    first = json.loads(raw)
                    return isinstance(first, dict) and all(k in first for k in SNLI_KEYS)
    except (OSError, EOFError, ValueError):
        return False
    return False


def columns_of(path: Path) -> tuple[str, list[str]]:
    """The table's format and column names (train's reader: every failure one line naming the file)."""
    from ..data.table_file import columns_of, table_format

    return table_format(path), columns_of(path)


def card_columns(model: str | None) -> dict:
    """The columns ``disan train --data`` trained ``model`` (a ``.safetensors`` path) on, from its card."""
    if not model or not str(model).endswith(".safetensors"):
        return {}
    from ..api import card_of

    try:
        cols = card_of(str(model)).get("data_file", {}).get("columns", {})
    except (OSError, ValueError):
        return {}
    return cols if isinstance(cols, dict) else {}


def table_columns(path: Path, fmt: str, have: list[str], pair: bool, given: dict, card: dict) -> dict | None:
    """The columns to read: given, else the card's the file has, else the defaults; None: a headerless .tsv."""
    def pick(key: str, default: str | None) -> str | None:
        if given[key]:
            return given[key]
        own = card.get(key)
        return own if own and own in have else default

    text = pick("text", "text")
    text_pair = pick("text_pair", "hypothesis") if pair else None
    label = pick("label", "label")
    headerless = fmt == "tsv" and not any(given.values()) and len(have) == (2 if pair else 1)
    if text not in have and headerless:  # today's premise<TAB>hypothesis lines, no header
        return None
    for flag, key, column in (("--text", "text", text), ("--text-pair", "text_pair", text_pair)):
        if column is not None and column not in have:
            what = "the sentence column" if key == "text" else "the second sentence's (hypothesis) column"
            raise InputError(f"{path} has no column {column!r}; its columns are: {shown_columns(have)}. Name {what} "
                             f"with {flag}.")
    if label not in have:
        if given["label"]:
            raise InputError(f"{path} has no column {label!r} (--label); its columns are: {shown_columns(have)}. Name the "
                             "gold label's column with --label, or leave it out.")
        label = None
    return {"text": text, "text_pair": text_pair, "label": label}


def table_items(path: Path, fmt: str, columns: dict, relatedness: bool) -> Iterator[Item]:
    """The rows of a table's ``columns``, chunk by chunk; rows whose texts are all blank are skipped."""
    from ..data.file_labels import missing_label, number
    from ..data.table_file import read_chunks, row_lines

    text, text_pair, label = columns["text"], columns["text_pair"], columns["label"]
    wanted = [c for c in (text, text_pair, label) if c]
    where = row_lines(path, fmt)  # one per row, in step with the chunks
    for frame in read_chunks(path, wanted):
        texts = frame[text].tolist()
        pairs = frame[text_pair].tolist() if text_pair else [None] * len(texts)
        golds = frame[label].tolist() if label else [""] * len(texts)
        for t, h, g in zip(texts, pairs, golds):
            source = f"{path.name}:{next(where).split()[-1]}"
            sides = [t] if h is None else [t, h]
            if not any(v.strip() for v in sides):
                continue
            blank = next((c for c, v in zip((text, text_pair), sides) if not v.strip()), None)
            if blank is not None:
                raise InputError(f"{source}: a blank {blank!r} beside a sentence; fill it in or remove the row.")
            # an index may hold unlabelled rows (train refuses them): "nan" or "NA" is no gold, as an empty cell is
            g = "" if missing_label(g) else g.strip()
            gold, score = (None, None) if not g else (None, number(g)) if relatedness else (g, None)
            if relatedness and g and score is None:
                raise InputError(f"{source}: label {g!r} of column {label!r} is not a number, and the model gives a "
                                 "score; name a numeric column with --label, or leave it out.")
            yield Item(t, h, gold, score, source, path.name)
