"""``python -m viz_app.serve --processes N``: N processes of the app behind nginx, with sticky sessions.

One Streamlit process runs every session's script on one interpreter, so it uses about one core however
many users it serves. This starts N app processes on 127.0.0.1:P+1 … P+N and nginx on P (``--port``) in
front of them, with ``deploy/nginx.conf``: a cookie pins each browser to one process (its websocket,
media and uploads live there), and everything a view needs to reopen is in its link, so a link, or a
reload after a process restart, opens the same view on any process. Stops everything on Ctrl+C or when
one of them exits. ``tests/test_serve.py`` runs it on loopback; ``python -m viz_app bench load --processes N``
measures it. Importing this module imports neither Streamlit nor the app.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections.abc import Iterator, Sequence
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass, field
from pathlib import Path

from viz_app.launch import command

CONFIG = Path(__file__).resolve().parents[1] / "deploy" / "nginx.conf"
LOOPBACK = "127.0.0.1"
_UPSTREAM = re.compile(r"(upstream disan_app \{.*?\n)((?:\s*server [^\n]*;\n)+)", re.S)
_LISTEN = re.compile(r"^(\s*)listen [^;]+;", re.M)


def render(listen: str, backends: Sequence[int], template: str | None = None) -> str:
    """``deploy/nginx.conf`` with its ``listen`` address and its upstream's ``server`` lines replaced."""
    if template is None and not CONFIG.is_file():
        raise ValueError(f"{CONFIG} is missing: the nginx config is in a clone of the repository, not in the "
                         "installed package; run python -m viz_app.serve from a clone")
    text = CONFIG.read_text(encoding="utf-8") if template is None else template
    if not _UPSTREAM.search(text) or not _LISTEN.search(text):
        raise ValueError(f"{CONFIG} has no 'upstream disan_app' block with 'server' lines or no 'listen' line; "
                         "restore it from git")
    servers = "".join(f"        server {LOOPBACK}:{p};\n" for p in backends)
    text = _UPSTREAM.sub(lambda m: m.group(1) + servers, text, count=1)
    return _LISTEN.sub(lambda m: f"{m.group(1)}listen {listen};", text, count=1)


def wait_healthy(url: str, proc: subprocess.Popen, what: str, timeout_s: float) -> None:
    """Return once ``url`` answers 200; raise, naming ``what``, when ``proc`` exits or ``timeout_s`` passes.
    Also used by the benchmarks' servers (``benchmarks/server.py``)."""
    deadline = time.monotonic() + timeout_s
    while True:
        if proc.poll() is not None:
            raise RuntimeError(f"{what} exited with status {proc.returncode} before answering {url}; see its log")
        try:
            with urllib.request.urlopen(url, timeout=2) as r:
                if r.status == 200:
                    return
        except OSError:
            pass
        if time.monotonic() > deadline:
            raise RuntimeError(f"{what} did not answer {url} within {timeout_s:.0f} s; see its log")
        time.sleep(0.25)


def stop(proc: subprocess.Popen) -> None:
    """SIGTERM, then SIGKILL after 10 s."""
    if proc.poll() is None:
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(10)


@dataclass
class Cluster:
    """What :func:`cluster` started: the proxy's URL and every process (``backends``: port → process)."""

    url: str
    proxy: subprocess.Popen
    backends: dict[int, subprocess.Popen] = field(default_factory=dict)
    folder: Path | None = None


