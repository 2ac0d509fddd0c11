"""Model-card sections of a relatedness model (SICK): the regression module and loss it trains, and its scores.

The text states what ``disan.heads.RelatednessHead`` and ``disan.relatedness`` compute (Tai, Socher & Manning
2015, Sec. 4.2, the module Shen Sec. 5.3 puts on DiSAN), with the sizes read from the run's own configs.
"""

from __future__ import annotations

from .card_runs import paper_cell, value_text
from .paper_tables import LABELS
from .seed_runs import RELATEDNESS


def is_relatedness(card: dict) -> bool:
    return bool(card.get("train", {}).get("model_config", {}).get("relatedness"))


def module_lines(train: dict) -> list[str]:
    mcfg, tcfg = train.get("model_config", {}), train.get("train_config", {})
    grades = mcfg.get("labels") or []
    if not mcfg.get("pair", True):
        return single_lines(mcfg, tcfg)
    size = (f", {2 * mcfg['d_h']}-d each: the [forward; backward] source2token output, 2·d_h"
            if mcfg.get("arch") == "disan" and mcfg.get("d_h") else "")
    return [
        "- Regression module (Tai, Socher & Manning 2015, Sec. 4.2; Shen Sec. 5.3; `disan.heads.RelatednessHead`): "
        f"both sentences go through the same encoder, giving s_a and s_b{size}. Features of the pair: "
        f"h× = s_a ⊙ s_b and h+ = |s_a − s_b|; hidden layer h_s = sigmoid(W× h× + W+ h+ + b) of "
        f"{mcfg.get('head_hidden')} units (dropout {mcfg.get('dropout')} on h×, h+ and h_s); "
        f"p̂ = softmax(W_p h_s + b_p) over the {len(grades)} grades {', '.join(grades)}; the predicted relatedness is "
        f"ŷ = rᵀp̂ with r = (1, …, {len(grades)}).",
        "- Loss: KL(p ‖ p̂), averaged over the batch (`disan.relatedness.relatedness_loss`), where p is the sparse "
        "target of the gold score y: p_⌊y⌋+1 = y − ⌊y⌋, p_⌊y⌋ = ⌊y⌋ − y + 1, every other grade 0 (so rᵀp = y); the "
        f"L2 term is the optimizer's weight decay ({tcfg.get('weight_decay')}). Model selection: dev Pearson's r.",
    ]


def single_lines(mcfg: dict, tcfg: dict) -> list[str]:
    """A score of one sentence (``disan train --data --regression`` without ``--text-pair``)."""
    grades = mcfg.get("labels") or []
    act = "ReLU" if mcfg.get("arch") == "dsa" or mcfg.get("activation") == "relu" else "ELU"
    return [
        "- Regression head (one sentence; `disan.heads.ClassifierHead` with the grades as its outputs): the "
        f"sentence encoding s → a {mcfg.get('head_hidden')}-unit {act} layer (dropout {mcfg.get('dropout')}) → "
        f"p̂ = softmax over the {len(grades)} grades {', '.join(grades)}; the predicted score is ŷ = rᵀp̂ with "
        f"r = (1, …, {len(grades)}), the output of the relatedness module of Tai, Socher & Manning 2015, Sec. 4.2.",
        "- Loss: KL(p ‖ p̂), averaged over the batch (`disan.relatedness.relatedness_loss`), where p is the sparse "
        "target of the gold score y: p_⌊y⌋+1 = y − ⌊y⌋, p_⌊y⌋ = ⌊y⌋ − y + 1, every other grade 0 (so rᵀp = y); the "
        f"L2 term is the optimizer's weight decay ({tcfg.get('weight_decay')}). Model selection: dev Pearson's r.",
    ]


def interval_text(measure: str, rep: dict) -> str:
    ci = rep.get(f"{measure}_ci95")
    return f" [{value_text(measure, ci[0])}, {value_text(measure, ci[1])}]" if ci else ""


def scores_lines(card: dict) -> list[str]:
    """The card's score table: dev Pearson's r (selection) and the test measures beside the paper's."""
    name, train = card["name"], card.get("train", {})
    lines = ["", "## Scores", "", "| split | " + " | ".join(LABELS[m] for m in RELATEDNESS) + " |", "|---|---|---|---|"]
    lines += [f"| dev (held out, picks) | {value_text('pearson_r', train.get('best_dev_pearson'))} | | |"]
    for split, rep in card.get("evaluation", {}).items():
        lines += [f"| {split} (this checkpoint) | "
                  + " | ".join(value_text(m, rep.get(m)) + interval_text(m, rep) for m in RELATEDNESS) + " |"]
    if "data_file" not in card:  # a user's file has no paper number
        lines += ["| paper, mean (sd) of five runs | " + " | ".join(paper_cell(name, m) for m in RELATEDNESS) + " |"]
    if any(f"{m}_ci95" in rep for rep in card.get("evaluation", {}).values() for m in RELATEDNESS):
        lines += ["", "Brackets: 95% percentile bootstrap intervals over the examples (`disan.stats.bootstrap_ci`)."]
    return lines
