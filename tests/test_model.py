"""The public model API: trace, predict, overrides, token status and clear errors."""

import pytest
import torch

import disan
from disan import InputError
from tests.conftest import make_tiny


def test_trace_records_tokens_status_and_prediction(tiny_model):
    tr = tiny_model.trace("The movie is GOOD , qwzx glass .")
    assert tr.tokens == ("the", "movie", "is", "good", ",", "qwzx", "glass", ".")
    assert tr.premise.token_status == ("vocab", "vocab", "vocab", "vocab", "glove", "unknown", "glove", "vocab")
    assert tr.premise.unknown[5] and sum(tr.premise.unknown) == 1
    assert set(tr.prediction) == {"neg", "pos"}
    assert abs(sum(tr.prediction.values()) - 1) < 1e-6
    assert tr.random_weights


def test_trace_equals_predict(tiny_model):
    text = "the movie is bad ."
    tr = tiny_model.trace(text)
    (pred,) = tiny_model.predict([text])
    for label in pred:
        assert abs(pred[label] - tr.prediction[label]) < 1e-6


def test_predict_batches_by_length_but_keeps_order(tiny_model):
    texts = ["good", "the movie is bad .", "bad bad", "the movie is good , the movie is good ."]
    batched = tiny_model.predict(texts, batch_size=2)
    one_by_one = [tiny_model.predict([t])[0] for t in texts]
    for a, b in zip(batched, one_by_one):
        assert all(abs(a[k] - b[k]) < 1e-6 for k in a)


def test_glove_words_get_their_real_vector(tiny_glove):
    model = make_tiny("dsa", tiny_glove)
    x, _ = model.embed([["glass", "qwzx"]])
    assert torch.allclose(x[0, 0], torch.tensor(tiny_glove.vector("glass").copy()))
    assert torch.equal(x[0, 1], model.embedding.weight[1])  # <unk> row


def test_mask_and_alpha_overrides_change_only_what_they_should(tiny_glove):
    model = make_tiny("dsa", tiny_glove)
    before = {k: v.clone() for k, v in model.state_dict().items()}
    text = "the movie is good , the movie is bad ."
    base = model.trace(text)
    no_dist = model.trace(text, alpha=0.0)
    unmasked = model.trace(text, masks="none")
    swapped = model.trace(text, masks="swap")
    assert base.alpha == 1.5 and no_dist.alpha == 0.0
    assert not torch.allclose(base.premise.encoder.fw.probs, no_dist.premise.encoder.fw.probs)
    assert unmasked.masks == ("none", "none") and swapped.masks == ("bw", "fw")
    assert (unmasked.premise.encoder.fw.probs[0, :, 0, 1:] > 0).all()  # first token now sees later ones
    assert (swapped.premise.encoder.fw.probs[0, :, -1] == 0).all()  # fw block now uses the bw mask
    assert (base.premise.encoder.fw.probs[0, :, -1].sum(-1) > 0.99).all()
    for k, v in model.state_dict().items():
        assert torch.equal(v, before[k]), f"override mutated {k}"
    again = model.trace(text)
    assert torch.equal(again.premise.encoder.fw.probs, base.premise.encoder.fw.probs)


def test_disan_rejects_alpha(tiny_glove):
    with pytest.raises(InputError, match="no distance mask"):
        make_tiny("disan", tiny_glove).trace("good movie", alpha=1.0)


@pytest.mark.parametrize(
    "text,match",
    [("", "empty"), ("   \t\n", "empty"), ("\x00\u200b\x07", "empty")],
)
def test_empty_inputs_give_clear_errors(tiny_model, text, match):
    with pytest.raises(InputError, match=match):
        tiny_model.trace(text)


def test_token_limit_is_enforced_before_encoding(tiny_glove):
    model = make_tiny("disan", tiny_glove, max_tokens=5)
    with pytest.raises(InputError, match="limit of 5"):
        model.trace("the movie is good , really")
    assert model.trace("the movie is good .").tokens[-1] == "."


