"""disan/onnx_graphs.py: the graphs the static explorer's page runs, cut at build time. ``parts`` (the graph cut in
three for two workers) and ``sentences`` (an NLI graph cut by sentence, so that the page's worker reruns only the
sentence that changed), run by onnxruntime: the two blocks or sentences and the head, fed what the first two pass
on, give every output of the whole graph; each part holds only the nodes its outputs need; a graph that cannot be
cut gives None. ``lean`` keeps the nodes an output needs; ``page_graphs`` stores the weights once for them all."""

from __future__ import annotations

import numpy as np
import pytest

onnx = pytest.importorskip("onnx", reason="onnx is not installed (requirements.txt)")
ort = pytest.importorskip("onnxruntime", reason="onnxruntime is not installed (requirements.txt)")

from disan import onnx_graphs  # noqa: E402


def feeds_for(session, T: int, rng, words: int) -> dict:
    feeds = {}
    for i in session.get_inputs():
        n = T if i.name != "h_ids" else max(1, T - 1)  # a hypothesis of another length than the premise
        feeds[i.name] = np.array([0.7], np.float32) if i.name == "alpha" else rng.integers(2, words, (1, n)).astype(np.int64)
    return feeds


def exported(tmp_path, tiny_glove, arch: str, pair: bool, **kw):
    """A tiny model's site export; the DSA's with an int8 weight, as the bundled DSA models store theirs."""
    from disan.onnx_export import export_site_model
    from tests.conftest import make_tiny

    model = make_tiny(arch, tiny_glove, pair=pair, unk_zero=True, **kw)
    full = export_site_model(model, tmp_path / "full", extra_words=5)
    return full if arch == "disan" else export_site_model(model, tmp_path / "int8", extra_words=5,
                                                          max_bytes=full.total_bytes - 1)


def session(m):
    return ort.InferenceSession(m.SerializeToString(), providers=["CPUExecutionProvider"])


def assert_parts_equal_whole(export, got: dict, groups: tuple[str, str], names: list[str], seed: int):
    """onnxruntime: the two groups' parts, then the head fed what they pass, give each output in ``names`` of the
    whole graph within 1e-6, T = 1, 2, 9."""
    sessions = {k: session(m) for k, m in got["graphs"].items()}
    whole_run = ort.InferenceSession(str(export.onnx_path), providers=["CPUExecutionProvider"])
    rng = np.random.default_rng(seed)
    for T in (1, 2, 9):
        feeds = feeds_for(whole_run, T, rng, export.own_words)
        want = dict(zip([o.name for o in whole_run.get_outputs()], whole_run.run(None, feeds)))
        out = {}
        for k in groups:
            out.update(zip([o.name for o in got["graphs"][k].graph.output], sessions[k].run(None, feeds)))
        head_feeds = dict(feeds, **{c: out[c] for k in groups for c in got["cuts"][k]})
        out.update(zip(got["outputs"]["head"], sessions["head"].run(None, head_feeds)))
        for name in names:
            np.testing.assert_allclose(out[name], want[name], rtol=0, atol=1e-6, err_msg=f"{name}, T = {T}")


@pytest.mark.parametrize("arch,pair", [("disan", False), ("dsa", False), ("dsa", True)])
def test_parts_compute_every_output_of_the_whole_graph(tmp_path, tiny_glove, arch, pair):
    """fw ‖ bw, then head on the cut tensors: every output equals the whole graph's (onnxruntime, T = 1, 2, 9);
    fw holds none of the nodes that give the backward block's outputs and bw none of the forward's."""
    export = exported(tmp_path, tiny_glove, arch, pair)
    whole = onnx.load(str(export.onnx_path))
    got = onnx_graphs.parts(whole)
    assert got is not None
    names = [o.name for o in whole.graph.output]
    assert sorted(got["outputs"]["fw"] + got["outputs"]["bw"] + got["outputs"]["head"]) == sorted(names)
    assert all("fw_" in o for o in got["outputs"]["fw"]) and all("bw_" in o for o in got["outputs"]["bw"])
    assert got["cuts"]["fw"] and got["cuts"]["bw"]  # the head reads both blocks
    parts = got["graphs"]
    for k, m in parts.items():
        onnx.checker.check_model(m)
        assert len(m.graph.node) < len(whole.graph.node), k
    # neither block runs the other's attention: the nodes that give an output of one are not in the other
    made = {o: n.name for n in whole.graph.node for o in n.output}
    for k, other in (("fw", "bw"), ("bw", "fw")):
        held = {n.name for n in parts[k].graph.node}
        assert not held & {made[o] for o in got["outputs"][other]}, k
    assert [i.name for i in parts["head"].graph.input] == [i.name for i in whole.graph.input] + got["cuts"]["fw"] + got["cuts"]["bw"]
    assert_parts_equal_whole(export, got, ("fw", "bw"), names, seed=0)


