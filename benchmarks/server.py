"""A local Streamlit server for ``viz_app/app.py`` and the Chromium it is driven with.

Shared by the app and load benchmarks (``benchmarks/app.py``, ``benchmarks/load.py``) and the browser tests.
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import io
import sys
import tarfile
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from viz_app.serve import stop, wait_healthy

from .common import REPO_ROOT

APP = REPO_ROOT / "viz_app" / "app.py"
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking"]


def unavailable() -> str | None:
    """Why the app benchmark cannot run here, or None."""
    if shutil.which("chromium") is None:
        return "chromium is not installed (apt-get install chromium)"
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        return "playwright is not installed (pip install playwright)"
    try:
        import streamlit  # noqa: F401
    except ImportError:
        return "streamlit is not installed"
    if not APP.is_file():
        return f"{APP.relative_to(REPO_ROOT)} does not exist yet"
    return None


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@contextmanager
def checkout(rev: str) -> Iterator[Path]:
    """The tracked files of ``rev`` in a temporary folder (``git archive``; the repository is not touched).

    Benchmarks measure the code an earlier figure was measured on in the same run by pointing
    ``streamlit_server(root=...)`` at it, with this checkout's Python (``pretrained/`` is tracked by git)."""
    try:
        sha = subprocess.run(["git", "-C", str(REPO_ROOT), "rev-parse", "--verify", f"{rev}^{{commit}}"],
                             capture_output=True, text=True, check=True, timeout=30).stdout.strip()
    except (subprocess.CalledProcessError, FileNotFoundError) as err:
        raise SystemExit(f"error: --baseline-rev {rev!r} is not a commit of {REPO_ROOT} ({err}); "
                         "give a commit hash or tag, e.g. --baseline-rev c2680bf, or --no-baseline") from None
    folder = Path(tempfile.mkdtemp(prefix=f"disan-baseline-{sha[:7]}-"))
    try:
        archive = subprocess.run(["git", "-C", str(REPO_ROOT), "archive", "--format=tar", sha],
                                 capture_output=True, check=True, timeout=300).stdout
        with tarfile.open(fileobj=io.BytesIO(archive)) as tar:
            tar.extractall(folder, filter="data")
        node_modules(folder)
        page_bundles(folder)
        yield folder
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def node_modules(tree: Path) -> None:
    """Give an earlier commit's ``tree`` the browser packages of its own package-lock.json (its plotly.js, its
    onnxruntime-web): this checkout's when the locks are the same (a link), else ``npm ci`` in ``tree``, so a
    baseline is measured with what it shipped. Without npm, or if it fails, the baseline goes without (its
    pages then load the plotly package's full bundle) and a line says so."""
    lock = tree / "package-lock.json"
    if not lock.is_file() or (tree / "node_modules").exists():
        return
    ours = REPO_ROOT / "package-lock.json"
    if ours.is_file() and ours.read_bytes() == lock.read_bytes() and (REPO_ROOT / "node_modules").is_dir():
        (tree / "node_modules").symlink_to(REPO_ROOT / "node_modules")
        return
    npm = shutil.which("npm")
    done = npm is not None and subprocess.run([npm, "ci", "--no-audit", "--no-fund", "--loglevel=error"], cwd=tree,
                                              capture_output=True, timeout=600).returncode == 0
    if not done:
        print(f"warning: npm ci failed in {tree}; the baseline runs without its node_modules", file=sys.stderr)


def page_bundles(tree: Path) -> None:
    """Build an earlier commit's page bundles from its own sources: since issue 54 ``viz_app/browser/dist/`` is
    ignored by git (``npm ci``'s postinstall builds it), so ``git archive`` leaves it out, and ``node_modules``
    links this checkout's packages without running the postinstall. Without them the baseline's charts were
    refused (``bundles.py``) and its cold start waited out its timeout. Commits before issue 54 have no build
    script and need none. Without node, or if the build fails, a line says so."""
    script = tree / "scripts" / "build_browser.mjs"
    if not script.is_file() or (tree / "viz_app" / "browser" / "dist" / "sources.json").is_file():
        return
    node = shutil.which("node")
    done = node is not None and subprocess.run([node, str(script)], cwd=tree, capture_output=True,
                                               timeout=600).returncode == 0
    if not done:
        print(f"warning: the page bundles of {tree} could not be built (node scripts/build_browser.mjs); the "
              "baseline's charts will not draw", file=sys.stderr)


@contextmanager
def streamlit_server(
    port: int, max_tokens: int | None = None, startup_s: float = 120.0, threads: int | None = None, log_path=None,
    env: dict[str, str] | None = None, root: Path = REPO_ROOT,
):
    """A headless Streamlit server for ``viz_app/app.py`` of ``root`` (this checkout, or a ``checkout`` of an
    earlier commit) on 127.0.0.1:``port``; stopped on exit.

    Yields ``(base_url, process)``; the server's output goes to ``log_path`` (default: discarded);
    ``env`` adds environment variables (e.g. ``VIZ_BROWSER_RECOMPUTE=0`` for the server path); ``root``:
    the checkout whose app runs, with its own ``.streamlit/config.toml`` (the load benchmark's baseline
    commit), on this Python.
    """
    env = {**os.environ, **(env or {}),
           "PYTHONPATH": str(root) + os.pathsep + os.environ.get("PYTHONPATH", "")}
    if max_tokens is not None:
        env["VIZ_MAX_TOKENS"] = str(max(max_tokens, 128))
    if threads:
        env["OMP_NUM_THREADS"] = str(threads)
    cmd = [sys.executable, "-m", "streamlit", "run", str(root / APP.relative_to(REPO_ROOT)), "--server.headless", "true",
           "--server.port", str(port), "--server.address", "127.0.0.1", "--browser.gatherUsageStats", "false",
           "--server.fileWatcherType", "none"]
    with serving(cmd, port, cwd=root, env=env, startup_s=startup_s, log_path=log_path) as served:
        yield served


@contextmanager
def serving(cmd: list[str], port: int, *, cwd, env: dict[str, str], startup_s: float = 120.0, log_path=None):
    """Run ``cmd``, a Streamlit server on 127.0.0.1:``port``, and yield ``(base_url, process)`` once it answers.

    Also starts the installed ``disan app`` in the wheel test (tests/test_wheel.py); stopped on exit.
    """
    log = open(log_path or os.devnull, "w")
    proc = subprocess.Popen(cmd, cwd=cwd, env=env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
    try:
        wait_healthy(f"http://127.0.0.1:{port}/_stcore/health", proc, "streamlit", startup_s)
        yield f"http://127.0.0.1:{port}", proc
    finally:
        stop(proc)
        log.close()
