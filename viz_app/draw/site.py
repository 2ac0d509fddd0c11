"""The static explorer: ``python -m viz_app site --out DIR [--model NAME ...]``.

Writes a folder that works opened from disk (``file://``), from any static file server and with no
network at all. The models run in the visitor's browser: each is the torch modules exported to ONNX
(``disan.onnx_export``) and run by onnxruntime-web, so any typed sentence is computed in the page.

Chromium refuses ``fetch()`` from a ``file://`` page, so every file the page reads is a classic
``<script>`` beside it that assigns one global (``viz_app/browser/site.js`` lists them; the page code is the
site's bundle, ``bundles.py``). Binary files (the ONNX graph, onnxruntime's wasm) travel as gzip + base64 text
and are unpacked by the browser's own ``DecompressionStream``, as the offline report does.

Folder::

    index.html                the page
    assets/                   onnxruntime-web, the page code's bundle (shared by every model)
    models/<name>.js          one model: its ONNX graphs, their shared weights, its vocabulary (loaded when picked)
    search/<name>.js          with --search: its test set's index, packed (site_search.py; loaded by Search)

The folder is built beside ``DIR`` and renamed into place, so a failed build leaves ``DIR`` as it was.
An existing ``DIR`` is replaced only when it is an earlier site (it holds ``MARKER``).
"""

from __future__ import annotations

import base64
import gzip
import io
import json
import os
import shutil
import tempfile
import zipfile
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from disan.errors import DisanError, InputError, OutputError

from viz_app.draw import bundles, presets, settings
from viz_app.draw.plotly_bundle import NODE_MODULES
from viz_app.draw.provenance import provenance
from viz_app.draw.site_probe import probe_graph
from viz_app.draw.site_start import start_entry

BROWSER = Path(__file__).resolve().parents[1] / "browser"
ROOT = BROWSER.parents[1]
#: The WebAssembly kernels (viz_app/kernels/, built into dist/ by ``npm ci``; kernel_part.js runs them).
KERNELS = BROWSER.parent / "kernels" / "dist"
#: onnxruntime-web's files, installed by ``npm ci`` (scripts/setup.sh); ``DISAN_ORT_DIR`` overrides.
ORT_VERSION = "1.30.0"
ORT_SCRIPT = "ort.wasm.min.js"  # the classic-script build: the page starts its worker from this text (site.js)
ORT_WASM = "ort-wasm-simd-threaded.wasm"
ORT_LOADER = "ort-wasm-simd-threaded.mjs"
#: The page's scripts in assets/: the runtime and the data (each assigns one global), then the page code (the
#: site's bundle, ``bundles.py``: one global, ``Disan``) are the page's own <script>s; ``Disan.preload`` starts
#: the model, then boots the page (its figures are the page code's canvas components: no plotting library).
EARLY_SCRIPTS = ("ort-runtime.js", "site-data.js", "site.js")
LATE_SCRIPTS: tuple[str, ...] = ()
STYLES = ("report.css", "tokens.css", "site.css")
#: Present in every folder this module writes: only such a folder is ever replaced.
MARKER = ".disan-site"
#: Most tokens per sentence the page takes (the report's limit: T² maps and T²·D DiSAN features stay small).
MAX_TOKENS = settings.REPORT_MAX_TOKENS
DEFAULT_MODEL = "disan-sst5"
#: The picker's name of a model's training task (its card's ``train_config.task``).
TASK_TITLES = {"sst5": "SST-5", "sst2": "SST-2", "nli": "NLI", "snli": "NLI", "trec": "TREC question types",
               "subj": "SUBJ", "mpqa": "MPQA", "cr": "CR", "sick": "SICK relatedness"}
#: Largest file one model may ship as (weights + vocabulary, gzip + base64): issue 18's 10 MB.
MODEL_MAX_BYTES = 10_000_000


@dataclass(frozen=True)
class SiteModel:
    """One model in the folder: its file and what its export measured."""

    name: str
    file: str
    bytes: int
    onnx_bytes: int
    vocab_bytes: int
    own_words: int
    extra_words: int
    int8: tuple[str, ...]
    float16_error: float
    start_bytes: int = 0  # models/<name>.start.js: the opening sentence's outputs (site_start.py)
    search_bytes: int = 0  # search/<name>.js: its test set's packed index (site_search.py), 0 when none
    search_corpus: str = ""


