"""How long onnxruntime runs an exported site model's graph at T tokens: several graphs' runs interleaved.

The page's worker runs the same graph with onnxruntime-web (wasm); this runs it with onnxruntime's CPU provider,
one thread, at the page's `basic` optimisation level, so graphs exported by two versions of
``disan/onnx_export.py`` can be compared side by side on a shared machine: each round runs every graph once, in
turn, so a change of load touches them alike. Usage:
``python scripts/probe_onnx_run.py --tokens 256 --runs 10 A.onnx B.onnx …`` (``export_site_model`` writes
``NAME.onnx``; prints min and median ms per graph and the load average before and after).
"""

from __future__ import annotations

import argparse
import os
import statistics
import time

import numpy as np
import onnxruntime as ort


def session(path: str, tokens: int) -> tuple[ort.InferenceSession, dict[str, np.ndarray]]:
    """A one-thread session of ``path`` and its feeds: ``tokens`` ids per sentence (each sentence's input), α = 1."""
    options = ort.SessionOptions()
    options.intra_op_num_threads = options.inter_op_num_threads = 1
    options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_BASIC  # as the page's worker asks
    s = ort.InferenceSession(path, options, providers=["CPUExecutionProvider"])
    ids = np.arange(5, 5 + tokens, dtype=np.int64)[None]  # (1, T)
    feeds = {i.name: ids for i in s.get_inputs() if i.name.endswith("ids")}
    if any(i.name == "alpha" for i in s.get_inputs()):
        feeds["alpha"] = np.array([1.0], np.float32)
    return s, feeds


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("graphs", nargs="+", help="exported NAME.onnx files")
    parser.add_argument("--tokens", type=int, default=256, help="tokens per sentence")
    parser.add_argument("--runs", type=int, default=10, help="timed runs per graph (after one untimed)")
    opts = parser.parse_args()
    print(f"load average {os.getloadavg()[0]:.1f} at start")
    runs = []
    for path in opts.graphs:
        s, feeds = session(path, opts.tokens)
        s.run(None, feeds)  # the first run allocates
        runs.append((path, s, feeds, []))
    for _ in range(opts.runs):
        for _path, s, feeds, times in runs:
            start = time.perf_counter()
            s.run(None, feeds)
            times.append((time.perf_counter() - start) * 1e3)
    for path, _s, _feeds, times in runs:
        print(f"{path}: min {min(times):.1f} ms, median {statistics.median(times):.1f} ms "
              f"(T = {opts.tokens}, {opts.runs} runs)")
    print(f"load average {os.getloadavg()[0]:.1f} at end")


if __name__ == "__main__":
    main()
