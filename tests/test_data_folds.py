"""SICK relatedness splits, stratified 10-fold assignment and the CV tasks, on files the tests write."""

from __future__ import annotations

import json
from collections import Counter

import numpy as np
import pytest

from disan import data as d
from disan.data import CorruptLineError
from tests.task_files import write_task_data


@pytest.fixture(scope="module")
def root(tmp_path_factory):
    return write_task_data(tmp_path_factory.mktemp("task-data"))


# --------------------------------------------------------------------------- SICK relatedness


def test_sick_splits_read_scores_pairs_and_crlf(root):
    parts = {split: d.load_sick_relatedness(split, root) for split in ("train", "dev", "test")}
    assert [len(parts[s]) for s in ("train", "dev", "test")] == [60, 12, 16]
    ex = parts["test"][0]
    assert ex.source == "SICK_test_annotated.txt:2" and not ex.text.endswith("\r")
    for examples in parts.values():
        for ex in examples:
            assert 1.0 <= ex.score <= 5.0 and ex.hypothesis
            assert ex.label == d.grade_index(ex.score)
    assert d.load_task("sick", "dev", root) == parts["dev"]


def test_grade_index_rounds_halves_up_and_stays_in_range():
    assert [d.grade_index(x) for x in (1.0, 1.49, 1.5, 3.2, 4.5, 5.0)] == [0, 0, 1, 2, 4, 4]


@pytest.mark.parametrize("row, reason", [
    ("7\tA man runs\tA dog runs\thigh\tNEUTRAL", "relatedness_score 'high' is not a number"),
    ("7\tA man runs\tA dog runs\t5.4\tNEUTRAL", "relatedness_score 5.4 is outside 1..5"),
    ("7\tA man runs\tA dog runs", "expected at least 4 tab-separated fields, found 3"),
    ("7\t\tA dog runs\t3.0\tNEUTRAL", "empty sentence_A or sentence_B"),
])
def test_sick_malformed_row_names_file_line_and_reason(tmp_path, row, reason):
    (tmp_path / "sick").mkdir()
    header = "pair_ID\tsentence_A\tsentence_B\trelatedness_score\tentailment_judgment"
    (tmp_path / "sick" / "SICK_trial.txt").write_text(f"{header}\n1\tA b\tC d\t2.5\tNEUTRAL\n{row}\n")
    with pytest.raises(CorruptLineError) as err:
        d.load_sick_relatedness("dev", tmp_path)
    assert (err.value.line, err.value.file.endswith("SICK_trial.txt")) == (3, True)
    assert reason in err.value.reason
    with pytest.warns(d.CorruptLineWarning, match="line 3"):
        assert len(d.load_sick_relatedness("dev", tmp_path, on_error="skip")) == 1


def test_sick_header_without_scores_is_refused_at_line_one(tmp_path):
    (tmp_path / "sick").mkdir()
    (tmp_path / "sick" / "SICK_train.txt").write_text("pair_ID\tsentence_A\tsentence_B\n1\ta\tb\n")
    with pytest.raises(CorruptLineError, match=r"line 1: .*relatedness_score"):
        d.load_sick_relatedness("train", tmp_path)


def test_sick_missing_split_file_says_where_to_get_it(tmp_path):
    with pytest.raises(d.DataFileError, match="SICK_test_annotated.txt"):
        d.load_sick_relatedness("test", tmp_path)


# --------------------------------------------------------------------------- SentEval as they are


def test_senteval_files_read_latin1_and_refuse_a_bad_label(root, tmp_path):
    subj = d.load_senteval("subj", root)
    assert len(subj) == 40 and subj[-1].text == "the café is fine"
    (tmp_path / "senteval").mkdir()
    (tmp_path / "senteval" / "mpqa.all").write_text("0 fine\nx broken line\n")
    with pytest.raises(CorruptLineError) as err:
        d.load_senteval("mpqa", tmp_path)
    assert (err.value.line, "label 'x' is not an integer" in err.value.reason) == (2, True)
    assert str(err.value).startswith(str(tmp_path / "senteval" / "mpqa.all") + ", line 2:")


# --------------------------------------------------------------------------- folds


def test_stratified_folds_are_disjoint_complete_balanced_and_seeded():
    labels = [0] * 53 + [1] * 31 + [2] * 7
    folds = np.array(d.stratified_folds(labels, 10, seed=3))
    sizes = np.bincount(folds, minlength=10)
    assert sizes.sum() == len(labels) and sizes.max() - sizes.min() <= 1
    for label, n in Counter(labels).items():
        per_fold = np.bincount(folds[np.array(labels) == label], minlength=10)
        assert per_fold.max() - per_fold.min() <= 1 and per_fold.sum() == n  # each class spread evenly
    assert d.stratified_folds(labels, 10, seed=3) == folds.tolist()
    assert d.stratified_folds(labels, 10, seed=4) != folds.tolist()


def test_fold_parts_are_disjoint_cover_everything_and_test_is_the_fold():
    labels = [0] * 60 + [1] * 30
    folds = np.array(d.stratified_folds(labels, 10, seed=13))
    tests = []
    for fold in range(10):
        idx = d.fold_indices(labels, fold, 10, 13)
        train, dev, test = (set(idx[p]) for p in ("train", "dev", "test"))
        assert not (train & dev or train & test or dev & test)
        assert train | dev | test == set(range(90))
        assert test == set(np.flatnonzero(folds == fold))
        assert Counter(labels[i] for i in dev) == {0: 6, 1: 3}  # the dev slice is stratified too
        tests.append(test)
    assert set().union(*tests) == set(range(90)) and sum(map(len, tests)) == 90
    with pytest.raises(ValueError, match="fold must be between 0 and 9"):
        d.fold_indices(labels, 10)


def test_cv_task_uses_the_fold_and_the_record_names_its_examples(root):
    everything = d.load_task("cr", "all", root)
    parts = {p: d.load_task("cr", p, root, fold=2) for p in ("train", "dev", "test")}
    assert Counter(parts["train"] + parts["dev"] + parts["test"]) == Counter(everything)
    record = json.loads(json.dumps(d.fold_record("cr", everything, 2)))
    assert record["sources"] == [ex.source for ex in everything]
    test = [everything[i] for i in record["this_fold"]["test"]["indices"]]
    assert test == parts["test"]
    assert [i for i, f in enumerate(record["fold_of_example"]) if f == 2] == record["this_fold"]["test"]["indices"]
    assert d.load_task("cr", "test", root) != parts["test"]  # without fold: the fixed 80/10/10 split
