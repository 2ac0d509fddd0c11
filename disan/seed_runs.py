"""Several runs of one model (seeds): which run ships, picked on dev, and every run's test score in the card.

A multi-run card stores ``test_runs`` (``disan tables`` reads its ``unit`` and its one list per measure)::

    {"unit": "seed", "accuracy": [test accuracy of each run, in run order], "mean": …, "sd": …,
     "runs": [{"seed", "run", "best_dev_acc", "best_step", "total_steps", "stopped_by", "test_accuracy",
               "wall_time_s", "hardware"}, …],
     "shipped": {"seed", "run", "why"}}

The run that ships is the one with the best dev accuracy (ties: the lowest seed). Test accuracies are
recorded for every run, but never looked at to choose (Shen et al. report a mean over five runs).
"""

from __future__ import annotations

import statistics
from collections.abc import Sequence
from dataclasses import dataclass


@dataclass(frozen=True)
class Run:
    """One finished run: its name (the run prefix under the runs folder), its train summary, its test report."""

    run: str
    summary: dict
    test: dict

    @property
    def seed(self) -> int:
        return int(self.summary["train_config"]["seed"])

    @property
    def dev(self) -> float:
        return float(self.summary["best_dev_acc"])


def pick_on_dev(runs: Sequence[Run]) -> int:
    """Index of the run with the highest dev accuracy; among equal ones, the lowest seed."""
    if not runs:
        raise ValueError("pick_on_dev needs at least one run.")
    return min(range(len(runs)), key=lambda i: (-runs[i].dev, runs[i].seed))


def pick_reason(runs: Sequence[Run], picked: int) -> str:
    best = runs[picked]
    tied = [r.seed for r in runs if r.dev == best.dev]
    tie = f"; seeds {', '.join(map(str, tied))} tie on dev, the lowest seed is taken" if len(tied) > 1 else ""
    return (f"seed {best.seed} has the highest dev accuracy of the {len(runs)} runs "
            f"({100 * best.dev:.2f}%){tie}; picked on dev only, test accuracies were never compared to choose")


def runs_block(runs: Sequence[Run]) -> dict:
    """The card's ``test_runs`` block: every run's test accuracy, mean and sample sd, and the run that ships."""
    accs = [float(r.test["accuracy"]) for r in runs]
    picked = pick_on_dev(runs)
    rows = [{"seed": r.seed, "run": r.run, "best_dev_acc": r.dev, "best_step": r.summary.get("best_step"),
             "total_steps": r.summary.get("total_steps"), "stopped_by": r.summary.get("stopped_by"),
             "test_accuracy": acc, "wall_time_s": r.summary.get("wall_time_s"), "hardware": r.summary.get("hardware")}
            for r, acc in zip(runs, accs)]
    return {
        "unit": "seed",
        "accuracy": accs,
        "mean": statistics.fmean(accs),
        "sd": statistics.stdev(accs) if len(accs) > 1 else None,
        "runs": rows,
        "shipped": {"seed": runs[picked].seed, "run": runs[picked].run, "why": pick_reason(runs, picked)},
    }
