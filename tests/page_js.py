"""The page's figure definitions (viz_app/browser's ES modules: figures.js, sections.js, trace_view.js's decode) run
in Node.

``report_page(html)`` builds, in Node, the page a report file draws: its packed trace view decoded by
``TraceView.decode`` (the one decoder, docs/trace-view.md) and handed to ``Sections.page``, exactly as ``Report.boot``
does in the browser, so tests can read a report's sections, figures and bindings without a browser.
``node_jobs`` runs any ``Figures`` / ``Sections`` function on JSON arguments.
"""

from __future__ import annotations

import base64
import gzip
import json
import re
import shutil
import subprocess
from pathlib import Path

import pytest

BROWSER = Path(__file__).resolve().parents[1] / "viz_app" / "browser"
NODE = shutil.which("node")
#: The head of every Node script of the tests (run by ``node_module``): the page's ES modules imported under the
#: names the bundles give them (``Disan.Figures`` …: entry_site.js), with view_figures.js's figures defined;
#: ``window`` is the global object (report.js reads it only when drawing). argv[1] is the modules' folder.
PRELUDE = r"""
import fs from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";
globalThis.window = globalThis;
const load = (name) => import(pathToFileURL(path.join(process.argv[1], name)).href);
const [Figures, Pair, PairView, Recompute, Report, Sections, Tokenize, TraceView] = await Promise.all(
  ["figures.js", "pair.js", "pair_view.js", "recompute.js", "report.js", "sections.js",
   "tokenize.js", "trace_view.js"].map(load));
await load("view_figures.js");
"""


def node_module(body: str, *args: str, stdin: str = "", timeout: float = 300) -> subprocess.CompletedProcess:
    """Run ``body`` after ``PRELUDE`` as an ES module in Node (argv[1]: ``BROWSER``, then ``args``)."""
    if NODE is None:
        pytest.skip("node is not installed (needed to run the page's modules)")
    return subprocess.run([NODE, "--input-type=module", "-e", PRELUDE + body, str(BROWSER), *args], input=stdin,
                          capture_output=True, text=True, timeout=timeout)


#: Answers each job of the page's figure definitions; typed arrays come back as lists.
RUNNER = r"""
const input = JSON.parse(fs.readFileSync(0, "utf8"));
Figures.configure(input.context);
const run = (job) => {
  try {
    if (job.fn === "report") {
      const bytes = Uint8Array.from(Buffer.from(job.args[1], "base64"));
      const tv = TraceView.decode(job.args[0], bytes);
      const p = Sections.page(tv, job.args[2]);
      delete p.sections;
      p.view = tv;
      return p;
    }
    if (job.fn === "figure") {
      const [views, id, params, theme] = job.args;
      const tvs = views.map(([view, arrays]) => TraceView.decode(view, Uint8Array.from(Buffer.from(arrays, "base64"))));
      const out = Sections.draw(tvs, id, params, theme);
      if (job.live && out.binding) {  // drawn at the live control's value, as chart.js draws a bound chart
        Recompute.render(out.binding, out.figure, job.live.values);
      }
      return out;
    }
    if (job.fn === "section") {
      const [views, id, params] = job.args;
      const tvs = views.map(([view, arrays]) => TraceView.decode(view, Uint8Array.from(Buffer.from(arrays, "base64"))));
      return { html: Sections.sectionBody(tvs, id, params) };
    }
    if (job.fn === "remask") {  // recompute.js's remask of an unpacked view: each sentence's block attention
      const [[view, arrays], kind, extra] = job.args;  // extra: {side: {dir: fields}} the packed view lacks
      const unpacked = TraceView.decode(view, Uint8Array.from(Buffer.from(arrays, "base64")));
      for (const [side, dirs] of Object.entries(extra || {})) {
        for (const [dir, fields] of Object.entries(dirs)) Object.assign(unpacked[side][dir], fields);
      }
      const tv = Recompute.remask(unpacked, kind);
      if (!tv) return null;
      const blocks = s => s && { fw: s.fw.attention, bw: s.bw.attention, masks: [s.fw.mask, s.bw.mask] };
      return { premise: blocks(tv.premise), hypothesis: blocks(tv.hypothesis) };
    }
    if (job.fn === "perFeature") {  // DiSAN's per-feature P of an unpacked view given Eq. 15's parts (extra, as
      const [[view, arrays], extra, figures] = job.args;  // remask's), and the figures `figures` drawn from it
      const tv = TraceView.decode(view, Uint8Array.from(Buffer.from(arrays, "base64")));
      for (const [side, dirs] of Object.entries(extra)) {
        for (const [dir, fields] of Object.entries(dirs)) Object.assign(tv[side][dir], fields);
      }
      const probs = s => s && { fw: Recompute.perFeature(s.fw, s.T), bw: Recompute.perFeature(s.bw, s.T) };
      const drawn = {};
      for (const [id, params] of figures || []) drawn[id] = Sections.draw([tv], id, params, "normal").figure;
      return { premise: probs(tv.premise), hypothesis: probs(tv.hypothesis), figures: drawn };
    }
    if (job.fn === "page") { const p = Sections.page(job.args[0], job.args[1]); delete p.sections; return p; }
    if (job.fn === "pair") {  // the Minimal pair's page of two packed views, as chart.js's role "pair" builds it
      const [views, opts] = job.args;
      const [a, b] = views.map(([view, arrays]) => TraceView.decode(view, Uint8Array.from(Buffer.from(arrays, "base64"))));
      const p = PairView.page(a, b, opts);
      return { figures: p.data.figures, body: p.body, change: p.change, aligned: p.aligned };
    }
    const [lib, name] = job.fn.split(".");
    return (lib === "F" ? Figures : Sections)[name](...job.args);
  } catch (e) { return { error: String(e && e.message || e) }; }
};
process.stdout.write(JSON.stringify(input.jobs.map(run), (k, v) => ArrayBuffer.isView(v) ? Array.from(v) : v));
"""


