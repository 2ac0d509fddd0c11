"""Latency of the five token attributions of one sentence (``disan.attribution.attribute``), issue 20.

For a DiSAN and a DSA checkpoint (the bundled ``disan-sst5`` and ``dsa-sst5``, else the
random-weight architectures): gradient × input, Integrated Gradients (Captum, its steps
in one batch), leave-one-out (every variant in one batch), gated rollout (the attention
and gates composed linearly, ``rollout.py``) and Abnar & Zuidema's attention flow (a
maximum flow through the same layer graph, ``attention_flow.py``) on a sentence of T
tokens, given its trace (the app caches the trace; its time is reported apart).
Target: median ≤ 250 ms at T = 20 on the CPU. The stored run (docs/benchmarks.json, 2026-11-25)
predates attention flow and timed four: its "attention flow" was today's gated rollout.
"""

from __future__ import annotations

import time

from .common import Stats, Table, fmt_ms, measured_by, repeat, sentence

TARGET_S = 0.250
README_START, README_END = "<!-- attribution-bench:start -->", "<!-- attribution-bench:end -->"
CHECKPOINTS = {"disan": "disan-sst5", "dsa": "dsa-sst5"}


def load(arch: str):
    """The bundled checkpoint of ``arch`` when present, else the seeded random-weight model (named so)."""
    import disan
    from disan.api import PRETRAINED_DIR

    name = CHECKPOINTS[arch]
    return disan.load(name if (PRETRAINED_DIR / f"{name}.safetensors").is_file() else arch, device="cpu")


def run(archs, tokens: int, warmup: int, repeats: int, max_seconds: float, threads: int | None) -> list[dict]:
    """One row per architecture: attribution times (and the trace's, apart), IG steps and delta."""
    import torch

    from disan.attribution import attribute
    from disan.vocab import tokenize

    if threads:
        torch.set_num_threads(threads)
    rows = []
    for arch in archs:
        model = load(arch)
        text = sentence(tokens)
        if len(tokenize(text)) != tokens:
            raise RuntimeError(f"the benchmark sentence has {len(tokenize(text))} tokens, not {tokens}")
        trace = model.trace(text)
        start = time.perf_counter()
        result = attribute(model, trace)  # first call: imports Captum
        first = time.perf_counter() - start
        times = repeat(lambda: attribute(model, trace), warmup, repeats, max_seconds)
        trace_times = repeat(lambda: model.trace(text), 1, repeats, max_seconds / 4)
        rows.append({"arch": arch, "model": model.name, "tokens": tokens, "times": times, "trace_times": trace_times,
                     "first_call_s": first, "ig_steps": result.ig_steps, "ig_delta": result.ig_delta,
                     "threads": torch.get_num_threads()})
    return rows


def table(rows: list[dict]) -> Table:
    t = Table("Token attributions of one sentence: gradient × input, IG, leave-one-out, gated rollout, "
              "attention flow (CPU)",
              ["model", "T", "attributions median ms", "attributions p95 ms", "trace median ms", "IG steps",
               "IG delta", "threads", "runs"])
    for r in rows:
        s, tr = Stats.of(r["times"]), Stats.of(r["trace_times"])
        t.add(r["model"], r["tokens"], fmt_ms(s.median), fmt_ms(s.p95), fmt_ms(tr.median), r["ig_steps"],
              f"{r['ig_delta']:+.1e}", r["threads"], s.n)
    return t


def verdicts(v, rows: list[dict] | None, why: str = "") -> None:
    for arch in ("disan", "dsa"):
        r = next((r for r in rows or [] if r["arch"] == arch), None)
        target = f"attributions (all five) T=20, CPU, {arch}: median ≤ 250 ms"
        if r is None or r["tokens"] != 20:
            v.check(target, None, TARGET_S, "ms", "median", why or "not run at T=20")
            continue
        s = Stats.of(r["times"])
        v.check(target, s.median, TARGET_S, "ms", f"p95 {fmt_ms(s.p95)} ms; median")


