"""Many processes (issue 19, part 5): ``viz_app/serve.py`` and ``deploy/nginx.conf`` on loopback.

Two app processes behind nginx on 127.0.0.1 free ports: both processes get sessions, one route cookie
always reaches the same process (sticky sessions), the same link draws the same view on either process
(the view lives in the URL), and Chromium through the proxy draws the heatmap and redraws it for a new
sentence. The loopback test skips with a reason when nginx or chromium is missing (CI machines may have
neither); the config's rendering is checked everywhere.
"""

from __future__ import annotations

import asyncio
import shutil
import subprocess

import pytest

from benchmarks import load as driver
from benchmarks.server import free_port
from viz_app import serve

NGINX = shutil.which("nginx")
WAIT_S = 120
LINK = "/?view=explore&model=dsa&alpha=0"


def test_render_replaces_the_listen_address_and_the_backends():
    text = serve.render("0.0.0.0:9000", [9001, 9002, 9003])
    assert "listen 0.0.0.0:9000;" in text and "listen 127.0.0.1:8501;" not in text
    upstream = text.split("upstream disan_app {", 1)[1].split("}", 1)[0]
    assert [ln.strip() for ln in upstream.splitlines() if ln.strip().startswith("server ")] == [
        "server 127.0.0.1:9001;", "server 127.0.0.1:9002;", "server 127.0.0.1:9003;"]
    assert "hash $disan_route consistent;" in upstream
    assert text.count("\n") == serve.CONFIG.read_text().count("\n") + 1  # one more server line, nothing else lost


def test_render_names_the_file_when_its_markers_are_gone():
    with pytest.raises(ValueError, match="nginx.conf.*upstream disan_app"):
        serve.render("127.0.0.1:9000", [9001], template="events {}\n")


@pytest.mark.skipif(NGINX is None, reason="nginx is not installed (apt-get install nginx-light)")
def test_nginx_accepts_the_config_as_committed_and_as_rendered(tmp_path):
    for name, text in (("committed.conf", serve.CONFIG.read_text()), ("rendered.conf", serve.render("127.0.0.1:9000", [9001]))):
        conf = tmp_path / name
        conf.write_text(text)
        check = subprocess.run([NGINX, "-t", "-p", str(tmp_path), "-c", str(conf), "-e", "stderr"],
                               capture_output=True, text=True, timeout=30)
        assert check.returncode == 0, check.stderr


def test_launcher_refuses_zero_processes():
    with pytest.raises(ValueError, match="--processes 0"):
        with serve.cluster(0, free_port()):
            pass


@pytest.fixture(scope="module")
def two_processes():
    if NGINX is None:
        pytest.skip("nginx is not installed (apt-get install nginx-light); the deploy config is checked above")
    pytest.importorskip("websockets.asyncio.client", reason="websockets (a streamlit dependency) is missing")
    ports = [free_port(), free_port()]
    with serve.cluster(2, free_port(), backend_ports=ports, streamlit_options=["--server.fileWatcherType", "none"],
                       startup_s=WAIT_S) as served:
        yield served, ports


def _route(url: str, cookie: str, ports: list[int]) -> tuple[int, list]:
    """The process a websocket with route cookie ``cookie`` reaches, and the overview heatmap it got."""

    async def go():
        from websockets.asyncio.client import connect

        before = [driver.connections_to(p) for p in ports]
        ws_url = url.replace("http://", "ws://", 1) + "/_stcore/stream"
        async with connect(ws_url, subprotocols=["streamlit"], max_size=None, open_timeout=WAIT_S,
                           additional_headers={"Cookie": f"{driver.ROUTE_COOKIE}={cookie}"}) as ws:
            session = driver.ProtocolSession(url, 1)
            session.ws = ws
            elements, _ = await asyncio.wait_for(session.rerun(), WAIT_S)
            after = [driver.connections_to(p) for p in ports]
        grew = [p for p, b, a in zip(ports, before, after) if a > b]
        assert len(grew) == 1, f"cookie {cookie}: connections before {before}, after {after}"
        return grew[0], driver.summarise_run(elements)["z"]

    return asyncio.run(go())


@pytest.mark.slow
def test_both_processes_serve_and_a_cookie_sticks_to_one(two_processes):
    served, ports = two_processes
    routes = {c: _route(served.url, c, ports) for c in (f"user{i}" for i in range(8))}
    reached = {port for port, _ in routes.values()}
    assert reached == set(ports), f"8 route cookies reached only {reached} of {ports}"
    for cookie in ("user0", "user1"):  # sticky: the same cookie reaches the same process again
        assert _route(served.url, cookie, ports)[0] == routes[cookie][0]
    maps = {port: z for port, z in routes.values()}  # the same link draws the same view on either process
    assert all(z is not None for z in maps.values()) and maps[ports[0]] == maps[ports[1]]


@pytest.mark.slow
@pytest.mark.browser
def test_chromium_through_the_proxy_draws_and_submits(two_processes, chromium):
    from tests.conftest import guarded_page

    served, ports = two_processes
    context, page, blocked, errors = guarded_page(chromium, lambda u: u.startswith(("http://127.0.0.1", "ws://127.0.0.1",
                                                                                   "data:", "blob:")), WAIT_S * 1000)
    sockets = []
    page.on("websocket", lambda ws: sockets.append(ws.url))
    try:
        page.goto(served.url + LINK)
        page.wait_for_selector("[data-figure^='figure:'][data-drawn]", state="attached")
        cookies = {c["name"]: c["value"] for c in context.cookies()}
        assert driver.ROUTE_COOKIE in cookies, cookies  # nginx gave the browser its route
        assert sum(driver.connections_to(p) for p in ports) >= 1
        box = page.locator('[data-testid="stSidebar"] [data-testid="stTextArea"] textarea')
        box.fill("The keeper proxiedword waved at passing ship number 3 .")
        box.press("Control+Enter")
        page.wait_for_function(
            "(w) => [...document.querySelectorAll(\"[data-figure^='figure:']\")].some(f => (f.dataset.drawn || '').includes(w))",
            arg="proxiedword")
        assert "alpha=0" in page.url  # the view is still in the link
        assert page.locator('[data-testid="stException"]').count() == 0
        assert sockets and all(s.startswith(served.url.replace("http", "ws", 1)) for s in sockets), sockets
        assert blocked == [] and errors == [], (blocked, errors)
    finally:
        context.close()
