"""The checkers accept hand-written good tools and catch hand-written bad ones.

These tests prove the acceptance tests can fail: each checker rejects at least one bad example
for the reason it exists, and accepts the good shape the compiler is expected to emit.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, field
from typing import Any

import pytest

from checkers import (
    BY_DIALECT,
    anthropic,
    bedrock,
    gemini,
    jsonschema_check,
    mcp,
    mistral,
    oas30,
    ollama,
    openai_envelope,
    openai_strict,
)
from checkers._schema import deref, iter_schemas, resolve_ref


@dataclass
class FakeFunction:
    """The fields of `httpllm.Function` the checkers read."""

    name: str
    description: str
    parameters: Any
    strict: bool = False
    extra: dict[str, Any] = field(default_factory=dict)


STRICT_GOOD = {
    "type": "object",
    "properties": {
        "city": {"type": "string", "description": "City name"},
        "units": {"type": ["string", "null"], "enum": ["metric", "imperial", None]},
        "when": {"anyOf": [{"type": "string", "format": "date-time"}, {"type": "null"}]},
        "body": {"$ref": "#/$defs/Folder"},
    },
    "required": ["city", "units", "when", "body"],
    "additionalProperties": False,
    "$defs": {
        "Folder": {
            "type": "object",
            "properties": {
                "name": {"type": "string"},
                "children": {
                    "type": ["array", "null"],
                    "items": {"$ref": "#/$defs/Folder"},
                },
            },
            "required": ["name", "children"],
            "additionalProperties": False,
        }
    },
}

PLAIN_GOOD = {
    "type": "object",
    "properties": {
        "city": {"type": "string", "format": "uri", "default": "x"},
        "tags": {"type": ["array", "null"], "items": {"type": "string"}, "uniqueItems": True},
        "owner": {"anyOf": [{"$ref": "#/$defs/Owner"}, {"type": "null"}]},
    },
    "required": ["city"],
    "$defs": {"Owner": {"type": "object", "properties": {"id": {"type": "string"}}}},
}

GEMINI_GOOD = {
    "name": "setJobSchedule",
    "description": "Set a schedule",
    "parameters": {
        "type": "OBJECT",
        "properties": {
            "jobId": {"type": "STRING"},
            "mode": {"type": "STRING", "enum": ["interval", "cron"], "nullable": True},
            "count": {"type": "INTEGER", "format": "int64"},
            "at": {"type": "STRING", "format": "date-time"},
            "tags": {"type": "ARRAY", "items": {"type": "STRING"}},
            "either": {"anyOf": [{"type": "STRING"}, {"type": "NUMBER"}]},
        },
        "required": ["jobId", "mode"],
    },
}


def _with(base: dict[str, Any], path: tuple[Any, ...], value: Any) -> dict[str, Any]:
    """A deep copy of `base` with the node at `path` replaced (or deleted when `value` is ...)."""
    out = copy.deepcopy(base)
    node = out
    for step in path[:-1]:
        node = node[step]
    if value is ...:
        del node[path[-1]]
    else:
        node[path[-1]] = value
    return out


# ---------------------------------------------------------------------------------------------
# shared plumbing


def test_walker_survives_deep_schemas():
    """The schema walker visits a 5000-level nesting without recursion errors."""
    root: dict[str, Any] = {"type": "string"}
    for _ in range(5000):
        root = {"type": "array", "items": root}
    assert sum(1 for _ in iter_schemas(root)) == 5001


def test_refs_resolve_by_pointer_anchor_and_root():
    """`$ref`s resolve by JSON pointer (with ~1 escapes), by `$anchor`, and `#` is the root."""
    schema = {"$defs": {"a/b": {"$anchor": "here", "type": "string"}}}
    assert resolve_ref(schema, "#/$defs/a~1b") == (True, schema["$defs"]["a/b"])
    assert resolve_ref(schema, "#here") == (True, schema["$defs"]["a/b"])
    assert resolve_ref(schema, "#") == (True, schema)
    assert resolve_ref(schema, "#/$defs/missing") == (False, None)
    assert resolve_ref(schema, "other.json#/x") == (False, None)
    assert deref(schema, {"$ref": "#/$defs/missing"}) is None


def test_every_dialect_has_checkers():
    """Every dialect key the corpus test uses has at least one checker."""
    keys = {"3.1", "3.0", "chatgpt", "chatgpt-strict", "claude", "gemini", "llama"}
    keys |= {"deepseek", "qwen", "ollama", "mistral", "bedrock", "mcp"}
    assert set(BY_DIALECT) == keys
    assert all(BY_DIALECT.values())


# ---------------------------------------------------------------------------------------------
# openai_strict


def test_openai_strict_accepts_conforming_schema():
    """A strict-mode schema with nullable optionals and a recursive `$defs` entry conforms."""
    assert openai_strict.check_schema(STRICT_GOOD) == []


def test_openai_strict_accepts_empty_object_and_function():
    """The zero-argument strict schema conforms, passed bare or inside a Function or a tool."""
    empty = {"type": "object", "properties": {}, "required": [], "additionalProperties": False}
    assert openai_strict.check_schema(empty) == []
    assert openai_strict.check(FakeFunction("f", "d", empty, strict=True)) == []
    tool = {"type": "function", "function": {"name": "f", "parameters": empty, "strict": True}}
    assert openai_strict.check(tool) == []


BODY = ("properties", "body")
FOLDER = ("$defs", "Folder")
STRICT_BAD = {
    "missing additionalProperties": ((*FOLDER, "additionalProperties"), ..., "additionalProp"),
    "additionalProperties schema": (
        (*FOLDER, "additionalProperties"),
        {"type": "string"},
        "additionalProp",
    ),
    "optional property": ((*FOLDER, "required"), ["name"], "required must list"),
    "unknown required": ((*FOLDER, "required"), ["name", "children", "x"], "unknown"),
    "root anyOf": (("anyOf",), [{"type": "object"}], "root must not carry anyOf"),
    "root type": (("type",), ["object", "null"], "root must be type"),
    "oneOf": (BODY, {"oneOf": [{"type": "string"}, {"type": "null"}]}, "'oneOf'"),
    "allOf": (BODY, {"allOf": [{"$ref": "#/$defs/Folder"}]}, "'allOf'"),
    "default": (("properties", "city", "default"), "Paris", "'default'"),
    "uniqueItems": ((*FOLDER, "properties", "children", "uniqueItems"), True, "'uniqueItems'"),
    "nullable": (("properties", "city", "nullable"), True, "'nullable'"),
    "x- extension": (("properties", "city", "x-foo"), 1, "'x-foo'"),
    "format uri": (("properties", "city", "format"), "uri", "format 'uri'"),
    "ref sibling": (BODY, {"$ref": "#/$defs/Folder", "description": "d"}, "sibling"),
    "dangling ref": (BODY, {"$ref": "#/$defs/Nope"}, "does not resolve"),
    "components ref": (BODY, {"$ref": "#/components/schemas/Folder"}, "does not resolve"),
    "untyped": (("properties", "city"), {"description": "anything"}, "has no type"),
    "empty schema": (("properties", "city"), {}, "has no type"),
    "boolean schema": (("properties", "city"), True, "boolean schema"),
    "array without items": ((*FOLDER, "properties", "children", "items"), ..., "missing items"),
    "object without properties": (
        BODY,
        {"type": "object", "additionalProperties": False},
        "missing properties",
    ),
    "bad type name": (("properties", "city", "type"), "str", "unknown type"),
}


@pytest.mark.parametrize("case", sorted(STRICT_BAD))
def test_openai_strict_catches(case):
    """Each rule of the strict subset catches a schema that breaks only that rule."""
    path, value, needle = STRICT_BAD[case]
    problems = openai_strict.check_schema(_with(STRICT_GOOD, path, value))
    assert any(needle in p for p in problems), problems


def _nested_objects(levels: int) -> dict[str, Any]:
    node: dict[str, Any] = {"type": "string"}
    for _ in range(levels):
        node = {
            "type": "object",
            "properties": {"x": node},
            "required": ["x"],
            "additionalProperties": False,
        }
    return node


def test_openai_strict_nesting_depth_counts_objects_from_root():
    """Depth counts object levels with the root as level 1; arrays and recursion add none."""
    assert openai_strict.nesting_depth(_nested_objects(1))[0] == 1
    assert openai_strict.nesting_depth(_nested_objects(3))[0] == 3
    wrapped = {"type": "array", "items": _nested_objects(2)}
    assert openai_strict.nesting_depth({"type": "object", "properties": {"a": wrapped}})[0] == 3
    assert openai_strict.nesting_depth(STRICT_GOOD)[0] == 2
    assert openai_strict.check_schema(_nested_objects(10)) == []
    too_deep = openai_strict.check_schema(_nested_objects(11))
    assert any("nesting depth 11" in p for p in too_deep), too_deep


def test_openai_strict_nesting_depth_follows_refs():
    """A `$ref` to a non-recursive definition contributes the definition's depth."""
    schema = {
        "type": "object",
        "properties": {"a": {"$ref": "#/$defs/Deep"}},
        "required": ["a"],
        "additionalProperties": False,
        "$defs": {"Deep": _nested_objects(10)},
    }
    assert openai_strict.nesting_depth(schema)[0] == 11


