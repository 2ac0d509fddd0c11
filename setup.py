"""The wheel's one build step beyond pyproject.toml: the page code's bundles (viz_app/browser/dist/).

``npm ci`` builds them in a checkout (scripts/setup.sh); a wheel built where that has not run (``pip install
git+…``, a fresh clone) builds them here with node, so the installed package needs no node at run time
(docs/front-end.md). Bundles built from the sources beside them are used as they are.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py

ROOT = Path(__file__).resolve().parent


class BuildWithBundles(build_py):
    def run(self) -> None:
        sys.path.insert(0, str(ROOT))
        from viz_app.draw import bundles  # imports neither torch nor Streamlit

        manifest = bundles.DIST / "sources.json"
        if not (manifest.is_file() and json.loads(manifest.read_text(encoding="utf-8")).get("sha256")
                == bundles.source_digest()):
            node, npm = shutil.which("node"), shutil.which("npm")
            if node is None or npm is None:
                raise SystemExit("The wheel needs the page code's bundles, which node builds: install Node.js "
                                 "(with npm), or run `npm ci` in the repository first.")
            if (ROOT / "node_modules" / "esbuild").is_dir():
                subprocess.run([node, str(ROOT / "scripts" / "build_browser.mjs")], cwd=ROOT, check=True)
            else:  # its postinstall builds them
                subprocess.run([npm, "ci", "--no-audit", "--no-fund", "--loglevel=error"], cwd=ROOT, check=True)
        super().run()


setup(cmdclass={"build_py": BuildWithBundles})
