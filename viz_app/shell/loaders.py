"""Cached access to models, traces and attributions (``SentenceModel.trace``, ``disan.attribution.attribute``).

* ``model_config``: ``st.cache_resource``, a model's config from its checkpoint header, without torch.
* ``load_model``: ``st.cache_resource``, one model object per name.
* ``full_trace``: ``st.cache_resource`` (immutable ``ModelTrace``, kept for
  per-feature DiSAN slices and JSON export without pickling 2×T×T×D floats).
* ``trace_view``: ``st.cache_data`` of plain numpy records, keyed by model,
  sentence, hypothesis, masks and α; a model's opening page also goes to disk (``view_store``).
* ``warm_up``: torch and the model loaded in the background after a page drawn from disk.
* ``heads_at_alpha``: DSA attention for any α re-weighted from the cached
  pre-softmax scores (Im Eq. 7) — moving the α slider runs no encoder pass.
* ``live_payload``: the key of a live control's sentence (``live.py``); the page
  redraws the maps itself from its trace views while a slider moves.
* ``page_view``: a trace view packed for the page's figures (``chart.draw_figure``).
* ``attribution_job``: the same computed in a background thread, drawn when ready.
* ``attribution_view``: the attributions (gradient × input, IG, leave-one-out) and the weight series (gated
  rollout, attention flow) of one input and class (``disan.attribution``).

Importing this module imports no torch (issue 19's cold start): a restarted app draws its opening page from
``view_store`` records, and the functions that need the model import it.
"""

from __future__ import annotations

import base64
import hashlib
import json
import os
import sys
import threading
import time
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
import streamlit as st

import disan
from disan.api import checkpoint_path
from disan.config import ARCHS, ModelConfig

from viz_app.draw import live, settings, view_store
from viz_app.draw.records import TraceView
from viz_app.draw.records import trace_view as to_view
from viz_app.draw.reduce import feature_entropy, reweight_alpha
from viz_app.draw.site_view import PageView, packed_records_view, packed_trace_view
from viz_app.shell.startup import mark

if TYPE_CHECKING:
    from disan.model import SentenceModel
    from disan.trace import ModelTrace
    from viz_app.draw.attribution import AttributionView

mark("imported")


@st.cache_resource(max_entries=16, show_spinner=False)
def model_config(name: str) -> ModelConfig:
    """The config of model ``name`` from its checkpoint header, the file checked against the manifest first
    (raises ``disan.DisanError`` subclasses like ``load_model``); no torch, no weights."""
    return disan.describe(name, verify=True)


def checkpoint_of(name: str) -> Path | None:
    """The checkpoint file of a bundled name or a path; None for the random-weight architectures."""
    return None if name in ARCHS else checkpoint_path(name)


@st.cache_resource(max_entries=8, show_spinner="Loading model…")
def load_model(name: str) -> SentenceModel:
    """The model called ``name`` on the CPU (raises ``disan.DisanError`` subclasses).

    Also sets the process's torch threads to ``settings.TORCH_THREADS`` (the app's process runs only
    the app's small traces)."""
    mark("model-start")
    import torch

    mark("torch")
    torch.set_num_threads(settings.TORCH_THREADS)
    model = disan.load(name, device="cpu")
    mark("model")
    return model


@st.cache_resource(max_entries=6, show_spinner=False)
def full_trace(name: str, text: str, hypothesis: str | None, masks: str, alpha: float | None) -> ModelTrace:
    """``model.trace`` for these inputs; ``alpha=None`` means the model's trained α (and is required for DiSAN)."""
    trace = load_model(name).trace(text, hypothesis, alpha=alpha, masks=masks)
    mark("trace")
    return trace


def _opening_record(name: str, text: str, hypothesis: str | None, masks: str, alpha: float | None) -> Path | None:
    """The ``view_store`` file of these inputs when they are the model's opening page (its default sentence,
    masks and α), else None: other inputs are not kept on disk."""
    cfg = model_config(name)
    opening = (text == settings.DEFAULT_SENTENCE and masks == "default" and alpha is None
               and hypothesis == (settings.DEFAULT_HYPOTHESIS if cfg.pair else None))
    if not opening:
        return None
    return view_store.opening_path(name, checkpoint_of(name), cfg.arch, cfg.glove, text, hypothesis, masks)


def opening_recorded(name: str, text: str, hypothesis: str | None, masks: str) -> bool:
    """True when these inputs are ``name``'s opening page and its record is on disk."""
    record = _opening_record(name, text, hypothesis, masks, None)
    return record is not None and record.is_file()


