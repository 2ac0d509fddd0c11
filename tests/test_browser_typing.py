"""Explore follows typing (issue 27): the app's page runs the model itself and redraws the maps per key.

A real headless Chromium against ``streamlit run viz_app/app.py`` with ``VIZ_EXPLORE_TYPING=1``: keys typed
into the sidebar's sentence box redraw the Explore heatmap with the new tokens before anything is submitted,
the numbers drawn are the model's (the in-page ONNX export against the torch trace), the server learns the
sentence once typing rests (the address), and Enter submits. Skips without chromium, Playwright or
onnxruntime-web (``npm ci``). Figures are read through their contract (tests/app_figures.py): ``data-drawn``
(the tokens a figure shows, set with its pixels) and each panel's data table.
"""

from __future__ import annotations

import shutil
import time

import numpy as np
import pytest

import disan
from benchmarks.server import free_port, streamlit_server
from tests.app_figures import FIGURE, TABLE, TOKENS, open_table, parse
from tests.test_site import ort_or_skip

pytestmark = [pytest.mark.browser, pytest.mark.slow]

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
MODEL = "disan-sst5"
TIMEOUT_MS = 120_000

#: The overview chart's forward panel as drawn now: the tokens it shows and its data table (opened by the fixture).
OVERVIEW = f"""() => {{ const tokens = ({TOKENS})('chart_overview'), rows = ({TABLE})(['chart_overview', 0]);
  return rows && tokens.length ? {{tokens, rows}} : null; }}"""

#: The figure of chart KEY is drawn (its figure root carries data-drawn).
DRAWN = "key => { const f = (" + FIGURE + ")(key); return Boolean(f && f.dataset.drawn); }"

#: The app's script run is over.
_IDLE = """() => { const a = document.querySelector('[data-testid=stApp]');
  return !!a && a.getAttribute('data-test-script-state') !== 'running'; }"""

#: The page's typing element runs the model and redraws the charts that follow (not one that only sends).
FOLLOWS = "() => document.querySelector('.viz-typing')?.textContent.includes('follow typing')"


def retype(tab, text: str, box: str = ".st-key-sentence textarea"):
    """Replace the text of ``box`` (the sidebar's sentence) with ``text``, key by key (no submit); the box, for
    more keys."""
    box = tab.locator(box)
    box.click()
    box.press("Control+a")
    box.press_sequentially(text, delay=30)
    return box


def _page_drawn(tab, text: str, chart_key: str, panel: int) -> list:
    """Type ``text`` and return panel ``panel``'s table of chart ``chart_key`` as the page drew it from its own
    model run: read in the frame that showed the typed sentence (chart.js's "disan-typed-shown"), so neither the
    server's rerun (its torch trace differs by ~1e-5) nor the time the server learnt the text (a timer, later
    than the page's run unless the machine is loaded) decides what is read."""
    tab.evaluate(f"""() => {{ window.__typedTable = null;
      window.addEventListener('disan-typed-shown', function once() {{
        if (({_chart_ticks(chart_key)})().join(' ') !== {text!r}) return;
        window.__typedTable = ({TABLE})([{chart_key!r}, {panel}]);
        window.removeEventListener('disan-typed-shown', once);
      }}); }}""")
    retype(tab, text)
    return tab.wait_for_function("() => window.__typedTable").json_value()


@pytest.fixture(scope="module")
def page(tmp_path_factory):
    if CHROMIUM is None:
        pytest.skip("chromium is not installed (needed for the browser test)")
    pytest.importorskip("playwright.sync_api", reason="playwright is not installed")
    ort_or_skip()
    if MODEL not in disan.available():
        pytest.skip(f"{MODEL} is not in pretrained/")
    from playwright.sync_api import sync_playwright

    log = tmp_path_factory.mktemp("streamlit") / "server.log"
    with streamlit_server(free_port(), log_path=log, env={"VIZ_EXPLORE_TYPING": "1"}) as (url, _), \
            sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=["--headless", "--no-sandbox", "--disable-gpu"])
        tab = browser.new_page(viewport={"width": 1400, "height": 900})
        tab.route("**/*", lambda route: route.continue_() if route.request.url.startswith(url) else route.abort())
        tab.set_default_timeout(TIMEOUT_MS)
        tab.goto(f"{url}/?view=explore&model={MODEL}")
        # The explorer folder is exported in the background on the first visit; a rerun picks it up.
        deadline = time.monotonic() + 300
        tab.wait_for_function(DRAWN, arg="chart_overview")
        while not tab.locator(".viz-typing", has_text="follow typing").count():  # not one that only sends
            assert time.monotonic() < deadline, "Explore never offered typing (explorer folder not built?)"
            tab.wait_for_timeout(3000)
            tab.reload()
            tab.wait_for_function(DRAWN, arg="chart_overview")
        tab.wait_for_function(FOLLOWS)
        open_table(tab, "overview")
        tab.wait_for_function(f"() => !!({OVERVIEW})()")
        try:
            yield tab, url
        finally:
            browser.close()


