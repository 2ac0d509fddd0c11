"""Which plotly.js the pages load: npm's cartesian bundle when installed, else the plotly package's full bundle.

The figures use three trace types (``TRACE_TYPES``: heatmap, bar, scatter with error bars) plus shapes and
annotations, all in plotly.js's cartesian bundle. Parsing the full bundle took 1.1-1.5 s of a cold open on the
2-core benchmark machine, the cartesian one 0.5 s (issue 19). Used by the static explorer (``site.py``) and
the app (``viz_app/shell/plotly_js.py``); ``tests/test_plotly_bundle.py`` checks the trace types.
"""

from __future__ import annotations

import re
from pathlib import Path

import plotly

REPO = Path(__file__).resolve().parents[2]
NODE_MODULES = REPO / "node_modules"
#: The full bundle of the installed plotly package: the version the figures are built for.
PLOTLY_JS = Path(plotly.__file__).resolve().parent / "package_data" / "plotly.min.js"
#: plotly.js's cartesian bundle from npm (``npm ci``, run by scripts/setup.sh).
PLOTLY_BUNDLE = ("plotly.js-cartesian-dist-min", "plotly-cartesian.min.js")
#: Every trace type a figure of viz_app/draw uses; the chosen bundle must draw them all.
TRACE_TYPES = ("heatmap", "bar", "scatter")


def plotly_bundle() -> Path:
    """plotly.js's cartesian bundle from npm when installed, else the full bundle of the plotly package.

    Both must be the plotly.js the figures were built for: the npm bundle's version is checked against it.
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
