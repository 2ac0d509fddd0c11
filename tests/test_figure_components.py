"""The figure components' pure parts (viz_app/browser/components/), tested as JavaScript with ``node --test``
(tests/js/components/*.test.mjs), and their palettes and themes against the Python ones they copy."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

from viz_app.draw.site_view import figure_context

ROOT = Path(__file__).resolve().parents[1]
JS_TESTS = sorted((ROOT / "tests" / "js" / "components").glob("*.test.mjs"))


def node_or_skip() -> str:
    node = shutil.which("node")
    if node is None:
        pytest.skip("node is not installed (needed for the JavaScript tests; install Node.js, then npm ci)")
    if not (ROOT / "node_modules" / "d3-scale").is_dir():
        pytest.skip("node_modules lacks d3-scale: run npm ci (bash scripts/setup.sh does)")
    return node


def test_node_unit_tests_pass():
    node = node_or_skip()
    assert len(JS_TESTS) >= 7, JS_TESTS
    done = subprocess.run([node, "--test", *map(str, JS_TESTS)], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout[-6000:] + done.stderr[-2000:]
    assert "# fail 0" in done.stdout


def test_palettes_and_themes_are_the_python_ones():
    node = node_or_skip()
    script = ("import('./viz_app/browser/components/palettes.mjs')"
              ".then(m => console.log(JSON.stringify({palettes: m.PALETTES, themes: m.THEMES})))")
    done = subprocess.run([node, "--input-type=module", "-e", script], cwd=ROOT, capture_output=True, text=True,
                          timeout=60, check=True)
    js = json.loads(done.stdout)
    ctx = figure_context()
    assert js["palettes"] == ctx["colorscales"]
    for name, theme in ctx["themes"].items():
        assert js["themes"][name] == {k: v for k, v in theme.items() if k != "template"}, name
