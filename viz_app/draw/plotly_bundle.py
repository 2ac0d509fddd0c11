"""Which plotly.js the pages load: plotly.js built with the figures' trace types when installed, else the plotly
package's full bundle.

The figures use three trace types (``TRACE_TYPES``: heatmap, bar, scatter with error bars) plus shapes and
annotations. ``npm ci`` (scripts/setup.sh) builds plotly.js from npm with just those (scripts/plotly_bundle.mjs,
the way plotly.js makes its own partial bundles). Evaluating a bundle holds the page's thread before anything
is drawn, and npm's cartesian bundle carries a dozen trace types the figures never use (its evaluation took
several times as long in headless Chromium here). ``bench site`` measures the cold open (docs/site-benchmark.md,
first maps, beside the baseline commit's). Used by the static explorer (``site.py``), the report and the app
(``viz_app/shell/plotly_js.py``); ``tests/test_plotly_bundle.py`` checks the trace types.
"""

from __future__ import annotations

import re
from pathlib import Path

import plotly

REPO = Path(__file__).resolve().parents[2]
NODE_MODULES = REPO / "node_modules"
#: The full bundle of the installed plotly package: the version the figures are built for.
PLOTLY_JS = Path(plotly.__file__).resolve().parent / "package_data" / "plotly.min.js"
#: plotly.js with ``TRACE_TYPES`` alone, built by ``npm ci`` (package.json's postinstall, scripts/plotly_bundle.mjs).
PLOTLY_BUNDLE = (".disan", "plotly-disan.min.js")
#: Every trace type a figure of viz_app/draw uses; the chosen bundle must draw them all.
TRACE_TYPES = ("heatmap", "bar", "scatter")


def plotly_bundle() -> Path:
    """plotly.js with the figures' trace types when built, else the full bundle of the plotly package.

    Both must be the plotly.js the figures were built for: the built bundle's version is checked against it.
    """
    bundle = NODE_MODULES / PLOTLY_BUNDLE[0] / PLOTLY_BUNDLE[1]
    if bundle.is_file() and plotly_version(bundle) == plotly_version(PLOTLY_JS):
        return bundle
    return PLOTLY_JS


def plotly_version(path: Path) -> str | None:
    """The ``vX.Y.Z`` in a plotly.js bundle's banner, or None."""
    with path.open("rb") as f:
        head = f.read(400).decode("utf-8", "replace")
    match = re.search(r"plotly\.js (?:\([^)]*\) )?v(\d+\.\d+\.\d+)", head)
    return match.group(1) if match else None
