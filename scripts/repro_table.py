"""Print the README's reproduction table from the model cards in pretrained/*.json.

Usage: python scripts/repro_table.py
Every number comes from a card, and every card from `python -m disan evaluate ... --card`
or scripts/publish_pretrained.py.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
ORDER = ("disan-sst5", "disan-sst5-nodir", "dsa-sst5", "dsa-sst5-nodist", "disan-nli", "dsa-nli", "dsa-nli-nodist")


def main() -> int:
    sys.path.insert(0, str(ROOT))
    from disan.cards import PAPER_REFERENCE, epochs_text

    print("| model | trained on | dev (selection) | test | paper (300-d GloVe) | epochs | CPU time |")
    print("|---|---|---|---|---|---|---|")
    for name in ORDER:
        path = ROOT / "pretrained" / f"{name}.json"
        if not path.exists():
            print(f"| `{name}` | not trained yet | | | {PAPER_REFERENCE[name]} | | |")
            continue
        card = json.loads(path.read_text())
        train = card["train"]
        test = card["evaluation"]["test"]
        print(
            f"| `{name}` | {train['train_examples']:,} examples | {100 * train['best_dev_acc']:.2f}% "
            f"| {100 * test['accuracy']:.2f}% ({test['n']:,}) | {PAPER_REFERENCE[name]} "
            f"| {epochs_text(train).split(' (')[0]} | {train['wall_time_s'] / 60:.0f} min |"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