@st.cache_data(max_entries=64, show_spinner="Encoding…")
def trace_view(name: str, text: str, hypothesis: str | None, masks: str, alpha: float | None) -> TraceView:
    """Numpy records of ``full_trace`` (see ``records.py``); a model's opening page is read from, or written
    to, ``view_store`` (issue 19's cold start)."""
    record = _opening_record(name, text, hypothesis, masks, alpha)
    stored = None if record is None else view_store.read(record)
    if stored is not None:
        mark("stored-view")
        return stored
    view = to_view(full_trace(name, text, hypothesis, masks, alpha))
    if record is not None:
        view_store.write(view, record)
    return view


@st.cache_data(max_entries=64, show_spinner=False)
def page_view(name: str, text: str, hypothesis: str | None, masks: str, alpha: float | None,
              per_feature: bool = False) -> PageView:
    """``trace_view`` packed for the page's figures (``chart.draw_figure``), named by a hash of its content;
    ``per_feature``: with DiSAN's per-feature P (from the full trace, which keeps it up to
    ``disan``'s limit: ``has_per_feature``), for the maps that reduce over features."""
    if per_feature:
        view, arrays = packed_trace_view(full_trace(name, text, hypothesis, masks, alpha))
    else:
        view, arrays = packed_records_view(trace_view(name, text, hypothesis, masks, alpha))
    text_view = json.dumps(view, ensure_ascii=False, separators=(",", ":"), allow_nan=False)
    digest = hashlib.sha256(text_view.encode("utf-8") + arrays).hexdigest()[:24]
    return PageView(digest, text_view, base64.b64encode(arrays).decode("ascii"))


def has_per_feature(name: str, text: str, hypothesis: str | None, masks: str) -> bool:
    """True when the trace kept DiSAN's per-feature P for both sentences (long sentences keep only reductions)."""
    trace = full_trace(name, text, hypothesis, masks, None)
    sents = [s for s in (trace.premise, trace.hypothesis) if s is not None]
    return all(s.encoder.fw.probs is not None and s.encoder.bw.probs is not None for s in sents)


def _warm(name: str) -> None:
    """Import torch and the core, load ``name`` (its GloVe stays cached by ``disan.load_glove``) and trace one
    sentence (the first trace pays torch's set-up), ``settings.WARM_UP_DELAY_S`` after the page that asked for
    it. Not through ``load_model``: Streamlit's caches warn when called outside a script run, and the model the
    next run loads then takes a fraction of the time."""
    time.sleep(settings.WARM_UP_DELAY_S)
    try:
        import torch

        torch.set_num_threads(settings.TORCH_THREADS)
        disan.load(name, device="cpu").trace(settings.DEFAULT_SENTENCE)
    except Exception:  # noqa: BLE001 - only a head start: the page reports any failure when it needs the model
        return


def core_loaded() -> bool:
    """True once this process has imported the model core (and so torch): any model built, any trace run."""
    return "disan.model" in sys.modules


@st.cache_resource(max_entries=16, show_spinner=False)
def warm_up(name: str) -> threading.Thread:
    """Once per process and model: ``_warm`` in a background thread, started after a page drawn from
    ``view_store`` records (``app.py``, when ``core_loaded`` is still False), so that the next submit finds
    the model loaded."""
    thread = threading.Thread(target=_warm, args=(name,), name=f"disan-warm-{name}", daemon=True)
    thread.start()
    return thread


@st.cache_data(max_entries=256, show_spinner=False)
def feature_matrix(
    name: str, text: str, hypothesis: str | None, masks: str, side: str, direction: str, feature: int
) -> np.ndarray:
    """DiSAN's per-feature probabilities P[..., k] (T, T) for one block (Shen Fig. 6 before averaging)."""
    trace = full_trace(name, text, hypothesis, masks, None)
    sent = trace.hypothesis if side == "hypothesis" and trace.hypothesis is not None else trace.premise
    block = sent.encoder.fw if direction == "fw" else sent.encoder.bw
    T = len(sent.tokens)
    if block.probs is not None:
        return block.probs[0, :T, :T, feature].numpy().copy()
    source = hypothesis if side == "hypothesis" else text
    return load_model(name).feature_slice(source, feature, direction, masks=masks).numpy()


