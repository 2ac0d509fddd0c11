"""A trained ``SentenceModel`` as one ONNX graph + one vocabulary file, for the static explorer.

The explorer runs the model in the visitor's browser with onnxruntime-web, offline. This module
exports the torch modules themselves: ``SiteModule`` embeds token ids with a table lookup, then
calls ``SentenceModel.classify`` (the encoders' and head's own forward, ``record=True``) and
returns fields of the recorded trace (``trace.py``) as named outputs. There is no second forward
pass to keep in step.

Files (``export_site_model``), for a model named ``NAME``:

* ``NAME.onnx``: the graph, opset 18, float32 compute; weights stored as float16, each followed
  by a ``Cast`` to float32 (so every op runs on onnxruntime-web's wasm backend). When the files
  would exceed ``max_bytes`` the largest weight matrices are stored as int8 with one float32
  scale per row (``DequantizeLinear``), largest first, until they fit (the result lists them).
  The graph is stored as onnxruntime's extended optimizations leave it, weights untouched
  (``optimize_graph``; it then holds onnxruntime's own ``FusedMatMul``), so the page's session
  asks only for onnxruntime's basic level, whose constant folding turns the weights into float32.
* ``NAME.vocab.json``: ``words`` in id order, the first ``own`` of them the model's own rows,
  the rest GloVe's most frequent words the model lacks (GloVe's file is in frequency order), at
  most ``extra_words`` (only words ``tokenize`` can produce); ``pad``/``unk`` ids; the inputs and
  outputs below with their shapes; ``weights`` (float16, the int8 matrices). The page maps a
  token to its id and marks it ``vocab`` (id < ``own``), ``glove`` (other ids) or ``unknown``
  (absent: the ``unk`` id), exactly like ``SentenceModel.embed`` and ``classify_tokens``
  (``SiteRunner.ids`` is the reference). The ``<unk>`` row is zero when ``cfg.unk_zero``.

Inputs (int64 ids come from the vocabulary file; every sentence is one unpadded row):

=========  =======  ======  ==============================================
name       dtype    shape   meaning
=========  =======  ======  ==============================================
ids        int64    (1, T)  the sentence (single-sentence models)
p_ids      int64    (1, T)  the premise (NLI models)
h_ids      int64    (1, T2) the hypothesis (NLI models)
alpha      float32  (1,)    DSA only: Im Eq. 7's α (the model's own: ``alpha`` in the JSON)
=========  =======  ======  ==============================================

Outputs: ``probs`` (K,) is ``softmax(logits)``, ``ModelTrace.prediction`` in label order. A relatedness
model (``cfg.relatedness``, SICK) adds ``score`` (1,), its relatedness rᵀp̂ over the grades r = 1..K
(``ModelTrace.relatedness``, Tai, Socher & Manning 2015), right after ``probs``. The
sentence outputs below carry no prefix for single-sentence models and ``p_``/``h_`` (with T2
for T) for the premise/hypothesis of NLI models. D = d_h (DiSAN) or d_model (DSA), H = heads.
Rows of T×T maps are the attending token. Each equals the trace field at batch index 0.

DiSAN (Shen et al. 2018):

===================  =========  =======================================================
name                 shape      trace field (``SentenceTrace.encoder``)
===================  =========  =======================================================
fw_mean, bw_mean     (T, T)     ``fw.probs_mean``: P averaged over features (Fig. 6)
fw_gate, bw_gate     (T, D)     ``fw.gate``: fusion gate F, Eq. 19
fw_keys, bw_keys     (T, D)     ``fw.key_part``: Eq. 15's ``W1 h_i + b1`` per key i
fw_queries, …        (T, D)     ``fw.query_part``: Eq. 15's ``W2 h_j`` per query j
s2t                  (T, 2D)    ``s2t_probs``: source2token P, Eqs. 12–13
===================  =========  =======================================================

The keys and queries give every cell's logit ``c·tanh((W1 h_i + W2 h_j + b1)/c)`` before the
mask (``c`` is in the JSON), so the page computes the per-feature P (``fw.probs``, Eq. 15 then the
softmax: T·T·D values, most of a long sentence's output were it one) when a figure needs it, and the
probabilities under other direction masks (Compare), without another graph.

Distance-based SAN (Im & Cho 2017):

=======================  =========  ===================================================
name                     shape      trace field
=======================  =========  ===================================================
fw_scores, bw_scores     (H, T, T)  ``fw.scores``: ``QKᵀ/√d_k`` before any mask
fw_probs, bw_probs       (H, T, T)  ``fw.probs``: Eq. 7 at the input α
fw_gate, bw_gate         (T, D)     ``fw.gate``: Eq. 12's F
fw_ffn_deactivation, …   (T,)       ``fw.ffn_deactivation``: share of dead ReLUs (Fig. 10a)
fw_ln_max, bw_ln_max     (T,)       ``fw.ln_max`` (Fig. 10b)
s2t                      (T, 2D)    ``s2t_probs``: Eqs. 14–16 (Fig. 11a)
maxpool_share            (T,)       ``maxpool_share`` (Fig. 11b)
maxpool_argmax           (2D,)      ``maxpool_argmax`` (int64): the token each feature's max came from
=======================  =========  ===================================================

Queries with no allowed key (the first token forward, the last backward; T = 1) give rows of
exact zeros, as in torch. Where two tokens tie in a feature's max pooling, onnxruntime and torch
may pick different winners, so ``maxpool_share`` can differ by multiples of 1/(2D) there
(``maxpool_consistent`` checks the winners instead).

Exporter. ``torch.onnx.export(dynamo=False)``, the TorchScript tracer, with ``dynamic_axes`` on
T: the encoders decide on T in Python (``DiSABlock`` keeps the full (T, T, D) probabilities up
to ``FULL_PROBS_MAX_TOKENS``; ``auto_chunk`` picks query chunks), and ``dynamo=True`` specialised
the graph to the example's T (measured with torch 2.13). The tracer records the branch taken at
the example length (``EXAMPLE_TOKENS``: full probabilities, one chunk) and keeps the shape
arithmetic symbolic, so one graph serves every T with the trace's numbers (tested at T = 1, 2, 6,
12, 64). Beyond the tracer's branch the graph still returns the full probabilities in one chunk:
the same values the chunked torch path computes, at (T, T, D) memory, so the page should cap T
(the report's 64 is ample). It needs no onnxscript. Torch calls this exporter deprecated, hence
the pinned torch in requirements.txt.

Precision. ``rounded_model`` is the torch model with exactly the stored weights (float16 or int8
rounding) and only the exported GloVe words: onnxruntime equals its ``trace`` within 1e-5
(relative above 1, for scores: ``max_differences``). The rounding itself is measured separately:
``SiteExport.float16_error`` is the max |onnxruntime − float32 torch trace| of every output over
``ERROR_SENTENCES``/``ERROR_PAIRS``. The bundled checkpoints are saved in float16 already, so for
them only the extra GloVe rows (and int8 matrices) round anything. Measured with the defaults
(``tests/test_onnx_export.py`` prints it per model): 1.9e-6 (disan-sst5) to 5.7e-4 (dsa-nli,
int8 head) on the prediction, ≤ 1.6e-3 on any other probability, gate or share, ≤ 4.9e-3 on the
scores; no predicted label changed.
"""

