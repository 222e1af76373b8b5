"""The "3.0" dialect: OpenAPI 3.0 Schema Objects, checked by openapi-spec-validator."""

from __future__ import annotations

import csv
import os
from pathlib import Path
from typing import Any

import pytest
from checkers import oas30

import httpllm

CASES = Path(os.environ.get("HTTPLLM_CASES", "/work/shared/cases"))
SPECS = Path(os.environ.get("HTTPLLM_SPECS", "/work/shared/specs"))
NAMES = ["C01", "C03", "C04", "C07", "C09", "C11", "C13", "C18", "C19", "C21", "C22", "C23",
         "C29"]
HOME = "#/components/schemas/P"


def case(name: str, **options: Any) -> Any:
    found = sorted(CASES.glob(f"{name}-*.yaml"))
    if not found:
        pytest.skip(f"no {name} case in {CASES}")
    return httpllm.compile(found[0], "3.0", **options)


def rebased(schema: Any) -> Any:
    """The schema with its in-schema refs (``#/properties/...``) pointing under ``HOME``."""
    if isinstance(schema, list):
        return [rebased(x) for x in schema]
    if not isinstance(schema, dict):
        return schema
    out = {k: rebased(v) for k, v in schema.items()}
    if isinstance(out.get("$ref"), str) and out["$ref"].startswith("#"):
        out["$ref"] = HOME + out["$ref"][1:]
    return out


def spec_problems(functions: Any) -> list[str]:
    """openapi-spec-validator's verdict on a 3.0.3 document holding each parameters schema."""
    from openapi_spec_validator import validate

    problems = []
    for fn in functions:
        doc = {"openapi": "3.0.3", "info": {"title": "t", "version": "1"}, "paths": {},
               "components": {"schemas": {"P": rebased(fn.parameters)}}}
        try:
            validate(doc)
        except Exception as exc:  # any rejection is the finding
            problems.append(f"{fn.name}: {str(exc).splitlines()[0]}")
    return problems


def compile_body(schema: Any, **options: Any) -> Any:
    operation = {"operationId": "op",
                 "requestBody": {"required": True,
                                 "content": {"application/json": {"schema": schema}}},
                 "responses": {"200": {"description": "ok"}}}
    doc = {"openapi": "3.1.0", "info": {"title": "t", "version": "1"},
           "paths": {"/x": {"post": operation}}}
    app = httpllm.compile(doc, "3.0", **options)
    assert len(app.functions) == 1, app.errors
    return app.functions[0]


@pytest.mark.parametrize("name", NAMES)
def test_cases_are_valid_openapi_30(name: str) -> None:
    """Each case's parameters are 3.0 Schema Objects (checker and openapi-spec-validator)."""
    app = case(name)
    assert [p for fn in app.functions for p in oas30.check(fn)] == []
    assert spec_problems(app.functions) == []


def test_recursion_refers_to_the_first_inlined_place() -> None:
    """C01: Folder is inlined at body; its children items point back there; no $defs."""
    fn = case("C01").functions[0]
    p = fn.parameters
    assert "$defs" not in p
    assert p["properties"]["body"]["properties"]["children"]["items"] == {
        "$ref": "#/properties/body"}
    assert any(x.keyword == "$defs" for x in fn.losses)


def test_nullable_and_const() -> None:
    """null members become nullable: true; const a one-value enum; only-null an enum [null]."""
    fn = compile_body({"type": "object", "properties": {
        "a": {"type": ["string", "null"]}, "b": {"const": 3}, "c": {"type": "null"},
        "d": {"type": ["string", "integer", "null"]}}})
    props = fn.parameters["properties"]["body"]["properties"]
    assert props["a"] == {"type": "string", "nullable": True}
    assert props["b"] == {"enum": [3]}
    assert props["c"] == {"type": "string", "nullable": True, "enum": [None]}
    assert props["d"] == {"anyOf": [{"type": "string", "nullable": True},
                                    {"type": "integer", "nullable": True}]}


def test_exclusive_bounds_become_booleans() -> None:
    """exclusiveMinimum: 0 -> minimum 0 + exclusiveMinimum true; a tighter minimum wins."""
    fn = compile_body({"type": "object", "properties": {
        "x": {"type": "number", "exclusiveMinimum": 0},
        "y": {"type": "number", "minimum": 5, "exclusiveMinimum": 1, "exclusiveMaximum": 9}}})
    props = fn.parameters["properties"]["body"]["properties"]
    assert props["x"] == {"type": "number", "minimum": 0, "exclusiveMinimum": True}
    assert props["y"] == {"type": "number", "minimum": 5, "maximum": 9,
                          "exclusiveMaximum": True}


def test_json_schema_only_keywords_are_described() -> None:
    """prefixItems, dependentRequired and boolean subschemas are spelled the 3.0 way."""
    fn = compile_body({"type": "object", "dependentRequired": {"a": ["b"]}, "properties": {
        "t": {"type": "array", "prefixItems": [{"type": "string"}]}, "any": True,
        "none": False}})
    b = fn.parameters["properties"]["body"]
    assert "@dependentRequired" in b["description"]
    assert b["properties"]["t"]["items"] == {} and "prefixItems" not in b["properties"]["t"]
    assert b["properties"]["any"] == {} and b["properties"]["none"] == {"not": {}}
    assert oas30.check(fn) == [] and spec_problems([fn]) == []


def _rows() -> list[str]:
    manifest = SPECS / "MANIFEST.tsv"
    if not manifest.is_file():
        return []
    with manifest.open(newline="", encoding="utf-8") as handle:
        return [r["local_path"] for r in csv.DictReader(handle, delimiter="\t")
                if r["set"] == "real" and r["openapi_version"].startswith(("3.0", "3.1"))]


@pytest.mark.corpus
@pytest.mark.parametrize("local_path", _rows())
def test_corpus_parameters_are_schema_objects(local_path: str) -> None:
    """Every function of a real 3.x document has a 3.0 Schema Object as parameters."""
    try:
        app = httpllm.compile(SPECS / local_path, "3.0", allow_outside_root=True)
    except httpllm.HttpllmError as exc:
        pytest.skip(f"document refused: {exc}")
    problems = [p for fn in app.functions for p in oas30.check(fn)]
    assert problems[:10] == [], f"{len(problems)} problems"
    assert spec_problems(app.functions[:20]) == []
