"""The site export: onnxruntime equals the torch trace of the rounded model, the vocabulary file maps
words like ``SentenceModel.embed``, the bundled models fit the size target, bad folders are clear errors."""

import json

import numpy as np
import pytest
import torch

import disan
from disan import CheckpointError, InputError, OutputError, onnx_export
from disan.config import ModelConfig
from disan.model import SentenceModel
from disan.onnx_export import (
    ERROR_PAIRS,
    ERROR_SENTENCES,
    SITE_MAX_BYTES,
    SiteRunner,
    _torch_onnx,
    export_site_model,
    input_specs,
    max_differences,
    maxpool_consistent,
    optimize_graph,
    output_specs,
    rounded_model,
    site_table,
    store_weights,
    trace_outputs,
)
from disan.vocab import UNK_ID, build_vocab
from tests.conftest import make_tiny

pytest.importorskip("onnxruntime", reason="onnxruntime is not installed (requirements.txt)")
onnx = pytest.importorskip("onnx", reason="onnx is not installed (requirements.txt)")

TOL = 1e-5
LENGTHS = (1, 2, 6, 12, 64)
#: With the tiny GloVe (tests/conftest.py) and 4 extra words, the export holds a, dog, dogs, man;
#: tea and glass are GloVe words beyond the limit, qwzx is in neither.
EXTRA = 4
CYCLE = ("the", "movie", "a", "dog", "is", "good", "tea", "qwzx", ".", "man", "bad", "dogs", "glass")


def text_of(T: int, shift: int = 0, words=CYCLE) -> str:
    return " ".join(words[(i + shift) % len(words)] for i in range(T))


def export(model, folder, **kw):
    result = export_site_model(model, folder, **kw)
    return result, SiteRunner.open(folder, model.name if "name" not in kw else kw["name"])


def check_against_trace(runner, rounded, text, hyp=None, alpha=None):
    """onnxruntime vs ``rounded.trace`` for every output; returns both."""
    cfg = rounded.cfg
    got = runner.run(text, hyp, alpha)
    tr = rounded.trace(text, hyp, alpha=alpha)
    want = trace_outputs(tr, cfg)
    assert set(got) == set(want) == {s.name for s in output_specs(cfg)}
    diffs = max_differences(got, want, scaled=True)
    assert set(diffs) == {name for name in want if "maxpool" not in name}
    assert {k: v for k, v in diffs.items() if v > TOL} == {}, f"T={len(tr.tokens)} alpha={alpha}"
    if cfg.arch == "dsa":
        assert maxpool_consistent(got, tr, cfg, TOL)
    # The names read the right fields (checked here without sentence_outputs, which both sides share).
    assert np.abs(got["probs"] - np.array(list(tr.prediction.values()))).max() <= TOL
    assert got["probs"].argmax() == max(range(len(cfg.labels)), key=lambda k: tr.prediction[cfg.labels[k]])
    p = "p_" if cfg.pair else ""
    assert np.abs(got[f"{p}bw_gate"] - tr.premise.encoder.bw.gate[0].numpy()).max() <= TOL
    if cfg.pair:
        assert np.abs(got["h_s2t"] - tr.hypothesis.encoder.s2t_probs[0].numpy()).max() <= TOL
    return got, tr


def assert_keyless_rows_are_zero(got, cfg, prefix, T):
    """The first token has no key forward, the last none backward: exact zeros (not NaN, not 1e-30)."""
    if cfg.arch == "disan":
        assert (got[f"{prefix}fw_mean"][0] == 0).all() and (got[f"{prefix}bw_mean"][T - 1] == 0).all()
    else:
        assert (got[f"{prefix}fw_probs"][:, 0] == 0).all() and (got[f"{prefix}bw_probs"][:, T - 1] == 0).all()
    assert all(np.isfinite(v).all() for v in got.values())


@pytest.fixture(scope="module", params=[("disan", False), ("disan", True), ("dsa", False), ("dsa", True)],
                ids=["disan", "disan-nli", "dsa", "dsa-nli"])
