"""Markdown tables of stored plausibility results (pretrained/NAME.plausibility.json, written by
``python -m disan faithfulness --model NAME --parts plausibility --write``) for docs/plausibility.md, so the numbers
there come from this command.

Usage: python scripts/plausibility_table.py pretrained/NAME.plausibility.json [...]   one table per model
"""

from __future__ import annotations

import json
import sys
from pathlib import Path


def _ci(v: dict) -> str:
    return f"{v['value']:.2f} [{v['ci95'][0]:.2f}, {v['ci95'][1]:.2f}]"


def table(result: dict) -> str:
    refs = result["references"]
    done = result["n"] - result["skipped"]
    sample = ("the whole split" if result["n"] == result["n_trees"] else f"a seeded sample, seed "
              f"{result['sample_seed']}")
    cost = f"; {result['seconds']:.0f} s, {result['cpu_seconds']:.0f} s CPU" if "cpu_seconds" in result else ""
    load = result.get("load_average")
    cost += f", load average {load[0]:.1f} at the start and {load[1]:.1f} at the end" if load else ""
    lines = [f"**{result['model']}** ({result['n']:,} of {result['n_trees']:,} {result.get('split', 'test')} trees, "
             f"{sample}; {result['skipped']} skipped (tokenized differently), {done:,} measured{cost})", "",
             "| series | word AUPRC | word precision at R | phrase AUPRC | phrase precision at R |",
             "|---|---|---|---|---|"]
    for m in refs["word"]:
        w, p = refs["word"][m], refs["phrase"][m]
        lines.append(f"| {m} | {_ci(w['auprc'])} | {_ci(w['precision_at_r'])} | {_ci(p['auprc'])} | "
                     f"{_ci(p['precision_at_r'])} |")
    w, p = next(iter(refs["word"].values())), next(iter(refs["phrase"].values()))
    lines.append(f"| share of positive tokens (chance) | {w['chance']['value']:.2f} | {w['chance']['value']:.2f} | "
                 f"{p['chance']['value']:.2f} | {p['chance']['value']:.2f} |")
    lines += ["", f"Sentences with a defined value: word {w['auprc']['n']:,}, phrase {p['auprc']['n']:,}."]
    return "\n".join(lines)


def main(argv: list[str]) -> int:
    if not argv:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    out = []
    for f in argv:
        try:
            out.append(table(json.loads(Path(f).read_text())))
        except (OSError, ValueError, KeyError) as err:
            print(f"error: {f} cannot be read as a plausibility result ({err!r}); make it with python -m disan "
                  "faithfulness --model NAME --parts plausibility --write.", file=sys.stderr)
            return 2
    print("\n\n".join(out))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
