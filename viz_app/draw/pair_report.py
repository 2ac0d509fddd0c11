"""The report of a minimal pair (issue 30): one self-contained HTML file with two inputs, A and B, run
through one model (``python -m viz_app report TEXT --pair B``).

Python writes data, the page draws: the file carries the trace views of A and B (``packed_trace_view``) and the
page code (the report's bundle), and ``Disan.Report.boot`` (``browser/report.js``) draws ``PairView.page`` of the
two (``browser/pair_view.js``, the one definition of the pair view that the static explorer and the app draw too).
The file has no model to run, so the leave-one-out rows under A's and B's tokens are computed here with
``disan.attribution``'s leave-one-out (``erasure.leave_one_out``, the step ``attribute`` runs) and handed in with
the data; the explorer computes the same numbers in the page (``pair.js``'s ``leaveOneOut``).
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import TYPE_CHECKING

from disan.errors import InputError
from disan.output import write_atomic
from disan.vocab import tokenize

from viz_app.draw import settings
from viz_app.draw.provenance import provenance
from viz_app.draw.report import document
from viz_app.draw.site_view import figure_context, packed_trace_view

if TYPE_CHECKING:
    from disan.model import SentenceModel  # annotations only: importing it imports torch
    from disan.trace import ModelTrace


def input_names(relatedness: bool) -> tuple[str, str]:
    """What the pair view calls a two-sentence model's inputs: an NLI model's premise and hypothesis, a relatedness
    model's first and second sentence (``settings.PAIR_RELATEDNESS_NAMES``: the pair's sides are A and B, so SICK's
    own "sentence A" and "sentence B" would read "B's sentence A"). The page's ``DisanPairView.inputNames``."""
    return settings.PAIR_RELATEDNESS_NAMES if relatedness else ("premise", "hypothesis")


def check_pair_text(a: tuple[str, str | None], b: tuple[str, str | None],
                    names: tuple[str, str] = ("premise", "hypothesis")) -> None:
    """``InputError`` naming the side, A or B, whose sentence is empty or longer than a report holds; ``a`` and
    ``b`` are (text, hypothesis or None), ``names`` what the pair view calls a pair's two inputs
    (``input_names``). Run before any model is loaded."""
    for which, (text, hypothesis) in (("A", a), ("B", b)):
        parts = [(names[0] if hypothesis is not None else "sentence", text)]
        if hypothesis is not None:
            parts.append((names[1], hypothesis))
        for name, value in parts:
            n = len(tokenize(value)) if isinstance(value, str) else 0
            if n == 0:
                raise InputError(f"{which}'s {name} is empty; give it a sentence.")
            if n > settings.REPORT_MAX_TOKENS:
                raise InputError(
                    f"{which}'s {name} has {n} tokens; a report holds at most {settings.REPORT_MAX_TOKENS} per "
                    "sentence (its in-page maps grow with the square of the length). Shorten it."
                )


def check_pair(trace_a: ModelTrace, trace_b: ModelTrace) -> None:
    """``InputError`` when A and B cannot be drawn as one pair (as ``DisanPairView.page`` would refuse them)."""
    if trace_a.model != trace_b.model:
        raise InputError(f"A was run by {trace_a.model} and B by {trace_b.model}; run both through one model.")
    if (trace_a.hypothesis is None) != (trace_b.hypothesis is None):
        raise InputError("A and B should both have a hypothesis or neither; give both or none.")
    if tuple(trace_a.masks) != tuple(trace_b.masks) or trace_a.alpha != trace_b.alpha:
        raise InputError(f"A was run with masks {'/'.join(trace_a.masks)} at α = {trace_a.alpha} and B with "
                         f"{'/'.join(trace_b.masks)} at α = {trace_b.alpha}; run both with the same masks and α.")
    first, second = input_names(trace_a.relatedness is not None) if trace_a.hypothesis else ("sentence", "")
    for which, trace in (("A", trace_a), ("B", trace_b)):
        sides = [(first, trace.premise)] + ([(second, trace.hypothesis)] if trace.hypothesis else [])
        for name, sent in sides:
            if len(sent.tokens) > settings.REPORT_MAX_TOKENS:
                raise InputError(f"{which}'s {name} has {len(sent.tokens)} tokens; a report holds at most "
                                 f"{settings.REPORT_MAX_TOKENS} per sentence. Shorten it.")