def test_keys_redraw_the_maps_before_any_submit_with_the_models_numbers(page):
    tab, _ = page
    rows = _page_drawn(tab, "the zebra hums", "chart_overview", 0)
    # The tokens with their vocabulary status follow too (the page's Tokens section).
    badges = tab.evaluate("() => Array.from(document.querySelectorAll('.st-key-tokens .tokens .tok'), t => t.textContent)")
    assert badges == ["the", "zebra", "hums"]
    got = np.nan_to_num(parse(rows))  # masked cells (no allowed key) are 0 in the view
    assert got.shape == (3, 3)
    # Exactly the page's own model run on the typed text (tests/test_site.py holds that run to the torch model
    # with the export's rounding), to the table's six significant digits ...
    page_run = tab.evaluate("""() => Disan.Site.traceOf('disan-sst5', 'the zebra hums', '', null)
        .then(tv => Array.from(tv.premise.fw.attention))""")
    np.testing.assert_allclose(got.ravel(), page_run, rtol=1e-5, atol=1e-7)
    # ... and near the torch trace itself (float16 / int8 weights, extra GloVe rows cut: close, not equal).
    want = disan.load(MODEL, device="cpu").trace("the zebra hums").premise.encoder.fw.probs[0, :3, :3].mean(-1)
    assert np.abs(got - want.numpy()).max() < 0.05


def test_the_server_learns_the_typed_sentence_once_typing_rests_and_enter_submits(page):
    tab, _ = page
    box = retype(tab, "a quiet river")
    tab.wait_for_function("() => new URL(location.href).searchParams.get('sentence') === 'a quiet river'")
    box.press("Control+End")
    box.press_sequentially(" bends", delay=30)
    box.press("Enter")  # at once, without waiting for typing to rest
    tab.wait_for_function("() => new URL(location.href).searchParams.get('sentence') === 'a quiet river bends'",
                          timeout=5000)
    assert "\n" not in box.input_value()


#: Records each text the page sends the server (``chart.js`` ``TYPING.send``, which a rerun may set again) and
#: each frame that showed typed maps: window.__sends [{text, t}], window.__shownAt [{text, t}].
RECORD_SENDS = """() => {
  const T = window.__disanTyping;
  window.__sends = []; window.__shownAt = [];
  let send = T.send;
  const wrap = fn => function (key, value) { window.__sends.push({text: value.text, t: performance.now()});
                                              return fn.apply(this, arguments); };
  Object.defineProperty(T, 'send', {configurable: true, get: () => send, set: fn => { send = wrap(fn); }});
  T.send = send;
  window.addEventListener('disan-typed-shown', ev => window.__shownAt.push(
    {text: T.typed && T.typed.text, t: ev.detail.t}));
}"""


