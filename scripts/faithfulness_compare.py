"""Do two faithfulness files hold the same values? Every number of A against B's within a tolerance, every text
equal; what one file has and the other lacks is listed. For checking that a faster code path recomputes a stored
file unchanged (issue 57), or that a schema 3 file keeps a schema 2 file's values (``--common``: only the keys both
hold, e.g. the methods before LRP and NAOPC).

Usage: python scripts/faithfulness_compare.py A.json B.json [--tol 1e-6] [--common] [--ignore seconds,answer]
Prints the number of values compared, the largest difference with its path, every difference over the tolerance;
exit status 1 when there is one (or, without --common, when a key is in one file only). ``seconds`` (the compute
time) is ignored by default.

Two resume files of one run (``--cache``'s ``.npz``, ``disan/attribution/resume.py``; A.npz B.npz) are compared
per example: every value of the batches both have finished (the keys must be equal: the same run's layout).
"""

from __future__ import annotations

import argparse
import json
import math
import sys


def row_name(row: dict) -> tuple:
    return tuple(row.get(k) for k in ("a", "b", "ranking", "fraction", "key"))


def named(rows: list) -> bool:
    """A list of rows named by their fields (τ pairs, ERASER rankings and fractions, not_computed keys)."""
    return bool(rows) and all(isinstance(r, dict) and any(k in r for k in ("a", "ranking", "key")) for r in rows)


def compare(a, b, path: str, common: bool, ignore: set[str], out: dict) -> None:
    """Walk a and b together, recording in ``out`` the values compared, the largest difference and the misses."""
    if isinstance(a, dict) and isinstance(b, dict):
        for key in sorted(set(a) | set(b)):
            if key in ignore:
                continue
            if key in a and key in b:
                compare(a[key], b[key], f"{path}.{key}", common, ignore, out)
            elif not common:
                out["only"].append(f"{path}.{key} (only in {'A' if key in a else 'B'})")
    elif isinstance(a, list) and isinstance(b, list) and named(a) and named(b):  # τ and ERASER rows, by their names
        rows_b = {row_name(y): y for y in b}
        for x in a:
            if row_name(x) in rows_b:
                compare(x, rows_b.pop(row_name(x)), f"{path}[{row_name(x)}]", common, ignore, out)
            elif not common:
                out["only"].append(f"{path}[{row_name(x)}] (only in A)")
        out["only"] += [] if common else [f"{path}[{k}] (only in B)" for k in rows_b]
    elif isinstance(a, list) and isinstance(b, list) and len(a) == len(b):
        for i, (x, y) in enumerate(zip(a, b)):
            compare(x, y, f"{path}[{i}]", common, ignore, out)
    elif isinstance(a, (int, float)) and isinstance(b, (int, float)) and not isinstance(a, bool):
        out["n"] += 1
        if math.isnan(a) and math.isnan(b):
            return
        d = abs(a - b) if math.isfinite(a) and math.isfinite(b) else (0.0 if a == b else math.inf)
        if d > out["max"][0]:
            out["max"] = (d, path)
        if d > out["tol"]:
            out["over"].append(f"{path}: {a!r} vs {b!r} (|Δ| = {d:.3g})")
    else:
        out["n"] += 1
        if a != b:
            out["over"].append(f"{path}: {str(a)[:160]!r} vs {str(b)[:160]!r}")


def compare_caches(a: str, b: str, ignore: set[str], out: dict) -> None:
    """Per-example values of two resume files, over the batches both have done (``resume.BatchCache``'s arrays)."""
    import numpy as np

    files = [np.load(path, allow_pickle=False) for path in (a, b)]
    keys = [json.loads(str(f["key"])) for f in files]
    if keys[0] != keys[1]:
        out["only"].append("the two files' run keys differ (another model, checkpoint, layout or code schema)")
        return
    done = files[0]["done"].astype(bool) & files[1]["done"].astype(bool)  # (n_batches,)
    rows = np.array(sorted(i for batch, d in zip(keys[0]["batches"], done) if d for i in batch), dtype=int)
    out["batches"], out["examples"] = int(done.sum()), rows.size
    named = [{str(n): f["values"][i][rows] for i, n in enumerate(f["names"])} for f in files]
    for name in sorted(set(named[0]) | set(named[1])):
        if name in ignore:
            continue
        if name not in named[0] or name not in named[1]:
            out["only"].append(f"{name} (only in {'A' if name in named[0] else 'B'})")
            continue
        for i, (x, y) in enumerate(zip(named[0][name].tolist(), named[1][name].tolist())):
            compare(x, y, f"{name}[{rows[i]}]", False, ignore, out)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("a")
    p.add_argument("b")
    p.add_argument("--tol", type=float, default=1e-6, help="largest absolute difference of a number (default 1e-6)")
    p.add_argument("--common", action="store_true", help="compare only the keys both files hold")
    p.add_argument("--ignore", default="seconds", help="comma-separated keys not compared (default: seconds)")
    args = p.parse_args(argv)
    out = {"n": 0, "max": (0.0, None), "tol": args.tol, "over": [], "only": []}
    ignore = set(filter(None, args.ignore.split(",")))
    if args.a.endswith(".npz") and args.b.endswith(".npz"):
        compare_caches(args.a, args.b, ignore, out)
        print(f"resume files: {out.get('batches', 0)} batches ({out.get('examples', 0):,} examples) done in both")
    else:
        files = []
        for path in (args.a, args.b):
            with open(path, encoding="utf-8") as f:
                files.append(json.load(f))
        compare(*files, "", args.common, ignore, out)
    print(f"{out['n']:,} values compared; largest |Δ| {out['max'][0]:.3g} at {out['max'][1]}; "
          f"{len(out['over'])} over the tolerance {args.tol:g}; {len(out['only'])} keys in one file only")
    for line in out["over"] + out["only"]:
        print("  " + line)
    return 1 if out["over"] or out["only"] else 0


if __name__ == "__main__":
    sys.exit(main())
