"""Lines of the page's source at each commit (issue 54 item 9): viz_app/browser's .js/.css/.ts/.mjs, dist/ left out.

Usage: python scripts/browser_lines.py REV [REV ...]   (prints one Markdown row per part, one column per commit)
"""

from __future__ import annotations

import subprocess
import sys

SOURCE = (".js", ".css", ".ts", ".mjs")


def counts(rev: str) -> dict[str, tuple[int, int]]:
    """(lines, files) of the components (components/*.mjs) and of the rest, at ``rev``."""
    names = subprocess.run(["git", "ls-tree", "-r", "--name-only", rev, "viz_app/browser"], check=True,
                           capture_output=True, text=True).stdout.split()
    parts = {"components/": [0, 0], "the rest": [0, 0]}
    for name in names:
        if "/dist/" in name or not name.endswith(SOURCE):
            continue
        text = subprocess.run(["git", "show", f"{rev}:{name}"], check=True, capture_output=True, text=True).stdout
        part = parts["components/" if "/components/" in name else "the rest"]
        part[0] += text.count("\n")
        part[1] += 1
    return {k: (v[0], v[1]) for k, v in parts.items()}


def main(revs: list[str]) -> int:
    if not revs:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    table = {rev: counts(rev) for rev in revs}
    print("| lines (files) | " + " | ".join(revs) + " |")
    print("| --- |" + " ---: |" * len(revs))
    for part in ("the rest", "components/"):
        print(f"| {part} | " + " | ".join(f"{table[r][part][0]:,} ({table[r][part][1]})" for r in revs) + " |")
    print("| **viz_app/browser** | " + " | ".join(
        f"**{sum(v[0] for v in table[r].values()):,}** ({sum(v[1] for v in table[r].values())})" for r in revs) + " |")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
