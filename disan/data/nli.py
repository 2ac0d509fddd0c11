"""SNLI/MultiNLI jsonl and SICK pairs."""

from __future__ import annotations

import json
from functools import partial

from .example import Example, StrPath, _check_choice
from .labels import NLI_LABELS
from .lines import CorruptLineError, _collect, _open_binary, _text_lines
from .paths import _first_existing, _resolve_root, require_file


def _str_field(record: dict, key: str) -> str:
    value = record.get(key)
    if not isinstance(value, str):
        raise ValueError(f"field {key!r} is missing or not a string")
    return value


def _parse_nli_record(raw: bytes, source: str) -> list[Example]:
    """One SNLI/MultiNLI jsonl record -> [Example], or [] when ``gold_label == "-"``."""
    record = json.loads(raw.decode("utf-8"))
    if not isinstance(record, dict):
        raise ValueError("expected a JSON object")
    gold = _str_field(record, "gold_label")
    premise = _str_field(record, "sentence1")
    hypothesis = _str_field(record, "sentence2")
    if gold == "-":
        return []
    if gold not in NLI_LABELS:
        raise ValueError(f"gold_label {gold!r} is not one of {list(NLI_LABELS)} or '-'")
    return [Example(premise, NLI_LABELS.index(gold), hypothesis, source)]


def load_nli_jsonl(path: StrPath, on_error: str = "raise") -> list[Example]:
    """Load an official SNLI 1.0 / MultiNLI ``.jsonl`` file, plain or ``.gz``.

    Uses ``sentence1`` (text), ``sentence2`` (hypothesis) and ``gold_label``;
    pairs with ``gold_label == "-"`` (no annotator consensus) are dropped.
    Labels index :data:`NLI_LABELS`. The file is streamed line by line.
    """
    path = require_file(path, "nli")
    with _open_binary(path) as handle:
        return _collect(path, handle, _parse_nli_record, on_error)


def load_snli(split: str, data_dir: StrPath | None = None, on_error: str = "raise") -> list[Example]:
    """Load SNLI ``split`` (train/dev/test) from ``snli/snli_1.0_{split}.jsonl[.gz]``.

    Also accepts ``snli/snli_1.0/snli_1.0_{split}.jsonl`` (the layout of the
    unzipped official download).
    """
    _check_choice("split", split, ("train", "dev", "test"))
    folder = _resolve_root(data_dir) / "snli"
    name = f"snli_1.0_{split}.jsonl"
    candidates = [folder / name, folder / f"{name}.gz", folder / "snli_1.0" / name]
    return load_nli_jsonl(_first_existing(candidates, "snli"), on_error)


def _sick_columns(header: str) -> tuple[int, int, int]:
    """Indices of sentence_A, sentence_B and the entailment label in a SICK header."""
    names = header.split("\t")
    label_names = [n for n in ("entailment_judgment", "entailment_label") if n in names]
    missing = [n for n in ("sentence_A", "sentence_B") if n not in names]
    if missing or not label_names:
        raise ValueError(f"header {names} lacks {missing or ['entailment_judgment']}; expected "
                         "pair_ID, sentence_A, sentence_B, relatedness_score, entailment_judgment")
    return names.index("sentence_A"), names.index("sentence_B"), names.index(label_names[0])


def _parse_sick_row(line: str, source: str, columns: tuple[int, int, int]) -> list[Example]:
    """One SICK TSV row -> [Example] with an NLI_LABELS index."""
    fields = line.split("\t")
    if len(fields) <= max(columns):
        raise ValueError(f"expected at least {max(columns) + 1} tab-separated fields, "
                         f"found {len(fields)}")
    text, hypothesis, judgment = (fields[i].strip() for i in columns)
    if judgment.lower() not in NLI_LABELS:
        raise ValueError(f"entailment label {judgment!r} is not one of "
                         "ENTAILMENT, NEUTRAL, CONTRADICTION")
    if not text or not hypothesis:
        raise ValueError("empty sentence_A or sentence_B")
    return [Example(text, NLI_LABELS.index(judgment.lower()), hypothesis, source)]


def load_sick(data_dir: StrPath | None = None, on_error: str = "raise") -> list[Example]:
    """Load all pairs of ``sick/SICK.txt`` (tab-separated, first line a header).

    Columns are found by name: ``sentence_A`` (text), ``sentence_B`` (hypothesis)
    and ``entailment_judgment`` (or ``entailment_label`` as in the official
    release); ENTAILMENT/NEUTRAL/CONTRADICTION map to :data:`NLI_LABELS`.
    A bad header always raises :class:`CorruptLineError` (line 1).
    """
    path = require_file(_resolve_root(data_dir) / "sick" / "SICK.txt", "sick")
    lines = _text_lines(path)
    try:
        columns = _sick_columns(lines[0] if lines else "")
    except ValueError as exc:
        raise CorruptLineError(path, 1, str(exc)) from None
    parse = partial(_parse_sick_row, columns=columns)
    return _collect(path, lines[1:], parse, on_error, start=2)