@pytest.mark.parametrize("arch,keep", [("disan", None), ("dsa", None), ("dsa", ["probs"])])
def test_sentences_read_one_sentence_each_and_compute_every_output_of_the_whole_graph(tmp_path, tiny_glove, arch, keep):
    """An NLI graph by sentence: the premise's part reads p_ids (and α) alone, the hypothesis's h_ids (and α) alone,
    neither holds a node of the other's outputs, and the two, then the head fed what they pass, give every kept
    output of the whole graph within 1e-6 (T = 1, 2, 9; the hypothesis one shorter). keep = probs, leave-one-out's:
    the sentences' parts give no trace output. A single sentence's graph gives None."""
    from disan.onnx_export import export_site_model
    from tests.conftest import make_tiny

    export = exported(tmp_path, tiny_glove, arch, True)
    whole = onnx.load(str(export.onnx_path))
    got = onnx_graphs.sentences(whole, keep)
    assert got is not None
    names = keep or [o.name for o in whole.graph.output]
    assert sorted(got["outputs"]["p"] + got["outputs"]["h"] + got["outputs"]["head"]) == sorted(names)
    assert all(o.startswith("p_") for o in got["outputs"]["p"]) and all(o.startswith("h_") for o in got["outputs"]["h"])
    assert bool(got["outputs"]["p"]) == (not keep)
    for k, ids in (("p", "p_ids"), ("h", "h_ids")):
        assert ids in got["reads"][k] and set(got["reads"][k]) <= {ids, "alpha"}, got["reads"]
        assert got["cuts"][k], k  # the head reads each sentence's encoding
    made = {o: n.name for n in whole.graph.node for o in n.output}
    for k, other in (("p", "h_"), ("h", "p_")):
        onnx.checker.check_model(got["graphs"][k])
        held = {n.name for n in got["graphs"][k].graph.node}
        assert len(held) < len(whole.graph.node) and not held & {made[o.name] for o in whole.graph.output
                                                                 if o.name.startswith(other)}, k
    assert_parts_equal_whole(export, got, ("p", "h"), names, seed=1)
    single = export_site_model(make_tiny(arch, tiny_glove, unk_zero=True), tmp_path / "single", extra_words=5)
    assert onnx_graphs.sentences(onnx.load(str(single.onnx_path))) is None


def test_a_graph_without_value_info_or_with_a_subgraph_is_not_cut(tmp_path, tiny_glove):
    """An export from before the value infos (its cut tensors' types unknown), or a graph with an If node, gives
    None: the page then runs the whole graph in one worker; lean keeps every node beside a subgraph."""
    from onnx import TensorProto, helper

    from disan.onnx_export import export_site_model
    from tests.conftest import make_tiny

    export = export_site_model(make_tiny("disan", tiny_glove, unk_zero=True), tmp_path / "m", extra_words=5)
    old = onnx.load(str(export.onnx_path))
    assert len(old.graph.value_info) > len(old.graph.node) // 2  # store_weights wrote the types
    del old.graph.value_info[:]
    assert onnx_graphs.parts(old) is None

    v = lambda name: helper.make_tensor_value_info(name, TensorProto.FLOAT, [1])  # noqa: E731
    branch = lambda name: helper.make_graph(  # noqa: E731
        [helper.make_node("Identity", ["x"], [name + "_out"])], name, [], [v(name + "_out")])
    nodes = [helper.make_node("Neg", ["x"], ["fw_y"]), helper.make_node("Abs", ["x"], ["bw_y"]),
             helper.make_node("Greater", ["x", "x"], ["c"]),
             helper.make_node("If", ["c"], ["z"], then_branch=branch("then"), else_branch=branch("else"))]
    model = helper.make_model(helper.make_graph(nodes, "g", [v("x")], [v("fw_y"), v("bw_y"), v("z")]))
    assert onnx_graphs.parts(model) is None
    assert len(onnx_graphs.lean(model, ["fw_y"]).graph.node) == 4


