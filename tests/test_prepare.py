"""viz_app/prepare.py: ``python -m viz_app prepare``, the install step of ``bash scripts/app.sh`` (issue 58): the
default model's opening page and Explore's in-page copy of it go into the user cache (the folders the
environment names), and the app's first start then draws its first page from them, following typing at once."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from disan.vocab import tokenize
from viz_app.draw import settings, site, view_store
from viz_app.shell import explorer

ROOT = Path(__file__).resolve().parents[1]
APP = ROOT / "viz_app" / "app.py"

_FIRST_PAGE = """
import json, sys
from streamlit.testing.v1 import AppTest
at = AppTest.from_file({app!r}, default_timeout=120).run()
assert not at.exception, [e.value for e in at.exception]
datas = [json.loads(c.proto.json) for c in at.get("bidi_component")
         if c.proto.component_name.startswith("viz_plotly_chart")]
roles = [d.get("role") for d in datas]
# every page has a typing element; one that follows typing runs the model (draws), one that only sends does not
typing = any(d.get("role") == "typing" and d.get("draws") is True for d in datas)
print(json.dumps({{"torch": "torch" in sys.modules, "typing": typing, "figures": roles.count("figure"),
                  "captions": [c.value for c in at.caption]}}))
"""


def _first_page(views: Path, explorers: Path) -> dict:
    """A fresh app process's first page with these cache folders: torch imported?, typing followed?"""
    env = {**os.environ, view_store.ENV: str(views), explorer.ENV: str(explorers), "VIZ_EXPLORE_TYPING": "1",
           "VIZ_EXPLORER_AHEAD": "0"}
    out = subprocess.run([sys.executable, "-c", _FIRST_PAGE.format(app=str(APP))], capture_output=True, text=True,
                         env=env, cwd=ROOT, timeout=300)
    assert out.returncode == 0, out.stderr[-3000:]
    return json.loads(out.stdout.strip().splitlines()[-1])


def test_prepare_fills_the_cache_the_env_names_and_the_first_start_uses_it(tmp_path, monkeypatch):
    from viz_app import prepare

    views, explorers = tmp_path / "views", tmp_path / "explorer"
    monkeypatch.setenv(view_store.ENV, str(views))
    monkeypatch.setenv(explorer.ENV, str(explorers))
    monkeypatch.setattr(settings, "EXPLORE_TYPING", True)
    exported = []

    def fake_export(out, models, max_tokens):  # the ONNX export takes tens of seconds; the folder's marker is what is read
        out.mkdir(parents=True)
        (out / site.MARKER).write_text("test")
        exported.append(tuple(models))

    monkeypatch.setattr(site, "build_site", fake_export)
    # the control: with an empty cache the first page loads torch and traces, and typing waits for a build
    before = _first_page(tmp_path / "empty-views", tmp_path / "empty-explorer")
    assert before["torch"] is True and before["typing"] is False and before["figures"] > 0
    assert any("still being built" in c for c in before["captions"])

    lines = []
    done = prepare.prepare(log=lines.append)
    record, folder = done["disan-sst5"]  # the app's default model
    assert record.parent == views and view_store.read(record).premise.tokens == tuple(
        tokenize(settings.DEFAULT_SENTENCE))
    assert folder.parent == explorers and (folder / site.MARKER).is_file() and exported == [("disan-sst5",)]
    assert any("opening page" in line for line in lines) and all(line.startswith("prepare [") for line in lines)
    package = Path(prepare.__file__).resolve().parent
    assert package not in record.parents and package not in folder.parents

    after = _first_page(views, explorers)
    assert after["torch"] is False  # drawn from the stored page: no trace, torch loads behind it
    assert after["typing"] is True and not any("still being built" in c for c in after["captions"])
    assert after["figures"] == before["figures"]

    again = []
    prepare.prepare(log=again.append)  # done already: skipped, nothing rebuilt
    assert exported == [("disan-sst5",)] and any("already" in line for line in again)


def test_a_changed_checkpoint_is_prepared_again(tmp_path, monkeypatch):
    """The files are named by the checkpoint (view_store.source_id: path, size, time) and the code."""
    from disan.api import checkpoint_path
    from viz_app import prepare

    monkeypatch.setenv(view_store.ENV, str(tmp_path / "views"))
    monkeypatch.setattr(settings, "EXPLORE_TYPING", False)
    first, _ = prepare.prepare(["disan-sst5"], log=lambda _: None)["disan-sst5"]
    real = view_store.source_id
    monkeypatch.setattr(view_store, "source_id", lambda *a: real(*a) + ":changed")
    second, _ = prepare.prepare(["disan-sst5"], log=lambda _: None)["disan-sst5"]
    assert second != first and second.is_file() and checkpoint_path("disan-sst5").is_file()


def test_an_unknown_model_is_one_line(tmp_path):
    env = {**os.environ, view_store.ENV: str(tmp_path / "v"), explorer.ENV: str(tmp_path / "e")}
    out = subprocess.run([sys.executable, "-m", "viz_app", "prepare", "--model", "no-such-model"], capture_output=True,
                         text=True, env=env, cwd=ROOT, timeout=300)
    assert out.returncode == 2 and out.stderr.count("\n") == 1 and "no-such-model" in out.stderr
    assert "Traceback" not in out.stderr


def test_the_readmes_app_command_prepares_after_installing_and_before_starting():
    """``bash scripts/app.sh``: install, then ``prepare``, then the server (a newcomer's first start finds the cache)."""
    lines = [line.strip() for line in (ROOT / "scripts" / "app.sh").read_text().splitlines()
             if line.strip() and not line.lstrip().startswith("#")]
    steps = [k for k, line in enumerate(lines) if line.startswith("bash scripts/setup.sh")
             or line == ".venv/bin/python -m viz_app prepare" or line.startswith("exec .venv/bin/streamlit run")]
    assert len(steps) == 3 and [lines[k].split()[0] for k in steps] == ["bash", ".venv/bin/python", "exec"]