def test_enter_sends_the_sentence_after_the_frame_that_shows_its_maps_and_at_once_where_the_page_cannot(page):
    """Enter's submit waits for the page's own drawing of the text (the server's rerun would share the cores),
    and no longer: before typing rests (700 ms), and at once after a run that draws nothing."""
    tab, _ = page
    box = retype(tab, "the lamp glows")
    tab.wait_for_function("() => new URL(location.href).searchParams.get('sentence') === 'the lamp glows'")
    tab.wait_for_timeout(500)
    tab.evaluate(RECORD_SENDS)
    # the last key and Enter in one task, as a quick typist's (the page's run of the text cannot be done yet)
    t0 = tab.evaluate("""() => {
      const box = document.querySelector('.st-key-sentence textarea');
      Object.getOwnPropertyDescriptor(HTMLTextAreaElement.prototype, 'value').set.call(box, box.value + ' red');
      box.dispatchEvent(new InputEvent('input', {bubbles: true}));
      box.dispatchEvent(new KeyboardEvent('keydown', {key: 'Enter', bubbles: true, cancelable: true}));
      return performance.now();
    }""")
    tab.wait_for_function("() => window.__sends.some(s => s.text === 'the lamp glows red')", timeout=5000)
    sends, shown = tab.evaluate("() => [window.__sends, window.__shownAt]")
    sent = next(s["t"] for s in sends if s["text"] == "the lamp glows red")
    drawn = [s["t"] for s in shown if s["text"] == "the lamp glows red"]
    assert drawn and min(drawn) < sent, (drawn, sent)  # after the frame that showed its maps
    assert sent - t0 < 600, sent - t0  # by Enter, not by the rest timer (700 ms after the last key)
    # A sentence the page draws nothing for (no token) goes to the server at once.
    tab.evaluate("() => { window.__sends.length = 0; }")
    box.press("Control+a")
    box.press("Delete")
    t0 = tab.evaluate("() => performance.now()")
    box.press("Enter")
    tab.wait_for_function("() => window.__sends.some(s => s.text === '')", timeout=5000)
    sent = tab.evaluate("() => window.__sends.find(s => s.text === '').t")
    assert sent - t0 < 600, sent - t0
    retype(tab, "a quiet river")  # the next tests start from a sentence (Streamlit's own submit: an empty
    box.press("Control+Enter")     # sentence's view may not offer typing)
    tab.wait_for_function("() => new URL(location.href).searchParams.get('sentence') === 'a quiet river'")


def test_the_first_screen_shows_the_sentence_box_and_the_first_map(page):
    """Issue 27, item 5: on a 1400 × 900 window Explore's first screen holds the sentence box and the first
    attention map (its cells, not only its title)."""
    tab, url = page
    tab.goto(f"{url}/?view=explore&model={MODEL}")
    tab.wait_for_function(DRAWN, arg="chart_overview")
    boxes = tab.evaluate("""() => {
      const r = el => { const b = el.getBoundingClientRect(); return {top: b.top, bottom: b.bottom, height: b.height}; };
      return {window: innerHeight, box: r(document.querySelector('.st-key-sentence textarea')),
              cells: r(document.querySelector('.st-key-chart_overview [data-figure^="heatmap:"] canvas'))};
    }""")
    assert boxes["window"] == 900
    assert 0 <= boxes["box"]["top"] and boxes["box"]["bottom"] <= 900
    assert boxes["cells"]["height"] > 100 and boxes["cells"]["top"] < 900 - 100, boxes


def _nav(tab, title: str, chart_key: str) -> None:
    """Open another view in the same page (the sidebar's menu, no reload: the page's model stays loaded)."""
    tab.locator("[data-testid=stSidebarNav] a", has_text=title).first.click()
    tab.wait_for_function(DRAWN, arg=chart_key)
    tab.wait_for_function(_IDLE)


def _chart_ticks(chart_key: str) -> str:
    """JS: the tokens chart ``chart_key`` shows now (its figure's data-drawn)."""
    return f"() => ({TOKENS})({chart_key!r})"


def test_every_view_of_the_sentence_follows_typing_and_enter_submits_on_a_view_without_a_sentence_figure(page):
    """Issue 27, item 4: not only Explore. On the DiSAN attention view the heatmap pair and the clicked row's
    bars are redrawn from the page's own model run (read in the frame the page showed it: _page_drawn), with the
    view's own reduction; on Compare, panel B (the same weights without direction masks) is derived in the page
    from Shen Eq. 15's keys and queries; on Models (no sentence figure) the page's element only sends the text, and
    Enter submits there too (Shift+Enter keeps a new line)."""
    tab, url = page
    tab.goto(f"{url}/?view=explore&model={MODEL}")
    tab.wait_for_selector(".viz-typing")
    _nav(tab, "DiSAN attention", "chart_disan_pair")
    tab.wait_for_selector(".viz-typing")
    open_table(tab, "disan_pair")
    drawn = _page_drawn(tab, "storms gather slowly", "chart_disan_pair", 0)
    tab.wait_for_function(f"() => ({_chart_ticks('chart_disan_row')})().includes('gather')")
    page_run = tab.evaluate("""() => Disan.Site.traceOf('disan-sst5', 'storms gather slowly', '', null)
        .then(tv => Array.from(tv.premise.fw.attention))""")
    got = parse(drawn)
    assert got.shape == (3, 3)
    np.testing.assert_allclose(np.nan_to_num(got).ravel(), page_run, rtol=1e-5, atol=1e-7)  # the mean over features
    tab.wait_for_function("() => new URL(location.href).searchParams.get('sentence') === 'storms gather slowly'")

    _nav(tab, "Compare", "chart_compare")
    tab.wait_for_selector(".viz-typing")
    open_table(tab, "compare", 1)
    panel_b = parse(_page_drawn(tab, "rain falls on roofs", "chart_compare", 1))
    page_b = tab.evaluate("""() => Disan.Site.traceOf('disan-sst5', 'rain falls on roofs', '', null)
        .then(tv => Array.from(Disan.Recompute.remask(tv, 'none').premise.fw.attention))""")
    np.testing.assert_allclose(panel_b.ravel(), page_b, rtol=1e-5, atol=1e-7)
    want = disan.load(MODEL, device="cpu").trace("rain falls on roofs", masks=("none", "none")).premise.encoder.fw
    assert np.abs(panel_b - want.probs_mean[0].numpy()).max() < 0.05  # the export's weights: close, not equal
    assert (np.diag(panel_b) > 0).all()  # masks "none": a token attends to itself too

    tab.wait_for_function("() => new URL(location.href).searchParams.get('sentence') === 'rain falls on roofs'")
    tab.locator("[data-testid=stSidebarNav] a", has_text="Models").first.click()
    tab.wait_for_function(SENDS_ONLY)
    box = retype(tab, "tides turn")
    box.press("Shift+Enter")  # a new line in the sentence, not a submit
    assert box.input_value() == "tides turn\n"
    box.press("Backspace")
    box.press("Enter")
    tab.wait_for_function(_sentence_is("tides turn"), timeout=5000)
    assert box.input_value() == "tides turn"


