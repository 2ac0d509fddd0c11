"""The page code as modules (issue 54): its types, its JavaScript tests, and the bundles every host loads.

* ``tsc -p .`` (TypeScript, pinned in package.json) checks every module of ``viz_app/browser/`` from its JSDoc
  (tsconfig.json: checkJs);
* ``node --test tests/js/`` runs the tests written in JavaScript against the modules themselves;
* the bundles (``viz_app/draw/bundles.py``) are built from the sources beside them, and each defines one global
  at the most, its entry point: ``Disan`` for the site's and the report's, none for the app's ES modules.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from viz_app.draw import bundles

ROOT = Path(__file__).resolve().parents[1]
NODE = shutil.which("node")
TSC = ROOT / "node_modules" / ".bin" / "tsc"


def need_node() -> str:
    if NODE is None:
        pytest.skip("node is not installed (needed to check and test the page's modules)")
    return NODE


def test_every_module_type_checks():
    need_node()
    if not TSC.is_file():
        pytest.skip("TypeScript is not installed (npm ci installs it: package.json devDependencies)")
    proc = subprocess.run([str(TSC), "-p", str(ROOT)], capture_output=True, text=True, timeout=300, cwd=ROOT)
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_javascript_tests_pass():
    tests = sorted(str(p) for p in (ROOT / "tests" / "js").glob("*.test.mjs"))
    assert tests, "tests/js holds no *.test.mjs"
    proc = subprocess.run([need_node(), "--test", *tests], capture_output=True, text=True, timeout=300, cwd=ROOT)
    assert proc.returncode == 0, proc.stdout[-4000:] + proc.stderr[-2000:]
    assert "# fail 0" in proc.stdout


def test_bundles_are_built_from_the_sources_beside_them():
    manifest = json.loads((bundles.DIST / "sources.json").read_text(encoding="utf-8"))
    assert manifest["sha256"] == bundles.source_digest()
    for name in bundles.NAMES:
        assert bundles.path(name).stat().st_size > 0


def test_the_digest_covers_every_bundled_module_and_not_the_bundles(tmp_path, monkeypatch):
    """A component (components/*.mjs) or the kernel's loader (viz_app/kernels/*.mjs) edited after the build makes
    the bundles stale as a top-level module does; what dist/ holds does not count."""
    browser, kernels = tmp_path / "browser", tmp_path / "kernels"
    for f in (browser / "a.js", browser / "components" / "b.mjs", kernels / "k.mjs", browser / "dist" / "site.js"):
        f.parent.mkdir(parents=True, exist_ok=True)
        f.write_text("export const x = 1;\n", encoding="utf-8")
    monkeypatch.setattr(bundles, "BROWSER", browser)
    monkeypatch.setattr(bundles, "KERNELS", kernels)
    before = bundles.source_digest()
    assert [name for name, _ in bundles._sources()] == ["browser/a.js", "browser/components/b.mjs", "kernels/k.mjs"]
    (browser / "dist" / "site.js").write_text("changed", encoding="utf-8")
    assert bundles.source_digest() == before
    for f in (browser / "components" / "b.mjs", kernels / "k.mjs"):
        f.write_text("export const x = 2;\n", encoding="utf-8")
        assert bundles.source_digest() != before
        before = bundles.source_digest()


def test_a_stale_bundle_is_refused_with_the_command_that_rebuilds_it(tmp_path, monkeypatch):
    sources = tmp_path / "browser"
    sources.mkdir()
    (sources / "a.js").write_text("export const a = 1;\n", encoding="utf-8")
    (sources / "dist").mkdir()
    (sources / "dist" / "sources.json").write_text(json.dumps({"sha256": "0" * 64}), encoding="utf-8")
    monkeypatch.setattr(bundles, "BROWSER", sources)
    monkeypatch.setattr(bundles, "DIST", sources / "dist")
    bundles._checked.cache_clear()
    try:
        with pytest.raises(bundles.DisanError, match="built from other sources.*npm ci"):
            bundles.path("site")
        (sources / "dist" / "sources.json").unlink()
        with pytest.raises(bundles.DisanError, match="missing.*npm ci"):
            bundles.path("report")
    finally:
        bundles._checked.cache_clear()


#: Runs a classic-script bundle in a fresh context that has only what a page gives it, and prints the names the
#: bundle added to its global object.
_GLOBALS = r"""
const fs = require("fs"), vm = require("vm");
const context = { console, document: {}, setTimeout, clearTimeout, performance };
context.window = context;
vm.createContext(context);
const before = new Set(Object.getOwnPropertyNames(context));
vm.runInContext(fs.readFileSync(process.argv[1], "utf8"), context);
const added = Object.getOwnPropertyNames(context).filter(n => !before.has(n));
process.stdout.write(JSON.stringify({ added, modules: Object.keys(context.Disan || {}).sort() }));
"""


@pytest.mark.parametrize("name", ["site", "report"])
def test_a_classic_bundle_defines_one_global_its_entry_point(name):
    proc = subprocess.run([need_node(), "-e", _GLOBALS, str(bundles.path(name))], capture_output=True, text=True,
                          timeout=60)
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    assert out["added"] == ["Disan"]
    want = {"FigureHost", "Figures", "Pair", "PairView", "Recompute", "Report", "Sections", "TraceView"}
    if name == "site":
        want |= {"Site", "SitePair", "SiteSearch", "SearchQuery", "SearchSignature", "Tokenize", "preload"}
    assert set(out["modules"]) == want


@pytest.mark.parametrize("name", ["chart", "preload"])
def test_the_apps_bundles_are_es_modules_with_a_default_export_and_no_global(name):
    text = bundles.text(name)
    assert "export {" in text and " as default" in text
    assert "var Disan" not in text and "window.Disan =" not in text


def test_no_module_reads_another_through_a_global():
    """The modules import one another: no window.Disan… or IIFE wrapper is left (the static explorer's data
    scripts, window.DisanSiteData and the like, are data its build writes, not code)."""
    data = {"DisanSiteData", "DisanSiteModels", "DisanSiteStart", "DisanOrtRuntime", "DisanSiteSearch"}
    for path in sorted(bundles.BROWSER.glob("*.js")):
        text = path.read_text(encoding="utf-8")
        assert "(function (root)" not in text and "globalThis : this" not in text, path.name
        for word in set(re.findall(r"\bDisan[A-Z]\w*", text)) - data:
            pytest.fail(f"{path.name} names {word}, a global of the classic scripts")


def _imports_of(path: Path) -> set[str]:
    """The relative modules a page module imports (``from "./x.js"``, ``import "./x.js"``, multi-line imports too)."""
    found = re.findall(r'(?:from|import)\s+"(\.{1,2}/[^"]+)"', path.read_text(encoding="utf-8"))
    return {name.removeprefix("./") for name in found}


def _documented_graph() -> dict[str, set[str]]:
    """docs/front-end.md's module graph: ``a.js -> b.js, c.js (why), …`` lines, continued on indented lines;
    ``x.js, y.js: import nothing``."""
    doc = (ROOT / "docs" / "front-end.md").read_text(encoding="utf-8")
    block = doc.split("## How the modules depend on each other", 1)[1].split("```text", 1)[1].split("```", 1)[0]
    graph: dict[str, set[str]] = {}
    leaves = re.search(r"\n([^\n>]*):\s*import nothing", block)
    for name in leaves[1].split(","):
        graph[name.strip()] = set()
    current = None
    for line in block[:leaves.start()].splitlines():
        if not line.strip():
            continue
        line = re.sub(r"\([^)]*\)", "", line)  # "(nextTask)", "(worker.js as text)": notes, not arrows
        if "->" in line:
            current, _, rest = line.partition("->")
            current = current.strip()
            graph[current] = set()
        else:
            rest = line
        graph[current] |= {name.strip() for name in rest.split(",") if name.strip()}
    return graph


def test_the_documented_module_graph_is_the_imports():
    """docs/front-end.md draws which module imports which; an import added or dropped without it fails here."""
    browser = ROOT / "viz_app" / "browser"
    actual = {path.name: _imports_of(path) for path in sorted(browser.glob("*.js"))}
    documented = _documented_graph()
    assert set(documented) == set(actual), ("modules", set(actual) ^ set(documented))
    wrong = {name: (sorted(actual[name] - documented[name]), sorted(documented[name] - actual[name]))
             for name in actual if actual[name] != documented[name]}
    assert not wrong, f"module: (imported but not drawn, drawn but not imported): {wrong}"