from __future__ import annotations

import io
import json
import os
import re
import tempfile
import warnings
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import torch
from torch import Tensor, nn

from .config import ModelConfig
from .errors import CheckpointError, DisanError, InputError, OutputError
from .model import SentenceModel
from .relatedness import expected_score
from .trace import DiSANTrace, EncoderTrace, ModelTrace
from .vocab import PAD_ID, UNK_ID, Glove, tokenize

FORMAT = "disan-site-1"
OPSET = 18
#: Every bundled model's ``.onnx`` + ``.vocab.json`` stays under this (10 MB, decimal).
SITE_MAX_BYTES = 10_000_000
#: GloVe words beyond the model's own. With 5,000 the DiSAN and dsa-sst5 models stay float16 throughout;
#: the dsa-nli models (5.06 M weights, 10.1 MB in float16 alone) store their head's first layer as int8.
DEFAULT_EXTRA_WORDS = 5_000
#: Lengths of the example the tracer runs: ≤ FULL_PROBS_MAX_TOKENS and one chunk, so the graph keeps every
#: output (module docstring); premise and hypothesis differ so that no shape of one stands in for the other's.
EXAMPLE_TOKENS, EXAMPLE_HYP_TOKENS = 7, 5
#: onnxruntime must equal ``rounded_model(...).trace`` this closely (``max_differences(scaled=True)``), or the
#: export is refused.
RUNTIME_TOLERANCE = 1e-5
INT8_LIMIT = 127

#: Sentences (and pairs) over which the float16 error is measured: 1 to 48 tokens, own words, GloVe words
#: the bundled models lack (minister, tuesday, economic, billion …) and unknown ones.
ERROR_SENTENCES = (
    "good",
    "the minister said on tuesday that the economic plan would cost a billion dollars , qwzxv .",
    "a gorgeous , witty , seductive movie .",
    "the movie is n't good , but the actors do their best with a thin script .",
    "A lady stands outside of a Mexican market .",
    "it 's a long , long , long film about nothing in particular , and the dog , the man and the tea "
    "never add up to the story the trailer promised ; still , i laughed twice and so did my friends .",
)
ERROR_PAIRS = (
    ("A lady stands outside of a Mexican market .", "A woman is outdoors ."),
    ("the minister said on tuesday that the economic plan would cost a billion dollars .", "a qwzxv spoke ."),
    ("A man is pouring a glass of tea", "A man drinks"),
    ("good", "a dog runs on the beach while two children watch from the pier ."),
)

_NAME_RE = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]*")


# ---------------------------------------------------------------- names and shapes
@dataclass(frozen=True)
class TensorSpec:
    """One graph input or output: ``dims`` are ints or the symbolic ``T``/``T2``."""

    name: str
    dtype: str
    dims: tuple[int | str, ...]

    def to_json(self) -> dict:
        return {"name": self.name, "dtype": self.dtype, "shape": list(self.dims)}


