"""``load(name_or_path)``: pretrained models by name, checkpoints by path, random models by arch.

``available`` and ``describe`` read file names and checkpoint headers only, without importing torch (the app
shows its sidebar before torch has loaded); the functions that build a model import it.
"""

from __future__ import annotations

import os
import threading
from pathlib import Path
from typing import TYPE_CHECKING

from .checkpoint import read_metadata
from .checkpoint import verify as check_manifest
from .config import ARCHS, ModelConfig
from .errors import InputError, ModelNotFoundError
from .locations import PRETRAINED_DIR

if TYPE_CHECKING:
    import torch

    from .model import SentenceModel

#: Seed of the random-weight models, so that ``disan``/``dsa`` are the same everywhere.
RANDOM_SEED = 0
#: Held while a random-weight model draws its weights from torch's process-wide generator: two threads
#: seeding and drawing at once (the app's background warm-up beside a page's own load) interleave their draws
#: and build models with different weights (the load test's heatmaps differed from the core's before it).
_RANDOM_WEIGHTS_LOCK = threading.Lock()


def default_device() -> torch.device:
    """CUDA when present, else the CPU (issue #2, item 10)."""
    import torch

    return torch.device("cuda" if torch.cuda.is_available() else "cpu")


#: Checkpoint paths listed beside the bundled models (``disan app --model PATH`` sets it), ``os.pathsep``-separated.
USER_MODELS_ENV = "DISAN_MODELS"


def user_models() -> list[str]:
    """The checkpoint paths of ``$DISAN_MODELS`` that are files (absolute, in the order given)."""
    import os

    paths = [Path(p).expanduser().resolve() for p in os.environ.get(USER_MODELS_ENV, "").split(os.pathsep) if p]
    return list(dict.fromkeys(str(p) for p in paths if p.is_file()))


def available(pretrained_dir: Path = PRETRAINED_DIR) -> list[str]:
    """Names of the bundled checkpoints, then the paths of ``$DISAN_MODELS``, then the random-weight architectures."""
    names = sorted(p.stem for p in pretrained_dir.glob("*.safetensors"))
    return names + user_models() + list(ARCHS)


def card_of(name_or_path: str) -> dict:
    """The model card of a bundled name or of a checkpoint path (``<stem>.json`` beside it); ``{"name": …}`` if none."""
    from .cards import read_card

    path = checkpoint_path(name_or_path)
    return read_card(path.name.removesuffix(".safetensors"), path.parent)


def random_model(arch: str, device: torch.device | str = "cpu", **config) -> SentenceModel:
    """A model with seeded random weights; its trace says ``random_weights=True``."""
    import torch

    from .model import SentenceModel
    from .vocab import Vocab, load_glove

    glove = load_glove(config.get("glove"))
    cfg = ModelConfig(**{"arch": arch, "d_in": glove.dim, "finetune_embeddings": arch == "disan", **config})
    with _RANDOM_WEIGHTS_LOCK, torch.random.fork_rng(devices=[]):
        torch.manual_seed(RANDOM_SEED)
        model = SentenceModel(cfg, Vocab(("<pad>", "<unk>")), glove, f"{arch} (random weights)", random_weights=True)
    return model.to(device).eval()


def checkpoint_path(name_or_path: str) -> Path:
    """The file of a bundled checkpoint name, else ``name_or_path`` as a path (it may not exist), ``~`` expanded
    as a shell would: ``load("~/disan-runs/x.safetensors")`` in a notebook names the file the shell commands do."""
    bundled = PRETRAINED_DIR / f"{name_or_path}.safetensors"
    return bundled if bundled.is_file() else Path(name_or_path).expanduser()


def not_found(name_or_path: str) -> str:
    """Why ``name_or_path`` names no model: a checkpoint path that is not a file, or an unknown name."""
    if name_or_path.endswith(".safetensors"):
        return f"No checkpoint file {name_or_path!r}; check the path (a .safetensors written by disan train)."
    return f"No model named {name_or_path!r}; choose one of {', '.join(available())} or give a .safetensors path."


def describe(name_or_path: str, verify: bool = False) -> ModelConfig:
    """A model's config (arch, labels, pair, α, masks …) without loading its weights; ``verify`` first checks
    the file against the manifest beside it, as ``load`` does."""
    if name_or_path in ARCHS:
        return ModelConfig(arch=name_or_path, finetune_embeddings=name_or_path == "disan")
    path = checkpoint_path(name_or_path)
    if not path.is_file():
        raise ModelNotFoundError(not_found(name_or_path))
    if verify:
        check_manifest(path)
    return read_metadata(path)[0]


def device_of(device: torch.device | str) -> torch.device:
    """``device`` (``--device``) as torch takes it, once a tensor could be made there; else one line naming it and
    what this machine has (a misspelt "gpu", a CUDA device on a CPU build were tracebacks)."""
    import torch

    have = "cpu" + (", cuda" if torch.cuda.is_available() else "")
    try:
        d = torch.device(device)
        torch.empty(0, device=d)
    except (RuntimeError, AssertionError, TypeError) as err:
        why = (str(err).strip().splitlines() or [type(err).__name__])[0][:120]
        raise InputError(f"--device {device!r} cannot be used here ({why}); this machine has: {have}.") from None
    return d


def load(name_or_path: str, device: torch.device | str | None = None) -> SentenceModel:
    """Load a pretrained model by name (``disan-sst5``), a checkpoint by path, or ``disan``/``dsa`` random models."""
    import torch

    from .checkpoint import load_checkpoint
    from .vocab import load_glove

    device = default_device() if device is None else device_of(device)
    if name_or_path in ARCHS:
        return random_model(name_or_path, device)
    path = checkpoint_path(name_or_path)
    if not path.is_file():
        raise ModelNotFoundError(not_found(name_or_path))
    cfg, _, _ = read_metadata(path)
    return load_checkpoint(path, load_glove(glove_of(path, cfg.glove)), device, name=path.stem)


#: Where a checkpoint's GloVe file is now, when it moved after training (the checkpoint stores the path it had).
GLOVE_ENV = "DISAN_GLOVE"


def glove_of(path: Path, stored: str | None) -> str | None:
    """The GloVe file to rebuild ``path``'s embedding table with: the one it was trained with (``stored``), or
    ``$DISAN_GLOVE`` once that file is gone; a file gone with no replacement is one line saying so."""
    from .vocab import PACKAGE_GLOVE

    if stored is None or stored in (PACKAGE_GLOVE, PACKAGE_GLOVE.replace("-", "_")) or Path(stored).expanduser().is_file():
        return stored
    moved = os.environ.get(GLOVE_ENV, "")
    if moved and Path(moved).expanduser().is_file():
        return moved
    raise InputError(f"{path.name} was trained with the GloVe file {stored}, which is gone"
                     + (f" ({GLOVE_ENV}={moved} is not a file either)" if moved else "")
                     + f"; put it back, or set {GLOVE_ENV} to the file's new path.")
