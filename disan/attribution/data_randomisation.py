"""Data randomisation test (Adebayo et al. 2018, Sec. 3.2): ``python -m disan sanity --model NAME --shuffled PATH``.

A model trained on the same sentences with their labels permuted (``disan train --shuffle-labels SEED``, recipe
otherwise the same) has learnt no link between words and classes; an explanation that looks the same on it as on
the trained model cannot be explaining what the trained model learnt. Per example, each method's explanation of the
class the *trained* model predicts (as in the cascading test, ``randomisation``) is computed on both models, each
embedding the tokens with its own table, and compared with the cascading test's measures: Spearman's ρ, the top-k
overlap beside its chance level, means with 95% bootstrap intervals, and the same verdict rule (``RHO_PASS``).
The result has the cascading test's layout with one step, ``STEP``, so ``randomisation.table`` prints it.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import torch
from tqdm import tqdm

from ..errors import InputError
from ..model import SentenceModel
from .corpus import SEED, batches, example_sides, sample
from .forward import ClassProbability
from .gradient import IG_STEPS
from .randomisation import RHO_PASS, TOP_FRACTION, _chance, _per_example, explain, spearman, summarize, top_overlap

#: The one "step" of this test: the trained weights against the shuffled-label model's.
STEP = "shuffled labels"


def _fn(model: SentenceModel) -> ClassProbability:
    alpha = None if model.cfg.arch == "disan" else float(model.encoder.alpha)
    return ClassProbability(model, tuple(model.cfg.masks), alpha)


def check_pair(model: SentenceModel, shuffled: SentenceModel) -> None:
    """The two models must explain the same thing: one architecture, one label set, one input kind."""
    for what in ("arch", "labels", "pair", "relatedness"):
        a, b = getattr(model.cfg, what), getattr(shuffled.cfg, what)
        if a != b:
            raise InputError(f"--shuffled model {shuffled.name!r} has {what} {b!r} but {model.name!r} has {a!r}; "
                             "give the shuffled-label run of the same recipe (disan train --shuffle-labels).")


def measure_pair(model: SentenceModel, shuffled: SentenceModel, sides: Sequence[tuple[tuple[str, ...], ...]],
                 progress: bool = False, steps: int | None = None) -> tuple[dict[str, dict[str, np.ndarray]], dict]:
    """Per example ``{STEP: {"rho:M" | "top:M" | "chance:M": (n,)}}``, and each model's predictions (n,)."""
    check_pair(model, shuffled)
    model.eval()
    shuffled.eval()
    fn, sfn = _fn(model), _fn(shuffled)
    steps = steps or IG_STEPS[model.cfg.arch]
    n = len(sides)
    out: dict[str, np.ndarray] = {}
    preds = {"trained": np.full(n, -1), "shuffled": np.full(n, -1)}
    bar = tqdm(total=2 * n, desc=f"{model.name} vs {shuffled.name}", unit="explanation", disable=not progress)
    for batch in batches(sides, model.cfg, steps):
        tokens = [[list(sides[i][k]) for i in batch] for k in range(len(sides[batch[0]]))]
        emb, semb = fn.embed(tokens), sfn.embed(tokens)
        with torch.no_grad():
            outputs = fn.outputs(emb.xs, emb.valids)
            preds["trained"][batch] = outputs.argmax(-1).numpy()
            preds["shuffled"][batch] = sfn.outputs(semb.xs, semb.valids).argmax(-1).numpy()
        target = (torch.full((emb.batch,), outputs.shape[-1] - 1) if model.cfg.relatedness
                  else outputs.argmax(-1))  # (B,) what the trained model predicts, explained on both models
        trained = explain(model, fn, emb, target, steps)
        bar.update(len(batch))
        other = explain(shuffled, sfn, semb, target, steps)
        bar.update(len(batch))
        for m in trained:
            for key, measure_ in (("rho", spearman), ("top", top_overlap)):
                out.setdefault(f"{key}:{m}", np.full(n, np.nan))[batch] = _per_example(trained[m], other[m], measure_)
            out.setdefault(f"chance:{m}", np.full(n, np.nan))[batch] = _chance(trained[m])
    bar.close()
    return {STEP: out}, preds


def training_record(path: Path) -> dict:
    """What the shuffled-label run's summary (``<run>.train.json`` beside its checkpoint) says about it."""
    summary = Path(path).with_suffix(".train.json")
    if not summary.is_file():
        return {}
    record = json.loads(summary.read_text())
    keep = ("checkpoint_step", "total_steps", "best_dev_acc", "shuffled_train_acc", "wall_time_s", "command")
    return {"shuffle_labels": record["train_config"].get("shuffle_labels"),
            **{k: record[k] for k in keep if k in record}}


def run(model: SentenceModel, shuffled: SentenceModel, shuffled_path: Path, examples: Sequence, task: str,
        split: str, limit: int | None, progress: bool = False) -> dict:
    """The data randomisation test on a seeded sample (``corpus.sample``) of ``examples``."""
    ids = sample(len(examples), limit)
    sides = [example_sides(examples[i], model.cfg.max_tokens) for i in ids]
    per, preds = measure_pair(model, shuffled, sides, progress)
    gold = np.array([examples[i].label for i in ids])
    accuracy = {k: float((v == gold).mean()) for k, v in preds.items()} if not model.cfg.relatedness else {}
    return {"model": model.name, "shuffled_model": str(shuffled_path), "task": task, "split": split,
            "n_examples": len(examples), "n": len(ids), "sample_seed": SEED, "top_fraction": TOP_FRACTION,
            "rho_pass": RHO_PASS, "test": "data randomisation",
            "reference": "Adebayo et al. 2018, Sanity Checks for Saliency Maps, Sec. 3.2 (data randomisation)",
            "sample_accuracy": accuracy,
            "prediction_agreement": float((preds["trained"] == preds["shuffled"]).mean()),
            "shuffled_training": training_record(shuffled_path), **summarize(per, model.cfg.arch)}
