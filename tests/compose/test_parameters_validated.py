"""The schema the model sees says what `validate` enforces wherever the dialect can express
it (issue 18, kind 8, the other direction): the parameters object is closed where the
dialect keeps `additionalProperties` (validate refuses unknown arguments), and a path
parameter refuses `""`, `"."` and `".."` (which validate refuses) by a `pattern`, else in
its description; nothing of this is recorded as lost."""

from __future__ import annotations

from typing import Any

import pytest
from jsonschema import Draft202012Validator

import httpllm
from httpllm.compose.parameters import PATH_SEGMENT
from httpllm.dialects import get_dialect, providers

SEGMENTS = ["", ".", "..", "...", "a", ".a", "a.", "..a", " ", "\n", "%2E", "a/b", "é"]


def _document() -> dict[str, Any]:
    kinds = {"in": "path", "required": True}
    return {
        "openapi": "3.1.0", "info": {"title": "t", "version": "1"},
        "paths": {"/items/{id}/{kind}/{n}": {"get": {
            "operationId": "get",
            "parameters": [
                {"name": "id", **kinds, "schema": {"type": "string"}},
                {"name": "kind", **kinds, "schema": {"type": "string", "enum": ["a", "b"]}},
                {"name": "n", **kinds, "schema": {"type": "integer"}},
                {"name": "q", "in": "query", "schema": {"type": "string"}},
            ],
            "responses": {"200": {"description": "ok"}}}}},
    }


def _keeps(provider: str, keyword: str) -> bool:
    keywords = get_dialect(provider).keywords
    return keywords is None or keyword in keywords


@pytest.mark.parametrize("provider", providers())
def test_closed_where_the_dialect_keeps_additional_properties(provider: str) -> None:
    """Non-strict, the parameters object is closed exactly where the dialect keeps
    `additionalProperties`, and no loss entry is about it."""
    function = httpllm.compile(_document(), provider).function("get")
    closed = function.parameters.get("additionalProperties") is False
    assert closed is _keeps(provider, "additionalProperties")
    assert not [x for x in function.losses if x.keyword == "additionalProperties"]


@pytest.mark.parametrize("provider", providers())
def test_path_segment_said_in_pattern_or_description(provider: str) -> None:
    """A plain string path parameter gets the segment pattern where the dialect keeps
    `pattern`, else a sentence in its description; enum and integer ones are left as they
    are; no loss entry is about the pattern."""
    function = httpllm.compile(_document(), provider).function("get")
    props = function.parameters["properties"]
    if _keeps(provider, "pattern"):
        assert props["id"]["pattern"] == PATH_SEGMENT
    else:
        assert '"."' in props["id"]["description"]
    assert "pattern" not in str(props["kind"]) and "pattern" not in str(props["n"])
    assert "pattern" not in props["q"]
    assert not [x for x in function.losses if x.keyword == "pattern"]


def _referenced(query_too: bool) -> dict[str, Any]:
    """A path parameter typed by a named plain string (kept a `$ref` with reference=True),
    and, when ``query_too``, a query parameter of the same type."""
    parameters: list[dict[str, Any]] = [{"name": "slug", "in": "path", "required": True,
                                         "schema": {"$ref": "#/components/schemas/Slug"}}]
    if query_too:
        parameters.append({"name": "q", "in": "query",
                           "schema": {"$ref": "#/components/schemas/Slug"}})
    return {"openapi": "3.1.0", "info": {"title": "t", "version": "1"},
            "paths": {"/items/{slug}": {"get": {"operationId": "get", "parameters": parameters,
                                                "responses": {"200": {"description": "ok"}}}}},
            "components": {"schemas": {"Slug": {"type": "string", "description": "A slug."}}}}


@pytest.mark.parametrize("query_too", [False, True])
@pytest.mark.parametrize("segment", ["..", ".", "", "a"])
def test_a_referenced_path_string_is_opened_to_say_it(query_too: bool, segment: str) -> None:
    """With reference=True a path parameter whose schema is a `$ref` to a plain string is
    opened to carry the segment pattern; the `$defs` entry stays only while another
    argument still refers to it; the schema then accepts what `validate` accepts."""
    app = httpllm.compile(_referenced(query_too), "chatgpt", reference=True)
    schema = app.function("get").parameters
    assert schema["properties"]["slug"] == {"type": "string", "description": "A slug.",
                                            "pattern": PATH_SEGMENT}
    assert ("Slug" in schema.get("$defs", {})) is query_too
    shown = Draft202012Validator(schema).is_valid({"slug": segment})
    assert shown is app.validate("get", {"slug": segment}).ok


@pytest.mark.parametrize("segment", SEGMENTS)
def test_pattern_accepts_what_validate_accepts(segment: str) -> None:
    """The schema the model sees accepts a path value exactly when `validate` does."""
    app = httpllm.compile(_document(), "chatgpt")
    schema = app.function("get").parameters
    arguments = {"id": segment, "kind": "a", "n": 1}
    shown = Draft202012Validator(schema).is_valid(arguments)
    assert shown is app.validate("get", arguments).ok


def test_strict_dialect_without_pattern_says_it_in_the_description() -> None:
    """Claude's strict mode keeps no `pattern`: the rule is in the description, and the
    tool stays strict."""
    function = httpllm.compile(_document(), "claude", strict=True).function("get")
    assert function.strict
    assert "pattern" not in function.parameters["properties"]["id"]
    assert '"."' in function.parameters["properties"]["id"]["description"]


def test_unknown_argument_refused_by_both() -> None:
    """An argument the function does not take is refused by the schema the model sees and
    by `validate` alike."""
    app = httpllm.compile(_document(), "llama")
    arguments = {"id": "x", "kind": "a", "n": 1, "extra": 1}
    assert not Draft202012Validator(app.function("get").parameters).is_valid(arguments)
    assert not app.validate("get", arguments).ok
