"""Print the size of the worst-case report of every model (the table of docs/report-and-notebook.md).

Usage: python scripts/report_sizes.py [--models NAME ...] [--docs]  (--docs: also write the table into docs/report-and-notebook.md)

The worst case is the longest input a report takes: a sentence of
``settings.REPORT_MAX_TOKENS`` tokens, and for NLI models a hypothesis of as many
tokens too, cut from the papers' case-study sentences. Sizes are in MB of
10^6 bytes, as written to disk by ``python -m viz_app report``'s own code. The last
column is the size the same report would have if its trace view's arrays (DiSAN's
per-feature probabilities, the DSA's scores) did not compress at all.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
LIMIT_MB = 10.0


def worst_case_texts() -> tuple[str, str]:
    """(premise, hypothesis), each exactly ``REPORT_MAX_TOKENS`` tokens of natural text."""
    from disan import tokenize
    from viz_app.draw.presets import PRESETS, SNLI_LONGEST_TEST
    from viz_app.draw.settings import REPORT_MAX_TOKENS

    sentences = [p.sentence for p in PRESETS]
    premise = tokenize(" ".join([SNLI_LONGEST_TEST, *sentences]))
    hypothesis = tokenize(" ".join(reversed(sentences)))
    # the case studies hold fewer words than the limit: repeat them (the sizes follow T, not the words)
    premise = (premise * -(-REPORT_MAX_TOKENS // len(premise)))[:REPORT_MAX_TOKENS]
    hypothesis = (hypothesis * -(-REPORT_MAX_TOKENS // len(hypothesis)))[:REPORT_MAX_TOKENS]
    return " ".join(premise), " ".join(hypothesis)


def _incompressible_extra(trace) -> int:
    """Bytes the report would grow by if gzip saved nothing on its trace view's arrays (base64 of the raw bytes
    and a gzip header, against the packed text the file holds)."""
    from viz_app.draw.report import _gzip_b64
    from viz_app.draw.site_view import packed_trace_view

    arrays = packed_trace_view(trace)[1]
    return 4 * -(-(len(arrays) + 20) // 3) - len(_gzip_b64(arrays))


def _accepted_length(model, most: int) -> tuple[int, str]:
    """The longest length ≤ ``most`` (per sentence) the model's own per-request memory guard accepts
    (``SentenceModel.check_request``; a DiSAN trace keeps T·T·D probabilities per block), and the guard's
    message for ``most`` ('' where it accepts it)."""
    from disan.errors import InputError

    lengths = (2 if model.cfg.pair else 1)
    refused = ""
    for n in range(most, 0, -8):
        try:
            model.check_request(*[n] * lengths)
            return n, refused
        except InputError as err:
            refused = refused or str(err)
    return 1, refused


def main(argv: list[str] | None = None) -> int:
    sys.path.insert(0, str(ROOT))
    import disan
    from viz_app.draw.report import write_report
    from viz_app.draw.settings import REPORT_MAX_TOKENS

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--models", nargs="*", default=None, help="default: every bundled and random model")
    parser.add_argument("--docs", "--readme", dest="docs", action="store_true",
                        help="write the table between the report-sizes markers in docs/report-and-notebook.md")
    args = parser.parse_args(argv)
    premise, hypothesis = worst_case_texts()
    rows = [f"| model | input | report size (MB) | within {LIMIT_MB:g} MB | build time (s) | if nothing compressed (MB) |",
            "|---|---|---|---|---|---|"]
    print("\n".join(rows))
    worst = 0.0
    with tempfile.TemporaryDirectory() as tmp:
        for name in args.models or disan.available():
            model = disan.load(name, device="cpu")
            n, refused = _accepted_length(model, REPORT_MAX_TOKENS)
            p_text = " ".join(premise.split(" ")[:n])
            h_text = " ".join(hypothesis.split(" ")[:n]) if model.cfg.pair else None
            start = time.perf_counter()
            trace = model.trace(p_text, h_text)
            path = write_report(trace, Path(tmp) / f"{name}.html")
            seconds = time.perf_counter() - start
            mb = path.stat().st_size / 1e6
            worst = max(worst, mb)
            what = f"premise + hypothesis, {n} tokens each" if model.cfg.pair else f"one sentence of {n} tokens"
            if refused:
                what += f" ({REPORT_MAX_TOKENS} each refused by the model: {refused})"
            bound = mb + _incompressible_extra(trace) / 1e6
            rows.append(f"| `{name}` | {what} | {mb:.2f} | {'yes' if mb <= LIMIT_MB else 'NO'} | {seconds:.1f} | {bound:.2f} |")
            print(rows[-1], flush=True)
    if args.docs:
        from disan.output import rewrite_marked

        rewrite_marked(ROOT / "docs" / "report-and-notebook.md", "<!-- report-sizes:start -->", "<!-- report-sizes:end -->", "\n".join(rows))
    return 0 if worst <= LIMIT_MB else 1


if __name__ == "__main__":
    sys.path.insert(0, str(ROOT))
    from disan.errors import run_script

    run_script(main)
