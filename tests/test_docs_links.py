"""Every relative link and image in README.md and docs/*.md points at a file that exists, and the README links
every docs/ page (issue 31: the README is short and the rest lives in docs/)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
PAGES = [ROOT / "README.md", *sorted(DOCS.glob("*.md"))]
#: `[text](target)` and `![alt](target)`, the target up to the first space or closing parenthesis.
LINK = re.compile(r"!?\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
#: Fenced code and inline code hold commands and regexes, not links.
CODE = re.compile(r"```.*?```|`[^`\n]*`", re.S)


def links(text: str) -> list[str]:
    return LINK.findall(CODE.sub("", text))


def relative_targets(page: Path) -> list[tuple[str, Path]]:
    """(as written, resolved file) for every link of ``page`` that is neither a URL nor an in-page anchor."""
    out = []
    for target in links(page.read_text(encoding="utf-8")):
        if re.match(r"[a-z][a-z0-9+.-]*:", target, re.I) or target.startswith("#"):
            continue
        path = target.split("#", 1)[0].split("?", 1)[0]
        out.append((target, (page.parent / path).resolve()))
    return out


def test_the_link_pattern_finds_links_and_images_but_not_code():
    text = "see [a](docs/a.md#x) and ![b](s/b.png \"t\")\n`[c](nope.md)`\n```\n[d](nope2.md)\n```\n[e](https://x.org)"
    assert links(text) == ["docs/a.md#x", "s/b.png", "https://x.org"]


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.relative_to(ROOT).as_posix())
def test_every_relative_link_and_image_points_at_a_file_that_exists(page):
    missing = [t for t, path in relative_targets(page) if not path.exists()]
    assert not missing, f"{page.relative_to(ROOT)} links to files that do not exist: {missing}"


def test_every_docs_page_is_linked_from_the_readme():
    linked = {path for _, path in relative_targets(ROOT / "README.md")}
    unlinked = [p.name for p in sorted(DOCS.glob("*.md")) if p.resolve() not in linked]
    assert not unlinked, f"README.md does not link these docs/ pages: {unlinked}"


def test_every_docs_page_opens_with_its_title_and_what_it_answers():
    for page in sorted(DOCS.glob("*.md")):
        lines = page.read_text(encoding="utf-8").splitlines()
        if lines and lines[0].startswith("<!--"):
            continue  # a report written whole by a command or a test (its first line says which)
        assert lines[0].startswith("# ") and lines[2].strip(), f"{page.name}: a title, then one line of what it answers"


def slugs(text: str) -> set[str]:
    """The anchors GitHub makes of a page's headings (lower case, punctuation dropped, spaces to hyphens, a repeat
    numbered -1, -2, …) and its explicit ``<a id|name="…">``; headings inside fenced code are none."""
    out: set[str] = set(re.findall(r"<a\s+(?:id|name)=\"([^\"]+)\"", text))
    seen: dict[str, int] = {}
    for heading in re.findall(r"^#{1,6}\s+(.+?)\s*#*\s*$", re.sub(r"```.*?```", "", text, flags=re.S), re.M):
        slug = re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")
        n = seen.get(slug, 0)
        seen[slug] = n + 1
        out.add(slug if n == 0 else f"{slug}-{n}")
    return out


def test_the_slugs_are_githubs():
    text = "# A title\n## Why canvas, and why our own component\n## Step 1: `x`\n## Step 1: `x`\n```\n# not one\n```"
    assert slugs(text) == {"a-title", "why-canvas-and-why-our-own-component", "step-1-x", "step-1-x-1"}


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.relative_to(ROOT).as_posix())
def test_every_links_anchor_is_a_heading_of_the_page_it_names(page):
    """A link's #anchor, into a Markdown page of this repository or the page itself, names one of its headings
    (README.md linked #adding-a-figure-that-follows-a-sentence after the heading was renamed)."""
    text = page.read_text(encoding="utf-8")
    bad = []
    for target in links(text):
        if "#" not in target or re.match(r"[a-z][a-z0-9+.-]*:", target, re.I):
            continue
        path, anchor = target.split("#", 1)
        file = page if not path else (page.parent / path).resolve()
        if file.suffix == ".md" and file.is_file() and anchor not in slugs(file.read_text(encoding="utf-8")):
            bad.append(target)
    assert not bad, f"{page.relative_to(ROOT)} links to anchors its target has no heading for: {bad}"