def test_bad_masks_and_pair_usage(tiny_glove):
    model = make_tiny("disan", tiny_glove)
    with pytest.raises(InputError, match="not understood"):
        model.trace("good", masks="sideways")
    with pytest.raises(InputError, match="single sentences"):
        model.trace("good", "bad")
    nli = make_tiny("dsa", tiny_glove, pair=True)
    with pytest.raises(InputError, match="hypothesis"):
        nli.trace("a man drinks tea")
    tr = nli.trace("a man drinks tea .", "a man is drinking .")
    assert tr.hypothesis is not None and set(tr.prediction) == {"entailment", "neutral", "contradiction"}
    assert nli.predict([("a man", "the dog")])[0].keys() == tr.prediction.keys()


def test_unknown_model_name_lists_choices():
    with pytest.raises(disan.ModelNotFoundError, match="dsa"):
        disan.load("no-such-model")


def test_long_sentence_keeps_reduced_views_and_feature_slices(tiny_glove, monkeypatch):
    from disan import disan_encoder

    model = make_tiny("disan", tiny_glove)
    text = " ".join(["the movie is good ."] * 8)  # 40 tokens
    full = model.trace(text)
    monkeypatch.setattr(disan_encoder, "FULL_PROBS_MAX_TOKENS", 16)
    reduced = model.trace(text)
    assert full.premise.encoder.fw.probs is not None and reduced.premise.encoder.fw.probs is None
    assert torch.allclose(reduced.premise.encoder.fw.probs_mean, full.premise.encoder.fw.probs_mean, atol=1e-6)
    sl = model.feature_slice(text, 3, "bw")
    assert torch.allclose(sl, full.premise.encoder.bw.probs[0, ..., 3], atol=1e-6)


def test_random_models_are_labelled_everywhere():
    model = disan.load("dsa", device="cpu")
    tr = model.trace("a gorgeous , witty , seductive movie .")
    assert tr.random_weights and "random" in tr.model
    assert tr.to_json()["random_weights"] is True


def test_request_memory_limit_refuses_before_encoding(tiny_glove, monkeypatch):
    model = make_tiny("disan", tiny_glove, max_request_mb=1)
    text = " ".join(["the movie is good ."] * 60)  # 300 tokens
    calls = []
    monkeypatch.setattr(model.encoder, "forward", lambda *a, **k: calls.append(1))
    with pytest.raises(InputError, match="per-request limit of 1 MB"):
        model.trace(text)
    assert calls == []  # refused before the encoder ran
    assert model.request_bytes(300) > model.request_bytes(30) > 0


def test_same_input_gives_identical_traces_every_time(tiny_model):
    a = tiny_model.trace("the movie is good , but the ending is bad .")
    b = tiny_model.trace("the movie is good , but the ending is bad .")
    assert a.prediction == b.prediction
    assert torch.equal(a.premise.encoder.fw.u, b.premise.encoder.fw.u)
    assert torch.equal(a.premise.encoder.s2t_probs, b.premise.encoder.s2t_probs)


@pytest.mark.slow
def test_1024_token_sentence_runs_on_cpu_with_reduced_views():
    model = disan.load("disan", device="cpu")
    text = " ".join("the" if i % 7 == 0 else f"w{i % 50}" for i in range(1024))
    tr = model.trace(text)
    fw = tr.premise.encoder.fw
    assert len(tr.tokens) == 1024 and fw.probs is None
    sums = fw.probs_mean[0].sum(-1)  # (T,) mean over features of rows that each sum to 1
    assert sums[0] == 0 and torch.allclose(sums[1:], torch.ones(1023), atol=1e-4)


def test_describe_reads_config_without_weights(tmp_path, tiny_glove):
    from disan import checkpoint

    path = checkpoint.save(make_tiny("dsa", tiny_glove, pair=True), tmp_path / "nli")
    cfg = disan.describe(str(path))
    assert cfg.arch == "dsa" and cfg.pair and cfg.labels[0] == "entailment"
    assert disan.describe("disan").arch == "disan"
    with pytest.raises(disan.ModelNotFoundError):
        disan.describe("nope")


def test_random_models_built_in_threads_at_once_have_the_same_weights():
    """The app's background warm-up may build a random-weight model while a page builds its own: the seeded
    draws must not interleave (issue 19's warm-up; the load test saw differing heatmaps before the lock)."""
    from concurrent.futures import ThreadPoolExecutor

    import disan

    with ThreadPoolExecutor(4) as pool:
        models = list(pool.map(lambda _: disan.random_model("dsa", "cpu"), range(8)))
    first = models[0].state_dict()
    for m in models[1:]:
        assert all(torch.equal(first[k], v) for k, v in m.state_dict().items())
