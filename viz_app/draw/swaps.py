"""Word swaps ranked by their effect (issue 58, item 9): the app's twin of the explorer's ``Pair.swapEffects``.

A word of B swapped for each candidate word in turn, every swapped B run through the model in one batch
(``SentenceModel.predict``), and the candidates ranked by how much each moves B's prediction: the probability of
B's predicted class (a relatedness model: its score r^T p̂), largest |change| first, ties in the candidates' order.
No Streamlit here, so the ranking is tested on its own (tests/test_swaps.py).
"""

from __future__ import annotations

from dataclasses import dataclass

import disan


@dataclass(frozen=True)
class Swap:
    word: str
    change: float  # value after the swap − value before (probability of B's predicted class, or the score)
    label: str | None  # the predicted class after the swap (None for a relatedness model)
    flips: bool  # the predicted class changed


def _swapped(tokens: list[str], index: int, word: str) -> str:
    return " ".join(tokens[:index] + [word] + tokens[index + 1:])


def ranked_swaps(model, b: dict[str, str | None], side: str, index: int, candidates: list[str],
                 masks: str | None = None, alpha: float | None = None) -> list[Swap]:
    """``candidates`` swapped in for token ``index`` of B's ``side`` ("premise" or "hypothesis"), ranked."""
    tokens = disan.tokenize(b.get(side) or "")
    if not 0 <= index < len(tokens):
        raise ValueError(f"token #{index} is outside B's {len(tokens)} tokens; click a word of B again")
    overrides = {k: v for k, v in (("masks", masks), ("alpha", alpha)) if v is not None}

    def item(text_side: str | None = None, word: str | None = None):
        texts = {k: b.get(k) for k in ("premise", "hypothesis")}
        if word is not None:
            texts[text_side] = _swapped(tokens, index, word)
        return (texts["premise"], texts["hypothesis"]) if model.cfg.pair else texts["premise"]

    outs = model.predict([item()] + [item(side, w) for w in candidates], **overrides)
    if model.cfg.relatedness:
        base = float(outs[0])
        swaps = [Swap(w, float(o) - base, None, False) for w, o in zip(candidates, outs[1:])]
    else:
        before = max(outs[0], key=outs[0].get)  # dict order is the label order: max keeps the first of ties
        swaps = []
        for w, probs in zip(candidates, outs[1:]):
            after = max(probs, key=probs.get)
            swaps.append(Swap(w, probs[before] - outs[0][before], after, after != before))
    order = sorted(range(len(swaps)), key=lambda i: (-abs(swaps[i].change), i))
    return [swaps[i] for i in order]


def swap_text(swap: Swap) -> str:
    """A pill's text: the word, its signed change and, where the prediction flips, the new class."""
    flip = f" → {swap.label}" if swap.flips else ""
    return f"{swap.word} {swap.change:+.3f}{flip}"
