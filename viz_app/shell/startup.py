"""Startup phases for the cold-start benchmark (``benchmarks/cold_start.py``).

With ``VIZ_STARTUP_T0`` (the epoch second at which the benchmark started the server) in the environment,
``mark`` prints ``viz-startup <phase> <seconds since then>`` to stderr; otherwise it does nothing, so a
person's server prints nothing extra.
"""

from __future__ import annotations

import os
import sys
import time

_T0 = os.environ.get("VIZ_STARTUP_T0")


def mark(phase: str) -> None:
    """Print when ``phase`` was reached (benchmark runs only; the benchmark keeps the first line per phase)."""
    if _T0:
        print(f"viz-startup {phase} {time.time() - float(_T0):.3f}", file=sys.stderr, flush=True)
