"""scripts/setup.sh (run by scripts/app.sh and scripts/test.sh) says what it is doing while it installs (issue 58,
item 11: a first install took about 3 minutes with nothing on screen). Run against stand-ins for pip and npm."""

from __future__ import annotations

import os
import shutil
import stat
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

FAKE_PYTHON = """#!/usr/bin/env bash
case "$*" in
  *"pip install -q --upgrade pip"*) exit 0 ;;
  *"pip install -r"*)
    echo "Collecting torch==2.13.0 (from -r requirements.txt (line 2))"
    echo "  Downloading torch-2.13.0-cp311-none-linux_x86_64.whl (190.0 MB)"
    echo "Collecting numpy==2.4.6"
    echo "Installing collected packages: numpy, torch"
    echo "Successfully installed numpy-2.4.6 torch-2.13.0"
    [ -n "${PIP_FAILS:-}" ] && { echo "ERROR: No matching distribution found for torch==2.13.0" >&2; exit 1; }
    exit 0 ;;
esac
exit 0
"""


def _executable(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    path.chmod(path.stat().st_mode | stat.S_IEXEC)


@pytest.fixture
def tree(tmp_path):
    if shutil.which("bash") is None or shutil.which("sed") is None:
        pytest.skip("needs bash and sed")
    (tmp_path / "scripts").mkdir()
    shutil.copy(ROOT / "scripts" / "setup.sh", tmp_path / "scripts" / "setup.sh")
    _executable(tmp_path / ".venv" / "bin" / "python", FAKE_PYTHON)
    _executable(tmp_path / "bin" / "npm", "#!/usr/bin/env bash\nexit 0\n")
    return tmp_path


def _setup(tree: Path, **env) -> subprocess.CompletedProcess:
    return subprocess.run(["bash", "scripts/setup.sh"], cwd=tree, capture_output=True, text=True, timeout=60,
                          env={**os.environ, "PATH": f"{tree / 'bin'}{os.pathsep}{os.environ['PATH']}", **env})


def test_setup_prints_each_step_and_each_package_it_fetches(tree):
    proc = _setup(tree)
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    assert lines[0].startswith("setup [0 s] updating pip"), lines
    assert any(line.startswith("setup [") and "requirements.txt" in line and "minutes" in line for line in lines)
    assert "  fetching torch==2.13.0" in lines and "  fetching numpy==2.4.6" in lines and "  installing them…" in lines
    assert not any("Downloading" in line for line in lines)  # one line per package, not pip's every line
    assert any("npm ci" in line for line in lines) and lines[-1].startswith("setup [") and lines[-1].endswith("installed")


def test_a_failed_install_stops_setup_with_pips_error(tree):
    proc = _setup(tree, PIP_FAILS="1")
    assert proc.returncode != 0
    assert "No matching distribution found for torch==2.13.0" in proc.stderr
    assert not proc.stdout.rstrip().endswith("installed")
