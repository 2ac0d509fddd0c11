"""``disan tables``: the papers' result tables with our number beside the paper's, cell by cell.

Paper numbers are copied as printed from the papers' text (``/work/shared/papers/``; each table cites
its number, and ``tests/test_paper_tables.py`` checks every value against that text where it exists).
Ours are read from the model cards in ``pretrained/``, never typed in:

- a single trained model: ``evaluation.test`` of ``<name>.json`` (accuracy), with the 95% bootstrap
  interval over test examples from ``<name>.claims.json`` when that file measured the same accuracy;
- several runs (seeds) or cross-validation folds: ``test_runs`` of the card, ``{"unit": "seed" | "fold",
  "<measure>": [one test value per run or fold], ...}`` with measures ``accuracy`` or ``pearson_r``,
  ``spearman_rho``, ``mse``; we show the mean, the standard deviation (as the papers do) and a 95%
  percentile-bootstrap interval of the mean over runs (``disan.stats.bootstrap_ci``).

Verdict per cell: ``matches`` when the paper's value lies inside our 95% interval, else how far our value
is below or above it (for MSE, lower is better). A cell whose checkpoint does not exist says so.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

import numpy as np

START, END = "<!-- paper-tables:start -->", "<!-- paper-tables:end -->"
SHEN, IM = "disan-shen-et-al-2018.md", "distance-san-im-cho-2017.md"
SNLI_NOTE = ("Our NLI models never saw the SNLI train set (549,367 pairs; not on this machine): they train on "
             "SNLI dev + SICK and are scored on the full SNLI test set, so these cells compare unlike training data.")


@dataclass(frozen=True)
class Cell:
    """One cell: the paper's row (its first column, verbatim) and measure, the value as printed, and the
    checkpoint that answers it; ``column`` names the dataset column of a table with several (Shen Table 5)."""

    row: str
    measure: str  # accuracy, pearson_r, spearman_rho or mse
    paper: str  # as printed in the paper, e.g. "85.62" or ".8695 (.0012)"
    model: str
    column: str = ""


@dataclass(frozen=True)
class PaperTable:
    paper: str  # file name under /work/shared/papers
    number: int
    title: str
    cells: tuple[Cell, ...]
    note: str = ""

    @property
    def heading(self) -> str:
        who = "Shen et al. 2018" if self.paper == SHEN else "Im & Cho 2017"
        return f"{who}, Table {self.number}: {self.title}"


TABLES = (
    PaperTable(SHEN, 1, "SNLI, test accuracy (%)", (
        Cell("Directional self-attention network (DiSAN)", "accuracy", "85.62", "disan-nli"),
        Cell("DiSAN without directions", "accuracy", "84.66", "disan-nli-nodir"),
    ), SNLI_NOTE),
    PaperTable(SHEN, 2, "SST-5, test accuracy (%)", (
        Cell("DiSAN", "accuracy", "51.72", "disan-sst5"),
        Cell("DiSAN without directions", "accuracy", "49.41", "disan-sst5-nodir"),
    )),
    PaperTable(SHEN, 4, "SICK relatedness, test, mean (sd) of five runs", (
        Cell("DiSAN", "pearson_r", ".8695 (.0012)", "disan-sick"),
        Cell("DiSAN", "spearman_rho", ".8139 (.0012)", "disan-sick"),
        Cell("DiSAN", "mse", ".2879 (.0036)", "disan-sick"),
    )),
    PaperTable(SHEN, 5, "sentence classification, accuracy (%), mean (sd)", (
        Cell("DiSAN", "accuracy", "84.8 (2.0)", "disan-cr", "CR"),
        Cell("DiSAN", "accuracy", "90.1 (0.4)", "disan-mpqa", "MPQA"),
        Cell("DiSAN", "accuracy", "94.2 (0.6)", "disan-subj", "SUBJ"),
        Cell("DiSAN", "accuracy", "94.2 (0.1)", "disan-trec", "TREC"),
    ), "CR, MPQA and SUBJ: mean of 10-fold cross-validation (ours: seeded, stratified folds, `disan.data.folds`). "
       "TREC: the paper's figure is a mean of dev accuracies of five runs; ours is the mean test accuracy of five "
       "seeds on the official 500-question test set (each run picked its checkpoint on a dev slice of the train "
       "set), with 50-d GloVe (the paper: 300-d)."),
    PaperTable(IM, 1, "SNLI, test accuracy (%)", (
        Cell("Our Distance-based Self-Attention Network", "accuracy", "86.3", "dsa-nli"),
        Cell("Our self-attention network (without distance mask)", "accuracy", "86.0", "dsa-nli-nodist"),
        Cell("600D Directional Self-Attention Network (Shen et al., 2017)", "accuracy", "85.6", "disan-nli"),
    ), SNLI_NOTE),
)

NOT_REPRODUCIBLE = (
    "Shen et al. 2018, Table 3 and Im & Cho 2017, Table 2 (MultiNLI matched / mismatched): MultiNLI is not on "
    "this machine, and its test labels are held by the Kaggle open evaluations the papers submitted to.",
    "Shen Table 1 and Im Table 1 as the papers trained them: the full SNLI train set (549,367 pairs) is not on "
    "this machine; our NLI cells above use models trained on SNLI dev + SICK instead.",
    "The papers' baseline rows (other methods), and the |θ|, time-per-epoch and train-accuracy columns: we train "
    "only DiSAN and the distance-based network, with 50-d GloVe 6B (the papers: 300-d), on a shared CPU.",
)

LABELS = {"accuracy": "accuracy", "pearson_r": "Pearson's r", "spearman_rho": "Spearman's ρ", "mse": "MSE"}


@dataclass(frozen=True)
class Ours:
    value: float  # in the paper's unit (accuracy in %)
    lo: float | None
    hi: float | None
    spread: str


def scale(measure: str) -> float:
    return 100.0 if measure == "accuracy" else 1.0


def fmt(measure: str, value: float) -> str:
    return f"{value:.2f}" if measure == "accuracy" else f"{value:.4f}"


def paper_value(cell: Cell) -> float:
    return float(cell.paper.split()[0])


def read_json(path: Path) -> dict | None:
    return json.loads(path.read_text(encoding="utf-8")) if path.is_file() else None


def ours(cell: Cell, directory: Path) -> Ours | None:
    """Our number for ``cell`` from the card (and claims file) of ``cell.model``, or None."""
    card = read_json(directory / f"{cell.model}.json")
    if card is None:
        return None
    k = scale(cell.measure)
    runs = (card.get("test_runs") or {}).get(cell.measure)
    if runs:
        from .stats import bootstrap_ci  # imports torch: only when a multi-run card exists

        values = k * np.asarray(runs, dtype=float)
        lo, hi = bootstrap_ci(values) if len(values) > 1 else (None, None)
        sd = f"sd {fmt(cell.measure, values.std(ddof=1))} over " if len(values) > 1 else ""
        unit = card["test_runs"].get("unit", "run")
        interval = f"; 95% CI of the mean [{fmt(cell.measure, lo)}, {fmt(cell.measure, hi)}]" if lo is not None else ""
        return Ours(float(values.mean()), lo, hi, f"{sd}{len(values)} {unit}s{interval}")
    test = (card.get("evaluation") or {}).get("test") or {}
    if cell.measure not in test:
        return None
    value = k * float(test[cell.measure])
    claims = read_json(directory / f"{cell.model}.claims.json") or {}
    measured = claims.get("accuracy") or {}
    if cell.measure == "accuracy" and "ci95" in measured and abs(measured["value"] - test["accuracy"]) < 1e-12:
        lo, hi = (k * x for x in measured["ci95"])
        return Ours(value, lo, hi, f"one run; 95% CI [{lo:.2f}, {hi:.2f}] (bootstrap over {test.get('n', '?'):,} "
                                   "test examples)")
    return Ours(value, None, None, "one run; no interval stored")


def verdict(cell: Cell, mine: Ours) -> str:
    paper = paper_value(cell)
    if mine.lo is not None and mine.lo <= paper <= mine.hi:
        return "matches (the paper's value is inside our 95% interval)"
    gap = mine.value - paper
    if cell.measure == "mse":
        return f"{'worse' if gap > 0 else 'better'} than the paper by {abs(gap):.4f}"
    unit = " points" if cell.measure == "accuracy" else ""
    return f"{'below' if gap < 0 else 'above'} the paper by {fmt(cell.measure, abs(gap))}{unit}"


def table_rows(table: PaperTable, directory: Path) -> list[dict[str, str]]:
    """One row per cell: the paper's row and measure, its number, ours, our spread, the verdict and our model
    (``ours`` empty and ``verdict`` "not trained yet" where the checkpoint does not exist). The Markdown block
    and the app's Evidence view both show these rows."""
    rows = []
    for cell in table.cells:
        mine = ours(cell, directory)
        measure = f"{cell.column} {LABELS[cell.measure]}" if cell.column else LABELS[cell.measure]
        rows.append({"paper's row": cell.row, "measure": measure, "paper": cell.paper,
                     "ours": "" if mine is None else fmt(cell.measure, mine.value),
                     "our spread": "" if mine is None else mine.spread,
                     "verdict": "not trained yet" if mine is None else verdict(cell, mine), "our model": cell.model})
    return rows


