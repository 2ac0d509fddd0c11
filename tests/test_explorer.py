"""viz_app/shell/explorer.py: Explore's in-page model folder (built in the background, keyed by checkpoint and
page code, replacing only the same model's earlier folders)."""

from __future__ import annotations

import os
import shutil
import time

import pytest

from viz_app.draw import settings, site
from viz_app.shell import explorer


@pytest.fixture
def folder(tmp_path, monkeypatch):
    """An explorer folder of the test's own, a fake site builder (no export) and the switch on."""
    monkeypatch.setenv(explorer.ENV, str(tmp_path / "explorer"))
    monkeypatch.setattr(settings, "EXPLORE_TYPING", True)
    monkeypatch.setattr(settings, "EXPLORER_AHEAD", True)
    monkeypatch.setattr(explorer, "plotly_js_served", lambda: True)
    built = []

    def fake_build(out, models, max_tokens):
        out.mkdir(parents=True)
        (out / site.MARKER).write_text("test")
        built.append((out.name, tuple(models)))

    monkeypatch.setattr(site, "build_site", fake_build)
    monkeypatch.setattr(explorer, "_PAGE_DRAWN", explorer.threading.Event())
    explorer._PAGE_DRAWN.set()  # a page has been drawn (build_ahead); the test below of the wait clears it
    explorer._started.clear()
    explorer._served.clear()
    yield tmp_path / "explorer", built
    assert explorer._QUEUE.join(30)
    explorer._started.clear()
    explorer._served.clear()


def _wait(name: str) -> str | None:
    from viz_app.draw import view_store
    from viz_app.shell import loaders

    cfg = loaders.model_config(name)
    build = explorer._started(name, view_store.source_id(loaders.checkpoint_of(name), cfg.arch, cfg.glove))
    assert build.done.wait(30)
    return explorer.explorer_base(name)


def test_random_weights_and_the_switch_give_no_folder(folder, monkeypatch):
    assert explorer.explorer_base("disan") is None  # random weights: the explorer exports trained models only
    monkeypatch.setattr(settings, "EXPLORE_TYPING", False)
    assert explorer.explorer_base("disan-sst5") is None
    assert folder[1] == []


def test_a_trained_model_gets_its_folder_once_and_only_its_old_folders_go(folder):
    root, built = folder
    root.mkdir()
    for stale in ("disan-sst5-0123456789ab", "disan-sst5-nodir-0123456789ab"):
        (root / stale).mkdir()
        (root / stale / site.MARKER).write_text("earlier")
        os.utime(root / stale / site.MARKER, (time.time() - 2 * explorer.STALE_PART_S,) * 2)
    base = _wait("disan-sst5")
    assert base is not None and base.startswith("component/viz_app.shell.explorer.explorer_folders/disan-sst5-")
    assert base.endswith("/") and (root / base.split("/")[-2] / site.MARKER).is_file()
    assert len(built) == 1 and built[0][1] == ("disan-sst5",)
    assert not (root / "disan-sst5-0123456789ab").exists()  # this model's earlier folder
    assert (root / "disan-sst5-nodir-0123456789ab").exists()  # another model's, kept
    assert _wait("disan-sst5") == base and len(built) == 1  # once per process


def test_the_folder_name_follows_the_page_code(folder, monkeypatch):
    first = _wait("disan-sst5")
    explorer._started.clear()
    monkeypatch.setattr(explorer, "_code_fingerprint", lambda: "another page code")
    assert _wait("disan-sst5") != first


def test_a_failed_build_says_why(folder, monkeypatch):
    from disan.errors import DisanError

    def broken(out, models, max_tokens):
        raise DisanError("onnxruntime-web is missing: run npm ci")

    monkeypatch.setattr(site, "build_site", broken)
    assert _wait("disan-sst5") is None
    assert explorer.why_not("disan-sst5") == "onnxruntime-web is missing: run npm ci"


