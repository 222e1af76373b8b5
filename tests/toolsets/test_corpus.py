"""`httpllm lint` and `httpllm inspect --budget` over every real document, without a crash.

Every version is read, Swagger 2.0 and OpenAPI 3.2 too (they were skipped as refused until
the upgrade read them; issue 26). Each document is linted and budgeted for chatgpt through
the command line (two compiles each: plain, and strict for the eligibility column); a
whole run takes a few minutes.
"""

from __future__ import annotations

import csv
import json
import os
from pathlib import Path

import pytest

from httpllm.cli import main

pytestmark = pytest.mark.corpus


def _rows() -> list[dict[str, str]]:
    folder = os.environ.get("HTTPLLM_SPECS")
    path = Path(folder) / "MANIFEST.tsv" if folder else None
    if path is None or not path.is_file():
        return []
    with path.open(newline="", encoding="utf-8") as handle:
        return [r for r in csv.DictReader(handle, delimiter="\t") if r["set"] == "real"]


ROWS = _rows()


def _check(capsys: pytest.CaptureFixture[str], argv: list[str]) -> object:
    """Run the command: exit 0 or 1 (an error finding, or a refused document with one
    line on stderr), never a traceback; the JSON it printed."""
    status = main(argv)
    out, err = capsys.readouterr()
    assert status in (0, 1), err
    if not out:
        assert status == 1 and err.strip().count("\n") == 0 and err.startswith("httpllm:")
        return None
    return json.loads(out)


@pytest.mark.parametrize("local_path", [r["local_path"] for r in ROWS] or ["(no corpus)"])
def test_lint_and_budget_run_over_the_document(local_path: str, specs_dir: Path,
                                              capsys: pytest.CaptureFixture[str]) -> None:
    """lint --json and inspect --budget --json finish on the document with JSON output."""
    row = next((r for r in ROWS if r["local_path"] == local_path), None)
    if row is None:
        pytest.skip("HTTPLLM_SPECS has no MANIFEST.tsv")
    path = str(specs_dir / local_path)
    findings = _check(capsys, ["lint", path, "--allow-outside-root", "--json"])
    assert findings is None or all({"rule", "severity", "pointer"} <= set(f) for f in findings)
    report = _check(capsys, ["inspect", path, "--allow-outside-root", "--budget", "--json"])
    assert report is None or report["total_tokens"] >= 0
