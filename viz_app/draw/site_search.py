"""The static explorer's search (issue 56): a precomputed, columnar file of one model's bundled test-set index.

``python -m viz_app site --search`` writes ``search/<name>.js`` per model: the index that ``disan index`` builds
of the model's bundled test set (SST-5 test, TREC test, SNLI test or SICK; built with ``disan.corpus`` into the
user cache, ``disan.corpus.cache``, as the app's Search view does), cut to the columns a query may name and the
attention signature. The page (``viz_app/browser/site_search.js``) loads it only when Search is opened and runs
the query itself, with the allow-lists of ``disan.corpus.query`` handed to it as JSON (``search_spec``), so the
page and ``disan search`` share one definition of the columns and operators.

The file is one classic script (``file://`` refuses ``fetch()``) adding to ``window.DisanSiteSearch`` the gzip +
base64 of a packed blob: a little-endian uint32 header length, the header (JSON: each column's table, name,
type, offset), then each column's values, 4-byte aligned. Types: ``f32`` (float32, NaN for null: an index never
stores NaN), ``i32`` (int32), ``bool`` (int8: 1, 0, −1 for null), ``dict`` (int32 codes into the header's
``values``, −1 for null). Tokens are in (sentence_id, side, position) order, the order ``disan search`` breaks
ties in, so a stable sort in the page gives the same hits in the same order.
"""

from __future__ import annotations

import json
import struct
from collections.abc import Callable
from pathlib import Path

import numpy as np

from disan.errors import DisanError

FORMAT = "disan-site-search/1"
GLOBAL = "DisanSiteSearch"
#: The corpus a model's page searches, by what it reads: its bundled test set.
TASK_CORPUS = {"trec": "trec:test"}
SINGLE_CORPUS, PAIR_CORPUS, RELATEDNESS_CORPUS = "sst5:test", "snli:test", "sick"


def search_spec() -> dict:
    """The allow-lists of ``disan.corpus.query`` as JSON: the page's filters take their operators, their value
    parsing rules and their limits from here, not from a copy typed in JavaScript."""
    from disan.corpus import query as q

    return {"operators": dict(q.OPERATORS), "kind_operators": {k: list(v) for k, v in q.KIND_OPERATORS.items()},
            "combine": list(q.COMBINE), "max_top": q.MAX_TOP, "max_text": q.MAX_TEXT, "true": list(q.TRUE),
            "false": list(q.FALSE), "kinds": {"number": q.NUMBER, "text": q.TEXT, "flag": q.FLAG}}


def corpus_for(name: str, cfg) -> str:
    """The corpus ``name``'s page searches: a model trained by ``train --data`` its own file while that file is
    where its card says; a bundled model its bundled test set (its card's training task decides a TREC model's)."""
    from disan.api import PRETRAINED_DIR, card_of
    from disan.cards import read_card

    if name.endswith(".safetensors"):
        try:
            own = card_of(name).get("data_file", {}).get("files", {}).get("data", {}).get("path")
        except (DisanError, OSError, ValueError):
            own = None
        if own and Path(own).is_file():
            return own
    if cfg.pair:
        return RELATEDNESS_CORPUS if cfg.relatedness else PAIR_CORPUS
    try:
        task = read_card(name, PRETRAINED_DIR).get("train", {}).get("train_config", {}).get("task")
    except (DisanError, OSError):
        task = None
    return TASK_CORPUS.get(task, SINGLE_CORPUS)


def cached_index(name: str, corpus: str, data_dir: str | None, log: Callable[[str], None]):
    """The opened index of ``corpus`` under ``name`` from the user cache, (re)built there when missing, stale (the
    corpus changed: its identity in the manifest differs) or of another disan-viz version; ``None`` (with one
    line to ``log``) when the corpus cannot be read here, e.g. no ``../shared/data``."""
    import disan
    from disan.api import checkpoint_path
    from disan.checkpoint import sha256
    from disan.corpus import cache
    from disan.corpus.build import build_index
    from disan.corpus.manifest import open_index
    from disan.corpus.sources import open_corpus

    folder = cache.index_folder(name, sha256(checkpoint_path(name)), corpus if data_dir is None else
                                f"{corpus}@{Path(data_dir).name}")
    try:
        cfg = disan.describe(name)  # the config alone: the index build loads the weights
        ident = open_corpus(corpus, cfg.pair, data_dir, model=name, relatedness=cfg.relatedness).ident
        if (folder / "manifest.json").is_file():
            try:
                index = open_index(folder)
                if index.manifest["data"] == ident:
                    return index
            except DisanError:
                pass  # another version, damaged: built again below
        log(f"indexing {corpus} with {name} for its search (cached in {folder}) …")
        folder.parent.mkdir(parents=True, exist_ok=True)
        build_index(name, corpus, folder, data_dir=data_dir, progress=False, overwrite=True)
    except DisanError as err:
        log(f"search: skipped for {name}: {str(err).splitlines()[0]}")
        return None
    return open_index(folder)


