"""One chunk of examples → its rows: the sentences table, the tokens table and the distance profile.

The chunk runs in batches of similar length (each under ``BATCH_ELEMENTS`` elements of the largest recorded
(B, T, T, D) tensor, as ``evidence.py`` batches a test set): one forward pass with the trace recorded (the
prediction and every attention measure) and one backward pass for gradient × input of the predicted class. The
result depends only on the chunk's examples, so every engine that runs the same chunks writes the same rows.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pyarrow as pa
import torch

from ..attribution.forward import SCORE, model_masks
from ..attribution.gradient import gradient_x_input
from ..attribution.rank import kendall_tau
from ..model import SentenceModel
from ..vocab import tokenize
from .columns import sentence_schema, token_schema
from .measures import distance_profile, sentence_measures, signature, signature_length, token_measures
from .sources import Item

#: Elements of the largest per-batch (B, T, T, D) tensor, and the most sentences in a batch.
BATCH_ELEMENTS = 2**24
MAX_BATCH = 256


@dataclass
class ChunkResult:
    sentences: pa.Table
    tokens: pa.Table
    profile: dict[str, np.ndarray]


def _batches(lengths: list[int], width: int) -> list[list[int]]:
    order = sorted(range(len(lengths)), key=lambda i: lengths[i])
    out: list[list[int]] = []
    for i in order:
        T = max(1, lengths[i])
        if out and (len(out[-1]) + 1) * T * T * width <= BATCH_ELEMENTS and len(out[-1]) < MAX_BATCH:
            out[-1].append(i)
        else:
            out.append([i])
    return out


def _column(values: np.ndarray, type_: pa.DataType) -> pa.Array:
    """NaN → null, so a filter never matches an undefined value."""
    values = np.asarray(values)
    mask = np.isnan(values) if values.dtype.kind == "f" else None
    return pa.array(values, type=type_, mask=mask, from_pandas=False)


def _tokens(text: str | None, limit: int) -> list[str]:
    toks = tokenize(text) if text else []
    return (toks or ["<empty>"])[:limit]


def index_chunk(model: SentenceModel, start: int, items: list[Item]) -> ChunkResult:
    """The rows of ``items`` (example ids ``start``, ``start + 1``, …)."""
    cfg = model.cfg
    model.eval()
    limit = cfg.max_tokens
    prem = [_tokens(it.text, limit) for it in items]
    hyp = [_tokens(it.hypothesis, limit) for it in items] if cfg.pair else None
    lengths = [max(len(p), len(h)) for p, h in zip(prem, hyp)] if hyp else [len(p) for p in prem]
    fn = model_masks(model, None, None)
    labels = list(cfg.labels)
    n = len(items)
    S = signature_length(cfg.arch, cfg.heads)
    probs_all = np.zeros((n, len(labels)), np.float32)
    sig_all = np.zeros((n, S), np.float32)
    summary: dict[str, np.ndarray] = {}
    tau = np.full(n, np.nan)
    token_cols: dict[str, list] = {}
    token_rows: list[tuple[int, int]] = []  # (order key: example index, side) per block of rows
    profile: dict[str, np.ndarray] = {}
    sides = ("premise", "hypothesis") if cfg.pair else ("text",)
    for ids in _batches(lengths, cfg.d_h):
        p_toks = [prem[i] for i in ids]
        h_toks = [hyp[i] for i in ids] if hyp else None
        with torch.inference_mode():
            logits, tp, th = model(p_toks, h_toks, record=True)  # (B, K)
        probs = torch.softmax(logits.float(), -1)  # (B, K)
        probs_all[ids] = probs.cpu().numpy()
        target = (torch.full((len(ids),), len(labels), device=model.device) if cfg.relatedness
                  else probs.argmax(-1))  # (B,) SCORE is column K of ClassProbability.outputs
        emb = fn.embed([p_toks] + ([h_toks] if h_toks else []))
        grads = gradient_x_input(fn, emb, target)  # per side (B, T_s)
        sig_all[ids] = signature(tp).cpu().numpy()
        measures_p = token_measures(tp)
        for name, v in sentence_measures(measures_p, tp.valid).items():
            summary.setdefault(name, np.full(n, np.nan))[ids] = v.double().cpu().numpy()
        for name, v in distance_profile(tp).items():
            profile[name] = profile.get(name, 0) + v.double().cpu().numpy()
        for side, trace, toks, grad in zip(sides, (tp, th), (p_toks, h_toks), grads):
            per_token = measures_p if trace is tp else token_measures(trace)
            per_token = {k: v.float().cpu().numpy() for k, v in per_token.items()}  # (B, T) each
            grad = grad.float().cpu().numpy()  # (B, T)
            for b, i in enumerate(ids):
                T = len(toks[b])
                if side != "hypothesis":
                    tau[i] = kendall_tau(per_token["s2t"][b, :T], np.abs(grad[b, :T]))
                status = model.token_status(toks[b])
                token_cols.setdefault("sentence_id", []).append(np.full(T, start + i, np.int64))
                token_cols.setdefault("side", []).append([side] * T)
                token_cols.setdefault("position", []).append(np.arange(T, dtype=np.int32))
                token_cols.setdefault("word", []).append(list(toks[b]))
                token_cols.setdefault("status", []).append(list(status))
                for k, v in per_token.items():
                    token_cols.setdefault(k, []).append(v[b, :T])
                token_cols.setdefault("grad_input", []).append(grad[b, :T])
                token_rows.append((i, sides.index(side)))
    order = sorted(range(len(token_rows)), key=lambda r: token_rows[r])  # source order, premise before hypothesis
    schema = token_schema(cfg.arch, cfg.heads)
    arrays = []
    for field in schema:
        parts = [token_cols[field.name][r] for r in order]
        if pa.types.is_string(field.type):
            arrays.append(pa.array([w for part in parts for w in part], type=field.type))
        else:
            arrays.append(_column(np.concatenate(parts), field.type))
    tokens = pa.Table.from_arrays(arrays, schema=schema)
    return ChunkResult(_sentences(model, start, items, prem, hyp, probs_all, sig_all, summary, tau),
                       tokens, {k: np.asarray(v) for k, v in profile.items()})


def _sentences(model, start, items, prem, hyp, probs, sig, summary, tau) -> pa.Table:
    labels = list(model.cfg.labels)
    n = len(items)
    pred_idx = probs.argmax(1)
    pred = [labels[k] for k in pred_idx]
    gold = [it.gold for it in items]
    correct = [None if g is None or g not in labels else g == p for g, p in zip(gold, pred)]
    S = sig.shape[1]
    schema = sentence_schema(S)
    data = {
        "sentence_id": pa.array(np.arange(start, start + n, dtype=np.int64)),
        "corpus": pa.array([it.corpus for it in items], pa.string()),
        "source": pa.array([it.source for it in items], pa.string()),
        "text": pa.array([it.text for it in items], pa.string()),
        "hypothesis": pa.array([it.hypothesis for it in items], pa.string()),
        "tokens": pa.array(prem, pa.list_(pa.string())),
        "hypothesis_tokens": pa.array(hyp if hyp else [None] * n, pa.list_(pa.string())),
        "T": pa.array([len(p) for p in prem], pa.int32()),
        "gold": pa.array(gold, pa.string()),
        "gold_score": pa.array([it.gold_score for it in items], pa.float32()),
        "pred": pa.array(pred, pa.string()),
        "pred_prob": _column(probs.max(1), pa.float32()),
        "probs": pa.FixedSizeListArray.from_arrays(pa.array(probs.reshape(-1), pa.float32()), probs.shape[1])
        .cast(pa.list_(pa.float32())),
        "correct": pa.array(correct, pa.bool_()),
        **{k: _column(v, pa.float32()) for k, v in summary.items()},
        "tau_s2t_grad": _column(tau, pa.float32()),
        "signature": pa.FixedSizeListArray.from_arrays(pa.array(sig.reshape(-1), pa.float32()), S),
    }
    return pa.Table.from_arrays([data[f.name] for f in schema], schema=schema)