@contextmanager
def cluster(
    processes: int, port: int, *, listen: str | None = None, backend_ports: Sequence[int] | None = None,
    nginx: str | None = None, folder: Path | None = None, startup_s: float = 120.0,
    streamlit_options: Sequence[str] = (), env: dict[str, str] | None = None,
) -> Iterator[Cluster]:
    """Start ``processes`` app processes (on ``backend_ports``, default ``port+1`` …) and nginx on ``listen``
    (default 127.0.0.1:``port``); yield a :class:`Cluster` once the proxy answers; stop them all on exit.
    Logs and nginx's files go to ``folder`` (default: a temporary folder, removed afterwards)."""
    if processes < 1:
        raise ValueError(f"--processes {processes}: give at least 1")
    nginx = nginx or shutil.which("nginx")
    if nginx is None:
        raise RuntimeError("nginx is not installed (Debian/Ubuntu: apt-get install nginx-light); or give --nginx PATH")
    ports = list(backend_ports or range(port + 1, port + 1 + processes))
    if len(ports) != processes:
        raise ValueError(f"{len(ports)} backend ports for {processes} processes; give one port per process")
    own_folder = folder is None
    folder = Path(folder or tempfile.mkdtemp(prefix="disan-serve-"))
    (folder / "body").mkdir(parents=True, exist_ok=True)
    conf = folder / "nginx.conf"
    conf.write_text(render(listen or f"{LOOPBACK}:{port}", ports), encoding="utf-8")
    env = {**os.environ, **(env or {})}
    with ExitStack() as stack:
        if own_folder:
            stack.callback(shutil.rmtree, folder, ignore_errors=True)
        backends = {}
        for p in ports:
            log = stack.enter_context(open(folder / f"app-{p}.log", "w"))
            proc = subprocess.Popen(
                command([*streamlit_options, "--server.port", str(p), "--server.address", LOOPBACK]),
                env=env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
            stack.callback(stop, proc)
            backends[p] = proc
        check = subprocess.run([nginx, "-t", "-q", "-p", str(folder), "-c", str(conf), "-e", "stderr"],
                               capture_output=True, text=True, timeout=30)
        if check.returncode != 0:
            raise RuntimeError(f"nginx rejected {conf}: {check.stderr.strip()}")
        log = stack.enter_context(open(folder / "nginx.log", "w"))
        proxy = subprocess.Popen([nginx, "-p", str(folder), "-c", str(conf), "-e", "stderr", "-g", "daemon off;"],
                                 stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
        stack.callback(stop, proxy)
        for p, proc in backends.items():
            wait_healthy(f"http://{LOOPBACK}:{p}/_stcore/health", proc, f"the app process on port {p}", startup_s)
        host = (listen or LOOPBACK).rsplit(":", 1)[0] if listen and ":" in listen else LOOPBACK
        host = LOOPBACK if host in ("0.0.0.0", "[::]", "*") else host  # a wildcard listens on loopback too
        url = f"http://{host}:{port}"
        wait_healthy(f"{url}/_stcore/health", proxy, "nginx", startup_s)
        yield Cluster(url=url, proxy=proxy, backends=backends, folder=folder)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m viz_app.serve", description=__doc__.splitlines()[0])
    p.add_argument("--processes", type=int, default=os.cpu_count() or 1,
                   help="app processes (default: one per core)")
    p.add_argument("--port", type=int, default=8501, help="nginx's port; the processes take the next N ports")
    p.add_argument("--address", default=LOOPBACK,
                   help="nginx's address (default 127.0.0.1; 0.0.0.0 serves other machines)")
    p.add_argument("--nginx", default=None, help="the nginx binary (default: nginx on PATH)")
    p.add_argument("--print-config", action="store_true", help="print the rendered nginx config and exit")
    args = p.parse_args(argv)
    ports = range(args.port + 1, args.port + 1 + args.processes)
    if args.print_config:
        print(render(f"{args.address}:{args.port}", ports), end="")
        return 0
    stop = {"signal": None}

    def on_signal(signum, _frame):
        stop["signal"] = signum

    signal.signal(signal.SIGTERM, on_signal)
    signal.signal(signal.SIGINT, on_signal)
    try:
        with cluster(args.processes, args.port, listen=f"{args.address}:{args.port}", nginx=args.nginx,
                     folder=Path(tempfile.mkdtemp(prefix="disan-serve-"))) as served:
            print(f"serving on http://{args.address}:{args.port} through nginx: {args.processes} app processes on "
                  f"{LOOPBACK}:{ports[0]}–{ports[-1]}; logs in {served.folder}; Ctrl+C stops everything", flush=True)
            while stop["signal"] is None:
                dead = [f"nginx (status {served.proxy.returncode})"] if served.proxy.poll() is not None else []
                dead += [f"the app process on port {port} (status {proc.returncode})"
                         for port, proc in served.backends.items() if proc.poll() is not None]
                if dead:
                    print(f"error: {', '.join(dead)} exited; stopping the others (logs in {served.folder})",
                          file=sys.stderr)
                    return 1
                time.sleep(0.5)
    except (RuntimeError, ValueError) as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
