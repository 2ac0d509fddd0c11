"""Load (issue #6, items 3 and 4): many concurrent sessions against one local Streamlit server.

One ``streamlit run viz_app/app.py`` on 127.0.0.1 serves, all at once:

* ``WS_SESSIONS`` (20) sessions over Streamlit's own websocket protocol (the binary
  ``BackMsg``/``ForwardMsg`` protobufs the browser speaks, from ``streamlit.proto``):
  each opens the Explore view of the random-weight DSA model — even sessions at its
  trained α, odd sessions with ``alpha=0`` in the link — and submits ``ROUNDS``
  unique sentences one after another by setting the text area's widget state,
  exactly as the browser does on Ctrl+Enter. A headless browser costs about a CPU
  second per redraw, so 200 browser interactions would take minutes on a small
  machine; the protocol client costs nothing and leaves the CPU to the server.
* ``BROWSER_SESSIONS`` (2) real headless Chromium pages doing the same at the same
  time, so the rendered page is checked under that load too.

Checks, per submission: the run finishes, the overview heatmap arrives with the new
sentence's tokens, and its values equal the core's trace at *that session's* α (so
concurrent sessions with different α never leak into each other through the shared
cached model); no exception element, no error alert, no page error; nothing in the
server log that looks like an error. Over the run: the server's resident memory grows
by less than ``RSS_GROWTH_MB`` after warm-up across ≥ 200 interactions; nothing
leaves 127.0.0.1 (the protocol client only dials 127.0.0.1, the browsers abort and
record any other URL). Bounded: every wait has a timeout, the whole phase has a
deadline, and the server is killed in ``finally``.

Figures go to ``docs/reliability-load.json`` and ``.md`` (quoted by ``docs/reliability.md``) under
``DISAN_REFRESH_DOCS=1``, else to a temporary folder.
Skips when chromium or Playwright is missing.
"""

from __future__ import annotations

import asyncio
import json
import os
import platform
import re
import statistics
import threading
import time
from datetime import datetime, timezone
from pathlib import Path

import numpy as np
import pytest

from benchmarks.server import streamlit_server

from tests.test_app import decode
from tests.test_browser import CHROMIUM, ROOT, _free_port
from tests.conftest import docs_out

pytestmark = [pytest.mark.browser, pytest.mark.slow]

WS_SESSIONS = 20
BROWSER_SESSIONS = 2
ROUNDS = 11  # the first round of every session is warm-up; 10 × 20 = 200 protocol interactions are measured
BROWSER_ROUNDS = 6
MODEL = "dsa"
HOST = "127.0.0.1"
WAIT_S = 180  # one page load, one run or one redraw (the machine may be shared)
DEADLINE_S = 600  # the whole concurrent phase; after it the test fails and the server is killed
#: Bound on server RSS growth between the end of warm-up and the end of the run. The app's caches
#: are bounded by entry count (trace_view 64, full_trace 6, feature/heads 256 each; see
#: viz_app/shell/loaders.py), a DSA trace of a 10-token sentence is well under 1 MB, and a session's
#: state is a few kB; the rest is allocator noise. Keeping every trace (a leak of ≈ 0.5–1 MB per
#: interaction, × 200) would exceed it.
RSS_GROWTH_MB = 150
FIGURES = docs_out("reliability-load.json")
_LOG_ERROR = re.compile(r"Traceback|Exception|Error|Uncaught|CRITICAL")


def rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    raise RuntimeError("no VmRSS")


def sentence(session: str, k: int) -> tuple[str, str]:
    word = f"{session}r{k}x"
    return word, f"The keeper {word} waved at passing ship number {k} ."


def alpha_of(index: int) -> float | None:
    return 0.0 if index % 2 else None


def query(index: int) -> str:
    return f"view=explore&model={MODEL}" + ("&alpha=0" if alpha_of(index) == 0.0 else "")


@pytest.fixture(scope="module")
def load_server(tmp_path_factory):
    if CHROMIUM is None:
        pytest.skip("chromium is not installed (needed for the load test's browser sessions)")
    pytest.importorskip("playwright.async_api", reason="playwright is not installed")
    pytest.importorskip("websockets.asyncio.client", reason="websockets (a streamlit dependency) is missing")
    port = _free_port()
    log_path = tmp_path_factory.mktemp("load") / "server.log"
    with streamlit_server(port, log_path=log_path) as (_, proc):
        yield port, proc, log_path


class Sampler(threading.Thread):
    """Samples the server's RSS every half second until stopped."""

    def __init__(self, pid: int):
        super().__init__(daemon=True)
        self.pid, self.samples, self.stop = pid, [], threading.Event()

    def run(self):
        while not self.stop.is_set():
            try:
                self.samples.append(rss_mb(self.pid))
            except (OSError, RuntimeError):
                return
            self.stop.wait(0.5)


