"""The Minimal pair view's presets and word swap (issue 30, items 2 and 4), in the app and the static site.

The pair presets are one list (``presets.pair_presets_for``): the site writes it into each model's entry and the
app offers it as a select that fills A, B and α. A word of B clicked in the app's page (the chart component's
"swap" trigger) offers its nearest words in the model's own embedding table, checked here against torch's cosine
over the whole table, and a free-text entry; either edits B and the pair is drawn again. In-process with AppTest;
the click itself is sent by chart.js in Chromium (tests/test_app_pair.py's browser test draws the same page).
"""

from __future__ import annotations

import re

import pytest
import torch

import disan
from tests.conftest import local_page
from tests.test_app import assert_clean, run_app, settled
from tests.test_app_pair import DISAN, pair_payload
from viz_app.draw.presets import pair_presets_for
from viz_app.draw import site
from viz_app.shell import pair_controls


def test_presets_fit_the_model():
    disan_, dsa, nli, sick = (pair_presets_for("disan", False), pair_presets_for("dsa", False),
                              pair_presets_for("dsa", True), pair_presets_for("disan", True, relatedness=True))
    assert {p["id"] for p in disan_} == {"negation", "intensifier", "order"}  # no α for DiSAN
    assert {p["id"] for p in dsa} == {"negation", "intensifier", "order", "distant@0", "distant@1.5", "distant@3"}
    assert [p["alpha"] for p in dsa if p["id"].startswith("distant")] == [0, 1.5, 3]
    assert {p["id"] for p in nli} == {"nli-word", "nli-negation", "nli-distant@0", "nli-distant@1.5", "nli-distant@3"}
    for p in disan_ + dsa:
        assert p["text"] != p["bText"] and p["hypothesis"] == p["bHypothesis"] == ""
    for p in nli + sick:
        assert p["text"] == p["bText"] and p["hypothesis"] != p["bHypothesis"]  # the second sentence is edited
    order = next(p for p in disan_ if p["id"] == "order")
    assert sorted(order["text"].split()) == sorted(order["bText"].split())  # the same words in another order
    # a relatedness model's presets speak of its second sentence (the pair's sides are A and B), an NLI model's of
    # the hypothesis
    assert all(p["label"].startswith("relatedness: the second sentence") for p in sick if "distant" not in p["id"])
    assert not [p["label"] for p in sick if re.search(r"sentence [AB]\b", p["label"])]
    assert all("hypothesis" not in p["label"] for p in sick) and all("the hypothesis" in p["label"] for p in nli)


@pytest.mark.parametrize("arch,pair,relatedness", [("dsa", True, False), ("disan", True, True), ("dsa", False, False)])
def test_the_site_writes_each_models_presets_into_its_entry(monkeypatch, arch, pair, relatedness):
    monkeypatch.setattr(site, "_outputs", lambda meta: {})  # the export's output names are not what is tested
    monkeypatch.setattr(site, "_facts", lambda name, meta: ("title", "facts"))
    meta = {"arch": arch, "pair": pair, "relatedness": relatedness, "labels": ["a", "b"], "masks": ["fw", "bw"],
            "alpha": 1.5 if arch == "dsa" else None, "outputs": [{"name": "premise_fw_gate", "shape": [1, 4, 8]}]}
    entry = site._page_model("m", meta, "models/m.js")
    assert entry["pair_presets"] == pair_presets_for(arch, pair, relatedness) and entry["pair_presets"]


def _pick_preset(at, fragment: str):
    box = at.selectbox(key="pair_preset")
    label = next(o for o in box.options if fragment in o)
    return settled(box.set_value(label).run())


def test_a_preset_fills_a_and_b_and_its_alpha():
    at = run_app(view="pair", model=DISAN, sentence="a plain sentence .")
    assert_clean(at)
    assert [o for o in at.selectbox(key="pair_preset").options[1:]] == [
        p["label"] for p in pair_presets_for("disan", False)]
    at = _pick_preset(at, "negation")
    assert_clean(at)
    preset = pair_presets_for("disan", False)[0]
    assert at.session_state["sentence"] == preset["text"] and at.session_state["sentence_b"] == preset["bText"]
    assert at.text_area(key="sentence_b").value == preset["bText"]
    assert pair_payload(at) is not None and not at.error
    assert at.selectbox(key="pair_preset").value == at.selectbox(key="pair_preset").options[0]  # ready for another

    at = run_app(view="pair", model="dsa-sst5")
    at = _pick_preset(at, "α = 3")
    assert_clean(at)
    assert at.session_state["alpha"] == 3.0 and at.session_state["sentence_b"].endswith("is not good .")


