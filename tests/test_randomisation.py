"""Model-parameter randomisation tests (disan/attribution/randomisation.py): the cascade, the similarity
measures, a model whose attention the mask fixes (it must fail) beside one whose attention the weights decide
(it must pass), and the ``sanity`` command."""

from __future__ import annotations

import json

import numpy as np
import pytest
import torch

from disan.__main__ import main
from disan.attribution import randomisation as R
from disan.attribution.forward import ClassProbability
from disan.config import ModelConfig
from disan.model import SentenceModel
from disan.vocab import build_vocab

from conftest import make_tiny
from fixture_data import fixture_data_dir

WORDS = ["the", "a", "movie", "is", "good", "bad", "dog", "dogs", "man", "tea", ".", ",", "n't", "do", "glass"]


def sentences(n: int, seed: int = 0) -> list[tuple[tuple[str, ...], ...]]:
    rng = np.random.default_rng(seed)
    return [(tuple(rng.choice(WORDS, size=int(rng.integers(5, 10)))),) for _ in range(n)]


def test_steps_per_architecture_run_from_the_head_down_to_the_embeddings(tiny_glove):
    disan, dsa = make_tiny("disan", tiny_glove), make_tiny("dsa", tiny_glove)
    assert [s for s, _ in R.steps_for(disan)] == ["head", "source2token", "backward block", "forward block",
                                                  "embeddings"]
    assert [s for s, _ in R.steps_for(dsa)] == ["head", "source2token", "backward block", "forward block",
                                                "input projection", "embeddings"]
    cfg = ModelConfig(arch="dsa", d_in=tiny_glove.dim, d_h=tiny_glove.dim, heads=2, head_hidden=6, labels=("n", "p"))
    same_width = SentenceModel(cfg, build_vocab([["good"]]), tiny_glove, "w", True)  # d_in = d_model: no projection
    assert "input projection" not in [s for s, _ in R.steps_for(same_width)]


def test_the_cascade_is_cumulative_and_leaves_the_model_alone(tiny_glove):
    model = make_tiny("dsa", tiny_glove)
    before = {k: v.clone() for k, v in model.state_dict().items()}
    changed_so_far: set[str] = set()
    for (step, randomised, words), (_, prefixes) in zip(R.cascade(model), R.steps_for(model)):
        state = randomised.state_dict()
        changed = {k for k in before if not torch.equal(before[k], state[k])}
        assert changed >= changed_so_far  # earlier steps stay randomised
        new = changed - changed_so_far
        assert new and all(k.startswith(prefixes) for k in new), (step, new)
        assert words == (step == "embeddings")
        changed_so_far = changed
    assert all(torch.equal(before[k], v) for k, v in model.state_dict().items())


def test_similarity_measures_on_literal_vectors():
    a = np.array([0.1, 0.5, 0.3, 0.9, 0.2])
    assert R.spearman(a, a * 3 + 1) == pytest.approx(1.0) and R.spearman(a, -a) == pytest.approx(-1.0)
    assert np.isnan(R.spearman(a, np.ones(5))) and np.isnan(R.spearman(a[:1], a[:1]))
    # k = ⌈0.2·5⌉ = 1: the top token of a is 3, of b it is 0
    assert R.top_overlap(a, a) == 1.0 and R.top_overlap(a, np.array([0.9, 0.5, 0.3, 0.1, 0.2])) == 0.0
    ten = np.arange(10.0)
    assert R.top_overlap(ten, np.array([9, 0, 1, 2, 3, 4, 5, 6, 7, 8.0])) == 0.5  # k = 2: {8, 9} vs {9, 0}


def test_the_verdict_reads_the_interval_against_the_threshold():
    assert R.verdict({"value": 0.1, "ci95": [0.0, 0.3]}) == "passes"
    assert R.verdict({"value": 0.9, "ci95": [0.8, 0.97]}) == "fails"
    assert R.verdict({"value": 0.5, "ci95": [0.3, 0.7]}) == "inconclusive"
    assert R.verdict({"value": float("nan"), "ci95": [float("nan")] * 2}) == "inconclusive"


def test_random_embeddings_are_per_word_and_keep_padding_zero(tiny_glove):
    model = make_tiny("disan", tiny_glove)
    fn = ClassProbability(model, model.cfg.masks, None)
    emb = fn.embed([[["the", "dog", "the"], ["dog"]]])
    rnd = R.random_embeddings(emb, 0.0, 1.0)
    x = rnd.xs[0]
    assert torch.equal(x[0, 0], x[0, 2]) and torch.equal(x[0, 1], x[1, 0]) and not torch.equal(x[0, 0], x[0, 1])
    assert float(x[1, 1:].abs().sum()) == 0.0 and not torch.equal(x[0, :2], emb.xs[0][0, :2])


@pytest.mark.slow
def test_attention_fixed_by_the_mask_fails_and_attention_of_the_weights_passes(tiny_glove):
    """A DSA with α = 50: the distance mask makes every row of Im Eq. 7 one-hot on the nearest allowed key, so
    the maps survive any weights: the check must fail them. The same model with α = 0, whose rows the weights
    decide, must pass; so must LRP and the source2token attention of the mask-fixed model."""
    sides = sentences(24)
    fixed = R.summarize(R.measure(make_tiny("dsa", tiny_glove, alpha=50.0), sides, steps=4), "dsa")
    free = R.summarize(R.measure(make_tiny("dsa", tiny_glove, alpha=0.0), sides, steps=4), "dsa")
    last = fixed["by_step"][fixed["steps"][-1]]
    assert fixed["verdicts"]["token2token_rows"] == "fails" and last["token2token_rows"]["spearman"]["value"] > 0.99
    assert fixed["verdicts"]["token2token"] == "fails"
    assert fixed["verdicts"]["lrp"] == "passes" and fixed["verdicts"]["attention"] == "passes"
    assert free["verdicts"]["token2token_rows"] == "passes"
    # Before the blocks are touched (head, source2token), the maps are exactly those of the trained model.
    assert free["by_step"]["source2token"]["token2token_rows"]["spearman"]["value"] == pytest.approx(1.0)
    assert all(row["top_k_chance"] < 1 for row in last.values())


def test_pairs_are_measured_on_both_sentences(tiny_glove):
    model = make_tiny("disan", tiny_glove, pair=True)
    sides = [(s[0], t[0]) for s, t in zip(sentences(4, 1), sentences(4, 2))]
    per = R.measure(model, sides, steps=2)
    assert set(per) == {s for s, _ in R.steps_for(model)}
    assert all(np.isfinite(per["embeddings"][f"rho:{m}"]).all() for m in ("lrp", "grad_input", "attention"))


def test_sanity_command_on_fixture_data(capsys):
    assert main(["sanity", "--model", "disan-sst5", "--data-dir", str(fixture_data_dir()), "--limit", "3",
                 "--json", "--no-progress"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["n"] == 3 and out["sample_seed"] == 0 and out["steps"][0] == "head"
    assert set(out["verdicts"]) == set(R.methods("disan"))
    assert set(out["verdicts"].values()) <= {"passes", "fails", "inconclusive"}


def test_sanity_command_bad_input_is_one_line(capsys):
    assert main(["sanity", "--model", "no-such-model", "--limit", "2"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("error:")
    assert main(["sanity", "--model", "disan-sst5", "--limit", "-1"]) == 2