# ------------------------------------------------------------ protocol sessions
class ProtocolSession:
    """One Streamlit session over the websocket, speaking the browser's protobuf messages."""

    def __init__(self, port: int, index: int):
        self.port, self.index, self.ws, self.text_area_id = port, index, None, None

    async def __aenter__(self):
        from websockets.asyncio.client import connect

        self.ws = await connect(f"ws://{HOST}:{self.port}/_stcore/stream", subprotocols=["streamlit"],
                                max_size=None, open_timeout=WAIT_S)
        return self

    async def __aexit__(self, *exc):
        await self.ws.close()

    async def rerun(self, text: str | None = None) -> tuple[list, int]:
        """Send one rerun (optionally with a new sentence); return its elements and finish status."""
        from streamlit.proto.BackMsg_pb2 import BackMsg
        from streamlit.proto.ForwardMsg_pb2 import ForwardMsg
        from streamlit.proto.WidgetStates_pb2 import WidgetState

        msg = BackMsg()
        msg.rerun_script.query_string = query(self.index)
        if text is not None:
            msg.rerun_script.widget_states.widgets.append(WidgetState(id=self.text_area_id, string_value=text))
        await self.ws.send(msg.SerializeToString())
        elements = []
        while True:
            fm = ForwardMsg()
            fm.ParseFromString(await asyncio.wait_for(self.ws.recv(), WAIT_S))
            kind = fm.WhichOneof("type")
            if kind == "delta" and fm.delta.WhichOneof("type") == "new_element":
                elements.append(fm.delta.new_element)
            elif kind == "script_finished":
                if fm.script_finished == ForwardMsg.FINISHED_EARLY_FOR_RERUN:
                    continue
                break
        for el in elements:
            if el.WhichOneof("type") == "text_area":
                self.text_area_id = el.text_area.id
        return elements, fm.script_finished


def summarise_run(elements) -> dict:
    """What a user would see: the overview heatmap, exceptions, error alerts."""
    from streamlit.proto.Alert_pb2 import Alert

    out = {"z": None, "ticks": None, "exceptions": 0, "errors": 0}
    for el in elements:
        kind = el.WhichOneof("type")
        if kind == "exception":
            out["exceptions"] += 1
        elif kind == "alert" and el.alert.format == Alert.ERROR:
            out["errors"] += 1
        elif kind == "bidi_component" and el.bidi_component.id.endswith("chart_overview"):
            spec = json.loads(json.loads(el.bidi_component.json)["spec"])
            out["z"] = decode(spec["data"][0]["z"]).tolist()
            out["ticks"] = spec["layout"]["xaxis"]["ticktext"]
    return out


async def protocol_session(port: int, index: int, state: dict, barrier: asyncio.Event, warm: list) -> None:
    from streamlit.proto.ForwardMsg_pb2 import ForwardMsg

    async with ProtocolSession(port, index) as session:
        await session.rerun()  # first page load
        for k in range(ROUNDS):
            if k == 1:  # everyone has warmed up before the measured rounds start
                warm.append(index)
                if len(warm) == WS_SESSIONS:
                    state["rss_after_warmup"] = rss_mb(state["pid"])
                    barrier.set()
                await asyncio.wait_for(barrier.wait(), WAIT_S)
            word, text = sentence(f"w{index}", k)
            start = time.monotonic()
            elements, status = await session.rerun(text)
            seen = summarise_run(elements)
            state["results"].append({"client": "protocol", "session": index, "round": k, "text": text,
                                     "alpha": alpha_of(index), "latency_s": time.monotonic() - start,
                                     "finished_ok": status == ForwardMsg.FINISHED_SUCCESSFULLY, **seen})
        # A bad sentence under load still gets its one clear message.
        if index == 0:
            elements, _ = await session.rerun("\u200b\u200b")
            from streamlit.proto.Alert_pb2 import Alert

            state["bad_input_message"] = [re.sub(r"\\(.)", r"\1", e.alert.body) for e in elements
                                          if e.WhichOneof("type") == "alert" and e.alert.format == Alert.ERROR]


# -------------------------------------------------------------- browser sessions
_OVERVIEW = """(word) => {
  for (const gd of document.querySelectorAll('.js-plotly-plot')) {
    const heat = (gd.data || []).filter(t => t.type === 'heatmap' && t.hoverinfo !== 'skip');
    if (heat.length === 2 && gd.textContent.includes(word)) {
      const z = heat[0].z;
      const plain = (x) => x == null ? null : ArrayBuffer.isView(x) ? Array.from(x) : Array.isArray(x) ? x.map(plain) : x;
      return {z: plain(z), ticks: (gd.layout.xaxis.ticktext || []).map(String)};
    }
  }
  return null;
}"""


