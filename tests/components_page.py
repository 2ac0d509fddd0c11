"""The figure components' demo page (tests/js/components/demo.mjs) built with esbuild into one classic
script, so it opens from file:// (a module script would not), with axe-core beside it."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
DEMO = ROOT / "tests" / "js" / "components"


def build_demo(out: Path) -> Path:
    """Write demo.html, demo.js and axe.min.js into ``out``; return the page. Skips without esbuild or axe-core."""
    esbuild = ROOT / "node_modules" / ".bin" / "esbuild"
    axe = ROOT / "node_modules" / "axe-core" / "axe.min.js"
    if not esbuild.exists() or not axe.exists():
        pytest.skip("node_modules lacks esbuild or axe-core: run npm ci (bash scripts/setup.sh does)")
    subprocess.run([str(esbuild), str(DEMO / "demo.mjs"), "--bundle", "--format=iife", f"--outfile={out / 'demo.js'}",
                    "--log-level=warning"], cwd=ROOT, check=True, timeout=120)
    shutil.copy(DEMO / "demo.html", out / "demo.html")
    shutil.copy(axe, out / "axe.min.js")
    return out / "demo.html"
