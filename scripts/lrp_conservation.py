"""LRP's conservation on real test sentences: how well the tokens' relevance plus the absorbed terms sum to the
explained logit, and how much each rule absorbs (docs/lrp.md, "Measured").

Usage:
    python scripts/lrp_conservation.py --limit 100 disan-sst5 dsa-sst5 ...

Per model: a seeded sample of its test split (``corpus.sample``, seed 0; ``--limit 0``: all of it), the predicted
class's logit (a SICK model: its score) explained; the largest and the median relative error |Σ tokens + Σ absorbed
− logit| / |logit|, and the mean share of each absorbed kind in |Σ tokens| + Σ |absorbed| per example.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))  # run as a plain script from a clean clone

import numpy as np  # noqa: E402
import torch  # noqa: E402

from disan.api import PRETRAINED_DIR  # noqa: E402
from disan.attribution.corpus import batches, example_sides, sample  # noqa: E402
from disan.attribution.forward import ClassProbability  # noqa: E402
from disan.attribution.lrp import ABSORBED, lrp  # noqa: E402
from disan.claims_file import trained_model_and_examples  # noqa: E402
from disan.errors import run_script  # noqa: E402


def measure(name: str, limit: int | None) -> str:
    _, model, task, examples = trained_model_and_examples(name, "test", None, None, PRETRAINED_DIR, "LRP checks")
    ids = sample(len(examples), limit)
    sides = [example_sides(examples[i], model.cfg.max_tokens) for i in ids]
    alpha = None if model.cfg.arch == "disan" else float(model.encoder.alpha)
    fn = ClassProbability(model, tuple(model.cfg.masks), alpha)
    errors, shares, start = [], {k: [] for k in ABSORBED}, time.perf_counter()
    for batch in batches(sides, model.cfg, 1):
        emb = fn.embed([[list(sides[i][k]) for i in batch] for k in range(len(sides[batch[0]]))])
        with torch.no_grad():
            outputs = fn.outputs(emb.xs, emb.valids)
        target = (torch.full((emb.batch,), outputs.shape[-1] - 1) if model.cfg.relatedness
                  else outputs.argmax(-1))  # (B,)
        result = lrp(fn, emb, target)
        errors += result.relative_error().tolist()
        scale = sum(s.sum(-1) for s in result.scores).abs() + sum(v.abs() for v in result.absorbed.values())  # (B,)
        for k in ABSORBED:
            shares[k] += (result.absorbed[k].abs() / scale).tolist()
    seconds = time.perf_counter() - start
    absorbed = ", ".join(f"{k} {np.mean(v):.2f}" for k, v in shares.items())
    return (f"{name} ({task} test, {len(ids):,} of {len(examples):,}): relative error max {max(errors):.1e}, median "
            f"{np.median(errors):.1e}; mean absorbed share: {absorbed}; {seconds:.1f} s")


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("models", nargs="+")
    p.add_argument("--limit", type=int, default=100, help="seeded sample size per model (0: the whole split)")
    args = p.parse_args(argv)
    for name in args.models:
        print(measure(name, args.limit or None), flush=True)
    return 0


if __name__ == "__main__":
    run_script(main)