def _sentence_specs(cfg: ModelConfig, prefix: str, t: str) -> list[TensorSpec]:
    D, H = cfg.d_h, cfg.heads
    specs = []
    for side in ("fw", "bw"):
        if cfg.arch == "disan":
            specs += [
                TensorSpec(f"{prefix}{side}_mean", "float32", (t, t)),
                TensorSpec(f"{prefix}{side}_gate", "float32", (t, D)),
                TensorSpec(f"{prefix}{side}_keys", "float32", (t, D)),
                TensorSpec(f"{prefix}{side}_queries", "float32", (t, D)),
            ]
        else:
            specs += [
                TensorSpec(f"{prefix}{side}_scores", "float32", (H, t, t)),
                TensorSpec(f"{prefix}{side}_probs", "float32", (H, t, t)),
                TensorSpec(f"{prefix}{side}_gate", "float32", (t, D)),
                TensorSpec(f"{prefix}{side}_ffn_deactivation", "float32", (t,)),
                TensorSpec(f"{prefix}{side}_ln_max", "float32", (t,)),
            ]
    specs.append(TensorSpec(f"{prefix}s2t", "float32", (t, 2 * D)))
    if cfg.arch == "dsa":
        specs += [
            TensorSpec(f"{prefix}maxpool_share", "float32", (t,)),
            TensorSpec(f"{prefix}maxpool_argmax", "int64", (2 * D,)),
        ]
    return specs


def prefixes(cfg: ModelConfig) -> tuple[str, ...]:
    """Output-name prefix of each sentence: ``("",)`` or ``("p_", "h_")`` for NLI models."""
    return ("p_", "h_") if cfg.pair else ("",)


def input_specs(cfg: ModelConfig) -> tuple[TensorSpec, ...]:
    """The graph's inputs, in order (see the module docstring)."""
    ids = (
        [TensorSpec("p_ids", "int64", (1, "T")), TensorSpec("h_ids", "int64", (1, "T2"))]
        if cfg.pair
        else [TensorSpec("ids", "int64", (1, "T"))]
    )
    return tuple(ids + ([TensorSpec("alpha", "float32", (1,))] if cfg.arch == "dsa" else []))


def output_specs(cfg: ModelConfig) -> tuple[TensorSpec, ...]:
    """The graph's outputs, in order (see the module docstring)."""
    specs = [TensorSpec("probs", "float32", (len(cfg.labels),))]
    if cfg.relatedness:
        specs.append(TensorSpec("score", "float32", (1,)))
    for prefix, t in zip(prefixes(cfg), ("T", "T2")):
        specs += _sentence_specs(cfg, prefix, t)
    return tuple(specs)


def sentence_outputs(enc: EncoderTrace) -> dict[str, Tensor]:
    """One sentence's named outputs (unprefixed) from its encoder trace, batch index 0.

    ``SiteModule`` reads the traced forward through this, and the checks read ``trace()`` through
    it. DiSAN's per-feature P is not among them (the module docstring says why).
    """
    out: dict[str, Tensor] = {}
    for side, block in (("fw", enc.fw), ("bw", enc.bw)):
        if isinstance(enc, DiSANTrace):
            out[f"{side}_mean"] = block.probs_mean[0]  # (T, T)
            out[f"{side}_gate"] = block.gate[0]  # (T, D)
            out[f"{side}_keys"] = block.key_part[0]  # (T, D)
            out[f"{side}_queries"] = block.query_part[0]  # (T, D)
        else:
            out[f"{side}_scores"] = block.scores[0]  # (H, T, T)
            out[f"{side}_probs"] = block.probs[0]  # (H, T, T)
            out[f"{side}_gate"] = block.gate[0]  # (T, D)
            out[f"{side}_ffn_deactivation"] = block.ffn_deactivation[0]  # (T,)
            out[f"{side}_ln_max"] = block.ln_max[0]  # (T,)
    out["s2t"] = enc.s2t_probs[0]  # (T, 2D)
    if not isinstance(enc, DiSANTrace):
        out["maxpool_share"] = enc.maxpool_share[0]  # (T,)
        out["maxpool_argmax"] = enc.maxpool_argmax[0]  # (2D,)
    return out


def trace_outputs(trace: ModelTrace, cfg: ModelConfig) -> dict[str, np.ndarray]:
    """The graph's named outputs as ``SentenceModel.trace`` records them (numpy)."""
    out = {"probs": np.array([trace.prediction[label] for label in cfg.labels], dtype=np.float32)}  # (K,)
    if cfg.relatedness:
        out["score"] = np.array([trace.relatedness], dtype=np.float32)  # (1,)
    sentences = (trace.premise, trace.hypothesis) if cfg.pair else (trace.premise,)
    for prefix, sent in zip(prefixes(cfg), sentences):
        out.update({prefix + k: v.numpy() for k, v in sentence_outputs(sent.encoder).items()})
    return out


# ---------------------------------------------------------------- the table and the graph
@dataclass(frozen=True)
class SiteTable:
    """The exported embedding table: the model's own rows, then ``extra`` GloVe rows.

    words:   (N,) in id order; ``words[:own]`` are ``model.vocab.words``.
    vectors: (N, d_in) float32, the ``<unk>`` row zero when ``cfg.unk_zero``.
    """

    words: tuple[str, ...]
    own: int
    vectors: Tensor

    @property
    def extra(self) -> tuple[str, ...]:
        return self.words[self.own :]


def extra_glove_words(model: SentenceModel, extra_words: int) -> tuple[int, ...]:
    """GloVe rows of the first ``extra_words`` GloVe words (frequency order) the model lacks.

    Only words that ``tokenize`` can produce (``''``, ``–`` … never reach the model) count.
    """
    if isinstance(extra_words, bool) or not isinstance(extra_words, int) or extra_words < 0:
        raise InputError(f"extra_words={extra_words!r} must be an int >= 0 (GloVe words beyond the model's own).")
    glove, rows = model.glove, []
    if glove is None:
        return ()
    for row, word in enumerate(glove.words):
        if len(rows) == extra_words:
            break
        if word not in model.vocab.index and tokenize(word) == [word]:
            rows.append(row)
    return tuple(rows)


