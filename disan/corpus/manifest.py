"""An index's manifest (``manifest.json``) and the checks that turn a bad index into one clear line.

The manifest names the model (name, SHA-256 of its checkpoint), the project and index-schema versions, the
corpus, the columns and every part file with its size. ``open_index`` refuses a missing folder, an interrupted
build, a damaged or foreign manifest, a missing or resized part, and an index of another schema or project
version; ``check_model`` refuses a model other than the one that built the index.
"""

from __future__ import annotations

import functools
import json
from dataclasses import dataclass
from pathlib import Path

from ..errors import InputError

FORMAT = "disan-corpus-index"
#: Raised whenever a column's meaning or the file layout changes; an index of another version is refused.
SCHEMA_VERSION = 1
MANIFEST = "manifest.json"
TABLES = ("sentences", "tokens", "profile")
PARTIAL_SUFFIX = ".partial"


def project_version() -> str:
    """disan-viz's version: the installed distribution's, else pyproject.toml's in a checkout."""
    from importlib.metadata import PackageNotFoundError, version

    from ..locations import CHECKOUT

    if CHECKOUT is not None:
        import tomllib

        return tomllib.loads((CHECKOUT / "pyproject.toml").read_text(encoding="utf-8"))["project"]["version"]
    try:
        return version("disan-viz")
    except PackageNotFoundError:
        return "unknown"


@dataclass(frozen=True)
class Index:
    """An opened index: its folder and manifest."""

    path: Path
    manifest: dict

    @property
    def model(self) -> dict:
        return self.manifest["model"]

    def files(self, table: str) -> list[str]:
        return [str(self.path / table / name) for name in sorted(self.manifest["parts"][table])]


def _damaged(path: Path, what: str) -> InputError:
    return InputError(f"The index {path} is damaged ({what}); rebuild it with disan index --out {path}.")


def open_index(path: str | Path) -> Index:
    """The index at ``path``, checked; an ``InputError`` of one line names what is wrong and the fix."""
    path = Path(path)
    partial = path.with_name(path.name + PARTIAL_SUFFIX)
    if not path.exists():
        if partial.exists():
            raise InputError(f"The index {path} was not finished ({partial} holds an interrupted build); rerun "
                             "the same disan index command to resume it.")
        raise InputError(f"No index at {path}; build one with disan index --model NAME --data NAME --out {path}.")
    if not path.is_dir():
        raise InputError(f"{path} is a file, not an index folder; give the folder disan index --out wrote.")
    file = path / MANIFEST
    if not file.is_file():
        raise InputError(f"{path} is not an index (no {MANIFEST}); give the folder disan index --out wrote.")
    try:
        manifest = json.loads(file.read_text(encoding="utf-8"))
        if manifest.get("format") != FORMAT:
            raise InputError(f"{path} holds no corpus index ({MANIFEST} is not a {FORMAT} manifest); give the "
                             "folder disan index --out wrote.")
        schema, project = manifest["schema_version"], manifest["project_version"]
        parts = manifest["parts"]
        manifest["model"]["sha256"], manifest["columns"]  # noqa: B018  (present, or KeyError below)
    except (ValueError, KeyError, TypeError, AttributeError) as err:
        if isinstance(err, InputError):
            raise
        raise _damaged(path, f"{MANIFEST} is unreadable: {type(err).__name__}") from None
    if schema != SCHEMA_VERSION:
        raise InputError(f"The index {path} has index format {schema} (disan-viz {project}); this disan-viz "
                         f"{project_version()} reads format {SCHEMA_VERSION}: rebuild it with disan index.")
    if project != project_version():
        raise InputError(f"The index {path} was written by disan-viz {project}, not this {project_version()}; "
                         "rebuild it with disan index.")
    for table in TABLES:
        for name, size in parts.get(table, {}).items():
            part = path / table / name
            if not part.is_file():
                raise _damaged(path, f"{table}/{name} is missing")
            if part.stat().st_size != size:
                raise _damaged(path, f"{table}/{name} has {part.stat().st_size:,} bytes, not {size:,}")
    return Index(path, manifest)


@functools.lru_cache(maxsize=8)
def _sha256(path: str, size: int, mtime_ns: int) -> str:
    """A checkpoint's SHA-256, hashed once per file version (size and modification time)."""
    from ..checkpoint import sha256

    return sha256(Path(path))


def check_model(index: Index, name_or_path: str | None) -> str:
    """The model to trace ``--like`` sentences with: the index's own, refused when its checkpoint changed or
    when ``name_or_path`` names another model."""
    from ..api import checkpoint_path
    from ..config import ARCHS

    built = index.model["name"]
    if name_or_path is not None and name_or_path not in (built, index.model.get("path")):
        raise InputError(f"The index {index.path} was built from {built}, not {name_or_path}; search it without "
                         f"--model, or build an index of {name_or_path} with disan index.")
    if built in ARCHS:
        return built
    path = checkpoint_path(index.model.get("path") or built)
    if not path.is_file():
        raise InputError(f"The index {index.path} was built from {built}, which is not here; install that "
                         "checkpoint or rebuild the index with a model you have.")
    if _sha256(str(path), path.stat().st_size, path.stat().st_mtime_ns) != index.model["sha256"]:
        raise InputError(f"The index {index.path} was built from another version of {built} (its checkpoint's "
                         "SHA-256 differs); rebuild it with disan index.")
    return str(path)