@dataclass(frozen=True)
class SiteInfo:
    """What ``build_site`` wrote."""

    out: Path
    models: tuple[SiteModel, ...]
    shared_bytes: int

    @property
    def total_bytes(self) -> int:
        return self.shared_bytes + sum(m.bytes + m.start_bytes + m.search_bytes for m in self.models)


def ort_dir() -> Path:
    """onnxruntime-web's ``dist`` folder, or ``DisanError`` saying how to install it."""
    given = os.environ.get("DISAN_ORT_DIR")
    folder = Path(given).expanduser() if given else NODE_MODULES / "onnxruntime-web" / "dist"
    missing = [n for n in (ORT_SCRIPT, ORT_WASM, ORT_LOADER) if not (folder / n).is_file()]
    if missing:
        raise DisanError(
            f"onnxruntime-web {ORT_VERSION} is not installed ({folder / missing[0]} is missing); run `npm ci` in the "
            "repository root (bash scripts/setup.sh does it) or set DISAN_ORT_DIR to its dist/ folder."
        )
    return folder


def kernel_wasm() -> bytes:
    """The fused token2token kernel (viz_app/kernels/token2token.ts), built by ``npm ci`` (package.json's
    postinstall, scripts/build_kernels.mjs); built here should ``npm ci`` have run before it was added. DisanError
    naming the fix where it cannot be."""
    import subprocess

    wasm = KERNELS / "token2token.wasm"
    if not wasm.is_file():
        node = shutil.which("node")
        done = node and subprocess.run([node, str(ROOT / "scripts" / "build_kernels.mjs")], cwd=ROOT,
                                       capture_output=True, text=True, timeout=300)
        if not done or done.returncode != 0 or not wasm.is_file():
            raise DisanError(f"The token2token kernel is not built ({wasm} is missing) and could not be built here"
                             f"{': ' + done.stderr.strip().splitlines()[-1] if done and done.stderr.strip() else ''}; "
                             "run `npm ci` in the checkout (scripts/setup.sh) and build the folder again.")
    return wasm.read_bytes()


def _b64gz(raw: bytes) -> str:
    return base64.b64encode(gzip.compress(raw, compresslevel=9, mtime=0)).decode("ascii")


def _json(value) -> str:
    """``value`` as JSON for a classic script; ``</`` is escaped so no string ends the tag."""
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"), allow_nan=False).replace("</", "<\\/")


def _script(global_name: str, value) -> str:
    """A classic script assigning ``value`` (JSON) to a global."""
    return f"window.{global_name} = {_json(value)};\n"


def _keyed_script(global_name: str, key: str, value) -> str:
    """A classic script adding ``value`` (JSON) under ``key`` to the global object ``global_name``: one file per
    model (models/<name>.js, models/<name>.start.js), each loaded only when that model is shown."""
    return (f"window.{global_name} = window.{global_name} || {{}};\n"
            f"window.{global_name}[{json.dumps(key)}] = {_json(value)};\n")


def _model_script(name: str, onnx: bytes, vocab: bytes) -> str:
    """``models/<name>.js``: every graph the page runs, cut here (``disan.onnx_graphs``: the whole graph, the maps',
    the probabilities', the parts), the weights they share, stored once, the vocabulary, and the plan: what each cut
    passes on and where the word table lies in the weights (pair.js reads it there)."""
    from disan.onnx_graphs import page_graphs

    meta = json.loads(vocab)
    graphs, weights, plan = page_graphs(onnx, _maps(meta), _outputs(meta)["prediction"], meta.get("c"))
    kernel = plan["cuts"]["parts"] and plan["cuts"]["parts"].get("kernel")
    if kernel and os.environ.get("DISAN_SITE_KERNEL", "1") == "0":  # a folder without it, to measure against
        for spec in kernel.values():
            for k in ("front", "after"):
                graphs.pop(spec[k], None)
        kernel = plan["cuts"]["parts"]["kernel"] = None
    if kernel:  # kernel_part.js: the graphs around the token2token blocks and the kernel, handed to the worker as they are
        for spec in kernel.values():
            for k in ("front", "after"):
                spec[k] = spec[k] and _b64gz(graphs.pop(spec[k]))
        kernel["wasm"] = _b64gz(kernel_wasm())
    return _keyed_script("DisanSiteModels", name, {"graphs": {k: _b64gz(g) for k, g in graphs.items()},
                                                   "weights": _b64gz(weights), "vocab": _b64gz(vocab), **plan})


