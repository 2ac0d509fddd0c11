"""The static explorer's Search mode in headless Chromium (issue 56): a site built with ``--search`` over the fixture
corpus, opened from ``file://``; a filter in the address and one typed into the controls show ``disan search``'s
hits, and a hit opens the page's sentence view and its pair view with the hit as A."""

from __future__ import annotations

import json
from urllib.parse import parse_qs, urlencode

import pytest

from disan.corpus.query import Filter, Query
from disan.corpus.search import like_signature, run_query
from tests.conftest import guarded_page
from tests.corpus_helpers import SENTENCES
from viz_app.draw import site, site_search

pytestmark = pytest.mark.slow

MODEL = "disan-sst5"
TIMEOUT_MS = 120_000


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    try:
        site.ort_dir()
    except Exception as err:  # noqa: BLE001
        pytest.skip(f"onnxruntime-web is not installed: {err}")
    mp = pytest.MonkeyPatch()
    mp.setenv("DISAN_INDEX_CACHE", str(tmp_path_factory.mktemp("index-cache")))
    try:
        info = site.build_site(tmp_path_factory.mktemp("site") / "explorer", [MODEL], search=str(SENTENCES))
        index = site_search.cached_index(MODEL, str(SENTENCES), None, print)  # the cached one: not rebuilt
    finally:
        mp.undo()
    return info, index


def _open(chromium, info, fragment: str):
    folder = info.out.as_uri() + "/"
    context, page, blocked, errors = guarded_page(chromium, lambda url: url.startswith(folder), TIMEOUT_MS)
    requests: list[str] = []
    page.on("request", lambda r: requests.append(r.url))
    page.goto((info.out / "index.html").as_uri() + fragment)
    return context, page, errors, requests


def _search_fragment(q: dict) -> str:
    return "#" + urlencode({"view": "search", "m": MODEL, "q": json.dumps(q)})


def _shown(page) -> list[list]:
    page.wait_for_function("() => ['ready', 'empty', 'error'].includes(document.body.dataset.searchState)")
    return page.evaluate("""() => [...document.querySelectorAll('#sq-hits tbody tr')].map(tr =>
        [Number(tr.dataset.sentenceId), tr.dataset.side || null,
         tr.dataset.position === undefined ? null : Number(tr.dataset.position)])""")


def _shows(page, want: list[list]) -> None:
    """Wait until the hits on screen are ``want`` (a hash change redraws them), then assert it."""
    try:
        page.wait_for_function("""want => JSON.stringify([...document.querySelectorAll('#sq-hits tbody tr')].map(tr =>
            [Number(tr.dataset.sentenceId), tr.dataset.side || null,
             tr.dataset.position === undefined ? null : Number(tr.dataset.position)])) === JSON.stringify(want)""",
                               arg=want, timeout=30_000)
    except Exception:  # noqa: BLE001  (the assertion below says what is on screen)
        pass
    assert _shown(page) == want


def _cli(index, where, sort=None, asc=False, top=20, any_=False) -> list[list]:
    query = Query(tuple(Filter(*w) for w in where), "or" if any_ else "and", sort, not asc, top)
    return [[r["sentence_id"], r.get("side"), r.get("position")] for r in run_query(index, query).records()]


def test_the_folder_has_the_search_file_and_says_its_size(built):
    info, index = built
    (model,) = info.models
    assert model.search_bytes == (info.out / f"search/{MODEL}.js").stat().st_size > 0
    assert f"search/{MODEL}.js" in site.describe(info)
    assert index.manifest["examples"] == 8


def test_a_corpus_that_cannot_be_read_is_skipped_with_one_line(tmp_path, monkeypatch):
    monkeypatch.setenv("DISAN_INDEX_CACHE", str(tmp_path / "cache"))
    lines: list[str] = []
    assert site_search.cached_index(MODEL, str(tmp_path / "absent.txt"), None, lines.append) is None
    assert lines[-1].startswith(f"search: skipped for {MODEL}:") and "\n" not in lines[-1]


