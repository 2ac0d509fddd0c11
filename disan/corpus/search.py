"""Run a ``query.Query`` with DuckDB (embedded) over an index's Parquet, every value a bound parameter.

A query whose filters or sort name only sentence columns returns sentences; one that names a token column
returns tokens (each hit a token of a sentence, with the sentence beside it). ``--like SENTENCE`` traces the
sentence with the index's own model and orders hits by the Euclidean distance between attention signatures
(``measures.signature``), nearest first, after the filters.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from pathlib import Path

import duckdb

from ..errors import InputError
from .columns import queryable
from .manifest import Index, check_model
from .query import Query, check_operator, check_top, column_of, parse_value

SENTENCE_FIELDS = ("sentence_id", "text", "hypothesis", "T", "gold", "pred", "pred_prob")
TOKEN_FIELDS = ("side", "position", "word")


@dataclass(frozen=True)
class Result:
    """The hits: ``columns`` names each value of a row; ``level`` is sentences or tokens."""

    level: str
    columns: tuple[str, ...]
    rows: list[tuple]
    sql: str
    params: list

    def records(self) -> list[dict]:
        return [dict(zip(self.columns, r)) for r in self.rows]


def connect(index: Index, load: bool = False) -> duckdb.DuckDBPyConnection:
    """An in-memory DuckDB with ``sentences``, ``tokens``, ``profile`` over the index's parts: views that read the
    Parquet at each query (one command's query), or with ``load`` tables read into memory once (the Search view,
    which queries many times: about a second to load the 42,000-sentence SST index, a third of the p95 after)."""
    con = duckdb.connect()
    try:
        for table in ("sentences", "tokens", "profile"):
            files = index.files(table)
            if not files:
                raise InputError(f"The index {index.path} has no {table} parts; rebuild it with disan index.")
            relation = con.read_parquet(files)
            relation.create(table) if load else relation.create_view(table)
    except duckdb.Error as err:
        con.close()
        raise InputError(f"The index {index.path} is damaged ({str(err).splitlines()[0]}); rebuild it with "
                         "disan index.") from None
    return con


def allowed_columns(index: Index) -> dict[str, tuple[str, str]]:
    m = index.model
    return queryable(m["arch"], m["heads"] or 0)


@functools.lru_cache(maxsize=4)
def _model(path: str, stamp: tuple):
    """The model at ``path``, loaded once per file version (``stamp``: size and modification time)."""
    from ..api import load

    return load(path, "cpu")


def like_signature(index: Index, sentence: str, model: str | None = None) -> list[float]:
    """The signature of ``sentence`` under the index's model (refused when that model changed)."""
    from .measures import signature

    path = check_model(index, model)
    file = Path(path)
    m = _model(path, (file.stat().st_size, file.stat().st_mtime_ns) if file.is_file() else ())
    tokens = m.tokenize_checked(sentence, "--like sentence")
    import torch

    with torch.inference_mode():
        x, valid = m.embed([tokens])  # (1, T, d_in), (1, T)
        _, trace = m.encoder(x, valid, record=True)
    return signature(trace)[0].tolist()


def build_sql(index: Index, query: Query, signature: list[float] | None = None) -> tuple[str, list, str, tuple]:
    """(SQL, parameters, level, column names) of ``query``; every name comes from the allow-list."""
    allowed = allowed_columns(index)
    check_top(query.top, query.offset)
    if query.combine not in ("and", "or"):
        raise InputError(f"Filters combine with and or or, not {query.combine!r}.")
    where, params, named = [], [], []
    for f in query.filters:
        name, table, kind = column_of(f.column, allowed)
        sql_op = check_operator(name, kind, f.op)
        value = parse_value(name, kind, f.value)
        ref = f'{"t" if table == "tokens" else "s"}."{name}"'
        where.append(f"contains({ref}, ?)" if sql_op == "contains" else f"{ref} {sql_op} ?")
        params.append(value)
        named.append((name, table))
    sort = None
    if query.sort is not None:
        sort = column_of(query.sort, allowed)
        named.append(sort[:2])
    extra = [column_of(c, allowed)[:2] for c in query.extra]
    named += extra
    level = "tokens" if any(t == "tokens" for _, t in named) else "sentences"
    cols = [f's."{c}"' for c in SENTENCE_FIELDS]
    names = list(SENTENCE_FIELDS)
    if level == "tokens":
        cols += [f't."{c}"' for c in TOKEN_FIELDS]
        names += list(TOKEN_FIELDS)
    for name, table in named:
        if name not in names:
            cols.append(f'{"t" if table == "tokens" else "s"}."{name}"')
            names.append(name)
    order = []
    if signature is not None:
        length = int(index.manifest["signature"]["length"])
        if len(signature) != length:
            raise InputError(f"The --like signature has {len(signature)} values, not the index's {length}.")
        cols.append(f"array_distance(s.signature::FLOAT[{length}], ?::FLOAT[{length}]) AS like_distance")
        names.append("like_distance")
        params.insert(0, [float(v) for v in signature])  # the select list comes before WHERE
    if sort is not None:
        ref = f'{"t" if sort[1] == "tokens" else "s"}."{sort[0]}"'
        order.append(f"{ref} {'DESC' if query.descending else 'ASC'} NULLS LAST")
    if signature is not None:
        order.append("like_distance ASC")
    order += ["s.sentence_id"] + (['t."side"', 't."position"'] if level == "tokens" else [])
    source = "sentences s" + (" JOIN tokens t USING (sentence_id)" if level == "tokens" else "")
    sql = f"SELECT {', '.join(cols)} FROM {source}"
    if where:
        sql += " WHERE " + f" {query.combine.upper()} ".join(f"({w})" for w in where)
    sql += f" ORDER BY {', '.join(order)} LIMIT ? OFFSET ?"
    params += [query.top, query.offset]
    return sql, params, level, tuple(names)


def run_query(index: Index, query: Query, con: duckdb.DuckDBPyConnection | None = None,
              model: str | None = None) -> Result:
    signature = like_signature(index, query.like, model) if query.like is not None else None
    sql, params, level, names = build_sql(index, query, signature)
    own = con is None
    con = connect(index) if own else con
    try:
        rows = con.execute(sql, params).fetchall()
    except duckdb.Error as err:
        raise InputError(f"The index {index.path} could not be searched ({str(err).splitlines()[0]}); rebuild it "
                         "with disan index if it is damaged.") from None
    finally:
        if own:
            con.close()
    return Result(level, names, rows, sql, params)


def count_query(index: Index, query: Query, con: duckdb.DuckDBPyConnection) -> int:
    """How many hits ``query`` has in all (for paging)."""
    sql, params, _, _ = build_sql(index, query)
    inner = sql[: sql.index(" ORDER BY ")]
    return con.execute(f"SELECT count(*) FROM ({inner})", params[:-2]).fetchone()[0]