def table_lines(table: PaperTable, directory: Path) -> list[str]:
    lines = [f"**{table.heading}**", "",
             "| paper's row | measure | paper | ours | our spread | verdict | our model |",
             "|---|---|---|---|---|---|---|"]
    for r in table_rows(table, directory):
        name = r["paper's row"]
        head = f"| {name} | {r['measure']} | {r['paper']} |"
        if r["verdict"] == "not trained yet":
            lines.append(f"{head} not trained yet | | | `{r['our model']}` |")
            continue
        lines.append(f"{head} {r['ours']} | {r['our spread']} | {r['verdict']} | `{r['our model']}` |")
    return lines + ([""] + [table.note] if table.note else [])


def tables_text(directory: Path) -> str:
    """The Markdown block ``disan tables`` prints and writes between the paper-tables markers."""
    lines = ["Generated by `python -m disan tables` from the model cards in `pretrained/` "
             "(paper numbers as printed in the papers' tables; ours on the same test sets).", ""]
    for table in TABLES:
        lines += table_lines(table, directory) + [""]
    lines += ["**What cannot be reproduced here, and why**", ""] + [f"- {item}" for item in NOT_REPRODUCIBLE]
    return "\n".join(lines)


def write_block(doc: Path, text: str) -> Path:
    """Write ``text`` between the paper-tables markers of ``doc``; markers missing: appended under a heading."""
    from .output import replace_marked, write_atomic

    current = doc.read_text(encoding="utf-8") if doc.is_file() else "# Pretrained models and reproduction\n"
    if START in current and END in current:
        return write_atomic(doc, lambda: replace_marked(current, START, END, text))
    section = f"\n## The papers' tables, ours beside them\n\n{START}\n{text}\n{END}\n"
    return write_atomic(doc, lambda: current.rstrip("\n") + "\n" + section)
