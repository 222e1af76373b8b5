"""Each Swagger 2.0 Schema Object rule (vendor extensions included), on small inputs."""

from __future__ import annotations

from typing import Any

from httpllm.upgrade import PointerMap, schemas2
from httpllm.upgrade.swagger2 import Context


def ctx(**kw: Any) -> Context:
    return Context(root={}, **kw)


def test_rewrite_ref_moves_each_section() -> None:
    """A $ref into definitions, parameters, responses or securityDefinitions points into
    components, in the same file; other refs are unchanged."""
    assert schemas2.rewrite_ref("#/definitions/Pet") == "#/components/schemas/Pet"
    assert schemas2.rewrite_ref("a.json#/parameters/P") == "a.json#/components/parameters/P"
    assert schemas2.rewrite_ref("#/responses/E") == "#/components/responses/E"
    assert schemas2.rewrite_ref("#/securityDefinitions/k") == "#/components/securitySchemes/k"
    assert schemas2.rewrite_ref("#/definitionsX") == "#/definitionsX"
    assert schemas2.rewrite_ref("pet.yaml") == "pet.yaml"


def test_x_nullable_becomes_nullable() -> None:
    """x-nullable true becomes nullable true; beside a $ref it wraps the $ref in allOf."""
    c = ctx()
    assert schemas2.x_nullable({"type": "string", "x-nullable": True}, c) == {
        "type": "string", "nullable": True}
    assert schemas2.x_nullable({"$ref": "#/x", "x-nullable": True}, c) == {
        "allOf": [{"$ref": "#/x"}], "nullable": True}
    assert schemas2.x_nullable({"type": "string", "x-nullable": False}, c) == {"type": "string"}
    assert c.tally["x_nullable"] == 2


def test_discriminator_property_name_becomes_object() -> None:
    """A discriminator given as a property name becomes a Discriminator Object."""
    node = {"discriminator": "kind", "type": "object"}
    assert schemas2.discriminator(node, ctx()) == {"discriminator": {"propertyName": "kind"},
                                                   "type": "object"}
    done = {"discriminator": {"propertyName": "kind"}}
    assert schemas2.discriminator(done, ctx()) is done


def test_file_type_becomes_binary_string() -> None:
    """type: file becomes a binary string."""
    assert schemas2.file_type({"type": "file"}, ctx()) == {"type": "string", "format": "binary"}


def test_x_ms_discriminator_value_fills_the_mapping() -> None:
    """A subtype's x-ms-discriminator-value becomes a mapping entry of its base."""
    schemas = {"Base": {"discriminator": {"propertyName": "kind"}},
               "Cat": {"allOf": [{"$ref": "#/components/schemas/Base"}],
                       "x-ms-discriminator-value": "cat"}}
    out = schemas2.x_ms_discriminator_value(schemas, ctx())
    assert out["Base"]["discriminator"] == {"propertyName": "kind",
                                            "mapping": {"cat": "#/components/schemas/Cat"}}
    assert schemas["Base"] == {"discriminator": {"propertyName": "kind"}}


def test_x_ms_enum_and_mutability() -> None:
    """x-ms-enum value descriptions join the description; x-ms-mutability read is readOnly."""
    node = {"enum": ["a"], "x-ms-enum": {"values": [{"value": "a", "description": "the A"}]}}
    assert schemas2.x_ms_enum(node, ctx())["description"] == "- a: the A"
    assert schemas2.x_ms_mutability({"x-ms-mutability": ["read"]}, ctx())["readOnly"] is True


def test_array_enum_moves_to_items_with_a_note() -> None:
    """An enum of strings on an array schema becomes the enum of its items, noted."""
    c = ctx(pointers=PointerMap(sections={"/components/schemas": "/definitions"}))
    node = {"type": "array", "items": {"type": "string"}, "enum": ["a", "b"]}
    out = schemas2.array_enum(node, c, "/components/schemas/E")
    assert out == {"type": "array", "items": {"type": "string", "enum": ["a", "b"]}}
    assert [n.pointer for n in c.notes] == ["#/definitions/E/enum"]
    both = {"type": "array", "items": {"enum": ["a"]}, "enum": ["a"]}
    assert schemas2.array_enum(both, c, "/x") is both
