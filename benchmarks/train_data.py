"""``python -m viz_app bench train-data`` (installed: ``disan bench train-data``): a user's file through ``train --data``.

Two measurements (issue 55, item 5):

1. Training: a 10,000-example CSV goes through the public command ``disan train --model M --data FILE`` once per
   architecture, each in a fresh process with the command's defaults (the paper recipe, early stopping after
   ``--patience`` evaluations without a better dev accuracy, one evaluation per epoch). The file is SUBJ
   (``senteval/subj.all``: exactly 10,000 real sentences, subjective/objective) when the data folder has it, else
   a generated one (class words and filler, seeded). Reported from the run's own ``.train.json``: seconds per epoch
   (the epochs' mean, each epoch's dev evaluation included), epochs and wall time to early stopping, test
   accuracy; peak memory is the process's peak RSS (``ru_maxrss``).
2. Reading: a CSV of ``--rows`` (1,000,000) distinct rows (the 10,000 sentences with a row number appended) is
   streamed with ``disan.data.table_file.read_chunks`` (pandas' C reader, 50,000 rows a chunk) and every text is
   tokenised with ``disan.vocab.tokenize`` in a pool of one worker process per core, chunk by chunk
   (``Pool.imap``: at most a few chunks in flight), keeping only a word count. Memory is bounded by the chunks
   in flight, not by the file; the peak RSS of the reading process and of the largest worker are printed.

The goals (issue 55): a DSA model on 10k examples in ≤ 15 minutes; a 1-million-row CSV read and tokenised in
≤ 60 s. The machine's load (``uptime``) is printed before and after: on a shared machine the figures are slower.
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from collections import Counter
from multiprocessing import Pool
from pathlib import Path

import numpy as np

from .common import Table

GOAL_DSA_S = 15 * 60
GOAL_READ_S = 60.0
WORDS = {"subjective": ("love", "boring", "wonderful", "awful", "funny", "dull"),
         "objective": ("city", "year", "family", "police", "house", "town")}
FILLER = ("the", "a", "of", "and", "in", "his", "her", "is", "to", "with", "story", "life", "film", "when")


def uptime() -> str:
    return subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip()


def example_rows(data_dir: str | None, n: int = 10_000, seed: int = 0) -> tuple[list[tuple[str, str]], str]:
    """(text, label) rows: SUBJ's 10,000 sentences when present, else generated; and where they came from."""
    from disan.data import SUBJ_LABELS, load_senteval
    from disan.errors import DisanError

    try:
        examples = load_senteval("subj", data_dir)
        if n < len(examples):  # a seeded sample: the file is sorted by label
            examples = [examples[i] for i in sorted(np.random.default_rng(seed).choice(len(examples), n, replace=False))]
        return [(e.text, SUBJ_LABELS[e.label]) for e in examples], f"SUBJ (senteval/subj.all), {len(examples):,} rows"
    except (DisanError, OSError) as err:
        rng = np.random.default_rng(seed)
        rows = []
        for i in range(n):
            label = ("subjective", "objective")[i % 2]
            words = list(rng.choice(WORDS[label], 3)) + list(rng.choice(FILLER, int(rng.integers(8, 25))))
            rows.append((" ".join(rng.permutation(words)), label))
        return rows, f"generated (class words + filler, seed {seed}; SUBJ not found: {type(err).__name__}), {n:,} rows"


def write_csv(path: Path, rows, suffix_numbers: bool = False, total: int | None = None) -> Path:
    with path.open("w", newline="", encoding="utf-8") as f:
        w = csv.writer(f)
        w.writerow(["text", "label"])
        count = total or len(rows)
        for i in range(count):
            text, label = rows[i % len(rows)]
            w.writerow([f"{text} {i}" if suffix_numbers else text, label])
    return path


CHILD = ("import resource, sys\nfrom disan.__main__ import main\nrc = main(sys.argv[1:])\n"
         "u = resource.getrusage(resource.RUSAGE_SELF)\n"
         "print('PEAK_RSS_KB', u.ru_maxrss, file=sys.stderr)\n"
         "print('CPU_S', u.ru_utime + u.ru_stime, file=sys.stderr)\nsys.exit(rc)\n")


