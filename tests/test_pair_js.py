"""viz_app/browser/pair.js in Node (issue 30): the token alignment against a Python edit-distance reference on
literal and seeded random cases, the word table read from the page's weights with its nearest words against
numpy's cosine, and leave-one-out's split of the runs into messages and lanes with a stand-in model (its lean graph:
tests/test_onnx_parts.py). The in-page leave-one-out with onnxruntime-web: tests/test_pair_browser.py. Its literal
cases (refusals, nearest ties, weights cut short) are JavaScript:
tests/js/pair.test.mjs."""

from __future__ import annotations

import json

import numpy as np
import pytest

from tests.page_js import node_module

#: Answers each job {fn, args}; "table" reads a weights file at the build's table spec and asks nearest() of it.
RUNNER = r"""
const jobs = JSON.parse(fs.readFileSync(0, "utf8"));
const run = (job) => {
  try {
    if (job.fn === "table") {
      const [file, spec, queries, k, skip] = job.args;
      const table = Pair.embeddingTable(new Uint8Array(fs.readFileSync(file)), spec);
      return { rows: table.rows, dim: table.dim, values: Array.from(table.values),
               nearest: queries.map(id => Pair.nearest(table, id, k, skip)) };
    }
    if (job.fn === "loo") return standInLoo(...job.args);
    return Pair[job.fn](...job.args);
  } catch (e) { return { error: String(e && e.message || e) }; }
};
/* leaveOneOut with a stand-in model: p ∝ exp(w_k · ids) (K = 3), lane 1 slower than lane 0 (a timer), every
 * message recorded as [lane, inputs]; `staleAfter` messages answered, stale() turns true. */
function standInLoo(premise, hyp, lanes, chunk, staleAfter) {
  const probs = (p, h) => {
    const z = [0, 1, 2].map(k => p.concat(h || []).reduce((s, id, t) => s + Math.sin(id * (k + 1) + t) / 3, 0));
    const e = z.map(Math.exp), sum = e.reduce((a, b) => a + b);
    return Float32Array.from(e, v => v / sum);
  };
  const messages = [];
  let answered = 0;
  const runner = {
    unk: 1, lanes: () => lanes,
    probs: (p, h) => Promise.resolve(probs(p, h)),
    probsMany: (inputs, alpha, lane) => {
      messages.push([lane, inputs.length]);
      const ps = inputs.map(([p, h]) => probs(p, h));
      return new Promise(r => setTimeout(() => { answered++; r(ps); }, lane === 1 ? 3 : 0));
    },
  };
  const input = { premise: { ids: premise }, hypothesis: hyp ? { ids: hyp } : undefined, alpha: 0 };
  const stale = staleAfter === null ? undefined : () => answered >= staleAfter;
  return Pair.leaveOneOut(runner, input, { chunk: chunk === null ? undefined : chunk, stale }).then(v => ({
    messages, value: v && { target: v.target, probability: v.probability, runs: v.runs, premise: Array.from(v.premise),
                            hypothesis: v.hypothesis && Array.from(v.hypothesis) } }));
}
Promise.all(jobs.map(job => Promise.resolve(job).then(run).catch(e => ({ error: String(e && e.message || e) }))))
  .then(out => process.stdout.write(JSON.stringify(out)));
"""


