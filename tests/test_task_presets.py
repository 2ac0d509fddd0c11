"""The task presets (SUBJ, MPQA and CR lines of each class, SICK test pairs across the relatedness range) are
verbatim lines of the files they name, picked by the rule their comment states, and every preset runs through
the model type it is meant for (tests/test_trec_presets.py holds the TREC questions to the same standard)."""

from __future__ import annotations

import pytest
import torch

from disan.config import ModelConfig
from disan.data import (CR_LABELS, MPQA_LABELS, SICK_GRADES, SUBJ_LABELS, TASK_LABELS, DataFileError, data_dir,
                        load_senteval, load_sick_relatedness)
from disan.data.labels import PAIR_TASKS, RELATEDNESS_TASKS
from disan.model import SentenceModel
from disan.vocab import build_vocab, tokenize
from viz_app.draw import settings
from viz_app.draw.presets import (PHRASE_MAX_TOKENS, PRESETS, SENTEVAL_LINES, SICK_GRADE_WINDOW, SICK_TEST_PAIRS)

TASK_CLASSES = {"subj": SUBJ_LABELS, "mpqa": MPQA_LABELS, "cr": CR_LABELS}


def test_every_class_of_subj_mpqa_and_cr_and_every_sick_grade_has_a_preset():
    for task, labels in TASK_CLASSES.items():
        assert {label for t, label, _, _ in SENTEVAL_LINES if t == task} == set(labels), task
    assert [round(score) for _, score, _, _ in SICK_TEST_PAIRS] == [int(g) for g in SICK_GRADES]
    mine = {(p.task, p.sentence, p.hypothesis) for p in PRESETS}
    assert all((task, text) in {(t, s) for t, s, _ in mine} for task, _, _, text in SENTEVAL_LINES)
    assert all(("sick", a, b) in mine for _, _, a, b in SICK_TEST_PAIRS)
    assert len({p.label for p in PRESETS}) == len(PRESETS)  # the pickers find a preset by its label


def _or_skip(load, *args):
    try:
        return load(*args)
    except (DataFileError, OSError):
        pytest.skip(f"the SentEval / SICK files are not under {data_dir()}; set DISAN_DATA_DIR")


@pytest.mark.data
@pytest.mark.parametrize("task", sorted(TASK_CLASSES))
def test_each_line_is_verbatim_and_the_first_short_ones_of_its_class(task):
    examples = _or_skip(load_senteval, task)
    file = examples[0].source.split(":")[0]
    labels = TASK_CLASSES[task]
    for label in labels:
        listed = [(line, text) for t, lab, line, text in SENTEVAL_LINES if t == task and lab == label]
        short = [e for e in examples if labels[e.label] == label and len(tokenize(e.text)) <= PHRASE_MAX_TOKENS]
        assert [(f"{file}:{line}", text) for line, text in listed] == [(e.source, e.text) for e in short[:len(listed)]]


@pytest.mark.data
def test_each_sick_pair_is_the_first_test_pair_near_its_grade_verbatim():
    test = _or_skip(load_sick_relatedness, "test")
    for grade, (line, score, a, b) in zip(range(1, 6), SICK_TEST_PAIRS):
        first = next(e for e in test if abs(e.score - grade) <= SICK_GRADE_WINDOW)
        assert (first.source, first.score, first.text, first.hypothesis) == (
            f"SICK_test_annotated.txt:{line}", score, a, b)


def tiny(task: str | None, pair: bool = False) -> SentenceModel:
    """A seeded model of the type ``task`` trains (its labels, pair input, relatedness head); None: NLI if pair."""
    labels = TASK_LABELS[task] if task else TASK_LABELS["nli" if pair else "sst5"]
    pair = task in PAIR_TASKS if task else pair
    cfg = ModelConfig(arch="disan", labels=labels, pair=pair, relatedness=task in RELATEDNESS_TASKS, d_in=8, d_h=6,
                      head_hidden=4, glove="unused")
    torch.manual_seed(0)
    return SentenceModel(cfg, build_vocab([["a", "the", "."]]), None, f"tiny-{task}", random_weights=True).eval()


def test_every_preset_runs_through_the_model_type_it_is_for():
    """Task presets through a model of their task; the papers' and our own sentences through every type."""
    models = {task: tiny(task) for task in {p.task for p in PRESETS} - {None}}
    anyone = [tiny(None), tiny(None, pair=True), tiny("sick")]
    ran = 0
    for p in PRESETS:
        for model in [models[p.task]] if p.task else anyone:
            hypothesis = p.hypothesis if model.cfg.pair else None
            trace = model.trace(p.sentence, hypothesis)
            assert len(trace.tokens) <= settings.REPORT_MAX_TOKENS, p.label  # the report and the site take it
            [out] = model.predict([(p.sentence, p.hypothesis) if model.cfg.pair else p.sentence])
            if model.cfg.relatedness:
                assert 1.0 <= out <= 5.0 and out == pytest.approx(trace.relatedness, abs=1e-5)
            else:
                assert list(out) == list(model.cfg.labels) == list(trace.prediction)
            ran += 1
    assert ran == sum(1 if p.task else 3 for p in PRESETS)
