"""The claims (and faithfulness) of a cross-validated model (SUBJ, MPQA, CR) are measured on the test part of
the fold its card says it trained on, the examples it never saw, not on load_task's fixed 80/10/10 split, most of
whose test examples a fold model trained on. A tiny seeded CR checkpoint on the tests' own small files.
"""

from __future__ import annotations

import json

import pytest
import torch

from disan.checkpoint import save
from disan.claims_file import card_fold, trained_model_and_examples
from disan.config import ModelConfig
from disan.data import load_task
from disan.data.labels import CR_LABELS
from disan.model import SentenceModel
from disan.vocab import build_vocab, load_glove
from tests.task_files import write_glove, write_task_data

FOLD = 3


@pytest.fixture(scope="module")
def setup(tmp_path_factory):
    """(pretrained folder holding disan-cr and its card naming fold 3, data folder)."""
    root = tmp_path_factory.mktemp("cv-claims")
    data = write_task_data(root / "data")
    glove_path = write_glove(root / "vectors.8d.txt")
    glove = load_glove(glove_path)
    cfg = ModelConfig(arch="disan", labels=CR_LABELS, d_in=glove.dim, d_h=10, heads=2, head_hidden=6, glove=glove_path)
    torch.manual_seed(0)
    model = SentenceModel(cfg, build_vocab([["the", "movie", "is", "good", "."]]), glove, "disan-cr",
                          random_weights=False)
    folder = root / "pretrained"
    folder.mkdir()
    save(model, folder / "disan-cr.safetensors")
    card = {"name": "disan-cr", "train": {"train_config": {"task": "cr", "fold": FOLD, "data_dir": str(data)}}}
    (folder / "disan-cr.json").write_text(json.dumps(card))
    return folder, data


def sources(examples) -> list[str]:
    return [e.source for e in examples]


def test_a_fold_models_test_set_is_its_folds_test_part_never_its_training_examples(setup):
    folder, data = setup
    _, model, task, examples = trained_model_and_examples("disan-cr", "test", None, str(data), folder, "claims")
    assert task == "cr" and card_fold("disan-cr", "cr", folder) == FOLD
    assert sources(examples) == sources(load_task("cr", "test", data, fold=FOLD))
    assert not set(sources(examples)) & set(sources(load_task("cr", "train", data, fold=FOLD)))
    fixed = set(sources(load_task("cr", "test", data)))  # what was measured before: mostly training examples
    assert fixed & set(sources(load_task("cr", "train", data, fold=FOLD)))
    assert card_fold("disan-cr", "mpqa", folder) is None  # --task another task: the card's fold is not its


def test_a_model_without_a_card_or_without_a_fold_keeps_the_fixed_split(setup, tmp_path):
    folder, data = setup
    bare = tmp_path / "bare"
    bare.mkdir()
    (bare / "disan-cr.safetensors").write_bytes((folder / "disan-cr.safetensors").read_bytes())
    assert card_fold("disan-cr", "cr", bare) is None
    (bare / "disan-cr.json").write_text(json.dumps({"name": "disan-cr", "train": {"train_config": {"task": "cr"}}}))
    assert card_fold("disan-cr", "cr", bare) is None


def test_the_claims_command_measures_the_fold_and_records_it(setup, capsys):
    from disan.__main__ import main

    folder, data = setup
    assert main(["claims", "--model", "disan-cr", "--pretrained-dir", str(folder), "--data-dir", str(data), "--write",
                 "--no-progress"]) == 0
    stored = json.loads((folder / "disan-cr.claims.json").read_text())
    assert stored["fold"] == FOLD and stored["n_examples"] == len(load_task("cr", "test", data, fold=FOLD))