#: Logs every drawing of the Attribution view's bars (a change of its figure's data-drawn): [time, whether the box
#: then held text the server had not been sent (chart.js TYPING.sent)].
LOG_BAR_DRAWS = """() => { window.__barDraws = [];
  new MutationObserver(records => {
    if (!records.some(r => r.target.closest('.st-key-chart_attr_bars') && (r.target.dataset.figure || '').startsWith('figure:'))) return;
    const box = document.querySelector('.st-key-sentence textarea'), sent = window.__disanTyping.sent;
    window.__barDraws.push([performance.now(), Boolean(sent && box && box.value !== sent.text)]);
  }).observe(document.body, {attributes: true, subtree: true, attributeFilter: ['data-drawn']});
}"""


def test_attributions_of_a_sentence_the_box_has_left_are_not_drawn_over_the_new_one(page):
    """The Attribution view's bars follow the server's sentence: those of a sentence the reader has moved on from
    (its attributions landing while newer text is typed) wait, and the newer sentence's are drawn once sent."""
    tab, url = page
    tab.goto(f"{url}/?view=attribution&model={MODEL}&sentence=the+film+is+good")
    tab.wait_for_function(DRAWN, arg="chart_attr_bars")
    tab.wait_for_function("() => document.querySelector('.viz-typing') && window.__disanTyping.sent")
    tab.evaluate(LOG_BAR_DRAWS)
    box = retype(tab, "a slow and quiet river bends")
    box.press("Enter")
    tab.wait_for_function("() => new URL(location.href).searchParams.get('sentence') === 'a slow and quiet river bends'")
    # keys at once: that sentence's attributions land while the box holds newer text
    box.press("Control+End")
    box.press_sequentially(" past the old mill at night", delay=80)
    wanted = "a slow and quiet river bends past the old mill at night"
    tab.wait_for_function(f"() => new URL(location.href).searchParams.get('sentence') === {wanted!r}")
    tab.wait_for_function(f"() => ({TOKENS})('chart_attr_bars').length === {len(wanted.split())}")
    draws = tab.evaluate("() => window.__barDraws")
    assert draws, "the bars were never drawn"
    assert not [t for t, ahead in draws if ahead], draws


def test_a_sentence_typed_after_clearing_the_box_is_drawn_with_no_submit_key(page):
    """Issue 58, item 2: select all, delete ("The sentence is empty"), then type: the maps of the new sentence
    come with no Enter or Ctrl+Enter (the server's rerun of the empty box had left the page without its typing
    element, and the keys after it went to Streamlit alone)."""
    tab, url = page
    tab.goto(f"{url}/?view=explore&model={MODEL}")
    tab.wait_for_function(DRAWN, arg="chart_overview")
    tab.wait_for_selector(".viz-typing")
    box = tab.locator(".st-key-sentence textarea")
    box.click()
    box.press("Control+a")
    box.press("Delete")
    tab.wait_for_function("() => new URL(location.href).searchParams.get('sentence') === ''")
    tab.wait_for_function("() => document.querySelector('[data-testid=stMain]').innerText.includes('The sentence is empty')")
    tab.wait_for_function(_IDLE)
    box.click()
    box.press_sequentially("a lantern glows", delay=30)
    t0 = time.monotonic()
    tab.wait_for_function(f"() => ({_chart_ticks('chart_overview')})().includes('lantern')", timeout=6000)
    assert time.monotonic() - t0 < 6
    assert box.input_value() == "a lantern glows"


