"""The layers (issue 27, item 7): the model core ``disan/`` imports nothing from ``benchmarks/``, and from
``viz_app/`` only ``disan.trace.drawing_backend``, inside that function (a lazy import, the way pandas reaches
its plotting backend). Read from the source with ``ast``, so an import in a branch that no test runs counts too."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
HOOK = ("disan/trace.py", "drawing_backend")
DYNAMIC = {"import_module", "__import__", "find_spec"}


def imports(tree: ast.AST) -> list[tuple[str, str | None, int]]:
    """``(module, enclosing function or None, line)`` of every import in ``tree``, dynamic ones included."""
    found = []

    def visit(node: ast.AST, function: str | None) -> None:
        if isinstance(node, ast.Import):
            found.extend((alias.name, function, node.lineno) for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0:
            found.append((node.module or "", function, node.lineno))
        elif isinstance(node, ast.Call):
            name = getattr(node.func, "attr", getattr(node.func, "id", None))
            if name in DYNAMIC and node.args and isinstance(node.args[0], ast.Constant):
                found.append((str(node.args[0].value), function, node.lineno))
        inner = node.name if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) else function
        for child in ast.iter_child_nodes(node):
            visit(child, inner)

    visit(tree, None)
    return found


def core_imports(top: str) -> list[tuple[str, str | None, int]]:
    """Imports of package ``top`` (``benchmarks``, ``viz_app``) in every module under disan/, by file."""
    hits = []
    for path in sorted((ROOT / "disan").rglob("*.py")):
        rel = path.relative_to(ROOT).as_posix()
        for module, function, line in imports(ast.parse(path.read_text(encoding="utf-8"), rel)):
            if module == top or module.startswith(top + "."):
                hits.append((rel, function, line))
    return hits


def test_the_core_imports_nothing_from_the_benchmarks():
    assert core_imports("benchmarks") == []


def test_the_core_reaches_viz_app_only_through_the_lazy_drawing_hook():
    hits = core_imports("viz_app")
    assert [(rel, function) for rel, function, _ in hits] == [HOOK], (
        f"disan/ imports viz_app at {hits}; only {HOOK[0]}'s {HOOK[1]}() may, inside the function")


def test_the_checker_sees_every_kind_of_import():
    """The walk above finds module-level, nested and dynamic imports (else the two tests could not fail)."""
    source = ("import viz_app\nfrom benchmarks import cli\n"
              "def f():\n    import viz_app.draw.report as r\n    class C:\n        def g(self):\n"
              "            importlib.import_module('viz_app.draw')\n"
              "from . import trace\n")
    assert imports(ast.parse(source)) == [("viz_app", None, 1), ("benchmarks", None, 2),
                                          ("viz_app.draw.report", "f", 4), ("viz_app.draw", "g", 7)]


def test_the_hook_is_what_to_html_and_the_notebook_view_use(monkeypatch, tmp_path):
    """Both ways a trace draws itself go through the one hook: replacing it replaces what they draw."""
    import disan.trace as trace_module

    class Backend:
        @staticmethod
        def write_report(trace, path):
            return Path(path)

        @staticmethod
        def notebook_html(trace):
            return "<p>drawn by the hook</p>"

    monkeypatch.setattr(trace_module, "drawing_backend", lambda: Backend)
    fake = object.__new__(trace_module.ModelTrace)
    assert trace_module.ModelTrace.to_html(fake, tmp_path / "x.html") == tmp_path / "x.html"
    assert trace_module.ModelTrace._repr_html_(fake) == "<p>drawn by the hook</p>"
