"""The CUDA path agrees with the CPU (issue 10): runs only where CUDA exists.

Tolerance: 1e-4 absolute on probabilities, gates and predictions: float32 on
both devices (TF32 off), so only the order of reductions differs.
"""

import pytest
import torch

import disan

pytestmark = pytest.mark.skipif(not torch.cuda.is_available(), reason="no CUDA device on this machine")

TOL = 1e-4
PAIRS = [("disan", None), ("dsa", None), ("disan-sst5", None), ("dsa-nli", "A woman is outdoors .")]


@pytest.fixture(autouse=True)
def no_tf32():
    old = torch.backends.cuda.matmul.allow_tf32, torch.backends.cudnn.allow_tf32
    torch.backends.cuda.matmul.allow_tf32 = torch.backends.cudnn.allow_tf32 = False
    yield
    torch.backends.cuda.matmul.allow_tf32, torch.backends.cudnn.allow_tf32 = old


def both(name):
    try:
        return disan.load(name, device="cpu"), disan.load(name, device="cuda")
    except disan.ModelNotFoundError:
        pytest.skip(f"{name} is not bundled")


@pytest.mark.parametrize("name,hypothesis", PAIRS)
def test_trace_and_prediction_agree(name, hypothesis):
    cpu, gpu = both(name)
    text = "A lady stands outside of a Mexican market ." if hypothesis else "a gorgeous , witty , seductive movie ."
    a, b = cpu.trace(text, hypothesis), gpu.trace(text, hypothesis)
    assert a.tokens == b.tokens
    for label in a.prediction:
        assert abs(a.prediction[label] - b.prediction[label]) < TOL
    ea, eb = a.premise.encoder, b.premise.encoder
    for block in ("fw", "bw"):
        pa, pb = getattr(ea, block).probs, getattr(eb, block).probs
        assert pb.device.type == "cpu"  # the trace is always moved to the CPU
        assert torch.allclose(pa, pb, atol=TOL, rtol=0)
        assert torch.equal(pa == 0, pb == 0)  # masked cells are exact zeros on both
        assert torch.allclose(getattr(ea, block).gate, getattr(eb, block).gate, atol=TOL, rtol=0)


@pytest.mark.parametrize("name,hypothesis", PAIRS)
def test_batched_predictions_agree(name, hypothesis):
    cpu, gpu = both(name)
    texts = ["a dull mess .", "the best film of the year , by far .", "it 's not bad at all ."]
    inputs = [(t, hypothesis) for t in texts] if hypothesis else texts
    for pa, pb in zip(cpu.predict(inputs), gpu.predict(inputs)):
        assert max(abs(pa[k] - pb[k]) for k in pa) < TOL
