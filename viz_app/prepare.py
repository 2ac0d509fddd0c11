"""``python -m viz_app prepare`` (``disan prepare``): the first start's own work done at install (issue 58).

``bash scripts/app.sh`` runs it after installing, before it starts the app, so that a newcomer's very first start
is a start like any later one (``bench cold-start``'s row "first start after install"):

* the default model's opening page (its default sentence, masks and α) stored where the app reads it
  (``viz_app/draw/view_store.py``): the first page is drawn from it before torch has loaded, instead of after
  torch, the model and its first trace (``bench cold-start``'s row "no stored page": over the 3 s target);
* Explore's in-page copy of the default model (``viz_app/shell/explorer.py``'s folder, an ONNX export run by the
  page): the first page follows typing at once instead of after a background build of tens of seconds;
* the GloVe word index (``disan/glove_index.py``), written by the model's first load here, for the model the app
  loads behind its first page;
* the package's bytecode and the app's copy of plotly.js, which the first start otherwise writes itself.

Everything goes to the user's cache (platformdirs; ``DISAN_VIEW_CACHE`` and ``DISAN_EXPLORER_CACHE`` name other
folders), never into the package; the files are named by a SHA-256 of the checkpoint and the code, so a changed
checkpoint is simply prepared again (or built by the app as before). Work already done is skipped, so running
it again takes seconds. A step that cannot be done prints one line and the rest goes on: the app then does
that work itself, as before.
"""

from __future__ import annotations

import compileall
import time
from collections.abc import Callable, Sequence
from pathlib import Path

from disan.errors import DisanError


def checkpoint_of(name: str) -> Path | None:
    """As the app's ``loaders.checkpoint_of`` (not imported: its Streamlit caches warn outside a server)."""
    from disan.api import checkpoint_path
    from disan.config import ARCHS

    return None if name in ARCHS else checkpoint_path(name)


def _opening_page(name: str, say: Callable[[str], None]) -> Path | None:
    """Store ``name``'s opening page as the app's ``loaders.trace_view`` would; its file, or None if it could not."""
    import disan
    from viz_app.draw import settings, view_store
    from viz_app.draw.records import trace_view as to_view

    cfg = disan.describe(name, verify=True)
    hypothesis = settings.DEFAULT_HYPOTHESIS if cfg.pair else None
    record = view_store.opening_path(name, checkpoint_of(name), cfg.arch, cfg.glove, settings.DEFAULT_SENTENCE,
                                     hypothesis, "default")
    if view_store.read(record) is not None:
        say(f"{name}'s opening page is stored already ({record.parent})")
        return record
    say(f"storing {name}'s opening page (loads torch and the model: seconds)")
    import torch

    torch.set_num_threads(settings.TORCH_THREADS)  # as the app's load_model: the same trace
    view = to_view(disan.load(name, device="cpu").trace(settings.DEFAULT_SENTENCE, hypothesis, alpha=None,
                                                         masks="default"))
    if not view_store.write(view, record):
        say(f"warning: could not write {record}; the first start will trace the sentence itself "
            f"(set {view_store.ENV} to a folder you can write to)")
        return None
    return record


def _in_page_model(name: str, say: Callable[[str], None]) -> Path | None:
    """Build Explore's in-page copy of ``name`` into the user cache; its folder, or None if it could not."""
    import disan
    from disan.config import ARCHS
    from viz_app.draw import settings, site, view_store
    from viz_app.shell import explorer

    if not settings.EXPLORE_TYPING or name in ARCHS:
        say(f"{name}: no in-page copy (random weights, or VIZ_EXPLORE_TYPING=0)")
        return None
    cfg = disan.describe(name)
    source = view_store.source_id(checkpoint_of(name), cfg.arch, cfg.glove)
    out = explorer.folder() / explorer.folder_name(name, source)
    if (out / site.MARKER).is_file():
        say(f"Explore's in-page copy of {name} is built already ({out.parent})")
        return out
    say(f"building Explore's in-page copy of {name} (an ONNX export: tens of seconds)")
    build = explorer.build_now(name, source)
    if build.problem is not None:
        say(f"warning: Explore's in-page copy of {name} was not built ({build.problem}); the app builds it in the "
            "background after its first page")
        return None
    return build.out


def prepare(names: Sequence[str] | None = None, log: Callable[[str], None] = print) -> dict[str, list[Path | None]]:
    """Prepare ``names`` (default: the app's default model) as the module docstring says; per model, its opening
    page's file and its in-page folder (None where a step could not be done)."""
    from viz_app.shell import models
    from viz_app.shell.plotly_js import copy_plotly_js

    start = time.monotonic()

    def say(line: str) -> None:
        log(f"prepare [{time.monotonic() - start:.0f} s] {line}")

    package = Path(__file__).resolve().parent
    say("writing the bytecode of disan/ and viz_app/")
    for folder in (package.parent / "disan", package):
        compileall.compile_dir(folder, quiet=2)
    if not copy_plotly_js():
        say(f"warning: could not copy plotly.js into {package / 'static'}; the app tries again when it starts")
    if names is None:
        names = [models.default_model(models.available())]
    done: dict[str, list[Path | None]] = {}
    for name in names:
        done[name] = [_opening_page(name, say), _in_page_model(name, say)]
    say("prepared: the app's first start draws its opening page from the cache")
    return done


def add_parser(sub) -> None:
    p = sub.add_parser("prepare", help="do the app's first-start work ahead (bash scripts/app.sh runs it after "
                                       "installing): the default model's opening page and its in-page copy, into "
                                       "the user cache")
    p.add_argument("--model", action="append", default=None,
                   help="a bundled model or checkpoint path to prepare (repeat for several; default: the app's "
                        "default model)")


def run(args) -> int:
    """The CLI's ``prepare``: one line per step; a model that cannot be read is one line and status 2."""
    try:
        prepare(args.model, log=lambda line: print(line, flush=True))
    except OSError as err:
        raise DisanError(f"prepare could not write its files ({err}); set DISAN_VIEW_CACHE and "
                         "DISAN_EXPLORER_CACHE to folders you can write to.") from None
    return 0
