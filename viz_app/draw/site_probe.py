"""The static explorer's runtime probe: a small ONNX graph that the page's worker runs once, before the model's
session, to start onnxruntime-web (``viz_app/browser/worker.js`` ``start``).

Why it runs one node of every op type the exported models run, not a single Identity: V8 compiles a hot wasm
function again with its optimising compiler (tier-up), and inlines an indirect call's targets that it saw
while the function ran unoptimised. One of onnxruntime-web's largest functions (490 kB of wasm, 0.7-1.0 s of
a core to optimise in Chromium 156) gets hot while the model's session is built. Its optimised code had then
only seen that build's calls, so the model's first runs, which call other kernels, threw it away
(deoptimised): compiled again unoptimised, slower, then optimised again for another 0.7 s. Chromium traces
showed this in the first seconds of typing, where it cost `bench site`'s one-event rows their p95. After
this probe's run the function has already called every kernel at its first tier-up, and the traces show one
compile instead of two (docs/benchmarks-and-reliability.md, "Why the one-event row missed").

The graph has no inputs and is run with graph optimisation disabled (worker.js), so no node is folded away
and every kernel runs. tests/test_site_probe.py checks that its op types cover those of each architecture's
export.
"""

from __future__ import annotations

import numpy as np


class _Graph:
    """Nodes and initializers of the probe, each node's output named by the caller."""

    def __init__(self):
        from onnx import helper, numpy_helper

        self.helper, self.numpy_helper = helper, numpy_helper
        self.nodes, self.inits = [], []

    def const(self, name: str, value) -> str:
        self.inits.append(self.numpy_helper.from_array(np.asarray(value), name))
        return name

    def op(self, op_type: str, inputs: list[str], out: str, domain: str = "", **attrs) -> str:
        self.nodes.append(self.helper.make_node(op_type, inputs, [out], domain=domain, **attrs))
        return out


def probe_graph() -> bytes:
    """The probe's ONNX bytes: a chain through every op type the exported DiSAN and distance-based SAN graphs run
    (after the export's optimisation, FusedMatMul and FusedGemm included) on 2 × 3 float tensors, no inputs."""
    from onnx import TensorProto as TP

    g = _Graph()
    c, op = g.const, g.op
    x = c("x", np.arange(6, dtype=np.float32).reshape(2, 3) / 6)                 # (2, 3)
    w, b, one, zero = c("w", np.eye(3, dtype=np.float32)), c("b", np.zeros(3, np.float32)), c("one", np.float32(1)), \
        c("zero", np.float32(0))
    ax0, ax1 = c("ax0", np.array([0], np.int64)), c("ax1", np.array([1], np.int64))
    zeros = op("ConstantOfShape", [op("Shape", [x], "shape")], "zeros",
               value=g.numpy_helper.from_array(np.zeros(1, np.float32)))       # (2, 3)
    a = op("Add", [x, zeros], "a")
    d = op("Div", [op("Mul", [a, a], "aa"), op("Add", [a, one], "a1")], "d")
    r = op("Reciprocal", [op("Exp", [op("Sub", [d, one], "d1")], "e")], "r")
    sm = op("Softmax", [op("Relu", [op("Sigmoid", [r], "sg")], "rl")], "sm", axis=-1)
    gm = op("Gemm", [op("MatMul", [sm, w], "mm"), w, b], "gm")
    fm = op("FusedMatMul", [gm, w], "fm", domain="com.microsoft", alpha=0.5, transB=1)
    fg = op("FusedGemm", [fm, w, b], "fg", domain="com.microsoft", activation="Relu")
    tr = op("Transpose", [fg], "tr", perm=[1, 0])                                 # (3, 2)
    rs = op("Reshape", [tr, c("shape23", np.array([2, 3], np.int64))], "rs")      # (2, 3)
    sq = op("Squeeze", [op("Unsqueeze", [rs, ax0], "us"), ax0], "sq")            # (2, 3)
    sl = op("Slice", [sq, c("start", np.array([0], np.int64)), c("end", np.array([1], np.int64)), ax1], "sl")  # (2, 1)
    pd = op("Pad", [op("Concat", [sq, sl], "cc", axis=1), c("pads", np.array([0, 0, 0, 1], np.int64))], "pd")  # (2, 5)
    total, mean, most = (op(o, [pd, ax1], o.lower()) for o in ("ReduceSum", "ReduceMean", "ReduceMax"))     # (2, 1)
    both = op("And", [op("Greater", [total, zero], "gt"), op("Less", [mean, zero], "lt")], "both")
    picked = op("Where", [op("And", [both, op("LessOrEqual", [most, zero], "le")], "all"), total, zero], "picked")
    half = op("Cast", [op("Cast", [picked], "f16", to=TP.FLOAT16)], "f32", to=TP.FLOAT)
    ids = c("ids", np.array([[0, 2]], np.int64))
    rows = op("Gather", [w, ids], "rows")                                         # (1, 2, 3)
    n = op("Gather", [op("Shape", [ids], "ids_shape"), c("k1", np.int64(1))], "n")
    steps = op("Range", [c("r0", np.int64(0)), n, c("r1", np.int64(1))], "steps")   # (2,)
    ln = op("LayerNormalization", [sq, c("gain", np.ones(3, np.float32)), b], "ln", axis=-1)
    el = op("Elu", [op("Abs", [op("Neg", [ln], "neg")], "abs")], "el")
    hot = op("OneHot", [op("ArgMax", [el], "am", axis=1, keepdims=0), c("depth", np.int64(3)),
                        c("off_on", np.array([0, 1], np.float32))], "hot", axis=-1)  # (2, 3)
    dq = op("DequantizeLinear", [c("q", np.array([1, 2, 3], np.int8)), c("scale", np.float32(0.1)),
                                 c("zp", np.int8(0))], "dq")
    out = op("Add", [op("Mul", [el, dq], "scaled"), hot], "out")
    outputs = [(out, TP.FLOAT, [2, 3]), (half, TP.FLOAT, [2, 1]), (rows, TP.FLOAT, [1, 2, 3]), (steps, TP.INT64, [2])]
    graph = g.helper.make_graph(g.nodes, "probe", [], [g.helper.make_tensor_value_info(*o) for o in outputs],
                                g.inits)
    model = g.helper.make_model(graph, opset_imports=[g.helper.make_opsetid("", 18), g.helper.make_opsetid("com.microsoft", 1)],
                                ir_version=8)
    return model.SerializeToString()
