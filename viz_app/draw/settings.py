"""App-wide limits and defaults (constants only; override the token limit with ``VIZ_MAX_TOKENS``)."""

from __future__ import annotations

import os


def _env_int(name: str, default: int, low: int) -> int:
    """An integer from the environment, or ``default`` when unset or invalid."""
    raw = os.environ.get(name, "")
    return max(low, int(raw)) if raw.strip().isdigit() else default


#: Torch threads of the app's process (``VIZ_TORCH_THREADS``). The app's traces are small (≤ 128 tokens), and
#: with more threads than free cores OpenMP's barriers wait on busy cores: on this 2-core machine under
#: load, one DSA trace of 64 tokens took far longer with 2 threads than with 1.
TORCH_THREADS = _env_int("VIZ_TORCH_THREADS", 1, 1)

#: Most tokens per sentence in a page of the project's own (a standalone report, ``trace.to_html``, the static
#: explorer, and the explorer folder whose model Explore runs in the app's page while one types). Since the one
#: trace view (issue 54 item 5) a report carries DiSAN's keys, queries and c (T·2D floats per block, linear in T)
#: and the page computes the per-feature P from them; only the DSA's scores and heads grow with T² (H·T² floats).
#: ``python scripts/report_sizes.py`` measures the worst case (a pair of 256-token sentences) against
#: ``REPORT_MAX_BYTES``; ``bench site`` times the page at T = 128 and 256. The one place this limit is set:
#: ``site.py``, ``report.py``, ``pair_report.py`` and the page's ``sections.js`` (through ``figure_context``) read it.
REPORT_MAX_TOKENS = 256

#: Most tokens a sentence may have in the app's server (``VIZ_MAX_TOKENS``; the API allows more). It is not
#: ``REPORT_MAX_TOKENS`` on purpose: the server traces every sentence with torch and keeps whole traces (DiSAN's
#: T·T·D per-feature P per block) in a cache every session shares (``loaders.full_trace``, 6 entries), where a
#: page keeps only its trace view. ``python -m viz_app bench trace`` (docs/benchmarks.md): a random-weight DiSAN
#: trace takes 67.5 ms and 109 MiB at T = 128, 387 ms and 266 MiB at T = 256. docs/app.md lists every limit.
MAX_TOKENS = _env_int("VIZ_MAX_TOKENS", 128, 8)

#: Most characters accepted in a text box or query parameter.
MAX_CHARS = 5000

#: Range and step of every α slider (Im Eq. 7's distance weight).
ALPHA_MIN, ALPHA_MAX, ALPHA_STEP = 0.0, 5.0, 0.1

#: α drawn by the Masks view when the model is a DiSAN model (Im Sec. 5.2: 1.5).
PAPER_ALPHA = 1.5

#: Sentence shown on first load (Shen Sec. 5.4's sentence 1, Figs. 6–7; its Fig. 6 discussion calls it sentence 2).
DEFAULT_SENTENCE = "Families have some dogs in front of a carousel"

#: Hypothesis used when an NLI model is chosen and none was typed.
DEFAULT_HYPOTHESIS = "A family is outside ."

#: Heatmaps print each cell's value when the sentence has at most this many tokens.
CELL_TEXT_MAX = 12

#: Small multiples are block-averaged down to at most this many cells per side.
SMALL_MULTIPLE_MAX = 48

#: Small multiples in a report are never block-averaged: its sentences have at most 64 tokens and the α
#: control redraws every head cell by cell.
HEAD_CELLS = 64

#: What each vocabulary status of a token means (the tokens' legend and hover, drawn by ``browser/sections.js``).
STATUS_NAMES = {
    "vocab": "in the model's vocabulary",
    "glove": "GloVe vector the model never trained on",
    "unknown": "unknown: no vector, uses the <unk> row",
}

#: What the minimal-pair view (issue 30) calls a relatedness model's two inputs. Its sides are A and B, so SICK's
#: own names, "sentence A" and "sentence B" (kept everywhere else), would read "B: sentence A" there. The pair's
#: page (``browser/pair_view.js``, via ``site_view.figure_context``), its controls, presets and messages read it here.
PAIR_RELATEDNESS_NAMES = ("first sentence", "second sentence")

#: α and feature sliders recompute the maps in the browser (``viz_app/browser``); 0 = the server path
#: (a Streamlit rerun per step), kept as the benchmark's baseline.
BROWSER_RECOMPUTE = os.environ.get("VIZ_BROWSER_RECOMPUTE", "1").strip() != "0"

#: Explore runs the model in the page and follows typing (``viz_app/shell/explorer.py``); 0 = only a submit
#: redraws (the tests' default: building a model's in-page folder costs seconds of export).
EXPLORE_TYPING = os.environ.get("VIZ_EXPLORE_TYPING", "1").strip() != "0"

#: The app builds every bundled trained model's in-page folder ahead, in the background, when it starts
#: (``viz_app/shell/explorer.py`` ``build_ahead``); 0 = only the models a page opens (the tests' default).
EXPLORER_AHEAD = os.environ.get("VIZ_EXPLORER_AHEAD", "1").strip() != "0"

#: Explore tells the server the typed sentence this long after the last key (the address, the other views).
TYPING_SEND_AFTER_MS = 700

#: A live control tells the server its value this long after the last move: longer than the gap between key
#: presses at two or more steps a second, so stepping α or k with the arrow keys never meets a rerun (issue 19).
LIVE_SEND_AFTER_MS = 700

#: After a live control rests this long, every chart of its group is redrawn by Plotly.react (colour bars and
#: limits follow); until then the page repaints the heatmaps in place. Also longer than a key-press gap.
LIVE_SETTLE_MS = 600

#: Largest report file written (10 MB): ``python scripts/report_sizes.py`` prints the worst cases, which stay
#: below it with the trained masks even if nothing compresses; the diag/none overrides rely on gzip.
REPORT_MAX_BYTES = 10_000_000

#: Seconds between a page drawn from stored records (``view_store``) and the background load of torch and the
#: model (``loaders.warm_up``): importing torch holds Python's lock for long stretches, and begun at once it
#: held back the sending of that very page (its heatmap came visibly later in ``bench cold-start``'s runs).
WARM_UP_DELAY_S = 1.5