#: Starts counting the drawings of every chart that follows typing (changes of data-drawn in it) and returns each
#: one's data-drawn now.
LOG_FOLLOW_DRAWS = """() => { window.__followDraws = 0;
  const charts = [...window.__disanTyping.follow].filter(el => el.isConnected);
  for (const el of charts) new MutationObserver(r => { window.__followDraws += r.length; })
    .observe(el, {attributes: true, subtree: true, attributeFilter: ['data-drawn']});
  return charts.map(el => el.querySelector('[data-figure^="figure:"]').dataset.drawn);
}"""
FOLLOW_DRAWN = """() => [...window.__disanTyping.follow].filter(el => el.isConnected)
  .map(el => el.querySelector('[data-figure^="figure:"]').dataset.drawn)"""

#: The page has drawn ``text`` from its own run, every following chart shows its tokens, and a frame has shown it.
TYPED_AT_REST = """text => { const T = window.__disanTyping;
  return T.typed && T.typed.text === text && !T.running && !T.pending && T.shown && T.shown.stamp === T.typed.stamp; }"""


def typed_for_enter(tab, url: str, text: str):
    """Explore on MODEL with ``text`` typed and drawn by the page's own run; the server learns the text by Enter
    only (not once typing rests), so the page's drawing is laid out first. Returns the sentence box."""
    tab.goto(f"{url}/?view=explore&model={MODEL}")
    tab.wait_for_function(DRAWN, arg="chart_overview")
    tab.wait_for_function("() => document.querySelector('.viz-typing') && window.__disanTyping.sent")
    tab.wait_for_function(_IDLE)
    tab.evaluate("() => { window.__disanTyping.data.send_after_ms = 600000; }")
    box = retype(tab, text)
    tab.wait_for_function(TYPED_AT_REST, arg=text)
    return box


def test_a_rerun_that_brings_the_maps_the_page_already_shows_paints_nothing(page):
    """Issue 58, item 10: Enter after the maps already follow the text. The server's rerun brings the same
    sentence's figures; the page keeps its own drawing (same text, model, α, figure, parameters and theme) and
    paints none of them again (it rebuilt and repainted every map about 240 ms later)."""
    tab, url = page
    text = "the old clock ticks on"
    box = typed_for_enter(tab, url, text)
    before = tab.evaluate(LOG_FOLLOW_DRAWS)
    assert len(before) >= 2  # Explore's prediction bars, the overview maps, the gate lines
    assert tab.evaluate(f"() => ({TOKENS})('chart_overview')") == text.split()
    assert tab.evaluate("() => new URL(location.href).searchParams.get('sentence')") != text
    box.press("Enter")
    tab.wait_for_function(f"() => new URL(location.href).searchParams.get('sentence') === {text!r}")
    tab.wait_for_timeout(300)
    tab.wait_for_function(_IDLE)
    tab.wait_for_timeout(1500)  # a repaint came ~240 ms after the rerun
    after = tab.evaluate(FOLLOW_DRAWN)
    draws = tab.evaluate("() => window.__followDraws")
    assert (after, draws) == (before, 0), (before, after, draws)
    # ... and what the page shows is that sentence: a new one typed after it is still drawn from the page's run
    box.press("Control+End")
    box.press_sequentially(" loudly", delay=30)
    tab.wait_for_function(f"() => ({_chart_ticks('chart_overview')})().includes('loudly')")




