"""Query parameters ↔ state (viz_app/shell/state.py): parsing, fallbacks with warnings, round trip."""

from __future__ import annotations

import pytest

from viz_app.draw import settings
from viz_app.shell.catalog import VIEW_IDS
from viz_app.shell.state import PARAMS, parse_query_params, to_query_params

MODELS = ["disan-sst5", "disan", "dsa"]


def parse(**raw):
    return parse_query_params(raw, MODELS, "disan-sst5")


def test_empty_query_gives_defaults_without_warnings():
    values, warnings = parse()
    assert warnings == []
    assert values["model"] == "disan-sst5"
    assert values["view"] == "explore"
    assert values["sentence"] == settings.DEFAULT_SENTENCE
    assert values["alpha"] is None


def test_good_values_are_restored():
    values, warnings = parse(
        view="compare",
        model="dsa",
        sentence="a b",
        hypothesis="c",
        sentence_b="a not b",
        hypothesis_b="d",
        alpha="2.5",
        masks="bw,fw",
        feature="7",
        token="3",
        reduce="entropy",
        dir="bw",
        side="hypothesis",
        cmp="distance",
        cmp_b="diag",
        fig="im8",
        claim="im9-gate-of-period",
        cls="very positive",
        present="1",
        q='{"corpus":"sst5:test"}',
    )
    assert warnings == []
    assert values == {
        "view": "compare",
        "model": "dsa",
        "sentence": "a b",
        "hypothesis": "c",
        "sentence_b": "a not b",
        "hypothesis_b": "d",
        "alpha": 2.5,
        "masks": "bw,fw",
        "feature": 7,
        "token": 3,
        "reduce": "entropy",
        "dir": "bw",
        "side": "hypothesis",
        "cmp": "distance",
        "cmp_b": "diag",
        "fig": "im8",
        "claim": "im9-gate-of-period",
        "cls": "very positive",
        "present": True,
        "q": '{"corpus":"sst5:test"}',
    }


@pytest.mark.parametrize(
    "key, raw, fallback",
    [
        ("model", "gpt-9", "disan-sst5"),
        ("alpha", "abc", None),
        ("alpha", "nan", None),
        ("alpha", "99", None),
        ("feature", "-1", 0),
        ("feature", "99999999", 0),
        ("token", "x", 0),
        ("view", "admin", "explore"),
        ("claim", "shen99-nothing", "shen7-gate-stop-words"),
        ("masks", "sideways", "default"),
        ("reduce", "median", "mean"),
        ("present", "maybe", False),
        ("cls", "x" * 61, ""),
        ("sentence", "x" * (settings.MAX_CHARS + 1), settings.DEFAULT_SENTENCE),
    ],
)
def test_bad_values_fall_back_with_a_warning_naming_them(key, raw, fallback):
    values, warnings = parse(**{key: raw})
    assert values[key] == fallback
    assert len(warnings) == 1
    assert key in warnings[0] and raw[:20] in warnings[0]


def test_feature_out_of_model_range_is_left_to_the_view():
    values, warnings = parse(feature="99999")
    assert values["feature"] == 99999 and warnings == []


def test_repeated_keys_use_the_last_value():
    values, _ = parse(alpha=["1", "2"])
    assert values["alpha"] == 2.0


def test_round_trip_through_the_url():
    values, _ = parse(view="masks", model="dsa", sentence="x y", alpha="0.7", token="1", present="1")
    query = to_query_params(values)
    assert query["view"] == "masks" and query["alpha"] == "0.7" and query["present"] == "1"
    assert "feature" not in query  # defaults stay out of the link
    again, warnings = parse(**query)
    assert again == values and warnings == []


def test_every_view_is_a_valid_view_param():
    for view in VIEW_IDS:
        assert parse(view=view)[0]["view"] == view
    assert {p.key for p in PARAMS} >= {"view", "sentence", "hypothesis", "alpha", "masks", "feature", "token"}


def test_a_single_sentence_models_address_holds_no_hypothesis_b_or_side():
    """An NLI model's hypothesis (and the pair view's B hypothesis, the side drawn) stayed in the address after a
    switch to a sentence model, which reads none of them; the address holds only what the shown model uses."""
    values, _ = parse(view="pair", model="dsa", sentence="x y", hypothesis="h", hypothesis_b="hb", side="hypothesis",
                      sentence_b="x z")
    single = to_query_params(values, pair=False)
    assert not {"hypothesis", "hypothesis_b", "side"} & set(single)
    assert single["sentence"] == "x y" and single["sentence_b"] == "x z"  # a sentence model's inputs stay
    both = to_query_params(values)  # a two-sentence model keeps them
    assert (both["hypothesis"], both["hypothesis_b"], both["side"]) == ("h", "hb", "hypothesis")
