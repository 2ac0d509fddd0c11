"""50 sessions at once (issue 19): ``python -m viz_app bench load``.

Drives the app on 127.0.0.1 with many sessions submitting at the same moment and measures what they
meet. Sessions of two kinds run together:

* **protocol sessions** (default 48) speak Streamlit's own websocket protocol, the binary
  ``BackMsg``/``ForwardMsg`` protobufs the browser speaks (``streamlit.proto``): each opens the Explore
  view of the random-weight DSA model — even sessions at its trained α, odd sessions with ``alpha=0`` in
  the link — and submits unique sentences one after another by setting the text area's widget state,
  exactly as the browser does on Ctrl+Enter. A headless browser costs about a CPU second per redraw, so
  the protocol client stands in for most users and leaves the CPU to the server;
* **browser sessions** (default 2): headless Chromium pages doing the same at the same time, so the
  rendered page is checked under that load too.

The first submission of every session is warm-up; once every session has submitted it and every page
has loaded, all of them submit at once, with no pause between submissions (a worst case: everyone
presses Ctrl+Enter together). Figures: latency (send → the run's ``script_finished``; in Chromium,
Ctrl+Enter → the overview's ``data-drawn`` names the new sentence, the figures' test contract in
docs/figure-components.md, its forward map then read from the panel's data table) p50 / p95 / max; errors (failed sessions, runs not
finished, exception elements, error alerts, page errors, error lines in a server log, missing heatmaps,
requests off 127.0.0.1); heatmaps differing from the core's trace at that session's α (so α cannot leak
between sessions through the shared cached model); the servers' CPU time per interaction (utime + stime
of every app process, from ``/proc/<pid>/stat``, over the measured phase); and their resident memory
growth from the end of warm-up to the end.

Setups, measured one after another in the same run: the app as one process (``--processes 1``),
``N`` processes behind nginx (``--processes 1,2``: ``viz_app/serve.py``, ``deploy/nginx.conf``; skipped
with a reason without nginx), and the same load against an earlier commit of the app
(``--baseline-rev``: by default the commit before Streamlit's ``gc.collect(2)`` after every run was turned
off, named in the report's header), run from ``git archive`` of that commit with this checkout's Python.
Targets (issue 19): p95 ≤ 2 s, 0 errors, 0 heatmaps differing from the core, growth ≤ 150 MB.
``tests/test_load.py`` runs the same driver and asserts the correctness parts.
"""

from __future__ import annotations

import argparse
import asyncio
import base64
import json
import os
import re
import shutil
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from . import render
from .common import BASELINE_LABEL, REPO_ROOT, Table, busy, machine_info

HOST = "127.0.0.1"
MODEL = "dsa"
WAIT_S = 180  # one page load, one run or one redraw (the machine may be shared)
#: The commit before ``runner.postScriptGC = false`` (bdbe644): the app as issue 19 measured it.
BASELINE_REV = "c2680bf"
#: Issue 19, part 4.
TARGETS = {"p95_s": 2.0, "errors": 0, "differing": 0, "growth_mb": 150.0}
README_START, README_END = "<!-- load-numbers:start -->", "<!-- load-numbers:end -->"
LOG_ERROR = re.compile(r"Traceback|Exception|Error|Uncaught|CRITICAL")
ROUTE_COOKIE = "disan_route"  # deploy/nginx.conf's sticky-session cookie


@dataclass
class Load:
    """How many sessions, how many submissions each, and the phase's deadline."""

    protocol_sessions: int = 48
    browser_sessions: int = 2
    rounds: int = 6  # per protocol session, the first of them warm-up
    browser_rounds: int = 4
    deadline_s: float = 600.0


@dataclass
class Target:
    """What one setup serves the load from: the entry URL, the app processes, their logs and ports."""

    name: str
    url: str
    pids: list[int]
    logs: list[Path]
    ports: list[int] = field(default_factory=list)  # the app processes' own ports (for sessions per process)
    proxy_pid: int | None = None


# ------------------------------------------------------------------ process figures
def decode(array) -> np.ndarray:
    """Plotly JSON arrays are lists or base64 typed arrays ({dtype, bdata, shape})."""
    if isinstance(array, dict) and "bdata" in array:
        out = np.frombuffer(base64.b64decode(array["bdata"]), dtype=np.dtype(array["dtype"]))
        shape = array.get("shape")
        return out.reshape([int(s) for s in str(shape).split(",")]) if shape else out
    return np.asarray(array, dtype=float)


def rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    raise RuntimeError(f"/proc/{pid}/status has no VmRSS line")


def cpu_s(pid: int) -> float:
    """User + system CPU seconds of ``pid`` so far (``/proc/<pid>/stat`` fields 14 and 15, in clock ticks)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def connections_to(port: int) -> int:
    """Established IPv4 TCP connections whose local port is ``port`` (``/proc/net/tcp``): here, the
    websockets nginx holds open to one app process."""
    count = 0
    for line in Path("/proc/net/tcp").read_text().splitlines()[1:]:
        local, _, state = line.split()[1:4]
        count += state == "01" and int(local.split(":")[1], 16) == port
    return count


class Sampler(threading.Thread):
    """Samples the summed RSS of ``pids`` every half second until stopped (for the peak)."""

    def __init__(self, pids: list[int]):
        super().__init__(daemon=True)
        self.pids, self.samples, self.stop = pids, [], threading.Event()

    def run(self):
        while not self.stop.is_set():
            try:
                self.samples.append(sum(rss_mb(p) for p in self.pids))
            except (OSError, RuntimeError):
                return
            self.stop.wait(0.5)


# ------------------------------------------------------------------ what each session sends
def sentence(session: str, k: int) -> tuple[str, str]:
    word = f"{session}r{k}x"
    return word, f"The keeper {word} waved at passing ship number {k} ."


def alpha_of(index: int) -> float | None:
    return 0.0 if index % 2 else None


def query(index: int) -> str:
    return f"view=explore&model={MODEL}" + ("&alpha=0" if alpha_of(index) == 0.0 else "")


# ------------------------------------------------------------------ protocol sessions
class ProtocolSession:
    """One Streamlit session over the websocket, speaking the browser's protobuf messages."""

    def __init__(self, url: str, index: int):
        self.url, self.index, self.ws, self.text_area_id = url, index, None, None
        self.views: dict = {}  # trace views the app sent this session, by id (summarise_run)

    async def __aenter__(self):
        from websockets.asyncio.client import connect

        # The route cookie stands in for the one nginx gives a browser; a fixed value per session spreads
        # the sessions over the processes behind deploy/nginx.conf (a single process ignores it).
        self.ws = await connect(self.url.replace("http://", "ws://", 1) + "/_stcore/stream",
                                subprotocols=["streamlit"], max_size=None, open_timeout=WAIT_S,
                                additional_headers={"Cookie": f"{ROUTE_COOKIE}=session{self.index}"})
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


def summarise_run(elements, views: dict | None = None) -> dict:
    """What a user would see: the overview heatmap, exceptions, error alerts. The overview is drawn by the page
    from the trace view the app sends once per session (``chart.draw_figure``): its forward panel is the
    premise's forward attention, read here from the packed view (``site_view.packed_records_view``); ``views``
    keeps the session's views by id across runs."""
    from streamlit.proto.Alert_pb2 import Alert

    from viz_app.shell.chart import unwire

    views = {} if views is None else views
    out = {"z": None, "ticks": None, "exceptions": 0, "errors": 0}
    for el in elements:
        kind = el.WhichOneof("type")
        if kind == "exception":
            out["exceptions"] += 1
        elif kind == "alert" and el.alert.format == Alert.ERROR:
            out["errors"] += 1
        elif kind == "bidi_component" and el.bidi_component.component_name.startswith("viz_plotly_chart"):
            data = unwire(json.loads(el.bidi_component.json))
            for view_id, v in (data.get("views") or {}).items():
                views[view_id] = (json.loads(v["view"]), base64.b64decode(v["arrays"]))
            if el.bidi_component.id.endswith("chart_overview") and data["view_ids"][0] in views:
                out["z"], out["ticks"] = forward_attention(*views[data["view_ids"][0]])
    return out


def forward_attention(view: dict, arrays: bytes) -> tuple[list, list]:
    """(the premise's forward attention as T rows, its tokens) of a packed trace view."""
    sent = view["premise"]
    _, offset, count = sent["fw"]["attention"]["$a"]
    z = np.frombuffer(arrays, "<f4", count, offset).reshape(sent["T"], sent["T"])
    return z.astype(float).tolist(), list(sent["tokens"])


