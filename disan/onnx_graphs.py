"""The exported site graph cut at build time into every graph the static explorer's page runs, its weights stored once.

The page (viz_app/browser/site.js, worker.js) names a prepared graph and never reads protobuf:

* ``whole``: the export itself; ``maps``: only the attention maps' outputs (painted first while typing: the
  embedding and the two attention blocks, Shen Eqs. 14, 15, 17, 18; Im Eq. 7); ``probs``: only the class
  probabilities (leave-one-out's runs). onnxruntime runs every node of a graph whatever is fetched, so a lean graph
  skips the gates, FFN, source2token and classifier the maps do not need.
* ``parts.fw`` / ``parts.bw`` / ``parts.head``: the forward and the backward block (Shen §4, Im & Cho Fig. 2:
  neither reads the other) run in two workers at once, then the head on what they computed.
* ``parts.fw.front`` / ``parts.fw.after`` (and bw), for a DiSAN model (``kernel``): the part cut around each of its
  token2token blocks (Shen Eqs. 15, 11 under the masks of Eqs. 17-18), which the page's fused WebAssembly kernel
  (viz_app/kernels/token2token.ts, viz_app/browser/kernel_part.js) runs in between: ``front`` takes the inputs to
  the block's inputs and the part's outputs that do not need it, ``after`` the block's s (and h) to the rest.
* for an NLI model, ``sentences.p`` / ``.h`` / ``.head``: the encoder reads one sentence (Shen §5.1, Im & Cho
  §4.2), so a key typed in the premise leaves the hypothesis's part as it was; ``probs`` is cut the same way.

Every graph keeps the export's inputs (one feeds object runs them all) and refers to one shared weights file,
ONNX external data that onnxruntime-web takes as ``InferenceSession.create(graph, {externalData: [{path:
WEIGHTS, data}]})``. Cutting is ``onnx.utils.Extractor``; what is here is which tensors each cut passes on.
"""

from __future__ import annotations

import re
import tempfile
from pathlib import Path

#: The external data's file name inside every graph, which the page passes to onnxruntime-web with the bytes.
WEIGHTS = "weights"
#: disan/onnx_export.py's SiteModule holds the word table as "table"; store_weights renames a float16 one.
TABLE_NAMES = ("table_f16", "table")
INLINE = 1024
FW, BW, PREMISE, HYPOTHESIS = re.compile(r"(^|_)fw_"), re.compile(r"(^|_)bw_"), re.compile(r"^p_"), re.compile(r"^h_")


def _has_subgraph(graph) -> bool:
    """A node with a subgraph (If, Loop, Scan) may read any name of the graph around it: not cut by names."""
    return any(a.g.node or a.graphs for n in graph.node for a in n.attribute)


def _closure(producer: dict, names, stop=lambda name, node: False) -> set:
    """The indices of the nodes that compute ``names``, reached backwards; ``stop(name, node)``: taken as given."""
    live, todo = set(), list(names)
    while todo:
        name = todo.pop()
        node = producer.get(name)
        if node is None or node[0] in live or stop(name, node):
            continue
        live.add(node[0])
        todo += [i for i in node[1].input if i]
    return live


def lean(model, outputs) -> object:
    """``model`` with only the graph outputs ``outputs`` and the nodes they need (a graph with a subgraph: whole)."""
    from onnx.utils import Extractor

    if _has_subgraph(model.graph):
        return model
    return Extractor(model).extract_model([i.name for i in model.graph.input], list(outputs))