def _column(table: str, name: str, values, kind: str | None) -> tuple[dict, bytes]:
    head = {"table": table, "name": name}
    if name == "signature":
        flat = np.asarray([list(v) for v in values], dtype="<f4")  # (N, L)
        head.update(type="f32", width=int(flat.shape[1]) if flat.ndim == 2 else 0)
        return head, flat.tobytes()
    arrow_type = str(values.type)
    if arrow_type in ("string", "large_string"):
        py = values.to_pylist()
        uniq = sorted({v for v in py if v is not None})
        code = {v: i for i, v in enumerate(uniq)}
        head.update(type="dict", values=uniq)
        return head, np.asarray([-1 if v is None else code[v] for v in py], dtype="<i4").tobytes()
    if arrow_type == "bool":
        py = values.to_pylist()
        head.update(type="bool")
        return head, np.asarray([-1 if v is None else int(v) for v in py], dtype="i1").tobytes()
    if arrow_type in ("int32", "int64"):
        arr = values.to_numpy(zero_copy_only=False)
        if arr.size and (np.abs(arr).max() >= 2**31):
            raise DisanError(f"The index's {name} holds values past int32; the page cannot carry them.")
        head.update(type="i32")
        return head, arr.astype("<i4").tobytes()
    arr = values.to_numpy(zero_copy_only=False).astype("<f4")  # nulls become NaN
    head.update(type="f32")
    return head, arr.tobytes()


def pack(index) -> bytes:
    """The packed blob (header + columns) of ``index``'s queryable columns and signatures."""
    from disan.corpus.search import allowed_columns, connect

    allowed = allowed_columns(index)
    sentence_cols = [c for c, (t, _) in allowed.items() if t == "sentences"] + ["signature"]
    token_cols = [c for c, (t, _) in allowed.items() if t == "tokens"]
    token_cols = ["sentence_id"] + [c for c in token_cols if c != "sentence_id"]
    con = connect(index)
    try:
        s = con.sql(f"SELECT {', '.join(chr(34) + c + chr(34) for c in sentence_cols)} FROM sentences "
                        "ORDER BY sentence_id").to_arrow_table()
        t = con.sql(f"SELECT {', '.join(chr(34) + c + chr(34) for c in token_cols)} FROM tokens "
                        "ORDER BY sentence_id, side, position").to_arrow_table()
    finally:
        con.close()
    heads, chunks, offset = [], [], 0
    for table, arrow in (("sentences", s), ("tokens", t)):
        for name in arrow.column_names:
            head, raw = _column(table, name, arrow.column(name).combine_chunks(),
                                allowed.get(name, (None, None))[1])
            raw += b"\0" * (-len(raw) % 4)
            head["offset"], head["bytes"] = offset, len(raw)
            offset += len(raw)
            heads.append(head)
            chunks.append(raw)
    m = index.manifest
    header = {"format": FORMAT, "model": m["model"]["name"], "corpus": m["corpus"], "examples": m["examples"],
              "rows": {"sentences": s.num_rows, "tokens": t.num_rows}, "labels": m["model"]["labels"],
              "columns": {c: list(v) for c, v in allowed.items()}, "fields": heads}
    text = json.dumps(header, ensure_ascii=False, separators=(",", ":"), allow_nan=False).encode("utf-8")
    text += b" " * (-(len(text) + 4) % 4)
    return struct.pack("<I", len(text)) + text + b"".join(chunks)


def search_script(name: str, index) -> str:
    """``search/<name>.js``: the packed index as gzip + base64, keyed by the model's name."""
    from viz_app.draw.site import _b64gz, _keyed_script

    m = index.manifest
    return _keyed_script(GLOBAL, name, {"format": FORMAT, "corpus": m["corpus"], "examples": m["examples"],
                                        "packed": _b64gz(pack(index))})


def unpack(script: str) -> tuple[dict, dict]:
    """(header, {(table, name): numpy array}) of a ``search/<name>.js``, as the page reads it (tests)."""
    import base64
    import gzip

    body = script.split("] = ", 1)[1].rstrip().rstrip(";")
    blob = gzip.decompress(base64.b64decode(json.loads(body)["packed"]))
    (n,) = struct.unpack_from("<I", blob)
    header = json.loads(blob[4:4 + n])
    base, out = 4 + n, {}
    dtypes = {"f32": "<f4", "i32": "<i4", "dict": "<i4", "bool": "i1"}
    for f in header["fields"]:
        raw = blob[base + f["offset"]: base + f["offset"] + f["bytes"]]
        rows = header["rows"][f["table"]] * max(f.get("width", 1), 1)
        out[(f["table"], f["name"])] = np.frombuffer(raw, dtype=dtypes[f["type"]], count=rows)
    return header, out
