"""``disan app``: the ``streamlit run`` command for ``viz_app/app.py``, wherever the package is installed.

Streamlit reads ``.streamlit/config.toml`` only from the working directory (and ``~/.streamlit``), so a
checkout started from its root gets the app's settings from that file, while ``disan app`` started in any
other folder passes the same settings as flags. ``tests/test_packaging.py`` checks that the two agree.
Importing this module imports neither Streamlit nor the app.

``run`` starts Streamlit in this process after starting ``warm`` in a thread: torch, the core and the default
model's GloVe are loaded while the server starts and the browser loads the page, so the first script run finds
them ready (issue 19: cold start). ``streamlit run viz_app/app.py`` works as well, without that head start.
"""

from __future__ import annotations

import sys
import threading
import time
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
}


def _flag_value(value: bool | str) -> str:
    return ("true" if value else "false") if isinstance(value, bool) else value


def command(extra: Sequence[str] = ()) -> list[str]:
    """``python -m streamlit run viz_app/app.py`` with OPTIONS as flags; ``extra`` options come last, so they win."""
    flags = [f"--{name}={_flag_value(value)}" for name, value in OPTIONS.items()]
    return [sys.executable, "-m", "streamlit", "run", str(APP), *flags, *extra]


def warm(wait_s: float = 30.0) -> None:
    """Import torch and the core and load the default model once (GloVe stays cached by ``disan.load_glove``);
    the app's ``loaders.load_model`` then builds its own copy in a fraction of the time.

    Starts once Streamlit's server is up (or after ``wait_s``): begun beside the server's own imports it held
    the GIL and delayed the server's first answer by as much as it saved (``bench cold-start``); begun then,
    it overlaps the browser loading Streamlit's page."""
    deadline = time.monotonic() + wait_s
    while time.monotonic() < deadline and not _server_up():
        time.sleep(0.02)
    try:
        import disan
        from viz_app.shell.models import available, default_model

        disan.load(default_model(available()), device="cpu")
    except Exception:  # noqa: BLE001 - only a head start: the app reports any failure when it loads the model
        return


def _server_up() -> bool:
    from streamlit.runtime import Runtime
    from streamlit.runtime.runtime import RuntimeState

    return Runtime.exists() and Runtime.instance().state != RuntimeState.INITIAL


def run(extra: Sequence[str] = ()) -> int:
    """``command(extra)`` in this process, with ``warm`` running beside Streamlit's start."""
    threading.Thread(target=warm, name="disan-warm-up", daemon=True).start()
    from streamlit.web import cli

    sys.argv = ["streamlit", *command(extra)[3:]]
    return cli.main(prog_name="streamlit")
