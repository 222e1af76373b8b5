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

from .harness import (
    DIALECTS,
    REQUEST_TIMEOUT,
    SPECS,
    TALLY,
    Call,
    PrismServer,
    Spec,
    classify,
    request_violations,
)
from .sampling import exercise

PETSTORE = SPECS[0]


def _compact(value: Any, limit: int = 600) -> str:
    text = json.dumps(value, ensure_ascii=False, default=repr)
    return text if len(text) <= limit else text[:limit] + "..."


def _show(item: dict[str, Any]) -> str:
    """One finding as a few lines: operation, arguments, request, violations."""
    if "error" in item:
        return f"- {item['function']}: {item['error']}"
    request = item["request"]
    lines = [
        f"- {item['function']} ({item['operation']}) -> {item['status']}",
        f"  arguments: {_compact(item['arguments'])}",
        f"  decoded:   {_compact(item['decoded'])}",
        f"  request:   {request['method']} {request['url']} {_compact(request['headers'])}",
    ]
    if request["body"]:
        lines.append(f"  body:      {_compact(request['body'])}")
    lines.extend(f"  violation: {'.'.join(map(str, v.get('location') or []))} "
                 f"{v.get('code', '')}: {v.get('message', '')}" for v in item["violations"])
    return "\n".join(lines)


def _report(title: str, items: list[dict[str, Any]], limit: int = 10) -> str:
    more = f"\n... and {len(items) - limit} more" if len(items) > limit else ""
    return f"{len(items)} {title}:\n" + "\n".join(_show(i) for i in items[:limit]) + more


@pytest.mark.prism
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
    if not server.alive():
        log = server.log_tail(12)
        if "URIError: URI malformed" in log:
            # Prism's own defect: it runs decodeURIComponent over multipart/form values, so a
            # literal "%" that we send raw (OpenAPI 3.1.1 Appendix E.2) kills the server.
            pytest.xfail(f"Prism crashed on a raw '%' in a form value ({spec.path})")
        pytest.fail(f"Prism died serving {spec.path}: {log}", pytrace=False)
    if not sent:
        pytest.fail(f"no request reached Prism for {spec.path} [{dialect}]", pytrace=False)
    if findings or build_errors:
        pytest.fail("\n".join(
            _report(title, items) for title, items in (
                ("request-validation errors", findings),
                ("calls validate accepted that build_request refused", build_errors),
            ) if items
        ), pytrace=False)


def test_violations_are_read_from_the_sl_violations_header() -> None:
    """Only the request errors of `sl-violations` count, their `request` prefix dropped."""
    listed = [
        {"location": ["request", "query", "limit"], "severity": "Error", "code": "type",
         "message": "Request query parameter limit must be integer"},
        {"location": ["request", "header", "x"], "severity": "Warning", "code": "deprecated",
         "message": "Request header param x is deprecated"},
        {"location": ["response", "body"], "severity": "Error", "code": "required",
         "message": "Response body must have required property 'id'"},
    ]
    response = httpx.Response(422, headers={"sl-violations": json.dumps(listed)}, json={})
    assert request_violations(response) == [{**listed[0], "location": ["query", "limit"]}]
    assert request_violations(httpx.Response(200, json={})) == []


def test_violations_are_read_from_a_problem_body() -> None:
    """A problem JSON of type UNPROCESSABLE_ENTITY yields its `validation` entries."""
    problem = {
        "type": "https://stoplight.io/prism/errors#UNPROCESSABLE_ENTITY", "status": 422,
        "validation": [{"location": ["body"], "severity": "Error", "code": "required",
                        "message": "Request body must have required property 'name'"}],
    }
    response = httpx.Response(422, content=json.dumps(problem).encode(),
                              headers={"content-type": "application/problem+json"})
    assert request_violations(response) == problem["validation"]


def test_known_prism_differences_are_set_apart_and_the_rest_kept() -> None:
    """classify sets apart a `url` format and oneOf fallout, and keeps an int32 overflow."""
    app = httpllm.compile({
        "openapi": "3.0.3", "info": {"title": "t", "version": "1"},
        "paths": {"/x": {"post": {"operationId": "x", "responses": {"200": {"description": "ok"}},
                                  "requestBody": {"content": {"application/json": {
                                      "schema": {"type": "object"}}}}}}},
    }, "3.1")
    call = Call(app.functions[0], {"body": {}}, {"body": {}}, httpx.Request("POST", "http://x/x"))
    violations = [
        {"location": ["body", "site"], "code": "format",
         "message": 'Request body property site must match format "url"'},
        {"location": ["body", "kind"], "code": "oneOf",
         "message": "Request body property kind must match exactly one schema in oneOf"},
        {"location": ["body", "kind", "a"], "code": "type",
         "message": "Request body property kind.a must be object"},
        {"location": ["body", "n"], "code": "maximum",
         "message": "Request body property n must be <= 2147483647"},
    ]
    assert classify(violations, call) == {
        "prism-format-url": violations[:1], "oneof-widened": violations[1:3],
        "": violations[3:],
    }


@pytest.mark.prism
@pytest.mark.parametrize("spec", [PETSTORE], ids=[PETSTORE.id])
def test_prism_reports_a_request_that_breaks_the_document(
    spec: Spec, prism_servers: dict[str, PrismServer]
) -> None:
    """Prism answers a request the document forbids with a violation the run detects."""
    server = prism_servers[spec.path]
    assert not server.failure, server.failure
    response = httpx.get(f"{server.url}/pets", params={"limit": "many"}, timeout=REQUEST_TIMEOUT)
    assert [v["location"] for v in request_violations(response)] == [["query", "limit"]]
