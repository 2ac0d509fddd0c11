"""Stored faithfulness results (``pretrained/<name>.faithfulness.json``) for the Evidence view, cached on the files.

Each file is checked against its checkpoint's SHA-256 (``disan.attribution.stored.stale_reason``);
a stale one is labelled, never shown as current.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import pandas as pd
import streamlit as st

from disan.api import PRETRAINED_DIR
from disan.attribution.corpus import ATTRIBUTIONS, RANKINGS
from disan.attribution.sentence import METHODS
from disan.attribution.stored import faithfulness_path, read_faithfulness, stale_reason
from disan.claims_file import bundled

from viz_app.draw.faithfulness_figures import IntervalRow


@dataclass(frozen=True)
class Measured:
    """One model's stored result; ``stale``: why it no longer matches the checkpoint (None = current)."""

    name: str
    data: dict
    stale: str | None

    @property
    def note(self) -> str:
        """Appended to the model's label: the sample size when not the whole split, and "(stale)"."""
        d = self.data
        sample = "" if d.get("complete") else f" ({d['n']:,} of {d['n_examples']:,})"
        return sample + (" (stale)" if self.stale else "")

    def tau(self, a: str, b: str) -> dict | None:
        return next((t for t in self.data["tau"] if (t["a"], t["b"]) in ((a, b), (b, a))), None)


@dataclass(frozen=True)
class Faithfulness:
    measured: tuple[Measured, ...]
    missing: tuple[str, ...]
    unreadable: tuple[tuple[str, str], ...]

    def by_name(self, name: str) -> Measured | None:
        return next((m for m in self.measured if m.name == name), None)


def read_all(directory: Path = PRETRAINED_DIR) -> Faithfulness:
    measured, missing, unreadable = [], [], []
    for name in bundled(directory):
        try:
            data = read_faithfulness(name, directory)
        except (OSError, ValueError) as err:
            unreadable.append((name, f"{faithfulness_path(name, directory).name} cannot be read ({err})"))
            continue
        if data is None:
            missing.append(name)
            continue
        try:
            measured.append(Measured(name, data, stale_reason(data, directory)))
        except (KeyError, TypeError) as err:
            unreadable.append((name, f"{faithfulness_path(name, directory).name} lacks a field ({err})"))
    return Faithfulness(tuple(measured), tuple(missing), tuple(unreadable))


def _signature(directory: Path) -> tuple:
    files = sorted(directory.glob("*.safetensors")) + sorted(directory.glob("*.faithfulness.json"))
    return tuple((p.name, p.stat().st_size, p.stat().st_mtime_ns) for p in files)


@st.cache_resource(max_entries=4, show_spinner=False)
def _cached(directory: str, signature: tuple) -> Faithfulness:
    return read_all(Path(directory))


def load_faithfulness(directory: Path = PRETRAINED_DIR) -> Faithfulness:
    """``read_all``, recomputed only when a checkpoint or results file changes."""
    return _cached(str(directory), _signature(directory))


def tau_rows(results: Faithfulness) -> list[IntervalRow]:
    """Kendall τ between attention and each attribution (and flow), per model."""
    rows = []
    for m in results.measured:
        for method in ATTRIBUTIONS + ("flow",):
            t = m.tau("attention", method)
            if t is not None:
                rows.append(IntervalRow(m.name, METHODS[method][0], t["value"], *t["ci95"], t["n"], m.note))
    return rows


def aopc_rows(results: Faithfulness, kind: str) -> list[IntervalRow]:
    """ERASER's ``kind`` (comprehensiveness / sufficiency) averaged over 10/20/50%, per model and ranking."""
    rows = []
    for m in results.measured:
        for r in RANKINGS:
            v = m.data["aopc"][kind].get(r)
            if v is not None:
                label = "random" if r == "random" else METHODS[r][0]
                rows.append(IntervalRow(m.name, label, v["value"], *v["ci95"], v["n"], m.note))
    return rows


def rows_table(rows: list[IntervalRow]) -> pd.DataFrame:
    """The numbers behind an interval plot (its table fallback)."""
    return pd.DataFrame([{"model": r.model + r.note, "series": r.series, "value": r.value, "ci95 lo": r.lo,
                          "ci95 hi": r.hi, "n": r.n} for r in rows])


def eraser_table(m: Measured) -> pd.DataFrame:
    """One model's ERASER values at every level: ranking × fraction, value [95% interval]."""
    out = []
    for row in m.data["eraser"]:
        cells = {"ranking": row["ranking"], "top": f"{100 * row['fraction']:g}%"}
        for kind in ("comprehensiveness", "sufficiency"):
            v = row[kind]
            cells[kind] = f"{v['value']:.3f} [{v['ci95'][0]:.3f}, {v['ci95'][1]:.3f}]"
        out.append(cells)
    return pd.DataFrame(out).set_index(["ranking", "top"])