def readme_block(rows: list[dict], info: dict, command: str, date: str | None = None) -> str:
    """The attribution rows with the command, the machine's load and the run's ``date`` (default today), for the
    attribution-bench block of docs/benchmarks-and-reliability.md."""
    lines = [
        measured_by(command, info, date),
        "",
        "| model | T | threads | median ms | p95 ms | trace median ms | IG steps | IG delta "
        "| verdict (median ≤ 250 ms) |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---|",
    ]
    for r in rows:
        s, tr = Stats.of(r["times"]), Stats.of(r["trace_times"])
        verdict = "met" if s.median <= TARGET_S else f"missed by {fmt_ms(s.median - TARGET_S)} ms"
        lines.append(f"| `{r['model']}` | {r['tokens']} | {r['threads']} | {fmt_ms(s.median)} | {fmt_ms(s.p95)} | "
                     f"{fmt_ms(tr.median)} | {r['ig_steps']} | {r['ig_delta']:+.1e} | {verdict} |")
    return "\n".join(lines)


#: Sentence lengths of the cost table (issue 57 item 6): the app's short and long submit lengths.
COST_TOKENS = (10, 64)


def run_costs(archs, lengths, warmup: int, repeats: int, max_seconds: float, threads: int | None) -> list[dict]:
    """Per architecture and length T, one sentence: IG alone, LRP alone, one randomisation step (every method of
    ``randomisation.explain`` on a randomised copy) and the whole cascading test of the sentence (the trained
    model's explanations and every step's, weights re-drawn included), with the load average beside each row."""
    import os

    import torch

    from disan.attribution import randomisation as R
    from disan.attribution.budget import ig_rows
    from disan.attribution.forward import ClassProbability
    from disan.attribution.gradient import IG_STEPS, integrated_gradients
    from disan.attribution.lrp import lrp
    from disan.vocab import tokenize

    if threads:
        torch.set_num_threads(threads)
    rows = []
    for arch in archs:
        model = load(arch).eval()
        alpha = None if model.cfg.arch == "disan" else float(model.encoder.alpha)
        fn = ClassProbability(model, tuple(model.cfg.masks), alpha)
        steps = IG_STEPS[model.cfg.arch]
        randomised = list(R.cascade(model))[-1][1]  # every block re-drawn: the last step's model
        rfn = ClassProbability(randomised, tuple(model.cfg.masks), alpha)
        for tokens in lengths:
            words = tokenize(sentence(tokens))
            if len(words) != tokens:
                raise RuntimeError(f"the benchmark sentence has {len(words)} tokens, not {tokens}")
            emb = fn.embed([[words]])
            with torch.no_grad():
                target = fn.outputs(emb.xs, emb.valids).argmax(-1)  # (1,)
            cases = {
                "IG": lambda: integrated_gradients(fn, emb, target, steps, internal_batch_size=ig_rows(model.cfg, tokens)),
                "LRP": lambda: lrp(fn, emb, target),
                "one randomisation step": lambda: R.explain(randomised, rfn, emb, target, steps),
                "cascading test": lambda: R.measure(model, [(tuple(words),)], steps=steps),
            }
            for what, call in cases.items():
                load_before = os.getloadavg()[0]
                times = repeat(call, warmup if what != "cascading test" else 0, repeats if what != "cascading test"
                               else 1, max_seconds, min_repeats=1)
                rows.append({"arch": arch, "model": model.name, "tokens": tokens, "what": what, "times": times,
                             "ig_steps": steps, "load": round((load_before + os.getloadavg()[0]) / 2, 1),
                             "threads": torch.get_num_threads()})
    return rows


def costs_table(rows: list[dict]) -> Table:
    t = Table("LRP and the randomisation test per sentence beside IG (CPU; 'one randomisation step' explains the "
              "sentence with every method on the fully randomised model; 'cascading test' is the trained model and "
              "every step)", ["model", "T", "what", "median ms", "runs", "IG steps", "threads", "load average"])
    for r in rows:
        s = Stats.of(r["times"])
        t.add(r["model"], r["tokens"], r["what"], fmt_ms(s.median), s.n, r["ig_steps"], r["threads"], r["load"])
    return t
