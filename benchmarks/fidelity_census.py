"""Census of two schema-fidelity faults over the real corpus (issue 18, kinds 1 and 10).

- **readOnly offered**: request schemas that still offer a property the API manages, or
  call an argument read-only (``readOnly: true`` on the property or the argument's schema,
  reached through ``$ref``, ``allOf`` members, or every non-null member of a union).
  Counted per dialect as tools and properties (arguments included).
- **merged ``$defs`` conflicts**: tools of one document whose root ``$defs`` give one name
  two different schemas; OpenAI-compatible servers (vLLM) hoist every tool's ``$defs`` into
  one map and fail the request. Counted per dialect as tools and names.

    python benchmarks/fidelity_census.py                    # chatgpt, llama
    python benchmarks/fidelity_census.py chatgpt qwen --strict

The corpus is found as the tests find it (tests/shared.py: ``$HTTPLLM_SPECS``, else
``../shared/specs``); every OpenAPI 3.x document of the ``real`` set of MANIFEST.tsv is
compiled once per dialect. The same counts back the corpus tests (readOnly:
``tests/corpus/test_corpus.py``; ``$defs``: the llama and deepseek-strict sweep of
``tests/dialects``).
"""

from __future__ import annotations

import argparse
import csv
import sys
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(REPO_ROOT / "src"), str(REPO_ROOT / "tests")]

from checkers.census import conflicts, offered  # noqa: E402
from shared import require  # noqa: E402

import httpllm  # noqa: E402  # after the path set-up, so the working tree's code is used


def documents(folder: Path) -> Iterator[Path]:
    """Every OpenAPI 3.x root document of the ``real`` set of MANIFEST.tsv."""
    with (folder / "MANIFEST.tsv").open(newline="", encoding="utf-8") as handle:
        for row in csv.DictReader(handle, delimiter="\t"):
            if row["set"] == "real" and row["openapi_version"].startswith("3.") and not \
                    row["openapi_version"].startswith("3.2"):
                yield folder / row["local_path"]


@dataclass
class Census:
    """The counts of one dialect over the corpus."""

    tools: int = 0
    readonly_tools: int = 0
    readonly_properties: int = 0
    conflict_tools: int = 0
    conflict_names: int = 0
    examples: list[str] = field(default_factory=list)


def census(path: Path, provider: str, strict: bool, into: Census) -> None:
    """Add one document's counts to ``into``."""
    try:
        app = httpllm.compile(str(path), provider, strict=strict, allow_outside_root=True)
    except httpllm.HttpllmError:
        return
    listing = []
    for function in app.functions:
        into.tools += 1
        found = offered(function.parameters)
        if found:
            into.readonly_tools += 1
            into.readonly_properties += len(found)
            if len(into.examples) < 10:
                into.examples.append(f"{path.name} {function.name} {found[0]}")
        listing.append((function.name, function.parameters))
    clash = conflicts(listing)
    into.conflict_names += len(clash)
    into.conflict_tools += len(set().union(*clash.values())) if clash else 0


def main(argv: list[str] | None = None) -> int:
    """Print the counts per dialect."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("providers", nargs="*", default=["chatgpt", "llama"])
    parser.add_argument("--strict", action="store_true")
    args = parser.parse_args(argv)
    folder = require("specs")
    for provider in args.providers:
        counts = Census()
        for path in documents(folder):
            census(path, provider, args.strict, counts)
        print(f"{provider}{' strict' if args.strict else ''}: {counts.tools} tools; readOnly "
              f"offered in {counts.readonly_tools} tools ({counts.readonly_properties} "
              f"properties); merged $defs conflicts: {counts.conflict_names} names in "
              f"{counts.conflict_tools} tools")
        for line in counts.examples:
            print("  " + line)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