def live_nodes(graph, keep: list[str]) -> list[str]:
    """The names of the nodes the outputs ``keep`` need, by a reading of the graph of its own (backwards)."""
    made = {o: n for n in graph.node for o in n.output}
    needed, live, todo = set(), set(), list(keep)
    while todo:
        name = todo.pop()
        if name in needed:
            continue
        needed.add(name)
        if name in made:
            live.add(made[name].name)
            todo.extend(i for i in made[name].input if i)
    return [n.name for n in graph.node if n.name in live]


@pytest.mark.parametrize("arch,pair", [("disan", False), ("dsa", True)])
def test_page_graphs_share_one_weights_file_and_give_the_whole_graphs_numbers(tmp_path, tiny_glove, arch, pair):
    """page_graphs on an export (the DSA pair with an int8 weight, as the bundled dsa-nli): every graph refers to the
    one weights file and holds no weight of its own over 1 KiB; the lean probabilities keep exactly the nodes
    `probs` needs and give the whole graph's numbers bit for bit, the maps' graph its maps; the word table lies in
    the weights at the offset the plan records (the bytes onnx's own reader gives)."""
    from onnx import numpy_helper

    export = exported(tmp_path, tiny_glove, arch, pair)
    whole = onnx.load(str(export.onnx_path))
    maps = [o.name for o in whole.graph.output if o.name.endswith(("fw_probs", "bw_probs", "fw_mean", "bw_mean"))]
    assert maps
    graphs, weights, plan = onnx_graphs.page_graphs(export.onnx_path.read_bytes(), maps, "probs")
    assert sorted(graphs) == sorted(["whole", "maps", "parts.fw", "parts.bw", "parts.head"] + (
        ["sentences.p", "sentences.h", "sentences.head", "probs.p", "probs.h", "probs.head"] if pair else ["probs"]))
    assert (plan["cuts"]["sentences"] is not None) == pair and plan["cuts"]["parts"]["cuts"]["fw"]
    (tmp_path / "page").mkdir()
    (tmp_path / "page" / onnx_graphs.WEIGHTS).write_bytes(weights)
    for name, data in graphs.items():
        m = onnx.load_from_string(data)
        assert all(len(i.raw_data) <= onnx_graphs.INLINE for i in m.graph.initializer), name
        (tmp_path / "page" / f"{name}.onnx").write_bytes(data)
    run = {n: ort.InferenceSession(str(tmp_path / "page" / f"{n}.onnx"), providers=["CPUExecutionProvider"])
           for n in ("whole", "maps", "probs" if not pair else "whole")}
    rng = np.random.default_rng(0)
    want_run = ort.InferenceSession(str(export.onnx_path), providers=["CPUExecutionProvider"])
    for T in (1, 4, 9):
        feeds = feeds_for(want_run, T, rng, export.own_words)
        want = dict(zip([o.name for o in want_run.get_outputs()], want_run.run(None, feeds)))
        for n, s in run.items():
            for o, got in zip([o.name for o in s.get_outputs()], s.run(None, feeds)):
                np.testing.assert_array_equal(got, want[o], err_msg=f"{n}: {o}, T = {T}")
    if not pair:
        lean = onnx.load_from_string(graphs["probs"])
        assert [o.name for o in lean.graph.output] == ["probs"] and len(whole.graph.output) > 5
        assert [n.name for n in lean.graph.node] == live_nodes(whole.graph, ["probs"])
        assert [i.name for i in lean.graph.input] == [i.name for i in whole.graph.input]
    t = plan["table"]
    [init] = [i for i in whole.graph.initializer if i.name in onnx_graphs.TABLE_NAMES]
    table = numpy_helper.to_array(init)
    assert (t["rows"], t["dim"], t["type"]) == (*table.shape, str(table.dtype))
    stored = np.frombuffer(weights, table.dtype, table.size, t["offset"]).reshape(table.shape)
    np.testing.assert_array_equal(stored, table)