@st.cache_data(max_entries=64, show_spinner=False)
def entropy_matrix(
    name: str, text: str, hypothesis: str | None, masks: str, side: str, direction: str
) -> np.ndarray | None:
    """``reduce.feature_entropy`` of one DiSAN block (T, T); None when the trace kept no per-feature tensor.
    Computed on demand: only the DiSAN view's "feature entropy" shows it."""
    trace = full_trace(name, text, hypothesis, masks, None)
    sent = trace.hypothesis if side == "hypothesis" and trace.hypothesis is not None else trace.premise
    block = sent.encoder.fw if direction == "fw" else sent.encoder.bw
    T = len(sent.tokens)
    return None if block.probs is None else feature_entropy(block.probs[0, :T, :T].numpy())


@st.cache_data(max_entries=256, show_spinner=False)
def heads_at_alpha(
    name: str, text: str, hypothesis: str | None, masks: str, side: str, alpha: float
) -> dict[str, np.ndarray]:
    """DSA per-head attention {"fw", "bw"} → (H, T, T) at ``alpha``, from the cached scores (no encoder pass)."""
    view = trace_view(name, text, hypothesis, masks, None).side(side)
    return {d: reweight_alpha(view.block(d).scores, view.block(d).allowed, alpha) for d in ("fw", "bw")}


def trace_json(name: str, text: str, hypothesis: str | None, masks: str, alpha: float | None) -> str:
    """``ModelTrace.to_json()`` as text (built on demand for the download button)."""
    return json.dumps(full_trace(name, text, hypothesis, masks, alpha).to_json(), ensure_ascii=False, indent=1)


@st.cache_data(max_entries=64, show_spinner=False)
def live_payload(name: str, text: str, hypothesis: str | None, masks: str, side: str, kind: str) -> dict | None:
    """``live.live_key`` of one side's sentence for a control of ``kind`` (``distance`` or ``features``); None
    where the page cannot redraw it (the server path is kept): features of a sentence over
    ``live.FEATURE_MAX_TOKENS`` tokens or of a trace without per-feature probabilities."""
    trace = full_trace(name, text, hypothesis, masks, None)
    sent = trace.hypothesis if side == "hypothesis" and trace.hypothesis is not None else trace.premise
    if kind == "features" and (len(sent.tokens) > live.FEATURE_MAX_TOKENS or sent.encoder.fw.probs is None):
        return None
    return live.live_key(kind, sent.tokens, name, masks, side)


@st.cache_data(max_entries=32, show_spinner="Computing attributions…")
def attribution_view(name: str, text: str, hypothesis: str | None, masks: str, alpha: float | None,
                     target: str | None) -> AttributionView:
    """``disan.attribution.attribute`` of the cached trace for class ``target`` (None: predicted), as records."""
    return _attribute(load_model(name), full_trace(name, text, hypothesis, masks, alpha), target)


def _attribute(model: SentenceModel, trace: ModelTrace, target: str | None) -> AttributionView:
    from disan.attribution import attribute

    from viz_app.draw.attribution import attribution_view as to_attribution_view

    return to_attribution_view(attribute(model, trace, target))


def _lower_priority() -> None:
    """Run this thread, and the torch worker threads it starts, 10 nice levels below the process (Linux: per
    thread): an attribution (about a second of CPU at T = 64) then yields the cores to the browser drawing the
    maps of the same submit and to the next script run, which a person waits for. Elsewhere it runs at the
    process's priority."""
    if sys.platform.startswith("linux"):
        try:
            tid = threading.get_native_id()
            os.setpriority(os.PRIO_PROCESS, tid, min(os.getpriority(os.PRIO_PROCESS, tid) + 10, 19))
        except OSError:
            pass


#: One thread computes attributions off the submit path (``attribution_job``), one input at a time, at a lower
#: priority than the script runs.
_ATTRIBUTIONS = ThreadPoolExecutor(max_workers=1, thread_name_prefix="disan-attribution",
                                   initializer=_lower_priority)


@st.cache_resource(max_entries=32, show_spinner=False)
def attribution_job(name: str, text: str, hypothesis: str | None, masks: str, alpha: float | None,
                    target: str | None) -> Future:
    """``attribution_view`` computed in a background thread (issue 27: the Attribution view's maps follow the
    sentence at once, its attributions are drawn when ready). The model and the trace come from this script
    run's caches; the thread runs only ``disan.attribution`` (no Streamlit call, no hook on the model)."""
    model, trace = load_model(name), full_trace(name, text, hypothesis, masks, alpha)
    return _ATTRIBUTIONS.submit(_attribute, model, trace, target)
