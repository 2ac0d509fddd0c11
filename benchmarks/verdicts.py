"""Targets → met / missed by how much / not measured, for every row of ``python -m viz_app bench``."""

from __future__ import annotations

import numpy as np

from . import train as bench_train
from .common import BASELINE_LABEL, Stats, Table

class Verdicts:
    """Target → met / missed by how much / not measured."""

    def __init__(self):
        self.rows: list[tuple[str, str, str]] = []

    def check(self, target: str, measured: float | None, limit: float, unit: str, what: str, why_missing: str = "") -> None:
        if measured is None or measured != measured:
            self.rows.append((target, "–", f"not measured: {why_missing or 'not run'}"))
            return
        shown = _fmt(measured, unit)
        if measured <= limit:
            self.rows.append((target, f"{what} {shown}", "met"))
        else:
            self.rows.append((target, f"{what} {shown}",
                              f"missed by {_fmt(measured - limit, unit)} ({measured / limit:.{1 if measured >= 1.1 * limit else 2}f}× the limit)"))

    def note(self, target: str, measured: str, verdict: str) -> None:
        self.rows.append((target, measured, verdict))

    def table(self) -> Table:
        t = Table("Targets (issues 5, 12 and 19)", ["target", "measured", "verdict"])
        for row in self.rows:
            t.add(*row)
        return t


def _fmt(value: float, unit: str) -> str:
    if unit == "ms":
        return f"{value * 1e3:,.1f} ms" if value < 1 else f"{value * 1e3:,.0f} ms"
    if unit == "s":
        return f"{value:,.1f} s"
    if unit == "MiB":
        return f"{value:,.0f} MiB"
    if unit == "×":
        return f"{value:.2f}×"
    return f"{value:g} {unit}"


def trace_verdicts(v: Verdicts, results: list[dict], archs, isolated: bool) -> None:
    cells = {(r["arch"], r["tokens"], r["mode"], r.get("device", "cpu")): r for r in results}

    def get(arch, T, mode="trace"):
        r = cells.get((arch, T, mode, "cpu"))
        return None if r is None or "error" in r else r

    def why(arch, T):
        r = cells.get((arch, T, "trace", "cpu"))
        return f"T={T} not in --sizes" if r is None else f"failed: {r.get('error')}"

    for arch in archs:
        r = get(arch, 20)
        v.check(f"trace T=20, CPU, {arch}: median ≤ 20 ms", Stats.of(r["times"]).median if r else None, 0.020, "ms",
                "median", why(arch, 20))
        r = get(arch, 256)
        v.check(f"trace T=256, CPU, {arch}: ≤ 1 s", Stats.of(r["times"]).median if r else None, 1.0, "ms", "median",
                why(arch, 256))
        mem = r.get("peak_delta_mib") if r else None
        v.check(f"trace T=256, CPU, {arch}: peak memory ≤ 2 GB", mem, 2048, "MiB", "peak",
                "needs fresh processes (drop --quick/--in-process)" if r else why(arch, 256))
        r1024 = cells.get((arch, 1024, "trace", "cpu"))
        if r1024 is None:
            v.note(f"trace T=1,024, CPU, {arch}: completes, peak ≤ 4 GB", "–", "not measured: T=1024 not in --sizes")
        elif "error" in r1024:
            v.note(f"trace T=1,024, CPU, {arch}: completes, peak ≤ 4 GB", r1024["error"], "missed: did not complete")
        else:
            v.check(f"trace T=1,024, CPU, {arch}: completes, peak ≤ 4 GB", r1024.get("peak_delta_mib"), 4096, "MiB",
                    f"completed in {_fmt(Stats.of(r1024['times']).median, 's')}; peak",
                    "needs fresh processes (drop --quick/--in-process)")


#: Issues 12, 19 and 58: (kind prefix, limit in s for T ≤ 10, limit for larger T ≤ 64), on this checkout's path.
APP_TARGETS = {
    "α step → every map": (0.050, 0.100),
    "α keys at": (0.050, 0.050),
    "feature step → redrawn": (0.050, 0.050),
    "submit →": (0.150, 0.150),
    "keys at 5/s → Explore maps": (0.050, 0.050),
    "paste → Explore maps": (0.050, 0.050),  # issue 58 item 10, at T ≤ 20
}
#: One frame at 60 Hz: the goal for an α step.
FRAME_S = 1 / 60
#: Issue 19's goal for the server's CPU time per submit's rerun.
SERVER_CPU_GOAL_S = 0.050


