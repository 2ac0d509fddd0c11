"""The static explorer's search (issue 56): ``python -m viz_app site --search``'s file holds the index's query
columns, and the page's query (viz_app/browser/search_query.js, run here in Node over that file) finds the same
hits, in the same order, as ``disan search`` over the same fixture index; a bad value gets the same line."""

from __future__ import annotations

import json

import numpy as np
import pytest

import disan

from disan.corpus.manifest import open_index
from disan.corpus.query import Filter, Query
from disan.corpus.search import run_query
from disan.errors import InputError
from tests.corpus_helpers import PAIRS, SENTENCES, built_index
from tests.page_js import node_module
from viz_app.draw import site_search

#: (where, any, sort, asc, top, offset): token and sentence filters, and/or, sorts, paging, text and flags.
QUERIES = [
    ([], False, None, False, 20, 0),
    ([["word", "=", "not"]], False, "bw_gate", False, 20, 0),
    ([["fw_gate", ">", "0.5"], ["word", "contains", "e"]], False, "s2t", True, 7, 3),
    ([["T", ">", "5.5"], ["correct", "=", "false"]], True, "pred_prob", False, 5, 0),
    ([["pred", "!=", "negative"]], False, "T", True, 20, 0),
    ([["text", "contains", "the"]], False, "mean_bw_entropy", False, 3, 1),
    ([["grad_input", "<=", "0"]], True, "word", True, 10, 2),
    ([["fw_distance", ">=", "1e-3"], ["bw_received", "<", "1"]], True, None, False, 12, 0),
    ([["status", "=", "vocab"], ["position", "=", "0"]], False, "fw_entropy", False, 20, 0),
    ([["word", "=", "'; DROP TABLE tokens; --"]], False, None, False, 20, 0),
    ([["sentence_id", ">", "1_0e-1"]], False, "tau_s2t_grad", False, 20, 0),
]
PAIR_QUERIES = [
    ([["fw_h3_distance", ">", "1"]], False, "fw_h3_distance", False, 20, 0),
    ([["side", "=", "hypothesis"], ["maxpool_share", ">", "0.1"]], False, "maxpool_share", True, 15, 0),
    ([["gold", "=", "entailment"]], False, "mean_fw_distance", False, 20, 0),
]
BAD = [
    [["nope", "=", "1"]], [["bw_gate", ">", "NaN"]], [["bw_gate", ">", "1e999"]], [["bw_gate", ">", "'; DROP"]],
    [["word", "<", "a"]], [["correct", "=", "maybe"]], [["word", "=", "x" * 1001]], [["word", "=", "a\x00b"]],
    [["bw_gate", "~", "1"]], [["T", ">", ""]],
]

RUN = r"""
const Query = await load("search_query.js");
const input = JSON.parse(fs.readFileSync(0, "utf8"));
const body = input.script.split("] = ")[1].trim().replace(/;$/, "");
const blob = new Uint8Array(await new Response(new Blob([Buffer.from(JSON.parse(body).packed, "base64")])
  .stream().pipeThrough(new DecompressionStream("gzip"))).arrayBuffer());
const db = Query.unpack(blob);
const out = input.queries.map(function (q) {
  try {
    const r = Query.run(db, input.spec, q);
    return { level: r.level, total: r.total, hits: r.hits.map(h => [Query.value(db, "sentences", "sentence_id", h.s),
      h.t === null ? null : Query.value(db, "tokens", "side", h.t), h.t === null ? null : Query.value(db, "tokens", "position", h.t)]) };
  } catch (err) { return { error: err.message }; }
});
process.stdout.write(JSON.stringify(out));
"""


def _page(script: str, queries: list[dict]) -> list[dict]:
    done = node_module(RUN, stdin=json.dumps({"script": script, "spec": site_search.search_spec(), "queries": queries}))
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def _cli(index, where, any_, sort, asc, top, offset):
    query = Query(tuple(Filter(*w) for w in where), "or" if any_ else "and", sort, not asc, top, offset)
    try:
        result = run_query(index, query)
    except InputError as err:
        return {"error": str(err)}
    records = result.records()
    return {"level": result.level, "hits": [[r["sentence_id"], r.get("side"), r.get("position")] for r in records]}


def _as_page(where, any_, sort, asc, top, offset) -> dict:
    return {"where": where, "any": any_, "sort": sort, "asc": asc, "top": top, "offset": offset}


@pytest.mark.parametrize("model, data, queries", [("disan-sst5", SENTENCES, QUERIES), ("dsa-nli", PAIRS, PAIR_QUERIES)])
def test_the_pages_query_over_the_search_file_finds_what_disan_search_finds(model, data, queries):
    index = open_index(built_index(model, str(data)))
    got = _page(site_search.search_script(model, index), [_as_page(*q) for q in queries])
    hits_seen = 0
    for q, page in zip(queries, got):
        want = _cli(index, *q)
        assert "error" not in page, (q, page)
        assert page["level"] == want["level"], q
        assert page["hits"] == want["hits"], q
        hits_seen += len(want["hits"])
    assert hits_seen > 10  # the queries are not all empty


