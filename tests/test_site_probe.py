"""viz_app/draw/site_probe.py: the probe the static explorer's worker runs before the model's session. It must
run (onnxruntime, and onnxruntime-web as the worker runs it: no inputs, optimisation disabled, so every node
runs) and call every kernel the exported models call, so that V8's first optimised code of onnxruntime's
dispatch has seen them all (the module's docstring says why)."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest

onnx = pytest.importorskip("onnx", reason="onnx is not installed (requirements.txt)")
ort = pytest.importorskip("onnxruntime", reason="onnxruntime is not installed (requirements.txt)")

from viz_app.draw.site_probe import probe_graph  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
SHAPES = {"out": [2, 3], "f32": [2, 1], "rows": [1, 2, 3], "steps": [2]}


def ops_of(model) -> set[tuple[str, str]]:
    return {(n.domain if n.domain != "ai.onnx" else "", n.op_type) for n in model.graph.node}


def test_the_probe_is_a_valid_graph_that_runs_with_no_feeds():
    model = onnx.load_from_string(probe_graph())
    onnx.checker.check_model(model)
    assert not model.graph.input, "the worker runs the probe with no feeds"
    options = ort.SessionOptions()
    options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_DISABLE_ALL
    session = ort.InferenceSession(probe_graph(), options, providers=["CPUExecutionProvider"])
    out = dict(zip([o.name for o in session.get_outputs()], session.run(None, {})))
    assert {k: list(v.shape) for k, v in out.items()} == SHAPES
    assert all(np.isfinite(v).all() for v in out.values())


@pytest.mark.skipif(shutil.which("node") is None or not (ROOT / "node_modules" / "onnxruntime-web").is_dir(),
                    reason="node or onnxruntime-web is missing (npm ci, scripts/setup.sh)")
def test_onnxruntime_web_runs_the_probe_as_the_worker_does(tmp_path):
    path = tmp_path / "probe.onnx"
    path.write_bytes(probe_graph())
    done = subprocess.run(["node", str(ROOT / "tests" / "js" / "ort_web_run.mjs"), str(path)], capture_output=True,
                          text=True, timeout=120, cwd=ROOT)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout.strip().splitlines()[-1]) == SHAPES


@pytest.mark.parametrize("arch,pair,int8", [("disan", False, False), ("disan", True, False), ("dsa", False, True),
                                            ("dsa", True, True)])
def test_the_probe_covers_every_op_of_the_exported_graphs(tmp_path, tiny_glove, arch, pair, int8):
    from disan.onnx_export import export_site_model
    from tests.conftest import make_tiny

    model = make_tiny(arch, tiny_glove, pair=pair, unk_zero=True)
    export = export_site_model(model, tmp_path / "full", extra_words=5)
    if int8:  # the bundled DSA models store int8 matrices (DequantizeLinear)
        export = export_site_model(model, tmp_path / "int8", extra_words=5, max_bytes=export.total_bytes - 1)
    probed = ops_of(onnx.load_from_string(probe_graph()))
    missing = ops_of(onnx.load(str(export.onnx_path), load_external_data=False)) - probed
    assert not missing, f"add a node of each of {sorted(missing)} to site_probe.probe_graph"
