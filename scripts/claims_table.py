"""The verdict table and gate-claim paragraph of docs/evidence.md, from the stored results pretrained/*.claims.json.

Usage:
    python scripts/claims_table.py            # print the block
    python scripts/claims_table.py --docs     # write it into docs/evidence.md between the claims-table markers
    python scripts/claims_table.py --check    # exit 1 when docs/evidence.md differs from the stored results

Every number comes from a results file made by `python -m disan claims --all --write`.
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))  # run as a plain script from a clean clone

from disan.output import readme_block_main  # noqa: E402

DOC = ROOT / "docs" / "evidence.md"
START, END = "<!-- claims-table:start -->", "<!-- claims-table:end -->"
MARK = {"supported": "✓", "contradicted": "✗", "inconclusive": "?"}
#: Gate differences below this (on the 0–1 gate scale) are called small in the paragraph.
SMALL_GATE_GAP = 0.05


def _results(directory: Path):
    sys.path.insert(0, str(ROOT))
    from viz_app.shell.results import read_results

    return read_results(directory)


def table(results) -> list[str]:
    """Claims × models: verdict mark, value and 95% interval."""
    names = [s.label for s in results.stored]
    lines = ["| claim | " + " | ".join(f"`{n}`" for n in names) + " |", "|---" * (len(names) + 1) + "|"]
    for claim_id in results.claim_ids():
        first = results.with_claim(claim_id)[0][1]
        cells = []
        for s in results.stored:
            c = s.claim(claim_id)
            cells.append("" if c is None else
                         f"{MARK[c['verdict']]} {c['value']:+.3g} [{c['ci95'][0]:+.3g}, {c['ci95'][1]:+.3g}]")
        lines.append(f"| {first['figure']}: {first['claim']} (`{claim_id}`) | " + " | ".join(cells) + " |")
    return lines


def _by_verdict(results, claim_id: str) -> dict[str, list[str]]:
    out: dict[str, list[str]] = {"supported": [], "contradicted": [], "inconclusive": []}
    for s, c in results.with_claim(claim_id):
        out[c["verdict"]].append(f"`{s.name}` ({c['value']:+.4f})")
    return out


def _count_text(groups: dict[str, list[str]]) -> str:
    total = sum(len(v) for v in groups.values())
    parts = [f"{verdict} {'for' if verdict == 'inconclusive' else 'by'} {len(v)} of {total} ({', '.join(v)})"
             for verdict, v in groups.items() if v]
    return "; ".join(parts)


def paragraph(results) -> list[str]:
    """What the stored gate results say about Shen Fig. 7 against Im Fig. 9 (derived, not written by hand)."""
    shen = {s.name: c for s, c in results.with_claim("shen7-gate-stop-words")}
    im = {s.name: c for s, c in results.with_claim("im9-gate-of-period")}
    if not shen or not im:
        return ["No stored gate results yet."]
    lines = [
        "**The two papers' gate claims.** Both gates weight the input side (Shen Eq. 20: `F ⊙ h`; Im Eq. 12: "
        "`F ⊙ S^F`), so Shen Fig. 7 (stop words get *small* gates) and Im Fig. 9 ('of' and '.' get *large* "
        "gates) make opposite predictions about one quantity. Over whole test sets, with per-sentence "
        "differences bootstrapped over sentences:",
        "",
        f"- Shen Fig. 7 (stop words minus content words, < 0 supports it): {_count_text(_by_verdict(results, 'shen7-gate-stop-words'))}.",
        f"- Im Fig. 9 ('of' and '.' minus content words, > 0 supports it): {_count_text(_by_verdict(results, 'im9-gate-of-period'))}.",
    ]
    both = [n for n in shen if n in im and shen[n]["verdict"] == im[n]["verdict"] == "supported"]
    only_shen = [n for n in shen if shen[n]["verdict"] == "supported" and im.get(n, {}).get("verdict") != "supported"]
    only_im = [n for n in im if im[n]["verdict"] == "supported" and shen.get(n, {}).get("verdict") != "supported"]
    neither = [n for n in shen if n in im and "supported" not in (shen[n]["verdict"], im[n]["verdict"])]
    for names, text in (
        (only_shen, "side with Shen: stop words take more context from attention, and 'of'/'.' do not keep "
                    "more of their own representation than content words"),
        (only_im, "side with Im & Cho: 'of' and '.' keep more of their own representation, and stop words "
                  "as a whole do not get smaller gates"),
        (both, "show both at once: stop words as a whole get smaller gates, yet 'of' and '.' get larger ones, "
               "so the claims conflict only if 'of' and '.' stand for all stop words"),
        (neither, "support neither claim"),
    ):
        if names:
            verb = text if len(names) > 1 else text.replace("side with", "sides with", 1).replace(
                "show both", "shows both", 1).replace("support neither", "supports neither", 1)
            lines.append(f"- {', '.join(f'`{n}`' for n in names)} {verb}.")
    gaps = [abs(c["value"]) for c in list(shen.values()) + list(im.values())]
    size = (f"every difference is under {SMALL_GATE_GAP} on the 0–1 gate scale (largest {max(gaps):.3f}): "
            "detectable over thousands of sentences, yet small"
            if max(gaps) < SMALL_GATE_GAP else
            f"the largest difference is {max(gaps):.3f} on the 0–1 gate scale")
    lines += ["", f"Effect size: {size}."]
    stale = [s.name for s in results.stored if s.stale]
    if stale:
        lines += ["", f"**Stale:** {', '.join(stale)} changed since their results were computed; "
                      "run `python -m disan claims --all --write --stale-only`."]
    return lines


def block(directory: Path = ROOT / "pretrained") -> str:
    results = _results(directory)
    if not results.stored:
        return "No stored claim results; run `python -m disan claims --all --write`."
    return "\n".join(table(results) + [""] + paragraph(results))


def main(argv: list[str] | None = None) -> int:
    return readme_block_main(argv, __doc__.splitlines()[0], block(), DOC, START, END,
                             "claims table (from pretrained/*.claims.json)", "python scripts/claims_table.py --docs")


if __name__ == "__main__":
    from disan.errors import run_script

    run_script(main)
