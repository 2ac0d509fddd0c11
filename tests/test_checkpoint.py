"""Checkpoint round trip and every integrity failure, each with a message naming the file."""

import json

import pytest
import torch

from disan import CheckpointError, checkpoint
from tests.conftest import make_tiny


@pytest.fixture
def saved(tmp_path, tiny_glove):
    model = make_tiny("dsa", tiny_glove)
    path = checkpoint.save(model, tmp_path / "m", fp16=False)
    return model, path


def test_round_trip_gives_identical_outputs(saved, tiny_glove):
    model, path = saved
    loaded = checkpoint.load_checkpoint(path, tiny_glove)
    text = "the movie is good , glass ."
    a, b = model.trace(text), loaded.trace(text)
    assert a.prediction == b.prediction
    assert torch.equal(a.premise.encoder.fw.probs, b.premise.encoder.fw.probs)
    assert loaded.cfg == model.cfg and loaded.vocab.words == model.vocab.words


def test_fp16_storage_round_trips_within_half_precision(tmp_path, tiny_glove):
    model = make_tiny("disan", tiny_glove)
    path = checkpoint.save(model, tmp_path / "h")
    loaded = checkpoint.load_checkpoint(path, tiny_glove)
    for k, v in model.state_dict().items():
        assert torch.allclose(v, loaded.state_dict()[k], atol=1e-2, rtol=1e-3)


def test_manifest_records_sha256(saved):
    _, path = saved
    manifest = json.loads((path.parent / "MANIFEST.json").read_text())
    assert manifest[path.name] == checkpoint.sha256(path)


def test_truncated_file_is_reported(saved, tiny_glove):
    _, path = saved
    data = path.read_bytes()
    path.write_bytes(data[: len(data) // 2])
    checkpoint.update_manifest(path)  # hash matches, content is still truncated
    with pytest.raises(CheckpointError, match=str(path.name)):
        checkpoint.load_checkpoint(path, tiny_glove)


def test_wrong_hash_is_reported(saved, tiny_glove):
    _, path = saved
    data = bytearray(path.read_bytes())
    data[-1] ^= 0xFF
    path.write_bytes(bytes(data))
    with pytest.raises(CheckpointError, match="SHA-256"):
        checkpoint.load_checkpoint(path, tiny_glove)


def test_config_that_does_not_match_weights(tmp_path, tiny_glove):
    model = make_tiny("dsa", tiny_glove)
    path = checkpoint.save(model, tmp_path / "x", fp16=False)
    from safetensors.torch import load_file, save_file

    meta_model = make_tiny("dsa", tiny_glove, ffn_mult=2)
    tensors = load_file(str(path))
    cfg = json.dumps(meta_model.cfg.to_dict())
    save_file(tensors, str(path), metadata={"format": checkpoint.FORMAT, "config": cfg, "vocab": json.dumps(list(model.vocab.words))})
    checkpoint.update_manifest(path)
    with pytest.raises(CheckpointError, match="do not match its config"):
        checkpoint.load_checkpoint(path, tiny_glove)


def test_missing_file_and_non_safetensors(tmp_path, tiny_glove):
    with pytest.raises(CheckpointError, match="does not exist"):
        checkpoint.load_checkpoint(tmp_path / "nope.safetensors", tiny_glove)
    pickle_like = tmp_path / "evil.safetensors"
    pickle_like.write_bytes(b"\x80\x04\x95this is a pickle, not safetensors")
    with pytest.raises(CheckpointError, match="evil.safetensors"):
        checkpoint.load_checkpoint(pickle_like, tiny_glove)


def test_a_hostile_config_is_refused_before_allocating(tmp_path, tiny_glove):
    """check_shapes builds the model on the meta device: a config asking for gigabytes is refused at once."""
    import resource

    model = make_tiny("dsa", tiny_glove)
    path = checkpoint.save(model, tmp_path / "x", fp16=False)
    from safetensors.torch import load_file, save_file

    cfg = {**model.cfg.to_dict(), "d_h": 1_000_000}  # ~4 TB of float32 weights if it were allocated
    save_file(load_file(str(path)), str(path), metadata={"format": checkpoint.FORMAT, "config": json.dumps(cfg),
                                                         "vocab": json.dumps(list(model.vocab.words))})
    checkpoint.update_manifest(path)
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    with pytest.raises(CheckpointError, match="do not match its config"):
        checkpoint.load_checkpoint(path, tiny_glove)
    assert resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before < 200_000  # KiB: well under 200 MB


def test_checking_shapes_imports_no_compiler(saved):
    """The meta model's embedding init skips normal_, which on meta imports sympy and dynamo (1–2 s, issue 19)."""
    import subprocess
    import sys

    _, path = saved
    code = ("import sys; from disan import checkpoint; p = checkpoint.Path(sys.argv[1]); "
            "checkpoint.check_shapes(p, *checkpoint.read_metadata(p)[:2]); "
            "print(sorted(m for m in ('torch._dynamo', 'sympy') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code, str(path)], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_seeded_models_draw_the_embedding_as_nn_embedding_does(tiny_glove):
    """The embedding built from its own tensor gets the weights nn.Embedding would, and leaves the RNG where it
    would: the encoder drawn next is the same as after nn.Embedding's own init."""
    from torch import nn

    from disan.model import build_encoder

    rebuilt = make_tiny("disan", tiny_glove)  # seeds 0 first
    torch.manual_seed(0)
    reference = nn.Embedding(len(rebuilt.vocab.words), rebuilt.cfg.d_in, padding_idx=0)
    encoder = build_encoder(rebuilt.cfg)
    assert torch.equal(rebuilt.embedding.weight[2:], reference.weight[2:])  # rows 0 (<pad>) and 1 (<unk>) zeroed
    assert torch.equal(rebuilt.embedding.weight[0], torch.zeros(rebuilt.cfg.d_in))
    for (name, a), (_, b) in zip(encoder.state_dict().items(), rebuilt.encoder.state_dict().items(), strict=True):
        assert torch.equal(a, b), name
    with torch.device("meta"):
        assert make_tiny("disan", tiny_glove).embedding.weight.is_meta