def tiny_site(request, tiny_glove, tmp_path_factory):
    arch, pair = request.param
    model = make_tiny(arch, tiny_glove, pair=pair)
    result, runner = export(model, tmp_path_factory.mktemp("site"), extra_words=EXTRA)
    return model, result, runner, rounded_model(model, EXTRA)


@pytest.mark.parametrize("T", LENGTHS)
def test_runtime_equals_rounded_trace_at_every_length(tiny_site, T):
    model, _, runner, rounded = tiny_site
    cfg = model.cfg
    hyp = text_of(max(1, T // 2), shift=3) if cfg.pair else None
    alphas = (None, 0.0, 0.7) if cfg.arch == "dsa" else (None,)
    for alpha in alphas:
        got, tr = check_against_trace(runner, rounded, text_of(T), hyp, alpha)
        assert_keyless_rows_are_zero(got, cfg, "p_" if cfg.pair else "", T)
        if cfg.pair:
            assert_keyless_rows_are_zero(got, cfg, "h_", len(tr.hypothesis.tokens))


def declared(values):
    """(name, dims) of graph inputs or outputs as the .onnx declares them."""
    return [(v.name, tuple(d.dim_param or d.dim_value for d in v.type.tensor_type.shape.dim)) for v in values]


def test_graph_declares_the_documented_names_and_shapes(tiny_site):
    model, result, runner, _ = tiny_site
    graph = onnx.load(result.onnx_path).graph
    assert declared(graph.input) == [(s.name, s.dims) for s in input_specs(model.cfg)]
    assert declared(graph.output) == [(s.name, s.dims) for s in output_specs(model.cfg)]
    assert runner.meta["outputs"] == [s.to_json() for s in output_specs(model.cfg)]
    # the weights are float16; what else is float is the graph's own scalars (its Constant nodes, made
    # initializers by optimize_graph)
    weights = [i for i in graph.initializer if int(np.prod(i.dims)) > 1]
    assert weights and {i.data_type for i in weights} <= {onnx.TensorProto.FLOAT16, onnx.TensorProto.INT64}


def test_graph_is_stored_optimized_with_its_weights_unfolded(tiny_site):
    """optimize_graph: onnxruntime's extended rewrites are done at export (the page's session then asks only for
    constant folding), and the float16 weights stay float16 with their Cast to float32."""
    model, result, _, _ = tiny_site
    stored = result.onnx_path.read_bytes()
    graph = onnx.load_from_string(stored).graph
    ops = [n.op_type for n in graph.node]
    assert "Constant" not in ops and "FusedMatMul" in ops, sorted(set(ops))
    assert len(onnx.load_from_string(optimize_graph(stored)).graph.node) == len(ops)  # nothing left to rewrite
    assert "Cast" in ops and not [i.name for i in graph.initializer if i.data_type == onnx.TensorProto.FLOAT
                                  and int(np.prod(i.dims)) > 1]


def test_a_fusion_the_page_has_not_run_keeps_the_graph_as_exported(tiny_site, monkeypatch):
    """optimize_graph: onnxruntime's own operators beyond WEB_OWN_OPS (a newer onnxruntime's fusions) would fail
    in the page's older onnxruntime-web; the graph then stays as exported, for the page to optimize."""
    model, _, _, _ = tiny_site
    exported = store_weights(_torch_onnx(model, site_table(model, EXTRA)), True)
    assert optimize_graph(exported) != exported
    monkeypatch.setattr(onnx_export, "WEB_OWN_OPS", frozenset({"FusedGemm"}))
    assert optimize_graph(exported) == exported


def test_alpha_is_an_input_not_a_constant(tiny_glove, tmp_path):
    model = make_tiny("dsa", tiny_glove)
    _, runner = export(model, tmp_path, extra_words=EXTRA)
    text = text_of(12)
    own, none = runner.run(text), runner.run(text, alpha=0.0)
    assert np.abs(own["fw_probs"] - none["fw_probs"]).max() > 1e-3
    assert np.array_equal(own["fw_scores"], none["fw_scores"])  # α enters after the scores (Im Eq. 7)
    assert runner.meta["alpha"] == model.cfg.alpha == 1.5


def table_rows(result):
    """The word table as stored in the .onnx (float16 → float32), in id order."""
    inits = {i.name: i for i in onnx.load(result.onnx_path).graph.initializer}
    return torch.from_numpy(onnx.numpy_helper.to_array(inits["table_f16"]).astype(np.float32))


@pytest.mark.parametrize("unk_zero", [False, True])
def test_vocabulary_file_maps_words_to_embed_vectors(tiny_glove, tmp_path, unk_zero):
    model = make_tiny("disan", tiny_glove, unk_zero=unk_zero)
    with torch.no_grad():
        model.embedding.weight[UNK_ID].fill_(0.25)  # a trained-looking <unk> row: unk_zero must still zero it
    result, runner = export(model, tmp_path, extra_words=EXTRA)
    rounded = rounded_model(model, EXTRA)
    meta = json.loads(result.vocab_path.read_text(encoding="utf-8"))
    assert meta["words"][: meta["own"]] == list(model.vocab.words) and meta["own"] == result.own_words
    assert meta["words"][meta["own"] :] == ["a", "dog", "dogs", "man"] and result.extra_words == EXTRA
    assert (meta["pad"], meta["unk"]) == (0, 1)
    table = table_rows(result)
    tokens = ["movie", "dog", "tea", "qwzx"]  # own, GloVe within the limit, GloVe beyond it, unknown
    ids, status = runner.ids(tokens)
    assert status == ("vocab", "glove", "unknown", "unknown") == rounded.token_status(tokens)
    assert model.token_status(tokens)[2] == "glove"  # the full model knows tea; the export stops at EXTRA words
    x, _ = rounded.embed([tokens])  # (1, 4, d)
    assert torch.equal(table[torch.from_numpy(ids[0])], x[0])
    full, _ = model.embed([tokens[:2]])  # (1, 2, d)  the float32 vectors, before rounding
    assert torch.allclose(table[torch.from_numpy(ids[0, :2])], full[0], rtol=1e-3, atol=1e-4)
    assert torch.equal(table[UNK_ID] == 0, torch.full_like(table[UNK_ID], unk_zero, dtype=torch.bool))


def test_int8_matrices_when_over_the_byte_limit(tiny_glove, tmp_path):
    cfg = ModelConfig(arch="dsa", d_in=tiny_glove.dim, d_h=40, heads=2, head_hidden=32, labels=("neg", "pos"),
                      finetune_embeddings=False)
    torch.manual_seed(0)
    model = SentenceModel(cfg, build_vocab([["the", "movie", "is", "good"]]), tiny_glove, "wide-dsa", True).eval()
    whole, _ = export(model, tmp_path / "f16", max_bytes=None)
    assert whole.int8 == () and whole.max_float16_error < 1e-2
    small, runner = export(model, tmp_path / "int8", max_bytes=whole.total_bytes - 1)
    assert small.total_bytes <= whole.total_bytes - 1
    sizes = {k: v.numel() for k, v in model.state_dict().items() if v.dim() == 2 and k != "embedding.weight"}
    assert sizes[small.int8[0]] == max(sizes.values()) == 160 * 40  # largest first: FFN and source2token
    rounded = rounded_model(model, half=True, int8=small.int8)
    for T in (1, 6, 12):
        check_against_trace(runner, rounded, text_of(T))
    assert runner.meta["weights"]["int8"] == list(small.int8)
    with pytest.raises(OutputError, match="extra_words"):
        export_site_model(model, tmp_path / "none", max_bytes=1000)


def test_float32_export_equals_the_original_model(tiny_glove, tmp_path):
    model = make_tiny("dsa", tiny_glove, pair=True)
    result, runner = export(model, tmp_path, half=False, extra_words=EXTRA)
    assert result.max_float16_error <= TOL
    check_against_trace(runner, rounded_model(model, EXTRA, half=False), text_of(9), text_of(4, 2))
    assert onnx.TensorProto.FLOAT16 not in {i.data_type for i in onnx.load(result.onnx_path).graph.initializer}


def test_bad_folders_names_and_files_are_clear_errors(tiny_glove, tmp_path):
    model = make_tiny("disan", tiny_glove)
    with pytest.raises(OutputError, match="does not exist; create it first"):
        export_site_model(model, tmp_path / "missing" / "site")
    (tmp_path / "file").write_text("x")
    with pytest.raises(OutputError, match="is a file, not a folder"):
        export_site_model(model, tmp_path / "file")
    with pytest.raises(InputError, match="pass name="):
        export_site_model(model, tmp_path, name="../evil")
    with pytest.raises(InputError, match="extra_words=-1"):
        export_site_model(model, tmp_path, extra_words=-1)
    with pytest.raises(InputError, match="extra_words=1.5"):
        export_site_model(model, tmp_path / "never", extra_words=1.5)
    assert not (tmp_path / "never").exists()  # refused before any folder is made
    with pytest.raises(CheckpointError, match="is missing; run export_site_model"):
        SiteRunner.open(tmp_path / "nowhere", "tiny-disan")
    result, runner = export(model, tmp_path / "site", extra_words=EXTRA)
    with pytest.raises(InputError, match="no tokens"):
        runner.run(" \u200b ")
    data = result.onnx_path.read_bytes()
    result.onnx_path.write_bytes(data[: len(data) // 2])
    with pytest.raises(CheckpointError, match="is not a loadable ONNX model"):
        SiteRunner.open(tmp_path / "site", "tiny-disan")
    result.onnx_path.write_bytes(data)
    result.vocab_path.write_text('{"words": [', encoding="utf-8")
    with pytest.raises(CheckpointError, match="is not a site vocabulary file"):
        SiteRunner.open(tmp_path / "site", "tiny-disan")
    result.vocab_path.write_text('{"format": "other", "words": ["<pad>", "<unk>"], "own": 2}', encoding="utf-8")
    with pytest.raises(CheckpointError, match="format 'other'"):
        SiteRunner.open(tmp_path / "site", "tiny-disan")


BUNDLED = [name for name in disan.available() if name not in ("disan", "dsa")]


@pytest.mark.slow
@pytest.mark.parametrize("name", BUNDLED)
def test_bundled_model_files_fit_the_size_target(name, tmp_path):
    model = disan.load(name, device="cpu")
    result, runner = export(model, tmp_path)
    print(
        f"{name}: {result.onnx_bytes:,} + {result.vocab_bytes:,} = {result.total_bytes:,} bytes, "
        f"{result.own_words:,} own + {result.extra_words:,} GloVe words, int8: {list(result.int8)}, "
        f"float16 error {result.float16_error['probs']:.1e} prediction, {result.max_float16_error:.1e} any output, "
        f"runtime {max(result.runtime_error.values()):.1e}"
    )
    assert result.total_bytes <= SITE_MAX_BYTES
    assert result.total_bytes == result.onnx_path.stat().st_size + result.vocab_path.stat().st_size
    exact = rounded_model(model, result.extra_words, half=False)  # float32, the same words
    for item in ERROR_PAIRS if model.cfg.pair else ERROR_SENTENCES:
        text, hyp = item if model.cfg.pair else (item, None)
        want = exact.trace(text, hyp).prediction
        assert model.cfg.labels[runner.run(text, hyp)["probs"].argmax()] == max(want, key=want.get)


SPEECH = tuple("a gorgeous , witty , seductive movie about a lady at a mexican market and her qwzxv dog .".split())


@pytest.mark.slow
@pytest.mark.parametrize("name", ["disan-sst5", "dsa-nli"])
def test_bundled_runtime_equals_rounded_trace(name, tmp_path):
    model = disan.load(name, device="cpu")
    result, runner = export(model, tmp_path)
    rounded = rounded_model(model, result.extra_words, int8=result.int8)
    assert runner.ids(["qwzxv", "movie"])[1] == ("unknown", "vocab")
    for T in LENGTHS:
        hyp = text_of(max(1, T // 3), 5, SPEECH) if model.cfg.pair else None
        for alpha in ((None, 0.0) if model.cfg.arch == "dsa" else (None,)):
            check_against_trace(runner, rounded, text_of(T, 0, SPEECH), hyp, alpha)
