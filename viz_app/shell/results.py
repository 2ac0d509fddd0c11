"""Stored claim results (``pretrained/<name>.claims.json``) for the Evidence and Models views.

Reading is cached on the files' sizes and modification times, so the views
load instantly; each result is checked against its checkpoint's SHA-256
(``disan.claims_file.stale_reason``) and a stale one is labelled, never shown
as current.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from typing import TYPE_CHECKING

import streamlit as st

from disan.api import PRETRAINED_DIR
from disan.claims import CLAIM_IDS
from disan.claims_file import bundled, claims_path, read_claims, stale_reason

from viz_app.draw.corpus_figures import ForestRow
from viz_app.draw.verdicts import on_test_set

if TYPE_CHECKING:  # pandas is imported by the tables only (the case-study views read results without them)
    import pandas as pd

#: The command that (re)computes every stored result; the views quote it.
REFRESH_COMMAND = "python -m disan claims --all --write --stale-only"


@dataclass(frozen=True)
class Stored:
    """One model's stored results; ``stale`` says why they no longer match the checkpoint (None = current)."""

    name: str
    data: dict
    stale: str | None

    def claim(self, claim_id: str) -> dict | None:
        return next((c for c in self.data["claims"] if c["id"] == claim_id), None)

    @property
    def label(self) -> str:
        return f"{self.name} (stale)" if self.stale else self.name


@dataclass(frozen=True)
class Results:
    """Every stored result, and the bundled checkpoints that have none (or an unreadable one)."""

    stored: tuple[Stored, ...]
    missing: tuple[str, ...]
    unreadable: tuple[tuple[str, str], ...]

    def by_name(self, name: str) -> Stored | None:
        return next((s for s in self.stored if s.name == name), None)

    def claim_ids(self) -> list[str]:
        """Ids of the claims any stored result measures, in the order of ``disan.claims.CLAIMS``."""
        seen = {c["id"] for s in self.stored for c in s.data["claims"]}
        order = {cid: k for k, cid in enumerate(CLAIM_IDS)}
        return sorted(seen, key=lambda cid: (order.get(cid, len(order)), cid))

    def with_claim(self, claim_id: str) -> list[tuple[Stored, dict]]:
        return [(s, c) for s in self.stored if (c := s.claim(claim_id)) is not None]


def read_results(directory: Path = PRETRAINED_DIR) -> Results:
    """Every ``<name>.claims.json`` beside a checkpoint in ``directory``, checked for staleness."""
    stored, missing, unreadable = [], [], []
    for name in bundled(directory):
        try:
            data = read_claims(name, directory)
        except (OSError, ValueError) as err:
            unreadable.append((name, f"{claims_path(name, directory).name} cannot be read ({err})"))
            continue
        if data is None:
            missing.append(name)
            continue
        try:
            stale = stale_reason(data, directory)
        except (KeyError, TypeError) as err:
            unreadable.append((name, f"{claims_path(name, directory).name} lacks a field ({err})"))
            continue
        stored.append(Stored(name, data, stale))
    return Results(tuple(stored), tuple(missing), tuple(unreadable))


def _signature(directory: Path) -> tuple:
    """(name, size, mtime) of every checkpoint and results file: the cache key."""
    files = sorted(directory.glob("*.safetensors")) + sorted(directory.glob("*.claims.json"))
    return tuple((p.name, p.stat().st_size, p.stat().st_mtime_ns) for p in files)


@st.cache_resource(max_entries=4, show_spinner=False)
def _cached(directory: str, signature: tuple) -> Results:
    return read_results(Path(directory))


def load_results(directory: Path = PRETRAINED_DIR) -> Results:
    """``read_results``, recomputed only when a checkpoint or results file changes."""
    return _cached(str(directory), _signature(directory))


def forest_rows(results: Results, claim_id: str) -> list[ForestRow]:
    """One forest-plot row per model that measured ``claim_id``."""
    return [ForestRow(s.name, c["value"], c["ci95"][0], c["ci95"][1], c["verdict"], c["n"], bool(s.stale))
            for s, c in results.with_claim(claim_id)]


def verdict_table(results: Results) -> pd.DataFrame:
    """Claims × models: verdict and value [95% interval]; blank where a claim does not apply to a model."""
    import pandas as pd

    cells: dict[str, dict[str, str]] = {}
    rows: dict[str, str] = {}
    for s in results.stored:
        for c in s.data["claims"]:
            rows.setdefault(c["id"], f"{c['figure']}: {c['claim']}")
            cells.setdefault(s.label, {})[c["id"]] = on_test_set(c)
    table = pd.DataFrame(cells, index=list(rows)).fillna("")
    table.index = [rows[i] for i in table.index]
    return table


#: Pixels per character of a table cell at Streamlit's table font (its digits and signs are the widest), and a
#: column's padding: a column this wide shows its longest cell whole.
CELL_CHAR_PX, CELL_PAD_PX = 8, 24
#: Width of the Verdict table's claim column (pinned: the claim stays in view while the models scroll past).
CLAIM_COLUMN_PX = 420


def verdict_column_config(table: pd.DataFrame) -> dict:
    """``st.dataframe``'s column config for ``verdict_table``: each model's column as wide as its longest cell
    (by default a column is cut to "✓ support…"), the claims pinned at the left."""
    config = {"_index": st.column_config.TextColumn("claim", width=CLAIM_COLUMN_PX, pinned=True)}
    for column in table.columns:
        longest = max([len(str(column))] + [len(str(v)) for v in table[column]])
        config[column] = st.column_config.TextColumn(str(column), width=CELL_CHAR_PX * longest + CELL_PAD_PX)
    return config


def forest_table(rows: list[ForestRow]) -> pd.DataFrame:
    """The numbers behind a forest plot, one row per model (the figure's table fallback)."""
    import pandas as pd

    return pd.DataFrame(
        [{"model": r.label, "value": r.value, "ci95 lo": r.lo, "ci95 hi": r.hi, "n": r.n, "verdict": r.verdict,
          "stale": r.stale} for r in rows]
    ).set_index("model")
