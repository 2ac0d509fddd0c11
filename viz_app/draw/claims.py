"""What each case-study figure claims, measured on our model's trace (no hard-coded verdicts).

Each function returns a ``Verdict``: the numbers behind it, whether the
model shows the paper's claim on this one sentence, and the id of the
corpus-level claim (``disan.claims``) the Evidence view measures over a whole
test set. Word classes and thresholds come from ``disan.wordclass`` and
``disan.claims``, so one sentence and the corpus are judged alike.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from disan.claims import DIFFERENT_R, HEADS_DIFFER_TV, IM_GATE_WORDS, SIMILAR_R
from disan.wordclass import CONTENT, STOP, word_class

from viz_app.draw.verdicts import SENTENCE_READINGS
from viz_app.draw.reduce import head_divergence, pearson, received_attention, uniform_distance

#: Two group means closer than this fraction of their mean are too close to call on one sentence.
MIN_RELATIVE_GAP = 0.05


@dataclass(frozen=True)
class Verdict:
    """``shown``: True / False, or None when the data cannot decide (e.g. no stop words)."""

    claim: str
    evidence: str
    shown: bool | None
    claim_id: str | None = None

    @property
    def label(self) -> str:
        """One sentence's reading, in words that say so (``verdicts.SENTENCE_READINGS``; the test set's verdict
        has Evidence's words)."""
        return SENTENCE_READINGS[self.shown]


def class_mask(tokens: Sequence[str], name: str) -> np.ndarray:
    """(T,) bool: tokens of word class ``name`` (``disan.wordclass``: stop, punct, content)."""
    return np.array([word_class(t) == name for t in tokens], dtype=bool)


def _group_means(values: np.ndarray, tokens: Sequence[str], first: np.ndarray | None = None) -> tuple[float, float]:
    """(mean over content words, mean over stop words — or over ``first``); NaN for an empty group."""
    stop = class_mask(tokens, STOP) if first is None else first
    values = np.asarray(values, float)
    content = values[class_mask(tokens, CONTENT) & np.isfinite(values)]
    stops = values[stop & np.isfinite(values)]
    return (
        float(content.mean()) if content.size else float("nan"),
        float(stops.mean()) if stops.size else float("nan"),
    )


def _compare(a: float, b: float, a_larger: bool) -> bool | None:
    """Is ``a`` clearly larger (or smaller) than ``b``? A gap under ``MIN_RELATIVE_GAP`` cannot tell (None): it was
    "not shown", so the sentence with a test set's strongest effect, a small one, read as against the claim."""
    if not (np.isfinite(a) and np.isfinite(b)):
        return None
    scale = (abs(a) + abs(b)) / 2
    if scale == 0 or abs(a - b) < MIN_RELATIVE_GAP * scale:
        return None
    return a > b if a_larger else a < b


def content_attention(blocks: Sequence[tuple[np.ndarray, np.ndarray]], tokens: Sequence[str]) -> Verdict:
    """Shen Fig. 6: content words get large attention, stop words do not.

    blocks: (probs, allowed) per direction; attention received is relative to uniform (1 = uniform).
    """
    received = np.nanmean([received_attention(p, a) for p, a in blocks], axis=0)
    content, stops = _group_means(received, tokens)
    return Verdict(
        "semantically important words (nouns, verbs) get large attention; stop words do not",
        f"attention received relative to uniform: content words {content:.2f}, stop words {stops:.2f}"
        f" (a gap under {MIN_RELATIVE_GAP:.0%} of the means is too small to call on one sentence)",
        _compare(content, stops, a_larger=True),
        "shen6-content-attention",
    )


def gate_by_word_type(gate: np.ndarray, tokens: Sequence[str], stop_words_small: bool, who: str) -> Verdict:
    """Shen Fig. 7 (stop words get SMALL gates) or Im Fig. 9 ('of' and '.' get LARGE gates).

    gate: (T,) fusion gate averaged over features (Shen Eq. 19 / Im Eq. 12); both
    papers' F weights the input side, so the two claims are opposite.
    """
    if stop_words_small:
        content, stops = _group_means(gate, tokens)
        claim = f"{who}: the gate F is small for stop words (they take context from the attention output)"
        group = "stop words"
    else:
        named = np.array([t.lower() in IM_GATE_WORDS for t in tokens], dtype=bool)
        content, stops = _group_means(gate, tokens, named)
        claim = f"{who}: unimportant words ('of', '.') get large gates, keywords small ones"
        group = "'of' and '.'"
    return Verdict(
        claim,
        f"mean gate: content words {content:.3f}, {group} {stops:.3f}"
        f" (a gap under {MIN_RELATIVE_GAP:.0%} of the means is too small to call on one sentence)",
        _compare(stops, content, a_larger=not stop_words_small),
        "shen7-gate-stop-words" if stop_words_small else "im9-gate-of-period",
    )


