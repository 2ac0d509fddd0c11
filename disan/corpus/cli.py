"""``disan index`` and ``disan search`` (registered in ``disan/__main__.py``)."""

from __future__ import annotations

import json
import sys

from .query import COMBINE, MAX_TOP, Filter, Query

#: The engines of ``disan index`` (``build.py``): this process, or Ray tasks (``ray_engine.py``).
ENGINES = ("embedded", "ray")


def add_index(sub) -> None:
    from .sources import CHUNK, CORPORA

    p = sub.add_parser("index", help="trace every sentence of a corpus into a Parquet index (docs/search.md)")
    p.add_argument("--model", required=True, help="bundled checkpoint name or .safetensors path")
    p.add_argument("--data", required=True, help=f"a corpus ({', '.join(CORPORA)}), TASK:SPLIT (sst5:test), a table "
                                                 "(.csv/.tsv/.jsonl/.parquet, read by its columns) or a .txt file "
                                                 "(one sentence a line; pairs: premise<TAB>hypothesis)")
    p.add_argument("--text", default=None, metavar="COL",
                   help="a table's sentence column (default: the model's training column, else 'text')")
    p.add_argument("--text-pair", default=None, metavar="COL",
                   help="a pair model's second-sentence column (default: the training column, else 'hypothesis')")
    p.add_argument("--label", default=None, metavar="COL",
                   help="the gold label column, optional (default: the training column, else 'label' if present)")
    p.add_argument("--out", required=True, help="the index folder to write (built as OUT.partial, then renamed)")
    p.add_argument("--data-dir", default=None)
    p.add_argument("--engine", choices=ENGINES, default="embedded",
                   help="embedded (this process, every core) or ray (pip install '.[ray]')")
    p.add_argument("--ray-address", default=None, help="with --engine ray: a running cluster (default: a local one)")
    p.add_argument("--chunk", type=int, default=CHUNK, help="examples per chunk (one Parquet part, one Ray task)")
    p.add_argument("--threads", type=int, default=None, help="torch threads of the embedded engine (default: all)")
    p.add_argument("--device", default=None, help="cpu or cuda (default: cuda when present)")
    p.add_argument("--overwrite", action="store_true", help="replace an existing index at --out")
    p.add_argument("--no-progress", action="store_true")


def run_index(args) -> int:
    from .build import build_index

    build_index(args.model, args.data, args.out, engine=args.engine, data_dir=args.data_dir,
                overwrite=args.overwrite, progress=not args.no_progress, chunk=args.chunk, threads=args.threads,
                device=args.device, ray_address=args.ray_address, text=args.text, text_pair=args.text_pair,
                label=args.label)
    return 0


def add_search(sub) -> None:
    p = sub.add_parser("search", help="query an index: filters, sort, --top, --like (DuckDB, bound parameters)")
    p.add_argument("--index", required=True, help="the folder disan index --out wrote")
    p.add_argument("--where", nargs=3, action="append", default=[], metavar=("COLUMN", "OP", "VALUE"),
                   help="a filter such as --where bw_gate '>' 0.8 (repeat; see docs/search.md for the columns)")
    p.add_argument("--any", action="store_true", help="a hit needs any filter to hold (default: all of them)")
    p.add_argument("--sort", default=None, help="column to sort by (default: --like distance, else sentence id)")
    p.add_argument("--asc", action="store_true", help="sort ascending (default: descending)")
    p.add_argument("--top", type=int, default=20, help=f"hits to show (1 to {MAX_TOP:,})")
    p.add_argument("--offset", type=int, default=0, help="skip this many hits (paging)")
    p.add_argument("--like", default=None, metavar="SENTENCE", help="nearest sentences by attention signature")
    p.add_argument("--model", default=None, help="the index's model (checked; default: the one in its manifest)")
    p.add_argument("--json", action="store_true", help="one JSON object per hit")


def _cell(v) -> str:
    if isinstance(v, float):
        return f"{v:.4f}"
    text = "" if v is None else str(v)
    return text if len(text) <= 70 else text[:69] + "…"


def run_search(args) -> int:
    from .manifest import open_index
    from .search import run_query

    index = open_index(args.index)
    query = Query(tuple(Filter(*w) for w in args.where), COMBINE[1] if args.any else COMBINE[0], args.sort,
                  not args.asc, args.top, args.offset, args.like)
    result = run_query(index, query, model=args.model)
    if not result.rows:
        what = f" {query.combine} ".join(f"{f.column} {f.op} {f.value!r}" for f in query.filters) or "the query"
        print(f"No hit: no {result.level[:-1]} of {index.path} matches {what}.", file=sys.stderr)
        return 1
    if args.json:
        for record in result.records():
            print(json.dumps(record, ensure_ascii=False, default=str))
        return 0
    shown = [c for c in result.columns if c not in ("hypothesis", "T")]
    print("\t".join(shown))
    for record in result.records():
        print("\t".join(_cell(record[c]) for c in shown))
    return 0
