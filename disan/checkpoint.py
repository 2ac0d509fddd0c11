"""Checkpoints: safetensors weights + JSON config/vocabulary in its metadata, SHA-256 manifest.

Layout of ``pretrained/``::

    <name>.safetensors   weights (fp16), metadata {"format", "config", "vocab"}
    <name>.json          model card data (metrics, command, hardware)
    <name>.card.md       model card
    MANIFEST.json        {"<name>.safetensors": "<sha256>"}

safetensors never unpickles, so a hostile checkpoint cannot run code.

Reading a checkpoint's header (``read_metadata``, ``verify``) needs no torch: the app reads a model's config
before torch has loaded (issue 19's cold start). Only ``save`` and ``load_checkpoint`` import it.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import TYPE_CHECKING

from safetensors import SafetensorError, safe_open

from .config import ModelConfig
from .errors import CheckpointError
from .vocab import Glove, Vocab

if TYPE_CHECKING:
    import torch

    from .model import SentenceModel

FORMAT = "disan-checkpoint-1"
MANIFEST = "MANIFEST.json"


def sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def save(model: SentenceModel, path: str | Path, fp16: bool = True, manifest: bool = True) -> Path:
    """Write ``model`` to ``path`` (``.safetensors``) and record its hash in the folder's manifest."""
    import torch
    from safetensors.torch import save_file

    path = Path(path).with_suffix(".safetensors")
    path.parent.mkdir(parents=True, exist_ok=True)
    dtype = torch.float16 if fp16 else torch.float32
    tensors = {k: v.detach().to("cpu", dtype).contiguous() for k, v in model.state_dict().items()}
    meta = {
        "format": FORMAT,
        "config": json.dumps(model.cfg.to_dict()),
        "vocab": json.dumps(list(model.vocab.words)),
    }
    tmp = path.with_suffix(".tmp")
    save_file(tensors, str(tmp), metadata=meta)
    tmp.replace(path)  # atomic: a crash never leaves half a checkpoint
    if manifest:
        update_manifest(path)
    return path


def update_manifest(path: Path) -> None:
    man = path.parent / MANIFEST
    entries = json.loads(man.read_text()) if man.exists() else {}
    entries[path.name] = sha256(path)
    man.write_text(json.dumps(dict(sorted(entries.items())), indent=2) + "\n")


def verify(path: Path) -> None:
    """Check ``path`` against the manifest beside it, when there is one."""
    man = path.parent / MANIFEST
    if not man.exists():
        return
    try:
        expected = json.loads(man.read_text()).get(path.name)
    except json.JSONDecodeError as err:
        raise CheckpointError(f"Manifest {man} is not valid JSON ({err}); restore it from git.") from err
    if expected is not None and sha256(path) != expected:
        raise CheckpointError(
            f"Checkpoint {path} does not match its SHA-256 in {man}; the file is corrupt or was changed — "
            "restore it (git checkout) or retrain it."
        )


def read_metadata(path: Path) -> tuple[ModelConfig, Vocab, dict]:
    try:
        with safe_open(str(path), framework="numpy") as f:
            meta = f.metadata() or {}
    except (SafetensorError, OSError, ValueError) as err:
        raise CheckpointError(f"Checkpoint {path} cannot be read ({err}); it is truncated or not a safetensors file.") from err
    if meta.get("format") != FORMAT:
        raise CheckpointError(f"Checkpoint {path} has format {meta.get('format')!r}, expected {FORMAT!r}.")
    try:
        cfg = ModelConfig.from_dict(json.loads(meta["config"]))
        vocab = Vocab(tuple(json.loads(meta["vocab"])))
    except (KeyError, ValueError, TypeError) as err:
        raise CheckpointError(f"Checkpoint {path} has an unreadable config or vocabulary ({err}).") from err
    return cfg, vocab, meta


def load_checkpoint(path: str | Path, glove: Glove | None, device: str | torch.device = "cpu", name: str | None = None) -> SentenceModel:
    """Rebuild a model from a checkpoint file, after checking its hash."""
    import torch
    from safetensors.torch import load_file

    from .model import SentenceModel

    path = Path(path)
    if not path.is_file():
        raise CheckpointError(f"Checkpoint file {path} does not exist; check the path or run `python -m disan train`.")
    verify(path)
    cfg, vocab, _ = read_metadata(path)
    if glove is not None and glove.dim != cfg.d_in:
        raise CheckpointError(
            f"Checkpoint {path} expects {cfg.d_in}-d word vectors but its GloVe ({cfg.glove}) has {glove.dim}; "
            "pass the GloVe it was trained with."
        )
    check_shapes(path, cfg, vocab)
    try:
        state = load_file(str(path))
    except (SafetensorError, OSError) as err:
        raise CheckpointError(f"Checkpoint {path} cannot be read ({err}); it is truncated or corrupt.") from err
    # a file beside no manifest is checked by no hash: bytes flipped inside a tensor gave NaN predictions silently
    bad = next((k for k, v in state.items() if v.is_floating_point() and not bool(torch.isfinite(v).all())), None)
    if bad is not None:
        raise CheckpointError(f"Checkpoint {path}: tensor {bad!r} holds NaN or infinite values; the file is corrupt. "
                              "Train it again, or copy it again from where it was written.")
    model = SentenceModel(cfg, vocab, glove, name or path.stem, random_weights=False)
    try:
        model.load_state_dict({k: v.float() for k, v in state.items()}, strict=True)
    except RuntimeError as err:
        first = str(err).splitlines()[0]
        raise CheckpointError(f"Checkpoint {path}: its weights do not match its config ({first}).") from err
    return model.to(device).eval()


def check_shapes(path: Path, cfg: ModelConfig, vocab: Vocab) -> None:
    """Compare the config's parameter shapes with the file header before allocating anything.

    The model is built on the ``meta`` device (no memory), so a hostile config
    (say d_h = 10⁶) is refused instead of allocating gigabytes.
    """
    import torch

    from .model import SentenceModel

    with torch.device("meta"):
        expected = {k: tuple(v.shape) for k, v in SentenceModel(cfg, vocab, None, "", False).state_dict().items()}
    with safe_open(str(path), framework="pt") as f:
        found = {k: tuple(f.get_slice(k).get_shape()) for k in f.keys()}
    if expected != found:
        bad = sorted(k for k in expected.keys() | found.keys() if expected.get(k) != found.get(k))
        raise CheckpointError(
            f"Checkpoint {path}: its weights do not match its config ({len(bad)} tensors differ, e.g. {bad[0]!r})."
        )
