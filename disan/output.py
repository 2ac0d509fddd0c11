"""Writing output files all-or-nothing: a reader never sees a half-written report."""

from __future__ import annotations

import os
import tempfile
from collections.abc import Callable
from pathlib import Path

from .errors import OutputError


def check_writable(path: str | os.PathLike, argument: str | None = None) -> Path:
    """``path`` as a ``Path`` when a file can be created there; else ``OutputError`` naming the fix.

    Checked before any slow work, so a typo in ``--out`` costs nothing. ``argument`` is the name the caller gave
    ``path`` under (``"--out"`` on a command line, ``"to_html's path"`` in the API): a folder is refused by that
    name, so an API caller is not told about an option they never passed.
    """
    target = Path(path).expanduser()
    if target.is_dir():
        named = f"{argument} {str(target)!r}" if argument else repr(str(target))
        raise OutputError(f"{named} is a folder; give a file name such as {str(target / 'report.html')!r}.")
    folder = target.parent
    if folder.exists() and not folder.is_dir():
        raise OutputError(f"Cannot write {str(target)!r}: {str(folder)!r} is a file, not a folder; choose another path.")
    if not folder.is_dir():
        raise OutputError(f"Cannot write {str(target)!r}: the folder {str(folder)!r} does not exist; create it first.")
    if not os.access(folder, os.W_OK | os.X_OK) or (target.exists() and not os.access(target, os.W_OK)):
        raise OutputError(f"Cannot write {str(target)!r}: permission denied; choose a folder you can write to.")
    return target


def write_atomic(path: str | os.PathLike, produce: Callable[[], str]) -> Path:
    """Write ``produce()`` to ``path`` through a temporary file in the same folder, then rename.

    ``os.replace`` is atomic on one file system, so ``path`` holds either its old
    content or the whole new text. On any failure — in ``produce`` too — the
    temporary file is removed and ``path`` is left untouched.
    """
    target = check_writable(path)
    try:
        fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".part", dir=target.parent)
    except OSError as err:
        raise OutputError(f"Cannot write {str(target)!r}: {err.strerror}; choose another path.") from None
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as handle:
            handle.write(produce())
            handle.flush()
            os.fsync(handle.fileno())
        os.chmod(tmp, 0o644)
        os.replace(tmp, target)
    except OSError as err:
        Path(tmp).unlink(missing_ok=True)
        raise OutputError(f"Cannot write {str(target)!r}: {err.strerror or err}; choose another path.") from None
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return target


def replace_marked(text: str, start: str, end: str, block: str) -> str:
    """``text`` with whatever lies between the ``start`` and ``end`` markers replaced by ``block``.

    The generated tables of docs/ (reproduction, recipe, claims, benchmarks, …) live between such
    markers, so each command rewrites its own block and nothing else.
    """
    if start not in text or end not in text:
        raise OutputError(f"The document has no {start} … {end} markers; add them where the block belongs.")
    head, rest = text.split(start, 1)
    _, tail = rest.split(end, 1)
    return f"{head}{start}\n{block}\n{end}{tail}"


def rewrite_marked(path: str | os.PathLike, start: str, end: str, block: str) -> Path:
    """Replace the block between ``start`` and ``end`` in the file at ``path`` (a docs page), all-or-nothing."""
    text = Path(path).read_text(encoding="utf-8")
    return write_atomic(path, lambda: replace_marked(text, start, end, block))


def readme_block_main(argv, description: str, text: str, doc: Path, start: str, end: str, what: str,
                      command: str) -> int:
    """The ``--docs`` / ``--check`` command of a script that writes one generated block into a docs page ``doc``.

    Prints ``text`` (no flag), writes it between the markers (``--docs``; ``--readme`` is its older name), or
    exits 1 naming ``command`` when the page's block differs (``--check``).
    """
    import argparse
    import sys

    parser = argparse.ArgumentParser(description=description)
    name = doc_name(doc)
    parser.add_argument("--docs", "--readme", dest="write", action="store_true", help=f"write the block into {name}")
    parser.add_argument("--check", action="store_true", help=f"exit 1 if {name} is out of date")
    args = parser.parse_args(argv)
    if not (args.write or args.check):
        print(text)
        return 0
    current = doc.read_text(encoding="utf-8")
    updated = replace_marked(current, start, end, text)
    if args.check:
        if updated != current:
            print(f"{name}'s {what} differs; run {command}", file=sys.stderr)
            return 1
        return 0
    write_atomic(doc, lambda: updated)
    print(f"updated {doc}")
    return 0


def doc_name(path: Path) -> str:
    """``docs/evidence.md`` for a page inside a checkout's docs/ folder, else the file's name."""
    path = Path(path)
    return f"{path.parent.name}/{path.name}" if path.parent.name == "docs" else path.name
