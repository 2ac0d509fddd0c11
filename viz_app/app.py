"""Entry point of the attention explorer: ``streamlit run viz_app/app.py`` from the repository root, or
``disan app`` from anywhere once the package is installed (``viz_app/launch.py``).

It stays in viz_app/ (not shell/) because Streamlit serves ``static/`` beside the script it runs.

Builds the shared sidebar (``shell/sidebar.py``), the ``st.navigation`` menu over
the views in ``shell/views/`` and keeps the URL query string in step with the
session (``shell/session.py``), so a copied link reopens the same view.
"""

import sys
from pathlib import Path

# Streamlit runs this file as a script with viz_app/ on sys.path; put the folder above it there too: the
# repository root in a checkout, site-packages (already there) in an installed package.
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import streamlit as st  # noqa: E402

from viz_app.shell import plotly_js  # noqa: E402
from viz_app.shell.startup import mark  # noqa: E402

mark("script")
# No page or page_icon icons: Streamlit fetches emoji/material favicons from a CDN, and the app must work offline.
st.set_page_config(page_title="DiSAN & DSA attention", layout="wide")
# Before the imports below and the page: on the first run the browser fetches and compiles plotly.js while the
# server builds the page (issue 19's cold start).
plotly_js.preload()

import importlib  # noqa: E402
from functools import partial  # noqa: E402

from viz_app.shell import explorer, loaders  # noqa: E402
from viz_app.shell.catalog import DEFAULT_VIEW, VIEWS  # noqa: E402
from viz_app.shell.follow import begin_page, keep_following  # noqa: E402
from viz_app.shell.context import Context  # noqa: E402
from viz_app.shell.export import explorer_download, report_download  # noqa: E402
from viz_app.shell.session import LINK_VIEW_KEY, pop_warnings, write_url  # noqa: E402
from viz_app.shell.sidebar import prepare_session, render_sidebar  # noqa: E402
from viz_app.draw.text import md_escape  # noqa: E402

_PRESENTATION_CSS = """
<style>
html, body, [data-testid="stAppViewContainer"] { font-size: 20px; }
[data-testid="stMarkdownContainer"] p, [data-testid="stCaptionContainer"] { font-size: 1.15rem; }
h1 { font-size: 2.6rem !important; }
</style>
"""


def banners(ctx: Context) -> None:
    """Random-weight banner and warnings from a bad link, on every view."""
    if not ctx.any_trained:
        st.warning(
            "No trained checkpoint found — showing random weights. Patterns below are not learned; "
            "put trained checkpoints in pretrained/ to see real attention."
        )
    elif ctx.random_weights:
        st.info(md_escape(f"{ctx.model} has random weights (untrained); pick a trained model for learned patterns."))
    for message in pop_warnings():
        st.warning(md_escape(message))
    if ctx.presentation:
        st.markdown(_PRESENTATION_CSS, unsafe_allow_html=True)


def render_view(module: str, run: dict) -> None:
    """Import the view's module when its page runs: only the current view's imports are paid for (the Evidence
    and Models views' pandas tables cost the first page 0.4 s when every view was imported up front).
    ``run["ctx"]``: the sidebar's ``Context``, drawn once the page is known."""
    importlib.import_module(f"viz_app.shell.views.{module}").render(run["ctx"])


def follow_link_view(current: st.Page, by_view: dict[str, st.Page], alias: st.Page) -> None:
    """On a session's first run, open the view a link's ``view`` parameter names when its address is the app's
    root (``/?view=fusion_gate&…``); an address naming a page (``/fusion_gate?…``) is that page already. The
    default view's own path typed by hand (``/explore``) is ``alias``, a hidden page that opens the root."""
    wanted = st.session_state.pop(LINK_VIEW_KEY, None)
    at_root = current.url_path == "" or current is alias
    if wanted in by_view and at_root and wanted != DEFAULT_VIEW:
        st.switch_page(by_view[wanted], query_params=st.query_params.to_dict())
    if current is alias:
        st.switch_page(by_view[DEFAULT_VIEW], query_params=st.query_params.to_dict())


def main() -> None:
    by_path = {spec.url_path: spec for spec in VIEWS}
    prepared = prepare_session()
    run: dict = {}
    pages = {}
    for spec in VIEWS:
        # One default page, always Explore: Streamlit serves the default page at the app's root only, so a default
        # that followed the link's view made that view's own address (/disan_attention?view=…) a "Page not found".
        page = st.Page(
            partial(render_view, spec.module, run),
            title=spec.title,
            url_path=f"{spec.url_path}_root" if spec.url_path == DEFAULT_VIEW else spec.url_path,
            default=spec.url_path == DEFAULT_VIEW,
        )
        pages[spec.title] = (page, spec.url_path)
    # Streamlit serves the default page at the root only, so the default view's own path (/explore typed by hand)
    # was a "Page not found": a hidden page holds that path and opens the root. Page paths must be unique, so the
    # default page's own (never shown) path is another name.
    alias = st.Page(partial(render_view, DEFAULT_VIEW, run), title=by_path[DEFAULT_VIEW].title,
                    url_path=DEFAULT_VIEW, visibility="hidden")
    # every view listed: with 13, Streamlit's default folds the last ones (Models, Evidence) under "View more"
    current = st.navigation([p for p, _ in pages.values()] + [alias], expanded=True)
    follow_link_view(current, {url: page for page, url in pages.values()}, alias)
    # The sidebar after the page is known: it names a pair's inputs as the page does (sidebar.side_names).
    ctx = run["ctx"] = render_sidebar(pages[current.title][1], prepared)
    banners(ctx)
    if not ctx.presentation:
        with st.sidebar:
            report_download(ctx)
            explorer_download(ctx)
    begin_page()
    current.run()
    keep_following(ctx)
    write_url(pages[current.title][1])
    mark("page")
    if not loaders.core_loaded():  # the page came from stored records: load the model while the user reads it
        loaders.warm_up(ctx.model)
    # Every trained model's in-page copy, built ahead in the background (this page's model first), so that a
    # model's first use follows typing; a no-op once queued.
    explorer.build_ahead(ctx.model, ctx.models)


main()