def app_verdicts(v: Verdicts, rows: list[dict] | None, why: str) -> None:
    """p95 against issues 12 and 19's limits (median shown too); the baseline paths are references, not targets."""
    measured = [r for r in rows or [] if r["path"] == "browser" and r["tokens"] <= 64]
    for r in [r for r in rows or [] if r["path"] != "browser" and "times" in r]:
        st = Stats.of(r["times"])
        where = "baseline commit" if r["path"] == BASELINE_LABEL else f"{r['path']} path"
        v.note(f"baseline: app {r['kind']}, {where}, {r['model']} T={r['tokens']}",
               f"median {_fmt(st.median, 'ms')}, p95 {_fmt(st.p95, 'ms')}", "reference (no target)")
    for prefix, (small, large) in APP_TARGETS.items():
        for r in [r for r in measured if r["kind"].startswith(prefix)] or [None]:
            if r is None:
                v.note(f"app {prefix}…, T ≤ 64: p95 ≤ {large * 1e3:.0f} ms", "–", f"not measured: {why or 'not run'}")
                continue
            kind = r["kind"]
            limit = small if r["tokens"] <= 10 else large
            name = f"app {kind}, {r['model']} T={r['tokens']}: p95 ≤ {limit * 1e3:.0f} ms"
            if "times" not in r:
                v.note(name, "–", f"not measured: {r.get('error')}")
                continue
            st = Stats.of(r["times"])
            v.check(name, st.p95, limit, "ms", f"median {_fmt(st.median, 'ms')}, p95")
            if kind.startswith("α step"):
                frame = "met" if st.p95 <= FRAME_S else f"not reached (p95 {st.p95 / FRAME_S:.1f} frames)"
                v.note(f"goal: app {kind}, {r['model']} T={r['tokens']}: one frame (16.7 ms)",
                       f"median {_fmt(st.median, 'ms')}, p95 {_fmt(st.p95, 'ms')}", frame)
            if r.get("server_cpu"):
                cpu = float(np.median(r["server_cpu"]))
                v.note(f"goal: app {kind}, {r['model']} T={r['tokens']}: server CPU ≤ 50 ms per rerun",
                       f"median {_fmt(cpu, 'ms')}",
                       "met" if cpu <= SERVER_CPU_GOAL_S else f"not reached ({cpu / SERVER_CPU_GOAL_S:.1f}× the goal)")


def train_verdicts(v: Verdicts, results: dict[str, dict]) -> None:
    cpu = results.get("cpu")
    gpu = results.get("cuda")
    if gpu and ("disan", "auto") in gpu["rows"]:
        ep = bench_train.epoch_seconds(gpu["rows"][("disan", "auto")], gpu["n_batches"])
        name = gpu.get("hardware", "GPU")
        if "H100" in name:
            v.check("SNLI-epoch equivalent, H100, DiSAN: ≤ 30 s", ep, 30.0, "s", "epoch")
        else:
            v.note("SNLI-epoch equivalent, H100, DiSAN: ≤ 30 s", f"{ep:,.1f} s on {name}", "not measured on an H100")
    else:
        v.note("SNLI-epoch equivalent, H100, DiSAN: ≤ 30 s", "–", "not measured: no GPU on this machine")
    if cpu and ("disan", "auto") in cpu["rows"]:
        n = cpu["n_batches"]
        fast = bench_train.epoch_seconds(cpu["rows"][("disan", "auto")], n)
        v.note(f"SNLI-epoch equivalent, {cpu['hardware']}, DiSAN: report it", f"{fast:,.0f} s "
               f"({fast / bench_train.PAPER_EPOCH_S['disan']:.1f}× the paper's 587 s on a GTX 1080 Ti)", "reported")
        if ("disan", "naive") in cpu["rows"]:
            ratio = bench_train.epoch_seconds(cpu["rows"][("disan", "naive")], n) / fast
            verdict = "met" if ratio >= 2 else f"missed by {2 - ratio:.2f}× (speed-up {ratio:.2f}× < 2×)"
            v.note("SNLI-epoch equivalent, CPU, DiSAN: ≥ 2× faster than naive", f"speed-up {ratio:.2f}×", verdict)
    else:
        v.note("SNLI-epoch equivalent, CPU, DiSAN: ≥ 2× faster than naive", "–", "not measured: no CPU rows (--device cuda)")


def predict_verdicts(v: Verdicts, rows: list[dict] | None) -> None:
    for r in rows or []:
        if r["impl"] == "auto" and r["device"] == "cpu":
            v.check(f"predict {r['n']:,} sentences, CPU, {r['arch']}: seconds, not minutes (< 60 s)",
                    min(r["times"]), 60.0, "s", "best")
