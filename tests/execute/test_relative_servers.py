"""Kind 7 of issue 18: a relative server URL resolves against the document's own URL
(`compile(document_url=...)`, `--document-url`); without it the error says what to pass."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from httpllm import compile
from httpllm.cli import main
from httpllm.errors import RequestBuildError
from httpllm.execute import build_request


def document(servers: list[dict[str, Any]] | None) -> dict[str, Any]:
    """One GET operation under these servers (none: the key is left out)."""
    doc: dict[str, Any] = {
        "openapi": "3.1.0",
        "info": {"title": "relative", "version": "1"},
        "paths": {"/things": {"get": {"operationId": "listThings",
                                      "responses": {"200": {"description": "ok"}}}}},
    }
    if servers is not None:
        doc["servers"] = servers
    return doc


@pytest.mark.parametrize(
    ("servers", "document_url", "url"),
    [
        ([{"url": "/api/v1"}], "https://example.com/specs/openapi.json",
         "https://example.com/api/v1/things"),
        ([{"url": "v2"}], "https://example.com/specs/openapi.json",
         "https://example.com/specs/v2/things"),
        ([{"url": "//cdn.example.com/x"}], "https://example.com/openapi.json",
         "https://cdn.example.com/x/things"),
        (None, "https://example.com/specs/openapi.yaml", "https://example.com/things"),
        ([{"url": "https://api.example.com"}], "https://example.com/openapi.json",
         "https://api.example.com/things"),
    ],
)
def test_a_relative_server_resolves_against_the_document_url(
    servers: Any, document_url: str, url: str
) -> None:
    """Relative references, the default server `/` and absolute URLs, per RFC 3986 5.2."""
    fn = compile(document(servers), "3.1", document_url=document_url).function("listThings")
    assert str(build_request(fn, {}).url) == url


def test_without_a_document_url_the_error_says_what_to_pass() -> None:
    """A relative server without document_url names both base_url and document_url."""
    fn = compile(document([{"url": "/api/v1"}]), "3.1").function("listThings")
    with pytest.raises(RequestBuildError, match=r"relative; pass base_url.*document_url"):
        build_request(fn, {})


def test_a_resolved_server_is_a_declared_origin() -> None:
    """Credentials may go to the document's own origin once its servers resolve there."""
    doc = document([{"url": "/api"}])
    doc["components"] = {"securitySchemes": {"key": {"type": "apiKey", "in": "header",
                                                     "name": "X-Key"}}}
    doc["security"] = [{"key": []}]
    fn = compile(doc, "3.1", document_url="https://example.com/o.json").function("listThings")
    assert build_request(fn, {}, auth={"key": "k"}).headers["x-key"] == "k"


def test_the_cli_takes_document_url(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """`httpllm call --document-url` resolves the relative server the same way."""
    spec = tmp_path / "relative.json"
    spec.write_text(json.dumps(document([{"url": "/api/v1"}])))
    status = main(["call", str(spec), "listThings", "--args", "{}",
                   "--document-url", "https://example.com/openapi.json"])
    out, _ = capsys.readouterr()
    assert status == 0 and out.splitlines()[0] == "GET https://example.com/api/v1/things"