def test_openai_strict_limits():
    """The property, enum and string-budget limits of section 2c are enforced."""
    many = {f"p{i}": {"type": "string"} for i in range(5001)}
    wide = {"type": "object", "properties": many, "required": list(many)}
    wide["additionalProperties"] = False
    assert any("5001 properties" in p for p in openai_strict.check_schema(wide))
    big_enum = {"type": "string", "enum": [f"v{i}" for i in range(1001)]}
    schema = _with(STRICT_GOOD, ("properties", "city"), big_enum)
    assert any("enum values in total" in p for p in openai_strict.check_schema(schema))
    long_enum = {"type": "string", "enum": [f"{i:03d}" + "x" * 60 for i in range(251)]}
    schema = _with(STRICT_GOOD, ("properties", "city"), long_enum)
    assert any("15000 chars" in p for p in openai_strict.check_schema(schema))
    budget = {"type": "string", "enum": ["y" * 60_001, "z" * 60_001]}
    schema = _with(STRICT_GOOD, ("properties", "city"), budget)
    assert any("characters of names" in p for p in openai_strict.check_schema(schema))


# ---------------------------------------------------------------------------------------------
# jsonschema_check


def test_jsonschema_check_accepts_valid_self_contained_schema():
    """A valid 2020-12 schema whose refs all resolve inside it passes."""
    assert jsonschema_check.check(PLAIN_GOOD) == []
    assert jsonschema_check.check(STRICT_GOOD) == []


