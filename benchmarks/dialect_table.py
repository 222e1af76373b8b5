"""The dialect report table: every mode of the corpus sweep over the real OpenAPI 3.x
documents, as markdown.

One row per dialect mode (`claude-strict` = `compile(..., "claude", strict=True)`): documents
compiled, functions emitted, operations not compiled, validator failures, functions split,
functions fallen back to non-strict, and loss entries by action. The validators and the sweep
are the test suite's own (tests/dialects/sweep.py), so the table shows what the corpus tests
assert.

    python benchmarks/dialect_table.py                  # every mode
    python benchmarks/dialect_table.py claude gemini    # some modes
    python benchmarks/dialect_table.py --failures 5     # also the first failures per mode
    python benchmarks/dialect_table.py --split-unions   # every mode with split_unions=True

The corpus is found as the tests find it (tests/shared.py: `$HTTPLLM_SPECS`, else
`../shared/specs` beside the repository).
The seconds per mode (compile and validators, parsing shared) are printed below the table.
"""

from __future__ import annotations

import argparse
import sys
from dataclasses import replace
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(REPO_ROOT / "src"), str(REPO_ROOT / "tests"),
                str(REPO_ROOT / "tests" / "dialects")]


def main(argv: list[str] | None = None) -> int:
    """Print the table; the exit status is 1 when a validator failed."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("modes", nargs="*", help="mode keys (default: all)")
    parser.add_argument("--failures", type=int, default=0, metavar="N",
                        help="print the first N failures of each mode")
    parser.add_argument("--split-unions", action="store_true",
                        help="compile with split_unions=True (one function per variant)")
    args = parser.parse_args(argv)
    from shared import require
    from sweep import MODES, sweep, table

    folder = require("specs")

    unknown = [m for m in args.modes if m not in MODES]
    if unknown:
        parser.error(f"unknown modes {unknown}; known: {', '.join(MODES)}")
    modes = [MODES[k] for k in args.modes or MODES]
    if args.split_unions:
        modes = [replace(m, options={**m.options, "split_unions": True}) for m in modes]
    tallies = sweep(modes, folder)
    print(table(tallies))
    print()
    print("seconds per mode: " + ", ".join(f"{k} {t.seconds:.1f}" for k, t in tallies.items()))
    refused = sorted({r for t in tallies.values() for r in t.refused})
    if refused:
        print("documents refused: " + "; ".join(refused))
    for key, result in tallies.items():
        for line in [*result.failures, *result.upstream][: args.failures]:
            print(f"{key}: {line}")
    return int(any(t.failures for t in tallies.values()))


if __name__ == "__main__":
    sys.exit(main())
