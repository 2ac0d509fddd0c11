"""Shen Fig. 8 over a corpus: the same word's source2token vector in two different sentences."""

from __future__ import annotations

from collections.abc import Sequence

import torch
from torch import Tensor

from .claims import SentenceBatch
from .measures import vector_pearson
from .wordclass import CONTENT


class ContextPairs:
    """Pairs each content-word occurrence with the same word's previous occurrence in another sentence.

    The vector of a word is its row of the source2token probabilities (Shen
    Eqs. 12–13) times the sentence length, so 1 = uniform attention and
    sentences of different lengths share one scale. Sentences arrive in a
    fixed order (``evidence.batches``), so the pairing is deterministic.
    """

    def __init__(self) -> None:
        self._last: dict[str, tuple[int, Tensor]] = {}  # word → (sentence id, its latest vector)

    def update(self, batch: SentenceBatch, ids: Sequence[int]) -> tuple[Tensor, Tensor]:
        """Per sentence of the batch the mean r of its paired words (NaN if none) (B,), and every pair's r."""
        s2t = batch.trace.s2t_probs  # (B, T, 2D)
        cur, prev, owner = [], [], []
        for b, (toks, classes) in enumerate(zip(batch.tokens, batch.classes)):
            for t, (tok, cls) in enumerate(zip(toks, classes)):
                if cls != CONTENT:
                    continue
                vec = s2t[b, t] * len(toks)  # (2D,)
                seen = self._last.get(tok)
                if seen is not None and seen[0] != ids[b]:
                    cur.append(vec)
                    prev.append(seen[1])
                    owner.append(b)
                self._last[tok] = (ids[b], vec.clone())
        B = len(batch.tokens)
        if not cur:
            return torch.full((B,), float("nan"), dtype=torch.float64), torch.zeros(0, dtype=torch.float64)
        r = vector_pearson(torch.stack(cur).double(), torch.stack(prev).double())  # (P,)
        own = torch.tensor(owner)  # (P,)
        ok = torch.isfinite(r)
        total = torch.zeros(B, dtype=torch.float64).index_add_(0, own[ok], r[ok])  # (B,)
        count = torch.zeros(B, dtype=torch.float64).index_add_(0, own[ok], torch.ones_like(r[ok]))  # (B,)
        per_sentence = torch.where(count > 0, total / count.clamp(min=1), torch.full_like(total, float("nan")))
        return per_sentence, r[ok]