@pytest.mark.parametrize(
    ("schema", "needle"),
    [
        ({"type": "object", "properties": {"a": {"type": "strin"}}}, "not a valid"),
        ({"type": "object", "required": "a"}, "not a valid"),
        ({"type": "object", "properties": {"a": {"minimum": "1"}}}, "not a valid"),
        ({"type": "object", "properties": {"a": {"$ref": "#/$defs/A"}}}, "does not resolve"),
        (
            {"type": "object", "properties": {"a": {"$ref": "#/components/schemas/A"}}},
            "points into the OpenAPI",
        ),
        ({"$schema": jsonschema_check.DRAFT_7, "type": "object"}, "declares $schema"),
    ],
)
def test_jsonschema_check_catches(schema, needle):
    """Meta-schema violations, dangling refs and leftover component refs are reported."""
    problems = jsonschema_check.check(schema)
    assert any(needle in p for p in problems), problems


def test_jsonschema_check_python_fallback_agrees():
    """The pure-Python fallback rejects what jsonschema-rs rejects."""
    bad = {"type": "object", "properties": {"a": {"type": "strin"}}}
    assert jsonschema_check._python_check(bad, jsonschema_check.DRAFT_2020_12)
    assert not jsonschema_check._python_check(PLAIN_GOOD, jsonschema_check.DRAFT_2020_12)


def test_jsonschema_check_reads_envelopes():
    """The schema is found inside a Function and inside each provider's envelope."""
    bad = {"type": "object", "properties": {"a": {"type": "strin"}}}
    wrapped = [
        FakeFunction("f", "d", bad),
        {"type": "function", "function": {"name": "f", "parameters": bad}},
        {"name": "f", "input_schema": bad},
        {"name": "f", "inputSchema": bad},
        {"toolSpec": {"name": "f", "inputSchema": {"json": bad}}},
    ]
    for item in wrapped:
        assert jsonschema_check.check(item), item


