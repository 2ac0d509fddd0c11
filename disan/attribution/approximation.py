"""How far gated rollout is from an exact reference: erasure of each token with the weights held fixed.

Rollout (``rollout.py``) splits each sentence feature s[k] among the tokens by the model's weights
for this input. The reference computes the split without rollout's assumptions: every attention
distribution, fusion gate and max-pool winner is recorded on the full input and replayed
(``_Replay``), and token i's token-local vectors are set to zero (DiSAN: h_i, through W_h's output,
since σ(0) = 0 for ELU and ReLU; the DSA: its value vector v_i and its gate-side S^F_i, a block's
only per-token inputs besides the weights). The part of s[k] that token i carries is then
e_i[k] = s[k] − s[k] without token i, through every LayerNorm, W^O, W^H and FFN exactly, and its
share p_i = mean_k |e_i[k]| / Σ_i' |e_i'[k]|.

Compared per sentence with rollout's mixing-weight shares (``Rollout.shares``, renormalised over
the tokens) and, for DiSAN, its vector shares: total-variation distance ½ Σ_i |p̂_i − p_i| (0: the
same split, 1: disjoint) and Kendall τ between the rankings. DiSAN's s is linear in h given the
weights, so its vector shares equal the reference to rounding (tested) and its mixing shares
differ from it only because they are shares of the weights, not of the vector; the DSA has no
per-feature token-local values, so its mixing shares are all rollout offers, and their distance
from the reference is the approximation's error (head average, LayerNorms and FFN taken to pass
shares through, biases) together with that weights-versus-vector difference.

    python -m disan.attribution.approximation --model dsa-sst5 --limit 100 [--out FILE]
"""

from __future__ import annotations

import argparse
import json
import sys
from contextlib import ExitStack
from pathlib import Path

import numpy as np
import torch
from torch import Tensor
from torch.overrides import TorchFunctionMode

from ..model import SentenceModel
from .corpus import _ci, example_sides, sample
from .detach import _SOFTMAX
from .rank import kendall_tau
from .rollout import gated_rollout

_SIGMOID = {torch.sigmoid, torch.Tensor.sigmoid}


class _Replay(TorchFunctionMode):
    """First pass (``record``): keep every attention softmax, fusion-gate sigmoid and max-pool arg-max of a
    one-sentence batch, in call order. Later passes return them (expanded to the batch) in the same order."""

    def __init__(self):
        super().__init__()
        self.kept: list[Tensor] = []
        self.recording = True
        self.at = 0

    def __torch_function__(self, func, types, args=(), kwargs=None):
        kwargs = kwargs or {}
        dim = kwargs.get("dim", args[1] if len(args) > 1 else None)
        is_max = func is torch.Tensor.max and dim is not None and args[0].dim() == 3
        if not (is_max or (func in _SOFTMAX | _SIGMOID and args[0].dim() >= 3)):
            return func(*args, **kwargs)
        if self.recording:
            out = func(*args, **kwargs)
            self.kept.append(out.indices if is_max else out)
            return out
        kept = self.kept[self.at]
        self.at += 1
        batch = args[0].shape[0]
        if is_max:  # the recorded winner of each feature, whatever the new values
            idx = kept.expand(batch, -1)  # (B, F)
            return args[0].gather(1, idx[:, None])[:, 0], idx
        return kept.expand(batch, *kept.shape[1:]).clone()


def _token_local(model: SentenceModel) -> list[torch.nn.Module]:
    """The modules whose outputs are a token's own vectors (module docstring)."""
    enc = model.encoder
    if model.cfg.arch == "disan":
        return [enc.fw.fc_h, enc.bw.fc_h]
    return [enc.fw.v, enc.bw.v, enc.fw.gate_s, enc.bw.gate_s]


def erasure_parts(model: SentenceModel, tokens: list[str]) -> tuple[Tensor, object, object]:
    """(T, F) e_i[k] of one sentence, its encoder record (for rollout on the same weights) and the record of
    the T erased variants (their weights are the full input's, replayed)."""
    x, valid = model.embed([tokens])  # (1, T, d_in), (1, T)
    T = x.shape[1]
    replay = _Replay()
    with torch.no_grad():
        with replay:
            full, enc = model.encoder(x, valid, True, None, None, None)  # (1, F); one chunk, as below
        replay.recording = False
        rows = torch.arange(T)

        def erase(_module, _inputs, out):
            out = out.clone()
            out[rows, rows] = 0  # batch row i loses token i's own vector
            return out

        with ExitStack() as stack:
            for m in _token_local(model):
                stack.callback(m.register_forward_hook(erase).remove)
            with replay:
                without, erased = model.encoder(x.expand(T, -1, -1), valid.expand(T, -1), True, None, None, None)  # (T, F)
    return (full - without).double(), enc, erased


def shares(parts: Tensor) -> np.ndarray:
    """(T,) mean over features of |part_i[k]| / Σ_i' |part_i'[k]|."""
    a = parts.abs()
    return (a / a.sum(0, keepdim=True).clamp_min(1e-30)).mean(1).numpy()


def compare(model: SentenceModel, sentences: list[list[str]]) -> dict:
    """Per sentence: total-variation distance and Kendall τ between the reference's shares and rollout's mixing
    shares (and DiSAN's vector shares), as means over sentences with 95% bootstrap intervals."""
    model.eval()
    rows: dict[str, list[float]] = {}
    for tokens in sentences:
        if len(tokens) < 2:
            continue
        parts, enc, _ = erasure_parts(model, tokens)
        p = shares(parts)
        roll = gated_rollout(enc)
        mixing = roll.shares[0].double().numpy()
        candidates = {"mixing": mixing / mixing.sum()}
        if roll.vector_shares is not None:
            candidates["vector"] = roll.vector_shares[0].double().numpy()
        for name, q in candidates.items():
            rows.setdefault(f"{name}:total_variation", []).append(0.5 * float(np.abs(p - q).sum()))
            rows.setdefault(f"{name}:kendall_tau", []).append(kendall_tau(p, q))
    out: dict = {}
    for key, values in rows.items():
        name, stat = key.split(":")
        out.setdefault(name, {})[stat] = _ci(np.array(values))
    return out


def main(argv: list[str] | None = None) -> int:
    from ..api import PRETRAINED_DIR
    from ..claims_file import trained_model_and_examples

    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--model", required=True)
    p.add_argument("--limit", type=int, default=100, help="seeded random sample of the test set (corpus.sample)")
    p.add_argument("--data-dir", default=None)
    p.add_argument("--out", default=None, help="also write the JSON line to this file")
    args = p.parse_args(argv)
    _, model, task, examples = trained_model_and_examples(args.model, "test", None, args.data_dir, PRETRAINED_DIR,
                                                          "the rollout check")
    ids = sample(len(examples), args.limit)
    sentences = [list(s) for i in ids for s in example_sides(examples[i], model.cfg.max_tokens)]
    result = {"model": model.name, "task": task, "sample": f"{len(ids)} of {len(examples)} test examples "
              "(corpus.sample, seed 0), every sentence of each", "rollout_exact": model.cfg.arch == "disan",
              "reference": "erasure of each token's token-local vectors with the weights replayed",
              **compare(model, sentences)}
    line = json.dumps(result, ensure_ascii=False)
    print(line)
    if args.out:
        Path(args.out).write_text(line + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
