"""viz_app/browser/pair.js in Node (issue 30): the token alignment against a Python edit-distance reference on
literal and seeded random cases, and the word table read from an exported ONNX graph with its nearest words
against numpy's cosine. The in-page leave-one-out needs onnxruntime-web: tests/test_pair_browser.py."""

from __future__ import annotations

import json
import subprocess

import numpy as np
import pytest

from tests.page_js import BROWSER, NODE

#: Loads pair.js, answers each job {fn, args}; "table" reads an ONNX file and asks nearest() of its table.
RUNNER = r"""
const fs = require("fs"), vm = require("vm"), path = require("path");
vm.runInThisContext(fs.readFileSync(path.join(process.argv[1], "pair.js"), "utf8"), { filename: "pair.js" });
const jobs = JSON.parse(fs.readFileSync(0, "utf8"));
const run = (job) => {
  try {
    if (job.fn === "table") {
      const [file, queries, k, skip] = job.args;
      const table = DisanPair.embeddingTable(new Uint8Array(fs.readFileSync(file)));
      return { rows: table.rows, dim: table.dim, values: Array.from(table.values),
               nearest: queries.map(id => DisanPair.nearest(table, id, k, skip)) };
    }
    if (job.fn === "nearest") {
      const [values, rows, dim, id, k, skip] = job.args;
      const table = { rows, dim, values: Float32Array.from(values), norms: Float64Array.from({ length: rows },
        (_, r) => Math.hypot(...values.slice(r * dim, (r + 1) * dim))) };
      return DisanPair.nearest(table, id, k, skip);
    }
    if (job.fn === "bytes") return DisanPair.embeddingTable(Uint8Array.from(job.args[0]));
    return DisanPair[job.fn](...job.args);
  } catch (e) { return { error: String(e && e.message || e) }; }
};
process.stdout.write(JSON.stringify(jobs.map(run)));
"""


def pair_jobs(jobs: list[dict]) -> list:
    if NODE is None:
        pytest.skip("node is not installed (needed to run the page's scripts)")
    proc = subprocess.run([NODE, "-e", RUNNER, str(BROWSER)], input=json.dumps(jobs), capture_output=True,
                          text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)


# ---------------------------------------------------------------- alignment


def edit_distance(a: list[str], b: list[str]) -> int:
    """Levenshtein distance by the textbook prefix recurrence (Wagner & Fischer 1974), independent of pair.js's
    suffix table and tie-breaking."""
    prev = list(range(len(b) + 1))
    for i, x in enumerate(a, 1):
        cur = [i]
        for j, y in enumerate(b, 1):
            cur.append(min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (x != y)))
        prev = cur
    return prev[-1]


def reference_script(a: list[str], b: list[str]) -> list[dict]:
    """The script pair.js documents: at each step, reading left to right, the first of keep, replace, delete,
    insert after which the rest can still be done at the minimal cost."""
    ops, i, j = [], 0, 0
    while i < len(a) or j < len(b):
        here = edit_distance(a[i:], b[j:])
        if i < len(a) and j < len(b) and a[i] == b[j] and edit_distance(a[i + 1:], b[j + 1:]) == here:
            ops.append({"op": "keep", "a": i, "b": j}); i += 1; j += 1  # noqa: E702
        elif i < len(a) and j < len(b) and a[i] != b[j] and edit_distance(a[i + 1:], b[j + 1:]) + 1 == here:
            ops.append({"op": "replace", "a": i, "b": j}); i += 1; j += 1  # noqa: E702
        elif i < len(a) and edit_distance(a[i + 1:], b[j:]) + 1 == here:
            ops.append({"op": "delete", "a": i, "b": None}); i += 1  # noqa: E702
        else:
            ops.append({"op": "insert", "a": None, "b": j}); j += 1  # noqa: E702
    return ops


def apply_script(a: list[str], b: list[str], ops: list[dict]) -> list[str]:
    """B rebuilt from A and the script (inserted and replacing tokens read from B), indices checked in order."""
    out, ia, ib = [], 0, 0
    for o in ops:
        assert o["a"] in (None, ia) and o["b"] in (None, ib), o
        if o["op"] == "keep":
            assert a[o["a"]] == b[o["b"]]
            out.append(a[o["a"]])
        elif o["op"] in ("replace", "insert"):
            assert o["op"] == "insert" or a[o["a"]] != b[o["b"]]
            out.append(b[o["b"]])
        ia += o["a"] is not None
        ib += o["b"] is not None
    assert ia == len(a) and ib == len(b)
    return out


