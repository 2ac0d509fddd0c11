"""The wheel a clean clone builds, installed into a fresh venv and used from a folder outside the checkout.

The wheel is built with ``pip wheel --no-deps`` from a copy of the files a clone would hold (git's tracked and
not-ignored files), so nothing the checkout has lying around can make it pass. It is installed with its
dependencies the way the README's install is, with pip's own configuration and cache: the same torch pin, so the
same torch build. Every command then runs from a temporary folder, with no PYTHONPATH and no DISAN_DATA_DIR.
On the shared 2-core machine (load 2 to 5) building takes about 4 s, installing 30 s (most of it writing torch),
the commands, the notebook example and the app 40 to 70 s (their first imports compile what they use), and
removing the venv a few seconds: about 2 minutes in all.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import zipfile
from email.parser import Parser
from pathlib import Path
from types import SimpleNamespace

import pytest
from packaging.requirements import Requirement

from benchmarks.server import free_port, serving
from tests.test_packaging import requirement_lines
from tests.test_report import notebook_example_script

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[1]
#: What a clone never holds, for a source tree that is not a git checkout.
NOT_IN_A_CLONE = {".git", ".venv", "__pycache__", ".pytest_cache", ".hypothesis", "build", "dist", "runs", "out"}
SENTENCE = "a gorgeous , witty , seductive movie ."
#: PyPI's default upload limit for one file (bytes).
PYPI_FILE_LIMIT = 100 * 10**6


def clone_files() -> list[str]:
    """Paths (relative to ROOT) of the files a fresh clone would hold, uncommitted work included."""
    try:
        listing = subprocess.run(["git", "ls-files", "--cached", "--others", "--exclude-standard", "-z"],
                                 cwd=ROOT, capture_output=True, check=True).stdout.decode()
        names = [name for name in listing.split("\0") if name]
    except (OSError, subprocess.CalledProcessError):
        names = [str(p.relative_to(ROOT)) for p in ROOT.rglob("*")
                 if not NOT_IN_A_CLONE & set(p.relative_to(ROOT).parts) and not p.name.endswith(".egg-info")]
    return sorted(name for name in names if (ROOT / name).is_file() and not (ROOT / name).is_symlink())


def build_bundles(src: Path, env: dict) -> list[str]:
    """What ``npm ci`` adds to a clone before ``pip install .`` (scripts/setup.sh): the page code's bundles
    (scripts/build_browser.mjs, with the checkout's node_modules); their paths relative to ``src``."""
    node = shutil.which("node")
    if node is None:
        pytest.skip("node is not installed (the wheel ships the page code's bundles, which npm ci builds)")
    (src / "node_modules").symlink_to(ROOT / "node_modules", target_is_directory=True)
    run([node, src / "scripts" / "build_browser.mjs"], src, env)
    dist = src / "viz_app" / "browser" / "dist"
    return sorted(str(p.relative_to(src)) for p in dist.iterdir())


def run(cmd: list, cwd: Path, env: dict, timeout: int = 600) -> subprocess.CompletedProcess:
    proc = subprocess.run([str(c) for c in cmd], cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout)
    assert proc.returncode == 0, f"{cmd} exited with {proc.returncode}:\n{proc.stdout[-3000:]}\n{proc.stderr[-3000:]}"
    return proc


@pytest.fixture(scope="module")
def installed(tmp_path_factory):
    base = tmp_path_factory.mktemp("wheel")
    files = clone_files()
    for name in files:
        (base / "src" / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(ROOT / name, base / "src" / name)
    # No PYTHONPATH (the checkout must not leak in) and no data folder (the installed default is tested).
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV", "DISAN_DATA_DIR")}
    built = build_bundles(base / "src", env)
    run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--quiet", "-w", base / "dist", base / "src"], base, env)
    wheel, = (base / "dist").glob("disan_viz-*.whl")
    venv = base / "venv"
    run([sys.executable, "-m", "venv", venv], base, env)
    bin_dir = venv / ("Scripts" if os.name == "nt" else "bin")
    # --no-compile: byte-compiling every dependency doubles the files to write and delete; imports compile what they use.
    run([bin_dir / "python", "-m", "pip", "install", "--quiet", "--no-compile", wheel], base, env, timeout=1200)
    outside = base / "outside"
    outside.mkdir()
    try:
        yield SimpleNamespace(files=files, built=built, wheel=wheel, bin=bin_dir, cwd=outside, env=env)
    finally:
        shutil.rmtree(venv, ignore_errors=True)


def test_the_wheel_holds_the_packages_their_files_and_the_checkpoints(installed):
    with zipfile.ZipFile(installed.wheel) as z:
        shipped = {n for n in z.namelist() if ".dist-info/" not in n}
        top = {n.split("/")[0] for n in z.namelist()}
    code = {f for f in installed.files if f.startswith(("disan/", "viz_app/"))}
    checkpoints = {f"disan/{f}" for f in installed.files if f.startswith("pretrained/")}
    assert top == {"disan", "viz_app", installed.wheel.name.split("-py3")[0] + ".dist-info"}
    expected = code | checkpoints | set(installed.built)
    assert shipped == expected, (f"the package-data globs in pyproject.toml miss {sorted(expected - shipped)} "
                                 f"and add {sorted(shipped - expected)}")
    assert {"disan/pretrained/disan-sst5.safetensors", "disan/pretrained/disan-sst5.card.md",
            "disan/pretrained/disan-sst5.claims.json", "viz_app/browser/dist/report.js",
            "viz_app/browser/dist/site.js", "viz_app/browser/dist/chart.js"} <= shipped
    # PyPI refuses a file over 100 MB unless the project is granted more (every bundled checkpoint is in it)
    assert installed.wheel.stat().st_size < PYPI_FILE_LIMIT, installed.wheel.stat().st_size


def test_the_wheel_requires_requirements_txt_and_installs_the_disan_command(installed):
    with zipfile.ZipFile(installed.wheel) as z:
        info = installed.wheel.name.split("-py3")[0] + ".dist-info"
        metadata = Parser().parsestr(z.read(f"{info}/METADATA").decode())
        entry_points = z.read(f"{info}/entry_points.txt").decode()
    required = [Requirement(r) for r in metadata.get_all("Requires-Dist")]
    assert sorted(str(r) for r in required if r.marker is None) == \
        sorted(str(Requirement(r)) for r in requirement_lines())
    # the one optional extra, .[ray] (disan index --engine ray), pins what requirements-dev.txt pins
    dev = (Path(__file__).resolve().parents[1] / "requirements-dev.txt").read_text(encoding="utf-8")
    assert [f"{r.name}{r.specifier}" for r in required if r.marker is not None] == \
        [line for line in dev.splitlines() if line.startswith("ray==")]
    assert all(r.marker.evaluate({"extra": "ray"}) for r in required if r.marker is not None)
    assert "disan = viz_app.cli:main" in entry_points
    assert (installed.bin / "disan").is_file()


def test_the_commands_work_outside_the_checkout(installed):
    disan, cwd, env = installed.bin / "disan", installed.cwd, installed.env
    trace = json.loads(run([disan, "trace", "--model", "disan-sst5", SENTENCE, "--json"], cwd, env).stdout)
    assert trace["model"] == "disan-sst5" and trace["random_weights"] is False and len(trace["fw_attention"]) == 8

    run([disan, "report", SENTENCE, "--model", "dsa-sst5", "--out", "movie.html"], cwd, env)
    assert (cwd / "movie.html").read_text(encoding="utf-8").startswith("<!DOCTYPE html>")

    assert "--data-dir" in run([disan, "claims", "--help"], cwd, env).stdout
    assert "disan-nli" in run([installed.bin / "python", "-m", "disan", "trace", "--model", "disan-nli", "A man sleeps .",
                               "--hypothesis", "A man rests ."], cwd, env).stdout

    no_data = subprocess.run([disan, "claims", "--model", "dsa-sst5", "--no-progress"], cwd=cwd, env=env,
                             capture_output=True, text=True, timeout=300)
    assert no_data.returncode == 2 and "only inside a repository checkout" in no_data.stderr, no_data.stderr


def test_the_readme_notebook_example_imports_the_installed_package(installed):
    script = notebook_example_script(installed.cwd)
    with script.open("a", encoding="utf-8") as f:
        f.write(f"assert disan.__file__.startswith({str(installed.bin.parent)!r}), disan.__file__\n")
    run([installed.bin / "python", script], installed.cwd, {**installed.env, "HOME": str(installed.cwd)})
    assert (installed.cwd / "lady.html").stat().st_size > 100_000  # (the example writes to the home folder; no plotly.js)


@pytest.mark.browser
def test_disan_app_shows_a_heatmap_in_chromium(installed):
    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    if chromium is None:
        pytest.skip("chromium is not installed (needed for the browser test)")
    sync_api = pytest.importorskip("playwright.sync_api", reason="playwright is not installed")
    port = free_port()
    cmd = [str(installed.bin / "disan"), "app", "--server.port", str(port), "--server.address", "127.0.0.1",
           "--server.fileWatcherType", "none"]
    log = installed.cwd / "app.log"
    with serving(cmd, port, cwd=installed.cwd, env=installed.env, log_path=log) as (url, _):
        with sync_api.sync_playwright() as p:
            browser = p.chromium.launch(executable_path=chromium, args=["--headless", "--no-sandbox", "--disable-gpu"])
            try:
                page = browser.new_page()
                page.set_default_timeout(90_000)
                page.goto(f"{url}/?model=disan-sst5")
                page.wait_for_function(
                    "() => [...document.querySelectorAll('.js-plotly-plot')]"
                    ".some(gd => (gd.data || []).some(t => t.type === 'heatmap'))")
                assert page.locator('[data-testid="stException"]').count() == 0
                assert "random weights" not in page.locator('[data-testid="stMain"]').inner_text()
                # plotly.js came from the installed viz_app/static/: the static-serving flag reached Streamlit.
                served = page.request.get(f"{url}/app/static/plotly.min.js")
                assert served.status == 200 and "plotly.js" in served.text()[:200], served.text()[:200]
            finally:
                browser.close()