def locality(probs: np.ndarray, allowed: np.ndarray, mean_distance: float) -> Verdict:
    """Im Fig. 7: attention is heavier on nearby words than on distant ones."""
    uniform = uniform_distance(allowed)
    return Verdict(
        "attention weights are heavier on nearby words than on distant ones",
        f"mean attention distance {mean_distance:.2f} tokens vs {uniform:.2f} under uniform attention",
        mean_distance < uniform if uniform > 0 else None,
        "im7-locality",
    )


def top_received(probs: np.ndarray, allowed: np.ndarray, tokens: Sequence[str]) -> str:
    """The token that receives the most attention relative to uniform."""
    received = received_attention(probs, allowed)
    if not np.isfinite(received).any():
        return "—"
    return tokens[int(np.nanargmax(received))]


def distance_effect(with_mask: dict, without_mask: dict) -> Verdict:
    """Im Fig. 8: without the distance mask, attention spreads over distant words and gets noisier.

    with_mask / without_mask: ``disan.stats.summarize`` dicts (mean_distance, entropy).
    """
    shown = (
        with_mask["mean_distance"] < without_mask["mean_distance"] and with_mask["entropy"] < without_mask["entropy"]
    )
    return Verdict(
        "without the distance mask very distant words are attended and the weights are spread thin (noisier)",
        (
            f"mean attention distance {without_mask['mean_distance']:.2f} without vs "
            f"{with_mask['mean_distance']:.2f} with; "
            f"entropy {without_mask['entropy']:.2f} vs {with_mask['entropy']:.2f} nats"
        ),
        shown,
        "im8-distance-spread",
    )


def ffn_keywords(deactivation: np.ndarray, ln_max: np.ndarray, tokens: Sequence[str]) -> Verdict:
    """Im Fig. 10: keywords have a high FFN deactivation ratio and a high max output value."""
    d_content, d_stop = _group_means(deactivation, tokens)
    m_content, m_stop = _group_means(ln_max, tokens)
    a, b = _compare(d_content, d_stop, True), _compare(m_content, m_stop, True)
    return Verdict(
        "keywords have a high deactivation ratio (a) and a high max value (b); unimportant words low ones",
        (
            f"deactivation: content {d_content:.3f} vs stop {d_stop:.3f}; "
            f"max value: content {m_content:.3f} vs stop {m_stop:.3f}"
        ),
        None if a is None or b is None else a and b,
        "im10-deactivation",
    )


def pooling_agreement(s2t_mean: np.ndarray, maxpool_share: np.ndarray) -> Verdict:
    """Im Fig. 11: multi-dimensional attention (a) and max pooling (b) pick similar words."""
    r = pearson(s2t_mean, maxpool_share)
    return Verdict(
        "multi-dimensional attention and max pooling concentrate on the same key words",
        f"Pearson r between (a) and (b) over tokens = {r:.3f} (similar if > {SIMILAR_R})",
        None if not np.isfinite(r) else r > SIMILAR_R,
        "im11-pooling-agreement",
    )


def heads_differ(heads: np.ndarray, allowed: np.ndarray, direction: str) -> Verdict:
    """Im Figs. 12–13: each head attends differently."""
    tv = head_divergence(heads, allowed)
    return Verdict(
        f"the {direction} heads' attention weights differ from head to head",
        f"mean pairwise total-variation distance between heads = {tv:.3f}"
        f" (0 = identical, 1 = disjoint; differ if > {HEADS_DIFFER_TV})",
        tv > HEADS_DIFFER_TV,
        "im13-backward-heads" if direction.startswith("b") else "im12-forward-heads",
    )


def context_vectors_differ(a: np.ndarray, b: np.ndarray, word: str) -> Verdict:
    """Shen Fig. 8: the same word gets very different source2token vectors in different contexts."""
    r = pearson(a, b)
    return Verdict(
        f"the source2token vectors of '{word}' in the two sentences are very different",
        f"Pearson r between the two vectors = {r:.3f} (different if < {DIFFERENT_R})",  # .2f printed 0.899 as 0.90
        None if not np.isfinite(r) else r < DIFFERENT_R,
        "shen8-context-vectors",
    )