@pytest.mark.parametrize("arch,pair,masks", [("disan", False, None), ("disan", True, None), ("disan", False, "diag"),
                                             ("disan", True, "diag"), ("dsa", False, None)])
def test_kernel_graphs_around_the_token2token_blocks_give_the_parts_outputs(tmp_path, tiny_glove, arch, pair, masks):
    """page_graphs' "kernel" plan (kernel_part.js runs it): per direction, ``front`` on the ids, each block's s and mean
    map computed from front's tensors (here by the export's own block, cut out; the kernel equals it within 1e-5,
    tests/test_kernel_graphs.py, tests/js/kernel.test.mjs), then ``after`` on them give every output and cut tensor
    of the direction's part within 1e-6, T = 1, 2, 9 (a pair model: a block per sentence). So too for a DiSAN
    without directions (masks "diag" both ways: the export computes that mask once, for both blocks). A DSA model,
    or a DiSAN one without c, has none."""
    from onnx.utils import Extractor

    export = exported(tmp_path, tiny_glove, arch, pair, **({"masks": (masks, masks)} if masks else {}))
    whole = onnx.load(str(export.onnx_path))
    graphs, weights, plan = onnx_graphs.page_graphs(export.onnx_path.read_bytes(), [], "probs", 5.0)
    kernel = plan["cuts"]["parts"]["kernel"]
    assert (kernel is not None) == (arch == "disan")
    assert onnx_graphs.page_graphs(export.onnx_path.read_bytes(), [], "probs")[2]["cuts"]["parts"]["kernel"] is None
    if kernel is None:
        assert not any(k.endswith((".front", ".after")) for k in graphs)
        return
    (tmp_path / "page").mkdir()
    (tmp_path / "page" / onnx_graphs.WEIGHTS).write_bytes(weights)

    def load(name):
        (tmp_path / "page" / f"{name}.onnx").write_bytes(graphs[name])
        return ort.InferenceSession(str(tmp_path / "page" / f"{name}.onnx"), providers=["CPUExecutionProvider"])

    def run(s, feeds):
        return dict(zip([o.name for o in s.get_outputs()], s.run(None, {i.name: feeds[i.name] for i in s.get_inputs()})))

    rng = np.random.default_rng(2)
    whole_run = ort.InferenceSession(str(export.onnx_path), providers=["CPUExecutionProvider"])
    for k in ("fw", "bw"):
        spec = kernel[k]
        assert len(spec["blocks"]) == (2 if pair else 1) and spec["c"] == 5.0
        assert spec["outputs"] == plan["cuts"]["parts"]["outputs"][k] + plan["cuts"]["parts"]["cuts"][k]
        part, front, after = load(f"parts.{k}"), load(spec["front"]), spec["after"] and load(spec["after"])
        blocks = [ort.InferenceSession(Extractor(whole).extract_model(
            [b[n] for n in ("key_part", "query_part", "values", "allowed")], [b["s"], b["mean"]]).SerializeToString(),
            providers=["CPUExecutionProvider"]) for b in spec["blocks"]]
        for T in (1, 2, 9):
            feeds = feeds_for(whole_run, T, rng, export.own_words)
            want, pool = run(part, feeds), dict(feeds)
            pool |= run(front, pool)
            for b, s in zip(spec["blocks"], blocks):
                got = run(s, pool)
                assert got[b["s"]].ndim == b["s_rank"] and got[b["mean"]].ndim == b["mean_rank"]
                pool |= got
            if after:
                pool |= run(after, pool)
            for name in spec["outputs"]:
                np.testing.assert_allclose(pool[name], want[name], rtol=0, atol=1e-6, err_msg=f"{k}: {name}, T = {T}")
        # the kernel replaces the blocks: neither graph around them computes a block's s or mean map
        made = {o for g in ("front", "after") if spec[g] for n in onnx.load_from_string(graphs[spec[g]]).graph.node
                for o in n.output}
        assert made and not made & {b[n] for b in spec["blocks"] for n in ("s", "mean")}
