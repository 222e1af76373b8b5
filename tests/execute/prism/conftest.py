"""Session fixtures of the Prism tests: install Prism, run one mock server per document, and
print and save the figures at the end.

Prism (npm `@stoplight/prism-cli`, pinned in `package.json` and `package-lock.json`) is
installed into this folder by `setup.sh`, which does nothing when the pinned version is there.
Without `node` and `npm`, or when the install fails, the tests are skipped, and fail when the
`CI` variable is set. The corpus is found by tests/shared.py (`HTTPLLM_SPECS`, else
`../shared/specs` beside the repository).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import shared

from .harness import (
    KNOWN,
    LAST_RUN,
    PRISM_BIN,
    SETUP,
    SPECS,
    TALLY,
    PrismServer,
    Spec,
    start_all,
)

INSTALL_TIMEOUT = 600.0
"""Seconds `npm ci` may take."""


def pytest_configure(config: pytest.Config) -> None:
    """Register the `prism` marker (`-m "not prism"` leaves the Prism tests out)."""
    config.addinivalue_line("markers", "prism: needs Node.js, npm and a running Prism")


def unavailable(message: str) -> None:
    """Fail under CI (the `CI` variable is set), skip elsewhere."""
    if os.environ.get("CI"):
        pytest.fail(message, pytrace=False)
    pytest.skip(message)


@pytest.fixture(scope="session")
def corpus() -> Path:
    """The shared OpenAPI corpus (tests/shared.py)."""
    return shared.require("specs")


@pytest.fixture(scope="session")
def prism_command() -> Path:
    """The installed `prism` executable (installed by `setup.sh` on first use)."""
    missing = [tool for tool in ("node", "npm") if shutil.which(tool) is None]
    if missing:
        unavailable(f"{' and '.join(missing)} not found: the Prism tests need Node.js and npm")
    try:
        run = subprocess.run(["bash", str(SETUP)], capture_output=True, text=True,
                             timeout=INSTALL_TIMEOUT, check=False)
    except subprocess.TimeoutExpired:
        unavailable(f"installing Prism took over {INSTALL_TIMEOUT:.0f} s")
    if run.returncode != 0:
        unavailable(f"installing Prism failed: {(run.stderr or run.stdout)[-800:]}")
    version = subprocess.run([str(PRISM_BIN), "--version"], capture_output=True, text=True,
                             timeout=60, check=False)
    TALLY.prism_version = version.stdout.strip()
    return PRISM_BIN


@pytest.fixture(scope="session")
def prism_servers(
    request: pytest.FixtureRequest, corpus: Path, prism_command: Path,
    tmp_path_factory: pytest.TempPathFactory,
) -> Iterator[dict[str, PrismServer]]:
    """One listening Prism per document the selected tests use, by corpus path."""
    chosen = [getattr(item, "callspec", None) for item in request.session.items]
    used = {c.params["spec"].path for c in chosen
            if c is not None and isinstance(c.params.get("spec"), Spec)}
    logs = tmp_path_factory.mktemp("prism")
    servers = {spec.path: PrismServer(corpus / spec.path, logs / f"{spec.id}.log")
               for spec in SPECS if spec.path in used or not used}
    began = time.monotonic()
    try:
        start_all(list(servers.values()), prism_command)
        TALLY.startup_seconds = time.monotonic() - began
        yield servers
    finally:
        for server in servers.values():
            server.stop()


def pytest_terminal_summary(terminalreporter: Any) -> None:
    """Print the figures and write them to `last_run.json` when the Prism tests ran."""
    if not TALLY.operations and not TALLY.skipped:
        return
    summary = TALLY.summary()
    LAST_RUN.write_text(json.dumps(summary, indent=2, ensure_ascii=False) + "\n")
    write = terminalreporter.write_line
    terminalreporter.section("Prism request validation")
    write(f"prism {summary['prism_version']}, dialects {', '.join(summary['dialects'])}, "
          f"{len(summary['per_document'])} document runs, "
          f"up to {summary['examples_per_operation']} tool calls per operation and schema")
    left_out = sum(len(items) for items in summary["skipped"].values())
    write(f"operations: {summary['operations']} tried, {summary['operations_exercised']} "
          f"exercised ({summary['operations_exercised_from_schema']} from function.schema), "
          f"{left_out} skipped")
    write(f"tool calls: {summary['tool_calls_drawn']} drawn, "
          f"{summary['tool_calls_rejected_by_validate']} rejected by validate "
          f"{summary['rejections_by_keyword']}")
    write(f"requests sent: {summary['requests_sent']}; request-validation errors: "
          f"{summary['request_validation_errors']}; build errors after validate: "
          f"{summary['build_errors_after_validate']}")
    for key, seen in summary["known_differences"].items():
        write(f"known difference {key}: {seen['requests']} request(s) in "
              f"{len(seen['operations'])} operation(s) - {KNOWN[key]}")
    for reason, items in summary["skipped"].items():
        write(f"skipped ({len(items)}): {reason}")
    write(f"answers: {summary['answers']}")
    write(f"Prism startup {summary['prism_startup_seconds']} s; "
          f"session {summary['seconds']} s; figures in {LAST_RUN.relative_to(shared.REPO)}")