def test_a_live_chart_kept_from_typing_follows_its_alpha_slider_after_the_rerun(page):
    """Issue 58, item 10, for a chart of a live group (DSA's Distance view, the α slider): the rerun that brings
    the typed sentence paints nothing, and the chart, kept from the page's own drawing, rejoins its group: the
    next → on the slider repaints it at the new α."""
    tab, url = page
    tab.goto(f"{url}/distance_attention?view=distance_attention&model=dsa-sst5")
    tab.wait_for_function(DRAWN, arg="chart_dsa_pair")
    deadline = time.monotonic() + 300
    while not tab.locator(".viz-typing", has_text="follow typing").count():  # dsa-sst5's folder may still be building
        assert time.monotonic() < deadline, "the Distance view never offered typing"
        tab.wait_for_timeout(3000)
        tab.reload()
        tab.wait_for_function(DRAWN, arg="chart_dsa_pair")
    tab.wait_for_function("() => window.__disanTyping.sent && window.__disanTyping.ready")
    tab.evaluate("() => window.__disanTyping.ready")
    tab.wait_for_function(_IDLE)
    tab.evaluate("() => { window.__disanTyping.data.send_after_ms = 600000; }")
    text = "the film is quiet"  # words of the model's own vocabulary: the page's run reads them as the server does
    box = retype(tab, text)
    tab.wait_for_function(TYPED_AT_REST, arg=text)
    open_table(tab, "dsa_pair")
    tab.wait_for_timeout(100)
    before = tab.evaluate(LOG_FOLLOW_DRAWS)
    box.press("Enter")
    tab.wait_for_function(f"() => new URL(location.href).searchParams.get('sentence') === {text!r}")
    tab.wait_for_timeout(300)
    tab.wait_for_function(_IDLE)
    tab.wait_for_timeout(1500)
    assert (tab.evaluate(FOLLOW_DRAWN), tab.evaluate("() => window.__followDraws")) == (before, 0)
    # kept from the page's own drawing, the chart is back in the α group: the next → repaints it at the new α
    z0 = tab.evaluate(TABLE, ["chart_dsa_pair", 0])
    tab.locator(".viz-live input[type=range]").first.focus()
    tab.keyboard.press("ArrowRight")
    tab.wait_for_function(f"z0 => JSON.stringify(({TABLE})(['chart_dsa_pair', 0])) !== JSON.stringify(z0)", arg=z0)
    assert tab.evaluate(f"() => ({TOKENS})('chart_dsa_pair')") == text.split()


def test_a_rerun_whose_server_knows_a_word_the_page_lacks_draws_the_servers_numbers(page):
    """The page's model holds only the export's 5,000 extra GloVe words: "zebra" and "hums" are GloVe words the
    server's disan-sst5 embeds and the page runs as <unk>. Typed, the maps are the page's run (its best guess);
    once the server's rerun brings the sentence, the charts show the server's numbers (they kept the page's,
    since only the text was compared) and the tokens their server status."""
    tab, url = page
    text = "a zebra hums softly"
    box = typed_for_enter(tab, url, text)
    page_run = tab.evaluate(f"""() => Disan.Site.traceOf('{MODEL}', {text!r}, '', null)
        .then(tv => ({{status: Array.from(tv.premise.status), attention: Array.from(tv.premise.fw.attention)}}))""")
    assert page_run["status"][1:3] == ["unknown", "unknown"]  # the page lacks both words
    # ... and says so while its numbers are on screen
    assert '"zebra", "hums"' in tab.inner_text(".viz-typing") and "server" in tab.inner_text(".viz-typing")
    trace = disan.load(MODEL, device="cpu").trace(text)
    assert list(trace.premise.token_status[1:3]) == ["glove", "glove"]  # the server's model knows them
    want = trace.premise.encoder.fw.probs[0].mean(-1).numpy()  # (T, T)
    assert np.abs(np.asarray(page_run["attention"]).reshape(want.shape) - want).max() > 1e-3  # they differ
    open_table(tab, "overview")
    box.press("Enter")
    tab.wait_for_function(f"() => new URL(location.href).searchParams.get('sentence') === {text!r}")
    tab.wait_for_function(_IDLE)
    deadline, got = time.monotonic() + 20, None
    while time.monotonic() < deadline:
        drawn = tab.evaluate(f"() => ({OVERVIEW})()")
        got = drawn and np.nan_to_num(parse(drawn["rows"]))
        if got is not None and got.shape == want.shape and np.abs(got - want).max() < 1e-4:
            break
        tab.wait_for_timeout(200)
    assert got is not None and got.shape == want.shape
    np.testing.assert_allclose(got, want, atol=1e-4)  # the server's numbers, not the page's
    tab.wait_for_function("""() => Array.from(document.querySelectorAll('.st-key-tokens .tokens .tok'),
        t => t.className).join() === 'tok tok-vocab,tok tok-glove,tok tok-glove,tok tok-vocab'""")


#: The main heading starts with the argument (a view's title: its page has been opened).
HEADING = "(t) => (document.querySelector('[data-testid=stMain] h1') || {}).textContent?.startsWith(t)"

