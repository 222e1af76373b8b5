"""Parse: an operation that `plainly_valid` vouches for is one the openapi-pydantic models
accept with the same fields; anything else gets the models' verdict; a compile of plain
operations never imports them."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import httpllm
from httpllm.errors import SpecError
from httpllm.parse import OperationSite, OperationValidator, plainly_valid

ROOT = Path(__file__).resolve().parents[1]

VALUES = st.one_of(
    st.none(), st.booleans(), st.integers(-1, 1), st.sampled_from(["", "a", "path", "query"]),
    st.lists(st.sampled_from(["a", "b"]), max_size=2), st.lists(st.integers(0, 1), max_size=1),
    st.just({}), st.just({"a": None}),
)
"""Values of every JSON type, the right type for each field among them."""

TEXT = st.one_of(st.none(), st.sampled_from(["", "a"]))
FLAG = st.booleans()


def mostly(right: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    """``right`` four times in five, any value else: most drawn operations are plain, and
    each field is sometimes of another type."""
    return st.one_of(right, right, right, right, VALUES)


ENCODING = st.fixed_dictionaries({}, optional={
    "contentType": mostly(TEXT), "style": mostly(TEXT), "explode": mostly(st.none() | FLAG),
    "allowReserved": mostly(FLAG), "headers": VALUES})
MEDIA = st.fixed_dictionaries({}, optional={
    "schema": VALUES, "examples": VALUES, "$ref": VALUES,
    "encoding": mostly(st.dictionaries(st.sampled_from(["a", "b"]), ENCODING, max_size=2))})
CONTENT = mostly(st.dictionaries(st.sampled_from(["application/json", "text/plain"]),
                                 mostly(MEDIA), max_size=2))
PARAMETER = st.one_of(
    st.fixed_dictionaries({"$ref": mostly(st.just("#/components/parameters/P"))}),
    st.fixed_dictionaries({"name": mostly(st.just("q")),
                           "in": mostly(st.sampled_from(["query", "path", "body"]))}, optional={
        "description": mostly(TEXT), "required": mostly(FLAG), "deprecated": mostly(FLAG),
        "allowEmptyValue": mostly(FLAG), "style": mostly(TEXT), "explode": mostly(FLAG),
        "allowReserved": mostly(FLAG), "schema": VALUES, "content": CONTENT, "example": VALUES,
        "param_in": VALUES, "x-a": VALUES}),
    VALUES,
)
BODY = st.one_of(VALUES, st.fixed_dictionaries({"$ref": VALUES}), st.fixed_dictionaries(
    {"content": CONTENT}, optional={"description": mostly(TEXT), "required": mostly(FLAG),
                                    "$ref": VALUES}))
OPERATION = st.fixed_dictionaries({"responses": st.just({})}, optional={
    "summary": mostly(TEXT), "description": mostly(TEXT), "operationId": mostly(TEXT),
    "tags": mostly(st.lists(st.just("t"), max_size=2)), "deprecated": mostly(FLAG),
    "parameters": mostly(st.lists(PARAMETER, max_size=3)), "requestBody": mostly(BODY),
    "externalDocs": VALUES, "other": VALUES})


def site(node: dict[str, Any]) -> OperationSite:
    return OperationSite(method="get", path="/x", pointer="#/paths/~1x/get", node=node,
                         path_item={"get": node}, base="root:")


def fields(model: Any) -> tuple[Any, ...]:
    return (model.summary, model.description, model.operationId, model.tags,
            model.deprecated)


@pytest.mark.parametrize("version", ["3.0", "3.1"])
@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(node=OPERATION)
@pytest.mark.slow
def test_what_plainly_valid_vouches_for_the_models_accept_alike(
        version: str, node: dict[str, Any]) -> None:
    """Whenever `plainly_valid` gives fields, the models accept the operation and read the
    same fields (never the other way round: refused operations get None)."""
    found = plainly_valid(node)
    if found is None:
        return
    model = OperationValidator(version).modelled(site(node))
    assert fields(found) == fields(model)


def test_plain_operations_are_vouched_for() -> None:
    """Names, parameters and a request body with their declared JSON types are plainly
    valid; the fields are the operation's."""
    node = {"operationId": "getPet", "summary": "Get", "tags": ["pets"], "deprecated": True,
            "parameters": [{"$ref": "#/components/parameters/Id"},
                           {"name": "q", "in": "query", "required": False,
                            "schema": {"type": "string"}, "example": 1}],
            "requestBody": {"required": True, "content": {"application/x-www-form-urlencoded": {
                "schema": {}, "encoding": {"a": {"style": "form", "explode": True}}}}},
            "responses": {"200": {"description": "ok"}}, "x-extra": [1]}
    found = plainly_valid(node)
    assert found is not None
    assert fields(found) == ("Get", None, "getPet", ["pets"], True)


