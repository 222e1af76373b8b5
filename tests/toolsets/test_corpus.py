"""`httpllm lint` and `httpllm inspect --budget` over every real document, without a crash.

Swagger 2.0 and OpenAPI 3.2 documents are read like the others (httpllm.upgrade). Each
document is linted and budgeted for chatgpt through the command line (two compiles each:
plain, and strict for the eligibility column); a whole run takes a minute or two.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import shared

from httpllm.cli import main

pytestmark = pytest.mark.corpus


ROWS = shared.manifest(["real"])


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


@pytest.mark.parametrize("local_path", shared.params(r["local_path"] for r in ROWS))
def test_lint_and_budget_run_over_the_document(local_path: str, specs_dir: Path,
                                              capsys: pytest.CaptureFixture[str]) -> None:
    """lint --json and inspect --budget --json finish on the document with JSON output."""
    path = str(specs_dir / local_path)
    findings = _check(capsys, ["lint", path, "--allow-outside-root", "--json"])
    assert findings is None or all({"rule", "severity", "pointer"} <= set(f) for f in findings)
    report = _check(capsys, ["inspect", path, "--allow-outside-root", "--budget", "--json"])
    assert report is None or report["total_tokens"] >= 0
