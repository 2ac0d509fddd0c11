"""viz_app/draw/live.py: the key a live control sends (its id names the sentence its group's charts follow). A live
figure is redrawn from its own trace view by its figure function: tests/test_recompute_js.py."""

from __future__ import annotations

import json
import re

import pytest

from viz_app.draw import live

TOKENS = ["the", "movie", "is", "good", "."]


def test_the_same_sentence_and_context_give_the_same_id():
    a = live.live_key("distance", TOKENS, "dsa-sst5", "default", "premise")
    assert a == live.live_key("distance", list(TOKENS), "dsa-sst5", "default", "premise")
    assert set(a) == {"kind", "id"} and a["kind"] == "distance"
    assert re.fullmatch(r"distance-[0-9a-f]{16}", a["id"])


@pytest.mark.parametrize("change", [
    ("features", TOKENS, "dsa-sst5", "default", "premise"),          # another kind
    ("distance", TOKENS[:-1], "dsa-sst5", "default", "premise"),     # another sentence
    ("distance", ["the movie", "is", "good", "."], "dsa-sst5", "default", "premise"),  # the same text, other tokens
    ("distance", TOKENS, "dsa-sst5-nodist", "default", "premise"),   # another model
    ("distance", TOKENS, "dsa-sst5", "none", "premise"),             # other masks
    ("distance", TOKENS, "dsa-sst5", "default", "hypothesis"),       # the other side
])
def test_any_other_input_gives_another_id(change):
    base = live.live_key("distance", TOKENS, "dsa-sst5", "default", "premise")
    assert live.live_key(*change)["id"] != base["id"]


def test_odd_unicode_tokens_are_plain_json():
    key = live.live_key("masks", ["naïve", "𝒳", "\u200b", "<b>"])
    assert json.loads(json.dumps(key)) == key and len(json.dumps(key)) < 100


def test_an_unknown_kind_is_refused_by_name():
    with pytest.raises(ValueError, match="'scores' is not one of distance, features, masks"):
        live.live_key("scores", TOKENS)


@pytest.mark.parametrize(("value", "text"), [(1.5, "1.5"), (0.0, "0"), (5.0, "5"), (0.30000000000000004, "0.3")])
def test_format_value_writes_alpha_as_recompute_js(value, text):
    assert live.format_value(value) == text