def train_row(arch: str, data: Path, out: Path, args) -> dict:
    """One ``disan train --data`` run in a fresh process, and what its summary says."""
    cmd = [sys.executable, "-c", CHILD, "train", "--model", arch, "--data", str(data), "--out", str(out),
           "--patience", str(args.patience), "--epochs", str(args.epochs), "--device", args.device]
    cmd += ["--threads", str(args.threads)] if args.threads else []
    cmd += ["--glove", args.glove] if args.glove else []
    cmd += ["--d-h", str(args.d_h)] if args.d_h else []
    env = {**os.environ, "TQDM_MININTERVAL": "30"}
    started = time.perf_counter()
    proc = subprocess.run(cmd, capture_output=True, text=True, env=env)
    wall = time.perf_counter() - started
    if proc.returncode != 0:
        raise RuntimeError(f"{arch}: train exited {proc.returncode}: {[l for l in proc.stderr.splitlines() if l.startswith('error')]}")
    peak = next(int(line.split()[1]) for line in proc.stderr.splitlines() if line.startswith("PEAK_RSS_KB"))
    cpu = next(float(line.split()[1]) for line in proc.stderr.splitlines() if line.startswith("CPU_S"))
    return {**card_row(json.loads(out.with_suffix(".json").read_text()), wall, peak / 1024), "cpu_s": round(cpu, 1)}


def card_row(card: dict, wall: float | None, peak_mb: float | None) -> dict:
    """A training row from a finished ``train --data`` run's card (``--runs``: peak memory and the process's wall
    time are then unknown)."""
    summary = card["train"]
    arch = summary["model_config"]["arch"]
    ends = [h["elapsed_s"] for h in summary["history"]]
    per_epoch = np.diff([0.0] + ends)
    return {"arch": arch, "train_examples": summary["train_examples"], "epochs": summary["epochs_run"],
            "s_per_epoch": float(per_epoch.mean()), "s_per_epoch_each": [round(float(x), 1) for x in per_epoch],
            "train_wall_s": summary["wall_time_s"], "process_wall_s": None if wall is None else round(wall, 1),
            "stopped_by": summary["stopped_by"], "best_dev_acc": summary["best_dev_acc"],
            "dev_each": [h["dev_acc"] for h in summary["history"]], "patience": summary.get("patience"),
            "min_delta": summary.get("min_delta"),
            "test_accuracy": card["evaluation"]["test"]["accuracy"], "peak_rss_mb": peak_mb,
            "device": summary["device"], "hardware": summary["hardware"], "command": summary.get("command")}


def _tokenise_chunk(texts: list[str]) -> tuple[int, int, Counter, int]:
    from disan.vocab import tokenize

    counts: Counter = Counter()
    n_tokens = 0
    for text in texts:
        tokens = tokenize(text)
        n_tokens += len(tokens)
        counts.update(tokens)
    return len(texts), n_tokens, counts, resource.getrusage(resource.RUSAGE_SELF).ru_maxrss


def read_row(path: Path, workers: int) -> dict:
    """Stream ``path`` in chunks and tokenise them, in this process (``workers`` 1) or a pool of ``workers``
    processes; times and peak memory."""
    from disan.data.table_file import CHUNK_ROWS, read_chunks

    rss0 = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    started, cpu0 = time.perf_counter(), time.process_time()
    children0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    rows = tokens = 0
    vocab: Counter = Counter()
    worker_peak = 0
    texts = (frame["text"].tolist() for frame in read_chunks(path, ["text"]))
    pool = Pool(workers) if workers > 1 else None
    try:
        for n, k, counts, peak in (pool.imap(_tokenise_chunk, texts) if pool else map(_tokenise_chunk, texts)):
            rows, tokens = rows + n, tokens + k
            vocab.update(counts)
            worker_peak = max(worker_peak, peak)
    finally:
        if pool:
            pool.close()
            pool.join()
    seconds = time.perf_counter() - started
    children = resource.getrusage(resource.RUSAGE_CHILDREN)  # the pool's workers, once joined
    workers_cpu = (children.ru_utime + children.ru_stime) - (children0.ru_utime + children0.ru_stime)
    return {"rows": rows, "tokens": tokens, "vocabulary": len(vocab), "seconds": seconds,
            "reader_cpu_s": time.process_time() - cpu0, "workers_cpu_s": workers_cpu, "uptime": uptime(),
            "rows_per_s": rows / seconds, "file_mb": path.stat().st_size / 2**20, "chunk_rows": CHUNK_ROWS,
            "workers": workers, "reader_peak_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
            "reader_rss_before_mb": rss0 / 1024, "worker_peak_rss_mb": worker_peak / 1024 if pool else None}


