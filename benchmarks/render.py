"""``python -m viz_app bench render``: a benchmark's Markdown page and docs blocks, written from its stored JSON.

A run (``bench all|trace|…|cold-start --json PATH`` or ``bench load --json PATH``) stores every figure its page
shows, then writes the page and the blocks from what it stored (``publish``), so ``bench render`` on that JSON
writes the same text again without measuring — for a new layout or wording, never for a figure::

    python -m viz_app bench render --json docs/benchmarks.json --markdown docs/benchmarks.md \\
        --docs docs/benchmarks-and-reliability.md
    python -m viz_app bench render --json docs/load-benchmark.json --markdown docs/load-benchmark.md \\
        --docs docs/benchmarks-and-reliability.md

The load benchmark's results are told apart by their ``figures``. Results stored before runs kept
``baseline_rev``, ``finished`` and ``elapsed_s`` are read as they are (``stored``): the baseline commit comes
from their row labels (then *before <rev>* and *baseline <rev>*, now *baseline*), and the page says that the
run's date and duration were not recorded.
"""

from __future__ import annotations

import argparse
import json
import re
import shlex
import sys
import time
from dataclasses import dataclass
from pathlib import Path

from disan.output import rewrite_marked

from .common import BASELINE_LABEL

#: What a run stores beside its figures; older results lack them (``stored`` says so on the page).
RUN_FIELDS = ("baseline_rev", "finished", "elapsed_s")

#: An older result's label of the baseline commit's rows: ``before c2680bf``, ``baseline c2680bf, streamlit run``.
_OLD_LABEL = re.compile(rf"^(?:before|{BASELINE_LABEL}) (\S+?)(?:,|$)")


@dataclass(frozen=True)
class Outputs:
    """Where a run or a render writes: the results (``--json``), the page (``--markdown``), the blocks
    (``--docs``), as the command line named them."""

    json: str | None = None
    markdown: str | None = None
    docs: str | None = None

    def render_command(self) -> str:
        flags = [("--json", self.json), ("--markdown", self.markdown), ("--docs", self.docs)]
        return "python -m viz_app bench render " + " ".join(f"{f} {shlex.quote(p)}" for f, p in flags if p)


def run_fields(started: float, baseline_rev: str | None) -> dict:
    """The run's own facts for its JSON: the baseline commit, when it finished, how long it took."""
    return {"baseline_rev": baseline_rev, "finished": time.strftime("%Y-%m-%d %H:%M %Z"),
            "elapsed_s": round(time.time() - started, 1)}


def _labels(result: dict) -> list[str]:
    return ([r.get("path", "") for r in result.get("app") or []]
            + [r.get("code", "") for r in result.get("cold_start") or []]
            + [f.get("setup", "") for f in result.get("figures") or []])


def _relabel(value, pairs: list[tuple[str, str]]):
    if isinstance(value, str):
        for old, new in pairs:
            value = value.replace(old, new)
        return value
    if isinstance(value, list):
        return [_relabel(v, pairs) for v in value]
    if isinstance(value, dict):
        return {k: v if k in ("argv", "command", "machine") else _relabel(v, pairs) for k, v in value.items()}
    return value


def stored(result: dict) -> dict:
    """``result`` as the pages read it, with ``missing``: the run fields it lacked. An older result's baseline
    commit is read from its row labels, which then say *baseline* like a new run's; no figure changes."""
    if all(k in result for k in RUN_FIELDS):
        return {**result, "missing": []}
    revs = {m.group(1) for m in map(_OLD_LABEL.match, _labels(result)) if m}
    if len(revs) > 1:
        raise ValueError(f"the stored results name several baseline commits ({', '.join(sorted(revs))}); "
                         "re-run the benchmark")
    rev = result.get("baseline_rev", next(iter(revs), None))
    out = dict(result)
    if revs:
        out = _relabel(out, [
            (f"before {rev} path", "baseline commit"),  # verdict rows of the app benchmark
            ("Path *before <rev>*: the same rows against that commit's files",
             f"Path *{BASELINE_LABEL}*: the same rows against the baseline commit's files"),
            (f"before {rev}", BASELINE_LABEL),
            (f"{BASELINE_LABEL} {rev}", BASELINE_LABEL),
        ])
    if "argv" not in out:  # the load benchmark stored only its command line, then `python -m disan bench load …`
        words = shlex.split(out["command"])
        if words[:2] != ["python", "-m"] or words[3:4] != ["bench"]:
            raise ValueError(f"the stored command {out['command']!r} is not a `bench` command line")
        out["argv"] = words[4:]
    out["missing"] = [k for k in RUN_FIELDS if k not in result]
    out["relabelled"] = bool(revs)
    out["baseline_rev"] = rev
    out.setdefault("finished", None)
    out.setdefault("elapsed_s", None)
    return out


def run_date(result: dict) -> str:
    return result["finished"][:10] if result.get("finished") else "run date not recorded"


