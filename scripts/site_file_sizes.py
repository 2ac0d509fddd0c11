"""Each bundled model's file in the static site (``models/<name>.js``), in this format (the graphs the page runs,
cut at build time by disan/onnx_graphs.py, their weights stored once) against the earlier one (the whole graph with
its weights, and the vocabulary), both from the same export (``viz_app.draw.site._export``), as a Markdown table:
``python scripts/site_file_sizes.py [MODEL ...]`` (default every bundled model; a few minutes)."""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from disan.api import PRETRAINED_DIR  # noqa: E402
from viz_app.draw import site  # noqa: E402


def main(names: list[str]) -> None:
    names = names or sorted(p.stem for p in PRETRAINED_DIR.glob("*.safetensors"))
    print("| model | earlier format, bytes | graphs cut at build, bytes | change | int8 matrices |")
    print("|---|---:|---:|---:|---:|")
    totals = [0, 0]
    with tempfile.TemporaryDirectory() as work:
        for name in names:
            export, text = site._export(name, Path(work), None, name)
            files = {"onnx": site._b64gz(export.onnx_path.read_bytes()),
                     "vocab": site._b64gz(export.vocab_path.read_bytes())}
            old, new = len(site._keyed_script("DisanSiteModels", name, files).encode()), len(text.encode())
            totals = [totals[0] + old, totals[1] + new]
            change = f"{new - old:+,} ({100 * (new - old) / old:+.2f} %)"
            print(f"| {name} | {old:,} | {new:,} | {change} | {len(export.int8)} |", flush=True)
    old, new = totals
    print(f"| all {len(names)} | {old:,} | {new:,} | {new - old:+,} ({100 * (new - old) / old:+.2f} %) | |")


if __name__ == "__main__":
    main(sys.argv[1:])
