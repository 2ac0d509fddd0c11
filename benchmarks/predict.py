"""Batch prediction throughput: ``model.predict`` on 10,000 short sentences (issue: "seconds, not minutes").

The sentences are the first premises and hypotheses of SNLI dev + test
(real, short: 11.7 tokens on average), or, without the SNLI files, filler
sentences with the fallback lengths of ``bench_train``. ``predict`` sorts by
length and runs batches of 128 under ``torch.inference_mode``; DiSAN is timed
with the fused token2token (the default) and with the naive reference.
"""

from __future__ import annotations

import time

import numpy as np

from .common import Table
from .train import PairPool


def texts_from(pool: PairPool, n: int) -> list[str]:
    """``n`` sentences, premises and hypotheses interleaved (repeating the pool if it is smaller)."""
    out: list[str] = []
    k = 0
    while len(out) < n:
        i = k % len(pool.premises)
        out.append(" ".join(pool.premises[i]))
        if len(out) < n:
            out.append(" ".join(pool.hypotheses[i]))
        k += 1
    return out


def run(archs, texts: list[str], repeats: int = 1, device: str = "cpu", threads: int | None = None, log=print) -> list[dict]:
    import torch

    from disan.api import random_model
    from disan.fused_attention import set_impl

    if threads:
        torch.set_num_threads(threads)
    rows = []
    for arch in archs:
        model = random_model(arch, device)
        model.predict(texts[:256])  # warm-up
        for impl in ("auto", "naive") if arch == "disan" else ("auto",):
            set_impl(model, impl)
            times = []
            for _ in range(repeats):
                start = time.perf_counter()
                model.predict(texts)
                if device.startswith("cuda"):
                    torch.cuda.synchronize()
                times.append(time.perf_counter() - start)
            rows.append({"arch": arch, "impl": impl, "n": len(texts), "times": times, "device": device})
            log(f"  {arch} {impl}: {min(times):.2f} s for {len(texts):,} inputs")
        set_impl(model, "auto")
    return rows


def table(rows: list[dict], source: str, mean_tokens: float, hardware: str) -> Table:
    t = Table(
        f"Batch prediction: model.predict on {rows[0]['n']:,} sentences" if rows else "Batch prediction",
        ["model", "token2token", "hardware", "inputs", "seconds (best)", "inputs / s", "speed-up vs naive"],
    )
    best = {(r["arch"], r["impl"]): min(r["times"]) for r in rows}
    for r in rows:
        s = best[(r["arch"], r["impl"])]
        naive = best.get((r["arch"], "naive"))
        impl = {"auto": "fused (default)", "naive": "naive reference"}[r["impl"]] if r["arch"] == "disan" else "–"
        t.add(r["arch"], impl, hardware, f"{r['n']:,}", f"{s:.2f}", f"{r['n'] / s:,.0f}",
              f"{naive / s:.2f}×" if naive is not None else "–")
    t.notes.append(f"Inputs: {source}; {mean_tokens:.1f} tokens on average; random-weight single-sentence models; "
                   f"best of {len(rows[0]['times']) if rows else 0} run(s) after a warm-up; batches of 128 sorted by length.")
    return t


def mean_tokens(texts: list[str]) -> float:
    return float(np.mean([len(t.split()) for t in texts])) if texts else 0.0
