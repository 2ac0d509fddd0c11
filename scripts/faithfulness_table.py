"""The faithfulness table and one-line answers of docs/attention-as-explanation.md, from the stored results pretrained/*.faithfulness.json.

Usage:
    python scripts/faithfulness_table.py            # print the block
    python scripts/faithfulness_table.py --docs     # write it into docs/attention-as-explanation.md between the markers
    python scripts/faithfulness_table.py --check    # exit 1 when that page differs from the stored results

Every number comes from a results file made by `python -m disan faithfulness --all --write`.
"""

from __future__ import annotations

import itertools
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))  # run as a plain script from a clean clone

from disan.attribution.corpus import ATTRIBUTIONS, RANKINGS  # noqa: E402
from disan.output import readme_block_main  # noqa: E402
from viz_app.shell.faithfulness_results import naopc_examples  # noqa: E402

DOC = ROOT / "docs" / "attention-as-explanation.md"
START, END = "<!-- faithfulness-table:start -->", "<!-- faithfulness-table:end -->"
SHORT = {"attention": "attention", "pooling": "DSA pooling", "integrated_gradients": "IG", "rollout": "rollout",
         "attention_flow": "flow", "random": "random", "grad_input": "grad × input", "leave_one_out": "leave-one-out",
         "lrp": "LRP"}
NOT_COMPUTED = "not computed"
#: How a verdict on "attention − random comprehensiveness > 0" reads in the summary.
BEATS = {"supported": "yes", "inconclusive": "inconclusive (the interval contains 0)",
         "contradicted": "no, less than random"}

#: What a migrated file lacks, by the schema it was measured with (``disan/attribution/stored.py``).
MIGRATED = {
    1: "attention flow, the agreement intervals, the like-for-like Jain & Wallace row, the DSA's pooling series, "
       "ERASER's AOPC and the normalised AOPC (gated rollout was then called flow)",
    2: "the normalised AOPC (NAOPC, Edin et al. 2024) and the AOPC over every masking step it normalises",
}


def _results(directory: Path):
    from viz_app.shell.faithfulness_results import read_all

    return read_all(directory)


def _ci(v: dict, f: str = "{:+.2f}") -> str:
    return f"{f.format(v['value'])} [{f.format(v['ci95'][0])}, {f.format(v['ci95'][1])}]"


def _cell(v: dict | None, f: str = "{:+.2f}") -> str:
    return NOT_COMPUTED if v is None else _ci(v, f)


def _row(cells: list[str]) -> str:
    return "| " + " | ".join(cells) + " |"


def table(results) -> list[str]:
    """Agreement: per model, attention's τ with each attribution beside the attributions' τ with each other."""
    pairs = list(itertools.combinations(ATTRIBUTIONS, 2))
    head = ["model", "examples (of the test set)", "IG steps, mean \\|delta\\|"]
    head += [f"τ attention ~ {SHORT[m]}" for m in ATTRIBUTIONS]
    head += [f"τ {SHORT[a]} ~ {SHORT[b]}" for a, b in pairs]
    head += ["mean τ: attention ~ attributions / attributions with each other", "difference (verdict)",
             "τ attention ~ rollout / flow", "mean τ: DSA pooling ~ attributions", "time (s)"]
    lines = [_row(head), "|---" * len(head) + "|"]
    for m in results.measured:
        d = m.data
        n = f"{d['n']:,} of {d['n_examples']:,}" + ("" if d["complete"] else " (random sample)")
        ig = d["integrated_gradients"]
        cells = [f"`{m.name}`" + (" (stale)" if m.stale else ""), n, f"{ig['steps']}, {ig['mean_abs_delta']:.1e}"]
        cells += [_ci(m.tau("attention", meth)) for meth in ATTRIBUTIONS]
        cells += [_ci(m.tau(a, b)) for a, b in pairs]
        agreement = d.get("agreement")
        if agreement:
            diff = agreement["attention_minus_attributions"]
            cells += [f"{_ci(agreement['attention'])} / {_ci(agreement['attributions'])}",
                      f"{_ci(diff)} ({diff['verdict']})"]
        else:
            cells += [NOT_COMPUTED] * 2
        cells.append(" / ".join(_cell(m.tau("attention", r)) for r in ("rollout", "attention_flow")))
        dsa = not d["rollout"]["exact"]  # the DSA's rollout is the approximate one
        cells.append(_cell((agreement or {}).get("pooling")) if dsa else "–")
        cells.append(f"{d['seconds']:,.0f}")
        lines.append(_row(cells))
    return lines