def cpu_text(r: dict) -> str:
    if "reader_cpu_s" not in r or r["workers"] > 1 and "workers_cpu_s" not in r:
        return "–"  # measured before the column existed
    return f"{r['reader_cpu_s'] + (r.get('workers_cpu_s') or 0.0):.1f}"


def tables(result: dict) -> list[Table]:
    load = ("load when read from the cards, not during the runs" if result.get("from_cards") else "CPU load")
    t = Table(f"train --data on {result['source']} ({load}: {result['uptime_before']})",
              ["model", "train ex.", "s / epoch", "epochs", "wall to the stop (s)", "CPU s", "stopped by", "dev acc",
               "test acc", "peak RSS (MB)", "goal: DSA to early stopping ≤ 15 min"])
    for r in result["train"]:
        goal = "" if r["arch"] != "dsa" else (
            ("met" if r["train_wall_s"] <= GOAL_DSA_S else "missed") if r["stopped_by"] == "patience" else
            ("missed (over 15 min before stopping)" if r["train_wall_s"] > GOAL_DSA_S else
             f"not measured: stopped by the {r['stopped_by']} limit, not early stopping"))
        t.add(r["arch"], f"{r['train_examples']:,}", f"{r['s_per_epoch']:.1f}", r["epochs"], f"{r['train_wall_s']:.0f}",
              "–" if r.get("cpu_s") is None else f"{r['cpu_s']:.0f}",
              r["stopped_by"], f"{100 * r['best_dev_acc']:.2f}%", f"{100 * r['test_accuracy']:.2f}%",
              "–" if r["peak_rss_mb"] is None else f"{r['peak_rss_mb']:.0f}", goal)
        if r["process_wall_s"] is None:
            t.notes.append(f"{r['arch']}: a run of its own, read from its card (--runs): {r['command']}")
    t.notes.append(f"hardware: {result['train'][0]['hardware']}" if result["train"] else "no training rows")
    t.notes.append("CPU s: the training process's processor time (getrusage, every thread), what one idle core "
                   "would need with --threads 1; the seconds are wall time on the shared machine")
    t.notes.append(f"load when the figures were saved: {result['uptime_after']}")
    out = [t] if result["train"] else []  # --skip-train: the reading's table alone
    reads = result.get("reads") or ([result["read"]] if result.get("read") else [])
    if reads:
        r = reads[0]
        u = Table(f"Reading + tokenising a {r['rows']:,}-row CSV ({r['file_mb']:.0f} MB)",
                  ["rows", "tokens", "vocabulary", "processes", "seconds", "CPU s", "rows/s", "reader peak RSS (MB)",
                   "worker peak RSS (MB)", "goal", "load (uptime) after"])
        for r in reads:
            worker = r.get("worker_peak_rss_mb")
            u.add(f"{r['rows']:,}", f"{r['tokens']:,}", f"{r['vocabulary']:,}",
                  "1 (no pool)" if r["workers"] == 1 else f"{r['workers']} (Pool.imap)", f"{r['seconds']:.1f}",
                  cpu_text(r),
                  f"{r['rows_per_s']:,.0f}", f"{r['reader_peak_rss_mb']:.0f}", "" if worker is None else f"{worker:.0f}",
                  ("met" if r["seconds"] <= GOAL_READ_S else "missed") + " (≤ 60 s)",
                  r.get("uptime", "").split("load average:")[-1].strip())
        if not result["train"]:
            u.notes.append(f"load before: {result['uptime_before']}")
        u.notes.append("CPU s: the processor time of the reading process and its workers (getrusage), what the "
                       "seconds would be on an idle core; the seconds are wall time on the shared machine")
        u.notes.append(f"streamed: disan.data.table_file.read_chunks, {r['chunk_rows']:,} rows a chunk, each text "
                       "through disan.vocab.tokenize (whitespace pieces' tokens cached), only a word count kept; "
                       f"the reader held {r['reader_rss_before_mb']:.0f} MB before reading")
        out.append(u)
    return out


