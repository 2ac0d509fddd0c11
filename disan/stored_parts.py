"""The parts ``python -m disan faithfulness`` measures beside faithfulness, each stored in its own file beside the
checkpoint: the randomisation sanity checks (``attribution/sanity_file.py``) and, for an SST-5 model, plausibility
(``attribution/plausibility_file.py``). ``--parts`` chooses among ``PARTS``."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from .errors import InputError

#: What ``disan faithfulness`` measures and stores, each in its own file beside the checkpoint.
PARTS = ("faithfulness", "sanity", "plausibility")


def parts_arg(text: str) -> tuple[str, ...]:
    """``--parts``: the comma-separated names, each one of ``PARTS`` (else one clear error)."""
    parts = tuple(p.strip() for p in text.split(",") if p.strip())
    bad = [p for p in parts if p not in PARTS]
    if bad or not parts:
        raise InputError(f"--parts {text!r}: give some of {', '.join(PARTS)}, comma-separated.")
    return parts


def run_sanity_part(args, name: str, folder: Path) -> None:
    """``disan faithfulness``'s sanity part: the randomisation tests of ``name`` (``sanity_file.py``)."""
    from .attribution.randomisation import table
    from .attribution.sanity_file import compute, read_sanity, stale_reason, write_sanity

    stored = read_sanity(name, folder) if args.write else None
    if args.stale_only and stored is not None and stale_reason(stored, folder, args.shuffled) is None:
        print(f"{name}: stored sanity checks are current (checkpoint SHA-256 matches); skipped.", file=sys.stderr)
        return
    result = compute(name, args.split, args.task, args.data_dir, folder, args.sanity_limit, args.shuffled,
                     args.shuffled_limit, not args.no_progress, stored)
    for part in (result["cascading"], result["data_randomisation"]):
        if part is not None:
            print(json.dumps(part, ensure_ascii=False) if args.json else table(part), flush=True)
    done = f"wrote {write_sanity(result, folder)}" if args.write else "measured"
    print(f"{name}: sanity checks {done}: cascading test on {result['sample']['n']:,} examples in "
          f"{result['cascading']['seconds']:.0f} s ({result['cascading']['cpu_seconds']:.0f} s CPU)",
          file=sys.stderr, flush=True)


def run_plausibility_part(args, name: str, folder: Path) -> None:
    """``disan faithfulness``'s plausibility part, for an SST-5 model (``plausibility_file.py``)."""
    from .attribution.plausibility import table
    from .attribution.plausibility_file import (compute, read_plausibility, sst5_model, stale_reason,
                                                write_plausibility)

    if sst5_model(name, folder) is None:
        print(f"{name}: no plausibility (SST's word labels exist for SST-5 models only).", file=sys.stderr)
        return
    stored = read_plausibility(name, folder) if args.stale_only else None
    if stored is not None and stale_reason(stored, folder) is None and stored.get("limit") == args.plausibility_limit:
        print(f"{name}: stored plausibility is current (checkpoint SHA-256 matches); skipped.", file=sys.stderr)
        return
    command = (f"python -m disan faithfulness --model {name} --parts plausibility --plausibility-limit "
               f"{args.plausibility_limit} --write")
    result = compute(name, args.split, args.data_dir, folder, args.plausibility_limit, not args.no_progress, command)
    print(json.dumps(result, ensure_ascii=False) if args.json else table(result), flush=True)
    done = f"wrote {write_plausibility(result, folder)}" if args.write else "measured"
    print(f"{name}: plausibility {done}: {result['n']:,} trees in {result['seconds']:.0f} s "
          f"({result['cpu_seconds']:.0f} s CPU)", file=sys.stderr, flush=True)