def test_a_bad_filter_gets_disan_searchs_own_line_in_the_page():
    index = open_index(built_index("disan-sst5", str(SENTENCES)))
    got = _page(site_search.search_script("disan-sst5", index), [_as_page(w, False, None, False, 20, 0) for w in BAD])
    for where, page in zip(BAD, got):
        want = _cli(index, where, False, None, False, 20, 0)
        assert "error" in want and "error" in page, where
        assert page["error"] == want["error"], where
    assert _page(site_search.search_script("disan-sst5", index), [_as_page([], False, None, False, 0, 0)])[0][
        "error"].startswith("Hits a page: 0 is out of range")  # the page's box, not the command's --top


def test_the_file_holds_every_queryable_column_as_the_index_has_it():
    index = open_index(built_index("disan-sst5", str(SENTENCES)))
    header, cols = site_search.unpack(site_search.search_script("disan-sst5", index))
    from disan.corpus.search import allowed_columns, connect

    assert set(header["columns"]) == set(allowed_columns(index))
    con = connect(index)
    gate = con.sql("SELECT fw_gate FROM tokens ORDER BY sentence_id, side, position").fetchnumpy()["fw_gate"]
    sig = np.stack(con.sql("SELECT signature FROM sentences ORDER BY sentence_id").fetchnumpy()["signature"])
    con.close()
    np.testing.assert_array_equal(cols[("tokens", "fw_gate")], gate.astype(np.float32))
    np.testing.assert_array_equal(cols[("sentences", "signature")].reshape(sig.shape), sig.astype(np.float32))
    assert header["rows"] == {"sentences": 8, "tokens": len(gate)}
    # only the queryable columns and the signature: no probabilities, no token lists
    assert {name for _, name in cols} == set(header["columns"]) | {"signature"}


@pytest.mark.parametrize("model, data", [("disan-sst5", SENTENCES), ("dsa-nli", PAIRS)])
def test_more_like_this_orders_by_signature_distance_as_disan_search_like_does(model, data):
    """The page's "more like this" (a hit's own signature) against build_sql's --like ordering with that
    signature: the same sentences in the same order, after the same filter."""
    from disan.corpus.search import build_sql, connect

    index = open_index(built_index(model, str(data)))
    con = connect(index)
    signatures = dict(con.sql("SELECT sentence_id, signature FROM sentences").fetchall())
    cases = [(sid, where) for sid in (0, 2) for where in ([], [["T", ">", "4"]])]
    want = []
    for sid, where in cases:
        query = Query(tuple(Filter(*w) for w in where), top=20)
        sql, params, _, names = build_sql(index, query, [float(v) for v in signatures[sid]])
        want.append([r[names.index("sentence_id")] for r in con.execute(sql, params).fetchall()])
    con.close()
    got = _page(site_search.search_script(model, index),
                [dict(_as_page(where, False, None, False, 20, 0), like=sid) for sid, where in cases])
    for (sid, where), page, ids in zip(cases, got, want):
        assert [h[0] for h in page["hits"]] == ids, (sid, where)
        assert ids[0] == sid  # a sentence is nearest to itself


@pytest.mark.parametrize("argv, search", [([], False), (["--search"], True), (["--search-data", "x.txt"], "x.txt"),
                                          (["--search", "--search-data", "sick"], "sick")])
def test_site_search_is_off_unless_asked_and_search_data_names_the_corpus(monkeypatch, tmp_path, argv, search):
    from viz_app.cli import main
    from viz_app.draw import site

    seen = {}

    def fake(out, models, **kwargs):
        seen.update(kwargs)
        return site.SiteInfo(tmp_path, (), 0)

    monkeypatch.setattr(site, "build_site", fake)
    assert main(["site", "--out", str(tmp_path / "s"), "--model", "disan-sst5", *argv]) == 0
    assert seen["search"] == search and seen["data_dir"] is None


@pytest.mark.parametrize("name", ["disan-sst5", "dsa-sst5"])
def test_the_pages_signature_of_a_trace_view_is_disan_index_s(name):
    """search_signature.js's signatureOf on a sentence's trace view (as the page lays it out: flat, row-major)
    equals disan.corpus.measures.signature of the same torch trace: the page's "nearest to a sentence"."""
    from disan.corpus.measures import signature
    from viz_app.draw.records import trace_view

    trace = disan.load(name, device="cpu").trace("the plot is not good , but the acting is fine .")
    side = trace_view(trace).premise
    T = len(side.tokens)

    def block(b):
        return {"allowed": b.allowed.reshape(-1).tolist(), "attention": b.attention.reshape(-1).tolist(),
                "gate": b.gate.reshape(-1).tolist(), "D": int(b.gate.shape[-1]),
                "heads": None if b.heads is None else b.heads.reshape(-1).tolist()}

    view = {"T": T, "D2": int(side.s2t.shape[-1]), "s2t": side.s2t.reshape(-1).tolist(),
            "fw": block(side.fw), "bw": block(side.bw)}
    proc = node_module("""const { signatureOf } = await load("search_signature.js");
const input = JSON.parse(fs.readFileSync(0, "utf8"));
console.log(JSON.stringify(signatureOf(input.view, input.arch)));""", stdin=json.dumps({"view": view, "arch": trace.arch}))
    assert proc.returncode == 0, proc.stderr
    got = json.loads(proc.stdout)
    want = signature(trace.premise.encoder)[0].tolist()
    assert len(got) == len(want)
    assert got == pytest.approx(want, abs=1e-5)