def _maps(meta: dict) -> list[str]:
    """The outputs of the maps the page paints first while typing, per sentence: DiSAN's mean P and Eq. 15's keys
    and queries, the DSA's per-head probabilities and scores (Im Eq. 7)."""
    fields = ("mean", "keys", "queries") if meta["arch"] == "disan" else ("probs", "scores")
    out = _outputs(meta)
    return [out[s][d][f] for s in ("premise", "hypothesis") if s in out for d in ("fw", "bw") for f in fields
            if f in out[s][d]]


def _outputs(meta: dict) -> dict:
    """Which ONNX output holds each trace-view field (site.js's ``names``), read from the export's own output list
    (``disan.onnx_export``: ``[p_|h_]fw_<field>``, ``[p_|h_]<field>``), so an output added there reaches the page
    with no change here; ``trace_view.js`` ``fromOutputs`` names any field it reads that the list lacks."""
    names = [o["name"] for o in meta["outputs"]]
    model_level = {"probs", "score"}  # the prediction and a relatedness model's rᵀp̂ (disan.onnx_export)
    out: dict = {"prediction": "probs"}
    if meta.get("relatedness"):
        out["relatedness"] = "score"
    missing = sorted(set(out.values()) - set(names))
    if missing:
        raise DisanError(f"The export of {meta['model']} lacks the outputs {', '.join(missing)}; re-export it.")
    sides = ("premise", "hypothesis") if meta["pair"] else ("premise",)
    prefixes = ("p_", "h_") if meta["pair"] else ("",)
    for side, prefix in zip(sides, prefixes):
        own = [n for n in names if n.startswith(prefix) and n not in model_level]
        blocks = {d: {n[len(f"{prefix}{d}_"):]: n for n in own if n.startswith(f"{prefix}{d}_")} for d in ("fw", "bw")}
        rest = {n[len(prefix):]: n for n in own if not n.startswith((f"{prefix}fw_", f"{prefix}bw_"))}
        out[side] = {**blocks, **rest}
    return out


def _tested(card: dict) -> str:
    """How the card's model scored on test: accuracy, or Pearson's r for a relatedness model; for several seeds
    their mean beside the shipped one (disan.seed_runs); for a cross-validated model the mean over its folds first.
    KeyError / TypeError when the card has no test score."""
    test = card["evaluation"]["test"]
    block = card.get("test_runs")
    if "pearson_r" in test:
        shipped = f"test Pearson's r {test['pearson_r']:.4f}"
        mean = f"{block['mean']:.4f}" if block else ""
    else:
        shipped = f"test accuracy {100 * test['accuracy']:.2f}%"
        mean = f"{100 * block['mean']:.2f}%" if block else ""
    if not block:
        return shipped
    n = len(block["runs"])
    if block.get("unit") == "fold":
        sd = "" if block.get("sd") is None else f", sd {100 * block['sd']:.2f}"
        return (f"{n}-fold cross-validation accuracy {mean} (mean over the folds{sd}); this checkpoint is fold "
                f"{block['shipped']['fold']}, picked on dev: {100 * test['accuracy']:.2f}% on its test fold")
    return f"{shipped} (the {block['unit']} picked on dev; mean of {n}: {mean})"


#: What a separately trained ablation (``disan train --ablation``) leaves out, in its picker title: without it an
#: ablation had its base model's title ("DiSAN (Shen et al. 2018), SST-5" for disan-sst5 and disan-sst5-nodir).
ABLATION_TITLES = {"nodir": "without direction masks (Shen Tables 1–2)",
                   "nodist": "without the distance mask (Im Table 1)"}


