"""What the Models view shows of a checkpoint, from its card (``pretrained/<name>.json``) and stored claims.

Pure functions (no Streamlit): the card's fields → the numbers and rows of the page.
"""

from __future__ import annotations

from dataclasses import dataclass

from disan.cards import PAPER_REFERENCE, epochs_text, stopping_text
from disan.evaluate import unpack_correct
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
    if claims:
        acc = claims["accuracy"]
        return Accuracy(acc["value"], acc["ci95"][0], acc["ci95"][1], acc["n"], "stored claims results")
    if rep:
        return Accuracy(rep["accuracy"], None, None, int(rep.get("n", 0)), "model card")
    return None


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
    return xs, [h.get("dev_acc") for h in hist], [h.get("train_loss") for h in hist], title


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
        ("dev (selection)", f"{train.get('dev_examples', '–')} examples; best dev accuracy "
                            f"{100 * train['best_dev_acc']:.2f}%" if train.get("best_dev_acc") is not None else "–"),
        ("architecture", f"{mcfg.get('arch', '–')}, d_h = {mcfg.get('d_h')}, heads = {mcfg.get('heads')}, "
                         f"α = {mcfg.get('alpha')}, masks = {', '.join(mcfg.get('masks', []))}, "
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
    return rows


def runs(card: dict) -> tuple[list[dict[str, str]], str] | None:
    """A multi-run card's runs (``test_runs``, disan.seed_runs): one row per run, and a line with the mean, sd,
    the paper's figure and which run ships and why. None for a single-run card."""
    block = card.get("test_runs")
    if not block or not block.get("runs"):
        return None
    unit = block.get("unit", "run")
    shipped = block["shipped"][unit]  # a seed, or a fold (the folds share one seed)
    rows = [{unit: f"{r[unit]}{' (shipped)' if r[unit] == shipped else ''}",
             "dev accuracy": f"{100 * r['best_dev_acc']:.2f}%", "test accuracy": f"{100 * r['test_accuracy']:.2f}%",
             "optimizer steps": f"{r['total_steps']:,}", "wall time": f"{r['wall_time_s']:.0f} s",
             "hardware": str(r.get("hardware", "–"))} for r in block["runs"]]
    sd = "" if block.get("sd") is None else f", sd {100 * block['sd']:.2f}"
    line = (f"Test accuracy over the {len(rows)} {unit}s: mean {100 * block['mean']:.2f}%{sd}. Paper: "
            f"{PAPER_REFERENCE.get(card.get('name', ''), '–')}. Shipped: {block['shipped']['why']}.")
    return rows, line


def confusion(card: dict) -> tuple[list[str], list[list[int]]] | None:
    cm = card.get("evaluation", {}).get("test", {}).get("confusion_matrix")
    return (cm["labels"], cm["rows_gold_cols_pred"]) if cm else None


def reproduce(card: dict) -> list[str]:
    """Commands: train, evaluate into the card, measure the claims."""
    name = card.get("name", "NAME")
    task = card.get("train", {}).get("train_config", {}).get("task", "TASK")
    train_cmd = card.get("train_command") or card.get("train", {}).get("command") or f"bash scripts/train_pretrained.sh {name}"
    return [train_cmd, f"python -m disan evaluate --model {name} --task {task} --split test --card",
            f"python -m disan claims --model {name} --write"]


def per_class(card: dict) -> dict[str, float | None]:
    return card.get("evaluation", {}).get("test", {}).get("per_class_accuracy", {})
