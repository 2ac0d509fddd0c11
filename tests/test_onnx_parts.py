"""viz_app/browser/onnx_graph.js's ``parts`` (the page's graph cut in three for two workers) and ``sentences`` (an
NLI graph cut by sentence, so that the page's worker reruns only the sentence that changed) in Node, run by
onnxruntime: the two blocks or sentences and the head, fed what the first two pass on, give every output of the
whole graph; each part holds only the nodes its outputs need; a graph that cannot be cut gives null."""

from __future__ import annotations

import json

import numpy as np
import pytest

from tests.page_js import node_module

#: Cuts the graph at argv[2] by Graph[argv[4]] (keeping the outputs argv[5] names, comma-separated, if
#: given) into argv[3]/<part>.onnx and prints {outputs, cuts, reads} (or null).
CUT = r"""
const keep = process.argv[5] ? process.argv[5].split(",") : undefined;
const p = Graph[process.argv[4]](new Uint8Array(fs.readFileSync(process.argv[2])), keep);
if (p) for (const k of Object.keys(p.outputs)) fs.writeFileSync(path.join(process.argv[3], k + ".onnx"), p[k]);
process.stdout.write(JSON.stringify(p && { outputs: p.outputs, cuts: p.cuts, reads: p.reads }));
"""


def cut(graph_path, out_dir, how: str = "parts", keep: str = ""):
    proc = node_module(CUT, str(graph_path), str(out_dir), how, keep, timeout=120)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)


def feeds_for(session, T: int, rng, words: int) -> dict:
    feeds = {}
    for i in session.get_inputs():
        n = T if i.name != "h_ids" else max(1, T - 1)  # a hypothesis of another length than the premise
        feeds[i.name] = np.array([0.7], np.float32) if i.name == "alpha" else rng.integers(2, words, (1, n)).astype(np.int64)
    return feeds


def exported(tmp_path, tiny_glove, arch: str, pair: bool):
    """A tiny model's site export; the DSA's with an int8 weight, as the bundled DSA models store theirs."""
    from disan.onnx_export import export_site_model
    from tests.conftest import make_tiny

    model = make_tiny(arch, tiny_glove, pair=pair, unk_zero=True)
    full = export_site_model(model, tmp_path / "full", extra_words=5)
    return full if arch == "disan" else export_site_model(model, tmp_path / "int8", extra_words=5,
                                                          max_bytes=full.total_bytes - 1)


def assert_parts_equal_whole(export, parts: dict, got: dict, groups: tuple[str, str], names: list[str], seed: int):
    """onnxruntime: the two groups' parts, then the head fed what they pass, give each output in ``names`` of the
    whole graph within 1e-6, T = 1, 2, 9."""
    import onnxruntime as ort

    sessions = {k: ort.InferenceSession(m.SerializeToString(), providers=["CPUExecutionProvider"]) for k, m in parts.items()}
    whole_run = ort.InferenceSession(str(export.onnx_path), providers=["CPUExecutionProvider"])
    rng = np.random.default_rng(seed)
    for T in (1, 2, 9):
        feeds = feeds_for(whole_run, T, rng, export.own_words)
        want = dict(zip([o.name for o in whole_run.get_outputs()], whole_run.run(None, feeds)))
        out = {}
        for k in groups:
            out.update(zip([o.name for o in parts[k].graph.output], sessions[k].run(None, feeds)))
        head_feeds = dict(feeds, **{c: out[c] for k in groups for c in got["cuts"][k]})
        out.update(zip(got["outputs"]["head"], sessions["head"].run(None, head_feeds)))
        for name in names:
            np.testing.assert_allclose(out[name], want[name], rtol=0, atol=1e-6, err_msg=f"{name}, T = {T}")


@pytest.mark.parametrize("arch,pair", [("disan", False), ("dsa", False), ("dsa", True)])
def test_parts_compute_every_output_of_the_whole_graph(tmp_path, tiny_glove, arch, pair):
    """fw ‖ bw, then head on the cut tensors: every output equals the whole graph's (onnxruntime, T = 1, 2, 9);
    fw holds none of the nodes that give the backward block's outputs and bw none of the forward's."""
    onnx = pytest.importorskip("onnx")
    pytest.importorskip("onnxruntime")
    export = exported(tmp_path, tiny_glove, arch, pair)
    got = cut(export.onnx_path, tmp_path)
    assert got is not None
    whole = onnx.load(str(export.onnx_path))
    names = [o.name for o in whole.graph.output]
    assert sorted(got["outputs"]["fw"] + got["outputs"]["bw"] + got["outputs"]["head"]) == sorted(names)
    assert all("fw_" in o for o in got["outputs"]["fw"]) and all("bw_" in o for o in got["outputs"]["bw"])
    assert got["cuts"]["fw"] and got["cuts"]["bw"]  # the head reads both blocks
    parts = {k: onnx.load(str(tmp_path / f"{k}.onnx")) for k in ("fw", "bw", "head")}
    for k, m in parts.items():
        onnx.checker.check_model(m)
        assert len(m.graph.node) < len(whole.graph.node), k
    # neither block runs the other's attention: the nodes that give an output of one are not in the other
    made = {o: n.name for n in whole.graph.node for o in n.output}
    for k, other in (("fw", "bw"), ("bw", "fw")):
        held = {n.name for n in parts[k].graph.node}
        assert not held & {made[o] for o in got["outputs"][other]}, k
    assert [i.name for i in parts["head"].graph.input] == [i.name for i in whole.graph.input] + got["cuts"]["fw"] + got["cuts"]["bw"]
    assert_parts_equal_whole(export, parts, got, ("fw", "bw"), names, seed=0)