class Phase:
    """Shared state of one concurrent phase: results, failures, and the start line every session waits at."""

    def __init__(self, load: Load, target: Target):
        self.load, self.target = load, target
        self.results: list[dict] = []
        self.failures: list[str] = []
        self.outside: list[str] = []
        self.sockets: list[str] = []
        self.page_errors: list[str] = []
        self.bad_input_message: list[str] = []
        self.start = asyncio.Event()
        self.arrived = 0
        self.at_start: dict = {}

    def arrive(self) -> None:
        """A session is warm (or has failed); the last one to arrive takes the start figures and opens the line."""
        self.arrived += 1
        if self.arrived == self.load.protocol_sessions + self.load.browser_sessions:
            self.at_start = {
                "t": time.monotonic(),
                "rss_mb": sum(rss_mb(p) for p in self.target.pids),
                "cpu_s": sum(cpu_s(p) for p in self.target.pids),
                "sessions_per_process": [connections_to(p) for p in self.target.ports],
            }
            self.start.set()


async def protocol_session(phase: Phase, index: int) -> None:
    from streamlit.proto.Alert_pb2 import Alert
    from streamlit.proto.ForwardMsg_pb2 import ForwardMsg

    arrived = False
    try:
        async with ProtocolSession(phase.target.url, index) as session:
            await session.rerun()  # first page load
            for k in range(phase.load.rounds):
                if k == 1:  # everyone has warmed up before the measured rounds start
                    phase.arrive()
                    arrived = True
                    await asyncio.wait_for(phase.start.wait(), WAIT_S)
                word, text = sentence(f"w{index}", k)
                start = time.monotonic()
                elements, status = await session.rerun(text)
                seen = summarise_run(elements, session.views)
                phase.results.append({"client": "protocol", "session": index, "round": k, "text": text,
                                      "alpha": alpha_of(index), "latency_s": time.monotonic() - start,
                                      "finished_ok": status == ForwardMsg.FINISHED_SUCCESSFULLY, **seen})
            if index == 0:  # a bad sentence under load still gets its one clear message
                elements, _ = await session.rerun("\u200b\u200b")
                phase.bad_input_message += [re.sub(r"\\(.)", r"\1", e.alert.body) for e in elements
                                            if e.WhichOneof("type") == "alert" and e.alert.format == Alert.ERROR]
    except Exception as err:  # noqa: BLE001 — one failed session is a counted error, not the end of the run
        phase.failures.append(f"protocol session {index}: {type(err).__name__}: {err}")
    finally:
        if not arrived:
            phase.arrive()


# ------------------------------------------------------------------ browser sessions
#: The overview chart of Explore: its figure root of the test contract (docs/figure-components.md).
_FIGURE = "document.querySelector('.st-key-chart_overview [data-figure^=\"figure:\"]')"
#: Where a page shows its first drawn overview: the contract's figure, or a baseline commit's Plotly chart.
_DRAWN = f"() => Boolean(({_FIGURE}) && ({_FIGURE}).dataset.drawn) || !!document.querySelector('.js-plotly-plot')"
#: The overview names ``word`` among its tokens (its figure's data-drawn; a baseline's Plotly chart: its text).
_SHOWS = f"""(w) => {{ const f = {_FIGURE};
  if (f) {{ const d = f.dataset.drawn || ''; return !d.endsWith(':error') && JSON.parse(d.slice(d.indexOf(':') + 1)).includes(w); }}
  return Array.from(document.querySelectorAll('.js-plotly-plot')).some(e => e.textContent.includes(w)); }}"""