def cut(model, groups, keep=None) -> dict | None:
    """The graph cut by its outputs: each of ``groups`` ([(key, regex), …]; an output goes to the first whose regex
    it matches) computes its outputs, and ``head`` the rest, reading what it needs of the groups' tensors as inputs of
    its own. Nodes two groups need (the embedding lookup, the masks) run in each; a node that reads only initializers
    (a float16 weight's Cast) runs wherever it is needed, never passed between parts. ``keep`` (default every
    output): the outputs to compute; a group then computes only what head reads and its own kept outputs.
    Returns {"graphs": {<key>…, "head": ModelProto}, "outputs": {<key>…, "head": the kept outputs each computes},
    "cuts": {<key>: the tensors it passes to head}, "reads": {<key>: the graph inputs it reads}}, or None where the
    graph cannot be cut: it holds a subgraph, a group or the head has no output, or a cut tensor has no value info."""
    from onnx.utils import Extractor

    graph = model.graph
    if _has_subgraph(graph):
        return None
    outputs, inits = [o.name for o in graph.output], {i.name for i in graph.initializer}
    wanted = (lambda o: True) if keep is None else (lambda o: o in keep)
    producer = {o: (k, n) for k, n in enumerate(graph.node) for o in n.output if o}
    constant: set = set()  # nodes whose value never depends on the input
    grew = True
    while grew:
        before = len(constant)
        constant |= {k for k, n in enumerate(graph.node) if all(
            not i or (producer[i][0] in constant if i in producer else i in inits) for i in n.input)}
        grew = len(constant) > before
    outs, blocks, taken = {}, {}, set()
    for key, regex in groups:
        outs[key] = [o for o in outputs if o not in taken and regex.search(o)]
        taken.update(outs[key])
        blocks[key] = _closure(producer, outs[key])  # every node the group's outputs need, kept or not
    head_outs = [o for o in outputs if o not in taken and wanted(o)]
    if not head_outs or not all(outs.values()):
        return None
    cuts: dict = {key: [] for key, _ in groups}

    def given(name, node) -> bool:
        owner = next((key for key, _ in groups if node[0] in blocks[key]), None)
        if node[0] in constant or owner is None:
            return False
        if name not in cuts[owner]:
            cuts[owner].append(name)
        return True

    _closure(producer, head_outs, given)
    inputs = [i.name for i in graph.input if i.name not in inits]
    extractor, kept = Extractor(model), {key: [o for o in outs[key] if wanted(o)] for key, _ in groups}
    try:
        parts = {"head": extractor.extract_model(inputs + [c for key, _ in groups for c in cuts[key]], head_outs)}
        for key, _ in groups:
            parts[key] = extractor.extract_model(inputs, kept[key] + cuts[key])
    except ValueError:  # a cut tensor without a value info (an export older than the parts)
        return None
    reads = {key: [i for i in inputs if any(i in n.input for n in parts[key].graph.node)] for key, _ in groups}
    return {"graphs": parts, "outputs": kept | {"head": head_outs}, "cuts": cuts, "reads": reads}


def parts(model) -> dict | None:
    """The graph in three: ``fw`` computes the outputs named fw_… (with any p_/h_ prefix), ``bw`` those named bw_…,
    ``head`` the rest."""
    return cut(model, [("fw", FW), ("bw", BW)])


def token2token_blocks(model, direction: str) -> list[dict] | None:
    """The export's token2token blocks of one direction (one per sentence): the tensors around each, found by the
    weights that read or make them (the values h feed the MatMuls by W1 and W2; s feeds the fusion gate's MatMul by
    W_f^(1), Shen Eq. 19), so the fc layer's activation or the node numbering may change; the mask by its name, and
    the mean map as the graph output computed from the block's key part. None for a graph without them (a DSA)."""
    w = f"model.encoder.{direction}."
    readers: dict = {}  # a weight (a float16 one is Cast first, under the same name) → the nodes reading it
    for n in model.graph.node:
        for i in n.input:
            readers.setdefault(i, []).append(n)
    need = [w + k for k in ("w1.weight", "w2.weight", "gate_s.weight")]
    if not all(k in readers for k in need):
        return None
    producer = {o: (i, n) for i, n in enumerate(model.graph.node) for o in n.output if o}
    index = {id(n): i for i, n in enumerate(model.graph.node)}
    outputs = [o.name for o in model.graph.output]
    # a block's (1, T, T) mask of allowed keys; where both directions have the same mask (the ablations without
    # directions, masks "diag"), the export computes it once, under one direction's name, for both
    masks = [o for o in producer if re.fullmatch(r"/encoder/(fw|bw)(_\d+)?/And_1_output_0", o)]
    blocks = []
    for key_mm in readers[need[0]]:  # a block per sentence; a pair model's sentences share the weights
        values = key_mm.input[0]
        key_add = next((n for n in model.graph.node if n.op_type == "Add" and key_mm.output[0] in n.input), None)
        query = [n for n in readers[need[1]] if n.input[0] == values]
        gate = [n for n in readers[need[2]] if index[id(key_mm)] in _closure(producer, [n.input[0]])]
        means = [o for o in outputs if o.endswith(f"{direction}_mean") and index[id(key_mm)] in _closure(producer, [o])]
        if key_add is None or len(query) != 1 or len(gate) != 1 or len(means) != 1:
            return None
        mask = [m for m in masks if producer[m][0] in _closure(producer, [means[0]])]
        if len(mask) != 1:
            return None
        blocks.append({"key_part": key_add.output[0], "query_part": query[0].output[0], "values": values,
                       "allowed": mask[0], "s": gate[0].input[0], "mean": means[0]})
    return blocks or None


