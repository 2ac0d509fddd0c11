"""Markdown tables of stored sanity-check results for docs/sanity-checks.md, so the numbers there come from this
command. A FILE is either the stored pretrained/NAME.sanity.json (``python -m disan faithfulness --model NAME --parts
sanity --write``: its cascading test, and its data randomisation test where it has one) or the output of
``python -m disan sanity ... --json > FILE``.

Usage: python scripts/sanity_table.py FILE.json [FILE.json ...]            one table per result
       python scripts/sanity_table.py --verdicts FILE.json [FILE.json ...]  one matrix: method × model, verdict (ρ)
       python scripts/sanity_table.py --runs FILE.json [FILE.json ...]      task, sample, steps, and the seconds and
                                                                             load average the FILE.err beside it holds
A cascading result's table shows ρ after the first step, ρ and the top-k overlap at the last step and the verdict; a
data randomisation result's (``--shuffled``) shows ρ and the top-k overlap of the trained vs the shuffled-label model.
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path


def _ci(v: dict, signed: bool = True) -> str:
    f = "{:+.2f}" if signed else "{:.2f}"
    return f"{f.format(v['value'])} [{f.format(v['ci95'][0])}, {f.format(v['ci95'][1])}]"


def heading(result: dict) -> str:
    sample = f"{result['n']:,} of {result['n_examples']:,} {result['split']} examples, sample seed {result['sample_seed']}"
    if result.get("test") == "data randomisation":
        acc = result.get("sample_accuracy") or {}
        train = result.get("shuffled_training") or {}
        extra = (f"; accuracy on the sample: trained {acc['trained']:.3f}, shuffled-label model {acc['shuffled']:.3f}; "
                 f"the same prediction on {result['prediction_agreement']:.3f}") if acc else ""
        if "shuffled_train_acc" in train:
            extra += (f"; the shuffled-label model fits its shuffled training labels to {train['shuffled_train_acc']:.3f} "
                      f"after {train.get('checkpoint_step', '?'):,} steps")
        return f"**{result['model']}** vs its shuffled-label model ({sample}{extra})"
    return f"**{result['model']}** ({sample}; steps: {' → '.join(result['steps'])})"


def table(result: dict) -> str:
    steps = result["steps"]
    last = result["by_step"][steps[-1]]
    if result.get("test") == "data randomisation":
        lines = ["| explanation | ρ trained vs shuffled labels | top-k overlap | verdict |", "|---|---|---|---|"]
        for m, verdict in result["verdicts"].items():
            row = last[m]
            lines.append(f"| {m} | {_ci(row['spearman'])} | {_ci(row['top_k_overlap'], False)} (chance "
                         f"{row['top_k_chance']:.2f}) | {verdict} |")
        return "\n".join([heading(result), "", *lines])
    first = result["by_step"][steps[0]]
    lines = [f"| explanation | ρ after the {steps[0]} | ρ at the last step | top-k overlap at the last step | verdict |",
             "|---|---|---|---|---|"]
    for m, verdict in result["verdicts"].items():
        row = last[m]
        lines.append(f"| {m} | {first[m]['spearman']['value']:+.2f} | {_ci(row['spearman'])} | "
                     f"{_ci(row['top_k_overlap'], False)} (chance {row['top_k_chance']:.2f}) | {verdict} |")
    return "\n".join([heading(result), "", *lines])


def verdict_matrix(results: list[dict]) -> str:
    """Methods down, models across: the verdict and the last step's mean ρ (n examples in the header)."""
    methods = list(dict.fromkeys(m for r in results for m in r["verdicts"]))
    head = "| explanation | " + " | ".join(f"{r['model']} (n={r['n']})" for r in results) + " |"
    lines = [head, "|---|" + "---|" * len(results)]
    for m in methods:
        cells = []
        for r in results:
            if m not in r["verdicts"]:
                cells.append("–")
                continue
            rho = r["by_step"][r["steps"][-1]][m]["spearman"]["value"]
            cells.append(f"{r['verdicts'][m]} ({rho:+.2f})")
        lines.append(f"| {m} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def runs_table(results: list[dict], files: list[str]) -> str:
    """One row per result: task, sample, steps, and from ``FILE.err`` (the run's stderr with ``uptime`` before and
    after) its seconds and load averages."""
    lines = ["| model | task | sample | steps | seconds | load average (start, end) |", "|---|---|---|---|---|---|"]
    for r, f in zip(results, files):
        if "seconds" in r:  # a stored file's test records its own cost
            secs, loads = f"{r['seconds']:.0f} s ({r['cpu_seconds']:.0f} s CPU)", [f"{x:.2f}" for x in r["load_average"]]
        else:
            err = Path(f).with_suffix(".err")
            text = err.read_text() if err.is_file() else ""
            found = re.search(r"examples in (\d+) s", text) or re.search(r"took about (\d+) s", text)
            secs, loads = found.group(1) + " s" if found else "–", re.findall(r"load average: ([\d.]+)", text)
        lines.append(f"| {r['model']} | {r['task']} | {r['n']:,} of {r['n_examples']:,} | {' → '.join(r['steps'])} | "
                     f"{secs} | {', '.join(loads) or '–'} |")
    return "\n".join(lines)


def main(argv: list[str]) -> int:
    mode = argv[0] if argv[:1] in (["--verdicts"], ["--runs"]) else None
    files = argv[1:] if mode else argv
    if not files:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    results, named = [], []
    for f in files:
        try:
            data = json.loads(Path(f).read_text())
        except (OSError, ValueError) as err:
            print(f"error: {f} cannot be read as a sanity result ({err}); make it with python -m disan faithfulness "
                  "--model NAME --parts sanity --write (or python -m disan sanity --model NAME --json > FILE).",
                  file=sys.stderr)
            return 2
        if "cascading" in data:  # a stored pretrained/NAME.sanity.json
            tests = [data["cascading"]] + ([data["data_randomisation"]] if data["data_randomisation"] and not mode
                                           else [])
        else:
            tests = [data]
        results += tests
        named += [f] * len(tests)
    files = named
    if mode == "--verdicts":
        print(verdict_matrix(results))
    elif mode == "--runs":
        print(runs_table(results, files))
    else:
        print("\n\n".join(table(r) for r in results))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
