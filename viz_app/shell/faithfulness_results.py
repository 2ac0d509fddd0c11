"""Stored faithfulness results (``pretrained/<name>.faithfulness.json``) for the Evidence view, cached on the files.

Each file is checked against its checkpoint's SHA-256 (``disan.attribution.stored.stale_reason``);
a stale one is labelled, never shown as current.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from pathlib import Path

import pandas as pd
import streamlit as st

from disan.api import PRETRAINED_DIR
from disan.attribution.corpus import ATTRIBUTIONS, RANKINGS, tau_of
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
        return tau_of(self.data, a, b)

    @property
    def not_computed(self) -> list[str]:
        """Keys of a migrated file that its schema did not measure."""
        return [c["key"] for c in self.data.get("not_computed", [])]


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


#: Short labels of the series for the interval plots.
SHORT = {"attention": "attention", "pooling": "pooling", "grad_input": "gradient × input",
         "integrated_gradients": "IG", "leave_one_out": "leave-one-out", "rollout": "gated rollout",
         "attention_flow": "attention flow", "lrp": "LRP"}
#: The agreement summaries (per-example means of τ) and their labels.
AGREEMENT = (("attention", "attention ~ the 3 attributions (mean)"),
             ("attributions", "the attributions with each other (mean of 3 pairs)"),
             ("pooling", "DSA pooling (source2token + max pool) ~ the 3 attributions (mean)"))


def _row(m: Measured, series: str, v: dict) -> IntervalRow:
    return IntervalRow(m.name, series, v["value"], *v["ci95"], v["n"], m.note)


def agreement_rows(results: Faithfulness) -> list[IntervalRow]:
    """Per model: attention's mean τ with the attributions beside the attributions' mean τ with each other (and
    the DSA's pooling series); a migrated file without these intervals has no rows here."""
    rows = []
    for m in results.measured:
        agreement = m.data.get("agreement") or {}
        rows += [_row(m, label, agreement[key]) for key, label in AGREEMENT if key in agreement]
    return rows


def tau_rows(results: Faithfulness) -> list[IntervalRow]:
    """Kendall τ per pair, per model: attention with each attribution, the attributions with each other (the
    baseline), and attention with the series composed from it (gated rollout, attention flow)."""
    pairs = [("attention", m) for m in ATTRIBUTIONS] + list(itertools.combinations(ATTRIBUTIONS, 2))
    pairs += [("attention", "rollout"), ("attention", "attention_flow")]
    rows = []
    for m in results.measured:
        for a, b in pairs:
            t = m.tau(a, b)
            if t is not None:
                rows.append(_row(m, f"{SHORT[a]} ~ {SHORT[b]}", t))
    return rows


def aopc_rows(results: Faithfulness, kind: str, which: str = "aopc") -> list[IntervalRow]:
    """ERASER's ``kind`` (comprehensiveness / sufficiency) per model and ranking: ``aopc`` ours (the mean over
    10/20/50%), ``aopc_eraser`` ERASER's AOPC ({1, 5, 10, 20, 50}%, 1/(|B| + 1)), ``aopc_steps`` Edin et al.'s
    AOPC over every masking step or ``naopc`` its normalisation (``disan/attribution/naopc.py``); none where not
    computed."""
    rows = []
    for m in results.measured:
        by = (m.data.get(which) or {}).get(kind) or {}
        for r in RANKINGS:
            if by.get(r) is not None:
                rows.append(_row(m, "random" if r == "random" else SHORT[r], by[r]))
    return rows


def naopc_examples(measured: list[Measured]) -> str:
    """How many examples each file's NAOPC is over (``naopc_how.sample``; a file written before the sample: all)."""
    rows = [f"{m.name} {(m.data['naopc_how'].get('sample') or {}).get('n', m.data['n']):,} of {m.data['n']:,}"
            for m in measured if m.data.get("naopc_how")]
    return "; ".join(rows) if rows else "no file has it yet"


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