#: The page's typing element only sends the boxes' text (a view that draws nothing that follows typing).
SENDS_ONLY = "() => document.querySelector('.viz-typing')?.textContent.startsWith('Enter submits')"


def _sentence_is(text: str, key: str = "sentence") -> str:
    return f"() => new URL(location.href).searchParams.get({key!r}) === {text!r}"


def test_a_view_clicked_right_after_typing_opens_on_the_typed_sentence(page):
    """Typing, then at once clicking another view (before typing rests) opens that view on the typed sentence.
    The box's own commit on blur reran the page it was made on and cancelled the click: the reader stayed on
    Explore (Streamlit keeps the later of two requests' pages). Its commits are now held and the page's typing
    element sends the text (shell/follow.py), so the click's rerun carries it. The same from Models, whose element
    only sends (its box reran on its own commit until every page had the element), where Ctrl+Enter submits."""
    tab, url = page
    for n, (title, heading) in enumerate([("Fusion gate", "Fusion"), ("Masks", "Masks"), ("Models", "Models"),
                                          ("DiSAN attention", "DiSAN")]):
        tab.goto(f"{url}/?view=explore&model={MODEL}")
        tab.wait_for_function(FOLLOWS)
        text = f"the owl sings {n}"
        retype(tab, text)  # the last key, then the click: well inside the 700 ms before typing rests
        tab.locator("[data-testid=stSidebarNav] a", has_text=title).first.click()
        tab.wait_for_function(HEADING, arg=heading, timeout=20_000)
        tab.wait_for_function(_sentence_is(text), timeout=20_000)
        assert tab.locator(".st-key-sentence textarea").input_value() == text
    for n, (title, heading) in enumerate([("Fusion gate", "Fusion"), ("Masks", "Masks"), ("Explore", "Explore")]):
        tab.goto(f"{url}/models?model={MODEL}")
        tab.wait_for_function(HEADING, arg="Models")
        tab.wait_for_function(_IDLE)
        text = f"a heron stands {n}"
        retype(tab, text)
        tab.locator("[data-testid=stSidebarNav] a", has_text=title).first.click()
        tab.wait_for_function(HEADING, arg=heading, timeout=20_000)
        tab.wait_for_function(_sentence_is(text), timeout=20_000)
    tab.locator("[data-testid=stSidebarNav] a", has_text="Models").first.click()
    tab.wait_for_function(HEADING, arg="Models")
    tab.wait_for_function(SENDS_ONLY)
    box = retype(tab, "a slow tide")
    box.press("Control+Enter")
    tab.wait_for_function(_sentence_is("a slow tide"), timeout=20_000)


def test_where_the_view_draws_nothing_that_follows_the_typing_element_still_sends_the_text(page):
    """Compare's separately trained ablation draws two models' runs, so no chart follows typing; the box's
    commits are held on that view (it follows typing in its other modes), and the element the page gets instead
    says so, runs no model, and sends the text at Enter."""
    tab, url = page
    tab.goto(f"{url}/?view=compare&model={MODEL}")
    tab.wait_for_function(HEADING, arg="Compare")
    tab.locator("[data-testid=stRadio] label", has_text="separately trained ablation").first.click()
    tab.wait_for_function("() => document.querySelector('.viz-typing')?.textContent.startsWith('Enter submits')")
    box = retype(tab, "an old map")
    box.press("Enter")
    tab.wait_for_function(_sentence_is("an old map"), timeout=5000)
    assert "\n" not in box.input_value()
    tab.locator("[data-testid=stRadio] label", has_text="separately trained ablation").first.wait_for()


def test_a_click_as_typing_rests_is_not_lost_to_the_pages_own_send(page):
    """The page sends the typed text 700 ms after the last key; a send made after a click on a view, before that
    view's run started, named the page the click left and cancelled the click. A send now waits 1 s after a
    pointer press (chart.js CLICK_GRACE_MS): clicks at and around 700 ms open their view, and a press that opens
    nothing only delays the send."""
    tab, url = page
    for n, delay_ms in enumerate((600, 650, 700, 750)):
        tab.goto(f"{url}/?view=explore&model={MODEL}")
        tab.wait_for_function(FOLLOWS)
        text = f"the heron waits {n}"
        retype(tab, text)
        tab.wait_for_timeout(delay_ms)
        tab.locator("[data-testid=stSidebarNav] a", has_text="Fusion gate").first.click()
        tab.wait_for_function(HEADING, arg="Fusion", timeout=20_000)
        tab.wait_for_function(_sentence_is(text), timeout=20_000)
    tab.wait_for_selector(".viz-typing")
    tab.evaluate(RECORD_SENDS)
    retype(tab, "a press on nothing")
    pressed = tab.evaluate("() => { document.body.dispatchEvent(new PointerEvent('pointerdown', {bubbles: true}));"
                           " return performance.now(); }")
    tab.wait_for_function("() => window.__sends.some(s => s.text === 'a press on nothing')", timeout=5000)
    sent = tab.evaluate("() => window.__sends.find(s => s.text === 'a press on nothing').t")
    assert sent - pressed >= 950, sent - pressed
    tab.wait_for_function(_sentence_is("a press on nothing"))


