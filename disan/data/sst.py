"""Stanford Sentiment Treebank: PTB trees (phrases, balancing) and sentence files."""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, replace
from functools import partial

from .example import Example, StrPath, _check_choice
from .labels import SST2_LABELS, SST5_LABELS
from .lines import _collect, _load_labelled, _text_lines
from .paths import _resolve_root, require_file

#: Sentences in the official SST train split. Some public copies of ``train.txt``
#: (e.g. munikarmanish/RNTN) hold train followed by dev; only these lines are train.
SST_TRAIN_SENTENCES = 8544
SST_NEUTRAL = 2
#: Copies of each non-neutral phrase / whole sentence under ``balance=True``:
#: the original plus 3 extra, as in the DiSAN release (SST_disan/src/dataset.py,
#: ``add_data_list += [sample] * 3`` then ``nn_data_list += add_data_list``).
BALANCE_COPIES = 4

_PTB_TOKEN = re.compile(r"\(|\)|[^\s()]+")


@dataclass
class _OpenNode:
    """A tree node whose closing parenthesis has not been read yet."""

    index: int
    words: int = 0
    children: int = 0


def _ptb_label(tokens: list[str], position: int) -> int:
    """The integer label that must follow the ``(`` at ``tokens[position - 1]``."""
    if position >= len(tokens) or tokens[position] in ("(", ")"):
        raise ValueError(f"'(' at token {position} is not followed by a label")
    try:
        return int(tokens[position])
    except ValueError:
        raise ValueError(f"node label {tokens[position]!r} is not an integer") from None


def _close_node(nodes: list[tuple[int, list[str]]], stack: list[_OpenNode]) -> None:
    """Pop the innermost open node and add its span to its parent."""
    if not stack:
        raise ValueError("unbalanced ')': no open node")
    node = stack.pop()
    if node.words + node.children == 0:
        raise ValueError("node has neither a word nor children")
    if node.words and node.children:
        raise ValueError(f"node over {nodes[node.index][1]} mixes words and child nodes")
    if stack:
        nodes[stack[-1].index][1].extend(nodes[node.index][1])
        stack[-1].children += 1


def parse_ptb_tree(line: str) -> list[tuple[int, list[str]]]:
    """Parse one SST tree, e.g. ``(3 (2 It) (4 (2 's) (3 good)))``.

    Returns every labelled node as ``(label, tokens of its span)`` in pre-order,
    the root first. A node holds either child nodes or words (usually one; the
    real treebank has a few multi-word leaves such as ``(2 8 1\\/2)``). Words are
    runs of characters other than whitespace and parentheses (``-LRB-``,
    ``\\/``, ``'s``, ``n't`` stay as they are). Raises ValueError on malformed input.
    """
    tokens = _PTB_TOKEN.findall(line)
    nodes: list[tuple[int, list[str]]] = []
    stack: list[_OpenNode] = []
    position = 0
    while position < len(tokens):
        token = tokens[position]
        if token == "(":
            if nodes and not stack:
                raise ValueError("text continues after the root node closed")
            nodes.append((_ptb_label(tokens, position + 1), []))
            stack.append(_OpenNode(len(nodes) - 1))
            position += 2
            continue
        if token == ")":
            _close_node(nodes, stack)
        elif not stack:
            raise ValueError(f"word {token!r} outside any node")
        else:
            nodes[stack[-1].index][1].append(token)
            stack[-1].words += 1
        position += 1
    if stack:
        raise ValueError(f"{len(stack)} unclosed '('")
    if not nodes:
        raise ValueError("no tree on this line")
    return nodes


def _parse_sst_tree(line: str, source: str, phrases: bool, copies: int) -> list[Example]:
    """Examples of one SST tree: the root only, or every node; balanced copies."""
    nodes = parse_ptb_tree(line)
    for label, _ in nodes:
        if not 0 <= label < len(SST5_LABELS):
            raise ValueError(f"label {label} is outside 0..{len(SST5_LABELS) - 1}")
    examples: list[Example] = []
    for position, (label, tokens) in enumerate(nodes if phrases else nodes[:1]):
        repeat = copies if position == 0 or label != SST_NEUTRAL else 1
        examples.extend([Example(" ".join(tokens), label, source=source)] * repeat)
    return examples


def load_sst_trees(split: str, data_dir: StrPath | None = None, phrases: bool = False,
                   balance: bool = False, on_error: str = "raise",
                   balance_copies: int = BALANCE_COPIES) -> list[Example]:
    """Load SST PTB trees from ``sst/trees/{split}.txt`` (labels index SST5_LABELS).

    ``phrases=False``: one Example per tree (the root, i.e. the whole sentence).
    ``phrases=True``: one Example per labelled node of every tree, root first,
    leaves included, duplicates across trees kept (DiSAN's ``only_sentence=False``).
    ``balance=True`` (needs ``phrases=True``): every whole sentence and every
    phrase whose label is not neutral (2) appears ``balance_copies`` times in a
    row (default 4 = original + 3 extra copies, as in the DiSAN release);
    neutral non-root phrases appear once.

    For ``train`` only the first :data:`SST_TRAIN_SENTENCES` (8,544) lines are
    read: some public copies append the dev trees to ``train.txt``.
    """
    _check_choice("split", split, ("train", "dev", "test"))
    if balance and not phrases:
        raise ValueError("balance=True repeats phrases and needs phrases=True")
    if balance_copies < 1:
        raise ValueError(f"balance_copies must be >= 1, got {balance_copies}")
    path = require_file(_resolve_root(data_dir) / "sst" / "trees" / f"{split}.txt", "sst")
    lines = _text_lines(path)
    if split == "train":
        lines = lines[:SST_TRAIN_SENTENCES]
    parse = partial(_parse_sst_tree, phrases=phrases, copies=balance_copies if balance else 1)
    return _collect(path, lines, parse, on_error)


def sst2_from_sst5(examples: Iterable[Example]) -> list[Example]:
    """Map SST-5 examples to SST-2: drop neutral (2), 0/1 -> 0, 3/4 -> 1."""
    return [replace(ex, label=int(ex.label > SST_NEUTRAL))
            for ex in examples if ex.label != SST_NEUTRAL]


def load_sst_sentences(split: str, fine: bool = True, data_dir: StrPath | None = None,
                       on_error: str = "raise") -> list[Example]:
    """Load ``sst/sentences/stsa.{fine,binary}.{split}`` (``label sentence`` lines).

    ``fine=True``: labels 0-4 (SST5_LABELS); ``fine=False``: labels 0-1 (SST2_LABELS).
    """
    _check_choice("split", split, ("train", "dev", "test"))
    kind, labels = ("fine", SST5_LABELS) if fine else ("binary", SST2_LABELS)
    path = require_file(_resolve_root(data_dir) / "sst" / "sentences" / f"stsa.{kind}.{split}", "sst")
    return _load_labelled(path, len(labels), on_error)