async def browser_sessions(port: int, state: dict, barrier: asyncio.Event) -> None:
    from playwright.async_api import async_playwright

    outside, sockets, page_errors = state["outside"], state["sockets"], state["page_errors"]

    async def only_local(route):
        target = route.request.url
        if target.startswith((f"http://{HOST}", f"ws://{HOST}", "data:", "blob:")):
            await route.continue_()
        else:
            outside.append(target)
            await route.abort()

    async def one(browser, b: int) -> None:
        index = WS_SESSIONS + b
        context = await browser.new_context(viewport={"width": 1280, "height": 900})
        await context.route("**/*", only_local)
        page = await context.new_page()
        page.set_default_timeout(WAIT_S * 1000)
        page.on("pageerror", lambda err: page_errors.append(f"browser {b}: {err}"))
        page.on("websocket", lambda ws: sockets.append(ws.url))
        await page.goto(f"http://{HOST}:{port}/?{query(index)}")
        await page.wait_for_selector(".js-plotly-plot", state="attached")
        await asyncio.wait_for(barrier.wait(), WAIT_S)  # run alongside the measured protocol rounds
        box = page.locator('[data-testid="stSidebar"] [data-testid="stTextArea"] textarea')
        for k in range(BROWSER_ROUNDS):
            word, text = sentence(f"b{b}", k)
            await box.fill(text)
            start = time.monotonic()
            await box.press("Control+Enter")
            await page.wait_for_function(
                "(w) => Array.from(document.querySelectorAll('.js-plotly-plot')).some(e => e.textContent.includes(w))",
                arg=word)
            latency = time.monotonic() - start
            seen = await page.evaluate(_OVERVIEW, word)
            z = seen and (decode(seen["z"]).tolist() if isinstance(seen["z"], dict) else seen["z"])
            state["results"].append({
                "client": "browser", "session": index, "round": k, "text": text, "alpha": alpha_of(index),
                "latency_s": latency, "finished_ok": True, "z": z, "ticks": seen and seen["ticks"],
                "exceptions": await page.locator('[data-testid="stException"]').count(),
                "errors": await page.locator('[data-testid="stAlertContentError"]').count(),
            })
        await context.close()

    async with async_playwright() as p:
        browser = await p.chromium.launch(
            executable_path=CHROMIUM,
            args=["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking"],
        )
        try:
            await asyncio.gather(*(one(browser, b) for b in range(BROWSER_SESSIONS)))
        finally:
            await browser.close()


async def drive(port: int, state: dict) -> None:
    barrier, warm = asyncio.Event(), []
    t0 = time.monotonic()
    await asyncio.gather(
        browser_sessions(port, state, barrier),
        *(protocol_session(port, i, state, barrier, warm) for i in range(WS_SESSIONS)),
    )
    state["rss_end"] = rss_mb(state["pid"])
    state["phase_s"] = time.monotonic() - t0


def _cell(value) -> str:
    if isinstance(value, list):
        value = "; ".join(map(str, value)) or "none"
    return str(value).replace("|", "\\|").replace("\n", " ")


def _percentile(values: list[float], q: float) -> float:
    values = sorted(values)
    return values[min(len(values) - 1, round(q * (len(values) - 1)))]