def site_table(model: SentenceModel, extra_words: int = DEFAULT_EXTRA_WORDS) -> SiteTable:
    """The table ``SentenceModel.embed`` reads from, made one matrix (float32, on the CPU)."""
    rows = extra_glove_words(model, extra_words)
    own = model.embedding.weight.detach().float().cpu().clone()  # (V, d_in)
    if model.cfg.unk_zero:
        own[UNK_ID] = 0.0  # as embed's mask: <unk> is a constant zero vector
    extra = torch.from_numpy(np.array(model.glove.vectors[list(rows)], dtype=np.float32)) if rows else own[:0]
    words = tuple(model.vocab.words) + tuple(model.glove.words[r] for r in rows)
    return SiteTable(words, len(model.vocab.words), torch.cat([own, extra]))  # (V + E, d_in): extra is (E, d_in)


class SiteModule(nn.Module):
    """Token ids (and α) → the named outputs, through ``SentenceModel.classify(record=True)``.

    Inputs and outputs as in the module docstring, in ``input_specs``/``output_specs`` order.
    """

    def __init__(self, model: SentenceModel, table: SiteTable):
        super().__init__()
        self.model = model.eval()
        self.register_buffer("table", table.vectors)  # (N, d_in)
        self.names = [spec.name for spec in output_specs(model.cfg)]

    def forward(self, *inputs: Tensor) -> tuple[Tensor, ...]:
        cfg = self.model.cfg
        ids = inputs[: 2 if cfg.pair else 1]  # (1, T) [, (1, T2)]
        alpha = inputs[-1] if cfg.arch == "dsa" else None  # (1,)
        x = [self.table[i] for i in ids]  # (1, T, d_in) each: embed's lookup, ids from the vocabulary file
        valid = [torch.ones_like(i, dtype=torch.bool) for i in ids]  # (1, T) each: one unpadded sentence
        y, valid_h = (x[1], valid[1]) if cfg.pair else (None, None)
        logits, *traces = self.model.classify(x[0], valid[0], y, valid_h, record=True, alpha=alpha)  # (1, K)
        out = {"probs": torch.softmax(logits.float(), -1)[0]}  # (K,)  as SentenceModel.trace
        if cfg.relatedness:
            out["score"] = expected_score(logits)  # (1,)  rᵀp̂, as SentenceModel.trace
        for prefix, trace in zip(prefixes(cfg), traces):
            out.update({prefix + k: v for k, v in sentence_outputs(trace).items()})
        return tuple(out[name] for name in self.names)


def _copy(model: SentenceModel, glove: Glove | None, state: dict[str, Tensor]) -> SentenceModel:
    """A CPU SentenceModel with ``model``'s config and vocabulary, ``glove`` and the weights ``state``."""
    with torch.random.fork_rng(devices=[]):
        copy = SentenceModel(model.cfg, model.vocab, glove, model.name, model.random_weights)
    copy.load_state_dict(state)
    return copy.eval()


def _torch_onnx(model: SentenceModel, table: SiteTable) -> bytes:
    """The float32 graph of ``SiteModule`` (TorchScript tracer; module docstring: why)."""
    cfg = model.cfg
    module = SiteModule(_copy(model, model.glove, model.state_dict()), table).eval()
    n = len(table.words)
    example = [torch.arange(EXAMPLE_TOKENS)[None] % n]  # (1, 7)
    if cfg.pair:
        example.append(torch.arange(EXAMPLE_HYP_TOKENS)[None] % n)  # (1, 5)
    if cfg.arch == "dsa":
        example.append(torch.tensor([float(cfg.alpha)]))  # (1,)
    specs = input_specs(cfg) + output_specs(cfg)
    dynamic = {s.name: {i: d for i, d in enumerate(s.dims) if isinstance(d, str)} for s in specs}
    buffer = io.BytesIO()
    with torch.no_grad(), warnings.catch_warnings():
        # The tracer warns at each Python decision on T (FULL_PROBS_MAX_TOKENS, auto_chunk, the α recorded
        # as a float in the trace); those are the branches meant to be baked in (module docstring).
        warnings.simplefilter("ignore", torch.jit.TracerWarning)
        warnings.filterwarnings("ignore", message=".*legacy TorchScript-based ONNX export.*")
        warnings.filterwarnings("ignore", message=".*will be removed.*")
        torch.onnx.export(
            module,
            tuple(example),
            buffer,
            dynamo=False,
            opset_version=OPSET,
            input_names=[s.name for s in input_specs(cfg)],
            output_names=module.names,
            dynamic_axes={k: v for k, v in dynamic.items() if v},
            do_constant_folding=False,  # keeps every weight an initializer named after its parameter
        )
    return _declare_shapes(buffer.getvalue(), output_specs(cfg))


def _declare_shapes(graph_bytes: bytes, specs: Sequence[TensorSpec]) -> bytes:
    """The outputs' declared shapes set from ``specs`` (the tracer leaves H as an anonymous symbol)."""
    import onnx

    proto = onnx.load_from_string(graph_bytes)
    for output, spec in zip(proto.graph.output, specs):
        dims = output.type.tensor_type.shape.dim
        for dim, size in zip(dims, spec.dims):
            if isinstance(size, str):
                dim.dim_param = size
            else:
                dim.dim_value = size
    return proto.SerializeToString()