def _facts(name: str, meta: dict, source: str | None = None) -> tuple[str, str]:
    """A short title and one line of facts for the model picker (from its card when it has one; ``source``: the
    checkpoint path of a model given by path, whose card is beside it)."""

    import disan.api
    from disan.cards import read_card

    try:
        card = (disan.api.card_of(source) if source and source.endswith(".safetensors")
                else read_card(name, disan.api.PRETRAINED_DIR))  # looked up now: tests point it at their own folder
    except (DisanError, OSError):
        card = {}
    trained_on = card.get("train", {}).get("train_config", {}).get("task")
    data_file = card.get("data_file", {}).get("files", {}).get("data", {}).get("path")
    task = (f"your file {Path(data_file).name}" if data_file else None) or TASK_TITLES.get(trained_on) or (
        TASK_TITLES["sick"] if meta.get("relatedness") else "NLI" if meta["pair"] else "SST-5")
    arch = "DiSAN (Shen et al. 2018)" if meta["arch"] == "disan" else "distance-based SAN (Im & Cho 2017)"
    ablation = card.get("train", {}).get("train_config", {}).get("ablation")
    if ablation in ABLATION_TITLES:
        arch = f"{arch} {ABLATION_TITLES[ablation]}"
    try:
        tested = _tested(card)
    except (KeyError, TypeError):
        tested = "no model card"
    return f"{arch}, {task}", f"{name}: {arch} trained on {task}; {tested}; masks {'/'.join(meta['masks'])}" + (
        f"; α = {meta['alpha']:g}" if meta["alpha"] is not None else "")


def _page_model(name: str, meta: dict, file: str, source: str | None = None) -> dict:
    title, facts = _facts(name, meta, source) if source and source != name else _facts(name, meta)
    inputs = {"premise": "p_ids" if meta["pair"] else "ids", "hypothesis": "h_ids" if meta["pair"] else None,
              "alpha": "alpha" if meta["arch"] == "dsa" else None}
    d_model = next(o["shape"][-1] for o in meta["outputs"] if o["name"].endswith("fw_gate"))
    heads = next((o["shape"][0] for o in meta["outputs"] if o["name"].endswith("fw_scores")), 0)
    out = {"name": name, "title": title, "facts": facts, "file": file, "arch": meta["arch"], "pair": meta["pair"],
           "relatedness": bool(meta.get("relatedness")), "labels": meta["labels"], "masks": meta["masks"],
           "d_model": d_model, "heads": heads, "inputs": inputs, "outputs": _outputs(meta),
           "pair_presets": presets.pair_presets_for(meta["arch"], meta["pair"], bool(meta.get("relatedness"))),
           "test_presets": [{"label": p.label, "text": p.sentence, "hypothesis": p.hypothesis}
                            for p in presets.model_presets(source or name)],
           "provenance": provenance(source or name)}
    if meta["alpha"] is not None:
        out["alpha"] = meta["alpha"]
    if meta.get("c") is not None:
        out["c"] = meta["c"]  # DiSAN: Shen Eq. 15's c, for the logits under other masks (recompute.js remask)
    return out


def _figure_constants() -> dict:
    from viz_app.draw.site_view import figure_context

    return figure_context()


def _search_spec() -> dict:
    from viz_app.draw.site_search import search_spec

    return search_spec()


def _tokenizer() -> dict:
    from viz_app.draw.tokenizer_rules import tokenizer_rules

    return tokenizer_rules()


def _opening(start: tuple[str, str] | None) -> tuple[str, str]:
    """The (sentence, hypothesis) the page opens on: ``start``, else the app's first sentence."""
    text, hypothesis = start or (settings.DEFAULT_SENTENCE, settings.DEFAULT_HYPOTHESIS)
    return text[: settings.MAX_CHARS], (hypothesis or settings.DEFAULT_HYPOTHESIS)[: settings.MAX_CHARS]


def site_data(models: Sequence[dict], start: tuple[str, str] | None = None, max_tokens: int = MAX_TOKENS) -> dict:
    """``window.DisanSiteData``: everything the page needs besides the models' own files.

    ``start``: the (sentence, hypothesis) the page opens on (default: the app's first sentence); ``max_tokens``:
    the longest sentence the page runs (a page's limit; the app's Explore folder gets the app's).
    """
    names = [m["name"] for m in models]
    default = DEFAULT_MODEL if DEFAULT_MODEL in names else names[0]
    text, hypothesis = _opening(start)
    return {
        "format": "disan-site/1",
        "models": list(models),
        "default_model": default,
        "default_text": text,
        "default_hypothesis": hypothesis,
        "presets": [{"label": p.label, "text": p.sentence, "hypothesis": p.hypothesis} for p in presets.PRESETS]
        + [p for m in models for p in m.get("test_presets", [])],  # a model of yours: its test part, one per class
        "limits": {"max_tokens": max_tokens, "max_chars": settings.MAX_CHARS, "alpha_min": settings.ALPHA_MIN,
                   "alpha_max": settings.ALPHA_MAX, "alpha_step": settings.ALPHA_STEP},
        "tokenizer": _tokenizer(),
        "figures": _figure_constants(),
        "search": _search_spec() if any(m.get("search") for m in models) else None,
    }


