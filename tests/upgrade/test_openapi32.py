"""OpenAPI 3.2: each new feature read through the 3.1 path, and QUERY, additionalOperations
and querystring requests as the echo app on 127.0.0.1 receives them."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any
from urllib.parse import unquote

import httpx
import pytest

import httpllm
from httpllm.errors import RequestBuildError
from httpllm.execute import build_request
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
                                "querystring": 2, "item_schema": 1, "data_value": 1,
                                "tag_parent": 2, "device_authorization": 1}


def test_self_ref_into_the_document_is_local() -> None:
    """An absolute $ref to the $self document becomes a local one; a sibling file relative."""
    ctx = openapi32.Context(self_folder="https://x.org/a/", self_document="https://x.org/a/o.yaml")
    assert openapi32.self_ref({"$ref": "https://x.org/a/o.yaml#/B"}, ctx, "#") == {"$ref": "#/B"}
    assert openapi32.self_ref({"$ref": "https://x.org/a/s.yaml"}, ctx, "#") == {"$ref": "s.yaml"}
    other = {"$ref": "https://y.org/s.yaml"}
    assert openapi32.self_ref(other, ctx, "#") is other


def test_a_relative_ref_to_the_self_document_is_local() -> None:
    """A relative `$ref` resolves against `$self` (OpenAPI 3.2.0 section 4.8.1): one whose
    target is the `$self` document (`o.yaml`, `./o.yaml`, `../a/o.yaml`) is local, one to
    another file stays relative, and one under an `$id` resolves against the `$id`."""
    root = {"$self": "https://x.org/a/o.yaml", "components": {"schemas": {
        "I": {"$id": "https://y.org/", "properties": {"p": {"$ref": "o.yaml#/B"}}},
        "J": {"$id": "sub/", "properties": {"p": {"$ref": "../o.yaml#/B"}}}}}}
    ctx = openapi32.Context(self_folder="https://x.org/a/", self_document="https://x.org/a/o.yaml",
                            root=root)
    for ref in ("o.yaml#/B", "./o.yaml#/B", "../a/o.yaml#/B"):
        assert openapi32.self_ref({"$ref": ref}, ctx, "#/paths") == {"$ref": "#/B"}
    sibling = {"$ref": "s.yaml#/B"}
    assert openapi32.self_ref(sibling, ctx, "#") is sibling
    under_id = root["components"]["schemas"]["I"]["properties"]["p"]
    assert openapi32.self_ref(under_id, ctx, "#/components/schemas/I/properties/p") is under_id
    relative_id = root["components"]["schemas"]["J"]["properties"]["p"]
    assert openapi32.self_ref(relative_id, ctx, "#/components/schemas/J/properties/p") == {
        "$ref": "#/B"}


_SELF_SPEC = """\
openapi: 3.2.0
$self: SELF
info: {title: t, version: "1"}
servers: [{url: https://api.example.com}]
paths:
  /a:
    post:
      operationId: a
      requestBody:
        content:
          application/json:
            schema:
              type: object
              properties:
                x: {$ref: "openapi.yaml#/components/schemas/A"}
                y: {$ref: "./openapi.yaml#/components/schemas/A"}
      responses: {"204": {description: ok}}
components:
  schemas:
    A: {type: integer}
"""


@pytest.mark.parametrize("own", ["https://ex.com/api/openapi.yaml", "openapi.yaml"])
@pytest.mark.parametrize("decoy", [False, True])
def test_a_ref_to_the_self_name_reads_no_file(tmp_path: Path, own: str, decoy: bool) -> None:
    """`openapi.yaml#/...` in a document read from `spec.yaml` whose `$self` is
    `.../openapi.yaml` is the document itself: it read a file `openapi.yaml` beside it
    (missing: the operation's error; present: another document's schema, here a string)."""
    (tmp_path / "spec.yaml").write_text(_SELF_SPEC.replace("SELF", own), encoding="utf-8")
    if decoy:
        (tmp_path / "openapi.yaml").write_text(
            'openapi: 3.1.0\ninfo: {title: x, version: "1"}\npaths: {}\n'
            "components: {schemas: {A: {type: string}}}\n", encoding="utf-8")
    app = httpllm.compile(tmp_path / "spec.yaml", "3.1")
    assert not app.errors
    body = app.tools()[0]["parameters"]["properties"]["body"]["properties"]
    assert body == {"x": {"type": "integer"}, "y": {"type": "integer"}}


def test_operations_query_and_additional(app: httpllm.Application) -> None:
    """The query method, additionalOperations and the JSON querystring operation are
    functions, with no warning about the querystring."""
    assert [(f.name, f.method) for f in app.functions] == [
        ("searchPets", "query"), ("findPets", "get"), ("copyPets", "copy"),
        ("rawQuery", "get")]
    assert app.errors == ()
    assert not [w for w in app.warnings if "/parameters/" in w.pointer]
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


def test_json_querystring_is_the_whole_query_string(app: httpllm.Application,
                                                    echo_server: str) -> None:
    """A JSON querystring parameter is the whole query string: its compact JSON text,
    percent-encoded but for RFC 3986's unreserved characters (OpenAPI 3.2.0 section
    4.12.8's example), read back whole by the server on 127.0.0.1."""
    value = {"numbers": [1, 2], "flag": None, "note": "a b&c=d"}
    got = call(app, "rawQuery", {"q": value}, echo_server)
    assert got["query_string"] == (
        "%7B%22numbers%22%3A%5B1%2C2%5D%2C%22flag%22%3Anull%2C%22note%22%3A%22a%20b%26c%3Dd"
        "%22%7D")
    assert json.loads(unquote(got["query_string"])) == value


def _one_parameter(parameter: dict[str, Any], *more: dict[str, Any]) -> httpllm.Application:
    """A 3.2 document whose one operation, `op` at /t, takes `parameter` (and `more`)."""
    return httpllm.compile({
        "openapi": "3.2.0", "info": {"title": "t", "version": "1"},
        "servers": [{"url": "https://api.example.com"}],
        "paths": {"/t": {"get": {"operationId": "op", "parameters": [parameter, *more],
                                 "responses": {"200": {"description": "ok"}}}}}}, "3.1")


@pytest.mark.parametrize(("media_type", "sent"), [
    ("application/jsonpath", "%24.a.b%5B1%3A1%5D"), ("text/plain", "$.a.b%5B1:1%5D")])
def test_text_querystring_is_sent_as_given_percent_encoded(
        echo_server: str, media_type: str, sent: str) -> None:
    """A JSONPath querystring string is data, percent-encoded whole: `$.a.b[1:1]` is
    `%24.a.b%5B1%3A1%5D`, as OpenAPI 3.2's example; a text/plain one is the query string
    itself (section 4.12.7), only what a query cannot hold (`[ ]`) percent-encoded."""
    app = _one_parameter({"name": "selector", "in": "querystring", "content": {
        media_type: {"schema": {"type": "string"}}}})
    got = call(app, "op", {"selector": "$.a.b[1:1]"}, echo_server)
    assert got["query_string"] == sent


def test_querystring_beside_query_parameters_is_the_operations_error() -> None:
    """An `in: querystring` parameter beside an `in: query` one (or a second querystring)
    has no place in the URL: the operation is an error at the querystring parameter."""
    raw = {"name": "q", "in": "querystring", "content": {"application/json": {}}}
    for other in ({"name": "a", "in": "query", "schema": {"type": "string"}},
                  {"name": "r", "in": "querystring", "content": {"text/plain": {}}}):
        app = _one_parameter(raw, other)
        assert [(e.pointer, e.kind) for e in app.errors] == [
            ("#/paths/~1t/get/parameters/0", "SpecError")]


def test_querystring_of_several_media_types_is_reported() -> None:
    """A querystring `content` of two media types (OpenAPI: exactly one) or a multipart
    one cannot be sent: the operation is an error, with a warning at its content."""
    for content in ({"application/json": {}, "text/plain": {}}, {"multipart/form-data": {}}):
        app = _one_parameter({"name": "q", "in": "querystring", "content": content})
        assert [e.kind for e in app.errors] == ["SpecError"]
        assert "#/paths/~1t/get/parameters/0/content" in [w.pointer for w in app.warnings]


def test_querystring_and_a_query_credential_cannot_share_the_query() -> None:
    """A query apiKey cannot join a JSON querystring (the whole query string): the call is
    refused, never sent as `?{json}&api_key=...`."""
    document = {
        "openapi": "3.2.0", "info": {"title": "t", "version": "1"},
        "servers": [{"url": "https://api.example.com"}],
        "components": {"securitySchemes": {"k": {"type": "apiKey", "in": "query",
                                                 "name": "api_key"}}},
        "security": [{"k": []}],
        "paths": {"/t": {"get": {"operationId": "op", "parameters": [
            {"name": "q", "in": "querystring", "content": {"application/json": {}}}],
            "responses": {"200": {"description": "ok"}}}}}}
    fn = httpllm.compile(document, "3.1").functions[0]
    with pytest.raises(RequestBuildError, match=r"whole query string.*'api_key'"):
        build_request(fn, {"q": {"a": 1}}, auth={"k": "SECRET"})


def test_form_querystring_items_follow_encoding_by_name(echo_server: str) -> None:
    """A form querystring's array property is one pair per item, an object item its JSON
    text (OpenAPI 3.2 Encoding By Name: contentType application/json), never brackets."""
    app = _one_parameter({"name": "f", "in": "querystring", "content": {
        "application/x-www-form-urlencoded": {"schema": {"type": "object", "properties": {
            "a": {"type": "array", "items": {}}}}}}})
    got = call(app, "op", {"f": {"a": [{"k": 1}, "x"]}}, echo_server)
    assert got["query_string"] == "a=%7B%22k%22%3A1%7D&a=x"


def test_form_querystring_null_item_is_refused_by_name() -> None:
    """A null item of a form querystring's array would not be sent (a form field has no
    null): validate refuses it at its pointer, naming the argument."""
    app = _one_parameter({"name": "f", "in": "querystring", "content": {
        "application/x-www-form-urlencoded": {"schema": {"type": "object", "properties": {
            "a": {"type": "array", "items": {}}}}}}})
    errors = app.validate("op", {"f": {"a": ["x", None, "y"]}}).errors
    assert [(e.pointer, e.keyword) for e in errors] == [("#/f/a/1", "null")]
    assert errors[0].message.startswith("f/a/1: expected an item other than null")


def test_required_form_querystring_sending_nothing_says_so() -> None:
    """A required form querystring whose properties all send nothing is refused with what
    is wanted: a property whose value is sent, not "a property that is not null"."""
    app = _one_parameter({"name": "f", "in": "querystring", "required": True, "content": {
        "application/x-www-form-urlencoded": {"schema": {"type": "object"}}}})
    (error,) = app.validate("op", {"f": {"a": []}}).errors
    assert error.expected.startswith("at least one property whose value is sent")
    assert "(required querystring parameter;" in error.expected


def test_additional_operation_on_the_wire(app: httpllm.Application, echo_server: str) -> None:
    """An additionalOperations method is sent as written."""
    got = call(app, "copyPets", {}, echo_server)
    assert (got["method"], got["raw_path"]) == ("COPY", "/pets")


def test_an_additional_method_not_in_upper_case_is_said_to_be_sent_upper_cased(
        echo_server: str) -> None:
    """httpx upper-cases every method (`httpx.Request("purge", ...).method == "PURGE"`),
    while methods are case-sensitive (RFC 9110 section 9.1): a `purge` or `Lock` key of
    `additionalOperations` is a warning at its pointer saying what is sent, and the
    function's name and description say the same method; `PURGE` is no warning."""
    ok = {"responses": {"204": {"description": "ok"}}}
    app = httpllm.compile({
        "openapi": "3.2.0", "info": {"title": "t", "version": "1"},
        "servers": [{"url": "https://api.example.com"}],
        "paths": {"/a": {"additionalOperations": {"purge": ok, "Lock": ok, "COPY": ok}}}},
        "3.1")
    assert [(w.pointer, w.message.split(":")[0]) for w in app.warnings] == [
        ("#/paths/~1a/additionalOperations/purge",
         "additionalOperations key 'purge' is sent as PURGE"),
        ("#/paths/~1a/additionalOperations/Lock",
         "additionalOperations key 'Lock' is sent as LOCK")]
    assert "the HTTP client upper-cases methods" in app.warnings[0].message
    assert [(f.name, f.description) for f in app.functions] == [
        ("purge__a", "PURGE /a"), ("lock__a", "LOCK /a"), ("copy__a", "COPY /a")]
    assert call(app, "purge__a", {}, echo_server)["method"] == "PURGE"


def test_corpus_32_document_compiles(specs_dir: Path) -> None:
    """The 3.2 document of the shared corpus compiles every operation."""
    app = httpllm.compile(specs_dir / "edge/openapi-spec-validator/v3.2/petstore.yaml", "3.1")
    assert len(app.functions) == 3 and not app.errors
