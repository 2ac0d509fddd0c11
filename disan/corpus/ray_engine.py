"""``disan index --engine ray``: the same chunks as Ray tasks, on a local Ray cluster or an existing one.

Each task loads the model once per worker process (``_model``, cached) and runs ``chunk.index_chunk`` on one
chunk with one torch thread (Ray gives a task one CPU); the driver keeps at most two tasks per cluster CPU in
flight, writes each finished chunk's parts (``store.Store``) and so needs no shared file system, and resumes as
the embedded engine does. Since a chunk's rows depend only on its examples, the Parquet equals the embedded
run's row for row (tests/test_corpus_ray.py). ``--ray-address`` (or ``RAY_ADDRESS``) joins a running cluster; the
checkpoint must then be readable at the same path on every node (a bundled name is, in the same install).
"""

from __future__ import annotations

import functools
import os
from collections import deque

from tqdm import tqdm

from ..errors import DisanError
from ..locations import PACKAGE
from .sources import Corpus
from .store import Store


@functools.lru_cache(maxsize=2)
def _model(name: str):
    import torch

    from ..api import load

    torch.set_num_threads(1)
    return load(name, "cpu")


def _index(name: str, start: int, items: list):
    from .chunk import index_chunk

    return start, index_chunk(_model(name), start, items)


def run_ray(model_name: str, corpus: Corpus, store: Store, chunk: int, progress: bool,
            address: str | None = None) -> int:
    try:
        import ray
    except ImportError:
        raise DisanError("--engine ray needs Ray: pip install '.[ray]' (or pip install ray), or use the default "
                         "--engine embedded.") from None
    started_here = not ray.is_initialized()
    if started_here:
        env = {}
        if address is None:  # a local cluster's workers import this checkout's (or install's) disan
            env = {"env_vars": {"PYTHONPATH": os.pathsep.join(filter(None, (str(PACKAGE.parent),
                                                                               os.environ.get("PYTHONPATH"))))}}
        ray.init(address=address, include_dashboard=False, log_to_driver=False, configure_logging=False,
                 runtime_env=env or None)
    try:
        task = ray.remote(num_cpus=1)(_index)
        limit = 2 * max(1, int(ray.cluster_resources().get("CPU", 1)))
        pending: deque = deque()
        n = 0
        bar = tqdm(desc=f"index {corpus.name} (ray)", unit="example", disable=not progress, leave=False)

        def collect(block: bool) -> None:
            ready, _ = ray.wait(list(pending), num_returns=1 if block else len(pending), timeout=None if block else 0)
            for ref in ready:
                pending.remove(ref)
                start, result = ray.get(ref)
                store.write(start, result)
                bar.update(result.sentences.num_rows)

        for start, items in corpus.chunks(chunk):
            n += len(items)
            if start in store.done:
                bar.update(len(items))
                continue
            while len(pending) >= limit:
                collect(block=True)
            pending.append(task.remote(model_name, start, items))
        while pending:
            collect(block=True)
        bar.close()
        return n
    finally:
        if started_here:
            ray.shutdown()