#: The forward map's data table (the panel's "Data as a table", which the reader opens and which then follows
#: every update) is open and lists the tokens of the figure's data-drawn; true on a baseline's Plotly page.
_TABLE_OPEN = f"""() => {{ const f = {_FIGURE};
  if (!f) return true;
  const p = f.querySelector('[data-figure^="heatmap:"]'), d = p && p.querySelector('details');
  if (!d) return false;
  if (!d.open) d.open = true;
  const t = d.querySelector('table'), drawn = f.dataset.drawn;
  if (!t || !drawn || drawn.endsWith(':error')) return false;
  const rows = [...t.tBodies[0].rows].map(r => r.cells[0].textContent.replace(/^#\\d+ /, ''));
  return JSON.stringify(rows) === drawn.slice(drawn.indexOf(':') + 1);
}}"""
#: The overview's forward map as the page shows it: the first heatmap panel's data table (six significant
#: digits; a masked cell null) and its column tokens. A baseline commit's Plotly chart: its figure's first
#: heatmap (``gd.data``, ``gd.layout``; that commit's chart.js kept a newer figure in ``__figure``).
_OVERVIEW = f"""(word) => {{
  const f = {_FIGURE};
  if (f) {{
    const t = f.querySelector('[data-figure^="heatmap:"] details table');
    const num = s => s.includes('masked') ? null : Number(s.replace('\u2212', '-').replace('\u221e', 'Infinity'));
    return {{z: [...t.tBodies[0].rows].map(r => [...r.cells].slice(1).map(c => num(c.textContent))),
             ticks: [...t.tHead.rows[0].cells].slice(1).map(c => c.textContent.replace(/^#\\d+ /, ''))}};
  }}
  for (const gd of document.querySelectorAll('.js-plotly-plot')) {{
    const fig = gd.__figure || gd;
    const heat = (fig.data || []).filter(t => t.type === 'heatmap' && t.hoverinfo !== 'skip');
    if (heat.length === 2 && gd.textContent.includes(word)) {{
      const plain = (x) => x == null ? null : ArrayBuffer.isView(x) ? Array.from(x) : Array.isArray(x) ? x.map(plain) : x;
      return {{z: plain(heat[0].z), ticks: (fig.layout.xaxis.ticktext || []).map(String)}};
    }}
  }}
  return null;
}}"""


async def browser_sessions(phase: Phase) -> None:
    from playwright.async_api import async_playwright

    load = phase.load

    async def only_local(route):
        target = route.request.url
        if target.startswith((f"http://{HOST}", f"ws://{HOST}", "data:", "blob:")):
            await route.continue_()
        else:
            phase.outside.append(target)
            await route.abort()

    async def one(browser, b: int) -> None:
        index = load.protocol_sessions + b
        arrived = False
        try:
            context = await browser.new_context(viewport={"width": 1280, "height": 900})
            await context.route("**/*", only_local)
            page = await context.new_page()
            page.set_default_timeout(WAIT_S * 1000)
            page.on("pageerror", lambda err: phase.page_errors.append(f"browser {b}: {err}"))
            page.on("websocket", lambda ws: phase.sockets.append(ws.url))
            await page.goto(f"{phase.target.url}/?{query(index)}")
            await page.wait_for_function(_DRAWN)
            phase.arrive()
            arrived = True
            await asyncio.wait_for(phase.start.wait(), WAIT_S)  # run alongside the measured protocol rounds
            box = page.locator('[data-testid="stSidebar"] [data-testid="stTextArea"] textarea')
            for k in range(load.browser_rounds):
                word, text = sentence(f"b{b}", k)
                await box.fill(text)
                start = time.monotonic()
                await box.press("Control+Enter")
                await page.wait_for_function(_SHOWS, arg=word)
                latency = time.monotonic() - start
                await page.wait_for_function(_TABLE_OPEN)
                seen = await page.evaluate(_OVERVIEW, word)
                z = seen and (decode(seen["z"]).tolist() if isinstance(seen["z"], dict) else seen["z"])
                phase.results.append({
                    "client": "browser", "session": index, "round": k, "text": text, "alpha": alpha_of(index),
                    "latency_s": latency, "finished_ok": True, "z": z, "ticks": seen and seen["ticks"],
                    "exceptions": await page.locator('[data-testid="stException"]').count(),
                    "errors": await page.locator('[data-testid="stAlertContentError"]').count(),
                })
            await context.close()
        except Exception as err:  # noqa: BLE001 — counted as an error of the run
            phase.failures.append(f"browser session {b}: {type(err).__name__}: {err}")
        finally:
            if not arrived:
                phase.arrive()

    if not load.browser_sessions:
        return
    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    if chromium is None:
        raise RuntimeError("chromium is not installed (apt-get install chromium), or run with --browsers 0")
    async with async_playwright() as p:
        browser = await p.chromium.launch(
            executable_path=chromium,
            args=["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking"],
        )
        try:
            await asyncio.gather(*(one(browser, b) for b in range(load.browser_sessions)))
        finally:
            await browser.close()


async def _drive(phase: Phase) -> dict:
    await asyncio.gather(browser_sessions(phase),
                         *(protocol_session(phase, i) for i in range(phase.load.protocol_sessions)))
    return {"t": time.monotonic(), "rss_mb": sum(rss_mb(p) for p in phase.target.pids),
            "cpu_s": sum(cpu_s(p) for p in phase.target.pids)}


