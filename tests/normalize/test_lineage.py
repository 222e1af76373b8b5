"""Discriminator lineage from the document nodes (httpllm/normalize/lineage.py)."""

from __future__ import annotations

from typing import Any

from httpllm.load import Loader
from httpllm.normalize.lineage import Lineage
from httpllm.normalize.naming import SchemaNames
from httpllm.refs import ROOT, Resolver


def ref(name: str) -> dict[str, str]:
    return {"$ref": f"#/components/schemas/{name}"}


def lineage(schemas: dict[str, Any]) -> Lineage:
    doc = {"openapi": "3.1.0", "components": {"schemas": schemas}}
    return Lineage(SchemaNames(Resolver(doc, ROOT, Loader(None)), "3.1"))


def test_subtypes_of_a_parent_without_mapping_are_the_schemas_extending_it() -> None:
    found = lineage({
        "Pet": {"type": "object", "discriminator": {"propertyName": "kind"}},
        "Cat": {"allOf": [ref("Pet"), {"properties": {"lives": {"type": "integer"}}}]},
        "Dog": {"allOf": [ref("Pet")]},
        "Rock": {"type": "object"},
    })
    assert found.subtypes("Pet") == [("Cat", ["Cat"]), ("Dog", ["Dog"])]
    assert found.subtypes("Rock") == []
    assert found.inherits("Cat", "Pet") and not found.inherits("Rock", "Pet")


def test_a_mapping_names_the_subtypes_and_their_tags() -> None:
    found = lineage({
        "Pet": {"type": "object", "discriminator": {"propertyName": "kind", "mapping": {
            "cat": "#/components/schemas/Cat", "kitty": "Cat", "ghost": "Nowhere"}}},
        "Cat": {"allOf": [ref("Pet")]},
    })
    assert found.subtypes("Pet") == [("Cat", ["cat", "kitty"])]


def test_a_parent_with_a_union_has_no_subtypes_but_lists_variants() -> None:
    """`oneOf` on the parent: its variants are its union members; a grandchild inherits
    through the chain of `allOf`s."""
    found = lineage({
        "Pet": {"oneOf": [ref("Cat"), ref("Dog")], "discriminator": {"propertyName": "k"}},
        "Cat": {"allOf": [ref("Pet")]},
        "Dog": {"allOf": [ref("Pet")]},
        "Kitten": {"allOf": [ref("Cat")]},
    })
    assert found.subtypes("Pet") == []
    assert found.inherits("Cat", "Pet") and not found.inherits("Pet", "Cat")
    assert found.inherits("Dog", "Kitten")  # Kitten extends Cat, which extends Pet
