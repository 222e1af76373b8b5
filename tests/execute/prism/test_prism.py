"""Prism judges the requests httpllm builds from tool calls that `validate` accepted.

For every operation of each document, tool calls are drawn from the compiled `parameters`
(hypothesis-jsonschema), checked with `validate` (which decodes strict-mode calls), built
with `build_request` against a Prism mock server and sent; Prism validates each request
against the original document. See `harness.py` for what is counted and what is not blamed
on httpllm (`KNOWN`).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import httpx
import pytest

import httpllm

from .harness import DIALECTS, REQUEST_TIMEOUT, SPECS, TALLY, PrismServer, Spec, exercise


def _report(title: str, items: list[dict[str, Any]], limit: int = 8) -> str:
    shown = [json.dumps(item, ensure_ascii=False, indent=1, default=repr)[:4000]
             for item in items[:limit]]
    more = f"\n... and {len(items) - limit} more" if len(items) > limit else ""
    return f"{len(items)} {title}:\n" + "\n".join(shown) + more


@pytest.mark.parametrize(("provider", "strict"), DIALECTS, ids=["chatgpt-strict", "3.1"])
@pytest.mark.parametrize("spec", SPECS, ids=[s.id for s in SPECS])
def test_prism_finds_no_error_in_requests_validate_accepted(
    spec: Spec, provider: str, strict: bool, corpus: Path,
    prism_servers: dict[str, PrismServer],
) -> None:
    """Prism reports no request-validation error for a request built from an accepted call."""
    dialect = f"{provider}{' strict' if strict else ''}"
    server = prism_servers[spec.path]
    if server.failure:
        TALLY.skip("Prism cannot load the document", f"{spec.id} [{dialect}]")
        pytest.fail(f"Prism cannot serve {spec.path}: {server.failure}", pytrace=False)
    app = httpllm.compile(corpus / spec.path, provider, strict=strict)
    for error in app.errors:
        TALLY.skip("httpllm cannot compile the operation",
                   f"{spec.id} [{dialect}] {error.method.upper()} {error.path}")
    findings: list[dict[str, Any]] = []
    build_errors: list[dict[str, Any]] = []
    sent = 0
    with httpx.Client(timeout=REQUEST_TIMEOUT) as client:
        for function in app.functions:
            if function.name in spec.exclude:
                TALLY.skip(spec.exclude[function.name],
                           f"{spec.id} [{dialect}] {function.name}")
                continue
            if not server.alive():
                TALLY.skip("Prism stopped answering", f"{spec.id} [{dialect}] {function.name}")
                continue
            outcome = exercise(function, client, server.url)
            TALLY.add(spec, dialect, function, outcome)
            sent += outcome.sent
            findings.extend(outcome.findings)
            build_errors.extend({"function": function.name, "error": error}
                                for error in outcome.build_errors)
    assert server.alive(), f"Prism died serving {spec.path}: {server.log_tail(12)}"
    assert sent, f"no request reached Prism for {spec.path} [{dialect}]"
    assert not findings, _report("request-validation errors", findings)
    assert not build_errors, _report("requests validate accepted but could not build",
                                     build_errors)
