"""Model-card sections for a model of several runs (``test_runs``, ``disan.seed_runs``): every run, and each
measure's mean, sd and 95% interval over the runs beside the paper's number for the same cell.

The paper's numbers come from ``disan.paper_tables.TABLES`` (Shen Tables 4 and 5), never typed twice.
"""

from __future__ import annotations

from .paper_tables import LABELS, TABLES
from .seed_runs import CLASSIFICATION, measure_stats

DEV_LABELS = {"best_dev_acc": "dev accuracy", "best_dev_pearson": "dev Pearson's r"}


def paper_cell(name: str, measure: str) -> str:
    """The paper's number for model ``name`` and ``measure``, as printed, with its table; '–' when not in it."""
    for table in TABLES:
        for cell in table.cells:
            if cell.model == name and cell.measure == measure:
                return f"{cell.paper} (Shen Table {table.number})"
    return "–"


def value_text(measure: str, value: float | None) -> str:
    if value is None:
        return "–"
    return f"{100 * value:.2f}%" if measure == "accuracy" else f"{value:.4f}"


def spread_text(measure: str, value: float | None) -> str:
    """An sd or interval end in the paper's unit: points for accuracy, the measure's own unit otherwise."""
    if value is None:
        return "–"
    return f"{100 * value:.2f}" if measure == "accuracy" else f"{value:.4f}"


def runs_table(block: dict) -> list[str]:
    unit, measures = block["unit"], block.get("measures", list(CLASSIFICATION))
    dev_field = next(f for f in DEV_LABELS if f in block["runs"][0])
    shipped = block["shipped"][unit]
    head = [unit, f"{DEV_LABELS[dev_field]} (picks)", *(f"test {LABELS[m]}" for m in measures),
            "best step / steps", "wall time", "hardware"]
    lines = ["| " + " | ".join(head) + " |", "|---" * len(head) + "|"]
    for r in block["runs"]:
        mark = " (shipped)" if r[unit] == shipped else ""
        dev = value_text("accuracy" if dev_field == "best_dev_acc" else "pearson_r", r[dev_field])
        tests = " | ".join(value_text(m, r[f"test_{m}"]) for m in measures)
        lines.append(f"| {r[unit]}{mark} | {dev} | {tests} | {r['best_step']:,} / {r['total_steps']:,} | "
                     f"{r['wall_time_s']} s | {r['hardware']} |")
    return lines


def summary_table(block: dict, name: str) -> list[str]:
    """Each measure over the runs: mean, sample sd, 95% percentile-bootstrap interval of the mean, the paper's."""
    n, unit = len(block["runs"]), block["unit"]
    lines = [f"| test measure over the {n} {unit}s | mean | sd | 95% interval of the mean | paper, mean (sd) |",
             "|---|---|---|---|---|"]
    for m in block.get("measures", list(CLASSIFICATION)):
        s = measure_stats(block[m])
        ci = "–" if s["ci95"] is None else f"[{spread_text(m, s['ci95'][0])}, {spread_text(m, s['ci95'][1])}]"
        lines.append(f"| {LABELS[m]} | {value_text(m, s['mean'])} | {spread_text(m, s['sd'])} | {ci} | "
                     f"{paper_cell(name, m)} |")
    return lines


def runs_lines(block: dict, name: str) -> list[str]:
    """The card's section for a multi-run model: its runs, the summary beside the paper, and which run ships."""
    unit = block["unit"]
    lines = ["", f"## The {len(block['runs'])} runs ({unit}s); this checkpoint is one of them", ""]
    lines += runs_table(block) + [""] + summary_table(block, name) + [""]
    lines += ["- sd is the sample standard deviation over the runs, as the paper's parentheses; the interval is a "
              "percentile bootstrap of the mean over the runs (`disan tables` shows the same)."]
    if block.get("paper", {}).get("note"):
        lines += [f"- Beside the paper: {block['paper']['note']}"]
    lines += [f"- Shipped: {block['shipped']['why']}."]
    if block.get("machine"):
        lines += [f"- Machine: {block['machine']}"]
    return lines