def test_a_linked_filter_and_a_typed_one_show_disan_searchs_hits_and_a_hit_opens_the_sentence(chromium, built):
    info, index = built
    context, page, errors, requests = _open(chromium, info, "")
    try:
        page.wait_for_function("() => ['ready', 'error'].includes(document.body.dataset.state)")
        assert not [u for u in requests if "/search/" in u]  # loaded only when Search is opened
        assert page.evaluate("() => window.DisanSiteSearch === undefined")

        where = [["fw_gate", ">", "0.5"], ["word", "contains", "e"]]
        page.goto((info.out / "index.html").as_uri() + _search_fragment(
            {"where": where, "sort": "s2t", "asc": True, "top": 7}))
        want = _cli(index, where, "s2t", True, 7)
        assert len(want) == 7
        _shows(page, want)
        assert page.is_hidden("#report") and page.is_visible("#search-panel")

        # typed into the controls: the first filter becomes word = not, sorted by bw_gate
        page.goto((info.out / "index.html").as_uri() + _search_fragment({}))
        _shows(page, _cli(index, []))
        page.select_option("#sq-col0", "word")
        page.select_option("#sq-op0", "=")
        page.fill("#sq-val0", "not")
        page.select_option("#sq-sort", "bw_gate")
        want = _cli(index, [["word", "=", "not"]], "bw_gate")
        assert len(want) == 3
        _shows(page, want)
        q = json.loads(parse_qs(page.evaluate("() => location.hash.slice(1)"))["q"][0])
        assert q["where"] == [["word", "=", "not"]] and q["sort"] == "bw_gate"
        assert page.locator("#sq-hits tbody tr").first.locator("span.sq-token[style*='outline']").inner_text() == "not"

        # a bad value: disan search's own line, no hits
        page.fill("#sq-val0", "x")
        page.select_option("#sq-col0", "T")
        page.fill("#sq-val0", "NaN")
        page.wait_for_function("() => document.body.dataset.searchState === 'error'")
        assert page.inner_text("#sq-summary") == "T holds finite numbers; 'NaN' is not one (no NaN or infinity)."

        # a damaged link: one line, the empty search shown; an out-of-range page size: disan search's line
        page.goto((info.out / "index.html").as_uri() + "#" + urlencode({"view": "search", "m": MODEL, "q": "{not json"}))
        _shows(page, _cli(index, []))
        assert page.inner_text("#sq-summary").startswith("The search in the link could not be read")
        page.goto((info.out / "index.html").as_uri() + _search_fragment({"top": 0, "where": [["word", "=", "<b>"]]}))
        page.wait_for_function("() => document.body.dataset.searchState === 'error'")
        assert page.inner_text("#sq-summary") == "Hits a page: 0 is out of range; use 1 to 10,000."

        # a hit opens the sentence view on its sentence
        page.goto((info.out / "index.html").as_uri() + _search_fragment({"where": [["word", "=", "not"]], "sort": "bw_gate"}))
        _shows(page, want)
        first = want[0][0]
        text = run_query(index, Query((Filter("sentence_id", "=", str(first)),))).records()[0]["text"]
        page.locator("#sq-hits tbody tr").first.locator("a.sq-open").click()
        page.wait_for_function("t => document.getElementById('text').value === t && document.body.dataset.state === 'ready'",
                               arg=text)
        assert page.is_visible("#report") and page.is_hidden("#search-panel")
        assert page.evaluate("() => document.getElementById('report').children.length") > 0

        # and the pair view with the hit as A
        page.go_back()
        _shows(page, want)
        page.locator("#sq-hits tbody tr").first.locator("a.sq-pair").click()
        page.wait_for_function("() => document.getElementById('view').value === 'pair'")
        assert page.input_value("#text") == text and page.input_value("#b-text") == text
        assert not errors, errors
    finally:
        context.close()


