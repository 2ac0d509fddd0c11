"""``bench components`` runs end to end on a tiny size (its figures are not checked here: benchmarks print
them, docs/figure-components.md holds a full run), and refuses bad flags with one line."""

from __future__ import annotations

import json

import pytest

from benchmarks import components


def test_bad_flags_get_one_line_and_status_2(capsys):
    assert components.main(["--libs", "ours,vega"]) == 2
    assert capsys.readouterr().err.strip() == "--libs: unknown vega; use ours, echarts, plotly"
    assert components.main(["--sizes", "10,x"]) == 2
    assert "is not a list of integers" in capsys.readouterr().err


@pytest.mark.slow
@pytest.mark.browser
def test_a_tiny_run_times_every_library_in_both_modes(tmp_path, capsys):
    why = components.unavailable()
    if why:
        pytest.skip(why)
    out = tmp_path / "bench.json"
    assert components.main(["--sizes", "4", "--frames", "2", "--warmup", "0", "--json", str(out)]) == 0
    rows = json.loads(out.read_text())["rows"]
    assert [(r["lib"], r["T"]) for r in rows] == [("ours", 4), ("echarts", 4), ("plotly", 4)]
    for r in rows:
        for mode in ("z", "tokens"):
            assert len(r[mode]["drawn_ms"]) == 2 and all(0 <= d <= s for d, s in zip(r[mode]["drawn_ms"], r[mode]["shown_ms"]))
    printed = capsys.readouterr().out
    assert "canvas component (this project)" in printed and "load average" in printed
