"""A local Streamlit server for ``viz_app/app.py`` and the Chromium it is driven with.

Shared by the app benchmark (``benchmarks/app.py``), the browser tests and the load test.
"""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from contextlib import contextmanager
from pathlib import Path

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
def checkout(rev: str):
    """A temporary ``git worktree`` of ``rev`` (the code an earlier figure was measured on), removed on exit.

    Benchmarks run a baseline in the same run by pointing ``streamlit_server(root=...)`` at it; the
    checkpoints and the virtual environment are this checkout's (``pretrained/`` is tracked by git)."""
    folder = Path(tempfile.mkdtemp(prefix="disan-baseline-"))
    tree = folder / "tree"
    try:
        subprocess.run(["git", "-C", str(REPO_ROOT), "worktree", "add", "--detach", "--quiet", str(tree), rev],
                       check=True, capture_output=True, text=True)
    except subprocess.CalledProcessError as err:
        shutil.rmtree(folder, ignore_errors=True)
        raise RuntimeError(f"git worktree add {rev!r} failed ({err.stderr.strip()}); give a commit of this "
                           "repository (e.g. --baseline-rev HEAD~3)") from err
    try:
        yield tree
    finally:
        subprocess.run(["git", "-C", str(REPO_ROOT), "worktree", "remove", "--force", str(tree)],
                       capture_output=True)
        shutil.rmtree(folder, ignore_errors=True)


@contextmanager
def streamlit_server(
    port: int, max_tokens: int | None = None, startup_s: float = 120.0, threads: int | None = None, log_path=None,
    env: dict[str, str] | None = None, root: Path = REPO_ROOT,
):
    """A headless Streamlit server for ``viz_app/app.py`` of ``root`` (this checkout, or a ``checkout`` of an
    earlier commit) on 127.0.0.1:``port``; stopped on exit.

    Yields ``(base_url, process)``; the server's output goes to ``log_path`` (default: discarded);
    ``env`` adds environment variables (e.g. ``VIZ_BROWSER_RECOMPUTE=0`` for the server path).
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
        deadline = time.monotonic() + startup_s
        while True:
            if proc.poll() is not None:
                raise RuntimeError(f"streamlit exited with status {proc.returncode} before serving")
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/_stcore/health", timeout=2) as r:
                    if r.status == 200:
                        break
            except OSError:
                pass
            if time.monotonic() > deadline:
                raise RuntimeError(f"streamlit did not answer on 127.0.0.1:{port} within {startup_s:.0f} s")
            time.sleep(0.25)
        yield f"http://127.0.0.1:{port}", proc
    finally:
        if proc.poll() is None:
            proc.send_signal(signal.SIGTERM)
            try:
                proc.wait(10)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait(10)
        log.close()
