"""The function every attribution explains: embeddings → probability of one class, or a relatedness model's score.

An input is one or two *sides* (a sentence, or an NLI premise and hypothesis), each
embedded once by ``SentenceModel.embed`` into x (B, T, d_in) with a padding mask. The
encoder and head then run on x directly, so gradients reach the embeddings and
erasures can swap rows without tokenising again. ``masks`` and ``alpha`` are the
trace's inference-time overrides, so an attribution explains the same computation
the trace recorded.

A relatedness model (SICK) predicts the score ŷ = rᵀp̂ (Tai, Socher & Manning 2015, Sec. 4.2), not a grade:
``outputs`` appends ŷ to its grade probabilities as column K (``SCORE``), the target its attributions explain
by default, so gradient × input, Integrated Gradients and leave-one-out are in units of relatedness.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import torch
from torch import Tensor

from ..model import SentenceModel
from ..vocab import UNK_ID

#: The target name of a relatedness model's score ŷ = rᵀp̂ (column K of ``ClassProbability.outputs``).
SCORE = "relatedness"


@dataclass(frozen=True)
class Embedded:
    """Embedded sides of a batch. xs: per side (B, T_s, d_in); valids: per side (B, T_s) bool;
    tokens: per side the B token lists."""

    xs: tuple[Tensor, ...]
    valids: tuple[Tensor, ...]
    tokens: tuple[tuple[tuple[str, ...], ...], ...]

    @property
    def batch(self) -> int:
        return self.xs[0].shape[0]


@dataclass(frozen=True)
class ClassProbability:
    """``model``'s class probabilities from embeddings, under fixed masks and α (eval mode, no dropout)."""

    model: SentenceModel
    masks: tuple[str, str]
    alpha: float | None

    def encode(self, x: Tensor, valid: Tensor) -> Tensor:
        """One side's sentence vectors (B, E) from x (B, T, d_in) and valid (B, T): each side runs through the tied
        encoder on its own, so a variant that changes one side of a pair can reuse the other's vector."""
        alpha = None if self.model.cfg.arch == "disan" else self.alpha
        return self.model.encoder(x, valid, False, self.masks, alpha)[0]  # (B, E)

    def probs(self, xs: Sequence[Tensor], valids: Sequence[Tensor]) -> Tensor:
        """Per side x (B, T_s, d_in) and valid (B, T_s) → probabilities (B, K)."""
        return torch.softmax(self.model.head(*[self.encode(x, v) for x, v in zip(xs, valids)]), -1)  # (B, K)

    def outputs(self, xs: Sequence[Tensor], valids: Sequence[Tensor]) -> Tensor:
        """What an attribution can explain, one column per target: the K class probabilities and, for a
        relatedness model, its score ŷ = rᵀp̂ with r = [1, …, K] (Tai Sec. 4.2) as column K.
        Returns (B, K), or (B, K + 1) for a relatedness model."""
        return self.head_outputs([self.encode(x, v) for x, v in zip(xs, valids)])

    def head_outputs(self, encs: Sequence[Tensor]) -> Tensor:
        """``outputs`` from the sides' sentence vectors (B, E) each (``encode``)."""
        p = torch.softmax(self.model.head(*encs), -1)  # (B, K)
        if not self.model.cfg.relatedness:
            return p
        grades = torch.arange(1, p.shape[-1] + 1, dtype=p.dtype, device=p.device)  # (K,)
        return torch.cat([p, (p @ grades)[:, None]], -1)  # (B, K + 1)

    def targets(self) -> list[str]:
        """The name of each column of ``outputs``: the labels, then ``SCORE`` for a relatedness model."""
        labels = list(self.model.cfg.labels)
        return labels + [SCORE] if self.model.cfg.relatedness else labels

    def captum_forward(self, *args: Tensor) -> Tensor:
        """Captum's ``forward_func``: the sides' embeddings, then their masks (its additional arguments)."""
        half = len(args) // 2
        return self.outputs(args[:half], args[half:])  # (B, K) or (B, K + 1)

    def embed(self, sides: Sequence[Sequence[Sequence[str]]]) -> Embedded:
        """Token lists per side (each B long) → ``Embedded``, with no gradient into the embedding table."""
        with torch.no_grad():
            pairs = [self.model.embed(side) for side in sides]
        return Embedded(tuple(x.detach() for x, _ in pairs), tuple(v for _, v in pairs),
                        tuple(tuple(tuple(t) for t in side) for side in sides))

    def unk_vector(self) -> Tensor:
        """The ``<unk>`` embedding (d_in,): a zero vector with ``--unk-zero`` (every bundled checkpoint)."""
        if self.model.cfg.unk_zero:
            return torch.zeros(self.model.cfg.d_in, device=self.model.device)
        return self.model.embedding.weight[UNK_ID].detach()  # (d_in,)


def model_masks(model: SentenceModel, masks: tuple[str, str] | None, alpha: float | None) -> ClassProbability:
    """``ClassProbability`` with the model's trained masks and α unless overridden."""
    return ClassProbability(model, tuple(masks or model.cfg.masks), alpha)