# ---------------------------------------------------------------------------------------------
# gemini


def test_gemini_accepts_schema_subset():
    """A declaration using only Gemini `Schema` fields passes, alone or in a `Tool` dict."""
    assert gemini.check(GEMINI_GOOD) == []
    assert gemini.check({"functionDeclarations": [GEMINI_GOOD]}) == []
    assert gemini.check([{"functionDeclarations": [GEMINI_GOOD]}]) == []


def test_gemini_accepts_zero_argument_declaration():
    """A declaration without `parameters` is a valid zero-argument function."""
    assert gemini.check({"name": "getHealth", "description": "Health"}) == []
    assert gemini.check(FakeFunction("getHealth", "Health", None)) == []


GP = ("parameters", "properties")
GEMINI_BAD = {
    "type list": ((*GP, "mode", "type"), ["STRING", "NULL"], "type must be a single"),
    "null type": ((*GP, "mode", "type"), "NULL", "not allowed"),
    "$ref": ((*GP, "jobId"), {"$ref": "#/$defs/Id"}, "'$ref'"),
    "$defs": (("parameters", "$defs"), {"Id": {"type": "STRING"}}, "'$defs'"),
    "const": ((*GP, "jobId", "const"), "x", "'const'"),
    "additionalProperties": (("parameters", "additionalProperties"), False, "additionalProp"),
    "oneOf": ((*GP, "either"), {"oneOf": [{"type": "STRING"}]}, "'oneOf'"),
    "allOf": ((*GP, "either"), {"allOf": [{"type": "STRING"}]}, "'allOf'"),
    "enum null member": ((*GP, "mode", "enum"), ["interval", None], "enum"),
    "enum empty member": ((*GP, "mode", "enum"), ["", "cron"], "cannot be empty"),
    "enum on integer": ((*GP, "count", "enum"), ["1", "2"], "only allowed on STRING"),
    "format uri": ((*GP, "jobId", "format"), "uri", "format 'uri'"),
    "format uuid": ((*GP, "jobId", "format"), "uuid", "format 'uuid'"),
    "required unknown": (("parameters", "required"), ["jobId", "nope"], "undefined"),
    "empty object": ((*GP, "jobId"), {"type": "OBJECT", "properties": {}}, "non-empty"),
    "array without items": ((*GP, "tags", "items"), ..., "missing field"),
    "items on string": ((*GP, "jobId", "items"), {"type": "STRING"}, "non-ARRAY"),
    "untyped": ((*GP, "jobId"), {"description": "?"}, "must be specified"),
    "examples": ((*GP, "jobId", "examples"), ["a"], "'examples'"),
    "x- extension": ((*GP, "jobId", "x-internal"), True, "'x-internal'"),
    "name starts with digit": (("name",), "1job", "function name"),
    "root not object": (("parameters", "type"), "STRING", "root must be type OBJECT"),
}


@pytest.mark.parametrize("case", sorted(GEMINI_BAD))
def test_gemini_catches(case):
    """Each Gemini rule catches a declaration that breaks only that rule."""
    path, value, needle = GEMINI_BAD[case]
    problems = gemini.check(_with(GEMINI_GOOD, path, value))
    assert any(needle in p for p in problems), problems


def test_gemini_reports_sdk_crash_on_type_list():
    """A list-valued `type` crashes the SDK model and that crash is reported, not raised."""
    problems = gemini.check(_with(GEMINI_GOOD, (*GP, "mode", "type"), ["STRING", "NULL"]))
    assert any("AttributeError" in p for p in problems), problems


# ---------------------------------------------------------------------------------------------
# anthropic


ANTHROPIC_GOOD = {"name": "createPayment", "description": "Pay", "input_schema": PLAIN_GOOD}


def test_anthropic_accepts_tool_and_function():
    """A tool with an object `input_schema` passes, as a dict or rendered from a Function."""
    assert anthropic.check(ANTHROPIC_GOOD) == []
    assert anthropic.check(FakeFunction("createPayment", "Pay", PLAIN_GOOD)) == []