# ---------------------------------------------------------------- weight storage
def quantize_rows(w: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(R, C) float32 → int8 (R, C) and float32 scales (R,), symmetric per row: w ≈ q · scale."""
    scale = (np.abs(w).max(axis=1) / INT8_LIMIT).astype(np.float32)  # (R,)
    scale = np.where(scale > 0, scale, np.float32(1))  # (R,)  an all-zero row stays zero
    q = np.clip(np.rint(w / scale[:, None]), -INT8_LIMIT, INT8_LIMIT).astype(np.int8)  # (R, C)
    return q, scale


def dequantize_rows(q: np.ndarray, scale: np.ndarray) -> np.ndarray:
    """``DequantizeLinear`` (axis 0, zero point 0) in numpy: bit for bit what onnxruntime computes."""
    return q.astype(np.float32) * scale[:, None]  # (R, C)


def store_weights(graph_bytes: bytes, half: bool, int8: Sequence[str] = ()) -> bytes:
    """The graph with float32 initializers stored as float16 (``half``) or per-row int8 (``int8`` names).

    Each stored tensor is followed by a ``Cast``/``DequantizeLinear`` node whose output takes the
    initializer's name, so the graph still computes in float32. The tensors computed from the inputs get
    their types as value_info (``_declare_types``).
    """
    import onnx
    from onnx import TensorProto, helper, numpy_helper

    proto = onnx.load_from_string(graph_bytes)
    graph, kept, nodes = proto.graph, [], []
    for init in graph.initializer:
        if init.data_type != TensorProto.FLOAT or (not half and init.name not in int8):
            kept.append(init)
            continue
        w = numpy_helper.to_array(init)
        if init.name in int8:
            q, scale = quantize_rows(w)
            kept += [numpy_helper.from_array(q, f"{init.name}_int8"),  # (R, C) int8
                     numpy_helper.from_array(scale, f"{init.name}_scale")]  # (R,) float32
            nodes.append(helper.make_node(
                "DequantizeLinear", [f"{init.name}_int8", f"{init.name}_scale"], [init.name], axis=0,
                name=f"{init.name}_dequantize",
            ))
        else:
            kept.append(numpy_helper.from_array(w.astype(np.float16), f"{init.name}_f16"))
            nodes.append(helper.make_node("Cast", [f"{init.name}_f16"], [init.name], to=TensorProto.FLOAT,
                                          name=f"{init.name}_cast"))
    del graph.initializer[:]
    graph.initializer.extend(kept)
    rest = list(graph.node)
    del graph.node[:]
    graph.node.extend(nodes + rest)  # the casts come first: node order must be topological
    _declare_types(proto)
    onnx.checker.check_model(proto)
    return proto.SerializeToString()


#: onnxruntime's own operators (domain com.microsoft) that ``optimize_graph`` may leave in a graph: those its
#: fusions give the bundled models, which onnxruntime-web runs in the page (tests/test_site.py, bench site).
WEB_OWN_OPS = frozenset({"FusedMatMul", "FusedGemm"})


def optimize_graph(graph_bytes: bytes) -> bytes:
    """The graph as onnxruntime's extended optimizations leave it (``Constant`` nodes as initializers, each
    ``Transpose`` of a weight fused into its ``MatMul`` as ``FusedMatMul``), its stored weights untouched.

    onnxruntime-web would make the same rewrites when the page opens a session, in the worker that has just started
    the runtime's wasm. Probed in headless Chromium on a 2-core machine (disan-sst5, cold opens): at the ``all``
    level the model's session took 290-375 ms after the runtime's start, and V8's background top-tier compiling
    during the open came to 1.3-3.7 s of CPU; on this graph at ``basic`` (site.js ``create``), 150-190 ms and
    0.9-1.2 s. ``basic`` still folds the float16/int8 weights into float32 once. Constant folding is left out
    here, so the file keeps them small; ``session.disable_quant_qdq`` keeps each ``DequantizeLinear`` for it.
    """
    try:
        import onnxruntime as ort
    except ImportError:
        raise DisanError("Exporting a site model needs onnxruntime; `pip install -r requirements.txt`.") from None
    with tempfile.TemporaryDirectory(prefix="disan-onnx-") as tmp:
        out = Path(tmp) / "optimized.onnx"
        options = ort.SessionOptions()
        options.log_severity_level = 3
        options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_EXTENDED
        options.optimized_model_filepath = str(out)
        options.add_session_config_entry("session.disable_quant_qdq", "1")
        ort.InferenceSession(graph_bytes, options, providers=["CPUExecutionProvider"],
                             disabled_optimizers=["ConstantFolding"])
        optimized = out.read_bytes()
    import onnx

    # onnxruntime here (requirements.txt) may be newer than the page's onnxruntime-web (package.json): a fusion
    # into one of its own ops that the page has not run keeps the graph as exported, which the page optimizes itself
    own = {n.op_type for n in onnx.load_from_string(optimized).graph.node if n.domain not in ("", "ai.onnx")}
    return optimized if own <= WEB_OWN_OPS else graph_bytes


def _declare_types(proto) -> None:
    """The element type and rank of every tensor computed from the inputs, as the graph's value_info (onnx's
    shape inference; symbolic sizes left unnamed). The site's build cuts the graph into parts that run in two workers
    at once (``disan.onnx_graphs``), and a tensor passed between parts is declared with its type.
    A tensor computed from initializers alone is never passed (each part computes it), so it gets none: the
    site's model file is at its size limit."""
    import onnx

    del proto.graph.value_info[:]
    inferred = onnx.shape_inference.infer_shapes(proto, strict_mode=True).graph.value_info
    constant = {i.name for i in proto.graph.initializer}
    for node in proto.graph.node:  # topological order (store_weights keeps it)
        if all(not i or i in constant for i in node.input):
            constant.update(node.output)
    kept = [v for v in inferred if v.name not in constant]
    for v in kept:
        for dim in v.type.tensor_type.shape.dim:
            dim.ClearField("dim_param")  # a symbol's name ("unk__12"): the rank and fixed sizes are enough
    proto.graph.value_info.extend(kept)


