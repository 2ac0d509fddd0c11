"""axe-core on the real pages (issue 54, item 7): the static explorer opened from disk, report files, and the app's
Explore, Minimal pair and Attribution views served by Streamlit, each in the state a visitor sees once it has drawn.

axe-core (package.json's devDependencies, node_modules/axe-core/axe.min.js) is injected into every frame of the page
and run on the whole document; a page passes with no violation of impact "serious" or "critical" (axe's WCAG 2.x A
and AA rules and its best practices). Moderate and minor ones are printed (``-s``), not failed. Skips without
chromium, Playwright or axe-core (``npm ci`` installs it)."""

from __future__ import annotations

from pathlib import Path
from urllib.parse import quote, urlencode

import pytest

from tests.conftest import ROOT, guarded_page, local_page

pytestmark = pytest.mark.browser

AXE = ROOT / "node_modules" / "axe-core" / "axe.min.js"
#: The impacts that fail a page.
BLOCKING = ("serious", "critical")
TIMEOUT_MS = 120_000
SENTENCE = "the acting is good and the story is moving ."
PREMISE, HYPOTHESIS = "A lady stands outside of a Mexican market .", "A woman is outdoors ."
#: Any figure the page has drawn: plotly's today, the figure components' (``data-figure``) after issue 54's rewrite.
FIGURE = ".js-plotly-plot, [data-figure]"


@pytest.fixture(scope="module")
def axe_source() -> Path:
    if not AXE.is_file():
        pytest.skip(f"{AXE} is missing: run npm ci (bash scripts/setup.sh does)")
    return AXE


def run_axe(page, axe: Path) -> dict:
    """axe.run over the page, with axe injected into every frame first (axe checks inside a frame only where it
    runs in it); returns axe's result."""
    for frame in page.frames:
        frame.add_script_tag(path=str(axe))
    # preload: false: axe would fetch the page's stylesheets itself (for one rule, css-orientation-lock), which a
    # page opened from file:// refuses with a console error
    return page.evaluate("() => axe.run(document, {resultTypes: ['violations'], preload: false})")


def blocking(result: dict) -> list[str]:
    """One line per serious or critical violation: its rule, impact, help text and the first nodes it names."""
    return [f"{v['id']} ({v['impact']}): {v['help']} at {[n['target'] for n in v['nodes'][:4]]}"
            for v in result["violations"] if v["impact"] in BLOCKING]


#: The minimal pair's leave-one-out cells, once filled (each carries its number as data-value): axe runs on them
#: coloured, as a visitor sees them (pair_view.js fillLeaveOneOut picks a text colour that keeps 4.5:1 on every
#: background strength).
LOO_FILLED = "() => document.querySelectorAll('td[data-loo][data-value]').length > 0"


def check(name: str, page, axe: Path) -> None:
    """Fails on every serious or critical violation."""
    result = run_axe(page, axe)
    for v in result["violations"]:
        if v["impact"] not in BLOCKING:
            print(f"{name}: {v['id']} ({v['impact']}, {len(v['nodes'])} nodes) {v['help']}")
    # axe did look at the page: its rules found elements to pass (about 35 on each page when this was written)
    assert len(result["passes"]) >= 15, (name, len(result["passes"]))
    assert blocking(result) == [], f"{name}: " + "\n".join(blocking(result))


def test_the_check_finds_a_serious_violation(chromium, axe_source):
    """The helper fails a page axe finds fault with: an image without text and a field without a label."""
    page = chromium.new_page()
    try:
        page.set_content('<!doctype html><html lang="en"><head><title>t</title></head><body><main>'
                         '<img src="data:image/gif;base64,R0lGODlhAQABAAAAACw="><input type="text"></main></body></html>')
        found = blocking(run_axe(page, axe_source))
    finally:
        page.close()
    assert {line.split(" ")[0] for line in found} >= {"image-alt", "label"}, found


# ------------------------------------------------------------------ the static explorer, opened from disk

SITE_CASES = {
    "sentence model": {"m": "disan-sst5"},
    "NLI model": {"m": "dsa-nli", "t": PREMISE, "h": HYPOTHESIS},
    "typed sentence with an unknown word": {"m": "dsa-sst5", "t": "the zzyzxq plot is dull ."},
    "minimal pair": {"m": "disan-sst5", "t": SENTENCE, "bt": SENTENCE.replace(" good ", " not good "),
                     "view": "pair"},
    "refused sentence": {"m": "disan-sst5", "t": " ".join(["word"] * 300)},
    "talk mode": {"m": "disan-sst5", "talk": "1"},
}


