"""``bench train-data`` (issue 55, item 5) as a smoke run: generated rows, one tiny DSA epoch, a 3,000-row CSV."""

from __future__ import annotations

import json

import pytest

from benchmarks import train_data


@pytest.mark.slow
def test_smoke_run_measures_training_and_reading_and_writes_its_block(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("DISAN_DATA_DIR", str(tmp_path / "no-data"))  # no SUBJ: the generated file
    raw = tmp_path / "raw.json"
    argv = ["--examples", "80", "--rows", "3000", "--epochs", "1", "--models", "dsa", "--d-h", "10", "--threads", "1",
            "--workers", "1", "2", "--json", str(raw)]
    assert train_data.main(argv) == 0
    printed = capsys.readouterr().out
    result = json.loads(raw.read_text())
    assert result["source"].startswith("generated")
    [row] = result["train"]
    assert row["arch"] == "dsa" and row["epochs"] == 1 and row["train_examples"] == 64  # 80 less 10% dev, 10% test
    # (a tiny epoch can round to 0.0 s in the log: its mean is checked against the per-epoch list instead)
    assert row["s_per_epoch"] == row["s_per_epoch_each"][0] >= 0 and row["process_wall_s"] > 0
    assert row["peak_rss_mb"] > 100  # torch alone holds more
    assert 0 < row["cpu_s"] < 10 * row["process_wall_s"]
    read, pooled = result["reads"]
    assert read["rows"] == 3000 and read["tokens"] > 3000 * 10 and read["vocabulary"] > 3000  # each row numbered
    assert (read["workers"], pooled["workers"]) == (1, 2)
    assert (pooled["rows"], pooled["tokens"], pooled["vocabulary"]) == (read["rows"], read["tokens"], read["vocabulary"])
    assert "1 (no pool)" in printed and "2 (Pool.imap)" in printed
    assert 0 < read["reader_cpu_s"] and 0 < pooled["workers_cpu_s"]  # the pool's tokenising is counted
    assert "load average" in printed and "Reading + tokenising a 3,000-row CSV" in printed
    page = tmp_path / "page.md"
    page.write_text(f"before\n{train_data.START}\nold\n{train_data.END}\nafter\n")
    assert train_data.main(["--render", str(raw), "--docs", str(page)]) == 0
    text = page.read_text()
    assert "old" not in text and "$ python -m viz_app bench train-data --examples 80" in text and "after" in text