@pytest.mark.parametrize("arch,keep", [("disan", ""), ("dsa", ""), ("dsa", "probs")])
def test_sentences_read_one_sentence_each_and_compute_every_output_of_the_whole_graph(tmp_path, tiny_glove, arch, keep):
    """An NLI graph by sentence: the premise's part reads p_ids (and α) alone, the hypothesis's h_ids (and α) alone,
    neither holds a node of the other's outputs, and the two, then the head fed what they pass, give every kept
    output of the whole graph within 1e-6 (T = 1, 2, 9; the hypothesis one shorter). keep = probs, leave-one-out's:
    the sentences' parts give no trace output. A single sentence's graph gives null."""
    onnx = pytest.importorskip("onnx")
    pytest.importorskip("onnxruntime")
    from disan.onnx_export import export_site_model
    from tests.conftest import make_tiny

    export = exported(tmp_path, tiny_glove, arch, True)
    got = cut(export.onnx_path, tmp_path, "sentences", keep)
    assert got is not None
    whole = onnx.load(str(export.onnx_path))
    names = keep.split(",") if keep else [o.name for o in whole.graph.output]
    assert sorted(got["outputs"]["p"] + got["outputs"]["h"] + got["outputs"]["head"]) == sorted(names)
    assert all(o.startswith("p_") for o in got["outputs"]["p"]) and all(o.startswith("h_") for o in got["outputs"]["h"])
    assert bool(got["outputs"]["p"]) == (not keep)
    for k, ids in (("p", "p_ids"), ("h", "h_ids")):
        assert ids in got["reads"][k] and set(got["reads"][k]) <= {ids, "alpha"}, got["reads"]
        assert got["cuts"][k], k  # the head reads each sentence's encoding
    parts = {k: onnx.load(str(tmp_path / f"{k}.onnx")) for k in ("p", "h", "head")}
    made = {o: n.name for n in whole.graph.node for o in n.output}
    for k, other in (("p", "h_"), ("h", "p_")):
        onnx.checker.check_model(parts[k])
        held = {n.name for n in parts[k].graph.node}
        assert len(held) < len(whole.graph.node) and not held & {made[o.name] for o in whole.graph.output
                                                                 if o.name.startswith(other)}, k
    assert_parts_equal_whole(export, parts, got, ("p", "h"), names, seed=1)
    single = export_site_model(make_tiny(arch, tiny_glove, unk_zero=True), tmp_path / "single", extra_words=5)
    assert cut(single.onnx_path, tmp_path, "sentences") is None


def test_a_graph_without_value_info_or_with_a_subgraph_is_not_cut(tmp_path, tiny_glove):
    """An export from before the value infos (its cut tensors' types unknown), or a graph with an If node, gives
    null: the page then runs the whole graph in one worker."""
    onnx = pytest.importorskip("onnx")
    from onnx import TensorProto, helper

    from disan.onnx_export import export_site_model
    from tests.conftest import make_tiny

    export = export_site_model(make_tiny("disan", tiny_glove, unk_zero=True), tmp_path / "m", extra_words=5)
    old = onnx.load(str(export.onnx_path))
    assert len(old.graph.value_info) > len(old.graph.node) // 2  # store_weights wrote the types
    del old.graph.value_info[:]
    onnx.save(old, str(tmp_path / "old.onnx"))
    assert cut(tmp_path / "old.onnx", tmp_path) is None

    v = lambda name: helper.make_tensor_value_info(name, TensorProto.FLOAT, [1])  # noqa: E731
    branch = lambda name: helper.make_graph(  # noqa: E731
        [helper.make_node("Identity", ["x"], [name + "_out"])], name, [], [v(name + "_out")])
    nodes = [helper.make_node("Neg", ["x"], ["fw_y"]), helper.make_node("Abs", ["x"], ["bw_y"]),
             helper.make_node("Greater", ["x", "x"], ["c"]),
             helper.make_node("If", ["c"], ["z"], then_branch=branch("then"), else_branch=branch("else"))]
    graph = helper.make_graph(nodes, "g", [v("x")], [v("fw_y"), v("bw_y"), v("z")])
    onnx.save(helper.make_model(graph), str(tmp_path / "if.onnx"))
    assert cut(tmp_path / "if.onnx", tmp_path) is None
