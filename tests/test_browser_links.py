"""A copied view address reopens that view (issue 58, item 1): opened in a new browser context, with no
"Page not found" dialog over it. ``docs/app.md`` promises it; Streamlit serves its default page at the root only.

A real headless Chromium against ``streamlit run viz_app/app.py``; skips without chromium or Playwright.
"""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.browser

TIMEOUT_MS = 90_000
SENTENCE = "the%20lamp%20glows%20red%20."


@pytest.fixture(scope="module")
def browser(chromium, server):
    """The module's Chromium and the session's app server."""
    return chromium, server


def _open_in_new_context(browser, address: str, chart: bool = True) -> dict:
    """What a new browser context (no session, no history) shows at ``address`` once its script has run.
    ``chart=False``: views without a chart (Models, Evidence, Search) count too, so only the title is waited for."""
    chromium, url = browser
    context = chromium.new_context(viewport={"width": 1400, "height": 900})
    try:
        tab = context.new_page()
        tab.set_default_timeout(TIMEOUT_MS)
        tab.goto(url + address)
        tab.wait_for_selector("[data-testid=stMain] h1")
        if chart:
            tab.wait_for_selector("[data-testid=stMain] [data-figure^='figure:'][data-drawn]")
        tab.wait_for_function("() => document.querySelector('[data-testid=stApp]')"
                              ".getAttribute('data-test-script-state') !== 'running'")
        tab.wait_for_timeout(500)  # a dialog is sent with the page's first messages; give it time to open
        return tab.evaluate("""() => ({
          title: document.querySelector('[data-testid=stMain] h1').textContent,
          dialogs: Array.from(document.querySelectorAll('[role=dialog]'), d => d.textContent),
          notFound: document.body.innerText.includes('Page not found'),
          path: location.pathname, search: location.search,
          current: Array.from(document.querySelectorAll('[data-testid=stSidebarNav] a[aria-current=page]'),
                              a => a.textContent)})""")
    finally:
        context.close()


@pytest.mark.parametrize("view, model, title", [
    ("disan_attention", "disan", "DiSAN attention"),
    ("fusion_gate", "dsa", "Fusion gate"),
    ("compare", "dsa", "Compare"),
])
def test_a_copied_view_address_opens_that_view_with_no_dialog(browser, view, model, title):
    shown = _open_in_new_context(browser, f"/{view}?view={view}&model={model}&sentence={SENTENCE}")
    assert not shown["dialogs"] and not shown["notFound"], shown
    assert shown["title"].startswith(title) and shown["path"].endswith(f"/{view}"), shown
    assert "view=" + view in shown["search"] and "lamp" in shown["search"], shown


def test_a_link_to_the_root_with_a_view_opens_that_view(browser):
    """Links that name the view by its parameter only (``/?view=…``) open it too, and its address becomes the view's."""
    shown = _open_in_new_context(browser, f"/?view=fusion_gate&model=dsa&sentence={SENTENCE}")
    assert not shown["dialogs"] and not shown["notFound"], shown
    assert shown["title"].startswith("Fusion gate") and shown["path"].endswith("/fusion_gate"), shown
    assert "lamp" in shown["search"], shown


def test_explores_address_is_the_root(browser):
    shown = _open_in_new_context(browser, f"/?view=explore&model=disan&sentence={SENTENCE}")
    assert not shown["dialogs"] and not shown["notFound"], shown
    assert shown["title"].startswith("Explore"), shown


def test_links_to_the_default_view_point_at_the_root():
    """``view_url`` of Explore names the app's root (``./``): ``explore?…`` would be a "Page not found"."""
    from viz_app.shell.catalog import DEFAULT_VIEW
    from viz_app.shell.links import view_url

    assert view_url(DEFAULT_VIEW, model="disan").startswith("./?view=explore&")
    assert view_url("fusion_gate", model="dsa") == "fusion_gate?view=fusion_gate&model=dsa"


#: Explore (served at the root: its own path was the bug), a view with a sentence figure and one without; the
#: slow set opens every other view's path too (two seconds each).
FIRST_PATHS = ("explore", "fusion_gate", "models")


@pytest.mark.parametrize("first", [pytest.param(True, id="first"), pytest.param(False, id="rest", marks=pytest.mark.slow)])
def test_every_views_path_typed_by_hand_opens_that_view(browser, first):
    """Issue 58: ``/explore`` typed in the address bar showed "Page not found" (Explore is served at the root).
    Every view's own path, typed with no query string, opens that view with no dialog and names it in the menu."""
    from viz_app.shell.catalog import VIEWS

    wrong = {}
    views = [spec for spec in VIEWS if (spec.url_path in FIRST_PATHS) == first]
    assert len(views) == (len(FIRST_PATHS) if first else len(VIEWS) - len(FIRST_PATHS))
    for spec in views:
        shown = _open_in_new_context(browser, f"/{spec.url_path}", chart=False)
        if shown["dialogs"] or shown["notFound"] or not shown["title"] or shown["current"] != [spec.title]:
            wrong[spec.url_path] = shown
    assert not wrong, "\n".join(f"{k}: {v}" for k, v in wrong.items())
