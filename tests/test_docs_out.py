"""An ordinary test run leaves docs/ alone; DISAN_REFRESH_DOCS=1 lets the figure tests rewrite it."""

from pathlib import Path

from tests.conftest import REFRESH_DOCS, docs_out

DOCS = Path(__file__).resolve().parents[1] / "docs"


def test_figures_go_to_a_temporary_folder_unless_asked(monkeypatch):
    monkeypatch.delenv(REFRESH_DOCS, raising=False)
    out = docs_out("screenshots")
    assert DOCS not in out.parents and out.parent.is_dir() and out.name == "screenshots"
    monkeypatch.setenv(REFRESH_DOCS, "1")
    assert docs_out("screenshots") == DOCS / "screenshots"
