"""What the Models view shows of a checkpoint, from its card (``pretrained/<name>.json``) and stored claims.

Pure functions (no Streamlit): the card's fields → the numbers and rows of the page. A classifier is scored
by accuracy; a relatedness model (SICK, Shen Table 4) by Pearson's r, Spearman's ρ and MSE; a model of
several runs (seeds, or the folds of a cross-validation: ``test_runs``, disan.seed_runs) also lists its runs.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from disan.card_runs import DEV_LABELS, spread_text, value_text
from disan.cards import PAPER_REFERENCE, architecture_text, epochs_text, stopping_text
from disan.evaluate import unpack_correct, unpack_scores
from disan.paper_tables import LABELS
from disan.seed_runs import CLASSIFICATION, RELATEDNESS, measure_stats
from disan.stats import bootstrap_ci


@dataclass(frozen=True)
class Accuracy:
    """Test accuracy with a 95% bootstrap interval over examples (``source`` says where it came from)."""

    value: float
    lo: float | None
    hi: float | None
    n: int
    source: str

    def text(self) -> str:
        if self.lo is None:
            return f"{100 * self.value:.2f}% (n = {self.n:,})"
        return f"{100 * self.value:.2f}% [{100 * self.lo:.2f}, {100 * self.hi:.2f}] (n = {self.n:,})"


def test_accuracy(card: dict, claims: dict | None) -> Accuracy | None:
    """From the card's per-example correctness bits, else the stored claims, else the card's bare accuracy."""
    rep = card.get("evaluation", {}).get("test")
    if rep and rep.get("correct_bits"):
        correct = unpack_correct(rep["correct_bits"], rep["n"]).astype(float)
        lo, hi = bootstrap_ci(correct)
        return Accuracy(float(correct.mean()), lo, hi, int(rep["n"]), "model card (per-example bits)")
    if claims and "accuracy" in claims:  # a relatedness model's claims hold Pearson's r instead (disan.evidence)
        acc = claims["accuracy"]
        return Accuracy(acc["value"], acc["ci95"][0], acc["ci95"][1], acc["n"], "stored claims results")
    if rep:
        return Accuracy(rep["accuracy"], None, None, int(rep.get("n", 0)), "model card")
    return None


def _spearman(gold: np.ndarray, predicted: np.ndarray) -> float:
    """Spearman's ρ: Pearson's r of the ranks, ties sharing their average rank (as scipy's spearmanr)."""
    from scipy.stats import rankdata

    return float(np.corrcoef(rankdata(gold), rankdata(predicted))[0, 1])


#: Each relatedness measure as a function of (gold, predicted), for the bootstrap over test pairs.
RELATEDNESS_FNS = {
    "pearson_r": lambda gold, predicted: float(np.corrcoef(gold, predicted)[0, 1]),
    "spearman_rho": _spearman,
    "mse": lambda gold, predicted: float(np.mean((gold - predicted) ** 2)),
}


@dataclass(frozen=True)
class Score:
    """A relatedness model's test measure with a 95% bootstrap interval over the test pairs (when stored)."""

    measure: str
    value: float
    lo: float | None
    hi: float | None
    n: int
    source: str

    @property
    def label(self) -> str:
        return LABELS[self.measure]

    def text(self) -> str:
        interval = "" if self.lo is None else f" [{self.lo:.4f}, {self.hi:.4f}]"
        return f"{self.label} {self.value:.4f}{interval}"


def relatedness_pairs(report: dict) -> tuple[np.ndarray, np.ndarray] | None:
    """(gold, predicted) of every test pair in file order, from the report's ``scores_f32``; None if not stored."""
    packed = report.get("scores_f32")
    if not packed:
        return None
    n = int(report["n"])
    return unpack_scores(packed["gold"], n), unpack_scores(packed["predicted"], n)


def test_relatedness(report: dict) -> list[Score] | None:
    """Pearson's r, Spearman's ρ and MSE of a relatedness test report (``evaluation.test``), each with a 95%
    percentile bootstrap over the test pairs when the card stores every pair's scores; None if it has no scores."""
    if not report or any(m not in report for m in RELATEDNESS):
        return None
    pairs = relatedness_pairs(report)
    out = []
    for m in RELATEDNESS:
        lo, hi = bootstrap_ci(pairs, RELATEDNESS_FNS[m]) if pairs else (None, None)
        out.append(Score(m, float(report[m]), lo, hi, int(report.get("n", 0)),
                         "model card (per-pair scores)" if pairs else "model card"))
    return out


def claims_relatedness(claims: dict | None) -> list[Score] | None:
    """Pearson's r, Spearman's ρ and MSE with their bootstrap intervals from a relatedness model's stored claims
    (``relatedness``, disan.evidence.relatedness_block), for a checkpoint whose card has no test scores; None if
    the claims hold none."""
    block = (claims or {}).get("relatedness")
    if not block or any(m not in block or block[m].get("value") is None for m in RELATEDNESS):
        return None
    return [Score(m, float(block[m]["value"]), *block[m]["ci95"], int(block[m]["n"]), "stored claims results")
            for m in RELATEDNESS]


def steps_per_epoch(train: dict) -> int | None:
    examples = train.get("train_examples")
    batch = train.get("train_config", {}).get("batch_size")
    return -(-examples // batch) if examples and batch else None


def curve(train: dict) -> tuple[list[float], list[float | None], list[float | None], str]:
    """(x, dev accuracy, train loss, x title) of the learning curve; x is the optimizer step.

    Older cards record only (epoch, step within the epoch); their global step is
    (epoch − 1) × steps per epoch + step.
    """
    hist = train.get("history") or []
    per_epoch = steps_per_epoch(train)
    xs: list[float] = []
    for h in hist:
        if h.get("global_step") is not None:
            xs.append(float(h["global_step"]))
        elif per_epoch:
            xs.append(float((h["epoch"] - 1) * per_epoch + h["step"]))
        else:
            xs.append(float(h["epoch"]))
    title = "optimizer step" if hist and (per_epoch or hist[0].get("global_step") is not None) else "epoch"
    dev = [h.get("dev_pearson") if "dev_pearson" in h else h.get("dev_acc") for h in hist]
    return xs, dev, [h.get("train_loss") for h in hist], title


def dev_title(train: dict) -> str:
    """What the learning curve's dev values are: dev Pearson's r for a relatedness run, else dev accuracy."""
    return "dev Pearson's r" if any("dev_pearson" in h for h in train.get("history") or []) else "dev accuracy"


def total_steps(train: dict) -> int | None:
    if train.get("total_steps") is not None:
        return int(train["total_steps"])
    xs, *_ = curve(train)
    return int(xs[-1]) if xs and steps_per_epoch(train) else None


def wall_time(train: dict) -> str:
    s = train.get("wall_time_s")
    if s is None:
        return "–"
    return f"{s / 60:.0f} min" if s < 5400 else f"{s / 3600:.1f} h"


def facts(card: dict) -> list[tuple[str, str]]:
    """(label, value) rows: data, recipe, length of training and cost."""
    train = card.get("train", {})
    tcfg = train.get("train_config", {})
    mcfg = train.get("model_config", {})
    rows = [
        ("task", f"{tcfg.get('task', '–')}: {card.get('description', '')}"),
        ("training data", f"{train.get('train_examples', '–'):,} examples" if isinstance(train.get("train_examples"), int)
         else "–"),
        ("dev (selection)", _dev_text(train)),
        ("architecture", f"{mcfg.get('arch', '–')}, {architecture_text(mcfg, ' = ').replace('alpha', 'α')}, "
                         f"masks = {', '.join(mcfg.get('masks', []))}, "
                         f"input {mcfg.get('d_in')}-d {mcfg.get('glove', '')}"),
        ("parameters", f"{train.get('params_without_embeddings', 0):,} without embeddings; "
                       f"vocabulary {train.get('vocab_size', '–')} words"),
        ("optimizer", f"{tcfg.get('optimizer')} lr {tcfg.get('lr')}, batch {tcfg.get('batch_size')}, "
                      f"dropout {tcfg.get('dropout')}, weight decay {tcfg.get('weight_decay')}, seed {tcfg.get('seed')}"),
        ("training length", epochs_text(train)),
        ("stopping", stopping_text(train)),
        ("wall time and hardware", f"{wall_time(train)} on {train.get('hardware', '–')} (torch {train.get('torch', '–')})"),
        ("paper", PAPER_REFERENCE.get(card.get("name", ""), "–")),
    ]
    if card.get("data_note"):
        rows.insert(2, ("data note", card["data_note"]))
    unseen = card.get("never_seen")
    if unseen:
        rows.insert(2, ("cross-validation", f"fold {unseen['fold']} of a seeded, stratified {unseen['k']}-fold split "
                                            f"(seed {unseen['seed']}): trained on {unseen['n']['train']:,}, picked on "
                                            f"{unseen['n']['dev']:,} dev examples, never saw its "
                                            f"{unseen['n']['test']:,} test examples"))
    return rows


def _dev_text(train: dict) -> str:
    if train.get("best_dev_pearson") is not None:
        best = f"best dev Pearson's r {train['best_dev_pearson']:.4f}"
    elif train.get("best_dev_acc") is not None:
        best = f"best dev accuracy {100 * train['best_dev_acc']:.2f}%"
    else:
        return "–"
    return f"{train.get('dev_examples', '–')} examples; {best}"


@dataclass(frozen=True)
class Runs:
    """A multi-run card's runs: one row per run (seed or fold), and the lines that summarise them."""

    unit: str
    shipped: int
    rows: list[dict[str, str]]
    lines: list[str]

    @property
    def heading(self) -> str:
        if self.unit == "fold":
            return f"This checkpoint is fold {self.shipped} of a {len(self.rows)}-fold cross-validation"
        return f"This checkpoint is one of {len(self.rows)} runs ({self.unit} {self.shipped})"


def _measure_line(measure: str, stats: dict, n: int, unit: str) -> str:
    sd = "" if stats.get("sd") is None else f", sd {spread_text(measure, stats['sd'])}"
    ci = ("" if not stats.get("ci95") else ", 95% interval of the mean "
          f"[{spread_text(measure, stats['ci95'][0])}, {spread_text(measure, stats['ci95'][1])}]")
    scored = " (each fold's model on its own test fold)" if unit == "fold" else ""
    return (f"Test {LABELS[measure]} over the {n} {unit}s{scored}: mean {value_text(measure, stats['mean'])}{sd}{ci}.")


def runs(card: dict) -> Runs | None:
    """A multi-run card's runs (``test_runs``, disan.seed_runs): one row per run with its dev value and every test
    measure; a line per measure with the mean, sd and 95% interval over the runs; the paper's figure; which run
    ships and why. None for a single-run card. Older cards (accuracy only, no ``stats``) are summarised here."""
    block = card.get("test_runs")
    if not block or not block.get("runs"):
        return None
    unit = block.get("unit", "run")
    measures = block.get("measures") or list(CLASSIFICATION)
    shipped = block["shipped"][unit]  # a seed, or a fold (the folds share one seed)
    dev_field = next((f for f in DEV_LABELS if f in block["runs"][0]), None)
    rows = []
    for r in block["runs"]:
        row = {unit: f"{r[unit]}{' (shipped)' if r[unit] == shipped else ''}"}
        if dev_field:
            row[DEV_LABELS[dev_field]] = value_text("accuracy" if dev_field == "best_dev_acc" else "pearson_r",
                                                    r[dev_field])
        row.update({f"test {LABELS[m]}": value_text(m, r.get(f"test_{m}")) for m in measures})
        row.update({"optimizer steps": "–" if r.get("total_steps") is None else f"{r['total_steps']:,}",
                    "wall time": "–" if r.get("wall_time_s") is None else f"{r['wall_time_s']:.0f} s",
                    "hardware": str(r.get("hardware", "–"))})
        rows.append(row)
    stored = block.get("stats") or {}
    lines = [_measure_line(m, stored.get(m) or measure_stats(block[m]), len(rows), unit) for m in measures]
    lines.append(f"Paper: {PAPER_REFERENCE.get(card.get('name', ''), '–')}. Shipped: {block['shipped']['why']}.")
    return Runs(unit, shipped, rows, lines)


def confusion(card: dict) -> tuple[list[str], list[list[int]]] | None:
    cm = card.get("evaluation", {}).get("test", {}).get("confusion_matrix")
    return (cm["labels"], cm["rows_gold_cols_pred"]) if cm else None


def reproduce(card: dict) -> list[str]:
    """Commands: train, evaluate into the card, measure the claims."""
    name = card.get("name", "NAME")
    task = card.get("train", {}).get("train_config", {}).get("task", "TASK")
    train_cmd = card.get("train_command") or card.get("train", {}).get("command") or f"bash scripts/train_pretrained.sh {name}"
    fold = card.get("evaluation", {}).get("test", {}).get("fold")
    fold = "" if fold is None else f" --fold {fold}"
    return [train_cmd, f"python -m disan evaluate --model {name} --task {task} --split test{fold} --card",
            f"python -m disan claims --model {name} --write"]


def per_class(card: dict) -> dict[str, float | None]:
    return card.get("evaluation", {}).get("test", {}).get("per_class_accuracy", {})