def test_the_folders_go_to_the_user_cache_never_into_the_package(monkeypatch):
    """platformdirs' user cache (XDG_CACHE_HOME on Linux), or the folder ``DISAN_EXPLORER_CACHE`` names."""
    from pathlib import Path

    import viz_app

    monkeypatch.delenv(explorer.ENV, raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", "/tmp/some-cache")
    assert explorer.folder() == Path("/tmp/some-cache/disan/explorer")
    monkeypatch.setenv(explorer.ENV, "/tmp/elsewhere")
    assert explorer.folder() == Path("/tmp/elsewhere")
    package = Path(viz_app.__file__).resolve().parent
    monkeypatch.delenv(explorer.ENV)
    monkeypatch.delenv("XDG_CACHE_HOME")
    assert package not in explorer.folder().resolve().parents


def test_build_ahead_queues_every_trained_model_the_pages_first(folder):
    root, built = folder
    explorer.build_ahead("dsa-nli", ["disan", "disan-sst5", "dsa-nli", "dsa"])
    for name in ("dsa-nli", "disan-sst5"):
        assert _wait(name) is not None
    assert [models for _, models in built] == [("dsa-nli",), ("disan-sst5",)]  # no random-weight model


def test_explore_says_while_the_models_copy_is_built(folder, monkeypatch):
    """Keys wait for the folder: the view says so instead of leaving Streamlit's hint alone (issue 58, item 3)."""
    import threading

    from tests.test_app import run_app

    release = threading.Event()
    monkeypatch.setattr(settings, "EXPLORER_AHEAD", False)
    monkeypatch.setattr(site, "build_site", lambda out, models, max_tokens: release.wait(30) and None)
    at = run_app(view="explore", model="disan-sst5")
    try:
        captions = [c.value.replace("\\", "") for c in at.caption]  # (Markdown-escaped)
        assert any("still being built" in c and "Ctrl+Enter" in c for c in captions), captions
    finally:
        release.set()
        assert explorer._QUEUE.join(30)


def test_build_ahead_off_queues_the_pages_model_only_and_skips_a_damaged_checkpoint(folder, monkeypatch):
    from disan.errors import DisanError
    from viz_app.shell import loaders

    root, built = folder
    monkeypatch.setattr(settings, "EXPLORER_AHEAD", False)
    explorer.build_ahead("disan-sst5", ["disan-sst5", "dsa-nli"])
    assert _wait("disan-sst5") is not None and [m for _, m in built] == [("disan-sst5",)]
    monkeypatch.setattr(settings, "EXPLORER_AHEAD", True)
    real = loaders.model_config

    def damaged(name):
        if name == "dsa-nli":
            raise DisanError("dsa-nli.safetensors is damaged")
        return real(name)

    monkeypatch.setattr(loaders, "model_config", damaged)
    explorer.build_ahead("disan-sst5", ["disan-sst5", "dsa-nli"])  # no exception


def test_a_build_removes_its_models_half_written_folders_of_stopped_servers(folder):
    import os
    import time

    root, built = folder
    root.mkdir()
    stale, fresh, other = (root / ".disan-sst5-0123456789ab.x1.part", root / ".disan-sst5-0123456789ab.x2.part",
                           root / ".dsa-nli-0123456789ab.x3.part")
    for part in (stale, fresh, other):
        part.mkdir()
    hour_ago = time.time() - explorer.STALE_PART_S - 60
    os.utime(stale, (hour_ago, hour_ago))
    os.utime(other, (hour_ago, hour_ago))
    assert _wait("disan-sst5") is not None
    assert not stale.exists() and fresh.exists() and other.exists()  # (another model's goes with its own build)


def test_no_build_starts_before_a_page_has_been_drawn(folder, monkeypatch):
    """A first start with no stored page loads the model for its opening page: a build (an ONNX export, torch
    holding Python's lock) queued by that page's Explore (explorer_base) waits for the page to be drawn
    (build_ahead, called by app.py after it), not a fixed delay from the queueing (bench cold-start's first start)."""
    root, built = folder
    monkeypatch.setattr(settings, "WARM_UP_DELAY_S", 0.0)
    explorer._PAGE_DRAWN.clear()
    assert explorer.explorer_base("disan-sst5") is None  # queued by the page, not started
    assert not explorer._QUEUE.join(1.0) and built == []
    explorer.build_ahead("disan-sst5", ["disan-sst5"])
    assert explorer._QUEUE.join(30) and [name for name, _ in built] == [built[0][0]]
    assert built[0][0].startswith("disan-sst5-") and explorer.explorer_base("disan-sst5") is not None


def test_a_folder_another_app_uses_is_kept_and_a_removed_one_is_built_again(folder):
    """The user cache is shared by every checkout and version of the app: one app's build removed another running
    app's folder of the same model (met on the walk: its page's ort-runtime.js answered 404 and typing stopped
    following, silently). A folder built or opened within the hour is kept, and a folder removed under a running
    app is built again on its next page."""
    root, built = folder
    root.mkdir()
    (root / "disan-sst5-0123456789ab").mkdir()
    (root / "disan-sst5-0123456789ab" / site.MARKER).write_text("another app's, opened just now")
    base = _wait("disan-sst5")
    assert base is not None and (root / "disan-sst5-0123456789ab").exists()
    shutil.rmtree(root / base.split("/")[-2])  # another app's clean-up, or by hand
    assert explorer.explorer_base("disan-sst5") is None  # not the folder that has gone: built again, first
    assert explorer._QUEUE.join(30) and explorer.explorer_base("disan-sst5") == base and len(built) == 2
    assert (root / base.split("/")[-2] / site.MARKER).is_file()