def test_nearest_to_a_typed_sentence_orders_hits_as_disan_search_like_does(chromium, built):
    """``--like SENTENCE`` in the page: the page's model run gives the sentence's signature (search_signature.js),
    equal to ``disan search``'s within the float16 weights' error, and the hits come nearest first by it."""
    info, index = built
    sentence = "the plot is not good , but the acting is fine ."
    want = run_query(index, Query(like=sentence, top=8)).records()
    python_sig = like_signature(index, sentence)
    context, page, errors, requests = _open(chromium, info, "")
    try:
        page.wait_for_function("() => ['ready', 'error'].includes(document.body.dataset.state)")
        sig = page.evaluate("""s => Disan.Site.traceOf('%s', s).then(tv =>
            Disan.SearchSignature.signatureOf(tv.premise, tv.arch))""" % MODEL, sentence)
        assert len(sig) == len(python_sig)
        assert max(abs(a - b) for a, b in zip(sig, python_sig)) < 5e-3, (sig, python_sig)

        # typed into the box, then "nearest to the page's sentence": the address holds it, the hits follow
        page.goto((info.out / "index.html").as_uri() + "#" + urlencode({"view": "search", "m": MODEL, "t": sentence,
                                                                         "q": "{}"}))
        page.wait_for_function("() => document.body.dataset.searchState === 'ready'")
        page.click("#sq-like-page")
        page.wait_for_function("() => document.body.dataset.searchState === 'ready' && "
                               "document.querySelector('#sq-summary').textContent.includes('nearest to')")
        q = json.loads(parse_qs(page.evaluate("() => location.hash.slice(1)"))["q"][0])
        assert q["likeText"] == sentence
        shown = page.evaluate("""() => [...document.querySelectorAll('#sq-hits tbody tr')].map(tr =>
            [Number(tr.dataset.sentenceId), Number(tr.cells[tr.cells.length - 3].textContent)])""")
        assert [s for s, _ in shown][:1] == [r["sentence_id"] for r in want][:1]
        by_id = {r["sentence_id"]: r["like_distance"] for r in want}
        for sid, distance in shown:
            assert distance == pytest.approx(by_id[sid], abs=1e-2)
        # a linked search of a sentence the model refuses: one line
        page.goto((info.out / "index.html").as_uri() + _search_fragment({"likeText": "\u200b\u200b"}))
        page.wait_for_function("() => document.body.dataset.searchState === 'error'")
        assert page.inner_text("#sq-summary").startswith("Cannot find sentences like")
        assert not errors
    finally:
        context.close()


def test_the_view_menu_opens_search_and_names_it_and_a_folder_without_search_says_so(chromium, built, static_site):
    """Before, the view menu had no Search entry (it read "one sentence" in Search mode) and the report's section
    links stayed above the hits; a folder built without --search showed an empty search form, loading for ever."""
    info, _ = built
    context, page, errors, _ = _open(chromium, info, "#" + urlencode({"m": MODEL, "t": "a fine film ."}))
    try:
        page.wait_for_function("() => ['ready', 'error'].includes(document.body.dataset.state)")
        page.select_option("#view", "search")
        page.wait_for_function("() => ['ready', 'empty'].includes(document.body.dataset.searchState)")
        assert "view=search" in page.evaluate("location.hash") and page.input_value("#view") == "search"
        assert page.is_visible("#search-panel") and page.is_hidden("#page-header")
        page.select_option("#view", "sentence")
        page.wait_for_function("() => document.body.dataset.state === 'ready' && !location.hash.includes('view=')")
        assert page.is_visible("#report") and page.is_visible("#page-header") and page.is_hidden("#search-panel")
    finally:
        context.close()
    assert errors == []
    context, page, errors, _ = _open(chromium, static_site, "#" + urlencode({"m": MODEL, "view": "search"}))
    try:
        page.wait_for_function("() => ['ready', 'error'].includes(document.body.dataset.state)")
        assert "has no search for disan-sst5" in page.inner_text("#status")
        assert page.is_hidden("#search-panel") and page.is_visible("#report")
        assert page.locator('#view option[value="search"]').is_disabled()
    finally:
        context.close()
    assert errors == []
