"""DiSAN (Shen et al. 2018) and Distance-based SAN (Im & Cho 2017) encoders with full attention traces.

Public API::

    import disan
    model = disan.load("disan-sst5")          # or "dsa", a path, ...
    trace = model.trace("a gorgeous , witty , seductive movie .")
    model.predict(["a gorgeous , witty , seductive movie ."])
"""

from .api import available, describe, load, random_model
from .config import ModelConfig
from .errors import CheckpointError, DisanError, InputError, ModelNotFoundError, OutputError
from .vocab import tokenize

__all__ = [
    "CheckpointError",
    "DisanError",
    "InputError",
    "ModelConfig",
    "ModelNotFoundError",
    "OutputError",
    "available",
    "describe",
    "load",
    "random_model",
    "tokenize",
]
