"""Inheritance-style polymorphism (issue 18, kind 2): a parent with a `discriminator` whose
subtypes each `allOf` the parent is offered as the union of its subtypes, each with its own
fields and requiring its tag value; expanding ends although each subtype refers back to
the parent."""

from __future__ import annotations

from typing import Any

import pytest

import httpllm


def _ref(name: str) -> dict[str, str]:
    return {"$ref": f"#/components/schemas/{name}"}


def _document(*, mapping: bool = True, extra: dict[str, Any] | None = None,
              version: str = "3.0.3") -> dict[str, Any]:
    pet: dict[str, Any] = {
        "type": "object", "description": "A pet.", "required": ["petType", "name"],
        "properties": {"name": {"type": "string"}, "petType": {"type": "string"}},
        "discriminator": {"propertyName": "petType"}}
    if mapping:
        pet["discriminator"]["mapping"] = {"cat": "#/components/schemas/Cat", "dog": "Dog"}
    schemas = {
        "Pet": pet,
        "Cat": {"allOf": [_ref("Pet"), {"type": "object", "required": ["hunts"],
                                        "properties": {"hunts": {"type": "boolean"}}}]},
        "Dog": {"allOf": [_ref("Pet"), {"type": "object",
                                        "properties": {"pack": {"type": "integer"}}}]},
        **(extra or {}),
    }
    body = {"content": {"application/json": {"schema": _ref("Pet")}}, "required": True}
    ok = {"description": "ok", "content": {"application/json": {"schema": _ref("Pet")}}}
    return {"openapi": version, "info": {"title": "t", "version": "1"},
            "paths": {"/pets": {"post": {"operationId": "add", "requestBody": body,
                                         "responses": {"200": ok}}},
                      "/cats": {"post": {"operationId": "addCat", "requestBody": {
                          "content": {"application/json": {"schema": _ref("Cat")}}},
                          "responses": {"200": {"description": "ok"}}}}},
            "components": {"schemas": schemas}}


def _variants(app: httpllm.Application) -> dict[str, dict[str, Any]]:
    body = app.function("add").parameters["properties"]["body"]
    return {v["properties"]["petType"]["enum"][0]: v for v in body["anyOf"]}


@pytest.mark.parametrize(("mapping", "tags"), [(True, ("cat", "dog")), (False, ("Cat", "Dog"))],
                         ids=["mapping", "implicit"])
def test_parent_is_offered_as_its_subtypes(mapping: bool, tags: tuple[str, str]) -> None:
    """Each subtype is a variant with the parent's fields, its own, and its tag value
    (the mapping key, or the schema's name without a mapping) required."""
    app = httpllm.compile(_document(mapping=mapping), "3.1")
    assert not app.errors
    variants = _variants(app)
    assert set(variants) == set(tags)
    cat, dog = variants[tags[0]], variants[tags[1]]
    assert set(cat["properties"]) == {"name", "petType", "hunts"}
    assert set(dog["properties"]) == {"name", "petType", "pack"}
    assert {"petType", "name", "hunts"} <= set(cat["required"])
    assert "petType" in dog["required"]


def test_validate_follows_the_subtypes() -> None:
    """A call shaped like one subtype passes validate; one missing that subtype's required
    field, or with a tag no subtype has, does not."""
    app = httpllm.compile(_document(), "chatgpt")
    assert app.validate("add", {"body": {"petType": "dog", "name": "Rex", "pack": 3}}).ok
    assert not app.validate("add", {"body": {"petType": "cat", "name": "Tom"}}).ok
    assert not app.validate("add", {"body": {"petType": "cow", "name": "Bo"}}).ok


def test_subtype_used_alone_inherits_the_parent_fields() -> None:
    """A subtype used directly has the parent's fields and no union of its siblings."""
    app = httpllm.compile(_document(), "3.1")
    cat = app.function("addCat").parameters["properties"]["body"]
    assert "anyOf" not in cat
    assert set(cat["properties"]) == {"name", "petType", "hunts"}


def test_subtype_referring_back_to_the_parent_terminates() -> None:
    """A subtype with a property of the parent's type (a cycle through the union) compiles:
    the parent stays a recursive `$defs` entry, no RecursionError."""
    extra = {"Owner": {"allOf": [_ref("Pet"), {"type": "object",
                                               "properties": {"pets": {"type": "array",
                                                                       "items": _ref("Pet")}}}]}}
    doc = _document(mapping=False, extra=extra, version="3.1.0")
    for provider in ("3.1", "chatgpt", "llama"):
        app = httpllm.compile(doc, provider)
        assert not app.errors, app.errors
        body = app.function("add").parameters["properties"]["body"]
        assert body == {"$ref": "#/$defs/Pet"} or len(body["anyOf"]) == 3


def test_many_subtypes() -> None:
    """A parent with 100 implicit subtypes gives a union of 102 variants."""
    extra = {f"Kind{i}": {"allOf": [_ref("Pet"), {"properties": {f"f{i}": {"type": "string"}}}]}
             for i in range(100)}
    app = httpllm.compile(_document(mapping=False, extra=extra), "3.1")
    assert len(app.function("add").parameters["properties"]["body"]["anyOf"]) == 102


def test_subtypes_past_the_byte_limit() -> None:
    """300 subtypes pass the parameters' byte limit: the tool is cut with a loss saying so,
    and validate still checks the whole union (302 variants)."""
    extra = {f"Kind{i}": {"allOf": [_ref("Pet"), {"properties": {f"f{i}": {"type": "string"}}}]}
             for i in range(300)}
    function = httpllm.compile(_document(mapping=False, extra=extra), "3.1").function("add")
    assert [loss.action for loss in function.losses] == ["cut"]
    assert len(function.schema["$defs"]["Pet"]["anyOf"]) == 302
