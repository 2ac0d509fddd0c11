"""DiSAN (Shen et al. 2018) and Distance-based SAN (Im & Cho 2017) encoders with full attention traces.

Public API::

    import disan
    model = disan.load("disan-sst5")          # or "dsa", a path, ...
    trace = model.trace("a gorgeous , witty , seductive movie .")
    model.predict(["a gorgeous , witty , seductive movie ."])

The names below are imported on first use (PEP 562): ``import disan`` alone does not import torch, so
``disan app`` starts Streamlit's server before torch loads (issue 19's cold start) and ``disan --help`` is
quick. ``disan.load`` and the rest behave as ordinary attributes.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

from .errors import CheckpointError, DisanError, InputError, ModelNotFoundError, OutputError

#: Public name → the submodule that defines it (imported when the name is first read).
_LAZY = {
    "available": "api",
    "describe": "api",
    "load": "api",
    "random_model": "api",
    "ModelConfig": "config",
    "tokenize": "vocab",
}

__all__ = sorted(["CheckpointError", "DisanError", "InputError", "ModelNotFoundError", "OutputError", *_LAZY])

if TYPE_CHECKING:
    from .api import available, describe, load, random_model
    from .config import ModelConfig
    from .vocab import tokenize


def __getattr__(name: str):
    if name in _LAZY:
        value = getattr(importlib.import_module(f".{_LAZY[name]}", __name__), name)
        globals()[name] = value  # later reads skip this hook
        return value
    raise AttributeError(f"module 'disan' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted({*globals(), *_LAZY})