def test_twenty_concurrent_sessions(load_server):
    import disan

    port, proc, log_path = load_server
    state = {"outside": [], "sockets": [], "page_errors": [], "results": [], "pid": proc.pid,
             "rss_start": rss_mb(proc.pid), "bad_input_message": []}
    sampler = Sampler(proc.pid)
    sampler.start()
    try:
        asyncio.run(asyncio.wait_for(drive(port, state), DEADLINE_S))
        time.sleep(2)  # let the server log session shutdowns
    finally:
        sampler.stop.set()
        sampler.join(5)
    assert proc.poll() is None, "the server died"
    log_text = log_path.read_text(errors="replace")

    results = state["results"]
    protocol = [r for r in results if r["client"] == "protocol"]
    measured = [r for r in protocol if r["round"] > 0]
    browser = [r for r in results if r["client"] == "browser"]

    # Every submission drew its own sentence, equal to the core's trace at that session's α.
    reference = disan.load(MODEL, device="cpu")
    missing, mismatched, alpha_matters, alpha_checked = [], [], 0, 0
    for r in results:
        if r["z"] is None:
            missing.append((r["client"], r["session"], r["round"]))
            continue
        tr = reference.trace(r["text"], alpha=r["alpha"])
        want = tr.premise.encoder.fw.probs[0].mean(0).numpy()
        if r["round"] < 2:  # on a sample: would the other group's α have drawn a different map?
            other = reference.trace(r["text"], alpha=0.0 if r["alpha"] is None else None)
            alpha_checked += 1
            alpha_matters += not np.allclose(other.premise.encoder.fw.probs[0].mean(0).numpy(), want, atol=1e-4)
        got = np.asarray(r["z"], dtype=float)
        if got.shape != want.shape or not np.allclose(got, want, atol=1e-5) or len(r["ticks"]) != len(tr.tokens):
            mismatched.append((r["client"], r["session"], r["round"]))

    lat = [r["latency_s"] for r in measured]
    blat = [r["latency_s"] for r in browser]
    rss_growth = state["rss_end"] - state["rss_after_warmup"]
    figures = {
        "taken": datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
        "machine": f"{platform.machine()}, {os.cpu_count()} CPU cores, load average "
        f"{os.getloadavg()[0]:.1f} at the end (other jobs share the machine)",
        "server": "one `streamlit run viz_app/app.py` process on 127.0.0.1",
        "model": f"{MODEL} (random weights), Explore view; odd sessions alpha=0, even sessions the trained alpha",
        "protocol_sessions": WS_SESSIONS,
        "browser_sessions": BROWSER_SESSIONS,
        "concurrent_sessions": WS_SESSIONS + BROWSER_SESSIONS,
        "interactions_total": len(results),
        "interactions_measured_after_warmup": len(measured) + len(browser),
        "sessions_with_every_heatmap": len({r["session"] for r in results}) - len({s for _, s, _ in missing}),
        "latency_p50_s": round(statistics.median(lat), 2),
        "latency_p95_s": round(_percentile(lat, 0.95), 2),
        "latency_max_s": round(max(lat), 2),
        "browser_redraw_p50_s": round(statistics.median(blat), 2) if blat else None,
        "browser_redraw_max_s": round(max(blat), 2) if blat else None,
        "concurrent_phase_s": round(state["phase_s"], 1),
        "throughput_interactions_per_s": round(len(results) / state["phase_s"], 2),
        "rss_start_mb": round(state["rss_start"], 1),
        "rss_after_warmup_mb": round(state["rss_after_warmup"], 1),
        "rss_end_mb": round(state["rss_end"], 1),
        "rss_peak_mb": round(max(sampler.samples or [state["rss_end"]]), 1),
        "rss_growth_after_warmup_mb": round(rss_growth, 1),
        "rss_growth_bound_mb": RSS_GROWTH_MB,
        "runs_not_finished_ok": sum(not r["finished_ok"] for r in results),
        "heatmaps_missing": len(missing),
        "heatmaps_not_matching_core": len(mismatched),
        "sampled_interactions_where_the_other_alpha_would_change_the_map": f"{alpha_matters}/{alpha_checked}",
        "exception_elements": sum(r["exceptions"] for r in results),
        "error_alerts": sum(r["errors"] for r in results),
        "page_errors": len(state["page_errors"]),
        "server_log_error_lines": [ln for ln in log_text.splitlines() if _LOG_ERROR.search(ln)][:20],
        "browser_requests_not_to_localhost": len(state["outside"]),
        "browser_websockets": sorted({re.sub(r"\?.*", "", s) for s in state["sockets"]}),
        "bad_input_message_under_load": state["bad_input_message"],
    }
    FIGURES.write_text(json.dumps(figures, indent=2, ensure_ascii=False) + "\n")
    FIGURES.with_suffix(".md").write_text(
        "<!-- written by tests/test_load.py; do not edit by hand -->\n"
        "| figure | value |\n|---|---|\n"
        + "".join(f"| {k.replace('_', ' ')} | {_cell(v)} |\n" for k, v in figures.items())
    )
    print("\n" + json.dumps(figures, indent=2, ensure_ascii=False))

    assert len(protocol) == WS_SESSIONS * ROUNDS and len(browser) == BROWSER_SESSIONS * BROWSER_ROUNDS
    assert figures["interactions_measured_after_warmup"] >= 200
    assert missing == [], missing[:10]
    assert figures["sessions_with_every_heatmap"] == WS_SESSIONS + BROWSER_SESSIONS
    assert figures["runs_not_finished_ok"] == 0
    assert mismatched == [], mismatched[:10]
    assert alpha_matters >= alpha_checked // 2 > 0  # the two groups really did see different maps
    assert figures["exception_elements"] == 0 and figures["error_alerts"] == 0
    assert state["page_errors"] == [], state["page_errors"][:5]
    assert figures["server_log_error_lines"] == [], figures["server_log_error_lines"]
    assert state["outside"] == [], state["outside"][:5]
    assert state["sockets"] and all(s.startswith(f"ws://{HOST}") for s in state["sockets"])
    assert rss_growth < RSS_GROWTH_MB, f"server RSS grew {rss_growth:.0f} MB after warm-up"
    assert len(state["bad_input_message"]) == 1 and "no words" in state["bad_input_message"][0]