@pytest.mark.parametrize("node", [
    {"operationId": 5},
    {"deprecated": "yes"},
    {"tags": "pets"},
    {"parameters": [{"name": "q", "in": "body"}]},
    {"parameters": [{"name": "q"}]},
    {"parameters": [{"$ref": "#/x", "name": "q"}]},
    {"requestBody": {"description": "no content"}},
    {"requestBody": {"content": {"a/b": {"encoding": {"x": {"headers": {}}}}}}},
], ids=["id-number", "deprecated-text", "tags-text", "in-body", "no-in", "ref-siblings",
        "body-without-content", "encoding-headers"])
def test_doubtful_operations_are_left_to_the_models(node: dict[str, Any]) -> None:
    """A field of another type, a missing required field or a part not checked here is not
    vouched for: the models decide."""
    assert plainly_valid(node) is None


def test_an_invalid_operation_is_still_reported_by_the_models() -> None:
    """An operationId that is a number skips that operation with the models' message."""
    doc = {"openapi": "3.0.3", "info": {"title": "t", "version": "1"}, "paths": {
        "/a": {"get": {"operationId": 5, "responses": {"200": {"description": "ok"}}}},
        "/b": {"get": {"operationId": "b", "responses": {"200": {"description": "ok"}}}}}}
    app = httpllm.compile(doc, "chatgpt")
    assert [f.name for f in app.functions] == ["b"]
    (error,) = app.errors
    assert error.kind == "SpecError" and error.pointer == "#/paths/~1a/get/operationId"
    assert error.message.startswith("invalid operation: ")
    with pytest.raises(SpecError):
        OperationValidator("3.0")(site({"operationId": 5, "responses": {}}))


def test_a_plain_compile_imports_no_heavy_module(tmp_path: Path) -> None:
    """Compiling a document of plain operations, and the command line doing it, import
    neither pydantic/openapi-pydantic nor httpx (each is imported where needed: a doubtful
    operation, a request). networkx is imported by the ref graph, which every compile of
    a document with named schemas makes."""
    spec = tmp_path / "spec.json"
    spec.write_text(json.dumps({
        "openapi": "3.0.3", "info": {"title": "t", "version": "1"},
        "paths": {"/pets/{id}": {"get": {
            "operationId": "getPet",
            "parameters": [{"name": "id", "in": "path", "required": True,
                            "schema": {"type": "string"}}],
            "responses": {"200": {"description": "ok", "content": {"application/json": {
                "schema": {"$ref": "#/components/schemas/Pet"}}}}}}}},
        "components": {"schemas": {"Pet": {"type": "object", "properties": {
            "kids": {"type": "array", "items": {"$ref": "#/components/schemas/Pet"}}}}}},
    }))
    code = (
        "import sys, httpllm.cli\n"
        f"status = httpllm.cli.main(['compile', {str(spec)!r}, '-o', "
        f"{str(tmp_path / 'out.json')!r}, '-q'])\n"
        "app = httpllm.compile(sys.argv[1], 'mcp')\n"
        "assert status == 0 and app.functions[0].output is not None and app.cycles\n"
        "print(sorted(m for m in ('pydantic', 'openapi_pydantic', 'httpx')"
        " if m in sys.modules))\n"
    )
    run = subprocess.run([sys.executable, "-c", code, str(spec)], capture_output=True,
                         text=True, check=False, cwd=ROOT,
                         env={"PYTHONPATH": str(ROOT / "src"), "PATH": ""})
    assert run.returncode == 0, run.stderr
    assert run.stdout.strip() == "[]"


