"""Where NAOPC's time goes (issue 57 item 2): forward rows and seconds per example of ``naopc.naopc_batch`` on a
seeded sample of SST-5 test sentences, with nine random rankings (as many as a faithfulness run has).

Usage: python scripts/naopc_cost.py [MODEL] [N]   (default disan-sst5, 6); prints one JSON line with the load average.
Exact bounds cost 2^n forward rows (n ≤ naopc.EXACT_MAX tokens), the beam search about BEAM·n² per bound searched.
"""

import json
import os
import sys
import time
from pathlib import Path

import numpy as np
import torch

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # run as a plain script from a checkout

from disan.api import load  # noqa: E402
from disan.attribution import naopc as N  # noqa: E402
from disan.attribution.corpus import example_sides, sample  # noqa: E402
from disan.attribution.forward import ClassProbability  # noqa: E402
from disan.data import load_task  # noqa: E402


def main(name: str = "disan-sst5", k: int = 6) -> dict:
    torch.set_num_threads(1)
    model = load(name, device="cpu").eval()
    examples = load_task("sst5", "test")
    alpha = None if model.cfg.arch == "disan" else float(model.encoder.alpha)
    fn = ClassProbability(model, tuple(model.cfg.masks), alpha)
    rows, real = [0], fn.outputs

    def counted(xs, valids):
        rows[0] += xs[0].shape[0]
        return real(xs, valids)

    object.__setattr__(fn, "outputs", counted)  # a frozen dataclass: count every forward row
    load_start, per = os.getloadavg()[0], []
    for i in sample(len(examples), k):
        side = example_sides(examples[i], model.cfg.max_tokens)
        emb = fn.embed([[list(side[0])]])
        with torch.no_grad():
            target = real(emb.xs, emb.valids).argmax(-1)
        rng = np.random.default_rng(0)
        rankings = {f"r{j}": [[rng.random(len(side[0]))]] for j in range(9)}
        rows[0] = 0
        start = time.perf_counter()
        N.naopc_batch(fn, emb, rankings, target)
        per.append({"tokens": len(side[0]), "forward_rows": rows[0], "seconds": round(time.perf_counter() - start, 2)})
    return {"model": name, "examples": k, "per_example": per,
            "mean_forward_rows": float(np.mean([p["forward_rows"] for p in per])),
            "mean_seconds": round(float(np.mean([p["seconds"] for p in per])), 2),
            "load_average": [round(load_start, 1), round(os.getloadavg()[0], 1)]}


if __name__ == "__main__":
    print(json.dumps(main(*(sys.argv[1:2] or ["disan-sst5"]), *(int(a) for a in sys.argv[2:3]))))
