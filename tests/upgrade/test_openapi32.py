"""OpenAPI 3.2: each new feature read through the 3.1 path, and QUERY, additionalOperations
and querystring requests as the echo app on 127.0.0.1 receives them."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import httpx
import pytest

import httpllm
from httpllm.load import load_text
from httpllm.upgrade import openapi32, upgrade

DOC = Path(__file__).resolve().parents[1] / "fixtures" / "openapi32" / "api.yaml"


@pytest.fixture(scope="module")
def app() -> httpllm.Application:
    """The 3.2 feature document, compiled."""
    return httpllm.compile(DOC, "3.1")


def test_every_rule_applies_once() -> None:
    """Each 3.2 feature of the document is met by its rule exactly once per use."""
    done = upgrade(load_text(DOC.read_bytes()))
    assert done.version == "3.2"
    assert dict(done.tally) == {"self": 1, "query": 1, "additional_operations": 1,
                                "querystring": 1, "item_schema": 1, "data_value": 1,
                                "tag_parent": 2, "device_authorization": 1}


def test_self_ref_into_the_document_is_local() -> None:
    """An absolute $ref to the $self document becomes a local one; a sibling file relative."""
    ctx = openapi32.Context(self_folder="https://x.org/a/", self_document="https://x.org/a/o.yaml")
    assert openapi32.self_ref({"$ref": "https://x.org/a/o.yaml#/B"}, ctx, "#") == {"$ref": "#/B"}
    assert openapi32.self_ref({"$ref": "https://x.org/a/s.yaml"}, ctx, "#") == {"$ref": "s.yaml"}
    other = {"$ref": "https://y.org/s.yaml"}
    assert openapi32.self_ref(other, ctx, "#") is other


def test_operations_query_and_additional(app: httpllm.Application) -> None:
    """The query method and additionalOperations are functions; the JSON querystring
    operation is an error with a warning saying why."""
    assert [(f.name, f.method) for f in app.functions] == [
        ("searchPets", "query"), ("findPets", "get"), ("copyPets", "copy")]
    assert [(e.path, e.kind) for e in app.errors] == [("/raw", "SpecError")]
    assert "#/paths/~1raw/get/parameters/0/content" in [w.pointer for w in app.warnings]
    assert app.version == "3.2"


def test_item_schema_and_data_value(app: httpllm.Application) -> None:
    """itemSchema is the output's items (with a warning); dataValue is an example value."""
    search = app.function("searchPets")
    assert search.output == {"type": "array", "items": {"type": "object", "properties": {
        "name": {"type": "string"}}}}
    assert search.examples == ({"body": {"name": "Rex"}},)
    assert any(w.pointer.endswith("/itemSchema") for w in app.warnings)


def call(app: httpllm.Application, name: str, arguments: dict[str, Any],
         base: str) -> dict[str, Any]:
    """What the echo app received."""
    with httpx.Client() as client:
        result = app.execute(name, arguments, client=client, base_url=base)
    body: dict[str, Any] = result.body
    return body


def test_query_method_on_the_wire(app: httpllm.Application, echo_server: str) -> None:
    """A QUERY operation is sent with method QUERY and its JSON body."""
    got = call(app, "searchPets", {"body": {"name": "Rex"}}, echo_server)
    assert (got["method"], got["raw_path"]) == ("QUERY", "/search")
    assert json.loads(got["body"]) == {"name": "Rex"}


def test_querystring_parameter_on_the_wire(app: httpllm.Application, echo_server: str) -> None:
    """A form querystring parameter is the whole query string, one pair per property."""
    got = call(app, "findPets", {"filter": {"name": "Rex Jr", "limit": 2}}, echo_server)
    assert (got["method"], got["query_string"]) == ("GET", "name=Rex%20Jr&limit=2")


def test_additional_operation_on_the_wire(app: httpllm.Application, echo_server: str) -> None:
    """An additionalOperations method is sent as written."""
    got = call(app, "copyPets", {}, echo_server)
    assert (got["method"], got["raw_path"]) == ("COPY", "/pets")


def test_corpus_32_document_compiles(specs_dir: Path) -> None:
    """The 3.2 document of the shared corpus compiles every operation."""
    app = httpllm.compile(specs_dir / "edge/openapi-spec-validator/v3.2/petstore.yaml", "3.1")
    assert len(app.functions) == 3 and not app.errors
