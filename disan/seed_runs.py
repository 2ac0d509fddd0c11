"""Several runs of one model (seeds, or cross-validation folds): which run ships, picked on dev, and every run's
test scores in the card.

A multi-run card stores ``test_runs`` (``disan tables`` reads its ``unit`` and its one list per measure)::

    {"unit": "seed" | "fold", "measures": ["accuracy"] | ["pearson_r", "spearman_rho", "mse"],
     "<measure>": [test value of each run, in run order], ...,
     "stats": {"<measure>": {"mean", "sd", "ci95"}, ...},
     "mean": …, "sd": …,   (of the first measure: the one the floor and the model pickers read)
     "runs": [{"seed", "fold", "run", "<dev field>", "best_step", "total_steps", "stopped_by",
               "test_<measure>", ..., "wall_time_s", "hardware"}, …],
     "shipped": {"seed", "fold", "run", "why"}}

The run that ships is the one with the best dev value (ties: the lowest seed, or fold): dev accuracy, or dev
Pearson's r for a relatedness run (Shen Table 4's first measure). Test scores are recorded for every run, but
never looked at to choose (Shen et al. report a mean over five runs, or over ten folds).
"""

from __future__ import annotations

import statistics
from collections.abc import Sequence
from dataclasses import dataclass

from .data.labels import RELATEDNESS_TASKS
from .errors import DisanError

CLASSIFICATION = ("accuracy",)
#: Shen Table 4's measures, in its column order.
RELATEDNESS = ("pearson_r", "spearman_rho", "mse")


class RunError(DisanError, ValueError):
    """A run's files lack a field that publishing needs, or several runs do not belong together."""


@dataclass(frozen=True)
class Run:
    """One finished run: its name (the run prefix under the runs folder), its train summary, its test report."""

    run: str
    summary: dict
    test: dict

    def _config(self, key: str):
        config = self.summary.get("train_config")
        if not isinstance(config, dict) or key not in config:
            raise RunError(f"run {self.run}: its train summary (.train.json) has no train_config.{key}; "
                           "it was not written by `python -m disan train`, or is damaged: retrain or resume it.")
        return config[key]

    @property
    def task(self) -> str:
        return self._config("task")

    @property
    def seed(self) -> int:
        return int(self._config("seed"))

    @property
    def fold(self) -> int | None:
        fold = self.summary.get("train_config", {}).get("fold")
        return None if fold is None else int(fold)

    @property
    def unit(self) -> str:
        return "seed" if self.fold is None else "fold"

    @property
    def number(self) -> int:
        """The run's seed, or its fold for a cross-validation run (the folds share one seed)."""
        return self.seed if self.fold is None else self.fold

    @property
    def measures(self) -> tuple[str, ...]:
        return RELATEDNESS if self.task in RELATEDNESS_TASKS else CLASSIFICATION

    @property
    def dev_field(self) -> str:
        return "best_dev_pearson" if self.task in RELATEDNESS_TASKS else "best_dev_acc"

    @property
    def dev(self) -> float:
        if self.dev_field not in self.summary:
            raise RunError(f"run {self.run}: its train summary (.train.json) has no {self.dev_field!r}, the dev value "
                           "a run is picked by; retrain or resume it with this version of `python -m disan train`.")
        return float(self.summary[self.dev_field])

    def score(self, measure: str) -> float:
        if measure not in self.test:
            has = ", ".join(sorted(self.test))
            raise RunError(f"run {self.run}: its test report has no {measure!r} (it has {has}); "
                           f"score it with `python -m disan evaluate --task {self.task}`.")
        return float(self.test[measure])


def pick_on_dev(runs: Sequence[Run]) -> int:
    """Index of the run with the highest dev value; among equal ones, the lowest seed (or fold)."""
    if not runs:
        raise ValueError("pick_on_dev needs at least one run.")
    return min(range(len(runs)), key=lambda i: (-runs[i].dev, runs[i].number))


def dev_text(run: Run, value: float) -> str:
    return f"{value:.4f}" if run.task in RELATEDNESS_TASKS else f"{100 * value:.2f}%"


def pick_reason(runs: Sequence[Run], picked: int) -> str:
    best = runs[picked]
    what = "dev Pearson's r" if best.task in RELATEDNESS_TASKS else "dev accuracy"
    tied = [r.number for r in runs if r.dev == best.dev]
    tie = (f"; {best.unit}s {', '.join(map(str, tied))} tie on dev, the lowest {best.unit} is taken"
           if len(tied) > 1 else "")
    return (f"{best.unit} {best.number} has the highest {what} of the {len(runs)} runs "
            f"({dev_text(best, best.dev)}){tie}; picked on dev only, test scores were never compared to choose")


def measure_stats(values: Sequence[float]) -> dict:
    """Mean, sample sd and the 95% percentile-bootstrap interval of the mean over runs (as ``disan tables``)."""
    if len(values) < 2:
        return {"mean": statistics.fmean(values), "sd": None, "ci95": None}
    from .stats import bootstrap_ci  # imports torch: only when publishing several runs

    return {"mean": statistics.fmean(values), "sd": statistics.stdev(values), "ci95": list(bootstrap_ci(values))}


def check_together(runs: Sequence[Run]) -> None:
    """One task, one kind of run, and no seed (or fold) twice; the folds of a cross-validation share one seed."""
    if not runs:
        raise RunError("no runs given; name at least one, NAME=RUN[,RUN ...].")
    names = ", ".join(r.run for r in runs)
    if len({r.task for r in runs}) != 1 or len({r.unit for r in runs}) != 1:
        raise RunError(f"runs {names} mix tasks or mix seed runs with fold runs; publish each model's runs together.")
    if len({r.number for r in runs}) != len(runs):
        raise RunError(f"runs {names} repeat a {runs[0].unit}; each {runs[0].unit} must appear once.")
    if runs[0].unit == "fold" and len({r.seed for r in runs}) != 1:
        raise RunError(f"fold runs {names} were trained with different seeds; the folds of one model share one seed.")


def runs_block(runs: Sequence[Run]) -> dict:
    """The card's ``test_runs`` block: every run's test scores, their mean, sd and interval, and the run that ships."""
    check_together(runs)
    measures = runs[0].measures
    values = {m: [r.score(m) for r in runs] for m in measures}
    stats = {m: measure_stats(v) for m, v in values.items()}
    picked = runs[pick_on_dev(runs)]
    rows = [{"seed": r.seed, "fold": r.fold, "run": r.run, r.dev_field: r.dev, "best_step": r.summary.get("best_step"),
             "total_steps": r.summary.get("total_steps"), "stopped_by": r.summary.get("stopped_by"),
             **{f"test_{m}": values[m][i] for m in measures},
             "wall_time_s": r.summary.get("wall_time_s"), "hardware": r.summary.get("hardware")}
            for i, r in enumerate(runs)]
    first = stats[measures[0]]
    return {
        "unit": runs[0].unit,
        "measures": list(measures),
        **values,
        "stats": stats,
        "mean": first["mean"],
        "sd": first["sd"],
        "runs": rows,
        "shipped": {"seed": picked.seed, "fold": picked.fold, "run": picked.run,
                    "why": pick_reason(runs, pick_on_dev(runs))},
    }
