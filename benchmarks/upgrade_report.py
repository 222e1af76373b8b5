"""The Swagger 2.0 / OpenAPI 3.2 report: per document of the corpus, operations compiled vs.
present, and how often each upgrade rule applied (httpllm.upgrade tallies), in markdown.

    python benchmarks/upgrade_report.py [provider]

Not a timing: the figures the issue's closing note asks for (issue 16).
"""

from __future__ import annotations

import collections
import csv
import sys
from typing import Any

from _util import specs_root

import httpllm
import httpllm._api
from httpllm.upgrade import Upgraded, upgrade


def compiled(path: Any, provider: str) -> tuple[Any, list[Upgraded]]:
    """The application and the upgrade record(s) its compile made (the record is read from
    the upgrade call: compile keeps only the pointers it needs)."""
    seen: list[Upgraded] = []

    def spy(*args: Any, **kwargs: Any) -> Upgraded:
        done = upgrade(*args, **kwargs)
        seen.append(done)
        return done

    httpllm._api.upgrade = spy  # type: ignore[attr-defined]
    try:
        app = httpllm.compile(path, provider, allow_outside_root=True)
        app.warnings  # noqa: B018 - reading it reads the response schemas (and their files)
    finally:
        httpllm._api.upgrade = upgrade  # type: ignore[attr-defined]
    return app, seen


def main(provider: str = "3.1") -> None:
    root = specs_root()
    with (root / "MANIFEST.tsv").open(newline="", encoding="utf-8") as handle:
        rows = [r for r in csv.DictReader(handle, delimiter="\t")
                if r["set"] in ("real", "edge") and r["openapi_version"][:3] in ("2.0", "3.2")]
    total: collections.Counter[str] = collections.Counter()
    print("| document | version | operations compiled / present | errors | warnings |")
    print("|---|---|---|---|---|")
    for row in rows:
        app, seen = compiled(root / row["local_path"], provider)
        for done in seen:
            total.update(done.tally)
        print(f"| {row['local_path']} | {row['openapi_version']} | {len(app.functions)} / "
              f"{row['n_operations']} | {len(app.errors)} | {len(app.warnings)} |")
    print("\n| rule | applied |\n|---|---|")
    for rule, count in sorted(total.items()):
        print(f"| {rule} | {count:,} |")


if __name__ == "__main__":
    main(*sys.argv[1:])
