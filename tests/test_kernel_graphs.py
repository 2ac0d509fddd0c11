"""scripts/kernel_graphs.py cuts a DiSAN site export where the fused token2token kernel (viz_app/kernels/) would take
over: fed what ``front`` computes from ids, the cut block gives the whole graph's forward and backward mean maps,
and ``after`` fed the block's s gives the whole graph's class probabilities and source2token map, so the block is
exactly the export's work; the kernel fed the same inputs gives the block's s and mean map within 1e-5
(scripts/probe_kernel.mjs times the two on disan-sst5)."""

from __future__ import annotations

import importlib.util
import json
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest

onnx = pytest.importorskip("onnx", reason="onnx is not installed (requirements.txt)")
ort = pytest.importorskip("onnxruntime", reason="onnxruntime is not installed (requirements.txt)")

ROOT = Path(__file__).resolve().parents[1]
_spec = importlib.util.spec_from_file_location("kernel_graphs", ROOT / "scripts" / "kernel_graphs.py")
kernel_graphs = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(kernel_graphs)

KERNEL_RUN = """
import fs from "node:fs";
import { build, DIST } from "./scripts/build_kernels.mjs";
import { loadKernel } from "./viz_app/kernels/token2token.mjs";
const wasm = DIST + "/token2token.wasm";
if (!fs.existsSync(wasm)) await build();
const k = await loadKernel(fs.readFileSync(wasm)), a = JSON.parse(fs.readFileSync(0, "utf8"));
const out = k(...["kp", "qp", "v"].map((n) => Float32Array.from(a[n])), Uint8Array.from(a.mask), a.T, a.D, a.c);
console.log(JSON.stringify({ s: Array.from(out.s), mean: Array.from(out.mean) }));
"""


def _run(path: Path, feeds: dict) -> dict:
    s = ort.InferenceSession(str(path), providers=["CPUExecutionProvider"])
    return dict(zip([o.name for o in s.get_outputs()], s.run(None, feeds)))


def test_the_cut_block_is_the_exports_work_and_the_kernel_equals_it(tmp_path, tiny_glove):
    from disan.onnx_export import export_site_model
    from tests.conftest import make_tiny

    export = export_site_model(make_tiny("disan", tiny_glove, unk_zero=True), tmp_path / "export", extra_words=5)
    spec = kernel_graphs.cut_graphs(export.onnx_path, tmp_path)
    assert spec["c"] == 5.0 and spec["D"] == 10
    T = 9
    ids = {"ids": np.random.default_rng(3).integers(2, export.own_words, (1, T)).astype(np.int64)}
    whole, front = _run(export.onnx_path, ids), _run(tmp_path / "front.onnx", ids)
    after = dict(ids)
    node = shutil.which("node")
    for d in ("fw", "bw"):
        b = spec["blocks"][d]
        block = _run(tmp_path / f"t2t_{d}.onnx", {b[k]: front[b[k]] for k in ("key_part", "query_part", "values", "allowed")})
        np.testing.assert_allclose(block[b["mean"]], whole[f"{d}_mean"], rtol=0, atol=1e-6)
        after |= {b["s"]: block[b["s"]], b["values"]: front[b["values"]]}
        if node is None or not (ROOT / "node_modules" / "assemblyscript").is_dir():
            continue
        args = {"kp": front[b["key_part"]].ravel().tolist(), "qp": front[b["query_part"]].ravel().tolist(),
                "v": front[b["values"]].ravel().tolist(), "mask": front[b["allowed"]].ravel().astype(int).tolist(),
                "T": T, "D": spec["D"], "c": spec["c"]}
        proc = subprocess.run([node, "--input-type=module", "-e", KERNEL_RUN], input=json.dumps(args), cwd=ROOT,
                              capture_output=True, text=True, timeout=120)
        assert proc.returncode == 0, proc.stderr
        got = json.loads(proc.stdout)
        np.testing.assert_allclose(np.reshape(got["s"], (T, -1)), block[b["s"]][0], rtol=0, atol=1e-5)
        np.testing.assert_allclose(np.reshape(got["mean"], (T, T)), block[b["mean"]], rtol=0, atol=1e-5)
    tail = _run(tmp_path / "after.onnx", after)
    for name in ("probs", "s2t", "fw_gate", "bw_gate"):
        np.testing.assert_allclose(tail[name], whole[name], rtol=0, atol=1e-6, err_msg=name)
    if node is None:
        pytest.skip("node is not installed: the kernel was not compared (the cut graphs were)")
