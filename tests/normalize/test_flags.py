"""`readOnly`/`writeOnly` of named schemas from the document (httpllm/normalize/flags.py)."""

from __future__ import annotations

from typing import Any

from httpllm.load import Loader
from httpllm.normalize.flags import Flags
from httpllm.normalize.naming import SchemaNames
from httpllm.refs import ROOT, Resolver


def ref(name: str) -> dict[str, str]:
    return {"$ref": f"#/components/schemas/{name}"}


def flags(schemas: dict[str, Any]) -> Flags:
    doc = {"openapi": "3.1.0", "components": {"schemas": schemas}}
    return Flags(SchemaNames(Resolver(doc, ROOT, Loader(None)), "3.1"))


def test_a_flag_is_read_through_refs_and_allof() -> None:
    found = flags({"Stamp": {"type": "string", "readOnly": True},
                   "Alias": {"allOf": [ref("Stamp")]}, "Again": ref("Alias"),
                   "Plain": {"type": "string"}})
    assert found.flagged("Again", "readOnly") and found.flagged("Alias", "readOnly")
    assert not found.flagged("Again", "writeOnly") and not found.flagged("Plain", "readOnly")


def test_a_cycle_an_unknown_name_and_a_dangling_ref_are_not_flagged() -> None:
    found = flags({"A": ref("B"), "B": ref("A"), "C": ref("Missing")})
    assert not found.flagged("A", "readOnly")
    assert not found.flagged("Unknown", "readOnly")
    assert not found.flagged("C", "readOnly")