def pair_jobs(jobs: list[dict]) -> list:
    proc = node_module(RUNNER, stdin=json.dumps(jobs), timeout=120)
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
def test_word_table_is_read_from_the_shared_weights_and_its_nearest_words_equal_numpy(tmp_path, tiny_glove, half):
    """The table the page's weights hold (float16 as the site stores it, or float32; disan/onnx_graphs.py), read in JS
    at the build's offset equal to onnx's own reader of the export, and nearest() equal to numpy's cosine ranking for
    every word."""
    pytest.importorskip("onnx")
    pytest.importorskip("onnxruntime")
    from disan.onnx_export import export_site_model
    from disan.onnx_graphs import page_graphs
    from disan.vocab import PAD_ID, UNK_ID
    from tests.conftest import make_tiny

    model = make_tiny("disan", tiny_glove, unk_zero=True)  # as every bundled model
    export = export_site_model(model, tmp_path, half=half, extra_words=5)
    table = onnx_table(export.onnx_path)
    _, weights, plan = page_graphs(export.onnx_path.read_bytes(), ["fw_mean"], "probs")
    (tmp_path / "weights").write_bytes(weights)
    rows = list(range(table.shape[0]))
    [got] = pair_jobs([{"fn": "table", "args": [str(tmp_path / "weights"), plan["table"], rows, 4, [PAD_ID, UNK_ID]]}])
    assert (got["rows"], got["dim"]) == table.shape
    np.testing.assert_array_equal(np.asarray(got["values"], np.float32), table.ravel())  # bit for bit
    assert not table[UNK_ID].any()  # --unk-zero: <unk> is the zero row, so it has no nearest words
    for id_, near in zip(rows, got["nearest"]):
        want = numpy_nearest(table, id_, 4, (PAD_ID, UNK_ID))
        assert bool(near) == bool(table[id_].any())  # a zero row (<pad>, <unk>) has no nearest words
        assert [n["id"] for n in near] == [i for i, _ in want], id_
        np.testing.assert_allclose([n["cosine"] for n in near], [c for _, c in want], atol=1e-12)


# ---------------------------------------------------------------- leave-one-out's messages


def stand_in_probs(ids: list[int]) -> np.ndarray:
    """The stand-in model of RUNNER's standInLoo: p ∝ exp(Σ_t sin(id_t (k + 1) + t) / 3), K = 3, in float32."""
    z = np.array([sum(np.sin(i * (k + 1) + t) / 3 for t, i in enumerate(ids)) for k in range(3)])
    e = np.exp(z)
    return (e / e.sum()).astype(np.float32)


def stand_in_loo(premise: list[int], hyp: list[int] | None) -> tuple[int, list[np.ndarray]]:
    """Leave-one-out by its definition, one erased input at a time (<unk> = 1; a token already <unk>: 0)."""
    full = stand_in_probs(premise + (hyp or []))
    k = int(np.argmax(full))
    sides = []
    for s, ids in enumerate([premise] + ([hyp] if hyp else [])):
        drops = []
        for t in range(len(ids)):
            erased = ids[:t] + [1] + ids[t + 1:]
            both = erased + (hyp or []) if s == 0 else premise + erased
            drops.append(0.0 if ids[t] == 1 else float(full[k]) - float(stand_in_probs(both)[k]))
        sides.append(np.array(drops))
    return k, sides


def test_leave_one_out_sends_chunks_to_every_ready_lane_and_gives_the_numbers_of_one_run_per_token():
    premise, hyp = [5, 9, 1, 14, 3, 22, 7], [8, 2, 1, 40]  # two tokens <unk> already: no run for them
    k, want = stand_in_loo(premise, hyp)
    cases = [(1, 1), (1, 2), (2, 2), (2, 3), (2, None)]
    got = pair_jobs([{"fn": "loo", "args": [premise, hyp, lanes, chunk, None]} for lanes, chunk in cases])
    for (lanes, chunk), g in zip(cases, got):
        v = g["value"]
        assert v["target"] == k and v["runs"] == 1 + 9
        np.testing.assert_allclose(v["premise"], want[0], rtol=0, atol=1e-6)
        np.testing.assert_allclose(v["hypothesis"], want[1], rtol=0, atol=1e-6)
        size = chunk or 2  # Pair.CHUNK
        assert sum(n for _, n in g["messages"]) == 9 and max(n for _, n in g["messages"]) == size
        assert {lane for lane, _ in g["messages"]} == set(range(lanes))  # with two lanes, both ran some
    [one] = pair_jobs([{"fn": "loo", "args": [[1, 1], None, 2, 2, None]}])  # nothing to erase: no message
    assert one["messages"] == [] and one["value"]["premise"] == [0, 0] and one["value"]["runs"] == 1


def test_leave_one_out_stops_at_the_next_message_once_stale_and_refuses_a_bad_chunk():
    premise = list(range(2, 22))
    got = pair_jobs([{"fn": "loo", "args": [premise, None, 2, 2, 1]},
                     {"fn": "loo", "args": [premise, None, 1, 0, None]}])
    assert got[0]["value"] is None  # stale after the first answer: stopped, no result
    assert sum(n for _, n in got[0]["messages"]) <= 2 * 2  # at most the one message in flight per lane
    assert "chunk = 0 must be a whole number" in got[1]["error"]