@pytest.mark.parametrize(
    ("path", "value", "needle"),
    [
        (("input_schema", "anyOf"), [{"type": "object"}], "anyOf at the top level"),
        (("input_schema", "oneOf"), [{"type": "object"}], "oneOf at the top level"),
        (("input_schema", "type"), "array", "SDK"),
        (("input_schema", "type"), ..., "SDK"),
        (("name",), "create payment", "does not match"),
        (("name",), "x" * 129, "does not match"),
        (("inputSchema",), {}, "keys not in the Anthropic"),
        (("input_schema", "properties", "city", "type"), "strin", "not a valid"),
        (("input_schema", "properties", "filter[x]"), {"type": "string"}, "property key"),
        (("input_schema", "properties", "k" * 65), {"type": "string"}, "property key"),
    ],
)
def test_anthropic_catches(path, value, needle):
    """Root unions, non-object roots, bad names, unknown keys, invalid schemas and property
    keys outside the pattern are caught."""
    problems = anthropic.check(_with(ANTHROPIC_GOOD, path, value))
    assert any(needle in p for p in problems), problems


# ---------------------------------------------------------------------------------------------
# mcp


MCP_GOOD = {"name": "createFolder", "description": "Create", "inputSchema": STRICT_GOOD}


def test_mcp_models_for_both_revisions_exist():
    """The installed mcp-types provides the 2025-11-25 and 2026-07-28 Tool models."""
    assert set(mcp.tool_models()) == {"2025-11-25", "2026-07-28"}


def test_mcp_accepts_tool_and_function():
    """A tool with an object `inputSchema` and a SEP-986 name passes."""
    assert mcp.check(MCP_GOOD) == []
    assert mcp.check(FakeFunction("createFolder", "Create", STRICT_GOOD)) == []


@pytest.mark.parametrize(
    ("path", "value", "needle"),
    [
        (("inputSchema", "type"), "array", "MCP 2025-11-25"),
        (("inputSchema", "type"), "array", "MCP 2026-07-28"),
        (("name",), "create folder", "not a valid MCP tool name"),
        (("name",), "", "not a valid MCP tool name"),
        (("outputSchema",), {"type": "array"}, "MCP 2025-11-25"),
        (("input_schema",), {}, "keys not in the MCP"),
        (("inputSchema", "properties", "city", "type"), "strin", "not a valid"),
    ],
)
def test_mcp_catches(path, value, needle):
    """Non-object input schemas, invalid names, unknown keys and bad schemas are caught."""
    problems = mcp.check(_with(MCP_GOOD, path, value))
    assert any(needle in p for p in problems), problems


# ---------------------------------------------------------------------------------------------
# ollama


OLLAMA_GOOD = {
    "type": "function",
    "function": {
        "name": "convertTime",
        "description": "Convert",
        "parameters": {
            "type": "object",
            "properties": {
                "timezone": {"type": "string", "description": "IANA zone; may be null"},
                "body": {
                    "type": "object",
                    "properties": {"n": {"type": "integer"}},
                    "required": ["n"],
                },
            },
            "required": ["timezone"],
        },
    },
}
OP = ("function", "parameters", "properties")


def test_ollama_accepts_single_types():
    """A tool whose every `type` is one string survives the client round trip."""
    assert ollama.check(OLLAMA_GOOD) == []
    fn = FakeFunction("convertTime", "Convert", OLLAMA_GOOD["function"]["parameters"])
    assert ollama.check(fn) == []


@pytest.mark.parametrize(
    ("path", "value", "needle"),
    [
        ((*OP, "timezone", "type"), ["string", "null"], "single string"),
        ((*OP, "body", "properties", "n", "type"), ["integer", "null"], "single string"),
        ((*OP, "timezone"), True, "boolean subschema"),
        ((*OP, "timezone"), {"$ref": "#/$defs/Tz"}, "dropped by the server"),
        (("function", "parameters", "type"), ["object"], "root type"),
        (("function", "parameters", "properties"), ..., "root properties"),
    ],
)
def test_ollama_catches(path, value, needle):
    """Type lists, boolean schemas, property refs and a malformed root are caught."""
    problems = ollama.check(_with(OLLAMA_GOOD, path, value))
    assert any(needle in p for p in problems), problems


