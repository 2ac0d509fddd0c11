"""bench search's tables (issue 56, item 5): per-core throughput and core-hours per million, the p95 verdicts
against 200 ms and the view's against 1 s, from a stored run (the figures themselves come from the benchmark)."""

from __future__ import annotations

from benchmarks.search import tables


def test_tables_compute_per_core_figures_and_verdicts():
    raw = {
        "throughput": [{"model": "m", "arch": "dsa", "data": "sst5:test", "n": 100, "threads": 2, "seconds": 2.0,
                        "per_s": 50.0, "T_mean": 19.5, "T_max": 40}],
        "full": [{"model": "m", "data": "all", "examples": 1000, "rows": {"tokens": 20000}, "threads": 1,
                  "wall_s": 30.0, "index_s": 25.0, "peak_rss_mb": 900.0, "bytes": 3 * 2**20, "out": "/x/m-all"}],
        "queries": [{"index": "/x/m-all", "query": "fast", "hits": 20, "n": 40, "median_s": 0.01, "p95_s": 0.05},
                    {"index": "/x/m-all", "query": "slow", "hits": 20, "n": 40, "median_s": 0.1, "p95_s": 0.25}],
        "view": [{"model": "m", "index": "/x/m-all", "examples": 1000, "n": 10, "median_s": 0.6, "p95_s": 1.2}],
    }
    t1, t2, t3, t4 = tables(raw)
    assert t1.rows[0][5:] == ["50.0", "25.0", "11.1"]  # 25 per core → 10⁶ / 25 / 3600 core-hours
    assert t2.rows[0][6] == "40.0"  # examples per second of the build itself
    assert [r[-1] for r in t3.rows] == ["met", "MISSED"]
    assert t4.rows[0][-1] == "MISSED"