def _torch_nearest(model, word: str, k: int) -> tuple[list[str], list[float]]:
    table = model.embedding.weight.detach().double()  # (V, d_in)
    cos = torch.nn.functional.cosine_similarity(table, table[model.vocab.index[word]][None], dim=1)  # (V,)
    cos[[disan.vocab.PAD_ID, disan.vocab.UNK_ID, model.vocab.index[word]]] = -2.0
    cos[table.norm(dim=1) == 0] = -2.0
    best = torch.argsort(-cos, stable=True)[:k].tolist()
    return [model.vocab.words[i] for i in best], [float(cos[i]) for i in best]


def test_a_clicked_word_of_b_offers_its_nearest_words_and_free_text_and_edits_b():
    text = "the acting is good and the story is moving ."
    at = settled(run_app(view="pair", model=DISAN, sentence=text))
    assert_clean(at)
    # what chart.js's click on B's "good" (token #3) makes the component's callback remember
    at.session_state[pair_controls.SWAP] = {"side": "premise", "index": 3, "word": "good"}
    at.run()
    assert_clean(at)
    pills = at.pills(key="pair_swap_pick")
    want, cosines = _torch_nearest(disan.load(DISAN, device="cpu"), "good", pair_controls.NEAREST)
    assert list(pills.options) == [f"{w} · {c:.2f}" for w, c in zip(want, cosines)]
    assert len(want) == pair_controls.NEAREST
    at = settled(pills.set_value(want[0]).run())
    assert_clean(at)
    assert at.session_state["sentence_b"] == text.replace(" good ", f" {want[0]} ")
    assert pair_controls.SWAP not in at.session_state and not at.get("pills")  # the panel closed
    # free text: several words replace one token
    at.session_state[pair_controls.SWAP] = {"side": "premise", "index": 3, "word": want[0]}
    at.run()
    at = settled(at.text_input(key="pair_swap_free").set_value("truly great").run())
    assert at.session_state["sentence_b"] == text.replace(" good ", " truly great ")
    # B edited so that the clicked word is gone: no panel, B stays as typed
    at.session_state[pair_controls.SWAP] = {"side": "premise", "index": 3, "word": "good"}
    at.run()
    assert not at.get("pills") and pair_controls.SWAP not in at.session_state


@pytest.mark.parametrize("text,index,new,want", [
    ("a good film .", 1, "bad", "a bad film ."),
    ("a good film .", 1, "very good", "a very good film ."),
    ("a good film .", 1, "", "a film ."),
    ("it's good", 0, "that", "that 's good"),
])
def test_swapped_replaces_one_token(text, index, new, want):
    assert pair_controls.swapped(text, index, new) == want


def test_swapped_names_an_index_outside_b():
    with pytest.raises(ValueError, match="token #7 is outside B's 3 tokens"):
        pair_controls.swapped("a good film", 7, "x")


@pytest.mark.browser
def test_clicking_a_word_of_b_in_the_browser_offers_its_nearest_words_and_redraws_the_pair(chromium, server):
    from urllib.parse import urlencode

    text = "the acting is good and the story is moving ."
    b_row = """() => Array.from(document.querySelectorAll('.viz-pair td.b button[data-swap]')).map(b => b.textContent)"""
    context, page, outside, errors = local_page(chromium, timeout_ms=120_000)
    try:
        page.goto(f"{server}/pair?{urlencode({'model': DISAN, 'sentence': text})}")
        page.wait_for_function("() => { const el = document.querySelector('.viz-pair');"
                               " return el && el.dataset.ready === '1'; }")
        assert page.evaluate(b_row) == disan.tokenize(text)  # B starts as a copy of A; its words are buttons
        page.click('.viz-pair button[data-swap="premise:3"]')  # "good"
        pick = page.locator('[data-testid="stButtonGroup"] button').first
        pick.wait_for()
        word = pick.inner_text().split(" · ")[0].strip()
        want, _ = _torch_nearest(disan.load(DISAN, device="cpu"), "good", pair_controls.NEAREST)
        assert word == want[0]
        pick.click()
        page.wait_for_function(f"() => ({b_row})()[3] === {word!r}")
        assert page.evaluate(b_row) == disan.tokenize(text.replace(" good ", f" {word} "))
    finally:
        context.close()
    assert errors == [] and outside == []
