"""Decide the authors' recipe points on dev accuracy (issue 10) and record the figures behind each choice.

Usage: python scripts/recipe_decisions.py --runs DIR [--write] [--readme]

Each point where the papers are silent and the authors' released code differs from ours was
trained both ways from the same seed and data order (two runs in DIR, differing only in the
point's flags). The runs are compared on dev over the steps both reached: the best dev accuracy
of each among its evaluations at or before the shorter run's last step. The higher one wins;
a tie keeps the authors' way, since their code is the reference where the paper is silent.

--write stores the table in docs/recipe.json (read by scripts/publish_pretrained.py for the
model cards); --readme replaces the text between the recipe markers in README.md.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "docs" / "recipe.json"
START, END = "<!-- recipe:start -->", "<!-- recipe:end -->"


@dataclass(frozen=True)
class Point:
    id: str
    text: str        # what the authors do differently
    models: tuple    # the published models the choice applies to
    ours: str        # run trained our way
    authors: str     # run trained the authors' way
    flags: str       # the flags that select the authors' way


POINTS = (
    Point("activation", "ReLU instead of ELU for h (Shen Eq. 14) and the source2token hidden layer, and no bias in "
          "the classifier's output layer (the authors' SST model; their SNLI model uses ELU, as we do)",
          ("disan-sst5", "disan-sst5-nodir"), "disan-sst5", "disan-sst5+relu", "--activation relu --no-output-bias"),
    Point("dropout", "dropout on the input x, on both inputs of the fusion gate and on the source2token input, with "
          "the attention values taken from h before dropout (ours drops h for both logits and values)",
          ("disan-sst5", "disan-sst5-nodir", "disan-nli"), "disan-nli", "disan-nli+authors-dropout",
          "--dropout-mode authors"),
    Point("dsa-bias", "no biases in Q, K, V, W^O, W^S and W^H, as Im Eqs. 8 and 11 are written (ours carries them)",
          ("dsa-sst5", "dsa-sst5-nodist", "dsa-nli", "dsa-nli-nodist"), "dsa-nli", "dsa-nli+nobias", "--no-dsa-proj-bias"),
)


def curve(runs: Path, name: str) -> list[dict]:
    path = runs / f"{name}.log.jsonl"
    if not path.exists():
        raise FileNotFoundError(f"{path} is missing: train the run first (see scripts/train_pretrained.sh).")
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def compare(ours: list[dict], authors: list[dict]) -> dict:
    """Best dev accuracy of each run over the steps both reached."""
    common = min(ours[-1]["global_step"], authors[-1]["global_step"])
    best_o = max(h["dev_acc"] for h in ours if h["global_step"] <= common)
    best_a = max(h["dev_acc"] for h in authors if h["global_step"] <= common)
    return {"steps_compared": common, "ours_dev": best_o, "authors_dev": best_a,
            "choice": "ours" if best_o > best_a else "authors"}


def decide(runs: Path) -> list[dict]:
    rows = []
    for p in POINTS:
        try:
            result = compare(curve(runs, p.ours), curve(runs, p.authors))
        except FileNotFoundError as err:
            result = {"choice": None, "missing": str(err)}
        rows.append({"id": p.id, "point": p.text, "models": list(p.models), "runs": [p.ours, p.authors],
                     "authors_flags": p.flags, **result})
    return rows


def card_lines(rows: list[dict], model: str) -> list[str]:
    """The recipe section of one model card."""
    lines = []
    for r in rows:
        if model not in r["models"] or r.get("choice") is None:
            continue
        way = "the authors' way" if r["choice"] == "authors" else "our way"
        lines.append(f"{r['point']}: we use {way} — dev {100 * r['authors_dev']:.2f}% the authors' way against "
                     f"{100 * r['ours_dev']:.2f}% ours, best within the first {r['steps_compared']:,} steps of "
                     f"`{r['runs'][1]}` and `{r['runs'][0]}`.")
    return lines


def markdown(rows: list[dict]) -> str:
    out = ["| point | applies to | dev: ours | dev: authors' | steps compared | choice |", "|---|---|---|---|---|---|"]
    for r in rows:
        models = ", ".join(f"`{m}`" for m in r["models"])
        if r.get("choice") is None:
            out.append(f"| {r['point']} | {models} | not measured yet | | | |")
            continue
        out.append(f"| {r['point']} | {models} | {100 * r['ours_dev']:.2f}% | {100 * r['authors_dev']:.2f}% "
                   f"| {r['steps_compared']:,} | {'authors' if r['choice'] == 'authors' else 'ours'} |")
    return "\n".join(out)


def write_readme(text: str, readme: Path = ROOT / "README.md") -> None:
    body = readme.read_text()
    pattern = re.compile(re.escape(START) + r".*?" + re.escape(END), re.S)
    if not pattern.search(body):
        raise SystemExit(f"{readme} has no {START} … {END} markers; add them where the table belongs.")
    readme.write_text(pattern.sub(lambda _: f"{START}\n{text}\n{END}", body))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=Path, default=ROOT / "runs", help="folder of the paired runs (default runs/)")
    parser.add_argument("--write", action="store_true", help=f"store the decisions in {OUT.relative_to(ROOT)}")
    parser.add_argument("--readme", action="store_true", help="write the table into README.md")
    args = parser.parse_args()
    rows = decide(args.runs)
    if args.write:
        OUT.write_text(json.dumps(rows, indent=2) + "\n")
    text = markdown(rows)
    if args.readme:
        write_readme(text)
    print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