def kernel_cut(model, part_outputs: list[str], direction: str, c: float | None) -> dict | None:
    """One direction's part (``part_outputs``: what parts' group computes, its outputs and the tensors it passes)
    cut around its token2token blocks for the page's kernel: {"front": ModelProto (the graph inputs → each block's
    key part, query part, values h and (1, T, T) mask, and the part's outputs that need no block), "after": ModelProto
    or None (the blocks' tensors with s → the part's other outputs), "blocks": token2token_blocks, "outputs":
    part_outputs, "c": Shen's c}. None where the model has no such blocks or no c."""
    from onnx.utils import Extractor

    blocks = token2token_blocks(model, direction)
    if not blocks or c is None or _has_subgraph(model.graph):
        return None
    producer = {o: (i, n) for i, n in enumerate(model.graph.node) for o in n.output if o}
    given = {b[k] for b in blocks for k in ("key_part", "query_part", "values", "allowed", "s", "mean")}
    from_kernel = {b[k] for b in blocks for k in ("s", "mean")}
    reached = set()
    for o in part_outputs:  # does o read a block's s or mean map? (then it is computed after the kernel)
        stop = lambda name, node: name in from_kernel and not reached.add(o)
        _closure(producer, [o], stop)
    inputs = [i.name for i in model.graph.input if i.name not in {t.name for t in model.graph.initializer}]
    front_outs = list(dict.fromkeys([b[k] for b in blocks for k in ("key_part", "query_part", "values", "allowed")]
                                    + [o for o in part_outputs if o not in reached and o not in from_kernel]))
    after_outs = [o for o in part_outputs if o in reached and o not in from_kernel]
    extractor = Extractor(model)
    try:
        front = extractor.extract_model(inputs, front_outs)
        after = None
        if after_outs:
            after = extractor.extract_model(inputs + sorted(given), after_outs)
            used = {i for n in after.graph.node for i in n.input}
            after = extractor.extract_model([i for i in inputs + sorted(given) if i in used], after_outs)
    except ValueError:  # a tensor without a value info
        return None
    typed = {v.name: v for v in list(model.graph.value_info) + list(model.graph.output)}
    ranks = {k: len(typed[b[k]].type.tensor_type.shape.dim) for b in blocks for k in ("s", "mean") if b[k] in typed}
    if set(ranks) != {"s", "mean"}:
        return None
    blocks = [b | {"s_rank": len(typed[b["s"]].type.tensor_type.shape.dim),
                   "mean_rank": len(typed[b["mean"]].type.tensor_type.shape.dim)} for b in blocks]
    return {"front": front, "after": after, "blocks": blocks, "outputs": list(part_outputs), "c": float(c)}


def sentences(model, keep=None) -> dict | None:
    """An NLI graph in three: ``p`` the premise's outputs (p_…), ``h`` the hypothesis's (h_…), ``head`` the class
    probabilities from the two sentence encodings. None for a single-sentence graph. ``keep`` as cut's."""
    return cut(model, [("p", PREMISE), ("h", HYPOTHESIS)], keep)