def K(i, j):
    return {"op": "keep", "a": i, "b": j}


def R(i, j):
    return {"op": "replace", "a": i, "b": j}


def D(i):
    return {"op": "delete", "a": i, "b": None}


def I(j):  # noqa: E743
    return {"op": "insert", "a": None, "b": j}


LITERAL = [
    ("identical", "a gorgeous film .", "a gorgeous film .", [K(0, 0), K(1, 1), K(2, 2), K(3, 3)]),
    ("one replace", "the movie is good", "the movie is bad", [K(0, 0), K(1, 1), K(2, 2), R(3, 3)]),
    ("negation inserted", "the movie is good", "the movie is not good", [K(0, 0), K(1, 1), K(2, 2), I(3), K(3, 4)]),
    ("insert at start", "good film", "very good film", [I(0), K(0, 1), K(1, 2)]),
    ("insert at end", "a gorgeous film", "a gorgeous film , sadly", [K(0, 0), K(1, 1), K(2, 2), I(3), I(4)]),
    ("delete", "a truly gorgeous film", "a gorgeous film", [K(0, 0), D(1), K(2, 1), K(3, 2)]),
    ("reversed", "a b c", "c b a", [R(0, 0), K(1, 1), R(2, 2)]),
    ("reversed, even", "good not bad", "bad not good", [R(0, 0), K(1, 1), R(2, 2)]),
    ("repeat: the first is kept", "a a", "a", [K(0, 0), D(1)]),
    ("repeat inserted after the first", "a", "a a", [K(0, 0), I(1)]),
    ("replace before delete", "x y", "z", [R(0, 0), D(1)]),
    ("empty A", "", "a b", [I(0), I(1)]),
    ("empty B", "a b", "", [D(0), D(1)]),
    ("both empty", "", "", []),
]


def test_alignment_gives_the_documented_minimal_script_on_literal_cases():
    cases = [(name, a.split(), b.split(), want) for name, a, b, want in LITERAL]
    got = pair_jobs([{"fn": "align", "args": [a, b]} for _, a, b, _ in cases])
    for (name, a, b, want), ops in zip(cases, got):
        assert ops == want, name
        assert ops == reference_script(a, b), name
        assert sum(o["op"] != "keep" for o in ops) == edit_distance(a, b), name
        assert apply_script(a, b, ops) == b, name


def test_alignment_is_minimal_valid_and_tie_broken_as_documented_on_random_token_lists():
    """Three-letter alphabet (many ties) and lengths 0–9: the script rebuilds B, costs the edit distance, and
    equals the reference tie-breaking exactly; its distance() is that cost."""
    rng = np.random.default_rng(30)
    cases = [([str(t) for t in rng.integers(0, 3, rng.integers(0, 10))],
              [str(t) for t in rng.integers(0, 3, rng.integers(0, 10))]) for _ in range(300)]
    got = pair_jobs([{"fn": "align", "args": [a, b]} for a, b in cases])
    costs = pair_jobs([{"fn": "distance", "args": [ops]} for ops in got])
    for (a, b), ops, cost in zip(cases, got, costs):
        assert apply_script(a, b, ops) == b
        assert cost == sum(o["op"] != "keep" for o in ops) == edit_distance(a, b), (a, b)
        assert ops == reference_script(a, b), (a, b)
    assert {o["op"] for ops in got for o in ops} == {"keep", "replace", "insert", "delete"}


def test_alignment_refuses_what_is_not_two_token_lists():
    [bad] = pair_jobs([{"fn": "align", "args": ["a b", ["a"]]}])
    assert "two token arrays" in bad["error"]


# ---------------------------------------------------------------- the word table and nearest words


