"""The fused token2token (disan/fused_attention.py) equals the reference, in values and in gradients.

Tolerances: float64 — 1e-10 absolute (both paths are exact up to rounding);
float32 — atol 1e-5, rtol 1e-4 (different summation order, tanh evaluated
through a sigmoid, and a fixed shift c instead of the running maximum).
"""

import pytest
import torch

from disan.attention import multi_dim_token2token
from disan.disan_encoder import DiSABlock, DiSANEncoder
from disan.fused_attention import (
    IMPLS,
    fused_gradients,
    fused_token2token,
    plan_blocks,
    set_impl,
    supported,
    use_fused,
)
from disan.masks import attention_allowed, direction_mask, padding_mask

TOL = {torch.float64: dict(atol=1e-10, rtol=1e-10), torch.float32: dict(atol=1e-5, rtol=1e-4)}


def inputs(B=3, T=7, D=5, lengths=(7, 4, 1), kind="fw", dtype=torch.float64, seed=0):
    g = torch.Generator().manual_seed(seed)
    h = torch.randn(B, T, D, generator=g, dtype=dtype).requires_grad_()
    w1 = (torch.randn(D, D, generator=g, dtype=dtype) / D**0.5).requires_grad_()
    w2 = (torch.randn(D, D, generator=g, dtype=dtype) / D**0.5).requires_grad_()
    b1 = torch.randn(D, generator=g, dtype=dtype).requires_grad_()
    allowed = attention_allowed(direction_mask(T, kind), padding_mask(list(lengths), T))
    return h, allowed, w1, w2, b1


def value_and_grads(fn, h, allowed, w1, w2, b1, seed=1):
    s = fn(h, allowed, w1, w2, b1)
    g = torch.Generator().manual_seed(seed)
    upstream = torch.randn(s.shape, generator=g, dtype=s.dtype)
    grads = torch.autograd.grad(s, (h, w1, w2, b1), upstream)
    return s.detach(), grads


def reference(h, allowed, w1, w2, b1, c=5.0):
    return multi_dim_token2token(h, allowed, w1, w2, b1, c, chunk=None)[0]


def assert_close(a, b, dtype):
    torch.testing.assert_close(a, b, **TOL[dtype])


@pytest.mark.parametrize("dtype", [torch.float64, torch.float32])
@pytest.mark.parametrize("kind", ["fw", "bw", "diag", "none"])
@pytest.mark.parametrize("block", [None, (1, 1), (2, 3), (3, 7)])
def test_fused_equals_reference_values_and_gradients(kind, block, dtype):
    args = inputs(kind=kind, dtype=dtype)
    s_ref, g_ref = value_and_grads(reference, *args)
    s, grads = value_and_grads(lambda *a: fused_token2token(*a, block=block), *args)
    assert_close(s, s_ref, dtype)
    for a, b in zip(grads, g_ref):
        assert_close(a, b, dtype)


@pytest.mark.parametrize("sort", [True, False])
def test_unsorted_and_sorted_batches_agree(sort):
    args = inputs(B=5, T=9, lengths=(2, 9, 5, 1, 7), kind="bw")
    s_ref, g_ref = value_and_grads(reference, *args)
    s, grads = value_and_grads(lambda *a: fused_token2token(*a, block=(2, 2), sort=sort), *args)
    assert_close(s, s_ref, torch.float64)
    for a, b in zip(grads, g_ref):
        assert_close(a, b, torch.float64)


def test_queries_without_keys_give_exact_zeros_and_no_nan():
    # Row 2 has one token: under the forward mask it attends to nothing; padded queries neither.
    h, allowed, w1, w2, b1 = inputs(kind="fw", lengths=(7, 4, 1))
    s = fused_token2token(h, allowed, w1, w2, b1)
    assert not torch.isnan(s).any()
    assert (s[:, 0] == 0).all()  # first token under fw
    assert (s[1, 4:] == 0).all() and (s[2] == 0).all()  # padding, and the one-token sentence
    grad_h, = torch.autograd.grad(s.sum(), (h,))
    assert (grad_h[2] == 0).all()  # a sentence that attends to nothing gets no gradient through attention
    # Everything masked: zeros, finite gradients.
    none = torch.zeros_like(allowed)
    s0 = fused_token2token(h, none, w1, w2, b1)
    assert (s0 == 0).all()
    grads = torch.autograd.grad(s0.sum(), (h, w1, w2, b1))
    assert all(torch.isfinite(g).all() and (g == 0).all() for g in grads)


def test_inference_path_matches_and_keeps_no_graph():
    h, allowed, w1, w2, b1 = inputs(kind="diag")
    with torch.inference_mode():
        s = fused_token2token(h, allowed, w1, w2, b1)
    assert not s.requires_grad
    assert_close(s, reference(h, allowed, w1, w2, b1).detach(), torch.float64)


def test_plan_blocks_cover_every_allowed_cell_and_flag_full_blocks():
    _, allowed, *_ = inputs(B=4, T=9, lengths=(9, 3, 6, 1), kind="fw")
    covered = torch.zeros_like(allowed)
    for b0, b1, q0, q1, k0, k1, full in plan_blocks(allowed, 2, 2):
        covered[b0:b1, q0:q1, k0:k1] = True
        assert full == bool(allowed[b0:b1, q0:q1, k0:k1].all())
    assert not (allowed & ~covered).any()