def measure(target: Target, load: Load) -> dict:
    """Run the concurrent phase against ``target``; return the raw results (see :func:`evaluate`)."""
    started = time.monotonic()
    rss_start = sum(rss_mb(p) for p in target.pids)
    phase = Phase(load, target)
    sampler = Sampler(target.pids)
    sampler.start()
    try:
        end = asyncio.run(asyncio.wait_for(_drive(phase), load.deadline_s))
        time.sleep(2)  # let the servers log the sessions' shutdown
    finally:
        sampler.stop.set()
        sampler.join(5)
    alive = [p for p in target.pids if Path(f"/proc/{p}").exists()]
    log_lines = [ln for path in target.logs for ln in path.read_text(errors="replace").splitlines()
                 if LOG_ERROR.search(ln)]
    return {"target": target.name, "load": load.__dict__, "results": phase.results, "failures": phase.failures,
            "outside": phase.outside, "sockets": phase.sockets, "page_errors": phase.page_errors,
            "bad_input_message": phase.bad_input_message, "rss_start_mb": rss_start, "start": phase.at_start,
            "end": end, "whole_s": time.monotonic() - started, "rss_peak_mb": max(sampler.samples or [end["rss_mb"]]),
            "servers_alive": len(alive), "servers": len(target.pids), "log_error_lines": log_lines[:20],
            "processes": len(target.pids)}


