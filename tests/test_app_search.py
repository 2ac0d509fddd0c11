"""The Search view without a browser (issue 56, item 3): no index → the build offer, nothing crashes; a cached
index → hits, the corpus figures, the search in the address; a bad search in the link → a warning."""

from __future__ import annotations

import json

import pytest
from streamlit.testing.v1 import AppTest

from tests.corpus_helpers import SENTENCES
from tests.test_app import APP, TIMEOUT, assert_clean, charts


@pytest.fixture(scope="module")
def index_cache(tmp_path_factory):
    from disan.api import checkpoint_path
    from disan.checkpoint import sha256
    from disan.corpus import cache
    from disan.corpus.build import build_index

    root = tmp_path_factory.mktemp("index-cache")
    folder = root / f"disan-sst5-{sha256(checkpoint_path('disan-sst5'))[:12]}"
    folder.mkdir()
    build_index("disan-sst5", str(SENTENCES), folder / cache.slug(SENTENCES.name), progress=False, threads=1)
    return root


def _run(monkeypatch, cache_dir, **params) -> AppTest:
    monkeypatch.setenv("DISAN_INDEX_CACHE", str(cache_dir))
    at = AppTest.from_file(str(APP), default_timeout=TIMEOUT)
    for key, value in params.items():
        at.query_params[key] = value
    return at.run()


def test_no_index_offers_to_build_one(monkeypatch, tmp_path):
    at = _run(monkeypatch, tmp_path, view="search", model="disan-sst5")
    assert_clean(at)
    assert any("no index" in i.value for i in at.info)
    assert any(b.key == "sq_build" for b in at.button)
    assert at.selectbox(key="sq_corpus").value == "sst5:test"


@pytest.mark.parametrize("model, corpus", [("disan-trec", "trec:test"), ("disan-sick", "sick"),
                                           ("dsa-nli", "snli:test")])
def test_a_models_own_test_set_is_the_corpus_offered_first(monkeypatch, tmp_path, model, corpus):
    """Met on the walk (issue 58): disan-trec's Search opened on SST-5's test sentences."""
    at = _run(monkeypatch, tmp_path, view="search", model=model)
    assert_clean(at)
    assert at.selectbox(key="sq_corpus").value == corpus


def test_a_linked_search_shows_hits_figures_and_stays_in_the_address(monkeypatch, index_cache):
    q = {"corpus": SENTENCES.name, "where": [["word", "=", "bad"]], "sort": "fw_gate"}
    at = _run(monkeypatch, index_cache, view="search", model="disan-sst5", q=json.dumps(q))
    assert_clean(at)
    table = next(m.value for m in at.markdown if "disan-search-hits" in m.value)
    assert table.count("<tr>") == 1 + 2  # the header and the two sentences with the token "bad"
    assert "awful" in table and "./?view=explore" in table
    assert len(charts(at)) >= 3  # distance profile, gate words, head clusters
    written = json.loads(at.query_params["q"])
    assert written["where"] == [["word", "=", "bad"]] and written["sort"] == "fw_gate"
    at.number_input(key="sq_page").set_value(2).run()  # past the last hit
    assert json.loads(at.query_params["q"])["page"] == 1 and not any("disan-search-hits" in m.value for m in at.markdown)
    # said as a page past the last one, not as filters to loosen (which a search without filters was told too)
    assert any("No hit on page 2: it is past the last page (the last of 2 hits is on page 1)" in i.value for i in at.info)
    at.text_input(key="sq_val0").set_value("not").run()
    assert_clean(at)
    assert json.loads(at.query_params["q"])["where"] == [["word", "=", "not"]]
    assert at.number_input(key="sq_page").value == 1  # another search starts on its first page
    assert any("disan-search-hits" in m.value for m in at.markdown)
    at.selectbox(key="sq_col1").set_value("fw_gate").run()
    at.text_input(key="sq_val1").set_value("NaN").run()
    assert any("not one" in e.value for e in at.error)  # a bad value: one line, the page still stands
    assert_clean(at)


def test_a_damaged_search_in_the_link_is_a_warning(monkeypatch, index_cache):
    at = _run(monkeypatch, index_cache, view="search", model="disan-sst5", q="{not json")
    assert_clean(at)
    assert any("could not be read" in w.value for w in at.warning)


def test_a_linked_filter_on_a_column_the_index_lacks_is_a_warning(monkeypatch, index_cache):
    """Before, the filter was dropped without a word and every sentence was shown as hits."""
    q = {"corpus": SENTENCES.name, "where": [["token", "=", "<b>x</b>"]]}
    at = _run(monkeypatch, index_cache, view="search", model="disan-sst5", q=json.dumps(q))
    assert_clean(at)
    assert any("Ignored the filter on 'token': this index has no such column" in w.value.replace("\\", "")
               for w in at.warning)  # md_escape's backslashes


def test_the_first_search_of_a_corpus_builds_its_index(monkeypatch, tmp_path):
    """A fresh clone: the Build button indexes the chosen corpus (here the fixture data's SST-5 test set) into the
    user cache, then the page shows its hits."""
    from tests.fixture_data import fixture_data_dir

    monkeypatch.setenv("DISAN_DATA_DIR", str(fixture_data_dir()))
    at = _run(monkeypatch, tmp_path, view="search", model="disan-sst5")
    at.button(key="sq_build").click().run()
    assert_clean(at)
    assert list(tmp_path.glob("disan-sst5-*/sst5_test/manifest.json"))
    assert any("disan-search-hits" in m.value for m in at.markdown)
    assert at.selectbox(key="sq_corpus").value == "sst5:test"
