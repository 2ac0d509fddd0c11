"""Recipe options (config.RECIPE_FIELDS): each changes exactly what it names, and travels in the checkpoint."""

import dataclasses
import json

import numpy as np
import pytest
import torch
import torch.nn.functional as F
from safetensors import safe_open

from disan import checkpoint
from disan.__main__ import main
from disan.attention import source2token
from disan.config import RECIPE_FIELDS, ConfigError, ModelConfig
from disan.disan_encoder import DiSABlock, DiSANEncoder, Source2Token
from disan.masks import attention_allowed, direction_mask, padding_mask
from disan.model import SentenceModel
from disan.vocab import UNK_ID, build_vocab
from tests.fixture_data import fixture_data_dir

AUTHORS = dict(activation="relu", output_bias=False, dropout_mode="authors", unk_zero=True)


def test_fields_exist_and_a_config_saved_without_them_loads_with_the_defaults():
    defaults = ModelConfig()
    assert set(RECIPE_FIELDS) <= {f.name for f in dataclasses.fields(ModelConfig)}
    old = {k: v for k, v in ModelConfig(d_h=8, labels=("a", "b")).to_dict().items() if k not in RECIPE_FIELDS}
    loaded = ModelConfig.from_dict(old)
    assert loaded == ModelConfig(d_h=8, labels=("a", "b"))
    assert {n: getattr(loaded, n) for n in RECIPE_FIELDS} == {n: getattr(defaults, n) for n in RECIPE_FIELDS}


@pytest.mark.parametrize(
    ("kw", "fragment"),
    [
        (dict(activation="gelu"), "activation='gelu' is not allowed"),
        (dict(dropout_mode="paper"), "dropout_mode='paper'"),
        (dict(unk_zero="yes"), "unk_zero='yes'"),
        (dict(arch="dsa", activation="relu"), "does not apply to arch 'dsa'"),
        (dict(arch="dsa", dropout_mode="authors"), "does not apply to arch 'dsa'"),
        (dict(arch="disan", dsa_proj_bias=False), "does not apply to arch 'disan'"),
    ],
)
def test_bad_or_inapplicable_values_are_refused_with_a_clear_message(kw, fragment):
    with pytest.raises(ConfigError, match=fragment):
        ModelConfig(**kw)


def test_relu_and_elu_change_h_exactly_as_the_activation_of_the_linear():
    torch.manual_seed(0)
    elu = DiSABlock(3, 4, 5.0, 0.0, activation="elu").eval()  # float32, as the trace stores it
    relu = DiSABlock(3, 4, 5.0, 0.0, activation="relu").eval()
    relu.load_state_dict(elu.state_dict())
    x = torch.randn(2, 5, 3)
    valid = padding_mask([5, 3], 5)
    pre = elu.fc_h(x)  # (B, T, D)
    assert (pre < 0).any()  # both activations are exercised
    _, t_elu = elu(x, valid, "fw", record=True)
    _, t_relu = relu(x, valid, "fw", record=True)
    assert torch.equal(t_elu.h, F.elu(pre)) and torch.equal(t_relu.h, F.relu(pre))


def test_source2token_hidden_layer_uses_the_activation():
    torch.manual_seed(0)
    s2t = Source2Token(4, activation="relu").double()
    x = torch.randn(1, 3, 4, dtype=torch.float64)
    valid = padding_mask([3], 3)
    _, p = s2t(x, valid)
    p_relu = torch.softmax(F.relu(s2t.fc1(x)) @ s2t.fc2.weight.T + s2t.fc2.bias, dim=1)  # Shen Eq. 12 with σ = ReLU
    p_elu = torch.softmax(F.elu(s2t.fc1(x)) @ s2t.fc2.weight.T + s2t.fc2.bias, dim=1)
    assert torch.allclose(p, p_relu, atol=1e-12) and not torch.allclose(p, p_elu, atol=1e-6)


def small_model(**kw) -> SentenceModel:
    cfg = ModelConfig(d_in=6, d_h=8, heads=2, head_hidden=5, labels=("a", "b", "c"), dropout=0.0, **kw)
    vocab = build_vocab([["the", "movie", "is", "good"]])
    torch.manual_seed(0)
    return SentenceModel(cfg, vocab, None, "tiny", random_weights=True)


@pytest.mark.parametrize("arch", ["disan", "dsa"])
@pytest.mark.parametrize("pair", [False, True])
def test_no_output_bias_leaves_the_final_linear_without_bias(arch, pair):
    assert small_model(arch=arch, pair=pair).head.out.bias is not None
    model = small_model(arch=arch, pair=pair, output_bias=False)
    assert model.head.out.bias is None
    assert all(not name.startswith("head.out.bias") for name in model.state_dict())


