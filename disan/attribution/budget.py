"""Memory budget of passes with autograd: how many IG rows (examples × integration points) fit in one pass."""

from __future__ import annotations

#: Elements of the largest activation one pass with autograd may hold (128 MB in float32): DiSAN's
#: (rows, T, T, d_h) token2token logits, the DSA's (rows, T, ffn_mult·d_h) FFN hidden layer.
IG_ELEMENTS = 2**25


def row_elements(cfg, T: int) -> int:
    """Elements of the largest per-sentence activation of a pass with autograd."""
    return T * T * cfg.d_h if cfg.arch == "disan" else T * cfg.ffn_mult * cfg.d_h


def ig_rows(cfg, T: int) -> int:
    """Captum's internal batch size: IG rows per pass under ``IG_ELEMENTS``."""
    return max(1, IG_ELEMENTS // row_elements(cfg, T))
