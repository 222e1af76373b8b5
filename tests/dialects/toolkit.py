"""Shared by the dialect tests: small document builders and the validators the corpus
sweep (sweep.py) applies besides tests/checkers.

The Claude strict-subset check (judged by the Anthropic SDK's own `transform_schema`), the
Draft 7 and mistral-common checks of Mistral, vLLM's xgrammar subset, the OpenAPI 3.0 graph
and openapi-spec-validator checks, Ollama's one-type rule.
"""

from __future__ import annotations

import copy
import functools
from typing import Any

from checkers import oas30, openai_envelope
from checkers._schema import iter_schemas

from httpllm.dialects._rules import recursive_defs
from httpllm.dialects.anthropic import strict_budget
from httpllm.dialects.mistral import DRAFT_7
from httpllm.dialects.openai_compatible import XGRAMMAR_FORMATS


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


def descriptions(schema: Any, unique: bool = False) -> dict[str, Any]:
    """`{pointer: description}` of every node (`unique`: of each distinct node, once)."""
    return {p: n.get("description") for p, n in iter_schemas(schema, unique=unique)
            if isinstance(n, dict)}


def strict_problems(tool: dict[str, Any]) -> list[str]:
    """The strict subset, judged by the SDK: `transform_schema` moves any keyword strict mode
    does not take into the description, so a conforming schema keeps every description; plus
    closed objects, keywords in the subset, no recursion and the per-tool budgets. Each
    distinct node is judged once, at its first pointer (the SDK's verdict is per node)."""
    schema = tool["input_schema"]
    out = []
    ours, sdk = descriptions(schema, unique=True), transformed_descriptions(schema)
    out += [f"{p}: the SDK would describe more: {sdk.get(p, 'the node is gone')!r}"
            for p in ours if ours[p] != sdk.get(p)]
    for pointer, node in iter_schemas(schema, unique=True):
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


# -- mistral ----------------------------------------------------------------------------------


def mistral_common_accepts(tool: dict[str, Any]) -> None:
    """mistral-common's own request validator (Draft 7 meta-schema and name rule)."""
    from mistral_common.protocol.instruct.tool_calls import Tool
    from mistral_common.protocol.instruct.validator import MistralRequestValidator

    MistralRequestValidator()._validate_function(Tool.model_validate(tool).function)


def draft7_keywords(schema: Any) -> set[str]:
    """The keywords of `schema` that Draft 7 does not have."""
    return {k for _, n in iter_schemas(schema, unique=True) if isinstance(n, dict)
            for k in n} - DRAFT_7


# -- llama, qwen, deepseek ------------------------------------------------------------------

compatible = functools.partial(openai_envelope.check, description_max=None)
"""The OpenAI SDK's tool types without OpenAI's own description limit."""


def unsupported_by_xgrammar(schema: Any) -> list[str]:
    """vLLM's `has_xgrammar_unsupported_json_features`, restated (vllm is too heavy here);
    each distinct node once, at its first pointer."""
    out = []
    for pointer, node in iter_schemas(schema, unique=True):
        if not isinstance(node, dict):
            continue
        kind = node.get("type")
        if kind in ("number", "integer") and "multipleOf" in node:
            out.append(f"{pointer}: multipleOf")
        if kind == "array" and {"uniqueItems", "contains", "minContains",
                                "maxContains"} & set(node):
            out.append(f"{pointer}: array keyword")
        if kind == "string" and node.get("format", "uri") not in XGRAMMAR_FORMATS:
            out.append(f"{pointer}: format")
        if kind == "string" and {"pattern", "format"} & set(node) and {
                "minLength", "maxLength"} & set(node):
            out.append(f"{pointer}: length beside pattern")
        out += [f"{pointer}: {k}" for k in ("patternProperties", "propertyNames") if k in node]
    return out


def closed_by_xgrammar(schema: Any) -> list[str]:
    """Nodes whose open places xgrammar's strict mode would close (it closes what a schema
    leaves unsaid, mlc-ai/xgrammar `ParseObject`/`ParseArray`): an object with neither
    `properties` nor `additionalProperties` (only `{}` then), a tuple without `items`."""
    out = []
    for pointer, node in iter_schemas(schema, unique=True):
        if not isinstance(node, dict):
            continue
        if (node.get("type") == "object" and "properties" not in node
                and "additionalProperties" not in node):
            out.append(f"{pointer}: a free-form object closed to {{}}")
        if "prefixItems" in node and "items" not in node:
            out.append(f"{pointer}: a tuple closed at its positions")
    return out


# -- ollama ---------------------------------------------------------------------------------


def type_lists(schema: Any) -> list[str]:
    """Pointers of the nodes whose `type` is not one string (the server wants one)."""
    return [p for p, n in iter_schemas(schema, unique=True)
            if isinstance(n, dict) and not isinstance(n.get("type", ""), str)]


# -- 3.0 ------------------------------------------------------------------------------------

HOME = "#/components/schemas/P"


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