def target_index(trace: ModelTrace) -> int:
    """The class the pair's leave-one-out explains: A's predicted class (the first of the largest probabilities,
    as ``DisanPairView.predictionChange`` picks it: labels in the trace's prediction order)."""
    probs = list(trace.prediction.values())
    return probs.index(max(probs))


def leave_one_out(model: SentenceModel, trace: ModelTrace, target: int) -> dict[str, list[float] | None]:
    """Per side of ``trace``'s input, each token's drop p(target) − p(target | that token alone <unk>) (target K
    of a relatedness model: its score ŷ):
    ``disan.attribution``'s leave-one-out (``erasure.leave_one_out``, as ``attribute`` runs it: the trace's
    masks and α, the ``<unk>`` vector in the token's place), with no gradients and no other attribution."""
    import torch

    from disan.attribution.erasure import leave_one_out as erase
    from disan.attribution.forward import ClassProbability

    fn = ClassProbability(model, tuple(trace.masks), trace.alpha)
    sents = [trace.premise] + ([trace.hypothesis] if trace.hypothesis is not None else [])
    model.eval()
    emb = fn.embed([[list(s.tokens)] for s in sents])
    tgt = torch.tensor([target], device=model.device)
    with torch.no_grad():
        p = fn.outputs(emb.xs, emb.valids)[:, target]  # (1,)
    drops = erase(fn, emb, tgt, p)  # per side (1, T_s)
    values = [[float(v) for v in d[0, :len(s.tokens)].cpu().double()] for d, s in zip(drops, sents)]
    return {"premise": values[0], "hypothesis": values[1] if len(values) > 1 else None}


def pair_leave_one_out(model: SentenceModel, trace_a: ModelTrace, trace_b: ModelTrace) -> dict:
    """The pair's leave-one-out rows as the page's token rows take them (``DisanPairView.fillLeaveOneOut``):
    ``{"a": …, "b": …}``, both of A's predicted class, or of a relatedness model's score ŷ = rᵀp̂ (column K of
    ``ClassProbability.outputs``, what ``attribute`` explains by default), as the explorer fills them."""
    k = len(trace_a.prediction) if model.cfg.relatedness else target_index(trace_a)
    return {"a": leave_one_out(model, trace_a, k), "b": leave_one_out(model, trace_b, k)}


def pair_report_html(trace_a: ModelTrace, trace_b: ModelTrace, loo: dict) -> str:
    """The whole HTML document of the pair A, B; ``loo``: ``pair_leave_one_out``'s rows."""
    check_pair(trace_a, trace_b)
    view_a, arrays_a = packed_trace_view(trace_a)
    view_b, arrays_b = packed_trace_view(trace_b)
    data = {"view": view_a, "context": figure_context(), "compact": False, "only": None, "params": None,
            "pair": {"view": view_b, "loo": loo}, "provenance": provenance(trace_a.model, trace_a.random_weights)}
    text = json.dumps(data, ensure_ascii=False, separators=(",", ":"), allow_nan=False)
    blobs = {"report-data": text.encode("utf-8"), "report-arrays": arrays_a, "report-arrays-b": arrays_b}
    return document(f"{trace_a.model} — minimal pair", blobs)


def write_pair_report(model: SentenceModel, trace_a: ModelTrace, trace_b: ModelTrace,
                      path: str | os.PathLike) -> Path:
    """Write the pair report of A and B to ``path`` all-or-nothing (``disan.output.write_atomic``)."""
    check_pair(trace_a, trace_b)
    loo = pair_leave_one_out(model, trace_a, trace_b)
    return write_atomic(path, lambda: pair_report_html(trace_a, trace_b, loo))
