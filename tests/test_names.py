"""Names a newcomer meets (issue 58, item 8): ablations distinct from their base models in the explorer's model
list, SICK's inputs in the sidebar beside the Minimal pair's sides A and B, recipe notes' code rendered."""

from __future__ import annotations

import pytest

import disan
from tests.test_app import assert_clean, run_app
from viz_app.draw import settings, site


def _meta(name: str) -> dict:
    cfg = disan.describe(name)
    return {"arch": cfg.arch, "pair": cfg.pair, "relatedness": cfg.relatedness, "masks": list(cfg.masks),
            "alpha": cfg.alpha if cfg.arch == "dsa" else None}


@pytest.mark.parametrize("base, ablation, says", [("disan-sst5", "disan-sst5-nodir", "without direction masks"),
                                                  ("dsa-nli", "dsa-nli-nodist", "without the distance mask")])
def test_an_ablation_has_its_own_title_in_the_explorers_model_list(base, ablation, says):
    missing = {base, ablation} - set(disan.available())
    if missing:
        pytest.skip(f"{sorted(missing)} not in pretrained/")
    base_title, _ = site._facts(base, _meta(base))
    title, facts = site._facts(ablation, _meta(ablation))
    assert title != base_title and says in title and says in facts, (base_title, title)
    assert "without" not in base_title


def test_sick_inputs_in_the_sidebar_do_not_clash_with_the_minimal_pairs_sides():
    if "disan-sick" not in disan.available():
        pytest.skip("disan-sick is not in pretrained/")
    first, second = (n[0].upper() + n[1:] for n in settings.PAIR_RELATEDNESS_NAMES)
    at = run_app(view="pair", model="disan-sick")
    assert_clean(at)
    assert (at.text_area(key="sentence").label, at.text_input(key="hypothesis").label) == (first, second)
    assert not any(label.startswith("Sentence ") for label in (first, second))
    # elsewhere SICK's own names stay
    at = run_app(view="explore", model="disan-sick")
    assert_clean(at)
    assert (at.text_area(key="sentence").label, at.text_input(key="hypothesis").label) == ("Sentence A", "Sentence B")


def test_code_in_a_recipe_note_is_a_code_span_and_the_rest_is_escaped():
    from viz_app.draw.text import md_escape, md_escape_code

    assert md_escape_code("the `<unk>` row of `disan-sst5` is *zero*") == (
        "the `<unk>` row of `disan-sst5` is \\*zero\\*")
    assert md_escape_code("an unpaired ` stays text") == md_escape("an unpaired ` stays text")
    assert md_escape_code("`` empty") == md_escape("`` empty")


def test_the_models_view_renders_the_recipe_notes_code():
    if "disan-sst5" not in disan.available():
        pytest.skip("disan-sst5 is not in pretrained/")
    at = run_app(view="models", model="disan-sst5")
    assert_clean(at)
    recipe = next(m.value for m in at.markdown if m.value.startswith("**Recipe choices"))
    assert "`<unk>`" in recipe and "\\`" not in recipe