def int8_candidates(graph_bytes: bytes) -> tuple[str, ...]:
    """The model's weight matrices in the graph (not the word table), largest first."""
    import onnx
    from onnx import TensorProto

    inits = onnx.load_from_string(graph_bytes).graph.initializer
    mats = [i for i in inits if i.data_type == TensorProto.FLOAT and len(i.dims) == 2 and i.name != "table"]
    return tuple(i.name for i in sorted(mats, key=lambda i: (-int(np.prod(i.dims)), i.name)))


def _param(name: str) -> str:
    """A graph initializer's name → the SentenceModel parameter (``SiteModule`` holds it as ``model``)."""
    return name.removeprefix("model.")


def rounded_model(
    model: SentenceModel, extra_words: int = DEFAULT_EXTRA_WORDS, *, half: bool = True, int8: Sequence[str] = ()
) -> SentenceModel:
    """A CPU copy of ``model`` holding exactly the exported numbers.

    Every floating parameter rounded to float16 (``half``) or, for the ``int8`` parameter names
    (``SiteExport.int8``), to the per-row int8 grid; its GloVe only the ``extra_words`` exported
    words, float16-rounded. Its ``trace`` is what the page computes.
    """
    state = {}
    for name, value in model.state_dict().items():
        value = value.detach().float().cpu() if value.is_floating_point() else value.cpu()
        if name in int8:
            value = torch.from_numpy(dequantize_rows(*quantize_rows(value.numpy())))
        elif half and value.is_floating_point():
            value = value.half().float()
        state[name] = value
    rows = list(extra_glove_words(model, extra_words))
    glove = None
    if model.glove is not None:
        vectors = np.array(model.glove.vectors[rows], dtype=np.float32)  # (E, d_in)
        glove = Glove(
            tuple(model.glove.words[r] for r in rows),
            vectors.astype(np.float16).astype(np.float32) if half else vectors,
            source=f"{model.glove.source}, first {len(rows)} words beyond the model's own",
        )
    return _copy(model, glove, state)


# ---------------------------------------------------------------- running the export like the page
class SiteRunner:
    """onnxruntime (CPU) on an exported model, fed like the page: text → tokens → ids → outputs."""

    def __init__(self, graph: bytes, meta: dict, source: str = "the export"):
        try:
            import onnxruntime as ort
        except ImportError:
            raise DisanError("Running a site model needs onnxruntime; `pip install -r requirements.txt`.") from None
        options = ort.SessionOptions()
        options.log_severity_level = 3  # the checks report what matters
        options.intra_op_num_threads = 1
        try:
            self.session = ort.InferenceSession(graph, options, providers=["CPUExecutionProvider"])
        except Exception as err:  # onnxruntime raises its own classes for every kind of bad file
            raise CheckpointError(f"{source} is not a loadable ONNX model ({err}); export it again.") from None
        self.meta = meta
        self.index = {w: i for i, w in enumerate(meta["words"])}

    @classmethod
    def open(cls, out_dir: str | os.PathLike, name: str) -> SiteRunner:
        """Load ``out_dir/name.onnx`` and ``out_dir/name.vocab.json``; ``CheckpointError`` when missing or corrupt."""
        folder = Path(out_dir)
        onnx_path, vocab_path = folder / f"{name}.onnx", folder / f"{name}.vocab.json"
        for path in (onnx_path, vocab_path):
            if not path.is_file():
                raise CheckpointError(
                    f"{str(path)!r} is missing; run export_site_model(disan.load({name!r}), {str(folder)!r}) first."
                )
        try:
            meta = json.loads(vocab_path.read_text(encoding="utf-8"))
            words, own = meta["words"], meta["own"]
            ok = meta.get("format") == FORMAT and isinstance(words, list) and 2 <= own <= len(words)
        except (OSError, UnicodeDecodeError, json.JSONDecodeError, KeyError, TypeError) as err:
            raise CheckpointError(f"{str(vocab_path)!r} is not a site vocabulary file ({err}); export again.") from None
        if not ok:
            raise CheckpointError(
                f"{str(vocab_path)!r} is not a {FORMAT} vocabulary file (format {meta.get('format')!r}); export again."
            )
        return cls(onnx_path.read_bytes(), meta, repr(str(onnx_path)))

    def ids(self, tokens: Sequence[str]) -> tuple[np.ndarray, tuple[str, ...]]:
        """(1, T) int64 ids and per token ``vocab``/``glove``/``unknown``, as the page must compute them."""
        ids = [self.index.get(t, self.meta["unk"]) for t in tokens]
        own = self.meta["own"]
        status = tuple("unknown" if t not in self.index else "vocab" if i < own else "glove"
                       for t, i in zip(tokens, ids))
        return np.array([ids], dtype=np.int64), status

    def run(self, text: str, hypothesis: str | None = None, alpha: float | None = None) -> dict[str, np.ndarray]:
        """The named outputs for one sentence (or pair); ``alpha`` None: the model's own."""
        feeds = {}
        names = ["p_ids", "h_ids"] if self.meta["pair"] else ["ids"]
        for name, sentence in zip(names, (text, hypothesis)):
            tokens = tokenize(sentence or "")
            if not tokens:
                raise InputError(f"{name} got no tokens from {sentence!r}; give at least one word.")
            feeds[name] = self.ids(tokens)[0]
        if self.meta["arch"] == "dsa":
            feeds["alpha"] = np.array([self.meta["alpha"] if alpha is None else alpha], dtype=np.float32)
        names = [o.name for o in self.session.get_outputs()]
        return dict(zip(names, self.session.run(None, feeds)))


