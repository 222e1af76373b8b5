"""Shared by the tests of the claude, bedrock, openai-compatible, mistral and mcp dialects.

Small document builders, the Claude strict-subset check (judged by the Anthropic SDK's own
`transform_schema`), and the corpus runner: the `@pytest.mark.corpus` test of each dialect
module compiles the real OpenAPI 3.x documents of shared/specs; every function compiled from
every OpenAPI 3.0/3.1 document of the `real` set (MANIFEST.tsv; folder from `HTTPLLM_SPECS`,
default /work/shared/specs) must pass the dialect's validators. A run also counts what the
report table shows: functions, validator failures, strict fallbacks, loss entries by action.
"""

from __future__ import annotations

import collections
import copy
import csv
import os
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from checkers._schema import iter_schemas

import httpllm
from httpllm.dialects._rules import recursive_defs
from httpllm.dialects.anthropic import strict_budget

DEFAULT_SPECS = "/work/shared/specs"
KNOWN_UPSTREAM = ("exclusiveMinimum: true", "exclusiveMaximum: true", "properties/$ref")
"""Failures in the emended schema itself (OpenAPI 3.0 boolean exclusive bounds, a property
named `$ref`), the same for every dialect: reported to the normalize owner, not judged here."""


def doc(schema: dict[str, Any], *, params: list[Any] | None = None,
        components: dict[str, Any] | None = None, ops: int = 1) -> dict[str, Any]:
    """`ops` operations, each with a JSON body `schema` and the query `params`."""
    paths = {
        f"/r{i}": {"post": {
            "operationId": f"op{i}", "summary": "Do it.",
            "parameters": params or [],
            "requestBody": {"required": True,
                            "content": {"application/json": {"schema": schema}}},
            "responses": {"200": {"description": "ok"}},
        }} for i in range(ops)
    }
    return {"openapi": "3.1.0", "info": {"title": "t", "version": "1"}, "paths": paths,
            "components": {"schemas": components or {}}}


CONSTRAINED = {
    "type": "object", "required": ["name"],
    "properties": {
        "name": {"type": "string", "minLength": 1, "maxLength": 30, "pattern": "^[a-z]+$"},
        "count": {"type": "integer", "minimum": 0, "maximum": 9, "multipleOf": 3,
                  "default": 3},
        "tags": {"type": "array", "items": {"type": "string"}, "minItems": 2,
                 "maxItems": 5},
        "one": {"type": "array", "items": {"type": "string"}, "minItems": 1},
        "site": {"type": "string", "format": "uri"},
        "sku": {"type": "string", "format": "byte"},
        "labels": {"type": "object", "additionalProperties": {"type": "string"}},
    },
}
FOLDER = {"type": "object", "required": ["name"], "properties": {
    "name": {"type": "string"},
    "children": {"type": "array", "items": {"$ref": "#/components/schemas/Folder"}}}}


SDK_KEPT = frozenset(
    {"$defs", "$ref", "type", "enum", "const", "anyOf", "allOf", "description", "title",
     "properties", "additionalProperties", "required", "format", "items", "minItems"}
)
"""The keywords anthropic's `lib/_parse/_transform.py` `transform_schema` keeps (2.14)."""


def transformed_descriptions(schema: Any) -> dict[str, Any]:
    """`{pointer: description}` after the Anthropic SDK's `transform_schema`."""
    from anthropic.lib._parse._transform import transform_schema

    return descriptions(transform_schema(copy.deepcopy(schema)))


def descriptions(schema: Any) -> dict[str, Any]:
    return {p: n.get("description") for p, n in iter_schemas(schema) if isinstance(n, dict)}


def strict_problems(tool: dict[str, Any]) -> list[str]:
    """The strict subset, judged by the SDK: `transform_schema` moves any keyword strict mode
    does not take into the description, so a conforming schema keeps every description; plus
    closed objects, keywords in the subset, no recursion and the per-tool budgets."""
    schema = tool["input_schema"]
    out = []
    ours, sdk = descriptions(schema), transformed_descriptions(schema)
    out += [f"{p}: the SDK would describe more: {sdk.get(p, 'the node is gone')!r}"
            for p in ours if ours[p] != sdk.get(p)]
    for pointer, node in iter_schemas(schema):
        if not isinstance(node, dict):
            if not (node is False and pointer.endswith("/additionalProperties")):
                out.append(f"{pointer}: boolean schema")
            continue
        if node.get("type") == "object" and node.get("additionalProperties") is not False:
            out.append(f"{pointer}: object not closed")
        out += [f"{pointer}: keyword {k}" for k in set(node) - SDK_KEPT]
        if "$ref" in node and len(node) > 1:
            out.append(f"{pointer}: $ref with siblings")
    out += [f"#/$defs/{n}: recursive" for n in recursive_defs(schema)]
    optional, unions = strict_budget(schema)
    out += [f"budget {optional} optional / {unions} unions"] * (optional > 24 or unions > 16)
    return out


def specs_folder() -> Path:
    """The corpus folder (holding MANIFEST.tsv), or skip."""
    folder = Path(os.environ.get("HTTPLLM_SPECS", DEFAULT_SPECS))
    if not (folder / "MANIFEST.tsv").is_file():
        pytest.skip(f"no MANIFEST.tsv in {folder}")
    return folder


def real_documents(folder: Path) -> list[str]:
    """`local_path` of every OpenAPI 3.0/3.1 document of the `real` set."""
    with (folder / "MANIFEST.tsv").open(newline="", encoding="utf-8") as handle:
        rows = list(csv.DictReader(handle, delimiter="\t"))
    return [r["local_path"] for r in rows
            if r["set"] == "real" and r["openapi_version"][:3] in ("3.0", "3.1")]


@dataclass
class Tally:
    """What one dialect made of the corpus."""

    functions: int = 0
    failures: list[str] = field(default_factory=list)
    upstream: list[str] = field(default_factory=list)
    fallbacks: int = 0
    actions: collections.Counter[str] = field(default_factory=collections.Counter)
    refused: list[str] = field(default_factory=list)

    def row(self, name: str) -> str:
        """One line of the report table."""
        actions = ", ".join(f"{k} {v}" for k, v in sorted(self.actions.items()))
        return (f"{name}: functions {self.functions}, failures {len(self.failures)} "
                f"(+{len(self.upstream)} upstream), fallbacks {self.fallbacks}, {actions}")


def run(provider: str, checks: list[Callable[[Any, Any], list[str]]],
        **options: Any) -> Tally:
    """Compile every real document for `provider` and apply `check(tool, function)`."""
    folder = specs_folder()
    tally = Tally()
    for local_path in real_documents(folder):
        try:
            app = httpllm.compile(folder / local_path, provider, allow_outside_root=True,
                                  **options)
        except httpllm.HttpllmError as exc:
            tally.refused.append(f"{local_path}: {exc}")
            continue
        for function, tool in zip(app.functions, app.tools(), strict=True):
            tally.functions += 1
            tally.fallbacks += any(x.action == "fallback" for x in function.losses)
            tally.actions.update(x.action for x in function.losses)
            for problem in _problems(checks, tool, function):
                where = f"{local_path} {function.name}: {problem}"
                known = any(k in problem for k in KNOWN_UPSTREAM)
                (tally.upstream if known else tally.failures).append(where)
    return tally


def _problems(checks: list[Callable[[Any, Any], list[str]]], tool: Any,
              function: Any) -> Iterator[str]:
    for check in checks:
        yield from check(tool, function)
