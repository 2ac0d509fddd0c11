"""Each corpus statistic of ``disan.claims`` on tiny hand-made traces, against values computed by hand.

Traces are literal tensors (B = 1, T = 3 or 4); fields a claim does not read
are zeros. Masks follow ``disan/masks.py``: the forward block lets row i attend
the columns j < i, the backward block the columns j > i.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
import torch

from disan.claims import SentenceBatch, claim_by_id
from disan.context_pairs import ContextPairs
from disan.evidence import Outcome, ablation_gap, accuracy_by_length, long_gap
from disan.masks import direction_mask, distance_mask
from disan.trace import DiSABlockTrace, DiSANTrace, DistanceBlockTrace, DistanceTrace
from disan.wordclass import CONTENT, PUNCT, STOP, word_class

T3 = ("the", "dog", "runs")  # stop, content, content

# Forward block: row 1 attends token 0; row 2 gives 0.2 to token 0 and 0.8 to token 1. Row 0 has no key.
FW = torch.tensor([[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [0.2, 0.8, 0.0]])
# Backward block: row 0 splits 0.5 / 0.5 over tokens 1 and 2; row 1 attends token 2. Row 2 has no key.
BW = torch.tensor([[0.0, 0.5, 0.5], [0.0, 0.0, 1.0], [0.0, 0.0, 0.0]])


def allowed(T: int, kind: str) -> torch.Tensor:
    return direction_mask(T, kind)[None]  # (1, T, T)


def zeros(*shape) -> torch.Tensor:
    return torch.zeros(*shape)


def disan_block(kind: str, probs_mean: torch.Tensor, gate: torch.Tensor) -> DiSABlockTrace:
    T, D = gate.shape
    return DiSABlockTrace(kind, allowed(T, kind), zeros(1, T, D), None, probs_mean[None], probs_mean[None],
                          zeros(1, T, D), gate[None], zeros(1, T, D))


def disan_batch(tokens, fw_probs=FW, bw_probs=BW, fw_gate=None, bw_gate=None, s2t=None) -> SentenceBatch:
    T = len(tokens)
    fw_gate = zeros(T, 2) if fw_gate is None else fw_gate
    bw_gate = zeros(T, 2) if bw_gate is None else bw_gate
    s2t = zeros(1, T, 4) if s2t is None else s2t
    trace = DiSANTrace(torch.ones(1, T, dtype=torch.bool), disan_block("fw", fw_probs, fw_gate),
                       disan_block("bw", bw_probs, bw_gate), s2t, zeros(1, 4))
    return SentenceBatch((tuple(tokens),), trace, None)


def dsa_block(kind: str, probs: torch.Tensor, scores=None, gate=None, deact=None, ln_max=None) -> DistanceBlockTrace:
    H, T, _ = probs.shape
    return DistanceBlockTrace(
        kind, 1.0, allowed(T, kind), distance_mask(T), zeros(1, H, T, T) if scores is None else scores[None],
        probs[None], zeros(1, T, 2), zeros(1, T, 2) if gate is None else gate[None],
        zeros(1, T) if deact is None else deact[None], zeros(1, T) if ln_max is None else ln_max[None], zeros(1, T, 2))


def dsa_batch(tokens, fw, bw, alpha=None, s2t=None, share=None, scores=None, **fw_extra) -> SentenceBatch:
    T = len(tokens)
    trace = DistanceTrace(
        torch.ones(1, T, dtype=torch.bool), dsa_block("fw", fw, scores, **fw_extra), dsa_block("bw", bw, scores),
        zeros(1, T, 4) if s2t is None else s2t, torch.zeros(1, 4, dtype=torch.long),
        zeros(1, T) if share is None else share, zeros(1, 8))
    return SentenceBatch((tuple(tokens),), trace, alpha)


def value(claim_id: str, batch: SentenceBatch) -> float:
    return float(claim_by_id(claim_id).per_sentence(batch)[0])


def test_word_classes_come_from_one_list():
    assert [word_class(t) for t in ("The", "dog", "n't", ".", "--", "-lrb-", "3", "'s")] == [
        STOP, CONTENT, STOP, PUNCT, PUNCT, PUNCT, CONTENT, STOP]


def test_shen6_content_words_receive_more_attention():
    # Received relative to uniform (P·n_i averaged over the rows that may attend the column):
    # forward: the 0.7 = (1·1 + 0.2·2)/2, dog 1.6 = 0.8·2, runs NaN; backward: the NaN, dog 1.0, runs 1.0.
    # Both blocks: the 0.7, dog 1.3, runs 1.0 → content 1.15 − stop 0.7 = 0.45.
    assert value("shen6-content-attention", disan_batch(T3)) == pytest.approx(0.45)
    groups = claim_by_id("shen6-content-attention").tokens(disan_batch(T3))
    assert groups[STOP].tolist() == pytest.approx([0.7]) and groups[CONTENT].tolist() == pytest.approx([1.3, 1.0])


def test_shen7_gate_stop_words_minus_content_words():
    fw = torch.tensor([[0.2, 0.4], [0.6, 0.8], [0.5, 0.5]])  # feature means 0.3, 0.7, 0.5
    bw = torch.tensor([[0.1, 0.1], [0.9, 0.9], [0.5, 0.5]])  # 0.1, 0.9, 0.5
    # Both blocks: the 0.2, dog 0.8, runs 0.5 → stop 0.2 − content 0.65 = −0.45 (the claim says < 0).
    assert value("shen7-gate-stop-words", disan_batch(T3, fw_gate=fw, bw_gate=bw)) == pytest.approx(-0.45)


def test_im9_forward_gate_of_and_period_minus_content_words():
    tokens = ("cup", "of", "tea", ".")
    fw = torch.tensor([[0.2, 0.2], [0.9, 0.9], [0.4, 0.4], [0.6, 0.8]])  # cup .2, of .9, tea .4, '.' .7
    bw = torch.ones(4, 2)  # the backward gate is not part of Im Fig. 9
    eye = torch.zeros(4, 4)
    # ('of', '.') 0.8 − content (cup, tea) 0.3 = 0.5.
    assert value("im9-gate-of-period", disan_batch(tokens, eye, eye, fw, bw)) == pytest.approx(0.5)


def test_im7_locality_and_im12_head_divergence():
    fw = torch.stack([torch.tensor([[0, 0, 0], [1, 0, 0], [0.4, 0.6, 0]]),
                      torch.tensor([[0, 0, 0], [1, 0, 0], [0.0, 1.0, 0]])]).float()  # heads average to FW
    bw = torch.stack([BW, BW])
    batch = dsa_batch(T3, fw, bw)
    # Forward rows: row 1 distance 1 vs uniform 1 → 0; row 2 0.2·2 + 0.8·1 = 1.2 vs (2 + 1)/2 → −0.3; mean −0.15.
    # Backward rows: 0.5·1 + 0.5·2 = 1.5 vs 1.5, and 1 vs 1 → 0. Both blocks: −0.075.
    assert value("im7-locality", batch) == pytest.approx(-0.075)
    # Forward heads: row 1 identical (0), row 2 TV = ½(|0.4 − 0| + |0.6 − 1|) = 0.4 → mean 0.2.
    assert value("im12-forward-heads", batch) == pytest.approx(0.2)
    assert value("im13-backward-heads", batch) == pytest.approx(0.0)


def test_im8_alpha_zero_spreads_attention_and_raises_entropy():
    scores = torch.zeros(1, 3, 3)  # equal scores: only the masks shape the weights
    batch = dsa_batch(T3, FW[None], BW[None], alpha=math.log(3), scores=scores)
    # α = 0: the row with two keys splits ½/½ (distance 1.5, entropy ln 2). α = ln 3: weights ∝ e^{−α·d}
    # give ¼ to the far key and ¾ to the near one (distance 1.25, entropy H(¼)). The other row has one key.
    # Mean over both rows: distance 1.25 vs 1.125 → +0.125; entropy (ln 2 − H(¼))/2.
    h_quarter = -(0.25 * math.log(0.25) + 0.75 * math.log(0.75))
    assert value("im8-distance-spread", batch) == pytest.approx(0.125)
    assert value("im8-entropy", batch) == pytest.approx((math.log(2) - h_quarter) / 2)


def test_im10_content_minus_stop_words():
    eye = torch.zeros(1, 3, 3)
    batch = dsa_batch(T3, eye, eye, deact=torch.tensor([0.2, 0.6, 0.8]), ln_max=torch.tensor([1.0, 3.0, 5.0]))
    assert value("im10-deactivation", batch) == pytest.approx(0.7 - 0.2)
    assert value("im10-max-value", batch) == pytest.approx(4.0 - 1.0)


def test_im11_pearson_between_pooling_weight_and_maxpool_share():
    eye = torch.zeros(1, 3, 3)
    s2t = torch.tensor([0.1, 0.2, 0.3])[None, :, None].expand(1, 3, 4)  # feature mean 0.1, 0.2, 0.3
    share = torch.tensor([[0.2, 0.1, 0.3]])
    # Centred: (−0.1, 0, 0.1) and (0, −0.1, 0.1): covariance 0.01, variances 0.02 → r = 0.5.
    assert value("im11-pooling-agreement", dsa_batch(T3, eye, eye, s2t=s2t, share=share)) == pytest.approx(0.5)


def test_shen8_pairs_the_same_word_across_sentences():
    pairs = ContextPairs()
    first = torch.tensor([[[0, 0, 0], [0.1, 0.2, 0.7]]])  # (1, T, 2D): 'glass' in sentence 0
    second = torch.tensor([[[0, 0, 0], [0.7, 0.2, 0.1]]])  # the same word, reversed profile
    a, r_a = pairs.update(disan_batch(("the", "glass"), torch.zeros(2, 2), torch.zeros(2, 2), s2t=first), [0])
    b, r_b = pairs.update(disan_batch(("a", "glass"), torch.zeros(2, 2), torch.zeros(2, 2), s2t=second), [1])
    # Centred ×3: (−0.7, −0.4, 1.1) and (1.1, −0.4, −0.7): r = −1.38 / 1.86 = −23/31. Stop words are not paired.
    assert math.isnan(float(a[0])) and r_a.numel() == 0
    assert float(b[0]) == pytest.approx(-23 / 31) and r_b.tolist() == pytest.approx([-23 / 31])


def test_shen5_long_sentences_and_im6_ablation_gap():
    correct = np.array([1, 1, 0, 0, 1], dtype=bool)
    lengths = np.array([10, 20, 40, 50, 5], dtype=float)
    shen5 = long_gap(Outcome(correct=correct), lengths, claim_by_id("shen5-long-sentences"))
    assert shen5["value"] == pytest.approx(0.0 - 1.0) and shen5["n"] == 5 and shen5["n_long"] == 2
    other = np.array([1, 1, 1, 1, 1], dtype=bool)
    im6 = ablation_gap(Outcome(correct=correct), Outcome(correct=other), lengths,
                       claim_by_id("im6-distance-mask-long"))
    assert im6["value"] == pytest.approx(-1.0) and im6["n"] == 2  # only the pairs of mean length ≥ 25
    assert im6["verdict"] == "contradicted"  # every resample gives −1


def test_length_buckets_cover_every_example():
    lengths = np.array([3, 7.5, 12, 12, 50, 54.5])
    correct = np.array([1, 0, 1, 1, 0, 1], dtype=bool)
    buckets = accuracy_by_length(correct, lengths)
    assert [(b["lo"], b["hi"], b["n"]) for b in buckets] == [(0, 5, 1), (5, 10, 1), (10, 15, 2), (50, 55, 2)]
    assert [b["accuracy"] for b in buckets] == [1.0, 0.0, 1.0, 0.5]
    assert sum(b["n"] for b in buckets) == len(lengths)
    for length in lengths:
        assert sum(b["lo"] <= length < b["hi"] for b in buckets) == 1
