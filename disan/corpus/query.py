"""A search as data: filters (column, operator, value) joined by and/or, a sort, ``--top N``, ``--like``.

Nothing typed becomes SQL text. A column name must be one of the index's columns (``columns.queryable``) and an
operator one of ``OPERATORS``; both are then taken from those constant tables, and every value is parsed to its
column's type here and bound as a DuckDB parameter by ``search.py``. Each refusal is one line naming the bad
value and the fix.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from ..errors import InputError

#: The kinds of queryable column (``columns.Column.kind``).
NUMBER, TEXT, FLAG = "number", "text", "flag"
#: Operator as typed → its SQL (a constant of this table, never the typed text).
OPERATORS = {"=": "=", "==": "=", "!=": "<>", "<": "<", "<=": "<=", ">": ">", ">=": ">=", "contains": "contains"}
#: Operators each kind of column allows.
KIND_OPERATORS = {NUMBER: ("=", "==", "!=", "<", "<=", ">", ">="), TEXT: ("=", "==", "!=", "contains"),
                  FLAG: ("=", "==", "!=")}
COMBINE = ("and", "or")
MAX_TOP = 10_000
MAX_TEXT = 1_000
TRUE, FALSE = ("true", "1", "yes"), ("false", "0", "no")


@dataclass(frozen=True)
class Filter:
    column: str
    op: str
    value: str


@dataclass(frozen=True)
class Query:
    filters: tuple[Filter, ...] = ()
    combine: str = "and"
    sort: str | None = None
    descending: bool = True
    top: int = 20
    offset: int = 0
    like: str | None = None
    extra: tuple[str, ...] = field(default=())  # further columns to return (checked like sort)


def _short(value: str) -> str:
    return repr(value if len(value) <= 40 else value[:40] + "…")


def column_of(name: str, allowed: dict[str, tuple[str, str]]) -> tuple[str, str, str]:
    """(canonical name, table, kind) of a column the index has; an unknown name is refused."""
    for canonical, (table, kind) in allowed.items():
        if canonical == name:
            return canonical, table, kind
    raise InputError(f"Unknown column {_short(name)}; use one of {', '.join(sorted(allowed))}.")


def parse_value(column: str, kind: str, raw: str) -> object:
    """The typed value of a filter, or a one-line refusal (NaN, ±inf, overflow, wrong type, over-long text)."""
    if not isinstance(raw, str):
        raw = str(raw)
    if kind == NUMBER:
        try:
            value = float(raw.strip())
        except ValueError:
            raise InputError(f"{column} holds numbers; {_short(raw)} is not a number.") from None
        if not math.isfinite(value):
            raise InputError(f"{column} holds finite numbers; {_short(raw)} is not one (no NaN or infinity).")
        return value
    if kind == FLAG:
        low = raw.strip().lower()
        if low in TRUE or low in FALSE:
            return low in TRUE
        raise InputError(f"{column} is true or false; {_short(raw)} is neither.")
    if len(raw) > MAX_TEXT:
        raise InputError(f"The value for {column} has {len(raw):,} characters, over the limit of {MAX_TEXT:,}.")
    if "\x00" in raw:
        raise InputError(f"The value for {column} holds a NUL character; remove it.")
    return raw


def check_operator(column: str, kind: str, op: str) -> str:
    """The SQL of ``op`` for a column of ``kind``."""
    if op not in OPERATORS:
        raise InputError(f"Unknown operator {_short(op)}; use one of {', '.join(KIND_OPERATORS[kind])}.")
    if op not in KIND_OPERATORS[kind]:
        raise InputError(f"{column} holds {kind}s, which {op!r} does not compare; use one of "
                         f"{', '.join(KIND_OPERATORS[kind])}.")
    return OPERATORS[op]


def check_top(top: int, offset: int = 0) -> None:
    if not 1 <= top <= MAX_TOP:
        raise InputError(f"--top {top} is out of range; use 1 to {MAX_TOP:,}.")
    if offset < 0:
        raise InputError(f"The page offset {offset} is negative; use 0 or more.")

