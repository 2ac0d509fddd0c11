"""Which models exist, what to call them in the picker, and which is the default."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import disan
from disan.ablations import ABLATIONS
from disan.config import ARCHS

#: Preferred default: the first bundled checkpoint in this order that exists.
PREFERRED = ("disan-sst5", "dsa-sst5", "disan-nli", "dsa-nli")


#: Case-study models per architecture, best first (both papers' case studies use SNLI sentences).
CASE_STUDY = {"disan": ("disan-nli", "disan-sst5"), "dsa": ("dsa-nli", "dsa-sst5")}


def available() -> list[str]:
    """Bundled checkpoints first, then the random-weight ``disan`` and ``dsa``."""
    return disan.available()


def trained(names: Sequence[str]) -> list[str]:
    return [n for n in names if n not in ARCHS]


def is_random(name: str) -> bool:
    return name in ARCHS


def label(name: str) -> str:
    """Picker label: random-weight models say so."""
    if is_random(name):
        return f"{name} (random weights)"
    path = Path(name)  # a checkpoint given by path (disan app --model PATH): its stem, and where it is
    return f"{path.stem} (your model: {path.parent})" if path.suffix == ".safetensors" else name


def default_model(names: Sequence[str]) -> str:
    """The first model given with ``disan app --model PATH``, else ``disan-sst5`` if bundled, else another preferred
    or bundled checkpoint, else random ``disan``."""
    mine = [n for n in disan.api.user_models() if n in names]
    if mine:
        return mine[0]
    for name in PREFERRED:
        if name in names:
            return name
    bundled = trained(names)
    return bundled[0] if bundled else "disan"


def arch_of(name: str) -> str | None:
    """Architecture of a model, read from its checkpoint metadata without loading the weights.

    None when the checkpoint is missing or unreadable: pickers then leave it out, and the
    sidebar names the damaged file when someone picks it (``sidebar._pick_model``).
    """
    try:
        return disan.describe(name).arch
    except disan.DisanError:
        return None


def best_of_arch(arch: str, names: Sequence[str]) -> str:
    """The preferred case-study model of ``arch`` that exists, else its random-weight model."""
    for name in CASE_STUDY[arch]:
        if name in names:
            return name
    same = [n for n in trained(names) if arch_of(n) == arch]
    return same[0] if same else arch


def ablation_pairs(names: Sequence[str]) -> list[tuple[str, str, list[str]]]:
    """(model, ablation, missing checkpoints) for every known pair."""
    return [(a, b, [n for n in (a, b) if n not in names]) for a, b in ABLATIONS.items()]