def test_unsupported_inputs_fall_back_to_the_reference():
    h, allowed, w1, w2, b1 = inputs(dtype=torch.float64)
    assert supported(h, 5.0) and not supported(h.half(), 5.0) and not supported(h, 50.0)
    with pytest.raises(ValueError):
        fused_token2token(h, allowed, w1, w2, b1, c=50.0)
    assert not use_fused("auto", record=False, training=True, h=h.detach().half(), c=5.0)
    with pytest.raises(ValueError):
        use_fused("turbo", False, True, h, 5.0)


def test_policy_fused_only_without_trace_and_when_training_or_no_grad():
    h = torch.zeros(1, 2, 3)
    assert use_fused("auto", record=False, training=True, h=h, c=5.0)
    assert not use_fused("auto", record=True, training=True, h=h, c=5.0)  # traces stay on the reference
    assert not use_fused("auto", record=False, training=False, h=h, c=5.0)  # eval with autograd: reference
    with torch.no_grad():
        assert use_fused("auto", record=False, training=False, h=h, c=5.0)
    assert not use_fused("reference", record=False, training=True, h=h, c=5.0)
    assert not use_fused("naive", record=False, training=True, h=h, c=5.0)
    with fused_gradients():
        assert use_fused("auto", record=False, training=False, h=h, c=5.0)  # attributions: eval with autograd
        assert not use_fused("auto", record=True, training=False, h=h, c=5.0)
    assert not use_fused("auto", record=False, training=False, h=h, c=5.0)  # reset on leaving


def test_fused_gradients_is_per_thread():
    """A server thread's attribution must not switch another thread's kernel (the model is shared)."""
    import threading

    h, seen = torch.zeros(1, 2, 3), []
    with fused_gradients():
        worker = threading.Thread(target=lambda: seen.append(use_fused("auto", False, False, h, 5.0)))
        worker.start()
        worker.join()
    assert seen == [False]


def test_evaluated_encoder_input_gradients_fused_equal_reference():
    """What attributions take (gradient × input, Integrated Gradients): ∂out/∂x of an encoder in eval mode."""
    torch.manual_seed(0)
    enc = DiSANEncoder(6, d_h=8).double().eval()
    valid = padding_mask([5, 3, 1], 5)
    x0 = torch.randn(3, 5, 6, dtype=torch.float64) * valid[..., None]
    upstream = torch.randn(3, 16, dtype=torch.float64)

    def input_grad():
        x = x0.clone().requires_grad_()
        out, _ = enc(x, valid)  # (B, 2D)
        return torch.autograd.grad(out, x, upstream)[0]  # (B, T, d_in)

    reference = input_grad()
    with fused_gradients():
        fused = input_grad()
    assert not torch.equal(fused, reference)  # the fused kernel ran: its rounding differs
    assert_close(fused, reference, torch.float64)


def _block_pair(seed=0):
    torch.manual_seed(seed)
    return DiSABlock(6, 8, c=5.0, dropout=0.0).double()


@pytest.mark.parametrize("mask", ["fw", "bw", "diag", "none"])
def test_disa_block_training_step_fused_equals_naive(mask):
    block = _block_pair()
    g = torch.Generator().manual_seed(3)
    valid = padding_mask([6, 2, 4], 6)
    x = torch.randn(3, 6, 6, generator=g, dtype=torch.float64) * valid[..., None]
    block.train()
    outs, grads = {}, {}
    for impl in ("auto", "naive"):
        set_impl(block, impl)
        block.zero_grad()
        u, _ = block(x, valid, mask)
        (u * torch.linspace(-1, 1, u.numel(), dtype=u.dtype).view_as(u)).sum().backward()
        outs[impl] = u.detach()
        grads[impl] = {n: p.grad.clone() for n, p in block.named_parameters()}
    assert_close(outs["auto"], outs["naive"], torch.float64)
    for name in grads["naive"]:
        assert_close(grads["auto"][name], grads["naive"][name], torch.float64)


def test_encoder_record_uses_reference_and_predictions_agree():
    torch.manual_seed(0)
    enc = DiSANEncoder(6, d_h=8).eval()
    valid = padding_mask([5, 3], 5)
    x = torch.randn(2, 5, 6) * valid[..., None]
    with torch.no_grad():
        fast, none = enc(x, valid)  # no grad, no record: fused
        traced, trace = enc(x, valid, record=True)  # reference
    assert none is None and trace.fw.probs is not None
    torch.testing.assert_close(fast, traced, atol=1e-5, rtol=1e-4)
    set_impl(enc, "naive")
    with torch.no_grad():
        naive, _ = enc(x, valid)
    torch.testing.assert_close(fast, naive, atol=1e-5, rtol=1e-4)
    assert set(IMPLS) == {"auto", "reference", "naive"}


def test_model_predict_fast_equals_naive(tiny_model):
    texts = ["the movie is good .", "bad", "a dog is a dog , the man is good ."]
    fast = tiny_model.predict(texts)
    set_impl(tiny_model, "naive")
    try:
        naive = tiny_model.predict(texts)
    finally:
        set_impl(tiny_model, "auto")
    for a, b in zip(fast, naive):
        assert a.keys() == b.keys()
        assert all(abs(a[k] - b[k]) < 1e-5 for k in a)