def test_an_additional_operation_keyed_by_no_method_or_a_fixed_one_is_its_error() -> None:
    """OpenAPI 3.2 `additionalOperations`: a key that is no HTTP method token (`BAD METHOD`,
    RFC 9110 section 9.1) was a tool whose every call h11 refused ("Illegal method
    characters"), and `GET` (4.8.9.1: the map MUST NOT hold a fixed field's method) a
    second function beside `get`; each is the operation's error, and the rest compile."""
    ok = {"responses": {"200": {"description": "ok"}}}
    doc = {"openapi": "3.2.0", "info": {"title": "t", "version": "1"},
           "paths": {"/a": {"get": {"operationId": "get", **ok}, "additionalOperations": {
               "PURGE": {"operationId": "purge", **ok},
               "BAD METHOD": {"operationId": "bad", **ok},
               "X\r\nY": {"operationId": "crlf", **ok},
               "GET": {"operationId": "again", **ok},
               "Query": {"operationId": "query", **ok}}}}}
    app = httpllm.compile(doc)
    assert [f.name for f in app.functions] == ["get", "purge"]
    assert sorted((e.pointer, e.message.split(" (")[0]) for e in app.errors) == [
        ("#/paths/~1a/additionalOperations/BAD METHOD",
         "additionalOperations key 'BAD METHOD' is no HTTP method"),
        ("#/paths/~1a/additionalOperations/GET",
         "additionalOperations key 'GET' is the method of the `get` field, which the map "
         "must not hold"),
        ("#/paths/~1a/additionalOperations/Query",
         "additionalOperations key 'Query' is the method of the `query` field, which the "
         "map must not hold"),
        ("#/paths/~1a/additionalOperations/X\r\nY",
         "additionalOperations key 'X\\r\\nY' is no HTTP method")]


def test_an_operation_site_carries_its_additional_operations_key_as_written() -> None:
    """A site listed under OpenAPI 3.2 `additionalOperations` carries its key as written
    (`"x~y"`, `"purge"`), read by compose from the site rather than from its pointer; a
    fixed field's site carries none."""
    from httpllm.load import Loader
    from httpllm.parse import parse
    from httpllm.refs import ROOT, Resolver

    ok = {"responses": {"200": {"description": "ok"}}}
    doc = {"openapi": "3.2.0", "info": {"title": "t", "version": "1"},
           "paths": {"/a": {"get": ok, "additionalOperations": {"purge": ok, "x~y": ok}}}}
    sites = parse(doc, Resolver(doc, ROOT, Loader(None)), label="t").sites
    assert [(s.method, s.additional, s.pointer) for s in sites] == [
        ("get", None, "#/paths/~1a/get"),
        ("purge", "purge", "#/paths/~1a/additionalOperations/purge"),
        ("x~y", "x~y", "#/paths/~1a/additionalOperations/x~0y")]


def test_two_additional_operations_equal_but_for_case_compile_the_first() -> None:
    """`PURGE` and `purge` on one path item are two methods (RFC 9110 section 9.1), but the
    HTTP client (httpx) upper-cases every method: they were two functions sending the same
    `PURGE` request. The second is its operation's error, naming the first; the rest
    compile (the other path item's `purge` too)."""
    ok = {"responses": {"200": {"description": "ok"}}}
    doc = {"openapi": "3.2.0", "info": {"title": "t", "version": "1"},
           "paths": {"/a": {"additionalOperations": {
               "PURGE": {"operationId": "purge", **ok},
               "purge": {"operationId": "purge_lower", **ok},
               "Purge": {"operationId": "purge_title", **ok},
               "LOCK": {"operationId": "lock", **ok}}},
               "/b": {"additionalOperations": {"purge": {"operationId": "b", **ok}}}}}
    app = httpllm.compile(doc)
    assert [(f.name, f.method) for f in app.functions] == [
        ("purge", "purge"), ("lock", "lock"), ("b", "purge")]
    assert [(e.pointer, e.message.split(":")[0]) for e in app.errors] == [
        ("#/paths/~1a/additionalOperations/purge",
         "additionalOperations key 'purge' is 'PURGE' but for case"),
        ("#/paths/~1a/additionalOperations/Purge",
         "additionalOperations key 'Purge' is 'PURGE' but for case")]
    assert "both would send PURGE" in app.errors[0].message