def node_jobs(jobs: list[dict], context: dict | None = None) -> list:
    """Each job ``{fn, args}`` run in Node: ``"F.name"`` / ``"S.name"`` call Figures / Sections,
    ``"page"`` builds Sections.page, ``"report"`` unpacks a report's view first (``report_page``)."""
    if NODE is None:
        pytest.skip("node is not installed (needed to run the page's scripts)")
    if context is None:
        from viz_app.draw.site_view import figure_context

        context = figure_context()
    payload = json.dumps({"context": context, "jobs": jobs}, allow_nan=False)
    proc = node_module(RUNNER, stdin=payload)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)


def pair_page(views: list[tuple[dict, str]], opts: dict) -> dict:
    """The Minimal pair's page of two packed trace views ``(view, arrays_b64)`` (A, B), built in Node by
    ``PairView.page`` as the app's chart component builds it: ``{figures: id → figure, body, change,
    aligned}``."""
    [out] = node_jobs([{"fn": "pair", "args": [[list(v) for v in views], opts]}])
    assert "error" not in out, out.get("error")
    return out


def page_figures(requests: list[tuple]) -> list[dict]:
    """``{figure, binding}`` of each ``(views, figure_id, params, theme[, live])``, ``views`` a list of ``(view,
    arrays_b64)``: the packed trace views the app's chart component receives (``chart.draw_figure``) and the
    figure it draws, built in Node by ``Sections.draw`` as the page builds it; with ``live``
    (``{payload, values}``: a live control's payload and value) redrawn at that value, as a bound chart is."""
    out = node_jobs([{"fn": "figure", "args": list(r[:4]), "live": r[4] if len(r) > 4 else None} for r in requests])
    for r, o in zip(requests, out):
        assert "error" not in o, f"{r[1]}: {o.get('error')}"
    return out


def unpack(html: str, element_id: str) -> bytes:
    """The bytes a report file stores gzip-compressed and base64-encoded under ``element_id``."""
    match = re.search(rf'<script type="application/gzip-base64" id="{element_id}">(.*?)</script>', html, re.S)
    assert match, f"the report has no {element_id} element"
    return gzip.decompress(base64.b64decode(match.group(1)))


def report_data(html: str) -> dict:
    """A report file's data: ``{view, context, compact, only, params}``."""
    return json.loads(unpack(html, "report-data"))


def report_page(html: str) -> dict:
    """The page a report file draws, built in Node as ``Report.boot`` builds it: ``{title, header, body,
    data: {figures, live, words, ...}, view}`` (``view``: the unpacked trace view, arrays as lists)."""
    data = report_data(html)
    arrays = base64.b64encode(unpack(html, "report-arrays")).decode("ascii")
    opts = {"compact": data["compact"], "only": data.get("only"), "params": data.get("params"), "extra": data.get("extra")}
    [page] = node_jobs([{"fn": "report", "args": [data["view"], arrays, opts]}],
                       data["context"])
    assert "error" not in page, page.get("error")
    return page
