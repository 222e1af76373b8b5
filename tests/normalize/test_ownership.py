"""Losses by the emend that recorded them, and merges (httpllm/normalize/ownership.py),
as `NamedSchemas` fills them while emending."""

from __future__ import annotations

from typing import Any

from httpllm.load import Loader
from httpllm.normalize.named import NamedSchemas
from httpllm.normalize.ownership import inline_owner, named_owner
from httpllm.refs import ROOT, Resolver


def ref(name: str) -> dict[str, str]:
    return {"$ref": f"#/components/schemas/{name}"}


SCHEMAS: dict[str, Any] = {
    "Base": {"type": "object", "properties": {"id": {"type": "string", "readOnly": True}}},
    "Item": {"allOf": [ref("Base"), {"properties": {"note": {"type": "string"}}}]},
    "Box": {"type": "object", "properties": {"item": ref("Item"),
                                             "made": {"type": "string", "readOnly": True}}},
}


def store() -> NamedSchemas:
    doc = {"openapi": "3.1.0", "components": {"schemas": SCHEMAS}}
    return NamedSchemas(Resolver(doc, ROOT, Loader(None)), "3.1", lambda at, msg: None)


def test_dropped_gathers_the_losses_of_every_schema_reached_or_merged() -> None:
    """An inline schema referring to Box: Box's own loss, and Item's, which it got from the
    Base it merged; each once, in a stable order; none for the response direction."""
    named = store()
    site = {"type": "array", "items": ref("Box")}
    out = named.emend(site, "request", pointer="#/body", base=ROOT)
    named.close([out], "request")
    lost = named.losses.dropped(out, "request", pointer="#/body", base=ROOT)
    assert [loss.pointer for loss in lost] == [
        "#/components/schemas/Box/properties/made",
        "#/components/schemas/Base/properties/id",
    ]
    assert named.losses.dropped(out, "request", pointer="#/body", base=ROOT) == lost
    response = named.emend(site, "response", pointer="#/body", base=ROOT)
    named.close([response], "response")
    assert named.losses.dropped(response, "response", pointer="#/body", base=ROOT) == []


def test_merged_into_names_the_allof_parents_merged() -> None:
    named = store()
    named.emended("Item", "request")
    assert named.losses.merged_into("#/components/schemas/Item", "request") == [
        "#/components/schemas/Item", "#/components/schemas/Base"]
    assert named.losses.merged_into("#/components/schemas/Nowhere", "request") == []


def test_owners() -> None:
    assert named_owner("A", "request") == ("name", "A", "request", "")
    assert named_owner("A", "request", True) == ("name", "A", "request", "base")
    assert inline_owner("file:///x.json", "#/p", "response") == (
        "inline", "file:///x.json", "#/p", "response")