def index_html() -> str:
    """The page: controls, the message line and the report's sections (filled by site.js)."""
    links = "".join(f'<link rel="stylesheet" href="assets/{s}">' for s in STYLES)
    # the late scripts are read from disk at once and run when preload() adds them
    links += "".join(f'<link rel="preload" as="script" href="assets/{s}">' for s in LATE_SCRIPTS)
    tags = lambda names: "".join(f'<script src="assets/{s}"></script>' for s in names)  # noqa: E731
    late = json.dumps([f"assets/{s}" for s in LATE_SCRIPTS])
    scripts = f"{tags(EARLY_SCRIPTS)}<script>Disan.preload({late});</script>"
    return (
        '<!DOCTYPE html><html lang="en"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"<title>DiSAN &amp; distance-based SAN: attention explorer</title>{links}</head>"
        '<body class="report site" data-state="loading">'
        '<header id="site-header"><h1>Attention explorer: DiSAN and the distance-based SAN</h1>'
        '<form id="controls" onsubmit="return false">'
        '<label class="field">model <select id="model"></select></label>'
        '<label class="field">view <select id="view"><option value="sentence">one sentence</option>'
        '<option value="pair">minimal pair: A and B</option><option value="search" hidden disabled>search its corpus'
        '</option></select></label>'
        '<label class="field">example sentences <select id="preset"><option value="">— pick one —</option>'
        "</select></label>"
        f'<label class="field wide">sentence <textarea id="text" rows="2" maxlength="{settings.MAX_CHARS}" '
        'spellcheck="false"></textarea></label>'
        f'<label class="field wide" id="hyp-row">hypothesis <input id="hypothesis" maxlength="{settings.MAX_CHARS}" '
        'spellcheck="false"></label>'
        # Pair mode (site_pair.js, issue 30): sentence B and the pair examples, hidden in the one-sentence view.
        '<label class="field" id="pair-preset-row" hidden>pair examples <select id="pair-preset">'
        '<option value="">— pick one —</option></select></label>'
        f'<label class="field wide" id="b-text-row" hidden>B: sentence <textarea id="b-text" rows="2" '
        f'maxlength="{settings.MAX_CHARS}" spellcheck="false"></textarea></label>'
        f'<label class="field wide" id="b-hyp-row" hidden>B: hypothesis <input id="b-hypothesis" '
        f'maxlength="{settings.MAX_CHARS}" spellcheck="false"></label></form>'
        '<p id="model-facts" class="sub"></p><p id="status" role="status" aria-live="polite"></p>'
        '<div id="page-header"></div></header>'
        '<main id="report"></main>'
        "<noscript><p class=\"error\">This page computes in the browser and needs JavaScript.</p></noscript>"
        f"{scripts}</body></html>"
    )


def _fresh_folder(out: Path) -> Path:
    """A new empty folder beside ``out`` to build in; ``OutputError`` when ``out`` cannot be (re)placed."""
    if out.exists() and not out.is_dir():
        raise OutputError(f"{str(out)!r} is a file; give a folder for the site (it is created).")
    if out.is_dir() and any(out.iterdir()) and not (out / MARKER).is_file():
        raise OutputError(
            f"{str(out)!r} already holds files that are not a site written by this command; give an empty or new folder."
        )
    if out.parent.exists() and not out.parent.is_dir():
        raise OutputError(f"Cannot create {str(out)!r}: {str(out.parent)!r} is a file, not a folder; choose another path.")
    if not out.parent.is_dir():
        raise OutputError(f"Cannot create {str(out)!r}: its folder {str(out.parent)!r} does not exist; create it first.")
    try:
        tmp = Path(tempfile.mkdtemp(prefix=f".{out.name}.", suffix=".part", dir=out.parent))
    except OSError as err:
        raise OutputError(f"Cannot write in {str(out.parent)!r}: {err.strerror}; choose a folder you can write to.") from None
    # mkdtemp's folder is the owner's alone (0700): a web server running as another user could not read the site;
    # readable by all as a folder mkdir makes under the usual umask (not os.umask: the app builds sites in threads)
    tmp.chmod(0o755)
    return tmp


