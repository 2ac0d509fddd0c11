"""A tiny relatedness (SICK) checkpoint with seeded random weights, for the tests of what every surface shows
of a relatedness model: the static site, the report, the app and the claims.

``write_relatedness_model(folder, arch)`` saves ``<arch>-sick.safetensors`` (grades "1".."5", pair input,
Tai, Socher & Manning 2015's head, 8-d vectors of tests/task_files.py) into ``folder`` with its manifest, the
way ``train`` saves a checkpoint, so ``disan.load`` and every command read it as a trained model
(``random_weights`` False). Its scores mean nothing; the tests compare surfaces with ``predict()``.
"""

from __future__ import annotations

from pathlib import Path

import torch

from disan.checkpoint import save
from disan.config import ModelConfig
from disan.data.labels import SICK_GRADES
from disan.model import SentenceModel
from disan.vocab import build_vocab, load_glove
from tests.task_files import write_glove

#: The model's own words (the rest of tests/task_files.WORDS come from its GloVe file, as at inference).
OWN_WORDS = ("a", "man", "dog", "runs", "the", "is", ".")


def write_relatedness_model(folder: Path, arch: str = "disan", seed: int = 0) -> Path:
    """Save a tiny ``<arch>-sick`` relatedness checkpoint (and its GloVe file) into ``folder``; returns its path."""
    folder.mkdir(parents=True, exist_ok=True)
    glove_path = folder / "vectors.8d.txt"
    if not glove_path.is_file():
        write_glove(glove_path)
    glove = load_glove(str(glove_path))
    cfg = ModelConfig(arch=arch, labels=SICK_GRADES, pair=True, relatedness=True, d_in=glove.dim, d_h=10, heads=2,
                      head_hidden=6, glove=str(glove_path), finetune_embeddings=arch == "disan")
    torch.manual_seed(seed)
    model = SentenceModel(cfg, build_vocab([list(OWN_WORDS)]), glove, f"{arch}-sick", random_weights=False)
    with torch.no_grad():  # spread the head's logits so that p̂, and the score, differ visibly between pairs
        model.head.out.weight.mul_(8.0)
    return save(model, folder / f"{arch}-sick.safetensors")


#: Pairs of the fixture's words (all in the GloVe file, some in the model's own vocabulary).
PAIRS = (
    ("a man runs .", "the dog runs ."),
    ("the dog is fine .", "a man is good ."),
    ("where is the city river .", "the town is fine and the film awful ."),
)