def test_ollama_server_dropped_lists_lost_keywords():
    """The server projection names keywords the Go struct cannot hold."""
    tool = _with(OLLAMA_GOOD, (*OP, "timezone", "format"), "date-time")
    params = tool["function"]["parameters"]
    assert ollama.server_dropped(params) == ["#/properties/timezone/format"]


# ---------------------------------------------------------------------------------------------
# bedrock


BEDROCK_GOOD = {
    "toolSpec": {
        "name": "createItem",
        "description": "Create an item",
        "inputSchema": {"json": PLAIN_GOOD},
    }
}
BS = ("toolSpec",)


def test_bedrock_accepts_tool_spec_forms():
    """A `Tool`, a bare `toolSpec`, a `toolConfig` and a Function are all checked and pass."""
    assert bedrock.check(BEDROCK_GOOD) == []
    assert bedrock.check(BEDROCK_GOOD["toolSpec"]) == []
    assert bedrock.check({"tools": [BEDROCK_GOOD]}) == []
    assert bedrock.check(FakeFunction("createItem", "Create", PLAIN_GOOD)) == []


@pytest.mark.parametrize(
    ("path", "value", "needle"),
    [
        ((*BS, "description"), "", "Invalid length"),
        ((*BS, "name"), "create.item", "does not match"),
        ((*BS, "name"), "x" * 65, "length 65"),
        ((*BS, "name"), ..., "Missing required parameter"),
        ((*BS, "inputSchema", "json", "type"), "array", "top-level type"),
        ((*BS, "inputSchema", "json", "properties", "city", "type"), "strin", "not a valid"),
        ((*BS, "inputSchema", "json", "properties", "$top"), {"type": "integer"}, "property key"),
    ],
)
def test_bedrock_catches(path, value, needle):
    """Empty descriptions, bad names, non-object schemas, invalid schemas and property keys
    Claude refuses are caught."""
    problems = bedrock.check(_with(BEDROCK_GOOD, path, value))
    assert any(needle in p for p in problems), problems


# ---------------------------------------------------------------------------------------------
# mistral


MISTRAL_GOOD = {
    "type": "function",
    "function": {"name": "getWeather", "description": "Weather", "parameters": PLAIN_GOOD},
}
MF = ("function",)


def test_mistral_accepts_tool():
    """A tool with a Draft 7 valid schema and a valid name passes."""
    assert mistral.check(MISTRAL_GOOD) == []


@pytest.mark.parametrize(
    ("path", "value", "needle"),
    [
        ((*MF, "name"), "get.weather", "does not match"),
        ((*MF, "name"), "x" * 65, "does not match"),
        ((*MF, "parameters", "properties", "city", "type"), "strin", "Draft"),
        ((*MF, "parameters"), "nope", "mistral-common"),
    ],
)
def test_mistral_catches(path, value, needle):
    """Bad names and invalid Draft 7 schemas are caught."""
    problems = mistral.check(_with(MISTRAL_GOOD, path, value))
    assert any(needle.lower() in p.lower() for p in problems), problems


@pytest.mark.parametrize(
    ("name", "params"),
    [
        ("getWeather", PLAIN_GOOD),
        ("get.weather", PLAIN_GOOD),
        ("getWeather", {"type": "object", "properties": {"a": {"type": "strin"}}}),
        ("getWeather", {"type": "object", "required": "a"}),
    ],
)
def test_mistral_agrees_with_mistral_common(name, params):
    """The fast check gives mistral-common's own `_validate_function` verdict."""
    from mistral_common.protocol.instruct.tool_calls import Function
    from mistral_common.protocol.instruct.validator import MistralRequestValidator

    try:
        MistralRequestValidator()._validate_function(Function(name=name, parameters=params))
        reference_ok = True
    except Exception:
        reference_ok = False
    tool = {"type": "function", "function": {"name": name, "parameters": params}}
    assert (mistral.check(tool) == []) == reference_ok


# ---------------------------------------------------------------------------------------------
# openai_envelope


CHAT_GOOD = {
    "type": "function",
    "function": {"name": "getWeather", "description": "Weather", "parameters": PLAIN_GOOD},
}


