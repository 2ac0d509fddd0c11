"""Plain numpy records of a ``ModelTrace`` (B = 1), cheap to cache and pickle.

``TraceView`` keeps only what the views draw: T×T maps reduced over features
(DiSAN) or kept per head (DSA), gates, pooling weights and FFN statistics.
The full per-feature DiSAN tensor stays in the cached ``ModelTrace``.

Importing this module imports no torch (the records hold numpy only, so a stored ``TraceView`` is read and
drawn before torch loads: ``view_store.py``); ``trace_view`` imports what converting a trace needs.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    from disan.trace import DiSABlockTrace, DistanceBlockTrace, ModelTrace, SentenceTrace



@dataclass(frozen=True)
class BlockView:
    """One directional block. ``attention`` (T, T) = mean over features (DiSAN) or heads (DSA)."""

    mask: str
    allowed: np.ndarray  # (T, T) bool
    attention: np.ndarray  # (T, T)
    gate: np.ndarray  # (T, D)  Shen Eq. 19 / Im Eq. 12
    probs_max: np.ndarray | None = None  # (T, T) DiSAN: max over features
    keys: np.ndarray | None = None  # (T, D) DiSAN: Shen Eq. 15's W1 h_i + b1 (docs/trace-view.md)
    queries: np.ndarray | None = None  # (T, D) DiSAN: Shen Eq. 15's W2 h_j
    c: float | None = None  # DiSAN: Shen Eq. 15's c; with keys and queries, every cell's logit before the mask
    heads: np.ndarray | None = None  # (H, T, T) DSA: Eq. 7 per head
    scores: np.ndarray | None = None  # (H, T, T) DSA: QK^T/√d_k before masks
    ffn_deactivation: np.ndarray | None = None  # (T,) DSA: Im Fig. 10a
    ln_max: np.ndarray | None = None  # (T,) DSA: Im Fig. 10b
    #: ``disan.stats.summarize(attention)``: mean |i − j|, mean row entropy, attending rows.
    summary: dict[str, float] | None = None


@dataclass(frozen=True)
class SentenceView:
    """One sentence: tokens, vocabulary status and both blocks."""

    tokens: tuple[str, ...]
    status: tuple[str, ...]
    fw: BlockView
    bw: BlockView
    s2t: np.ndarray  # (T, 2D) source2token probabilities (Shen Fig. 8; Im Fig. 11a)
    maxpool_share: np.ndarray | None  # (T,) DSA: Im Fig. 11b

    @property
    def length(self) -> int:
        return len(self.tokens)

    def block(self, direction: str) -> BlockView:
        return self.fw if direction == "fw" else self.bw


@dataclass(frozen=True)
class TraceView:
    """A model's prediction and the views of its premise (and hypothesis)."""

    model: str
    arch: str
    random_weights: bool
    prediction: dict[str, float]
    masks: tuple[str, str]
    alpha: float | None
    premise: SentenceView
    hypothesis: SentenceView | None
    #: A relatedness model's score rᵀp̂ (``ModelTrace.relatedness``), else None.
    relatedness: float | None = None

    def side(self, name: str) -> SentenceView:
        return self.hypothesis if name == "hypothesis" and self.hypothesis is not None else self.premise


def _np(t) -> np.ndarray:
    return t.detach().cpu().numpy()


def _block(block: DiSABlockTrace | DistanceBlockTrace, T: int) -> BlockView:
    import torch

    from disan.stats import summarize
    from disan.trace import DiSABlockTrace

    allowed = _np(block.allowed[0, :T, :T])
    gate = _np(block.gate[0, :T])
    if isinstance(block, DiSABlockTrace):
        attention = _np(block.probs_mean[0, :T, :T])  # (T, T)
        return BlockView(
            mask=block.mask,
            allowed=allowed,
            attention=attention,
            gate=gate,
            probs_max=_np(block.probs_max[0, :T, :T]),
            keys=None if block.key_part is None else _np(block.key_part[0, :T]),  # (T, D)
            queries=None if block.query_part is None else _np(block.query_part[0, :T]),  # (T, D)
            c=block.c,
            summary=summarize(torch.from_numpy(attention)),
        )
    heads = _np(block.probs[0, :, :T, :T])  # (H, T, T)
    attention = heads.mean(0)  # (T, T)
    return BlockView(
        mask=block.mask,
        allowed=allowed,
        attention=attention,
        gate=gate,
        summary=summarize(torch.from_numpy(attention)),
        heads=heads,
        scores=_np(block.scores[0, :, :T, :T]),
        ffn_deactivation=_np(block.ffn_deactivation[0, :T]),
        ln_max=_np(block.ln_max[0, :T]),
    )


def sentence_view(sent: SentenceTrace) -> SentenceView:
    T = len(sent.tokens)
    enc = sent.encoder
    share = getattr(enc, "maxpool_share", None)
    return SentenceView(
        tokens=sent.tokens,
        status=sent.token_status,
        fw=_block(enc.fw, T),
        bw=_block(enc.bw, T),
        s2t=_np(enc.s2t_probs[0, :T]),
        maxpool_share=None if share is None else _np(share[0, :T]),
    )


def trace_view(trace: ModelTrace) -> TraceView:
    return TraceView(
        model=trace.model,
        arch=trace.arch,
        random_weights=trace.random_weights,
        prediction=dict(trace.prediction),
        masks=tuple(trace.masks),
        alpha=trace.alpha,
        premise=sentence_view(trace.premise),
        hypothesis=None if trace.hypothesis is None else sentence_view(trace.hypothesis),
        relatedness=trace.relatedness,
    )
