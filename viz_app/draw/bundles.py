"""The page code's bundles: ``viz_app/browser/``'s ES modules, bundled by esbuild into one file per host.

``scripts/build_browser.mjs`` writes them to ``viz_app/browser/dist/`` when ``npm ci`` installs (package.json's
postinstall) or on ``npm run build``; the folder is ignored by git and shipped in the wheel, so an installed
package needs no node at run time, and nothing writes into the package while the app runs. docs/front-end.md
says which host loads which bundle:

* ``site``: the static explorer's ``assets/site.js`` (a classic script, one global ``Disan``; it carries the
  model's worker);
* ``report``: inlined in every report file, pair report and notebook view (global ``Disan``);
* ``chart`` and ``preload``: the app's chart and plotly.js preloader components (ES modules).

A bundle built from other sources than the ones beside it (``dist/sources.json`` holds their digest) is refused
with the command that rebuilds it, so an edited module never runs as its old bundle.
"""

from __future__ import annotations

import hashlib
import json
from functools import cache
from pathlib import Path

from disan.errors import DisanError

BROWSER = Path(__file__).resolve().parents[1] / "browser"
DIST = BROWSER / "dist"
KERNELS = BROWSER.parent / "kernels"
NAMES = ("site", "report", "chart", "preload")
REBUILD = "run `npm ci` (or `npm run build`) in the repository, or reinstall the package"


def _sources() -> list[tuple[str, Path]]:
    """What the bundles are built from, by path from ``viz_app/`` (``/``-separated), in path order: every ``.js``
    and ``.mjs`` file below ``BROWSER`` (its ``dist/`` left out) and below ``KERNELS`` (``kernel_part.js``
    imports ``token2token.mjs``)."""
    found = []
    for name, folder in (("browser", BROWSER), ("kernels", KERNELS)):
        for path in folder.rglob("*"):
            rel = path.relative_to(folder)
            if path.is_file() and path.suffix in (".js", ".mjs") and rel.parts[0] != "dist":
                found.append((f"{name}/{rel.as_posix()}", path))
    return sorted(found)


def source_digest() -> str:
    """The digest build_browser.mjs records: each source's path (``_sources``) and bytes."""
    digest = hashlib.sha256()
    for name, path in _sources():
        digest.update(name.encode() + b"\n" + path.read_bytes() + b"\n")
    return digest.hexdigest()


@cache
def _checked() -> None:
    manifest = DIST / "sources.json"
    if not manifest.is_file():
        raise DisanError(f"The page code's bundles are missing ({DIST} has no sources.json); {REBUILD}.")
    built = json.loads(manifest.read_text(encoding="utf-8")).get("sha256")
    if built != source_digest():
        raise DisanError(f"The page code's bundles in {DIST} were built from other sources than {BROWSER}; {REBUILD}.")


def path(name: str) -> Path:
    """The bundle ``name`` (one of ``NAMES``), checked to be built from the sources beside it."""
    if name not in NAMES:
        raise ValueError(f"no bundle {name!r}; the bundles are {', '.join(NAMES)}")
    _checked()
    file = DIST / f"{name}.js"
    if not file.is_file():
        raise DisanError(f"The page code's bundle {file} is missing; {REBUILD}.")
    return file


def text(name: str) -> str:
    """The bundle ``name``'s code."""
    return path(name).read_text(encoding="utf-8")