def test_activation_also_sets_the_disan_heads_hidden_layer():
    model = small_model(activation="relu")
    s = torch.randn(2, model.encoder.out_dim)
    h = model.head
    assert torch.equal(h(s), h.out(F.relu(h.fc(s))))


def authors_block_by_hand(block: DiSABlock, x, valid, p):
    """The authors' dropout placement, written out (SST_disan/src/nn_utils/disan.py), with fresh F.dropout calls."""
    h = block.act(block.fc_h(F.dropout(x, p)))  # dropout on x, then Eq. 14
    h_d = F.dropout(h, p)  # the logits see dropped h ...
    T = x.shape[1]
    allowed = attention_allowed(direction_mask(T, "fw"), valid)  # (B, T, T)
    logits = (h_d @ block.w2.weight.T)[:, :, None] + (h_d @ block.w1.weight.T + block.b1)[:, None]  # (B, Tq, Tk, D)
    logits = block.c * torch.tanh(logits / block.c)
    probs = torch.softmax(logits.masked_fill(~allowed[..., None], -1e30), dim=2) * allowed[..., None]
    s = (probs * h[:, None]).sum(dim=2)  # ... the values are h before dropout (Eq. 11)
    gate = torch.sigmoid(block.gate_s(F.dropout(s, p)) + block.gate_h(F.dropout(h, p)))  # both gate inputs dropped
    return (gate * h + (1 - gate) * s) * valid[..., None]  # Eq. 20 on undropped h and s


@pytest.mark.parametrize("impl", ["reference", "auto"])
def test_authors_dropout_in_train_mode_matches_a_naive_reimplementation(impl):
    torch.manual_seed(0)
    p = 0.3
    block = DiSABlock(3, 4, 5.0, p, dropout_mode="authors").double().train()
    block.token2token_impl = impl  # "auto" trains through the fused kernel
    x = torch.randn(2, 6, 3, dtype=torch.float64)
    valid = padding_mask([6, 4], 6)
    torch.manual_seed(7)
    u, _ = block(x, valid, "fw")
    torch.manual_seed(7)
    expected = authors_block_by_hand(block, x, valid, p)
    assert torch.allclose(u, expected, atol=1e-10)
    ours = DiSABlock(3, 4, 5.0, p).double().train()
    ours.load_state_dict(block.state_dict())
    torch.manual_seed(7)
    assert not torch.allclose(ours(x, valid, "fw")[0], u, atol=1e-3)  # the mode changes the training forward


def test_authors_dropout_gradients_agree_between_the_fused_kernel_and_the_reference():
    torch.manual_seed(0)
    block = DiSABlock(3, 4, 5.0, 0.3, dropout_mode="authors").double().train()
    x = torch.randn(2, 6, 3, dtype=torch.float64)
    valid = padding_mask([6, 4], 6)
    grads = []
    for impl in ("auto", "reference"):
        block.token2token_impl = impl
        block.zero_grad()
        torch.manual_seed(3)
        block(x, valid, "bw")[0].square().sum().backward()
        grads.append([q.grad.clone() for q in block.parameters()])
    assert all(torch.allclose(a, b, atol=1e-10) for a, b in zip(*grads))


def test_authors_source2token_drops_both_dense_inputs_and_sums_the_undropped_x():
    torch.manual_seed(0)
    s2t = Source2Token(4, dropout=0.4).double().train()
    x = torch.randn(2, 5, 4, dtype=torch.float64)
    valid = padding_mask([5, 2], 5)
    torch.manual_seed(5)
    s, _ = s2t(x, valid)
    torch.manual_seed(5)
    hidden = F.elu(F.dropout(x, 0.4) @ s2t.fc1.weight.T + s2t.fc1.bias)
    logits = F.dropout(hidden, 0.4) @ s2t.fc2.weight.T + s2t.fc2.bias
    probs = torch.softmax(logits.masked_fill(~valid[..., None], -1e30), dim=1)
    assert torch.allclose(s, (probs * x).sum(dim=1), atol=1e-12)
    torch.manual_seed(5)
    assert torch.allclose(s, source2token(x, valid, s2t.fc1.weight, s2t.fc1.bias, s2t.fc2.weight, s2t.fc2.bias,
                                          drop=lambda t: F.dropout(t, 0.4))[0], atol=1e-12)


def test_eval_mode_outputs_are_identical_for_both_dropout_modes():
    torch.manual_seed(0)
    ours = DiSANEncoder(3, d_h=4, dropout=0.5).double().eval()
    authors = DiSANEncoder(3, d_h=4, dropout=0.5, dropout_mode="authors").double().eval()
    authors.load_state_dict(ours.state_dict())
    x = torch.randn(2, 6, 3, dtype=torch.float64)
    valid = padding_mask([6, 3], 6)
    a, ta = ours(x, valid, record=True)
    b, tb = authors(x, valid, record=True)
    assert torch.equal(a, b) and torch.equal(ta.fw.probs, tb.fw.probs) and torch.equal(ta.s2t_probs, tb.s2t_probs)


