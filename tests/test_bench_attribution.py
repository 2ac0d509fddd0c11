"""``python -m viz_app bench attribution``: the five attributions timed at T = 20 against the 250 ms target."""

from __future__ import annotations

import contextlib
import io

from benchmarks import cli as bench
from benchmarks.attribution import README_END, README_START


def test_bench_attribution_prints_median_p95_and_writes_the_readme_block(tmp_path):
    readme = tmp_path / "README.md"
    readme.write_text(f"intro\n{README_START}\nold\n{README_END}\noutro\n")
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        code = bench.main(["attribution", "--quick", "--threads", "1", "--models", "dsa", "--docs", str(readme),
                           "--cost-tokens", "6"])
    text = out.getvalue()
    assert code == 0
    assert "attributions median ms" in text and "attributions p95 ms" in text and "IG steps" in text
    assert "attributions (all five) T=20, CPU, dsa: median ≤ 250 ms" in text
    assert "attributions (all five) T=20, CPU, disan" in text and "not measured" in text  # not asked for
    costs = [line.split() for line in text.splitlines() if line.startswith("dsa-sst5 ") and " 6 " in line]
    assert {" ".join(c[2:-5]) for c in costs} == {"IG", "LRP", "one randomisation step", "cascading test"}
    assert all(float(c[-5].replace(",", "")) > 0 for c in costs)  # a median in ms, beside runs, steps, threads, load
    block = readme.read_text()
    assert block.startswith("intro\n") and block.endswith("outro\n") and "old" not in block
    assert "python -m viz_app bench attribution --quick" in block and "| 20 | 1 |" in block