def test_on_a_page_that_only_sends_the_text_a_new_figure_is_drawn_while_the_box_is_ahead(page):
    """A chart that does not follow typing waits while the box holds text the server has not been sent (chart.js
    HELD), where the page draws the typed sentence's maps; on a page whose typing element only sends (Paper
    figures), nothing is drawn from the box, so a figure a click there brings is drawn at once."""
    tab, url = page
    tab.goto(f"{url}/?view=explore&model={MODEL}")
    tab.wait_for_function(FOLLOWS)
    retype(tab, "the page draws this")  # the page's run: window.__disanTyping.typed is set
    tab.wait_for_function(_sentence_is("the page draws this"))
    tab.locator("[data-testid=stSidebarNav] a", has_text="Paper figures").first.click()
    tab.wait_for_function(HEADING, arg="Paper")
    tab.wait_for_function(SENDS_ONLY)
    tab.wait_for_function(_IDLE)
    tab.evaluate("() => { window.__disanTyping.data.send_after_ms = 600000; }")
    retype(tab, "text the server has not been sent")
    tab.locator("[data-testid=stMain] button", has_text="Shen Fig. 7").first.click()
    tab.wait_for_function(HEADING, arg="Paper")
    tab.wait_for_function("() => [...document.querySelectorAll('[data-testid=stMain] h3')]"
                          ".some(h => h.textContent.startsWith('Shen Fig. 7'))")
    tab.wait_for_function("() => document.querySelector(\"[class*='st-key-chart_shen7_'] [data-figure^='figure:'][data-drawn]\")",
                          timeout=20_000)


def test_a_view_clicked_right_after_typing_in_a_views_own_box_opens_and_the_box_keeps_its_text(page):
    """The Minimal pair's B box, like the sidebar's, never reruns on a commit of its own (shell/follow.py hold): its
    commit on the blur of a click on another view cancelled that click, as the sidebar's did. The page's
    typing element sends its text with the sidebar's, once typing rests or at Enter, also from the view a click
    opened, where the server keeps it for the pair view (the address holds it)."""
    tab, url = page
    b_box = ".st-key-sentence_b textarea"
    for n in range(3):
        tab.goto(f"{url}/?view=pair&model={MODEL}")
        tab.wait_for_function(HEADING, arg="Minimal")
        tab.wait_for_function(SENDS_ONLY)
        tab.wait_for_function(_IDLE)
        text = f"the kite climbs {n}"
        retype(tab, text, b_box)
        tab.locator("[data-testid=stSidebarNav] a", has_text="Fusion gate").first.click()
        tab.wait_for_function(HEADING, arg="Fusion", timeout=20_000)
        # sent from the view the click opened (a second after the press: chart.js CLICK_GRACE_MS)
        tab.wait_for_function(_sentence_is(text, "sentence_b"), timeout=20_000)
        tab.wait_for_function(_IDLE)
        tab.locator("[data-testid=stSidebarNav] a", has_text="Minimal pair").first.click()
        tab.wait_for_function(HEADING, arg="Minimal")
        tab.wait_for_function(f"() => document.querySelector({b_box!r})?.value === {text!r}", timeout=5000)
    tab.wait_for_function(_IDLE)
    retype(tab, "the kite rests", b_box)  # no key after it: sent once typing rests
    tab.wait_for_function(_sentence_is("the kite rests", "sentence_b"), timeout=20_000)
    tab.wait_for_function(_IDLE)
    tab.evaluate("() => { window.__disanTyping.data.send_after_ms = 600000; }")
    box = retype(tab, "the kite falls", b_box)
    box.press("Enter")
    tab.wait_for_function(_sentence_is("the kite falls", "sentence_b"), timeout=5000)
    assert box.input_value() == "the kite falls"  # Enter submitted: no new line
