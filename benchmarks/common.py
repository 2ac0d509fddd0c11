"""Shared pieces of ``python -m viz_app bench``: timing statistics, tables, machine description."""

from __future__ import annotations

import os
import platform
import resource
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

REPO_ROOT = Path(__file__).resolve().parent.parent

#: How rows measured on ``--baseline-rev``'s commit are labelled; the commit itself is named once, in the header of
#: the page or block (``benchmarks/render.py``).
BASELINE_LABEL = "baseline"

#: Words that GloVe 6B knows, to build sentences of an exact token count.
FILLER_WORDS = (
    "the", "man", "in", "a", "blue", "shirt", "is", "playing", "with", "his", "dog", "on", "beach",
    "while", "two", "children", "watch", "from", "small", "boat", "near", "old", "bridge", "and",
)


def sentence(n_tokens: int, offset: int = 0) -> str:
    """A lower-case sentence of exactly ``n_tokens`` tokens (checked by the callers' tokenizer)."""
    return " ".join(FILLER_WORDS[(offset + i) % len(FILLER_WORDS)] for i in range(n_tokens))


# ------------------------------------------------------------------ stats
@dataclass(frozen=True)
class Stats:
    """Summary of repeated timings, in seconds."""

    n: int
    median: float
    p95: float
    mean: float
    min: float

    @classmethod
    def of(cls, seconds: Sequence[float]) -> Stats:
        a = np.asarray(seconds, dtype=float)
        if a.size == 0:
            return cls(0, float("nan"), float("nan"), float("nan"), float("nan"))
        return cls(int(a.size), float(np.median(a)), float(np.percentile(a, 95)), float(a.mean()), float(a.min()))


def repeat(
    fn: Callable[[], object],
    warmup: int,
    repeats: int,
    max_seconds: float | None = None,
    min_repeats: int = 3,
    sync: Callable[[], None] | None = None,
) -> list[float]:
    """Run ``fn`` ``warmup`` times untimed, then up to ``repeats`` timed runs.

    Stops early once ``max_seconds`` of timed runs have passed, but never
    before ``min_repeats`` runs. ``sync`` (e.g. ``torch.cuda.synchronize``)
    is called before every clock read.
    """
    sync = sync or (lambda: None)
    for _ in range(warmup):
        fn()
    sync()
    times: list[float] = []
    spent = 0.0
    for i in range(repeats):
        start = time.perf_counter()
        fn()
        sync()
        times.append(time.perf_counter() - start)
        spent += times[-1]
        if max_seconds is not None and spent > max_seconds and i + 1 >= min(min_repeats, repeats):
            break
    return times


def process_cpu_s(pid: int) -> float:
    """User + system CPU seconds ``pid`` has used so far (/proc/<pid>/stat; Linux)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def measured_by(command: str, info: dict, date: str | None = None) -> str:
    """The first line of a generated docs block: the command, the machine and its load at the start, the run's
    date (default today)."""
    load = info.get("load_average_at_start")
    jobs = info.get("background_jobs_at_start") or []
    return (f"Measured by `{command}` on {info['logical_cpus']} logical CPUs ({info['cpu']}), load average at start "
            f"{load[0] if load else '–'}" + (f" with {len(jobs)} low-priority (nice ≥ 10) jobs sharing the cores"
                                             if jobs else "") + f", {date or time.strftime('%Y-%m-%d')}:")


def peak_rss_mib() -> float:
    """High-water mark of this process's resident set (Linux ``ru_maxrss`` is in KiB)."""
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return peak / 2**20 if sys.platform == "darwin" else peak / 1024  # macOS reports bytes


def fmt_ms(seconds: float) -> str:
    if seconds != seconds:  # NaN
        return "–"
    ms = seconds * 1e3
    return f"{ms:,.0f}" if ms >= 100 else f"{ms:.1f}" if ms >= 10 else f"{ms:.2f}"


def fmt_mib(mib: float | None) -> str:
    return "–" if mib is None or mib != mib else f"{mib:,.0f}"


