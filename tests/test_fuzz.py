"""Random Unicode through the tokenizer and `trace`: a valid trace or one clear InputError, never NaN."""

import torch
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from disan import InputError
from tests.conftest import make_tiny

MODELS = {}


def model(arch, glove):
    if arch not in MODELS:
        MODELS[arch] = make_tiny(arch, glove, max_tokens=64)
    return MODELS[arch]


def rows_ok(probs: torch.Tensor, dim: int) -> bool:
    """Every row finite and summing to 1, or exactly 0 (no allowed key)."""
    sums = probs.sum(dim)
    ones = (sums - 1).abs() < 1e-5
    zeros = (probs == 0).all(dim)
    return bool(torch.isfinite(probs).all() and (ones | zeros).all())


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(text=st.text(max_size=120), arch=st.sampled_from(["disan", "dsa"]))
def test_random_unicode_gives_trace_or_clear_error(tiny_glove, text, arch):
    m = model(arch, tiny_glove)
    try:
        tr = m.trace(text)
    except InputError as err:
        msg = str(err)
        assert msg and "\n" not in msg
        return
    enc = tr.premise.encoder
    assert len(tr.tokens) == enc.valid.shape[1] and all(tok.strip() == tok and tok for tok in tr.tokens)
    if arch == "disan":
        for block in (enc.fw, enc.bw):
            assert rows_ok(block.probs, 2)
            assert torch.isfinite(block.gate).all()
    else:
        for block in (enc.fw, enc.bw):
            assert rows_ok(block.probs, -1)
    assert rows_ok(enc.s2t_probs.transpose(1, 2), -1)
    assert abs(sum(tr.prediction.values()) - 1) < 1e-5