def rounded(value, digits: int = 3):
    """``value`` with every float rounded, for the JSON files."""
    if isinstance(value, float):
        return round(value, digits)
    if isinstance(value, dict):
        return {k: rounded(v, digits) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [rounded(v, digits) for v in value]
    return value


def _percentile(values: list[float], q: float) -> float | None:
    return float(np.percentile(values, q)) if values else None


def evaluate(raw: dict) -> dict:
    """Check every heatmap against the core's trace at its session's α and turn the raw results into figures."""
    import disan

    results = raw["results"]
    load = raw["load"]
    measured = [r for r in results if r["client"] == "protocol" and r["round"] > 0]
    browser = [r for r in results if r["client"] == "browser"]
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
        # A cell the figure draws as masked (NaN here) must be one the core gives probability 0 (the mask's −∞
        # before the softmax); every other cell its value (the table's six significant digits).
        got = np.where(np.isnan(got), 0.0, got) if got.shape == want.shape and np.all(want[np.isnan(got)] == 0) else got
        if got.shape != want.shape or not np.allclose(got, want, atol=1e-5) or len(r["ticks"]) != len(tr.tokens):
            mismatched.append((r["client"], r["session"], r["round"]))

    start, end = raw["start"], raw["end"]
    measured_phase = end["t"] - start["t"] if start else None
    # Every submission after the start line: the measured protocol rounds, the browsers' and the bad sentence.
    after_start = len(measured) + len(browser) + bool(raw["bad_input_message"])
    lat = [r["latency_s"] for r in measured]
    blat = [r["latency_s"] for r in browser]
    errors = {
        "failed_sessions": len(raw["failures"]),
        "servers_died": raw["servers"] - raw["servers_alive"],
        "runs_not_finished_ok": sum(not r["finished_ok"] for r in results),
        "exception_elements": sum(r["exceptions"] for r in results),
        "error_alerts": sum(r["errors"] for r in results),
        "heatmaps_missing": len(missing),
        "page_errors": len(raw["page_errors"]),
        "server_log_error_lines": len(raw["log_error_lines"]),
        "requests_off_127_0_0_1": len(raw["outside"]) + sum(not s.startswith(f"ws://{HOST}") for s in raw["sockets"]),
    }
    expected = load["protocol_sessions"] * load["rounds"] + load["browser_sessions"] * load["browser_rounds"]
    errors["interactions_lost"] = max(0, expected - len(results))
    return {
        "setup": raw["target"],
        "processes": raw["processes"],
        "protocol_sessions": load["protocol_sessions"],
        "browser_sessions": load["browser_sessions"],
        "interactions_total": len(results),
        "interactions_after_warmup": len(measured) + len(browser),
        "sessions_per_process": start.get("sessions_per_process") if start else None,
        "latency_p50_s": _percentile(lat, 50),
        "latency_p95_s": _percentile(lat, 95),
        "latency_max_s": max(lat) if lat else None,
        "browser_p50_s": _percentile(blat, 50),
        "browser_p95_s": _percentile(blat, 95),
        "browser_max_s": max(blat) if blat else None,
        "measured_phase_s": measured_phase,
        "throughput_per_s": after_start / measured_phase if measured_phase else None,
        "server_cpu_per_interaction_ms": (end["cpu_s"] - start["cpu_s"]) / after_start * 1e3
        if start and after_start else None,
        "rss_start_mb": raw["rss_start_mb"],
        "rss_after_warmup_mb": start.get("rss_mb") if start else None,
        "rss_end_mb": end["rss_mb"],
        "rss_peak_mb": raw["rss_peak_mb"],
        "rss_growth_mb": end["rss_mb"] - start["rss_mb"] if start else None,
        "errors": sum(errors.values()),
        "error_counts": errors,
        "failures": raw["failures"][:10],
        "server_log_error_lines": raw["log_error_lines"],
        "page_error_messages": raw["page_errors"][:5],
        "heatmaps_differing_from_core": len(mismatched),
        "differing": mismatched[:10],
        "missing": missing[:10],
        "alpha_sample_where_the_other_alpha_changes_the_map": [alpha_matters, alpha_checked],
        "browser_websockets": sorted({re.sub(r"\?.*", "", s) for s in raw["sockets"]}),
        "bad_input_message_under_load": raw["bad_input_message"],
        "whole_run_s": raw["whole_s"],
    }


# ------------------------------------------------------------------ setups
@contextmanager
def one_process(root: Path = REPO_ROOT, name: str = "1 process") -> Iterator[Target]:
    """``streamlit run viz_app/app.py`` from ``root`` (its .streamlit/config.toml applies)."""
    from .server import free_port, streamlit_server

    folder = Path(tempfile.mkdtemp(prefix="disan-load-"))
    try:
        port = free_port()
        log = folder / "server.log"
        with streamlit_server(port, log_path=log, root=root) as (url, proc):
            yield Target(name, url, [proc.pid], [log])
    finally:
        shutil.rmtree(folder, ignore_errors=True)


@contextmanager
def behind_nginx(processes: int) -> Iterator[Target]:
    """``processes`` app processes behind nginx (``viz_app/serve.py``), all on 127.0.0.1 free ports."""
    from viz_app.serve import cluster

    from .server import free_port

    env = {"PYTHONPATH": str(REPO_ROOT) + os.pathsep + os.environ.get("PYTHONPATH", "")}
    ports = [free_port() for _ in range(processes)]
    with cluster(processes, free_port(), backend_ports=ports, env=env,
                 streamlit_options=["--server.fileWatcherType", "none"]) as served:
        yield Target(f"{processes} processes behind nginx", served.url, [p.pid for p in served.backends.values()],
                     [served.folder / f"app-{p}.log" for p in ports] + [served.folder / "nginx.log"], ports,
                     served.proxy.pid)


# ------------------------------------------------------------------ report
def _s(value: float | None) -> str:
    return "–" if value is None else f"{value:,.2f}"


def table(figures: list[dict]) -> Table:
    t = Table("50 sessions at once: every session submits together (Explore, dsa random weights, T = 10)",
              ["setup", "sessions (protocol + browser)", "sessions per process", "interactions after warm-up",
               "p50 s", "p95 s", "max s", "browser p50 / p95 s", "interactions/s", "server CPU per interaction ms",
               "RSS after warm-up → end MB", "errors", "heatmaps differing from the core"])
    for f in figures:
        t.add(f["setup"], f"{f['protocol_sessions']} + {f['browser_sessions']}",
              " / ".join(map(str, f["sessions_per_process"] or [])) or "all",
              f["interactions_after_warmup"], _s(f["latency_p50_s"]), _s(f["latency_p95_s"]), _s(f["latency_max_s"]),
              f"{_s(f['browser_p50_s'])} / {_s(f['browser_p95_s'])}", _s(f["throughput_per_s"]),
              "–" if f["server_cpu_per_interaction_ms"] is None else f"{f['server_cpu_per_interaction_ms']:.0f}",
              f"{_s(f['rss_after_warmup_mb'])} → {_s(f['rss_end_mb'])}", f["errors"],
              f["heatmaps_differing_from_core"])
    t.notes += [
        "p50 / p95 / max: a protocol session's submission until its run's script_finished, over every submission "
        "after warm-up, while every session submits with no pause; browser: Ctrl+Enter until the heatmap shows "
        "the new sentence in headless Chromium, at the same time",
        "server CPU per interaction: utime + stime of every app process over the measured phase (/proc/<pid>/stat) "
        "÷ the interactions in it; RSS summed over the app processes; sessions per process: the websockets nginx "
        "held open to each process (/proc/net/tcp)",
        "errors: failed sessions, runs not finished, exception elements, error alerts, missing heatmaps, page "
        "errors, error lines in a server log, requests off 127.0.0.1",
    ]
    return t


def verdicts(figures: list[dict]) -> Table:
    t = Table("Targets (issue 19, part 4)", ["target", "measured", "verdict"])

    def row(name: str, value: float | None, limit: float, shown: str, unit: str = "") -> None:
        if value is None:
            t.add(name, "–", "not measured")
        elif value <= limit:
            t.add(name, shown, "met")
        else:
            ratio = f" ({value / limit:.1f}× the limit)" if limit else ""
            digits = 2 if unit.strip() in ("s", "MB") else 0  # the rest are counts
            t.add(name, shown, f"missed by {value - limit:,.{digits}f}{unit}{ratio}")

    for f in figures:
        who = f"{f['setup']}, {f['protocol_sessions'] + f['browser_sessions']} sessions"
        p95 = f["latency_p95_s"]
        row(f"{who}: p95 ≤ {TARGETS['p95_s']:g} s", p95, TARGETS["p95_s"], f"p95 {_s(p95)} s", " s")
        if f["browser_p95_s"] is not None:
            row(f"{who}: in Chromium, p95 ≤ {TARGETS['p95_s']:g} s", f["browser_p95_s"], TARGETS["p95_s"],
                f"p95 {_s(f['browser_p95_s'])} s", " s")
        kinds = ", ".join(f"{k.replace('_', ' ')} {v}" for k, v in f["error_counts"].items() if v)
        row(f"{who}: 0 errors", f["errors"], 0, f"{f['errors']}" + (f" ({kinds})" if kinds else ""), " errors")
        row(f"{who}: 0 heatmaps differing from the core", f["heatmaps_differing_from_core"], 0,
            f"{f['heatmaps_differing_from_core']} of {f['interactions_total'] - f['error_counts']['heatmaps_missing']}",
            " heatmaps")
        g = f["rss_growth_mb"]
        row(f"{who}: memory growth ≤ {TARGETS['growth_mb']:g} MB", g, TARGETS["growth_mb"],
            "–" if g is None else f"{g:+.1f} MB", " MB")
    return t


def machine_line(info: dict) -> str:
    load = info.get("load_average_at_start")
    end = info.get("load_average_at_end")
    jobs = info.get("background_jobs_at_start") or []
    return (f"{info['logical_cpus']} logical CPUs ({info['cpu']}); load average {load[0]:.1f} at the start, "
            f"{end[0]:.1f} at the end" + (f", {len(jobs)} low-priority (nice ≥ 10) jobs sharing the cores" if jobs else "")
            + (" (the CPU was busy: figures are slower than on an idle machine)" if busy(info) else ""))


def parse_args(argv: list[str]) -> argparse.Namespace:
    p = argparse.ArgumentParser(prog="python -m viz_app bench load", description=__doc__.splitlines()[0])
    p.add_argument("--sessions", type=int, default=48, help="protocol sessions (default 48)")
    p.add_argument("--browsers", type=int, default=2, help="headless Chromium sessions (default 2)")
    p.add_argument("--rounds", type=int, default=6, help="submissions per protocol session, the first warm-up (default 6)")
    p.add_argument("--browser-rounds", type=int, default=4, help="submissions per browser after warm-up (default 4)")
    p.add_argument("--processes", default="1,2",
                   help="setups, comma-separated: 1 = one app process; N > 1 = N processes behind nginx (default 1,2)")
    p.add_argument("--baseline-rev", default=BASELINE_REV,
                   help=f"also run the load against this commit's app, one process (default {BASELINE_REV})")
    p.add_argument("--no-baseline", action="store_true", help="skip the baseline commit")
    p.add_argument("--deadline", type=float, default=600.0, help="seconds for one setup's concurrent phase")
    p.add_argument("--quick", action="store_true", help="smoke run: 6 sessions, 3 rounds, 1 browser, 2 browser rounds")
    p.add_argument("--markdown", metavar="PATH", help="write the report (e.g. docs/load-benchmark.md)")
    p.add_argument("--json", metavar="PATH", help="write every figure as JSON")
    p.add_argument("--docs", "--readme", dest="docs", metavar="PATH",
                   help="write the summary between the load-numbers markers of PATH "
                        "(docs/benchmarks-and-reliability.md)")
    args = p.parse_args(argv)
    if args.quick:
        args.sessions, args.rounds, args.browsers, args.browser_rounds = 6, 3, 1, 2
    try:
        args.processes = [int(s) for s in args.processes.split(",") if s.strip()]
    except ValueError:
        p.error(f"--processes {args.processes!r}: give process counts, comma-separated, e.g. 1,2")
    if args.rounds < 2:
        p.error(f"--rounds {args.rounds}: give at least 2 (the first is warm-up)")
    return args


def main(argv: list[str] | None = None) -> int:
    from .report import command_line
    from .server import checkout, unavailable

    args = parse_args(list(argv or []))
    why = unavailable() if args.browsers else None
    if why:
        raise SystemExit(f"error: {why}; or run with --browsers 0")
    load = Load(args.sessions, args.browsers, args.rounds, args.browser_rounds, args.deadline)
    info = machine_info()
    print(f"[load] {args.sessions} protocol + {args.browsers} browser sessions; load average "
          f"{info['load_average_at_start']}", flush=True)
    setups = []
    if not args.no_baseline:
        setups.append(("baseline", args.baseline_rev))
    setups += [("processes", n) for n in args.processes]
    figures, skipped = [], []
    started = time.time()
    for kind, value in setups:
        if kind == "baseline":
            with checkout(value) as root, one_process(root, f"{BASELINE_LABEL}, 1 process") as target:
                print(f"[load] {target.name} …", flush=True)
                raw = measure(target, load)
        elif value == 1:
            with one_process() as target:
                print(f"[load] {target.name} …", flush=True)
                raw = measure(target, load)
        elif shutil.which("nginx") is None:
            skipped.append(f"{value} processes behind nginx: not measured, nginx is not installed "
                           "(apt-get install nginx-light)")
            print(f"[load] {skipped[-1]}", flush=True)
            continue
        else:
            with behind_nginx(value) as target:
                print(f"[load] {target.name} …", flush=True)
                raw = measure(target, load)
        figures.append(evaluate(raw))
        f = figures[-1]
        print(f"[load] {f['setup']}: p50 {_s(f['latency_p50_s'])} s, p95 {_s(f['latency_p95_s'])} s, "
              f"{_s(f['throughput_per_s'])}/s, {f['errors']} errors, {f['heatmaps_differing_from_core']} differing, "
              f"growth {_s(f['rss_growth_mb'])} MB", flush=True)
    info["load_average_at_end"] = [round(x, 2) for x in os.getloadavg()]
    out = [table(figures), verdicts(figures)]
    out[0].notes += skipped
    for t in out:
        print(t.to_text(), "\n")
    stored = ["load", *(argv or [])]
    # how these figures were measured, kept with them: a later change of the method rewrites no stored page
    result = {"machine": info, "command": command_line(stored), "argv": stored, "method": method_text(),
              **render.run_fields(started, None if args.no_baseline else args.baseline_rev),
              "figures": rounded(figures), "tables": [t.to_dict() for t in out]}
    # The page and the block are written from the JSON as stored, as `bench render` writes them later.
    render.publish(result, render.Outputs(args.json, args.markdown, args.docs))
    return 0


def method_text() -> str:
    """How this code measures (the module docstring after its first paragraph), as the page states it."""
    return (__doc__ or "").split("\n\n", 1)[1].strip()


def texts(result: dict, out) -> tuple[str, list[tuple[str, str, str, str]]]:
    """docs/load-benchmark.md and the load-numbers block from the stored results (``render.stored``)."""
    from .report import command_line

    cmd = command_line(result["argv"])
    measured = f"Measured by `{cmd}` on {machine_line(result['machine'])}, {render.run_date(result)}."
    baseline = [render.baseline_line(result["baseline_rev"]), ""] if render.has_baseline(result) else []
    tables = [Table(**t) for t in result["tables"]]
    body = ["# Load benchmark: 50 sessions at once", "",
            "Written by the benchmark command itself; re-run it instead of editing:", "", "```", cmd, "```", "",
            *render.header(result, out), measured, "", result.get("method") or method_text(), ""]
    body += [t.to_markdown() + "\n" for t in tables]
    took = result.get("elapsed_s")
    body.append("Run time not recorded in the stored results." if took is None else f"Took {took / 60:.1f} min.")
    bold = [t.to_markdown().replace("### ", "**", 1).replace("\n", "**\n", 1) + "\n" for t in tables]
    block = "\n".join([measured, "", *baseline, *bold])
    return "\n".join(body) + "\n", [(README_START, README_END, block, "the load numbers")]


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