def _swap_in(tmp: Path, out: Path) -> None:
    """Replace ``out`` (an earlier site or nothing) by ``tmp`` with renames, never leaving half a site."""
    old = None
    if out.exists():
        old = out.with_name(f".{out.name}.old-{os.getpid()}")
        os.replace(out, old)
    os.replace(tmp, out)
    if old is not None:
        shutil.rmtree(old, ignore_errors=True)


def _export(source: str, workdir: Path, extra_words: int | None, name: str | None = None) -> tuple:
    """Export ``name`` so that its shipped file (gzip + base64) stays within ``MODEL_MAX_BYTES``.

    The export's own budget counts raw bytes; base64 adds a third and float16 weights hardly compress, so
    the raw budget is lowered until the shipped file fits (more matrices go to int8, each stated).
    Returns the export and the text of ``models/<name>.js``.
    """
    import disan
    from disan.onnx_export import export_site_model

    name = name or source
    model = disan.load(source, "cpu")
    if model.random_weights:
        raise InputError(f"{name!r} has random weights; the explorer shows trained models only, pick a bundled one.")
    kwargs = {} if extra_words is None else {"extra_words": extra_words}
    budget = MODEL_MAX_BYTES
    for _ in range(6):
        export = export_site_model(model, workdir, max_bytes=budget, **kwargs)
        text = _model_script(name, export.onnx_path.read_bytes(), export.vocab_path.read_bytes())
        shipped = len(text.encode("utf-8"))
        if shipped <= MODEL_MAX_BYTES:
            return export, text
        budget = int(budget * MODEL_MAX_BYTES / shipped * 0.99)
    raise OutputError(f"{name}'s file stays over {MODEL_MAX_BYTES:,} bytes; lower --extra-words.")


def _search_file(tmp: Path, name: str, source: str, search: bool | str, data_dir: str | None,
                 log: Callable[[str], None]) -> tuple[str, int, str] | None:
    """Write ``search/<name>.js`` (site_search.py) of the model at ``source`` (a bundled name or a checkpoint's
    path); (file, bytes, corpus), or None when its corpus is absent."""
    import disan
    from viz_app.draw import site_search

    cfg = disan.describe(source)
    corpus = search if isinstance(search, str) else site_search.corpus_for(source, cfg)
    index = site_search.cached_index(source, corpus, data_dir, log)
    if index is None:
        return None
    file = f"search/{name}.js"
    (tmp / "search").mkdir(exist_ok=True)
    (tmp / file).write_text(site_search.search_script(name, index), encoding="utf-8")
    return file, (tmp / file).stat().st_size, index.manifest["corpus"]