@pytest.mark.parametrize("optimizer", [torch.optim.Adadelta, torch.optim.Adam])
def test_unk_row_stays_zero_after_an_optimizer_step(optimizer):
    model = small_model(unk_zero=True).train()
    assert torch.equal(model.embedding.weight[UNK_ID], torch.zeros(6))
    x, _ = model.embed([["the", "qqunknownqq"]])
    assert torch.equal(x[0, 1], torch.zeros(6))  # an unknown word is the zero vector
    with torch.no_grad():
        model.embedding.weight[UNK_ID] = 1.0  # even a non-zero stored row is masked out
    model.zero_unk_row()
    opt = optimizer(model.parameters(), lr=0.5)
    logits, _, _ = model([["the", "qqunknownqq", "movie"], ["qqunknownqq"]])
    F.cross_entropy(logits, torch.tensor([0, 2])).backward()
    assert torch.equal(model.embedding.weight.grad[UNK_ID], torch.zeros(6))
    opt.step()
    assert torch.equal(model.embedding.weight[UNK_ID], torch.zeros(6))
    assert not torch.equal(model.embedding.weight[2], torch.zeros(6))  # other rows are trained


def test_without_unk_zero_the_unk_row_is_trained():
    model = small_model().train()
    logits, _, _ = model([["the", "qqunknownqq"]])
    F.cross_entropy(logits, torch.tensor([1])).backward()
    assert model.embedding.weight.grad[UNK_ID].abs().sum() > 0


def test_dsa_without_projection_biases_has_no_such_parameters():
    names = set(small_model(arch="dsa", dsa_proj_bias=False).state_dict())
    with_bias = set(small_model(arch="dsa").state_dict())
    dropped = {f"encoder.{d}.{p}.fc.bias" for d in ("fw", "bw") for p in ("q", "k", "v", "o", "gate_s", "gate_h")}
    assert dropped <= with_bias and names == with_bias - dropped


@pytest.mark.parametrize("kw", [dict(arch="disan", **AUTHORS), dict(arch="dsa", dsa_proj_bias=False, output_bias=False,
                                                                     unk_zero=True, pair=True)])
def test_save_and_load_keep_every_field_and_the_outputs(tmp_path, kw):
    model = small_model(**kw).eval()
    path = checkpoint.save(model, tmp_path / "m.safetensors", fp16=False, manifest=False)
    loaded = checkpoint.load_checkpoint(path, None)
    assert loaded.cfg == model.cfg
    assert {n: getattr(loaded.cfg, n) for n in RECIPE_FIELDS} == {n: kw.get(n, getattr(ModelConfig(), n))
                                                                  for n in RECIPE_FIELDS}
    args = ([["the", "movie", "qqunknownqq"]], [["good"]]) if model.cfg.pair else ([["the", "movie", "qqunknownqq"]],)
    assert torch.equal(model(*args)[0], loaded(*args)[0])


WORDS = ["the", "movie", "is", "good", "bad", "a", "great", "awful", "film", ".", ",", "not", "and", "it", "'s"]


@pytest.mark.parametrize(("model", "flags", "expected"), [
    ("disan", ["--activation", "relu", "--no-output-bias", "--dropout-mode", "authors", "--unk-zero"], AUTHORS),
    ("dsa", ["--no-dsa-proj-bias"], dict(dsa_proj_bias=False)),
])
def test_train_cli_writes_the_flags_into_the_checkpoint_config(tmp_path, model, flags, expected):
    rng = np.random.default_rng(0)
    glove = tmp_path / "vectors.8d.txt"
    glove.write_text("".join(f"{w} {' '.join(f'{v:.4f}' for v in rng.standard_normal(8))}\n" for w in WORDS))
    out = tmp_path / "run" / "m"
    args = ["train", "--model", model, "--task", "sst5", "--data-dir", str(fixture_data_dir()), "--glove", str(glove),
            "--out", str(out), "--d-h", "10", "--batch-size", "4", "--max-steps", "2", "--threads", "1", *flags]
    assert main(args) == 0
    with safe_open(str(out.with_suffix(".safetensors")), "pt") as f:
        saved = json.loads(f.metadata()["config"])
    assert {k: saved[k] for k in expected} == expected
    summary = json.loads(out.with_suffix(".train.json").read_text())
    assert {k: summary["train_config"][k] for k in expected} == expected


def test_train_refuses_an_option_the_arch_does_not_have_before_reading_data(capsys):
    args = ["train", "--model", "dsa", "--task", "sst5", "--data-dir", "/nonexistent", "--dropout-mode", "authors"]
    assert main(args) == 2
    err = capsys.readouterr().err
    assert "dropout_mode='authors' does not apply to arch 'dsa'" in err and len(err.strip().splitlines()) == 1
