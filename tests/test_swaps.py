"""Word swaps ranked by their effect on B's prediction (issue 58, item 9): viz_app.draw.swaps and the app's pills.

The ranking is checked against each swapped sentence run through the model alone, for a classifier, an NLI
model's hypothesis word and a relatedness model's score; the app's Minimal pair view offers the top ones and
picking one edits B.
"""

from __future__ import annotations

import pytest

import disan
from tests.test_app import assert_clean, run_app, settled
from tests.test_app_pair import DISAN
from viz_app.draw.swaps import ranked_swaps, swap_text
from viz_app.shell import pair_controls

WORDS = ["bad", "great", "fine", "awful", "terrible", "boring", "nice", "dull"]


def _alone(model, text, hypothesis=None):
    return model.predict([(text, hypothesis)] if model.cfg.pair else [text])[0]


def test_a_classifier_s_swaps_are_ranked_by_the_change_of_b_s_predicted_class():
    model = disan.load(DISAN, device="cpu")
    text = "the acting is good and the story is moving ."
    ranked = ranked_swaps(model, {"premise": text, "hypothesis": None}, "premise", 3, WORDS)
    assert sorted(s.word for s in ranked) == sorted(WORDS)
    before = _alone(model, text)
    label = max(before, key=before.get)
    for s in ranked:  # every change is the model's own, on the swapped sentence run alone
        after = _alone(model, text.replace(" good ", f" {s.word} "))
        assert s.change == pytest.approx(after[label] - before[label], abs=1e-5)
        assert s.flips == (max(after, key=after.get) != label) and s.label == max(after, key=after.get)
    changes = [abs(s.change) for s in ranked]
    assert changes == sorted(changes, reverse=True) and changes[0] > 0
    assert swap_text(ranked[0]).startswith(f"{ranked[0].word} {ranked[0].change:+.3f}")


def test_a_hypothesis_word_and_a_relatedness_score_are_ranked_too():
    nli = disan.load("dsa-nli", device="cpu")
    b = {"premise": "a man is playing a guitar .", "hypothesis": "a man is playing music ."}
    ranked = ranked_swaps(nli, b, "hypothesis", 4, ["drums", "football", "nothing"], alpha=0.0)
    before = nli.predict([(b["premise"], b["hypothesis"])], alpha=0.0)[0]
    label = max(before, key=before.get)
    after = nli.predict([(b["premise"], "a man is playing football .")], alpha=0.0)[0]
    assert next(s for s in ranked if s.word == "football").change == pytest.approx(after[label] - before[label],
                                                                                    abs=1e-5)
    sick = disan.load("disan-sick", device="cpu")
    ranked = ranked_swaps(sick, b, "hypothesis", 4, ["drums", "football"])
    base = _alone(sick, b["premise"], b["hypothesis"])
    assert {s.word: s.change for s in ranked}["drums"] == pytest.approx(
        _alone(sick, b["premise"], "a man is playing drums .") - base, abs=1e-5)
    assert all(s.label is None and not s.flips for s in ranked)
    with pytest.raises(ValueError, match="outside B's 6 tokens"):
        ranked_swaps(sick, b, "hypothesis", 9, ["drums"])


def test_the_app_offers_the_ranked_swaps_and_picking_one_edits_b():
    text = "the acting is good and the story is moving ."
    at = settled(run_app(view="pair", model=DISAN, sentence=text))
    at.session_state[pair_controls.SWAP] = {"side": "premise", "index": 3, "word": "good"}
    at.run()
    assert_clean(at)
    pills = at.pills(key="pair_swap_ranked")
    model = disan.load(DISAN, device="cpu")
    words = [w for w, _ in pair_controls.nearest_words(DISAN, "good", pair_controls.RANKED)]
    want = ranked_swaps(model, {"premise": text, "hypothesis": None}, "premise", 3, words)[:pair_controls.RANKED_SHOWN]
    assert list(pills.options) == [swap_text(s) for s in want]
    at = settled(pills.set_value(want[0].word).run())
    assert_clean(at)
    assert at.session_state["sentence_b"] == text.replace(" good ", f" {want[0].word} ")
    assert pair_controls.SWAP not in at.session_state
