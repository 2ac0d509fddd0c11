"""Where the bundled checkpoints and the default dataset folder are, in a checkout and in an installed wheel.

A checkout keeps the checkpoints in ``pretrained/`` at the repository root, where the scripts, cards, docs
and tests name them. The wheel ships the same files inside the package as ``disan/pretrained/``
(``[tool.setuptools]`` in pyproject.toml), so an install adds no top-level ``pretrained`` to site-packages.
"""

from __future__ import annotations

from pathlib import Path

PACKAGE = Path(__file__).resolve().parent

#: The repository root when ``disan`` is imported from a checkout (plainly or through an editable install);
#: None when it is an installed wheel. Site-packages never holds a ``pyproject.toml`` beside the package.
CHECKOUT: Path | None = PACKAGE.parent if (PACKAGE.parent / "pyproject.toml").is_file() else None

#: The bundled checkpoints with their cards (``<name>.json``, ``.card.md``) and claims files.
PRETRAINED_DIR = (CHECKOUT or PACKAGE) / "pretrained"