def numpy_nearest(table: np.ndarray, id_: int, k: int, skip=()) -> list[tuple[int, float]]:
    """The k rows of highest cosine with row id_ (float64), without id_, ``skip`` and zero rows; ties: lower id."""
    t = table.astype(np.float64)
    norms = np.linalg.norm(t, axis=1)
    if norms[id_] == 0:
        return []
    ok = norms > 0
    ok[[id_, *skip]] = False
    cos = np.where(ok, t @ t[id_] / np.where(ok, norms * norms[id_], 1.0), -np.inf)
    order = np.lexsort((np.arange(len(t)), -cos))[:k]  # by cosine descending, then id
    return [(int(i), float(cos[i])) for i in order if ok[i]]


def onnx_table(path) -> np.ndarray:
    import onnx
    from onnx import numpy_helper

    proto = onnx.load(str(path))
    [init] = [i for i in proto.graph.initializer if i.name in ("table_f16", "table")]
    return numpy_helper.to_array(init).astype(np.float32)


@pytest.mark.parametrize("half", [True, False], ids=["float16", "float32"])
def test_word_table_is_read_from_the_exported_graph_and_its_nearest_words_equal_numpy(tmp_path, tiny_glove, half):
    """The table site.js's graph holds (float16 as the site stores it, or float32), decoded in JS equal to onnx's
    own reader, and nearest() equal to numpy's cosine ranking for every word."""
    pytest.importorskip("onnx")
    pytest.importorskip("onnxruntime")
    from disan.onnx_export import export_site_model
    from disan.vocab import PAD_ID, UNK_ID
    from tests.conftest import make_tiny

    model = make_tiny("disan", tiny_glove, unk_zero=True)  # as every bundled model
    export = export_site_model(model, tmp_path, half=half, extra_words=5)
    table = onnx_table(export.onnx_path)
    rows = list(range(table.shape[0]))
    [got] = pair_jobs([{"fn": "table", "args": [str(export.onnx_path), rows, 4, [PAD_ID, UNK_ID]]}])
    assert (got["rows"], got["dim"]) == table.shape
    np.testing.assert_array_equal(np.asarray(got["values"], np.float32), table.ravel())  # bit for bit
    assert not table[UNK_ID].any()  # --unk-zero: <unk> is the zero row, so it has no nearest words
    for id_, near in zip(rows, got["nearest"]):
        want = numpy_nearest(table, id_, 4, (PAD_ID, UNK_ID))
        assert bool(near) == bool(table[id_].any())  # a zero row (<pad>, <unk>) has no nearest words
        assert [n["id"] for n in near] == [i for i, _ in want], id_
        np.testing.assert_allclose([n["cosine"] for n in near], [c for _, c in want], atol=1e-12)


def test_nearest_breaks_ties_by_id_and_refuses_bad_ids_in_one_line():
    values = [1, 0, 0, 2, 0, 0, 0, 1, 0, 0, 0, 0, 3, 0, 0]  # rows 1 and 4 point as row 0 does; row 3 is zero
    got = pair_jobs([
        {"fn": "nearest", "args": [values, 5, 3, 0, 3, []]},
        {"fn": "nearest", "args": [values, 5, 3, 0, 1, [1]]},
        {"fn": "nearest", "args": [values, 5, 3, 3, 2, []]},
        {"fn": "nearest", "args": [values, 5, 3, 5, 2, []]},
        {"fn": "nearest", "args": [values, 5, 3, 0, -1, []]},
    ])
    assert [n["id"] for n in got[0]] == [1, 4, 2] and got[0][0]["cosine"] == 1 and got[0][2]["cosine"] == 0
    assert [n["id"] for n in got[1]] == [4]
    assert got[2] == []
    assert "word id 5 is outside the table's 0 to 4" in got[3]["error"]
    assert "k = -1" in got[4]["error"]


def test_a_graph_without_a_table_or_cut_short_is_one_line_naming_the_fix():
    got = pair_jobs([{"fn": "bytes", "args": [[0x3A, 0x02, 0x08, 0x01]]},  # a graph holding one odd field
                     {"fn": "bytes", "args": [[0x3A, 0x09, 0x08]]}])  # a graph whose length runs past the end
    assert "holds no word table" in got[0]["error"] and "python -m viz_app site" in got[0]["error"]
    assert "cut short" in got[1]["error"]
