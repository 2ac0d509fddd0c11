"""Latency and peak memory of ``model.trace`` and ``model.predict`` for one sentence of T tokens.

Every (model, T, mode) cell runs in a fresh Python process by default, so
that the process's peak resident set (``ru_maxrss``) belongs to that cell
alone; the memory column is that peak minus the resident set right after the
model was loaded (CUDA: ``torch.cuda.max_memory_allocated`` after the load).
``tracemalloc`` is not used: it does not see torch's allocations.

Worker: ``python -m benchmarks.trace '<json spec>'`` prints one JSON line.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from dataclasses import asdict, dataclass

from .common import REPO_ROOT, Stats, Table, fmt_mib, fmt_ms, peak_rss_mib, repeat, sentence

MODES = ("trace", "predict")


@dataclass(frozen=True)
class LatencySpec:
    arch: str
    tokens: int
    mode: str
    warmup: int = 2
    repeats: int = 20
    max_seconds: float = 20.0
    threads: int | None = None
    device: str = "cpu"


def load_model(arch: str, device: str):
    from disan.api import random_model

    return random_model(arch, device)


def measure(spec: LatencySpec, model=None) -> dict:
    """Time ``spec.mode`` on a sentence of ``spec.tokens`` tokens; memory as described in the module doc."""
    import torch

    from disan.vocab import tokenize

    if spec.threads:
        torch.set_num_threads(spec.threads)
    cuda = spec.device.startswith("cuda")
    fresh = model is None
    model = model if model is not None else load_model(spec.arch, spec.device)
    text = sentence(spec.tokens)
    if len(tokenize(text)) != spec.tokens:
        raise RuntimeError(f"the benchmark sentence has {len(tokenize(text))} tokens, not {spec.tokens}")
    fn = (lambda: model.trace(text)) if spec.mode == "trace" else (lambda: model.predict([text]))
    sync = torch.cuda.synchronize if cuda else None
    base_rss = peak_rss_mib()
    if cuda:
        torch.cuda.synchronize()
        torch.cuda.reset_peak_memory_stats()
        base_cuda = torch.cuda.memory_allocated() / 2**20
    # Warm-up: at least one run, then more while they stay cheap.
    start = time.perf_counter()
    fn()
    warm = 1
    while warm < spec.warmup and time.perf_counter() - start < spec.max_seconds / 4:
        fn()
        warm += 1
    times = repeat(fn, 0, spec.repeats, spec.max_seconds, sync=sync)
    out = {
        **asdict(spec),
        "warmup_runs": warm,
        "times": times,
        "rss_baseline_mib": base_rss,
        "rss_peak_mib": peak_rss_mib(),
        "peak_delta_mib": peak_rss_mib() - base_rss if fresh else None,
        "threads_used": torch.get_num_threads(),
    }
    if cuda:
        out["peak_delta_mib"] = torch.cuda.max_memory_allocated() / 2**20 - base_cuda
    return out


def run_isolated(spec: LatencySpec, timeout: float = 3600) -> dict:
    """``measure(spec)`` in a fresh interpreter; a failure becomes ``{"error": ...}``."""
    env = {**os.environ, "PYTHONPATH": str(REPO_ROOT) + os.pathsep + os.environ.get("PYTHONPATH", "")}
    cmd = [sys.executable, "-m", "benchmarks.trace", json.dumps(asdict(spec))]
    try:
        proc = subprocess.run(cmd, cwd=REPO_ROOT, env=env, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return {**asdict(spec), "error": f"timed out after {timeout:.0f} s"}
    lines = [ln for ln in proc.stdout.splitlines() if ln.startswith("{")]
    if proc.returncode != 0 or not lines:
        tail = (proc.stderr or proc.stdout).strip().splitlines()[-1:] or [f"exit status {proc.returncode}"]
        why = "killed (out of memory?)" if proc.returncode in (-9, 137) else tail[0][:120]
        return {**asdict(spec), "error": why}
    return json.loads(lines[-1])


def run(
    archs, sizes, warmup: int, repeats: int, max_seconds: float, threads: int | None, device: str,
    isolated: bool = True, log=print,
) -> list[dict]:
    """Every (arch, T, mode) cell; in fresh processes unless ``isolated`` is False."""
    results = []
    models: dict[str, object] = {}
    for arch in archs:
        for T in sizes:
            for mode in MODES:
                spec = LatencySpec(arch, T, mode, warmup, repeats, max_seconds, threads, device)
                if isolated:
                    res = run_isolated(spec)
                else:
                    if arch not in models:
                        models[arch] = load_model(arch, device)
                    res = measure(spec, models[arch])
                results.append(res)
                if "error" in res:
                    log(f"  {arch} T={T} {mode}: FAILED ({res['error']})")
                else:
                    st = Stats.of(res["times"])
                    log(f"  {arch} T={T} {mode}: median {fmt_ms(st.median)} ms, p95 {fmt_ms(st.p95)} ms, "
                        f"peak +{fmt_mib(res['peak_delta_mib'])} MiB ({st.n} runs)")
    return results


def table(results: list[dict], device: str, isolated: bool) -> Table:
    mem = "GPU peak MiB" if device.startswith("cuda") else "peak RSS MiB"
    t = Table(
        f"Trace and prediction latency, one sentence, {device}",
        ["model", "T", "trace median ms", "trace p95 ms", f"trace {mem}", "predict median ms", "predict p95 ms",
         f"predict {mem}", "runs (trace/predict)"],
    )
    cells = {(r["arch"], r["tokens"], r["mode"]): r for r in results}
    for arch, T in dict.fromkeys((r["arch"], r["tokens"]) for r in results):
        row = [arch, str(T)]
        runs = []
        for mode in MODES:
            r = cells.get((arch, T, mode))
            if r is None or "error" in r:
                row += ["failed: " + (r or {}).get("error", "not run"), "–", "–"]
                runs.append("0")
                continue
            st = Stats.of(r["times"])
            row += [fmt_ms(st.median), fmt_ms(st.p95), fmt_mib(r["peak_delta_mib"])]
            runs.append(str(st.n))
        t.add(*row, "/".join(runs))
    t.notes.append(
        "Random-weight models (`disan`, `dsa`: d_in 50, d_h 300, 5 classes) — speed does not depend on the weights. "
        "`trace` records every intermediate on the reference path; `predict` returns only the label probabilities "
        "(DiSAN: fused token2token, see `disan/fused_attention.py`). DiSAN traces keep the full (T, T, D) "
        "probabilities up to T = 256 and only their mean/max over features above (`FULL_PROBS_MAX_TOKENS`), "
        "hence less memory at T = 512 than at T = 256."
    )
    if isolated:
        t.notes.append(
            "Peak memory = peak resident set of a fresh process per cell minus its resident set after the model load "
            "(GPU: `torch.cuda.max_memory_allocated` minus the allocation after the load)."
        )
    elif device.startswith("cuda"):
        t.notes.append("Measured in one process (`--in-process`): GPU peak = `torch.cuda.max_memory_allocated`, reset "
                       "before each cell, minus the allocation at its start.")
    else:
        t.notes.append("Measured in one process (`--in-process`/`--quick`): no per-cell peak memory.")
    return t


if __name__ == "__main__":
    spec = LatencySpec(**json.loads(sys.argv[1]))
    print(json.dumps(measure(spec)))
