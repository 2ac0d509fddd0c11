"""The index folder while it is built: parts under ``OUT.partial/``, resume, then the manifest and one rename.

Every chunk's three parts (sentences, tokens, profile) are each written under a temporary name and renamed; the
profile part goes last and marks the chunk done. An interrupted build leaves only ``OUT.partial/`` (which
``open_index`` refuses as unfinished), and the same command resumes it, skipping the finished chunks, as long as
its ``job.json`` (model SHA-256, versions, corpus, chunk size) is the same. The manifest is written last and the
folder renamed to ``OUT``: nothing at ``OUT`` looks finished before it is.
"""

from __future__ import annotations

import json
import os
import shutil
import sys
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

from ..errors import InputError, OutputError
from .chunk import ChunkResult
from .manifest import FORMAT, MANIFEST, PARTIAL_SUFFIX, SCHEMA_VERSION, TABLES

JOB = "job.json"


def part_name(start: int) -> str:
    return f"part-{start:012d}.parquet"


def _write_atomic(table: pa.Table, path: Path) -> None:
    tmp = path.with_name(path.name + ".tmp")
    pq.write_table(table, tmp, compression="zstd")
    os.replace(tmp, path)


def profile_table(profile: dict[str, np.ndarray]) -> pa.Table:
    """Long form of a chunk's distance profile: block, head, distance, mass (Σ over rows), rows."""
    block, head, distance, mass, rows = [], [], [], [], []
    for name in ("fw", "bw"):
        hist = profile.get(name)
        if hist is None:
            continue
        for h in range(hist.shape[0]):
            for d in range(hist.shape[1]):
                block.append(name), head.append(h), distance.append(d), mass.append(float(hist[h, d]))
                rows.append(float(profile[f"{name}_rows"]))
    return pa.table({"block": pa.array(block, pa.string()), "head": pa.array(head, pa.int32()),
                     "distance": pa.array(distance, pa.int32()), "mass": pa.array(mass, pa.float64()),
                     "rows": pa.array(rows, pa.float64())})


class Store:
    """``OUT.partial/`` for a job; ``done`` holds the first ids of the finished chunks."""

    def __init__(self, out: Path, job: dict, overwrite: bool):
        self.out = out
        self.partial = out.with_name(out.name + PARTIAL_SUFFIX)
        if out.exists() and not overwrite:
            raise InputError(f"{out} already exists; pass --overwrite to replace it, or choose another --out.")
        if out.exists() and not (out / MANIFEST).is_file() and any(out.iterdir()):
            raise InputError(f"{out} is a folder that holds no index; choose an empty or new --out.")
        if not out.parent.is_dir():
            raise OutputError(f"The folder {out.parent} does not exist; create it or choose another --out.")
        self.job = job
        self.done: set[int] = set()
        if self.partial.exists():
            try:
                same = json.loads((self.partial / JOB).read_text(encoding="utf-8")) == job
            except (OSError, ValueError):
                same = False
            if same:
                self.done = {int(p.name[5:17]) for p in (self.partial / "profile").glob("part-*.parquet")}
                print(f"resuming {self.partial}: {len(self.done)} chunks already done", file=sys.stderr)
            else:
                print(f"discarding {self.partial}: an interrupted build of another job", file=sys.stderr)
                shutil.rmtree(self.partial)
        for table in TABLES:
            (self.partial / table).mkdir(parents=True, exist_ok=True)
        (self.partial / JOB).write_text(json.dumps(job, indent=1), encoding="utf-8")

    def write(self, start: int, result: ChunkResult) -> None:
        name = part_name(start)
        _write_atomic(result.sentences, self.partial / "sentences" / name)
        _write_atomic(result.tokens, self.partial / "tokens" / name)
        _write_atomic(profile_table(result.profile), self.partial / "profile" / name)  # last: marks it done
        self.done.add(start)

    def finish(self, manifest: dict) -> Path:
        """Write the manifest (with every part's size) into the partial folder, then rename it to OUT."""
        parts = {t: {p.name: p.stat().st_size for p in sorted((self.partial / t).glob("part-*.parquet"))}
                 for t in TABLES}
        counts = {t: sum(pq.ParquetFile(self.partial / t / n).metadata.num_rows for n in parts[t])
                  for t in ("sentences", "tokens")}
        manifest = {"format": FORMAT, "schema_version": SCHEMA_VERSION, **manifest, "rows": counts, "parts": parts}
        (self.partial / MANIFEST).write_text(json.dumps(manifest, indent=1, ensure_ascii=False), encoding="utf-8")
        (self.partial / JOB).unlink()
        old = self.out.with_name(self.out.name + ".old")
        if self.out.exists():
            os.replace(self.out, old)
        os.replace(self.partial, self.out)
        if old.exists():
            shutil.rmtree(old)
        return self.out
