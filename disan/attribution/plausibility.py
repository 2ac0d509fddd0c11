"""Plausibility: does a token ranking put first the words people labelled as carrying sentiment? (SST's trees)

The Stanford Sentiment Treebank labels every node of every tree, leaves included, 0–4 (very negative … very
positive). That is a human judgement of which words carry sentiment, separate from faithfulness (whether a
ranking reflects what the *model* uses): a ranking can be plausible and unfaithful, or the reverse. Two
references per sentence, each a set of its tokens:

* ``word``: the tokens whose own leaf label is not neutral (≠ 2);
* ``phrase``: the tokens whose lowest non-neutral node below the root (the leaf itself, else the nearest
  enclosing phrase) has the sentence's polarity (both below 2, or both above). A neutral sentence has no
  polarity and no ``phrase`` reference.

Per sentence and reference: the average precision (AUPRC) of the ranking (highest score first; ties: the
earlier token first) and its precision at k = the reference's size (R-precision), beside their chance levels
(the share of positive tokens, the AUPRC and precision of a random ranking in expectation). A sentence with no
positive token, or only positive tokens, has neither (NaN). Signed attributions rank by magnitude.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import torch

from tqdm import tqdm

from ..data.lines import _text_lines
from ..data.paths import _resolve_root, require_file
from ..data.sst import SST_NEUTRAL
from ..stats import bootstrap_ci
from ..vocab import tokenize
from .corpus import SEED, batches, sample
from .forward import ClassProbability
from .gradient import IG_STEPS
from .randomisation import explain
from .sentence import methods_for

_PTB_TOKEN = re.compile(r"\(|\)|[^\s()]+")


@dataclass(frozen=True)
class Node:
    """A labelled node over tokens [start, end) of its sentence; depth 0 is the root."""

    label: int
    start: int
    end: int
    depth: int
    leaf: bool


def tree_nodes(line: str) -> tuple[list[str], list[Node]]:
    """The tokens of one SST tree and its nodes in pre-order (a leaf holds words; a node holds one kind only)."""
    parts = _PTB_TOKEN.findall(line)
    tokens: list[str] = []
    nodes: list[Node] = []
    stack: list[tuple[int, int, int]] = []  # (label, start, index in nodes)
    i = 0
    while i < len(parts):
        part = parts[i]
        if part == "(":
            if i + 1 >= len(parts) or not parts[i + 1].isdigit():
                raise ValueError(f"'(' at part {i} is not followed by an integer label")
            nodes.append(Node(int(parts[i + 1]), len(tokens), len(tokens), len(stack), True))
            stack.append((int(parts[i + 1]), len(tokens), len(nodes) - 1))
            i += 2
            continue
        if part == ")":
            if not stack:
                raise ValueError("unbalanced ')'")
            label, start, index = stack.pop()
            has_child = index + 1 < len(nodes) and nodes[index + 1].depth == nodes[index].depth + 1
            nodes[index] = Node(label, start, len(tokens), nodes[index].depth, not has_child)
        elif not stack:
            raise ValueError(f"word {part!r} outside any node")
        else:
            tokens.append(part)
        i += 1
    if stack or not nodes:
        raise ValueError("an unclosed '(' or no tree on this line")
    return tokens, nodes


def references(line: str) -> tuple[list[str], dict[str, np.ndarray | None]]:
    """The tree's tokens and its references: ``word`` and ``phrase`` (module docstring), (n,) bool each, or
    None (``phrase`` of a neutral sentence)."""
    tokens, nodes = tree_nodes(line)
    n = len(tokens)
    leaf_label = np.full(n, SST_NEUTRAL)
    lowest = np.full(n, SST_NEUTRAL)  # the label of the lowest non-neutral node below the root over each token
    depth = np.full(n, -1)
    for node in nodes:
        if node.leaf:
            leaf_label[node.start:node.end] = node.label
        if node.depth == 0 or node.label == SST_NEUTRAL:
            continue
        span = slice(node.start, node.end)
        deeper = depth[span] < node.depth
        lowest[span] = np.where(deeper, node.label, lowest[span])
        depth[span] = np.where(deeper, node.depth, depth[span])
    root = nodes[0].label
    phrase = None
    if root != SST_NEUTRAL:
        phrase = (depth >= 0) & (np.sign(lowest - SST_NEUTRAL) == np.sign(root - SST_NEUTRAL))
    return tokens, {"word": leaf_label != SST_NEUTRAL, "phrase": phrase}


def _order(scores: np.ndarray) -> np.ndarray:
    return np.argsort(-np.asarray(scores, dtype=np.float64), kind="stable")


def average_precision(scores, positives) -> float:
    """AUPRC as average precision: the mean over positive tokens of the precision at its rank; NaN when the
    tokens are all positive or all negative."""
    pos = np.asarray(positives, dtype=bool)
    if pos.all() or not pos.any():
        return float("nan")
    hits = pos[_order(scores)]
    precision = np.cumsum(hits) / np.arange(1, hits.size + 1)
    return float(precision[hits].mean())


def precision_at_r(scores, positives) -> float:
    """Precision among the top R tokens, R = the number of positive tokens; NaN as ``average_precision``."""
    pos = np.asarray(positives, dtype=bool)
    if pos.all() or not pos.any():
        return float("nan")
    r = int(pos.sum())
    return float(pos[_order(scores)[:r]].mean())


def sentence_plausibility(scores, positives, signed: bool) -> dict[str, float]:
    """AUPRC, precision at R and the chance level (the positives' share) of one sentence's ranking."""
    s = np.abs(scores) if signed else np.asarray(scores)
    pos = np.asarray(positives, dtype=bool)
    chance = float(pos.mean()) if 0 < pos.sum() < pos.size else float("nan")
    return {"auprc": average_precision(s, pos), "precision_at_r": precision_at_r(s, pos), "chance": chance}


def summarize(rows: list[dict[str, float]]) -> dict:
    """Means over sentences with 95% bootstrap intervals (``stats.bootstrap_ci``), per measure."""
    out = {}
    for key in ("auprc", "precision_at_r", "chance"):
        values = np.array([r[key] for r in rows], dtype=float)
        values = values[np.isfinite(values)]
        lo, hi = bootstrap_ci(values)
        out[key] = {"value": float(values.mean()) if values.size else float("nan"), "ci95": [lo, hi],
                    "n": int(values.size)}
    return out


def tree_lines(split: str = "test", data_dir=None) -> list[str]:
    """The non-empty lines of SST's ``sst/trees/{split}.txt`` (a clear error naming the file when it is missing)."""
    path = require_file(_resolve_root(data_dir) / "sst" / "trees" / f"{split}.txt", "sst")
    return [line for line in _text_lines(path) if line.strip()]


def run(model, lines: list[str], limit: int | None = None, steps: int | None = None, progress: bool = False) -> dict:
    """Plausibility of every token series (``sentence.methods_for`` and LRP) of ``model``'s predicted class on a
    seeded sample (``corpus.sample``) of SST trees: per reference and method, AUPRC and precision at R with
    intervals, and their chance level. A tree whose words the model's tokenizer splits differently is skipped and
    counted (``skipped``)."""
    model.eval()
    steps = steps or IG_STEPS[model.cfg.arch]
    ids = sample(len(lines), limit)
    items, skipped = [], 0
    for i in ids:
        words, refs = references(lines[i])
        tokens = tokenize(" ".join(words))
        if len(tokens) != len(words) or len(tokens) > model.cfg.max_tokens:
            skipped += 1
            continue
        items.append((tuple(tokens), refs))
    alpha = None if model.cfg.arch == "disan" else float(model.encoder.alpha)
    fn = ClassProbability(model, tuple(model.cfg.masks), alpha)
    methods = methods_for(model.cfg.arch)
    rows: dict[tuple[str, str], list[dict[str, float]]] = {(r, m): [] for r in ("word", "phrase") for m in methods}
    for batch in tqdm(batches([(t,) for t, _ in items], model.cfg, steps), desc=f"{model.name}: plausibility",
                      disable=not progress):
        emb = fn.embed([[list(items[i][0]) for i in batch]])
        with torch.no_grad():
            target = fn.outputs(emb.xs, emb.valids).argmax(-1)  # (B,) the predicted class
        series = explain(model, fn, emb, target, steps)  # signed series already by magnitude
        for m in methods:
            for e, i in enumerate(batch):
                for ref, positives in items[i][1].items():
                    if positives is not None:
                        rows[(ref, m)].append(sentence_plausibility(series[m][0][e][0], positives, signed=False))
    return {"model": model.name, "n_trees": len(lines), "n": len(ids), "skipped": skipped, "sample_seed": SEED,
            "references": {ref: {m: summarize(rows[(ref, m)]) for m in methods} for ref in ("word", "phrase")}}


def plausibility_path(name: str, directory: Path) -> Path:
    """Where ``disan plausibility --write`` stores a model's result (beside its checkpoint; the Evidence view reads
    it)."""
    return Path(directory) / f"{name}.plausibility.json"


def table(result: dict) -> str:
    """The result as aligned text lines."""
    lines = [f"{result['model']}: {result['n'] - result['skipped']:,} of {result['n_trees']:,} SST trees (sample seed "
             f"{result['sample_seed']}; {result['skipped']} skipped: tokenized differently)"]
    for ref, by_method in result["references"].items():
        for m, v in by_method.items():
            a, p, c = v["auprc"], v["precision_at_r"], v["chance"]
            lines.append(f"  {ref:<7}{m:<21} AUPRC {a['value']:.3f} [{a['ci95'][0]:.3f}, {a['ci95'][1]:.3f}]  "
                         f"P@R {p['value']:.3f} [{p['ci95'][0]:.3f}, {p['ci95'][1]:.3f}]  chance {c['value']:.3f}  "
                         f"n={a['n']}")
    return "\n".join(lines)