def eraser_table(results) -> list[str]:
    """ERASER per model and ranking: ours (mean over 10/20/50%), ERASER's AOPC ({1,5,10,20,50}%, ÷ 6) and the
    normalised AOPC (Edin et al. 2024; – in a file measured before schema 3)."""
    head = ["model", "ranking", "comprehensiveness, ours", "comprehensiveness, ERASER AOPC", "comprehensiveness, NAOPC",
            "sufficiency, ours", "sufficiency, ERASER AOPC", "sufficiency, NAOPC"]
    lines = [_row(head), "|---" * len(head) + "|"]
    for m in results.measured:
        d = m.data
        for r in RANKINGS:
            if r not in d["aopc"]["comprehensiveness"]:
                continue
            cells = [f"`{m.name}`", SHORT[r]]
            for kind in ("comprehensiveness", "sufficiency"):
                cells.append(_ci(d["aopc"][kind][r], "{:.3f}"))
                cells.append(_cell(((d.get("aopc_eraser") or {}).get(kind) or {}).get(r), "{:.3f}"))
                cells.append(_cell(((d.get("naopc") or {}).get(kind) or {}).get(r), "{:.3f}"))
            lines.append(_row(cells))
        diff = d["attention_minus_random"]
        lines.append(_row([f"`{m.name}`", "attention − random", f"{_ci(diff, '{:+.3f}')} ({diff['verdict']})",
                           "", "", "", "", ""]))
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
    from disan.attribution.corpus import band

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
    lines = ["**Summary.** Signed mean Kendall τ of attention with gradient × input, IG and leave-one-out: "
             + "; ".join(f"{name} for {len(v)} of {total} ({', '.join(v)})" for name, v in bands.items())
             + ". Deleting the most-attended tokens lowers the predicted class's probability (a relatedness model's "
             "score) more than deleting "
             "random ones: "
             + "; ".join(f"{BEATS[verdict]} for {len(v)} of {total}" for verdict, v in beats.items()) + "."]
    if ig_vs_attention:
        lines.append(f"Deleting the tokens IG ranks first lowers it more still (intervals apart) for {len(ig_vs_attention)} "
                     f"of {total} ({', '.join(ig_vs_attention)}).")
    against: dict[str, list[str]] = {}
    for m in results.measured:
        agreement = m.data.get("agreement")
        if agreement:
            d = agreement["attention_minus_attributions"]
            against.setdefault(d["verdict"], []).append(f"`{m.name}` ({d['value']:+.2f})")
    if against:
        how = {"supported": "more than", "contradicted": "less than", "inconclusive": "inconclusive against"}
        lines.append("Against the baseline (the attributions' mean τ with each other), attention agrees with the "
                     "attributions " + "; ".join(f"{how[v]} they agree with each other for {len(names)} "
                                                  f"({', '.join(names)})" for v, names in against.items())
                     + f" of the {sum(map(len, against.values()))} models whose files hold the paired difference.")
    return lines


def published(results) -> list[str]:
    """Jain & Wallace's Table 2 (SST and SNLI, BiLSTM) with our models on the same tasks (viz_app/draw/published.py)."""
    from viz_app.draw.published import CAPTION, comparison_rows

    rows = comparison_rows(results.measured)
    head = list(rows[0])
    lines = ["**Beside Jain & Wallace 2019, Table 2.** " + CAPTION.replace("<unk>", "`<unk>`"), "",
             "| " + " | ".join(head) + " |", "|---" * len(head) + "|"]
    lines += ["| " + " | ".join(r[h] for h in head) + " |" for r in rows]
    return lines


