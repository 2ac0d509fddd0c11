"""The graphs scripts/probe_kernel.mjs times: disan-sst5's site export (disan/onnx_export.py ``export_site_model``, as
``python -m viz_app site`` writes it) cut with ``onnx.utils.Extractor`` where a fused token2token kernel
(viz_app/kernels/) would take over from onnxruntime-web.

Usage: ``python scripts/kernel_graphs.py OUT_DIR [--onnx EXPORT.onnx] [--model disan-sst5]`` writes into OUT_DIR:

* ``front.onnx``: ids → each direction's block inputs (the key and query parts W1 h + b1 and W2 h, the values h
  after the fc layer, the (1, T, T) mask; Shen Eqs. 15, 17, 18), the inputs both sides are fed;
* ``t2t_fw.onnx`` / ``t2t_bw.onnx``: one direction's token2token block, those four tensors → s (1, T, D) before
  the fusion gate and the mean map (T, T) (disan/attention.py ``_exported_token2token``): the work the kernel does;
* ``front_fw.onnx``: ids → the forward block's inputs alone (what one worker would still run before the kernel);
  ``front_t2t_fw.onnx``: ids → the forward block's s and mean map, the two in one graph;
* ``part_fw.onnx``: the page's whole forward part (disan/onnx_graphs.py ``parts``), for scale;
* ``after.onnx``: both directions' s and h (and ids) → the fusion gates (Shen Eqs. 19-20), source2token (Eqs.
  12-13) and the class probabilities: what ORT would still run after the kernel handed s back; ``gates.onnx``
  and ``s2t.onnx`` are its two halves (the gated, masked (1, T, 2D) encoding between them);
* ``graphs.json``: the tensor names of each cut and the model's c (from NAME.vocab.json beside the export) and D.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def block_names(model, direction: str) -> dict:
    """The export's tensors around one direction's token2token block (``_exported_token2token``'s graph): the page's
    own finder, ``disan.onnx_graphs.token2token_blocks`` (a single-sentence export has one block a direction)."""
    from disan.onnx_graphs import token2token_blocks

    blocks = token2token_blocks(model, direction)
    if not blocks or len(blocks) != 1:
        raise SystemExit(f"the export has no single {direction} token2token block (W1, W2, the gate's W_f^(1), the "
                         "direction mask): not a single-sentence DiSAN export, or its graph changed")
    return blocks[0]


def cut_graphs(onnx_path: Path, out: Path) -> dict:
    import onnx
    from onnx.utils import Extractor

    from disan.onnx_graphs import parts

    model = onnx.load(onnx_path)
    names = {d: block_names(model, d) for d in ("fw", "bw")}
    produced = {o for n in model.graph.node for o in n.output}
    missing = [t for d in names.values() for t in d.values() if t not in produced]
    if missing:
        raise SystemExit(f"the export at {onnx_path} has no tensor {missing[0]!r}: the graph changed; update block_names")
    ex = Extractor(model)
    graphs = {
        "front": ex.extract_model(["ids"], [names[d][k] for d in ("fw", "bw")
                                            for k in ("key_part", "query_part", "values", "allowed")]),
        "after": ex.extract_model(["ids"] + [names[d][k] for d in ("fw", "bw") for k in ("s", "values")],
                                  [o.name for o in model.graph.output if o.name in ("probs", "s2t", "fw_gate", "bw_gate")]),
    }
    fused = "/encoder/Concat_output_0"  # (1, T, 2D): both directions' gated outputs, source2token's input
    if fused not in produced:
        raise SystemExit(f"the export at {onnx_path} has no tensor {fused!r}: the graph changed; update kernel_graphs.py")
    gate_in = ["ids"] + [names[d][k] for d in ("fw", "bw") for k in ("s", "values")]
    graphs["gates"] = ex.extract_model(gate_in, [fused, "fw_gate", "bw_gate"])
    graphs["s2t"] = ex.extract_model(["ids", fused], ["probs", "s2t"])
    graphs["front_fw"] = ex.extract_model(["ids"], [names["fw"][k] for k in ("key_part", "query_part", "values", "allowed")])
    graphs["front_t2t_fw"] = ex.extract_model(["ids"], [names["fw"]["s"], names["fw"]["mean"]])
    for d in ("fw", "bw"):
        n = names[d]
        graphs[f"t2t_{d}"] = ex.extract_model([n["key_part"], n["query_part"], n["values"], n["allowed"]], [n["s"], n["mean"]])
    graphs["part_fw"] = parts(model)["graphs"]["fw"]
    for name, g in graphs.items():
        extra = [i.name for i in g.graph.input if i.name not in {x.name for x in g.graph.initializer}]
        onnx.save(g, out / f"{name}.onnx")
        print(f"{name}.onnx: inputs {extra}, outputs {[o.name for o in g.graph.output]}")
    # Shen's c is in the export's metadata (the page reads it there too); D from the key part's declared shape
    meta = json.loads(onnx_path.with_name(onnx_path.name.removesuffix(".onnx") + ".vocab.json").read_text("utf-8"))
    key = next(v for v in model.graph.value_info if v.name == names["fw"]["key_part"])
    spec = {"c": float(meta["c"]), "D": key.type.tensor_type.shape.dim[-1].dim_value, "blocks": names,
            "source": str(onnx_path)}
    (out / "graphs.json").write_text(json.dumps(spec, indent=1))
    return spec


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("out", type=Path)
    ap.add_argument("--onnx", type=Path, help="an existing export_site_model NAME.onnx (default: export --model now)")
    ap.add_argument("--model", default="disan-sst5")
    a = ap.parse_args()
    a.out.mkdir(parents=True, exist_ok=True)
    if a.onnx is None:
        import disan
        from disan.onnx_export import export_site_model

        a.onnx = export_site_model(disan.load(a.model, "cpu"), a.out / "export").onnx_path
    elif not a.onnx.is_file() or not a.onnx.with_name(a.onnx.name.removesuffix(".onnx") + ".vocab.json").is_file():
        raise SystemExit(f"--onnx {a.onnx}: no such export (NAME.onnx and NAME.vocab.json); run without --onnx to "
                         f"export {a.model} first")
    print(json.dumps(cut_graphs(a.onnx, a.out)["c"]))


if __name__ == "__main__":
    main()