def shared_weights(graph_bytes: bytes) -> tuple[object, bytes]:
    """The model with its word table and every initializer over ``INLINE`` bytes moved to one external data file
    named ``WEIGHTS``, and that file's bytes: every graph cut from it refers to the same bytes. The small ones
    (shapes, axes) stay in each graph: onnxruntime's shape inference reads them before any external data."""
    import onnx
    from onnx import TensorProto
    from onnx.external_data_helper import set_external_data

    model = onnx.load_from_string(graph_bytes)
    for t in model.graph.initializer:
        if t.name in TABLE_NAMES or len(t.raw_data) > (INLINE if t.data_type == TensorProto.INT64 else 64):
            set_external_data(t, WEIGHTS)
    with tempfile.TemporaryDirectory(prefix="disan-graphs-") as tmp:
        onnx.save_model(model, Path(tmp) / "whole.onnx")
        return onnx.load(Path(tmp) / "whole.onnx", load_external_data=False), (Path(tmp) / WEIGHTS).read_bytes()


def table_spec(model) -> dict:
    """Where the word table lies in the weights file: {offset, rows, dim, type ("float16" | "float32")}."""
    from onnx import TensorProto

    t = next((i for i in model.graph.initializer if i.name in TABLE_NAMES), None)
    if t is None or len(t.dims) != 2 or t.data_type not in (TensorProto.FLOAT16, TensorProto.FLOAT):
        raise ValueError(f"the export holds no (words, dim) float word table named {' or '.join(TABLE_NAMES)}")
    place = {e.key: e.value for e in t.external_data}
    return {"offset": int(place.get("offset", 0)), "rows": t.dims[0], "dim": t.dims[1],
            "type": "float16" if t.data_type == TensorProto.FLOAT16 else "float32"}


def page_graphs(graph_bytes: bytes, maps: list[str], prediction: str, c: float | None = None) -> tuple[dict, bytes, dict]:
    """Every graph the page runs, by name (serialized, weights outside), the weights' bytes, and the plan the page
    reads: {"table": table_spec, "cuts": {"parts" | "sentences" | "probs": cut's outputs, cuts and reads, or None}}.
    ``maps``: the maps' output names; ``prediction``: the class probabilities' output; ``c``: a DiSAN model's
    Shen c. For a DiSAN model the parts' plan has "kernel": {"fw" | "bw": kernel_cut's blocks, outputs, c and the
    names of its graphs "parts.<k>.front" / "parts.<k>.after" (null: none)}, else "kernel" is null."""
    model, weights = shared_weights(graph_bytes)
    graphs = {"whole": model, "maps": lean(model, maps)}
    pair = any(i.name.startswith("h_") for i in model.graph.input)
    cuts = {"parts": parts(model), "sentences": sentences(model) if pair else None,
            "probs": sentences(model, [prediction]) if pair else None}
    if cuts["probs"] is None:
        graphs["probs"] = lean(model, [prediction])
    plan = {"table": table_spec(model), "cuts": {}}
    for name, cut_ in cuts.items():
        plan["cuts"][name] = cut_ and {k: cut_[k] for k in ("outputs", "cuts", "reads")}
        graphs.update({f"{name}.{k}": m for k, m in (cut_["graphs"].items() if cut_ else ())})
    if cuts["parts"]:
        p, kernel = cuts["parts"], {}
        for k in ("fw", "bw"):
            kc = kernel_cut(model, p["outputs"][k] + p["cuts"][k], k, c)
            if kc is None:
                kernel = None
                break
            graphs[f"parts.{k}.front"] = kc["front"]
            if kc["after"] is not None:
                graphs[f"parts.{k}.after"] = kc["after"]
            kernel[k] = {"blocks": kc["blocks"], "outputs": kc["outputs"], "c": kc["c"], "front": f"parts.{k}.front",
                         "after": kc["after"] is not None and f"parts.{k}.after" or None}
        plan["cuts"]["parts"]["kernel"] = kernel
    for m in graphs.values():  # the types the cuts needed; onnxruntime infers them again (a third of the bytes)
        del m.graph.value_info[:]
    return {k: m.SerializeToString() for k, m in graphs.items()}, weights, plan
