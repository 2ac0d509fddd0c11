"""The bundled checkpoints load with the recipe they were trained with (a checkpoint saved before the
options existed has no recipe keys and loads with the defaults), and that recipe computes the formulas
written out here from the stored weights."""

import json
import math
from pathlib import Path

import pytest
import torch
import torch.nn.functional as F
from safetensors import safe_open

import disan
from disan.attention import multi_dim_token2token
from disan.config import RECIPE_FIELDS, ModelConfig
from disan.masks import attention_allowed, direction_mask, distance_mask
from disan.vocab import UNK_ID, tokenize

PRETRAINED = Path(__file__).resolve().parents[1] / "pretrained"
NAMES = sorted(p.stem for p in PRETRAINED.glob("*.safetensors"))
SENTENCES = ["it 's not a qqunknownqq film , but the plot is awful .", "a gorgeous , witty , seductive movie ."]
PAIRS = [("A man is pouring a glass of qqunknownqq .", "A man pours a drink ."), ("Two dogs run .", "Animals sleep .")]

pytestmark = pytest.mark.skipif(not NAMES, reason="no checkpoint in pretrained/ yet")


def linear(layer, x):
    return x @ layer.weight.T + (0 if layer.bias is None else layer.bias)  # --no-output-bias, --no-dsa-proj-bias


def normed(layer, x):
    return F.layer_norm(linear(layer.fc, x), x.shape[-1:], layer.norm.weight, layer.norm.bias, layer.norm.eps)


def masked_softmax(logits, allowed, dim):
    return torch.softmax(logits.masked_fill(~allowed, -1e30), dim=dim) * allowed


def activation(cfg):
    return F.relu if cfg.activation == "relu" else F.elu  # --activation, DiSAN only


def source2token(s2t, u, valid, act=F.elu):
    hidden = linear(s2t.fc1, u)  # (B, T, 2D)
    if s2t.norm is not None:
        hidden = s2t.norm(hidden)
    probs = masked_softmax(linear(s2t.fc2, act(hidden)), valid[..., None], dim=1)  # Shen Eq. 12
    return (probs * u).sum(dim=1)  # (B, 2D)


def disan_encoder(enc, x, valid, act):
    outs = []
    for block, kind in ((enc.fw, enc.masks[0]), (enc.bw, enc.masks[1])):
        h = act(linear(block.fc_h, x))  # (B, T, D)  Eq. 14
        allowed = attention_allowed(direction_mask(x.shape[1], kind), valid)  # (B, T, T)
        s, _ = multi_dim_token2token(h, allowed, block.w1.weight, block.w2.weight, block.b1, block.c)
        gate = torch.sigmoid(s @ block.gate_s.weight.T + linear(block.gate_h, h))  # Eq. 19
        outs.append((gate * h + (1 - gate) * s) * valid[..., None])  # Eq. 20
    return source2token(enc.s2t, torch.cat(outs, -1), valid, act)


def dsa_encoder(enc, x, valid, act=None):
    x = linear(enc.proj, x) if enc.proj is not None else x  # (B, T, D)
    B, T, D = x.shape
    outs = []
    for block, kind in ((enc.fw, enc.masks[0]), (enc.bw, enc.masks[1])):
        H = block.heads
        q, k, v = (normed(p, x).view(B, T, H, D // H).transpose(1, 2) for p in (block.q, block.k, block.v))
        scores = q @ k.transpose(-1, -2) / math.sqrt(D // H) + enc.alpha * distance_mask(T)  # (B, H, T, T)
        probs = masked_softmax(scores, attention_allowed(direction_mask(T, kind), valid)[:, None], dim=-1)
        attn = normed(block.o, (probs @ v).transpose(1, 2).reshape(B, T, D))  # (B, T, D)
        sf, hf = normed(block.gate_s, x), normed(block.gate_h, attn)
        gate = torch.sigmoid(sf + hf + block.gate_b)
        fused = gate * sf + (1 - gate) * hf
        outs.append(block.ffn_norm(fused + linear(block.ffn2, F.relu(linear(block.ffn1, fused)))))
    u = torch.cat(outs, -1)  # (B, T, 2D)
    maxed = u.masked_fill(~valid[..., None], -1e30).amax(dim=1)  # (B, 2D)
    return torch.cat([source2token(enc.s2t, u, valid), maxed], -1)


def head(model, sp, sh):
    h, dsa = model.head, model.cfg.arch == "dsa"
    if hasattr(h, "w_mul"):  # SICK relatedness (Tai et al. 2015, Sec. 4.2): sigmoid(W× (s_a ⊙ s_b) + W+ |s_a − s_b| + b)
        return linear(h.out, torch.sigmoid(linear(h.w_mul, sp * sh) + linear(h.w_abs, (sp - sh).abs())))
    if not model.cfg.pair:
        return linear(h.out, (F.relu if dsa else activation(model.cfg))(linear(h.fc, sp)))
    if dsa:
        return linear(h.out, F.relu(h.norm(linear(h.fc, torch.cat([sp, sh, (sp - sh).abs(), sp * sh], -1)))))
    return linear(h.out, activation(model.cfg)(linear(h.fc, torch.cat([sp, sh, sp - sh, sp * sh], -1))))


@pytest.mark.parametrize("name", NAMES)
def test_checkpoint_loads_with_its_stored_recipe_and_the_defaults_where_none_is_stored(name):
    with safe_open(str(PRETRAINED / f"{name}.safetensors"), "pt") as f:
        stored = json.loads(f.metadata()["config"])
    model = disan.load(name, device="cpu")
    defaults = ModelConfig()
    for field in RECIPE_FIELDS:
        assert getattr(model.cfg, field) == stored.get(field, getattr(defaults, field)), field
    if model.cfg.unk_zero:
        assert not model.embedding.weight[UNK_ID].any()  # the authors' constant zero <unk>


@pytest.mark.parametrize("name", NAMES)
@torch.inference_mode()
def test_stored_recipe_computes_the_formulas_the_checkpoint_was_trained_with(name):
    model = disan.load(name, device="cpu").eval()
    encoder = disan_encoder if model.cfg.arch == "disan" else dsa_encoder
    items = PAIRS if model.cfg.pair else [(s, None) for s in SENTENCES]
    prem = [tokenize(p) for p, _ in items]
    hyp = [tokenize(h) for _, h in items] if model.cfg.pair else None
    x, valid = model.embed(prem)
    unk = prem[0].index("qqunknownqq")
    assert torch.equal(x[0, unk], model.embedding.weight[UNK_ID])  # an unknown word gets the stored <unk> row
    act = activation(model.cfg)
    sp = encoder(model.encoder, x, valid, act)
    sh = encoder(model.encoder, *model.embed(hyp), act) if hyp else None
    expected = head(model, sp, sh)  # (B, K)
    logits, _, _ = model(prem, hyp)  # the fast path predict() uses
    assert torch.allclose(logits, expected, atol=1e-4, rtol=1e-4)
    for i, (p, h) in enumerate(items):
        trace = model.trace(p, h) if model.cfg.pair else model.trace(p)
        assert torch.allclose(trace.premise.encoder.sentence[0], sp[i], atol=1e-5)
        got = torch.tensor(list(trace.prediction.values()))
        assert torch.allclose(got, torch.softmax(expected[i], -1), atol=1e-5)