def max_differences(got: dict[str, np.ndarray], want: dict[str, np.ndarray], scaled: bool = False) -> dict[str, float]:
    """Max |got − want| per float output present in both (``maxpool_*``: see ``maxpool_consistent``).

    ``scaled``: |got − want| / max(1, |want|), the absolute difference for probabilities, gates and
    shares (all ≤ 1) and the relative one for scores and ``ln_max`` above 1, whose float32 rounding
    grows with their size (one ulp at 64 is 7.6e-6).
    """
    out = {}
    for name, value in want.items():
        if name in got and "maxpool" not in name:
            if got[name].shape != value.shape:
                raise DisanError(f"Output {name} has shape {got[name].shape}, the trace {value.shape}; export again.")
            diff = np.abs(got[name].astype(np.float64) - value)
            out[name] = float((diff / np.maximum(1.0, np.abs(value)) if scaled else diff).max(initial=0.0))
    return out


def maxpool_consistent(got: dict[str, np.ndarray], trace: ModelTrace, cfg: ModelConfig, tol: float) -> bool:
    """Every winner of onnxruntime's max pooling is a maximum of the traced U within ``tol`` (ties may
    pick either token), and ``maxpool_share`` is the share of features each winner takes."""
    sentences = (trace.premise, trace.hypothesis) if cfg.pair else (trace.premise,)
    for prefix, sent in zip(prefixes(cfg), sentences):
        u = torch.cat([sent.encoder.fw.u[0], sent.encoder.bw.u[0]], -1).numpy()  # (T, 2D)
        argmax = got[f"{prefix}maxpool_argmax"]  # (2D,)
        chosen = u[argmax, np.arange(u.shape[1])]  # (2D,)
        share = np.bincount(argmax, minlength=u.shape[0]) / u.shape[1]  # (T,)
        if (chosen < u.max(0) - tol).any() or np.abs(got[f"{prefix}maxpool_share"] - share).max() > 1e-6:
            return False
    return True


# ---------------------------------------------------------------- export
@dataclass(frozen=True)
class SiteExport:
    """What ``export_site_model`` wrote and measured.

    float16_error:  max |onnxruntime − float32 torch trace| per output over ``ERROR_SENTENCES`` /
                    ``ERROR_PAIRS``, the torch model given the same GloVe words, so this is the storage's
                    rounding alone (float16 and any int8; ``maxpool_*`` left out, see the docstring).
    runtime_error:  against ``rounded_model(...).trace`` (the runtime alone), ``max_differences(scaled=True)``:
                    ≤ RUNTIME_TOLERANCE, else nothing is written.
    int8:           parameters stored as int8 to fit ``max_bytes`` (pass to ``rounded_model``).
    """

    onnx_path: Path
    vocab_path: Path
    onnx_bytes: int
    vocab_bytes: int
    own_words: int
    extra_words: int
    half: bool
    int8: tuple[str, ...]
    float16_error: dict[str, float] = field(hash=False)
    runtime_error: dict[str, float] = field(hash=False)

    @property
    def total_bytes(self) -> int:
        return self.onnx_bytes + self.vocab_bytes

    @property
    def max_float16_error(self) -> float:
        return max(self.float16_error.values())


def _site_name(model: SentenceModel, name: str | None) -> str:
    name = model.name if name is None else name
    if not _NAME_RE.fullmatch(name):
        raise InputError(f"{name!r} cannot name the site files; pass name= with letters, digits, '.', '_' or '-'.")
    return name


def _prepare_folder(out_dir: str | os.PathLike) -> Path:
    """``out_dir``, created when its parent exists; ``OutputError`` naming the fix otherwise."""
    folder = Path(out_dir).expanduser()
    if folder.exists() and not folder.is_dir():
        raise OutputError(f"{str(folder)!r} is a file, not a folder; give a folder for the site model files.")
    if not folder.parent.is_dir():
        raise OutputError(
            f"Cannot create {str(folder)!r}: the folder {str(folder.parent)!r} does not exist; create it first."
        )
    try:
        folder.mkdir(exist_ok=True)
    except OSError as err:
        raise OutputError(f"Cannot create {str(folder)!r}: {err.strerror}; choose a folder you can write to.") from None
    if not os.access(folder, os.W_OK | os.X_OK):
        raise OutputError(f"Cannot write into {str(folder)!r}: permission denied; choose a folder you can write to.")
    return folder