def build_site(
    out: str | os.PathLike,
    models: Sequence[str] | None = None,
    *,
    extra_words: int | None = None,
    start: tuple[str, str] | None = None,
    search: bool | str = False,
    data_dir: str | None = None,
    log: Callable[[str], None] = lambda _: None,
    max_tokens: int = MAX_TOKENS,
) -> SiteInfo:
    """Write the explorer for ``models`` (default: every bundled checkpoint) into the folder ``out``;
    ``start`` is the (sentence, hypothesis) it opens on. ``search``: add each model's Search file, of its bundled
    test set (True) or of the corpus it names (``--data``'s forms: a name, TASK:SPLIT or a file). ``max_tokens``: the
    longest sentence the page runs (default a page's limit; the app's Explore folder passes the app's)."""
    from disan.api import PRETRAINED_DIR

    given = list(dict.fromkeys(models or sorted(p.stem for p in PRETRAINED_DIR.glob("*.safetensors"))))
    if not given:
        raise InputError("No model to put in the site; pass --model NAME or add checkpoints to pretrained/.")
    ort = ort_dir()  # before any work: a missing runtime or an unknown model costs nothing
    from disan.api import checkpoint_path, describe

    # a checkpoint path is named by its stem in the page and its files; its card is the one beside it
    sources = {checkpoint_path(m).name.removesuffix(".safetensors") if m.endswith(".safetensors") else m: m
               for m in given}
    if len(sources) < len(given):
        raise InputError("Two --model checkpoints have the same file name; rename one (the page names models by it).")
    names = list(sources)
    for source in sources.values():
        describe(source)
    out = Path(out).expanduser().resolve()
    tmp = _fresh_folder(out)
    try:
        (tmp / "assets").mkdir()
        (tmp / "models").mkdir()
        written, metas = [], []
        with tempfile.TemporaryDirectory(prefix="disan-export-") as work:
            for name in names:
                log(f"exporting {name} …")
                export, text = _export(sources[name], Path(work), extra_words, name)
                meta = json.loads(export.vocab_path.read_bytes())
                file = f"models/{name}.js"
                (tmp / file).write_text(text, encoding="utf-8")
                size = (tmp / file).stat().st_size
                page_model = _page_model(name, meta, file, sources[name])
                # the opening sentence's outputs, for a page opened on it (viz_app/draw/site_start.py)
                entry = start_entry(export.onnx_path.read_bytes(), meta, page_model["outputs"], *_opening(start),
                                    max_tokens=max_tokens)
                page_model["start"] = None if entry is None else f"models/{name}.start.js"
                if entry is not None:
                    (tmp / page_model["start"]).write_text(_keyed_script("DisanSiteStart", name, entry),
                                                           encoding="utf-8")
                metas.append(page_model)
                searched = _search_file(tmp, name, sources[name], search, data_dir, log) if search else None
                page_model["search"] = searched and searched[0]
                written.append(SiteModel(name, file, size, export.onnx_bytes, export.vocab_bytes, export.own_words,
                                         export.extra_words, tuple(export.int8), export.max_float16_error,
                                         (tmp / page_model["start"]).stat().st_size if entry is not None else 0,
                                         *(searched[1:] if searched else ())))
        assets = tmp / "assets"
        runtime = {"version": ORT_VERSION, "wasm": _b64gz((ort / ORT_WASM).read_bytes()),
                   "probe": base64.b64encode(probe_graph()).decode("ascii"),
                   "loader": (ort / ORT_LOADER).read_text(encoding="utf-8"),
                   "script": (ort / ORT_SCRIPT).read_text(encoding="utf-8")}
        (assets / "ort-runtime.js").write_text(_script("DisanOrtRuntime", runtime), encoding="utf-8")
        shutil.copyfile(bundles.path("site"), assets / "site.js")
        for name in STYLES:
            shutil.copyfile(BROWSER / name, assets / name)
        (assets / "site-data.js").write_text(_script("DisanSiteData", site_data(metas, start, max_tokens)), encoding="utf-8")
        (tmp / "index.html").write_text(index_html(), encoding="utf-8")
        (tmp / MARKER).write_text("written by python -m viz_app site; this folder is replaced when rebuilt\n")
        shared = sum(p.stat().st_size for p in assets.iterdir()) + (tmp / "index.html").stat().st_size
        _swap_in(tmp, out)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    return SiteInfo(out, tuple(written), shared)


def site_zip(model: str, start: tuple[str, str] | None = None) -> bytes:
    """The explorer for one model as a zip of its folder (the app's Export area offers it)."""
    with tempfile.TemporaryDirectory(prefix="disan-site-") as work:
        folder = Path(work) / f"explorer-{model}"
        build_site(folder, [model], start=start)
        buffer = io.BytesIO()
        with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
            for path in sorted(folder.rglob("*")):
                if path.is_file():
                    archive.write(path, path.relative_to(folder.parent).as_posix())
        return buffer.getvalue()


def describe(info: SiteInfo) -> str:
    """What the command prints: the folder, each model's file and the totals."""
    lines = [f"wrote {info.out}/index.html (open it from disk, or serve the folder: "
             f"python -m http.server -d {info.out})"]
    for m in info.models:
        lines.append(f"  {m.file}: {m.bytes / 1e6:.2f} MB ({m.own_words:,} own + {m.extra_words:,} GloVe words; "
                     f"max float16 error {m.float16_error:.1e}{'; int8: ' + ', '.join(m.int8) if m.int8 else ''})"
                     + (f"; its opening sentence's run {m.start_bytes / 1e3:.0f} kB" if m.start_bytes else ""))
        if m.search_bytes:
            lines.append(f"  search/{m.name}.js: {m.search_bytes / 1e6:.2f} MB ({m.search_corpus}'s index, packed)")
    lines.append(f"  shared assets: {info.shared_bytes / 1e6:.2f} MB; whole folder {info.total_bytes / 1e6:.2f} MB")
    return "\n".join(lines)
