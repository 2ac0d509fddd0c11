"""Where NAOPC's time goes (issue 57 item 2): encoder rows and seconds per example of ``naopc.naopc_batch`` on a
seeded sample of a model's test examples (an NLI pair jointly), with nine random rankings (as many as a faithfulness
run has).

Usage: python scripts/naopc_cost.py [MODEL] [N] [NAOPC_FILE]   (default disan-sst5, 6); one JSON line with the load
average. NAOPC_FILE times another version of the module, e.g. an earlier commit's:
git show a32aaa8:disan/attribution/naopc.py > /tmp/naopc_before.py; python scripts/naopc_cost.py disan-sst5 6 /tmp/naopc_before.py
Exact bounds cost 2^n forward rows (n ≤ naopc.EXACT_MAX tokens), the beam search about BEAM·n² per bound searched.
``encoder_rows`` counts sentences through the encoder (a pair's forward row is two), the cost that does not
depend on the machine's load.
"""

import json
import os
import sys
import time
from pathlib import Path

import numpy as np
import torch

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # run as a plain script from a checkout

from disan.api import PRETRAINED_DIR  # noqa: E402
from disan.attribution import naopc as N  # noqa: E402
from disan.attribution.corpus import example_sides, sample  # noqa: E402
from disan.attribution.forward import ClassProbability  # noqa: E402
from disan.claims_file import trained_model_and_examples  # noqa: E402


def module_from(path: str):
    """``disan.attribution.naopc`` as written in ``path`` (its relative imports resolve inside disan.attribution)."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("disan.attribution.naopc_timed", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def main(name: str = "disan-sst5", k: int = 6, naopc_file: str | None = None) -> dict:
    torch.set_num_threads(1)
    naopc = module_from(naopc_file) if naopc_file else N
    _, model, _, examples = trained_model_and_examples(name, "test", None, None, PRETRAINED_DIR, "attributions")
    model.eval()
    alpha = None if model.cfg.arch == "disan" else float(model.encoder.alpha)
    fn = ClassProbability(model, tuple(model.cfg.masks), alpha)
    rows, real = [0], fn.encode

    def counted(x, valid):
        rows[0] += x.shape[0]
        return real(x, valid)

    object.__setattr__(fn, "encode", counted)  # a frozen dataclass: count every sentence encoded
    load_start, per = os.getloadavg()[0], []
    for i in sample(len(examples), k):
        sides = example_sides(examples[i], model.cfg.max_tokens)
        emb = fn.embed([[list(side)] for side in sides])
        with torch.no_grad():
            target = fn.outputs(emb.xs, emb.valids).argmax(-1)
        rng = np.random.default_rng(0)
        rankings = {f"r{j}": [[rng.random(len(side))] for side in sides] for j in range(9)}
        rows[0] = 0
        start = time.perf_counter()
        naopc.naopc_batch(fn, emb, rankings, target)
        per.append({"tokens": [len(side) for side in sides], "encoder_rows": rows[0],
                    "seconds": round(time.perf_counter() - start, 2)})
    return {"model": name, "examples": k, "naopc": naopc_file or "disan/attribution/naopc.py", "per_example": per,
            "mean_encoder_rows": float(np.mean([p["encoder_rows"] for p in per])),
            "mean_seconds": round(float(np.mean([p["seconds"] for p in per])), 2),
            "load_average": [round(load_start, 1), round(os.getloadavg()[0], 1)]}


if __name__ == "__main__":
    args = sys.argv[1:]
    print(json.dumps(main(args[0] if args else "disan-sst5", int(args[1]) if len(args) > 1 else 6,
                          args[2] if len(args) > 2 else None)))
