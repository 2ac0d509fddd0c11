"""``disan app``: the ``streamlit run`` command for ``viz_app/app.py``, wherever the package is installed.

Streamlit reads ``.streamlit/config.toml`` only from the working directory (and ``~/.streamlit``), so a
checkout started from its root gets the app's settings from that file, while ``disan app`` started in any
other folder passes the same settings as flags. ``tests/test_packaging.py`` checks that the two agree.
Importing this module imports neither Streamlit nor the app.

``run`` starts Streamlit in this process (so it receives Ctrl+C and a PaaS's SIGTERM itself). It starts no
warm-up of its own: a thread importing torch while the browser loads the page held back the first page by as
much as it saved (``bench cold-start``, issue 19). The app draws its opening page from stored records and
loads torch and the model after it (``viz_app/shell/loaders.py``), the same under ``streamlit run``.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from pathlib import Path

APP = Path(__file__).resolve().parent / "app.py"

#: The settings of .streamlit/config.toml. Static serving delivers the plotly.js the app copies into
#: ``viz_app/static/`` (without it charts fall back to ``st.plotly_chart``); the rest keeps the app offline.
OPTIONS: dict[str, bool | str] = {
    "browser.gatherUsageStats": False,
    "server.headless": True,
    "server.runOnSave": False,
    "server.enableStaticServing": True,
    "runner.postScriptGC": False,
    "client.toolbarMode": "minimal",
    "theme.base": "light",
    # Streamlit draws captions in its text colour at 60 % over the background: its default text (#2f2d2b) makes
    # them #828180 on white, 3.9:1, under WCAG AA's 4.5:1 (axe-core, tests/test_axe_pages.py); this text colour
    # makes them #747372, 4.7:1.
    "theme.textColor": "#171615",
}


def _flag_value(value: bool | str) -> str:
    return ("true" if value else "false") if isinstance(value, bool) else value


def command(extra: Sequence[str] = ()) -> list[str]:
    """``python -m streamlit run viz_app/app.py`` with OPTIONS as flags; ``extra`` options come last, so they win."""
    flags = [f"--{name}={_flag_value(value)}" for name, value in OPTIONS.items()]
    return [sys.executable, "-m", "streamlit", "run", str(APP), *flags, *extra]


def run(extra: Sequence[str] = ()) -> int:
    """``command(extra)`` in this process."""
    from streamlit.web import cli

    sys.argv = ["streamlit", *command(extra)[3:]]
    return cli.main(prog_name="streamlit")
