"""scripts/faithfulness_compare.py: two faithfulness files (or two resume files) hold the same values within a
tolerance, rows matched by their names, the compute time ignored."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "scripts"))

import faithfulness_compare as C  # noqa: E402

from disan.attribution.resume import BatchCache  # noqa: E402


def write(path: Path, data: dict) -> str:
    path.write_text(json.dumps(data))
    return str(path)


OLD = {"schema_version": 2, "seconds": 10.0, "answer": "x", "tau": [{"a": "attention", "b": "ig", "value": 0.25}],
       "aopc": {"comprehensiveness": {"attention": {"value": 0.1, "ci95": [0.05, 0.15]}}}}


def test_equal_values_pass_and_a_difference_over_the_tolerance_fails(tmp_path, capsys):
    new = {**OLD, "seconds": 99.0, "aopc": {"comprehensiveness": {"attention": {"value": 0.1 + 5e-8,
                                                                               "ci95": [0.05, 0.15]}}}}
    a, b = write(tmp_path / "a.json", OLD), write(tmp_path / "b.json", new)
    assert C.main([a, b]) == 0  # 5e-8 is within 1e-6, and the compute time is not compared
    assert C.main([a, b, "--tol", "1e-8"]) == 1
    assert ".aopc.comprehensiveness.attention.value" in capsys.readouterr().out


def test_rows_are_matched_by_name_and_common_skips_what_one_file_lacks(tmp_path):
    new = {**OLD, "schema_version": 3, "naopc": {"x": 1.0},
           "tau": [{"a": "lrp", "b": "ig", "value": 0.9}, {"a": "attention", "b": "ig", "value": 0.25}]}
    a, b = write(tmp_path / "a.json", OLD), write(tmp_path / "b.json", new)
    assert C.main([a, b, "--common", "--ignore", "seconds,schema_version"]) == 0  # the old row, moved, is equal
    assert C.main([a, b, "--ignore", "seconds,schema_version"]) == 1  # naopc and the lrp row are in one file only
    changed = {**new, "tau": [{"a": "attention", "b": "ig", "value": 0.3}]}
    assert C.main([a, write(tmp_path / "c.json", changed), "--common", "--ignore", "seconds,schema_version"]) == 1


def test_resume_files_are_compared_per_example_over_the_batches_both_finished(tmp_path, capsys):
    key = {"model": "m", "split": "test", "batches": [[0, 1], [2]]}
    values = {"tau": np.array([0.1, 0.2, 0.3]), "seconds": np.array([1.0, 1.0, 2.0])}
    (tmp_path / "a").mkdir(), (tmp_path / "b").mkdir()
    first, second = BatchCache(tmp_path / "a", key, 3, 2), BatchCache(tmp_path / "b", key, 3, 2)
    first.save(np.array([True, True]), values)
    second.save(np.array([True, False]), {**values, "tau": np.array([0.1, 0.2, 9.0])})  # batch 1 not done
    assert C.main([str(first.path), str(second.path)]) == 0
    assert "1 batches (2 examples) done in both" in capsys.readouterr().out
    second.save(np.array([True, True]), {**values, "tau": np.array([0.1, 0.2, 9.0])})
    assert C.main([str(first.path), str(second.path)]) == 1
