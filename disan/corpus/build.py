"""``disan index``: trace every example of a corpus and write the index, with the embedded engine or Ray.

The embedded engine runs the chunks one after another in this process with torch's intra-op threads on every
local core (``--threads``), on the GPU when one is present (``api.default_device``). Memory is bounded by one
chunk (``sources.CHUNK`` examples: their tokens, their Arrow rows) plus one batch's recorded trace
(``chunk.BATCH_ELEMENTS``), whatever the corpus size; a text file is read line by line. The peak resident memory
of the run is measured and stored in the manifest (``peak_rss_mb``).
"""

from __future__ import annotations

import resource
import sys
import time
from pathlib import Path

import torch
from tqdm import tqdm

from ..api import checkpoint_path, load
from ..checkpoint import sha256
from ..config import ARCHS
from ..errors import InputError
from .chunk import index_chunk
from .cli import ENGINES
from .columns import SENTENCE_COLUMNS, token_columns
from .manifest import SCHEMA_VERSION, project_version
from .measures import DISTANCE_BIN_EDGES, signature_length
from .sources import CHUNK, Corpus, open_corpus
from .store import Store

def model_info(name: str, model) -> dict:
    cfg = model.cfg
    if name in ARCHS:
        path, digest = None, f"random weights, seed 0 ({name})"
    else:
        file = checkpoint_path(name)
        path = None if file.stem == name else str(file.resolve())
        digest = sha256(file)
    shown = name if name in ARCHS else model.name if path is None else path  # what `disan index --model` loads again
    return {"name": shown, "path": path, "sha256": digest, "random_weights": model.random_weights, "arch": cfg.arch,
            "labels": list(cfg.labels), "pair": cfg.pair, "relatedness": cfg.relatedness,
            "heads": cfg.heads if cfg.arch == "dsa" else None, "alpha": cfg.alpha if cfg.arch == "dsa" else None,
            "max_tokens": cfg.max_tokens}


def peak_rss_mb() -> float:
    """Peak resident memory of this process so far (Linux reports KiB)."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def run_embedded(model, corpus: Corpus, store: Store, chunk: int, progress: bool, on_chunk=None) -> int:
    n = 0
    bar = tqdm(desc=f"index {corpus.name}", unit="example", disable=not progress, leave=False)
    for start, items in corpus.chunks(chunk):
        if start not in store.done:
            store.write(start, index_chunk(model, start, items))
        n += len(items)
        bar.update(len(items))
        if on_chunk is not None:
            on_chunk(n)
    bar.close()
    return n


def build_index(model_name: str, data: str, out: str | Path, *, engine: str = "embedded",
                data_dir: str | None = None, overwrite: bool = False, progress: bool = True, chunk: int = CHUNK,
                threads: int | None = None, device: str | None = None, ray_address: str | None = None, on_chunk=None,
                text: str | None = None, text_pair: str | None = None, label: str | None = None) -> dict:
    """Build the index of ``data`` under ``model_name`` at ``out``; returns the manifest. ``on_chunk(n)`` is
    called with the examples done so far after every chunk of the embedded engine (the app's progress bar).
    ``text``/``text_pair``/``label``: a table file's columns (``sources.open_corpus``)."""
    if engine not in ENGINES:
        raise InputError(f"--engine {engine!r} is not known; use one of {', '.join(ENGINES)}.")
    if chunk < 1:
        raise InputError(f"--chunk {chunk} must be at least 1.")
    if threads is not None:
        if threads < 1:
            raise InputError(f"--threads {threads} must be at least 1.")
        torch.set_num_threads(threads)
    model = load(model_name, device if engine == "embedded" else "cpu")
    corpus = open_corpus(data, model.cfg.pair, data_dir, text=text, text_pair=text_pair, label=label, model=model_name,
                         relatedness=model.cfg.relatedness)
    info = model_info(model_name, model)
    job = {"model_sha256": info["sha256"], "model": info["name"], "project_version": project_version(),
           "schema_version": SCHEMA_VERSION, "data": corpus.ident, "chunk": chunk}
    store = Store(Path(out), job, overwrite)
    started = time.perf_counter()
    if engine == "ray":
        from .ray_engine import run_ray

        n = run_ray(model_name, corpus, store, chunk, progress, ray_address)
    else:
        n = run_embedded(model, corpus, store, chunk, progress, on_chunk)
    if n == 0:
        raise InputError(f"--data {data} holds no example (every line is blank); give a corpus with sentences.")
    seconds = time.perf_counter() - started
    manifest = {
        "project_version": project_version(), "model": info, "corpus": corpus.name, "data": corpus.ident,
        "examples": n, "chunk": chunk, "engine": engine, "seconds": round(seconds, 2),
        "torch_threads": torch.get_num_threads(), "device": str(model.device), "peak_rss_mb": round(peak_rss_mb(), 1),
        "signature": {"length": signature_length(model.cfg.arch, model.cfg.heads),
                      "distance_bins": list(DISTANCE_BIN_EDGES)},
        "columns": {"sentences": [c.name for c in SENTENCE_COLUMNS],
                    "tokens": [c.name for c in token_columns(model.cfg.arch, model.cfg.heads)]},
    }
    store.finish(manifest)
    print(f"indexed {n:,} examples of {corpus.name} with {info['name']} in {seconds:.1f} s "
          f"({n / max(seconds, 1e-9):.1f} examples/s, peak memory {manifest['peak_rss_mb']:.0f} MB) → {out}",
          file=sys.stderr)
    return manifest