def test_openai_envelope_accepts_chat_and_responses_tools():
    """Chat tools, Responses tools and Functions pass when well formed."""
    assert openai_envelope.check(CHAT_GOOD) == []
    responses = {"type": "function", "name": "getWeather", "parameters": PLAIN_GOOD}
    responses["strict"] = False
    assert openai_envelope.check(responses) == []
    assert openai_envelope.check(FakeFunction("getWeather", "Weather", STRICT_GOOD, True)) == []


@pytest.mark.parametrize(
    ("path", "value", "needle"),
    [
        ((*MF, "name"), "get weather", "does not match"),
        ((*MF, "name"), "x" * 65, "does not match"),
        ((*MF, "name"), ..., "SDK"),
        ((*MF, "description"), "d" * 1025, "1025 > 1024"),
        ((*MF, "parameters", "type"), "array", 'type: "object"'),
        ((*MF, "parameters", "properties", "city", "type"), "strin", "not a valid"),
        ((*MF, "input_schema"), {}, "keys unknown"),
        (("strict",), True, "keys unknown"),
        (("type",), "custom", "SDK"),
    ],
)
def test_openai_envelope_catches(path, value, needle):
    """Bad names, unknown keys, long descriptions and non-object parameters are caught."""
    problems = openai_envelope.check(_with(CHAT_GOOD, path, value))
    assert any(needle in p for p in problems), problems


def test_openai_envelope_description_limit_is_optional():
    """OpenAI-compatible servers are checked without the 1024-character description cap."""
    tool = _with(CHAT_GOOD, (*MF, "description"), "d" * 5000)
    assert openai_envelope.check(tool, description_max=None) == []


# ---------------------------------------------------------------------------------------------
# oas30


OAS30_GOOD = {
    "type": "object",
    "properties": {
        "price": {"type": "number", "nullable": True, "minimum": 0, "exclusiveMinimum": True},
        "tags": {"type": "array", "items": {"type": "string"}},
        "owner": {"type": "object", "x-kind": "owner"},
    },
    "required": ["price"],
}


def test_oas30_accepts_schema_object():
    """An OpenAPI 3.0 schema with `nullable` and boolean exclusive bounds passes."""
    assert oas30.check(OAS30_GOOD) == []


@pytest.mark.parametrize(
    ("path", "value", "needle"),
    [
        (("properties", "price", "type"), ["number", "null"], "type must be one of"),
        (("properties", "price", "type"), "null", "type must be one of"),
        (("properties", "price", "exclusiveMinimum"), 0, "must be a boolean"),
        (("properties", "price", "const"), 1, "'const'"),
        (("properties", "tags", "items"), ..., "requires items"),
        (("properties", "tags", "prefixItems"), [{"type": "string"}], "'prefixItems'"),
        (("properties", "owner"), {"$ref": "#/definitions/Owner", "nullable": True}, "siblings"),
        (("properties", "owner"), {"$ref": "#/definitions/Owner"}, "does not resolve"),
        (("required",), [], "non-empty"),
    ],
)
def test_oas30_catches(path, value, needle):
    """JSON Schema 2020-12 idioms that OpenAPI 3.0 cannot carry are caught."""
    bad = _with(OAS30_GOOD, path, value)
    problems = oas30.check(bad)
    assert any(needle in p for p in problems), problems


def test_shared_subtrees_count_once_per_path():
    """A subtree shared by identity counts toward the limits once per place it appears."""
    shared = {"type": "string", "enum": [f"v{i}" for i in range(300)]}
    props = {f"p{i}": shared for i in range(4)}
    schema = {"type": "object", "properties": props, "required": list(props)}
    schema["additionalProperties"] = False
    problems = openai_strict.check_schema(schema)
    assert any("1200 enum values" in p for p in problems), problems
    deep = _nested_objects(6)
    two = {"type": "object", "properties": {"a": deep, "b": deep}, "required": ["a", "b"]}
    two["additionalProperties"] = False
    assert openai_strict.nesting_depth(two)[0] == 7


def test_meta_check_sees_shared_subtrees():
    """An invalid subtree shared by identity is still caught by the meta-schema check."""
    bad = {"type": "strin"}
    schema = {"type": "object", "properties": {"a": bad, "b": bad}}
    assert jsonschema_check.check(schema)