def _write_atomic(path: Path, data: bytes) -> None:
    """``data`` to ``path`` through a temporary file and a rename: a reader never sees half a model."""
    tmp = None
    try:
        fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".part", dir=path.parent)
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
        os.chmod(tmp, 0o644)
        os.replace(tmp, path)
    except OSError as err:
        if tmp is not None:
            Path(tmp).unlink(missing_ok=True)
        raise OutputError(f"Cannot write {str(path)!r}: {err.strerror or err}; choose another folder.") from None


def _measure(
    runner: SiteRunner, model: SentenceModel, sentences: Sequence, scaled: bool
) -> tuple[dict[str, float], list]:
    """``max_differences`` of runner and ``model.trace`` over ``sentences``, and the (outputs, trace) pairs."""
    errors: dict[str, float] = {}
    runs = []
    for item in sentences:
        text, hyp = item if model.cfg.pair else (item, None)
        got, trace = runner.run(text, hyp), model.trace(text, hyp)
        for name, err in max_differences(got, trace_outputs(trace, model.cfg), scaled).items():
            errors[name] = max(errors.get(name, 0.0), err)
        runs.append((got, trace))
    return errors, runs


def _meta(model: SentenceModel, table: SiteTable, onnx_name: str, half: bool, int8: Sequence[str]) -> dict:
    cfg = model.cfg
    return {
        "format": FORMAT,
        "model": model.name,
        "onnx": onnx_name,
        "arch": cfg.arch,
        "pair": cfg.pair,
        "relatedness": cfg.relatedness,
        "labels": list(cfg.labels),
        "alpha": cfg.alpha if cfg.arch == "dsa" else None,
        "c": cfg.c if cfg.arch == "disan" else None,  # Shen Eq. 15's c: the keys and queries give the logits
        "masks": list(cfg.masks),
        "random_weights": model.random_weights,
        "inputs": [s.to_json() for s in input_specs(cfg)],
        "outputs": [s.to_json() for s in output_specs(cfg)],
        "weights": {"float16": half, "int8": list(int8)},
        "pad": PAD_ID,
        "unk": UNK_ID,
        "own": table.own,
        "words": list(table.words),
    }


def export_site_model(
    model: SentenceModel,
    out_dir: str | os.PathLike,
    *,
    extra_words: int = DEFAULT_EXTRA_WORDS,
    half: bool = True,
    max_bytes: int | None = SITE_MAX_BYTES,
    name: str | None = None,
) -> SiteExport:
    """Write ``NAME.onnx`` and ``NAME.vocab.json`` into ``out_dir`` (created if its parent exists).

    ``half``: weights stored as float16 (else float32). When the two files would exceed
    ``max_bytes`` (``None``: no limit), the largest weight matrices go to int8, largest first, until
    they fit. Before writing, onnxruntime runs the graph over ``ERROR_SENTENCES`` (or pairs) and
    must equal ``rounded_model(...).trace`` within ``RUNTIME_TOLERANCE`` (else ``DisanError``).
    """
    try:
        import onnx  # noqa: F401
    except ImportError:
        raise DisanError("Exporting a site model needs onnx; `pip install -r requirements.txt`.") from None
    name = _site_name(model, name)
    table = site_table(model, extra_words)
    folder = _prepare_folder(out_dir)
    graph = _torch_onnx(model, table)
    candidates, int8 = int8_candidates(graph), []
    while True:
        stored = optimize_graph(store_weights(graph, half, int8))
        meta = _meta(model, table, f"{name}.onnx", half, [_param(n) for n in int8])
        vocab = json.dumps(meta, ensure_ascii=False, separators=(",", ":")).encode("utf-8")
        if max_bytes is None or len(stored) + len(vocab) <= max_bytes:
            break
        if len(int8) == len(candidates):
            raise OutputError(
                f"{name} needs {len(stored) + len(vocab):,} bytes even with every weight matrix in int8, over "
                f"max_bytes={max_bytes:,}; lower extra_words={extra_words:,} or raise max_bytes."
            )
        int8.append(candidates[len(int8)])
    runner = SiteRunner(stored, meta)
    params = tuple(_param(n) for n in int8)
    sentences = ERROR_PAIRS if model.cfg.pair else ERROR_SENTENCES
    runtime_error, runs = _measure(runner, rounded_model(model, extra_words, half=half, int8=params), sentences, True)
    worst = max(runtime_error, key=runtime_error.get)
    if runtime_error[worst] > RUNTIME_TOLERANCE or not all(
        maxpool_consistent(got, tr, model.cfg, RUNTIME_TOLERANCE) for got, tr in runs if model.cfg.arch == "dsa"
    ):
        raise DisanError(
            f"onnxruntime differs from the rounded torch model by {runtime_error[worst]:.2e} in {worst} (max pooling "
            f"checked too), over the tolerance {RUNTIME_TOLERANCE:.0e}; the export is wrong, nothing was written."
        )
    float16_error, _ = _measure(runner, rounded_model(model, extra_words, half=False), sentences, False)
    onnx_path, vocab_path = folder / f"{name}.onnx", folder / f"{name}.vocab.json"
    _write_atomic(onnx_path, stored)
    _write_atomic(vocab_path, vocab)
    return SiteExport(
        onnx_path, vocab_path, len(stored), len(vocab), table.own, len(table.extra), half, params,
        float16_error, runtime_error,
    )
