"""Encoder-level properties: tracing is passive, padding is invisible, parameter counts match the papers."""

import pytest
import torch

from disan.disan_encoder import DiSANEncoder
from disan.distance_encoder import DistanceEncoder
from disan.heads import ImNLIHead, ShenNLIHead
from disan.masks import padding_mask

D_IN = 6


def make(arch, **kw):
    torch.manual_seed(0)
    if arch == "disan":
        return DiSANEncoder(D_IN, d_h=8, **kw).double().eval()
    return DistanceEncoder(D_IN, d_model=10, heads=2, **kw).double().eval()


def batch(seed=1, lengths=(5, 3)):
    g = torch.Generator().manual_seed(seed)
    T = max(lengths)
    x = torch.randn(len(lengths), T, D_IN, generator=g, dtype=torch.float64)
    valid = padding_mask(list(lengths), T)
    return x * valid[..., None], valid


@pytest.mark.parametrize("arch", ["disan", "dsa"])
def test_tracing_does_not_change_output(arch):
    enc = make(arch)
    x, valid = batch()
    a, none = enc(x, valid, record=False)
    b, trace = enc(x, valid, record=True)
    assert none is None and trace is not None
    assert torch.equal(a, b)


@pytest.mark.parametrize("arch", ["disan", "dsa"])
def test_sentence_alone_equals_sentence_padded_in_batch(arch):
    enc = make(arch)
    x, valid = batch(lengths=(5, 3))
    full, tb = enc(x, valid, record=True)
    alone, ta = enc(x[1:2, :3], valid[1:2, :3], record=True)
    assert torch.allclose(full[1], alone[0], atol=1e-6)
    assert torch.allclose(tb.s2t_probs[1, :3], ta.s2t_probs[0], atol=1e-6)
    assert (tb.s2t_probs[1, 3:] == 0).all()


def test_disan_trace_properties():
    enc = make("disan")
    x, valid = batch()
    _, t = enc(x, valid, record=True)
    B, T = valid.shape
    assert t.fw.probs.shape == (B, T, T, 8) and t.s2t_probs.shape == (B, T, 16)
    for block in (t.fw, t.bw):
        assert ((block.gate > 0) & (block.gate < 1)).all()
        sums = block.probs.sum(2)  # (B, T, D)
        live = block.allowed.any(-1)
        assert torch.allclose(sums[live], torch.ones_like(sums[live]))
        assert (block.probs[~block.allowed] == 0).all()
    assert (t.fw.s[:, 0] == 0).all()  # first token has no key under the forward mask
    assert (t.bw.s[0, 4] == 0).all() and (t.bw.s[1, 2] == 0).all()  # last real token, backward
    s2t_sum = t.s2t_probs.sum(1)  # (B, 2D)
    assert torch.allclose(s2t_sum, torch.ones_like(s2t_sum))


def test_disan_nodir_and_override_use_diag_masks():
    enc = make("disan", masks=("diag", "diag"))
    x, valid = batch()
    _, t = enc(x, valid, record=True)
    assert t.fw.mask == t.bw.mask == "diag"
    assert (t.fw.probs_mean[0, 0, 1:] > 0).all()  # token 1 now sees later tokens
    base = make("disan")
    out_override, t2 = base(x, valid, record=True, masks=("bw", "fw"))
    assert t2.fw.mask == "bw" and (t2.fw.s[0, 4] == 0).all()


def test_dsa_trace_properties_and_alpha_override():
    enc = make("dsa")
    x, valid = batch()
    _, t = enc(x, valid, record=True)
    B, T = valid.shape
    assert t.fw.probs.shape == (B, 2, T, T) and t.fw.scores.shape == (B, 2, T, T)
    assert t.sentence.shape == (B, 40)
    assert ((t.fw.gate > 0) & (t.fw.gate < 1)).all()
    assert torch.allclose(t.maxpool_share.sum(-1), torch.ones(B, dtype=t.maxpool_share.dtype))
    assert (t.maxpool_share[1, 3:] == 0).all()
    assert ((t.fw.ffn_deactivation >= 0) & (t.fw.ffn_deactivation <= 1)).all()
    assert t.fw.alpha == 1.5 and torch.equal(t.fw.distance_bias, -1.5 * (torch.arange(T)[:, None] - torch.arange(T)).abs())
    # Re-weighting α from the stored scores equals a fresh forward pass with that α.
    from disan.attention import masked_softmax
    from disan.masks import distance_mask

    _, t0 = enc(x, valid, record=True, alpha=0.0)
    re = masked_softmax(t.fw.scores, t.fw.allowed[:, None], -1)
    assert torch.allclose(re, t0.fw.probs, atol=1e-6)
    re3 = masked_softmax(t.fw.scores + 3.0 * distance_mask(T), t.fw.allowed[:, None], -1)
    _, t3 = enc(x, valid, record=True, alpha=3.0)
    assert (re3 - t3.fw.probs).abs().max() < 1e-5, (re3 - t3.fw.probs).abs().max()


def test_alpha_zero_equals_no_distance_mask():
    with_zero = make("dsa", alpha=0.0)
    x, valid = batch()
    a, _ = with_zero(x, valid)
    b, _ = make("dsa", alpha=1.5)(x, valid, alpha=0.0)
    assert torch.equal(a, b)
    c, _ = make("dsa", alpha=1.5)(x, valid)
    assert not torch.allclose(a, c)


def count(module):
    return sum(p.numel() for p in module.parameters())


def test_parameter_counts_match_papers(capsys):
    disan_enc = DiSANEncoder(300, 300)
    disan_total = count(disan_enc) + count(ShenNLIHead(600, 300, 3, 0.0))
    dsa_enc = DistanceEncoder(300, 300, heads=5)
    dsa_total = count(dsa_enc) + count(ImNLIHead(1200, 300, 3, 0.0))
    with capsys.disabled():
        print(f"\nDiSAN NLI params (no embeddings): {disan_total:,} (Shen Table 1: 2.35M)")
        print(f"DSA NLI params (no embeddings): {dsa_total:,} (Im Table 1: 4.7M)")
    assert abs(disan_total - 2.35e6) / 2.35e6 < 0.01
    assert abs(dsa_total - 4.7e6) / 4.7e6 < 0.02
    assert dsa_enc.proj is None  # 300-d inputs skip the projection
    assert DistanceEncoder(50, 300).proj is not None


def test_probs_at_reweights_alpha_from_stored_scores():
    enc = make("dsa")
    x, valid = batch()
    _, t = enc(x, valid, record=True)
    for alpha in (0.0, 1.5, 4.0):
        _, fresh = enc(x, valid, record=True, alpha=alpha)
        assert (t.fw.probs_at(alpha) - fresh.fw.probs).abs().max() < 1e-5
        assert (t.bw.probs_at(alpha) - fresh.bw.probs).abs().max() < 1e-5
