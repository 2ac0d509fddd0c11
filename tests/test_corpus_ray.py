"""disan index --engine ray (issue 56, item 4): a local Ray cluster writes the same Parquet, row for row, as the
embedded engine on the fixture corpus (both with one torch thread per chunk, so the floats are the same)."""

from __future__ import annotations

import pyarrow.parquet as pq
import pytest

from disan.corpus.build import build_index
from disan.corpus.manifest import open_index
from tests.corpus_helpers import PAIRS, SENTENCES, built_index

ray = pytest.importorskip("ray", reason="Ray is not installed (pip install '.[ray]'; requirements-dev.txt has it)")

pytestmark = pytest.mark.slow


@pytest.mark.parametrize("model, data", [("disan-sst5", SENTENCES), ("dsa-nli", PAIRS)])
def test_ray_writes_the_embedded_rows(tmp_path, model, data):
    out = tmp_path / "ray-index"
    build_index(model, str(data), out, engine="ray", progress=False, chunk=3)
    embedded = built_index(model, str(data))
    index = open_index(out)
    assert index.manifest["engine"] == "ray"
    for table in ("sentences", "tokens", "profile"):
        got, want = pq.read_table(out / table), pq.read_table(embedded / table)
        assert got.num_rows == want.num_rows > 0
        assert got.equals(want), table