#: Written by the command in ``approximation``'s caption (disan/attribution/approximation.py).
APPROXIMATION = ROOT / "docs" / "rollout-approximation.jsonl"


def approximation(path: Path = APPROXIMATION) -> list[str]:
    """Gated rollout against the erasure reference (weights replayed), per model, from the stored JSON lines."""
    import json

    if not path.is_file():
        return []
    rows = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
    lines = ["**Gated rollout against an exact reference.** Each token's token-local vectors erased with every "
             "attention weight, gate and max-pool winner of the full input replayed; p_i = token i's mean share of "
             "|s[k] − s[k] without it| (`disan/attribution/approximation.py`; `for m in disan-sst5 disan-nli "
             "dsa-sst5 dsa-sst5-nodist dsa-nli dsa-nli-nodist; do python -m disan.attribution.approximation --model $m --limit "
             "100; done > docs/rollout-approximation.jsonl`). Distance: total variation ½Σ\\|p̂ − p\\| (0 = the "
             "same split); τ between the rankings; mean over the sample's sentences [95% interval]. DiSAN's vector "
             "shares are exact, so its mixing-share row is the cost of reading weights as parts of the vector; "
             "the DSA's mixing-share row adds its approximation (head average, LayerNorm and FFN passing shares "
             "through, biases).", "",
             "| model | sample | rollout exact | mixing shares: distance | mixing shares: τ | vector shares: distance "
             "| vector shares: τ |", "|---" * 7 + "|"]
    for r in rows:
        vec = r.get("vector")
        cells = [f"`{r['model']}`", r["sample"].split(" (")[0], "yes" if r["rollout_exact"] else "no",
                 _ci(r["mixing"]["total_variation"], "{:.3f}"), _ci(r["mixing"]["kendall_tau"]),
                 _ci(vec["total_variation"], "{:.1e}") if vec else "–", _ci(vec["kendall_tau"]) if vec else "–"]
        lines.append(_row(cells))
    return lines


def block(directory: Path = ROOT / "pretrained") -> str:
    results = _results(directory)
    if not results.measured:
        return "No stored faithfulness results; run `python -m disan faithfulness --all --write`."
    parts = (["**Agreement.** Kendall τ-b per test example (an NLI pair: the mean of its two sentences), mean "
              "over examples with its 95% bootstrap interval. The attributions' τ with each other is the baseline "
              "attention's τ is read against."] + [""] + table(results)
             + ["", "**Erasure (ERASER).** Comprehensiveness: the drop in the predicted class's probability (a "
                "relatedness model, SICK: in its predicted score ŷ on the 1–5 scale) when "
                "the ranking's top k% of tokens are deleted; sufficiency: the drop when only they are kept. Ours: "
                "the mean over k = 10, 20, 50%; ERASER's AOPC: the sum over k = 1, 5, 10, 20, 50% divided by 6; "
                "NAOPC: Edin et al.'s (2024) AOPC over every masking step, put per example between the worst (0) "
                "and the best (1) ordering of its tokens, over a seeded sample of at most 1,000 of the examples "
                "(`--naopc-limit`; every other column uses them all): " + naopc_examples(results.measured) + "."]
             + [""] + eraser_table(results) + [""] + answers(results) + [""] + [" ".join(summary(results))] + [""]
             + published(results))
    extra = approximation()
    if extra:
        parts += [""] + extra
    for version, what in MIGRATED.items():
        migrated = [m.name for m in results.measured
                    if m.data.get("not_computed") and m.data.get("migrated_from") == version]
        if migrated:
            were = "was" if len(migrated) == 1 else "were"
            parts += ["", f"**Not computed:** {', '.join(f'`{n}`' for n in migrated)} {were} measured with schema "
                          f"{version} and migrated; {what} need `python -m disan faithfulness --model NAME --write`."]
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
