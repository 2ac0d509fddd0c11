"""Shared fixtures: tiny seeded models that need no checkpoint and no GloVe download."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

import numpy as np
import pytest
import torch

from disan.config import NLI_LABELS, ModelConfig
from disan.model import SentenceModel
from disan.vocab import Glove, build_vocab

#: Set to 1 to let the browser and load tests rewrite their figures in docs/ (screenshots, load table).
REFRESH_DOCS = "DISAN_REFRESH_DOCS"


def docs_out(*parts: str) -> Path:
    """Where a test writes a figure the docs show: docs/ under DISAN_REFRESH_DOCS=1, else a temporary
    folder, so an ordinary test run leaves the tracked files as they are."""
    base = Path(__file__).resolve().parents[1] / "docs" if os.environ.get(REFRESH_DOCS) == "1" else Path(tempfile.mkdtemp(prefix="disan-docs-"))
    return base.joinpath(*parts)


WORDS = ("the", "a", "movie", "is", "good", "bad", "dog", "dogs", "man", "tea", ".", ",", "n't", "do", "glass")


@pytest.fixture(scope="session")
def tiny_glove() -> Glove:
    rng = np.random.default_rng(0)
    return Glove(WORDS, rng.standard_normal((len(WORDS), 8)).astype(np.float32), source="test")


def make_tiny(arch: str, glove: Glove, pair: bool = False, **kw) -> SentenceModel:
    cfg = ModelConfig(
        arch=arch,
        d_in=glove.dim,
        d_h=10,
        heads=2,
        head_hidden=6,
        pair=pair,
        labels=NLI_LABELS if pair else ("neg", "pos"),
        finetune_embeddings=arch == "disan",
        **kw,
    )
    torch.manual_seed(0)
    vocab = build_vocab([["the", "movie", "is", "good", "bad", "."]])
    return SentenceModel(cfg, vocab, glove, f"tiny-{arch}", random_weights=True).eval()


@pytest.fixture(params=["disan", "dsa"])
def tiny_model(request, tiny_glove) -> SentenceModel:
    return make_tiny(request.param, tiny_glove)
