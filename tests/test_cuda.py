"""The CUDA path agrees with the CPU (issue 10): runs only where CUDA exists.

Tolerance: 1e-4 absolute on probabilities, gates and predictions: float32 on
both devices (TF32 off), so only the order of reductions differs.
"""

import dataclasses

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


@pytest.mark.parametrize("kind", ["fw", "bw"])
@pytest.mark.parametrize("block", [None, (2, 5)])
def test_fused_token2token_on_cuda_equals_the_cpu_reference_in_values_and_gradients(kind, block):
    """The fused kernel (disan/fused_attention.py) on CUDA, with the GPU's block budget and no batch sorting,
    against the reference on the CPU; float64 so only rounding differs."""
    from disan.attention import multi_dim_token2token
    from disan.fused_attention import fused_token2token
    from disan.masks import attention_allowed, direction_mask, padding_mask

    B, T, D = 4, 33, 16
    g = torch.Generator().manual_seed(0)
    leaves = [torch.randn(B, T, D, generator=g, dtype=torch.float64),
              torch.randn(D, D, generator=g, dtype=torch.float64) / D**0.5,
              torch.randn(D, D, generator=g, dtype=torch.float64) / D**0.5,
              torch.randn(D, generator=g, dtype=torch.float64)]
    upstream = torch.randn(B, T, D, generator=g, dtype=torch.float64)
    allowed = attention_allowed(direction_mask(T, kind), padding_mask([33, 20, 1, 7], T))  # (B, T, T)

    def run(fn, device):
        xs = [x.to(device).requires_grad_() for x in leaves]
        s = fn(xs[0], allowed.to(device), *xs[1:])  # (B, T, D)
        grads = torch.autograd.grad(s, xs, upstream.to(device))
        return [t.detach().cpu() for t in (s, *grads)]

    ref = run(lambda *a: multi_dim_token2token(*a, 5.0, chunk=None)[0], "cpu")
    got = run(lambda *a: fused_token2token(*a, block=block), "cuda")
    for a, b in zip(got, ref):
        torch.testing.assert_close(a, b, atol=1e-10, rtol=1e-10)


def tensors(record, path="trace"):
    """Every tensor of a trace, named by its path (dataclasses walked field by field)."""
    if isinstance(record, torch.Tensor):
        yield path, record
    elif dataclasses.is_dataclass(record):
        for field in dataclasses.fields(record):
            yield from tensors(getattr(record, field.name), f"{path}.{field.name}")


@pytest.mark.parametrize("name,hypothesis", PAIRS)
def test_every_tensor_of_the_trace_is_on_the_cpu_and_agrees(name, hypothesis):
    """trace.py promises detached float32 CPU tensors; the GPU's trace must keep that for every field,
    including those added after this file (DiSAN's key and query parts), and equal the CPU's."""
    cpu, gpu = both(name)
    text = "A lady stands outside of a Mexican market ." if hypothesis else "a gorgeous , witty , seductive movie ."
    a, b = dict(tensors(cpu.trace(text, hypothesis))), dict(tensors(gpu.trace(text, hypothesis)))
    assert a.keys() == b.keys() and len(a) > 10
    for path, x in b.items():
        assert x.device.type == "cpu" and not x.requires_grad, path
        assert x.dtype == a[path].dtype and x.shape == a[path].shape, path
        if x.is_floating_point():
            assert x.dtype == torch.float32, path
            assert torch.allclose(x, a[path], atol=TOL, rtol=0), (path, (x - a[path]).abs().max().item())
        else:
            assert torch.equal(x, a[path]), path


def test_training_on_cuda_times_its_kernel_there_and_its_checkpoint_predicts_on_the_cpu(tmp_path, glove_txt, capsys):
    """``train --device cuda`` on a real GPU (tests/test_train_device.py only pretends one): the kernel is timed on
    the GPU, the summary names it, and the saved checkpoint (CPU tensors) loads on either device with the same
    predictions."""
    from disan.checkpoint import load_checkpoint
    from disan.train import TrainConfig, train
    from disan.vocab import load_glove
    from tests.fixture_data import fixture_data_dir

    cfg = TrainConfig(model="disan", task="sst5", out=str(tmp_path / "m"), data_dir=str(fixture_data_dir()),
                      glove=glove_txt, d_h=10, batch_size=4, epochs=1, threads=1, device="cuda")
    summary = train(cfg)
    assert "per step on cuda:0 → " in capsys.readouterr().out
    assert summary["device"] == "cuda:0" and torch.cuda.get_device_name(0) in summary["hardware"]
    assert summary["token2token"]["how"] == "measured" and summary["token2token"]["device"] == "cuda:0"
    path = tmp_path / "m.safetensors"
    cpu = load_checkpoint(path, load_glove(glove_txt), torch.device("cpu"))
    gpu = load_checkpoint(path, load_glove(glove_txt), torch.device("cuda"))
    texts = ["a dull mess .", "the best film of the year , by far ."]
    for pa, pb in zip(cpu.predict(texts), gpu.predict(texts)):
        assert max(abs(pa[k] - pb[k]) for k in pa) < TOL
