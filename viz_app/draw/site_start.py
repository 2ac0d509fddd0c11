"""The folder's own sentence as the build ran it: ``models/<name>.start.js`` (``window.DisanSiteStart[name]``).

A page opened on the sentence the folder was built for (``index.html`` from disk, no sentence in its address)
draws its first maps from these outputs, then starts onnxruntime-web in its worker, which runs every
other sentence (``site.js`` ``drawStart``). They are the outputs of the very graph the page runs
(``models/<name>.js``), run by onnxruntime in Python at build time, with the tokens and their vocabulary status
as the page would look them up; the browser tests check that the maps drawn from them equal those the page
computes for the same sentence.
"""

from __future__ import annotations

import base64
from collections.abc import Iterable

import numpy as np

from disan.errors import DisanError
from disan.vocab import tokenize

#: numpy dtype → the name onnxruntime-web gives a tensor's type (site.js ``tensorOf`` reads these two)
TYPES = {np.dtype(np.float32): "float32", np.dtype(np.int64): "int64"}


def _names(outputs: dict) -> Iterable[str]:
    """Every ONNX output name in the page's map of trace-view fields (site.py ``_outputs``)."""
    for value in outputs.values():
        if isinstance(value, dict):
            yield from _names(value)
        else:
            yield value


def _tensor(name: str, value: np.ndarray) -> dict:
    kind = TYPES.get(value.dtype)
    if kind is None:
        raise DisanError(f"The output {name} is {value.dtype}; the page reads float32 and int64 only. Export again.")
    raw = np.ascontiguousarray(value).astype(value.dtype.newbyteorder("<"), copy=False).tobytes()
    return {"type": kind, "dims": list(value.shape), "data": base64.b64encode(raw).decode("ascii")}


def start_entry(graph: bytes, meta: dict, outputs: dict, text: str, hypothesis: str, max_tokens: int) -> dict | None:
    """The stored run of (``text``, ``hypothesis``) for one model: its tokens, their status, α and the outputs the
    page reads (``outputs``: site.py ``_outputs``); None where the page would refuse that input (no tokens, too
    many), so it computes it as any other."""
    from disan.onnx_export import SiteRunner

    sentences = [text, hypothesis] if meta["pair"] else [text]
    token_lists = [tokenize(s or "") for s in sentences]
    if any(not tokens or len(tokens) > max_tokens for tokens in token_lists):
        return None
    runner = SiteRunner(graph, meta, "the site's model")
    got = runner.run(text, hypothesis if meta["pair"] else None)
    sides = [{"tokens": tokens, "status": list(runner.ids(tokens)[1])} for tokens in token_lists]
    return {
        "text": text,
        "hypothesis": hypothesis if meta["pair"] else None,
        "alpha": meta["alpha"],
        "inputs": {"premise": sides[0], "hypothesis": sides[1] if meta["pair"] else None},
        "outputs": {name: _tensor(name, got[name]) for name in dict.fromkeys(_names(outputs))},
    }

