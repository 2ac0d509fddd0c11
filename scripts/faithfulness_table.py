"""The faithfulness table and one-line answers of docs/attention-as-explanation.md, from the stored results pretrained/*.faithfulness.json.

Usage:
    python scripts/faithfulness_table.py            # print the block
    python scripts/faithfulness_table.py --docs     # write it into docs/attention-as-explanation.md between the markers
    python scripts/faithfulness_table.py --check    # exit 1 when that page differs from the stored results

Every number comes from a results file made by `python -m disan faithfulness --all --write`.
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))  # run as a plain script from a clean clone

from disan.output import readme_block_main  # noqa: E402

DOC = ROOT / "docs" / "attention-as-explanation.md"
START, END = "<!-- faithfulness-table:start -->", "<!-- faithfulness-table:end -->"
TAU_METHODS = ("grad_input", "integrated_gradients", "leave_one_out", "flow")
RANKINGS = ("attention", "integrated_gradients", "flow", "random")
#: How a verdict on "attention − random comprehensiveness > 0" reads in the summary.
BEATS = {"supported": "yes", "inconclusive": "not distinguishable from random", "contradicted": "no, less than random"}


def _results(directory: Path):
    from viz_app.shell.faithfulness_results import read_all

    return read_all(directory)


def _ci(v: dict, f: str = "{:+.2f}") -> str:
    return f"{f.format(v['value'])} [{f.format(v['ci95'][0])}, {f.format(v['ci95'][1])}]"


def table(results) -> list[str]:
    """Models × (n, τ of attention with each method, ERASER's averaged comprehensiveness and sufficiency)."""
    head = ["model", "examples (of the test set)", "IG steps, mean \\|delta\\|"]
    head += [f"τ attention ~ {m}" for m in ("grad × input", "IG", "leave-one-out", "flow")]
    head += ["comprehensiveness: attention / IG / flow / random", "sufficiency: attention / IG / flow / random",
             "comprehensiveness, attention − random", "time (s)"]
    lines = ["| " + " | ".join(head) + " |", "|---" * len(head) + "|"]
    for m in results.measured:
        d = m.data
        n = f"{d['n']:,} of {d['n_examples']:,}" + ("" if d["complete"] else " (random sample)")
        ig = d["integrated_gradients"]
        cells = [f"`{m.name}`" + (" (stale)" if m.stale else ""), n, f"{ig['steps']}, {ig['mean_abs_delta']:.1e}"]
        cells += [_ci(m.tau("attention", meth)) for meth in TAU_METHODS]
        for kind in ("comprehensiveness", "sufficiency"):
            cells.append(" / ".join(f"{d['aopc'][kind][r]['value']:.3f}" for r in RANKINGS))
        diff = d["attention_minus_random"]
        cells += [_ci(diff, "{:+.3f}") + f" ({diff['verdict']})",
                  f"{d['seconds']:,.0f}"]
        lines.append("| " + " | ".join(cells) + " |")
    return lines


def answers(results) -> list[str]:
    lines = []
    for m in results.measured:
        d = m.data
        sample = "" if d["complete"] else f" *(a random sample of {d['n']:,} of {d['n_examples']:,} test examples)*"
        lines.append(f"- {d['answer']}{sample}")
    return lines


def summary(results) -> list[str]:
    """How many models fall in each agreement band and beat random erasure (derived, not written by hand)."""
    from disan.attribution.corpus import ATTRIBUTIONS, band

    bands: dict[str, list[str]] = {}
    beats: dict[str, list[str]] = {}
    ig_vs_attention: list[str] = []
    for m in results.measured:
        mean_tau = sum(m.tau("attention", a)["value"] for a in ATTRIBUTIONS) / len(ATTRIBUTIONS)
        bands.setdefault(band(mean_tau), []).append(f"`{m.name}` ({mean_tau:+.2f})")
        beats.setdefault(m.data["attention_minus_random"]["verdict"], []).append(f"`{m.name}`")
        comp = m.data["aopc"]["comprehensiveness"]
        if comp["integrated_gradients"]["ci95"][0] > comp["attention"]["ci95"][1]:
            ig_vs_attention.append(f"`{m.name}`")
    total = len(results.measured)
    lines = ["**Summary.** Mean Kendall τ of attention with gradient × input, IG and leave-one-out: "
             + "; ".join(f"{name} agreement for {len(v)} of {total} ({', '.join(v)})" for name, v in bands.items())
             + ". Removing the most-attended tokens lowers the predicted class's probability more than removing "
             "random ones: "
             + "; ".join(f"{BEATS[verdict]} for {len(v)} of {total}" for verdict, v in beats.items()) + "."]
    if ig_vs_attention:
        lines.append(f"Removing the tokens IG ranks first lowers it more still (intervals apart) for {len(ig_vs_attention)} "
                     f"of {total} ({', '.join(ig_vs_attention)}).")
    return lines


def published(results) -> list[str]:
    """Jain & Wallace's Table 2 (SST and SNLI, BiLSTM) with our models on the same tasks (viz_app/draw/published.py)."""
    from viz_app.draw.published import comparison_rows

    rows = comparison_rows(results.measured)
    head = list(rows[0])
    lines = ["**Beside Jain & Wallace 2019, Table 2.** Theirs: mean ± std over test instances per predicted class "
             "(the fraction with p ≤ 0.05), BiLSTM with additive attention, binary SST; τ over all tokens, "
             "gradient = |gradient × input|, leave-one-out = total-variation distance after deleting the token. "
             "Ours: mean over every test example with its 95% bootstrap interval; leave-one-out replaces the "
             "token by `<unk>`.", "", "| " + " | ".join(head) + " |", "|---" * len(head) + "|"]
    lines += ["| " + " | ".join(r[h] for h in head) + " |" for r in rows]
    return lines


def block(directory: Path = ROOT / "pretrained") -> str:
    results = _results(directory)
    if not results.measured:
        return "No stored faithfulness results; run `python -m disan faithfulness --all --write`."
    parts = table(results) + [""] + answers(results) + [""] + [" ".join(summary(results))] + [""] + published(results)
    missing = list(results.missing)
    if missing:
        parts += ["", f"Not measured: {', '.join(f'`{n}`' for n in missing)} (no results file)."]
    stale = [m.name for m in results.measured if m.stale]
    if stale:
        parts += ["", f"**Stale:** {', '.join(stale)} changed since their results were computed; run "
                      "`python -m disan faithfulness --all --write --stale-only`."]
    return "\n".join(parts)


def main(argv: list[str] | None = None) -> int:
    return readme_block_main(argv, __doc__.splitlines()[0], block(), DOC, START, END,
                             "faithfulness table (from pretrained/*.faithfulness.json)", "python scripts/faithfulness_table.py --docs")


if __name__ == "__main__":
    from disan.errors import run_script

    run_script(main)