def run_time(result: dict) -> str:
    if result.get("elapsed_s") is None:
        return "not recorded in the stored results"
    return f"{result['elapsed_s'] / 60:.1f} min, finished {result['finished']}"


def baseline_line(rev: str) -> str:
    """The one place a page or block names the commit its *baseline* rows ran."""
    return f"**Baseline:** commit `{rev}`, measured in the same run: the *{BASELINE_LABEL}* rows ran that commit's code."


def names_baseline(labels) -> bool:
    """Whether any row label is the baseline commit's (*baseline*, or *baseline, …* with its setup)."""
    return any(label == BASELINE_LABEL or label.startswith(f"{BASELINE_LABEL},") for label in labels)


def has_baseline(result: dict) -> bool:
    return bool(result.get("baseline_rev")) and names_baseline(_labels(result))


def header(result: dict, out: Outputs) -> list[str]:
    """The lines under a page's command: where the page comes from, the baseline, what the JSON lacked."""
    from .report import link_from

    lines = []
    if out.json and out.markdown:
        name = Path(out.json).name
        lines += [f"Written from [{name}]({link_from(out.markdown, out.json)}), the run's stored results; "
                  f"`{out.render_command()}` writes this page again from them without measuring.", ""]
    if has_baseline(result):
        lines += [baseline_line(result["baseline_rev"]), ""]
    missing = [k for k in result.get("missing", []) if k != "baseline_rev"]
    if missing or result.get("relabelled"):
        said = []
        if missing:
            said.append("the run's date and duration were not recorded"
                        + (f" (`git log -1 -- {out.json}` dates the commit that stored them)" if out.json else ""))
        if result.get("relabelled"):
            said.append(f"its rows named the baseline commit, shown as *{BASELINE_LABEL}* here")
        fields = [f"`{k}`" for k in result["missing"]]
        listed = ", ".join(fields[:-1]) + f" and {fields[-1]}" if len(fields) > 1 else fields[0]
        lines += [f"> These results were stored before runs kept {listed}: " + "; ".join(said) + ".", ""]
    return lines


def texts(result: dict, out: Outputs) -> tuple[str, list[tuple[str, str, str, str]]]:
    """The page and the docs blocks ``(start marker, end marker, block, what)`` of ``result`` (as ``stored``)."""
    if "figures" in result:
        from . import load

        return load.texts(result, out)
    from . import report

    return report.texts(result, out)


def write(result: dict, out: Outputs, log=print) -> None:
    """Write the page (``out.markdown``) and the blocks (into ``out.docs``) of ``result`` as loaded from JSON."""
    page, blocks = texts(stored(result), out)
    if out.markdown:
        Path(out.markdown).parent.mkdir(parents=True, exist_ok=True)
        Path(out.markdown).write_text(page, encoding="utf-8")
        log(f"wrote {out.markdown}")
    if out.docs:
        for start, end, block, what in blocks:
            rewrite_marked(Path(out.docs), start, end, block)
            log(f"wrote {what} into {out.docs}")


def publish(result: dict, out: Outputs, log=print) -> None:
    """A run's end: store ``result`` (``out.json``), then write the page and blocks from what was stored."""
    text = json.dumps(result, indent=1, default=str) + "\n"
    if out.json:
        Path(out.json).parent.mkdir(parents=True, exist_ok=True)
        Path(out.json).write_text(text, encoding="utf-8")
        log(f"wrote {out.json}")
    write(json.loads(text), out, log)


def main(argv: list[str]) -> int:
    p = argparse.ArgumentParser(prog="python -m viz_app bench render", description=__doc__.splitlines()[0])
    p.add_argument("--json", required=True, metavar="PATH",
                   help="stored results: docs/benchmarks.json (bench all) or docs/load-benchmark.json (bench load)")
    p.add_argument("--markdown", metavar="PATH", help="the page to write, e.g. docs/benchmarks.md")
    p.add_argument("--docs", metavar="PATH", help="the page whose generated blocks to write "
                                                   "(docs/benchmarks-and-reliability.md)")
    args = p.parse_args(argv)
    if not (args.markdown or args.docs):
        p.error("nothing to write: give --markdown PATH, --docs PATH or both")
    try:
        result = json.loads(Path(args.json).read_text(encoding="utf-8"))
    except (OSError, ValueError) as err:
        print(f"error: --json {args.json}: cannot read stored results ({err}); give the JSON a benchmark run wrote",
              file=sys.stderr)
        return 2
    if not isinstance(result, dict) or "tables" not in result or "machine" not in result:
        print(f"error: --json {args.json}: no benchmark results (no tables or machine); give the JSON that "
              "`bench all --json` or `bench load --json` wrote", file=sys.stderr)
        return 2
    try:
        write(result, Outputs(args.json, args.markdown, args.docs))
    except ValueError as err:
        print(f"error: --json {args.json}: {err}", file=sys.stderr)
        return 2
    except OSError as err:  # disan.errors.OutputError: no markers in --docs, or a page that cannot be written
        print(f"error: {err}", file=sys.stderr)
        return 2
    return 0
