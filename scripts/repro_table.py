"""Print (or write into docs/reproduction.md) the reproduction table and the ablation gaps from the model cards.

Usage: python scripts/repro_table.py [--docs]
Every number comes from a card in pretrained/*.json, and every card from
scripts/publish_pretrained.py (test scored once, after model selection on dev). The gap of a
model over its ablation is the difference of their test accuracies with a 95% interval from a
paired bootstrap over the test examples (``disan.stats.paired_bootstrap_diff``, 10,000
resamples, seed 0), computed from the per-example correctness bits each card stores.
With --docs the tables replace the text between the repro-table markers in docs/reproduction.md.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))  # run as a plain script from a clean clone
ORDER = ("disan-sst5", "disan-sst5-nodir", "dsa-sst5", "dsa-sst5-nodist", "disan-nli", "disan-nli-nodir", "dsa-nli", "dsa-nli-nodist",
         "disan-trec", "disan-subj", "disan-mpqa", "disan-cr", "disan-sick")
#: What each ablation removes; the pairs themselves are disan.claims_file.ABLATIONS.
REMOVES = {"disan-sst5": "directional masks (Shen Table 2)", "dsa-sst5": "distance mask",
           "dsa-nli": "distance mask (Im Table 1)", "disan-nli": "directional masks (Shen Table 1)"}
DOC = ROOT / "docs" / "reproduction.md"
START, END = "<!-- repro-table:start -->", "<!-- repro-table:end -->"


def read_cards() -> dict[str, dict]:
    cards = {}
    for name in ORDER:
        path = ROOT / "pretrained" / f"{name}.json"
        if path.exists():
            cards[name] = json.loads(path.read_text())
    return cards


def model_rows(cards: dict[str, dict]) -> list[str]:
    from disan.cards import PAPER_REFERENCE, TARGETS, epochs_text

    rows = ["| model | trained on | dev (selection) | test | floor on test | paper (300-d GloVe) | optimizer steps (epochs) "
            "| ended by | wall time (1 thread, shared CPU) |",
            "|---|---|---|---|---|---|---|---|---|"]
    for name in ORDER:
        card = cards.get(name)
        if card is None:
            rows.append(f"| `{name}` | not trained yet | | | ≥ {100 * TARGETS[name]:.0f}% | {PAPER_REFERENCE[name]} | | | |")
            continue
        train, test = card["train"], card["evaluation"]["test"]
        steps = f"{train['total_steps']:,}" if "total_steps" in train else "–"
        runs = card.get("test_runs")  # several seeds or folds (disan.seed_runs): the floor is checked on their mean
        # a relatedness model (SICK) is scored by Pearson's r (Shen Table 4), the others by accuracy in %
        related = "pearson_r" in test
        key, scale, unit = ("pearson_r", 1, "") if related else ("accuracy", 100, "%")
        value = (lambda x: f"r {x:.4f}") if related else (lambda x: f"{100 * x:.2f}%")
        margin = scale * ((runs["mean"] if runs else test[key]) - TARGETS[name])
        floor = (f"≥ {'r ' if related else ''}{scale * TARGETS[name]:.{2 if related else 0}f}{unit}{' (mean)' if runs else ''}: "
                 f"{'met' if margin >= 0 else 'missed'} ({margin:+.{4 if related else 2}f})")
        several = (f"; mean of {len(runs[key])} {runs['unit']}s {value(runs['mean'])}, sd {scale * runs['sd']:.{4 if related else 2}f}"
                   if runs else "")
        total = f"; {len(runs['runs'])} runs {sum(r['wall_time_s'] for r in runs['runs']) / 60:.0f} min" if runs else ""
        dev = value(train["best_dev_pearson"] if related else train["best_dev_acc"])
        rows.append(
            f"| `{name}` | {train['train_examples']:,} {'pairs' if related else 'examples'} | {dev} "
            f"| {value(test[key])} ({test['n']:,}){several} | {floor} | {PAPER_REFERENCE[name]} "
            f"| {steps} ({epochs_text(train).split(' (')[0]}) | {train.get('stopped_by', 'wall clock')} "
            f"| {train['wall_time_s'] / 60:.0f} min{total} |"
        )
    return rows


def gap_rows(cards: dict[str, dict]) -> list[str]:
    from disan.evaluate import unpack_correct
    from disan.stats import paired_bootstrap_diff

    rows = ["| model − ablation | what the ablation removes | test gap (points) | 95% CI (paired bootstrap) | same steps |",
            "|---|---|---|---|---|"]
    from disan.claims_file import ABLATIONS

    for a, b in ABLATIONS.items():
        what = REMOVES[a]
        if a not in cards or b not in cards:
            rows.append(f"| `{a}` − `{b}` | {what} | not trained yet | | |")
            continue
        ta, tb = cards[a]["evaluation"]["test"], cards[b]["evaluation"]["test"]
        if "correct_bits" not in ta or "correct_bits" not in tb or ta["n"] != tb["n"]:
            rows.append(f"| `{a}` − `{b}` | {what} | {100 * (ta['accuracy'] - tb['accuracy']):+.2f} "
                        "| not available: a card predates per-example correctness bits | |")
            continue
        ca, cb = unpack_correct(ta["correct_bits"], ta["n"]), unpack_correct(tb["correct_bits"], tb["n"])
        diff, lo, hi = paired_bootstrap_diff(ca, cb, n_boot=10_000, seed=0)
        sa, sb = cards[a]["train"].get("total_steps"), cards[b]["train"].get("total_steps")
        same = "yes" if sa is not None and sa == sb else f"no ({sa} vs {sb})"
        rows.append(f"| `{a}` − `{b}` | {what} | {100 * diff:+.2f} | [{100 * lo:+.2f}, {100 * hi:+.2f}] | {same} |")
    return rows


def tables() -> str:
    cards = read_cards()
    return "\n".join(model_rows(cards) + ["", "Ablation gaps on test:", ""] + gap_rows(cards))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--docs", "--readme", dest="write", action="store_true",
                        help="write the tables into docs/reproduction.md between the markers")
    args = parser.parse_args()
    text = tables()
    if args.write:
        from disan.output import rewrite_marked

        rewrite_marked(DOC, START, END, text)
    print(text)
    return 0


if __name__ == "__main__":
    from disan.errors import run_script

    run_script(main)
