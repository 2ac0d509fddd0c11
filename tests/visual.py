"""Visual regression: a screenshot against a stored PNG in tests/fixtures/visual/, within a pixel tolerance.

A pixel differs when any channel is more than ``TOLERANCE`` (of 255) away from the stored one; a figure passes
when at most ``max_share`` of its pixels differ. Canvas cells are drawn without smoothing from one colour table,
so the same build draws them identically; what varies between Chromium builds is text anti-aliasing, a few
pixels along glyph edges. ``DISAN_UPDATE_VISUAL=1`` writes the screenshots as the new stored PNGs (look at them
before committing)."""

from __future__ import annotations

import io
import os
from pathlib import Path

import numpy as np
import pytest
from PIL import Image

VISUAL = Path(__file__).resolve().parent / "fixtures" / "visual"
TOLERANCE = 24
UPDATE = "DISAN_UPDATE_VISUAL"


def differing_share(shot: np.ndarray, want: np.ndarray) -> float:
    """The share of pixels of two RGB images of one shape that differ by more than TOLERANCE in any channel."""
    return float((np.abs(shot.astype(int) - want.astype(int)).max(axis=2) > TOLERANCE).mean())


def check_against_stored(png: bytes, name: str, max_share: float, test_file: str) -> np.ndarray:
    """Compare a screenshot (PNG bytes) with tests/fixtures/visual/<name>.png; returns the screenshot (RGB)."""
    shot = np.asarray(Image.open(io.BytesIO(png)).convert("RGB"))
    stored = VISUAL / f"{name}.png"
    how = f"after a deliberate change of the look: {UPDATE}=1 .venv/bin/python -m pytest {test_file} -k visual"
    if os.environ.get(UPDATE) == "1":
        Image.fromarray(shot).save(stored, optimize=True)
    if not stored.exists():
        pytest.fail(f"{stored} is missing; write it {how}")
    want = np.asarray(Image.open(stored).convert("RGB"))
    assert shot.shape == want.shape, f"{name}: drawn {shot.shape[:2]}, stored {want.shape[:2]}; regenerate {how}"
    share = differing_share(shot, want)
    assert share <= max_share, (f"{name}: {share:.3%} of pixels differ by more than {TOLERANCE} "
                                f"(allowed {max_share:.2%}); if the change is meant, regenerate {how}")
    return shot
