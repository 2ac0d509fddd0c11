"""The TREC presets are the first test question of each coarse class, verbatim, with the file's line and gold class."""

import pytest

from disan.data import TREC_LABELS, DataFileError, data_dir, load_trec
from viz_app.draw.presets import PRESETS, TREC_TEST_QUESTIONS


def test_one_question_per_trec_class_each_a_preset():
    assert sorted(label for label, _, _ in TREC_TEST_QUESTIONS) == sorted(TREC_LABELS)
    sentences = {p.sentence for p in PRESETS}
    assert all(question in sentences for _, _, question in TREC_TEST_QUESTIONS)


@pytest.mark.data
def test_each_is_the_first_test_question_of_its_class_at_its_line():
    try:
        test = load_trec("test")
    except (DataFileError, OSError):
        pytest.skip(f"the TREC test file is not under {data_dir()}; set DISAN_DATA_DIR")
    for label, line, question in TREC_TEST_QUESTIONS:
        example = test[line - 1]
        assert (TREC_LABELS[example.label], example.text) == (label, question)
        first = next(i for i, e in enumerate(test) if TREC_LABELS[e.label] == label)
        assert first == line - 1, label
