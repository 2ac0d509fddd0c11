"""The papers' case-study claims as corpus statistics: what each claims, and how we measure it.

Each :class:`Claim` turns a batch of encoder traces into one value per
sentence (``per_sentence``) and, for the app's distributions, token values
grouped by word class (``tokens``). ``evidence.py`` runs them over a whole
test set, averages over sentences and bootstraps over sentences. A claim is
``supported`` when the 95% interval lies on its ``direction`` side of
``no_effect``, ``contradicted`` when it lies on the other side, else
``inconclusive`` (``stats.verdict``). Word classes come from ``wordclass.py``.

Both papers' fusion gates weight the *input* side: Shen Eq. 20
``u = F ⊙ h + (1 − F) ⊙ s`` (h: the block's input layer, s: attention output)
and Im Eq. 12 ``F ⊙ S^F + (1 − F) ⊙ H^F`` (S^F: the projected word
embedding, H^F: the projected multi-head output). A large F keeps the word's
own representation, a small F takes context from attention, so Shen Fig. 7
(stop words: small F) and Im Fig. 9 ('of', '.': large F) are opposite claims
about the same quantity.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import cached_property

import torch
from torch import Tensor

from . import measures
from .trace import DiSANTrace, EncoderTrace
from .wordclass import CONTENT, PUNCT, STOP, word_class

#: Im & Cho Sec. 5.2: α = 1.5. Im Fig. 8's "with" panels use it for a model trained without the mask.
PAPER_ALPHA = 1.5
#: Shen Fig. 8: two context vectors with Pearson r below this count as "very different".
DIFFERENT_R = 0.9
#: Im Fig. 11: pooling weights and max-pool shares with r above this count as "similar".
SIMILAR_R = 0.5
#: Im Figs. 12–13: mean pairwise total-variation distance above this counts as "heads differ".
HEADS_DIFFER_TV = 0.1
#: Shen Fig. 5: "DiSAN performs poorly when the sentence length ≥ 38".
SHEN_LONG = 38
#: Im Fig. 6: "the model without the distance mask deteriorates … average length exceeding 25".
IM_LONG = 25
#: Im Fig. 9 names these two tokens.
IM_GATE_WORDS = frozenset({"of", "."})

SENTENCE, CONTEXT, ACCURACY_BY_LENGTH, ABLATION = "sentence", "context", "accuracy_by_length", "ablation"


@dataclass(frozen=True)
class SentenceBatch:
    """A padded batch of sentences and their encoder trace (recorded at the model's own masks and α).

    tokens: per sentence, its tokens; trace: the encoder trace (B, T, …);
    alpha: the α the DSA trace was recorded with (None for DiSAN).
    """

    tokens: tuple[tuple[str, ...], ...]
    trace: EncoderTrace
    alpha: float | None

    @cached_property
    def classes(self) -> list[list[str]]:
        return [[word_class(t) for t in toks] for toks in self.tokens]

    def mask(self, keep: Callable[[str, str], bool]) -> Tensor:
        """(B, T) bool: tokens for which ``keep(token, class)`` holds."""
        T = self.trace.valid.shape[1]
        rows = [[keep(t, c) for t, c in zip(toks, cls)] + [False] * (T - len(toks))
                for toks, cls in zip(self.tokens, self.classes)]
        return torch.tensor(rows, dtype=torch.bool).reshape(len(rows), T)  # (B, T)

    def of_class(self, name: str) -> Tensor:
        return self.mask(lambda _t, c: c == name)

    @property
    def is_disan(self) -> bool:
        return isinstance(self.trace, DiSANTrace)

    def head_mean(self, direction: str) -> Tensor:
        """(B, T, T) attention averaged over features (DiSAN) or heads (DSA)."""
        block = getattr(self.trace, direction)
        return block.probs_mean if self.is_disan else block.probs.mean(1)


@dataclass(frozen=True)
class Claim:
    """One case-study claim and the statistic that tests it.

    direction: +1 when the claim says the value is above ``no_effect``, −1 below.
    archs: architectures the claim is measured on; tasks: None = every task.
    view: the app view (url path) that draws one sentence of it.
    per_sentence: batch → (B,) values (kind ``sentence``); tokens: batch →
    group name → token values, for the distribution plot.
    """

    id: str
    figure: str
    claim: str
    statistic: str
    no_effect: float
    direction: int
    archs: tuple[str, ...]
    view: str
    kind: str = SENTENCE
    tasks: tuple[str, ...] | None = None
    per_sentence: Callable[[SentenceBatch], Tensor] | None = None
    tokens: Callable[[SentenceBatch], dict[str, Tensor]] | None = None


def _both_directions(batch: SentenceBatch, fn: Callable[[str], Tensor]) -> Tensor:
    """Mean of a per-block measure over the forward and backward block, ignoring NaN."""
    return torch.stack([fn("fw"), fn("bw")]).nanmean(0)


def _received(batch: SentenceBatch) -> Tensor:
    """(B, T) attention received relative to uniform, both blocks averaged."""
    return _both_directions(
        batch, lambda d: measures.received_attention(batch.head_mean(d), getattr(batch.trace, d).allowed)
    )


def _by_class(values: Tensor, batch: SentenceBatch) -> dict[str, Tensor]:
    return {c: values[batch.of_class(c) & torch.isfinite(values)] for c in (CONTENT, STOP, PUNCT)}


def _gap(values: Tensor, first: Tensor, second: Tensor) -> Tensor:
    """(B,) mean of ``values`` over the ``first`` tokens minus over the ``second`` tokens."""
    return measures.group_mean(values, first) - measures.group_mean(values, second)


def _content_minus_stop(values_of: Callable[[SentenceBatch], Tensor]) -> Callable[[SentenceBatch], Tensor]:
    return lambda b: _gap(values_of(b), b.of_class(CONTENT), b.of_class(STOP))


def _gate(direction: str | None) -> Callable[[SentenceBatch], Tensor]:
    """(B, T) fusion gate averaged over features; ``None``: mean of both blocks (Shen Fig. 7 shows both)."""
    def values(b: SentenceBatch) -> Tensor:
        if direction is None:
            return (b.trace.fw.gate.mean(-1) + b.trace.bw.gate.mean(-1)) / 2
        return getattr(b.trace, direction).gate.mean(-1)

    return values


def _im_gate_groups(b: SentenceBatch) -> dict[str, Tensor]:
    g = _gate("fw")(b)
    named = b.mask(lambda t, _c: t.lower() in IM_GATE_WORDS)
    other_stop = b.of_class(STOP) & ~named
    return {"'of' and '.'": g[named], CONTENT: g[b.of_class(CONTENT)], "other stop words": g[other_stop]}


def _alpha_with(b: SentenceBatch) -> float:
    return b.alpha if b.alpha else PAPER_ALPHA


def _alpha_change(measure: Callable[[Tensor, Tensor], Tensor]) -> Callable[[SentenceBatch], Tensor]:
    """measure at α = 0 minus at the model's α (PAPER_ALPHA for a model trained with α = 0), same weights."""
    def values(b: SentenceBatch) -> Tensor:
        def one(d: str) -> Tensor:
            block = getattr(b.trace, d)
            without = measure(block.probs_at(0.0).mean(1), block.allowed)  # (B,) head-averaged
            with_ = measure(block.probs_at(_alpha_with(b)).mean(1), block.allowed)  # (B,)
            return without - with_
        return _both_directions(b, one)

    return values


def _heads(direction: str) -> Callable[[SentenceBatch], Tensor]:
    return lambda b: measures.head_divergence(getattr(b.trace, direction).probs, getattr(b.trace, direction).allowed)


def _pooling_r(b: SentenceBatch) -> Tensor:
    return measures.pearson_over_tokens(b.trace.s2t_probs.mean(-1), b.trace.maxpool_share, b.trace.valid)


_GATE_SIDE = ("F weights the input side in both papers (Shen Eq. 20: F ⊙ h; Im Eq. 12: F ⊙ S^F), "
              "so a small F means the word takes context from attention")

CLAIMS: tuple[Claim, ...] = (
    Claim(
        "shen5-long-sentences", "Shen Fig. 5",
        "DiSAN performs poorly on sentences of 38 tokens or more",
        f"test accuracy on sentences of ≥ {SHEN_LONG} tokens minus accuracy on shorter ones "
        "(bootstrap over sentences)",
        0.0, -1, ("disan",), "explore", kind=ACCURACY_BY_LENGTH, tasks=("sst5", "sst2"),
    ),
    Claim(
        "shen6-content-attention", "Shen Fig. 6",
        "semantically important words (nouns, verbs) get large attention; stop words do not",
        "per sentence: attention received relative to uniform (P averaged over features, forward and "
        "backward blocks averaged), content words minus stop words",
        0.0, +1, ("disan",), "disan_attention",
        per_sentence=_content_minus_stop(_received), tokens=lambda b: _by_class(_received(b), b),
    ),
    Claim(
        "shen7-gate-stop-words", "Shen Fig. 7",
        "the fusion gate F is small for stop words, which take their context from the attention output",
        "per sentence: mean gate F (features and both blocks averaged) of stop words minus content words; "
        + _GATE_SIDE,
        0.0, -1, ("disan", "dsa"), "fusion_gate",
        per_sentence=lambda b: _gap(_gate(None)(b), b.of_class(STOP), b.of_class(CONTENT)),
        tokens=lambda b: _by_class(_gate(None)(b), b),
    ),
    Claim(
        "shen8-context-vectors", "Shen Fig. 8",
        "the same word gets very different source2token vectors in different sentences",
        "Pearson r between a content word's source2token vector (P × sentence length) and the same word's "
        f"vector in another test sentence, averaged per sentence; 'very different' means r < {DIFFERENT_R}",
        DIFFERENT_R, -1, ("disan",), "source2token", kind=CONTEXT,
    ),
    Claim(
        "im6-distance-mask-long", "Im Fig. 6",
        "without the distance mask, accuracy drops for pairs whose average length exceeds 25",
        f"on pairs with mean length ≥ {IM_LONG} tokens: accuracy of this model minus its separately trained "
        "no-distance-mask ablation (paired bootstrap over pairs)",
        0.0, +1, ("dsa",), "compare", kind=ABLATION, tasks=("nli", "snli"),
    ),
    Claim(
        "im7-locality", "Im Fig. 7",
        "attention weights are heavier on nearby words than on distant ones",
        "per sentence: mean attention distance |i − j| (heads averaged, both blocks) minus the distance "
        "uniform attention over the allowed words would give",
        0.0, -1, ("dsa",), "distance_attention",
        per_sentence=lambda b: _both_directions(
            b, lambda d: measures.distance_gap(b.head_mean(d), getattr(b.trace, d).allowed)),
    ),
    Claim(
        "im7-important-words", "Im Fig. 7",
        "important words get high attention weights from several words",
        "per sentence: attention received relative to uniform (heads averaged, both blocks), "
        "content words minus stop words",
        0.0, +1, ("dsa",), "distance_attention",
        per_sentence=_content_minus_stop(_received), tokens=lambda b: _by_class(_received(b), b),
    ),
    Claim(
        "im8-distance-spread", "Im Fig. 8",
        "without the distance mask very distant words are attended",
        "per sentence: mean attention distance at α = 0 minus at the model's α (same weights, re-weighted "
        f"scores; α = {PAPER_ALPHA} for a model trained without the mask), both blocks",
        0.0, +1, ("dsa",), "compare",
        per_sentence=_alpha_change(measures.mean_distance),
    ),
    Claim(
        "im8-entropy", "Im Fig. 8",
        "without the distance mask the attention weights are spread thin (noisier)",
        "per sentence: mean row entropy (nats) at α = 0 minus at the model's α (same weights), both blocks",
        0.0, +1, ("dsa",), "compare",
        per_sentence=_alpha_change(measures.mean_entropy),
    ),
    Claim(
        "im9-gate-of-period", "Im Fig. 9",
        "words of little importance such as 'of' and '.' get large gates; keywords small ones",
        "per sentence: mean forward gate F (features averaged) of 'of' and '.' minus content words; "
        + _GATE_SIDE,
        0.0, +1, ("disan", "dsa"), "fusion_gate",
        per_sentence=lambda b: _gap(
            _gate("fw")(b), b.mask(lambda t, _c: t.lower() in IM_GATE_WORDS), b.of_class(CONTENT)),
        tokens=_im_gate_groups,
    ),
    Claim(
        "im10-deactivation", "Im Fig. 10",
        "keywords have a high deactivation ratio in the position-wise FFN",
        "per sentence: share of zero ReLU units in the forward FFN, content words minus stop words",
        0.0, +1, ("dsa",), "ffn_pooling",
        per_sentence=_content_minus_stop(lambda b: b.trace.fw.ffn_deactivation),
        tokens=lambda b: _by_class(b.trace.fw.ffn_deactivation, b),
    ),
    Claim(
        "im10-max-value", "Im Fig. 10",
        "keywords have a high max value of LayerNorm(x + FFN(x)); unimportant words a low one",
        "per sentence: max over features of the forward block output, content words minus stop words",
        0.0, +1, ("dsa",), "ffn_pooling",
        per_sentence=_content_minus_stop(lambda b: b.trace.fw.ln_max),
        tokens=lambda b: _by_class(b.trace.fw.ln_max, b),
    ),
    Claim(
        "im11-pooling-agreement", "Im Fig. 11",
        "multi-dimensional attention and max pooling concentrate on the same key words",
        "per sentence: Pearson r over tokens between the pooling weight (softmax(L) averaged over features) "
        f"and the share of features each token wins in max pooling; 'similar' means r > {SIMILAR_R}",
        SIMILAR_R, +1, ("dsa",), "ffn_pooling",
        per_sentence=_pooling_r,
    ),
    Claim(
        "im12-forward-heads", "Im Fig. 12",
        "the forward heads' attention weights differ from head to head",
        "per sentence: mean pairwise total-variation distance between the forward heads' rows "
        f"(0 = identical, 1 = disjoint); 'differ' means > {HEADS_DIFFER_TV}",
        HEADS_DIFFER_TV, +1, ("dsa",), "distance_attention",
        per_sentence=_heads("fw"),
    ),
    Claim(
        "im13-backward-heads", "Im Fig. 13",
        "the backward heads' attention weights differ from head to head",
        "per sentence: mean pairwise total-variation distance between the backward heads' rows "
        f"(0 = identical, 1 = disjoint); 'differ' means > {HEADS_DIFFER_TV}",
        HEADS_DIFFER_TV, +1, ("dsa",), "distance_attention",
        per_sentence=_heads("bw"),
    ),
)

CLAIM_IDS = tuple(c.id for c in CLAIMS)
#: The two papers' opposite gate claims, measured on every model.
GATE_CLAIMS = ("shen7-gate-stop-words", "im9-gate-of-period")


def claim_by_id(claim_id: str) -> Claim:
    for c in CLAIMS:
        if c.id == claim_id:
            return c
    raise KeyError(f"No claim {claim_id!r}; choose one of {', '.join(CLAIM_IDS)}.")


def claims_for(arch: str, task: str, has_ablation: bool) -> list[Claim]:
    """The claims measured for a model of ``arch`` on ``task`` (Im Fig. 6 needs the ablation)."""
    out = []
    for c in CLAIMS:
        if arch not in c.archs or (c.tasks is not None and task not in c.tasks):
            continue
        if c.kind == ABLATION and not has_ablation:
            continue
        out.append(c)
    return out


def sentence_claims(claims: Sequence[Claim]) -> list[Claim]:
    return [c for c in claims if c.kind == SENTENCE]
