"""Requests built from a Swagger 2.0 document, judged by Prism (which reads 2.0 itself):
every collectionFormat in a query, a body parameter, formData with a file, a form.

`getItems` (a csv array in a path and in a header) is left out: Prism 5 crashes on it
(`value.split is not a function` in its `simple` style deserializer, whatever the request);
the echo app checks those bytes (test_wire.py).

Prism is installed by tests/execute/prism/setup.sh (pinned there); without Node.js and npm
the tests are skipped, and fail when the `CI` variable is set (as tests/execute/prism does).
"""

from __future__ import annotations

import os
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from execute.prism.harness import PRISM_BIN, SETUP, PrismServer, request_violations, start_all

import httpllm

pytestmark = pytest.mark.prism

WIRE = Path(__file__).resolve().parents[1] / "fixtures" / "swagger2" / "wire.yaml"
INSTALL_TIMEOUT = 600.0
"""Seconds `npm ci` may take."""


def unavailable(message: str) -> None:
    """Fail under CI (the `CI` variable is set), skip elsewhere."""
    if os.environ.get("CI"):
        pytest.fail(message, pytrace=False)
    pytest.skip(message)


@pytest.fixture(scope="module")
def prism(tmp_path_factory: pytest.TempPathFactory) -> Iterator[PrismServer]:
    """Prism serving the 2.0 wire document on 127.0.0.1."""
    if shutil.which("node") is None or shutil.which("npm") is None:
        unavailable("node and npm not found: the Prism tests need Node.js and npm")
    run = subprocess.run(["bash", str(SETUP)], capture_output=True, text=True,
                         timeout=INSTALL_TIMEOUT, check=False)
    if run.returncode != 0:
        unavailable(f"installing Prism failed: {(run.stderr or run.stdout)[-800:]}")
    server = PrismServer(WIRE, tmp_path_factory.mktemp("prism") / "wire.log")
    start_all([server], PRISM_BIN)
    try:
        if server.failure:
            unavailable(f"Prism did not start: {server.failure}")
        yield server
    finally:
        server.stop()


CALLS: list[tuple[str, dict[str, Any], dict[str, Any]]] = [
    ("listItems", {"csv": ["a", "b"], "ssv": ["a", "b"], "tsv": ["a", "b"], "pipes": ["a", "b"],
                   "multi": ["a", "b"], "empty": ""}, {}),
    ("addPet", {"body": {"name": "Rex", "tag": None}}, {}),
    ("upload", {"body": {"note": "hi", "tags": ["a", "b"]}},
     {"files": {"#/body/file": ("a.txt", b"bytes", "text/plain")}}),
    ("sendForm", {"body": {"name": "a b", "codes": ["x", "y"]}}, {}),
]


@pytest.mark.parametrize(("name", "arguments", "options"), CALLS, ids=[c[0] for c in CALLS])
def test_prism_accepts_the_request(prism: PrismServer, name: str, arguments: dict[str, Any],
                                   options: dict[str, Any]) -> None:
    """Prism finds no request-validation error in the request httpllm builds."""
    app = httpllm.compile(WIRE, "3.1")
    assert options or not app.validate(name, arguments).errors  # files are placed later
    request = httpllm.execute.build_request(app.function(name), arguments,
                                            base_url=prism.url, **options)
    with httpx.Client() as client:
        response = client.send(request)
    assert request_violations(response) == []
    assert response.status_code < 400, response.text[:500]
