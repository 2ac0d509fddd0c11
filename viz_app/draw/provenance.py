"""Where a figure's numbers come from, for its exports (docs/figure-components.md "Exports"): the checkpoint's
SHA-256 and the project's version, as the page's figure host writes them into every PNG, SVG, CSV, JSON and
standalone-HTML export (``provenance`` in the report's data and the static explorer's model list)."""

from __future__ import annotations

import importlib.metadata
import json
import tomllib
from functools import cache
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


@cache
def project_version() -> str:
    """The installed package's version, else pyproject.toml's (a checkout), else ``unknown``."""
    try:
        return importlib.metadata.version("disan-viz")
    except importlib.metadata.PackageNotFoundError:
        pyproject = ROOT / "pyproject.toml"
        if not pyproject.is_file():
            return "unknown"
        return str(tomllib.loads(pyproject.read_text(encoding="utf-8")).get("project", {}).get("version", "unknown"))


def checkpoint_sha256(model: str, random_weights: bool = False) -> str:
    """A bundled checkpoint's SHA-256 from the manifest beside it (disan/checkpoint.py); ``random weights`` for
    a model without a trained checkpoint; ``unknown`` where no manifest names it."""
    if random_weights:
        return "random weights"
    from disan.api import checkpoint_path

    path = checkpoint_path(model)
    manifest = path.parent / "MANIFEST.json"
    try:
        return str(json.loads(manifest.read_text(encoding="utf-8")).get(path.name, "unknown"))
    except (OSError, ValueError):
        return "unknown"


def provenance(model: str, random_weights: bool = False) -> dict[str, str]:
    """``{model, checkpointSha256, version}`` as figure_host.js takes it; ``model`` is the name a reader knows it by
    (a checkpoint path's stem), which the exports' first line and file names carry."""
    name = Path(model).stem if model.endswith(".safetensors") else model
    return {"model": name, "checkpointSha256": checkpoint_sha256(model, random_weights), "version": project_version()}