# ------------------------------------------------------------------ tables
@dataclass
class Table:
    """A titled table that prints as aligned text and as Markdown."""

    title: str
    columns: Sequence[str]
    rows: list[list[str]] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    def add(self, *cells: object) -> None:
        if len(cells) != len(self.columns):
            raise ValueError(f"{self.title}: {len(cells)} cells for {len(self.columns)} columns")
        self.rows.append([str(c) for c in cells])

    def to_text(self) -> str:
        cells = [list(self.columns)] + self.rows
        widths = [max(len(r[i]) for r in cells) for i in range(len(self.columns))]
        line = "  ".join("-" * w for w in widths)
        out = [self.title, line]
        for k, row in enumerate(cells):
            out.append("  ".join(c.rjust(w) if k and _numeric(c) else c.ljust(w) for c, w in zip(row, widths)).rstrip())
            if k == 0:
                out.append(line)
        out.extend(f"  note: {n}" for n in self.notes)
        return "\n".join(out)

    def to_markdown(self) -> str:
        out = [f"### {self.title}", "", "| " + " | ".join(self.columns) + " |"]
        out.append("|" + "|".join("---:" if any(_numeric(r[i]) for r in self.rows) else "---" for i in range(len(self.columns))) + "|")
        out.extend("| " + " | ".join(c.replace("|", "\\|") for c in row) + " |" for row in self.rows)
        if self.notes:
            out.append("")
            out.extend(f"- {n}" for n in self.notes)
        return "\n".join(out)

    def to_dict(self) -> dict:
        return {"title": self.title, "columns": list(self.columns), "rows": self.rows, "notes": self.notes}


def _numeric(cell: str) -> bool:
    c = cell.replace(",", "").replace("×", "").replace("%", "").strip()
    try:
        float(c)
    except ValueError:
        return False
    return True


# ---------------------------------------------------------------- machine
def cpu_model() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def machine_info() -> dict:
    """What the figures were measured on, and how busy the machine was when the run started."""
    import torch

    info = {
        "cpu": cpu_model(),
        "logical_cpus": os.cpu_count(),
        "torch_threads": torch.get_num_threads(),
        "torch": torch.__version__,
        "python": platform.python_version(),
        "platform": platform.platform(),
        "gpu": torch.cuda.get_device_name() if torch.cuda.is_available() else None,
        "load_average_at_start": [round(x, 2) for x in os.getloadavg()] if hasattr(os, "getloadavg") else None,
        "background_jobs_at_start": background_jobs(),
    }
    return info


def background_jobs(sample_s: float = 1.0) -> list[str]:
    """Processes of other users of the CPU at low priority (nice ≥ 10) that used it during ``sample_s``,
    as ``"pid name (nice N, X% of a core)"`` — e.g. training runs at nice 19 sharing the cores (Linux only)."""

    def snapshot() -> dict[int, tuple[str, int, int]]:
        out = {}
        for stat in Path("/proc").glob("[0-9]*/stat"):
            try:
                text = stat.read_text()
            except OSError:
                continue
            name = text[text.index("(") + 1 : text.rindex(")")]
            fields = text[text.rindex(")") + 2 :].split()  # fields[0] = state (field 3 of proc(5))
            out[int(stat.parent.name)] = (name, int(fields[16]), int(fields[11]) + int(fields[12]))
        return out

    if not Path("/proc/self/stat").exists():
        return []
    tick = os.sysconf("SC_CLK_TCK")
    before = snapshot()
    time.sleep(sample_s)
    after = snapshot()
    jobs = []
    for pid, (name, nice, cpu) in after.items():
        used = (cpu - before.get(pid, (name, nice, cpu))[2]) / tick / sample_s
        if nice >= 10 and used > 0.05:
            jobs.append(f"{pid} {name} (nice {nice}, {used:.0%} of a core)")
    return jobs


def busy(info: dict) -> bool:
    """True when other work kept the CPU busy at the start (1-minute load ≥ a quarter of the cores)."""
    load = info.get("load_average_at_start")
    return bool(load) and load[0] >= 0.25 * (info.get("logical_cpus") or 1)


def folder_context(browser, folder, height: int = 1000):
    """A fresh browser context for a site ``folder`` opened from disk, and the list that collects every URL it
    asks for outside the folder (check it with ``outside_folder``). Requests are watched, not routed: a routed
    request waits for this process to let it through, which delayed the opening being measured."""
    context = browser.new_context(viewport={"width": 1400, "height": height})
    inside, outside = folder.as_uri() + "/", []
    context.on("request", lambda request: None if request.url.startswith((inside, "blob:", "data:"))
               else outside.append(request.url))
    return context, outside


def outside_folder(outside: list) -> None:
    """Stop the benchmark if the page asked for any file outside its folder (``folder_context``'s list)."""
    if outside:
        raise SystemExit(f"error: the page asked for files outside its folder: {outside[:5]}")

