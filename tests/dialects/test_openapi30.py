"""The "3.0" dialect: OpenAPI 3.0 Schema Objects, checked by openapi-spec-validator."""

from __future__ import annotations

import csv
import os
from pathlib import Path
from typing import Any

import pytest
from checkers import oas30

import httpllm
from httpllm.compose.inline import measure

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


def rebased(schema: Any, patterns: bool = True) -> Any:
    """The schema with its in-schema refs (``#/properties/...``) pointing under ``HOME``;
    ``patterns=False`` leaves out ``pattern`` values (the documents' own regexes, which
    openapi-spec-validator compiles as ECMA-262 and some vendor patterns are not)."""
    if isinstance(schema, list):
        return [rebased(x, patterns) for x in schema]
    if not isinstance(schema, dict):
        return schema
    out = {k: rebased(v, patterns) for k, v in schema.items()
           if patterns or not (k == "pattern" and isinstance(v, str))}
    if isinstance(out.get("$ref"), str) and out["$ref"].startswith("#"):
        out["$ref"] = HOME + out["$ref"][1:]
    return out


def spec_problems(functions: Any, patterns: bool = True) -> list[str]:
    """openapi-spec-validator's verdict on a 3.0.3 document holding each parameters schema."""
    from openapi_spec_validator import validate

    problems = []
    for fn in functions:
        doc = {"openapi": "3.0.3", "info": {"title": "t", "version": "1"}, "paths": {},
               "components": {"schemas": {"P": rebased(fn.parameters, patterns)}}}
        try:
            validate(doc)
        except Exception as exc:  # any rejection is the finding
            problems.append(f"{fn.name}: {str(exc).splitlines()[0]}")
    return problems


def graph_problems(schema: Any, seen: set[int] | None = None) -> list[str]:
    """The 3.0 checker's node rules on each distinct node (shared subtrees once: an inlined
    schema can serialize to millions of nodes), plus every ``$ref`` resolving in ``schema``.
    ``seen`` may be shared by the functions of one document: a node holding a ``$ref`` is
    built per function, the others are shared and need checking once."""
    from checkers._schema import join, resolve_ref

    out: list[str] = []
    seen = set() if seen is None else seen
    stack: list[tuple[str, Any]] = [("#", schema)]
    while stack:
        pointer, node = stack.pop()
        if isinstance(node, dict) and id(node) in seen:
            continue
        if isinstance(node, dict):
            seen.add(id(node))
        out.extend(oas30._node_problems(pointer, node))
        if not isinstance(node, dict):
            continue
        ref = node.get("$ref")
        if isinstance(ref, str) and not resolve_ref(schema, ref)[0]:
            out.append(f"{pointer}: $ref {ref!r} does not resolve inside the schema")
        for key in ("items", "additionalProperties", "not"):
            if isinstance(node.get(key), (dict, bool)):
                stack.append((join(pointer, key), node[key]))
        for key in ("allOf", "anyOf", "oneOf"):
            stack.extend((join(pointer, key, i), v) for i, v in enumerate(node.get(key) or []))
        for key in ("properties", "x-defs"):
            subs = node.get(key)
            if isinstance(subs, dict):
                stack.extend((join(pointer, key, k), v) for k, v in subs.items())
    return out


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
    assert [p for fn in app.functions for p in graph_problems(fn.parameters)] == []
    assert spec_problems(app.functions) == []


def test_recursion_lives_under_x_defs() -> None:
    """C01: Folder is under x-defs (3.0 has no $defs) and refs point there; both resolve."""
    fn = case("C01").functions[0]
    p = fn.parameters
    assert "$defs" not in p and set(p["x-defs"]) == {"Folder"}
    assert p["properties"]["body"] == {"$ref": "#/x-defs/Folder"}
    assert p["x-defs"]["Folder"]["properties"]["children"]["items"] == {
        "$ref": "#/x-defs/Folder"}
    assert any(x.keyword == "$defs" for x in fn.losses)


def test_ref_siblings_wrapped_in_all_of() -> None:
    """reference=True: a $ref with a description becomes allOf [$ref] beside it."""
    app = case("C04", reference=True)
    role = app.functions[0].parameters["properties"]["body"]["properties"]["role"]
    assert role == {"description": "New role for the member",
                    "allOf": [{"$ref": "#/x-defs/Role"}]}
    assert [p for fn in app.functions for p in oas30.check(fn)] == []
    assert spec_problems(app.functions) == []


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


def test_defaults_and_enums_fit_their_schema() -> None:
    """A default of the wrong type is dropped (reported); repeated enum values kept once."""
    fn = compile_body({"type": "object", "properties": {
        "a": {"type": "string", "default": 0}, "b": {"type": "string", "enum": ["x", "x"]},
        "c": {"type": "integer", "default": 2}}})
    props = fn.parameters["properties"]["body"]["properties"]
    assert props["a"] == {"type": "string"} and props["b"]["enum"] == ["x"]
    assert props["c"]["default"] == 2
    assert any(x.keyword == "default" and x.action == "dropped" for x in fn.losses)
    assert spec_problems([fn]) == []


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
    seen: set[int] = set()
    problems = [f"{fn.name} {p}" for fn in app.functions
                for p in graph_problems(fn.parameters, seen)]
    assert problems[:10] == [], f"{len(problems)} problems"
    sizes: dict[int, tuple[int, int]] = {}
    small = [fn for fn in app.functions[:50] if "x-defs" not in fn.parameters
             and measure(fn.parameters, sizes)[1] < 5_000]  # recursion: see the cases
    assert spec_problems(small[:20], patterns=False) == []