@pytest.mark.parametrize("case", SITE_CASES)
def test_static_site(chromium, static_site, axe_source, case):
    folder = static_site.out.as_uri() + "/"
    context, page, blocked, errors = guarded_page(chromium, lambda url: url.startswith(folder), TIMEOUT_MS)
    try:
        page.goto((static_site.out / "index.html").as_uri() + "#" + urlencode(SITE_CASES[case]))
        page.wait_for_function("() => ['ready', 'error'].includes(document.body.dataset.state)")
        if case != "refused sentence":
            page.wait_for_function(f"() => document.querySelectorAll({FIGURE!r}).length > 0")
        if case == "minimal pair":
            page.wait_for_function(LOO_FILLED)
        page.wait_for_timeout(500)  # the figures drawn after the first (cell numbers, the pair's B)
        check(f"site, {case}", page, axe_source)
    finally:
        context.close()
    assert blocked == [] and errors == []


# ------------------------------------------------------------------ report files


@pytest.fixture(scope="module")
def reports(tmp_path_factory) -> dict[str, Path]:
    """A sentence model's report, an NLI model's and a minimal pair's, written by ``python -m viz_app report``."""
    from viz_app.cli import main

    out = tmp_path_factory.mktemp("reports")
    args = {
        "sentence model": ["report", SENTENCE, "--model", "disan-sst5"],
        "NLI model": ["report", PREMISE, "--hypothesis", HYPOTHESIS, "--model", "dsa-nli"],
        "minimal pair": ["report", SENTENCE, "--pair", SENTENCE.replace(" good ", " not good "), "--model",
                         "dsa-sst5"],
    }
    written = {}
    for i, (case, argv) in enumerate(args.items()):
        written[case] = out / f"report{i}.html"
        assert main([*argv, "--out", str(written[case]), "--device", "cpu"]) == 0
    return written


@pytest.mark.parametrize("case", ["sentence model", "NLI model", "minimal pair"])
def test_report_file(chromium, reports, axe_source, case):
    own = reports[case].resolve().as_uri()
    context, page, blocked, errors = guarded_page(chromium, lambda url: url == own, TIMEOUT_MS)
    try:
        page.goto(own)
        page.wait_for_function("() => { const r = document.getElementById('report') || document.querySelector("
                               "'[data-ready]'); return r && r.dataset.ready === '1'; }")
        if case == "minimal pair":
            page.wait_for_function(LOO_FILLED)
        page.wait_for_timeout(500)
        check(f"report, {case}", page, axe_source)
    finally:
        context.close()
    assert blocked == [] and errors == []


# ------------------------------------------------------------------ the app's views (the session's server)

#: view → (its address's parameters, what says the page has drawn all it will draw)
APP_CASES = {
    "Explore": ({"view": "explore", "model": "disan-sst5", "sentence": SENTENCE},
                f"() => document.querySelectorAll({FIGURE!r}).length >= 2"),
    "Minimal pair": ({"view": "pair", "model": "disan-sst5", "sentence": SENTENCE,
                      "sentence_b": SENTENCE.replace(" good ", " not good ")},
                     "() => { const el = document.querySelector('.viz-pair'); "
                     "return el && el.dataset.ready === '1' && el.dataset.loo; }"),
    "Attribution": ({"view": "attribution", "model": "disan-sst5", "sentence": SENTENCE},
                    f"() => document.querySelectorAll({FIGURE!r}).length >= 3 && "
                    "!document.querySelector('[data-testid=stMain]').innerText.includes('Computing the attributions')"),
}


@pytest.mark.parametrize("view", APP_CASES)
def test_app_view(chromium, server, axe_source, view):
    params, drawn = APP_CASES[view]
    context, page, outside, errors = local_page(chromium, width=1400, height=1000, timeout_ms=TIMEOUT_MS)
    try:
        page.goto(f"{server}/{params['view'] if params['view'] != 'explore' else ''}?{urlencode(params, quote_via=quote)}")
        page.wait_for_selector("[data-testid=stMain] h1")
        page.wait_for_function(drawn)
        page.wait_for_function("() => document.querySelector('[data-testid=stApp]')"
                               ".getAttribute('data-test-script-state') !== 'running'")
        page.wait_for_timeout(500)
        assert page.locator('[data-testid="stException"]').count() == 0
        if view == "Minimal pair":
            page.wait_for_function(LOO_FILLED)
        check(f"app, {view}", page, axe_source)
    finally:
        context.close()
    assert outside == [] and errors == []