def main(argv: list[str]) -> int:
    p = argparse.ArgumentParser(prog="python -m viz_app bench train-data", description=__doc__.splitlines()[0])
    p.add_argument("--data-dir", default=None, help="dataset folder (SUBJ); generated rows without it")
    p.add_argument("--models", nargs="+", default=["dsa", "disan"], choices=["dsa", "disan"])
    p.add_argument("--examples", type=int, default=10_000)
    p.add_argument("--rows", type=int, default=1_000_000, help="rows of the reading test's CSV")
    p.add_argument("--epochs", type=int, default=40, help="epoch limit of each run, high enough that early stopping ends it (the row says which stopped it; at 10, SUBJ's DSA run was cut while still improving)")
    p.add_argument("--patience", type=int, default=3)
    p.add_argument("--threads", type=int, default=None, help="torch threads (default: every core)")
    p.add_argument("--workers", type=int, nargs="+", default=[1, os.cpu_count() or 1],
                   help="tokenising processes of the reading test, one row each (1: in this process, no pool)")
    p.add_argument("--device", default="auto")
    p.add_argument("--glove", default=None)
    p.add_argument("--skip-train", action="store_true")
    p.add_argument("--skip-read", action="store_true")
    p.add_argument("--d-h", default=None, help="hidden size passed to train (default: the recipe's 300)")
    p.add_argument("--runs", nargs="+", default=None, metavar="CARD",
                   help="no measuring: the rows of finished train --data runs (their .json cards), e.g. a run "
                        "resumed with --resume; the load is the one now")
    p.add_argument("--json", default=None, help="write the raw figures here")
    p.add_argument("--docs", default=None, metavar="PAGE", help="write the printed block between the train-data-bench "
                                                               "markers of PAGE (e.g. docs/your-data.md)")
    p.add_argument("--block", default="train-data-bench", help="the name of the --docs markers (<!-- NAME:start -->)")
    p.add_argument("--render", default=None, metavar="JSON", help="no measuring: print (and with --docs write) the "
                                                                  "block of a run's --json")
    args = p.parse_args(argv)
    if args.render:
        return finish(json.loads(Path(args.render).read_text()), args.docs, args.block)
    if args.runs:
        cards = [json.loads(Path(c).read_text()) for c in args.runs]
        result = {"source": ", ".join(sorted({Path(c["data_file"]["files"]["data"]["path"]).name for c in cards})),
                  "uptime_before": uptime(), "train": [card_row(c, None, None) for c in cards], "argv": argv,
                  "from_cards": True,
                  "uptime_after": uptime()}
        if args.json:
            Path(args.json).write_text(json.dumps(result, indent=2) + "\n")
        return finish(result, args.docs, args.block)
    rows, source = example_rows(args.data_dir, args.examples)
    result = {"source": source, "uptime_before": uptime(), "train": [], "argv": argv}
    print(f"load before: {result['uptime_before']}", flush=True)
    def save() -> None:  # after every part: a run cut short still leaves what it measured (--render shows it)
        result["uptime_after"] = uptime()
        if args.json:
            Path(args.json).write_text(json.dumps(result, indent=2) + "\n")

    with tempfile.TemporaryDirectory(prefix="disan-train-data-") as tmp:
        folder = Path(tmp)
        data = write_csv(folder / "examples.csv", rows)
        if not args.skip_read:  # first: seconds, where a training run takes minutes
            big = write_csv(folder / "million.csv", rows, suffix_numbers=True, total=args.rows)
            print(f"[train-data] reading {args.rows:,} rows …", flush=True)
            result["reads"] = []
            for workers in args.workers:
                result["reads"].append(read_row(big, workers))
                save()
            big.unlink()
            save()
        if not args.skip_train:
            for arch in args.models:
                print(f"[train-data] {arch}: disan train --data ({len(rows):,} rows) …", flush=True)
                result["train"].append(train_row(arch, data, folder / "runs" / arch, args))
                save()
    save()
    return finish(result, args.docs, args.block)


START, END = "<!-- train-data-bench:start -->", "<!-- train-data-bench:end -->"


def finish(result: dict, docs: str | None, block_name: str = "train-data-bench") -> int:
    """Print the tables; with ``docs``, write them (as the command printed them) into the page's marked block."""
    from disan.output import replace_marked

    text = "\n\n".join(table.to_text() for table in tables(result))
    print(text)
    if docs:
        page = Path(docs)
        command = "python -m viz_app bench train-data " + " ".join(result.get("argv", []))
        block = f"```\n$ {command.strip()}\n{text}\n```"
        start, end = f"<!-- {block_name}:start -->", f"<!-- {block_name}:end -->"
        page.write_text(replace_marked(page.read_text(encoding="utf-8"), start, end, block), encoding="utf-8")
        print(f"updated {page}")
    return 0
