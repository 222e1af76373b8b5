"""The gemini dialect: bug-case expectations, rule details, envelope, corpus (SDK + invariant 6)."""

from __future__ import annotations

import json
import os
from typing import Any

import pytest
import shared
from checkers import gemini
from checkers._schema import child, iter_schemas
from sweep import assert_clean

import httpllm
from httpllm.dialects import get_dialect


def case(name: str, **options: Any) -> Any:
    return httpllm.compile(shared.case(name), "gemini", **options)


def only(app: Any) -> Any:
    assert len(app.functions) == 1, app.errors
    return app.functions[0]


def body(fn: Any) -> Any:
    return fn.parameters["properties"]["body"]


def all_keys(value: Any) -> set[str]:
    found: set[str] = set()
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, dict):
            found.update(item)
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
    return found


def document(schema: Any, name: str = "op") -> dict[str, Any]:
    operation = {"operationId": name,
                 "requestBody": {"required": True,
                                 "content": {"application/json": {"schema": schema}}},
                 "responses": {"200": {"description": "ok"}}}
    return {"openapi": "3.1.0", "info": {"title": "t", "version": "1"},
            "paths": {"/x": {"post": operation}}}


def compile_body(schema: Any, **options: Any) -> Any:
    return only(httpllm.compile(document(schema), "gemini", **options))


# -- bug cases ------------------------------------------------------------------------------


def test_c01_recursion_is_an_error_naming_the_cycle() -> None:
    """C01: without unroll, createFolder is an operation error naming Folder -> Folder."""
    app = case("C01")
    assert app.functions == ()
    assert "Folder -> Folder" in app.errors[0].message
    assert app.errors[0].pointer.startswith("#/paths")


@pytest.mark.parametrize("k", [1, 2, 3])
def test_c01_unroll_k_levels(k: int) -> None:
    """C01 unroll=k: k Folder levels, no ref keys, the cut children reported."""
    app = case("C01", unroll=k)
    fn = only(app)
    assert not {"$ref", "$defs", "ref", "defs"} & all_keys(app.tools())
    node, levels = body(fn), 0
    while node is not None:
        levels += 1
        assert node["properties"]["name"]["type"] == "string"
        node = child(node, "properties", "children", "items")
    assert levels == k
    assert any(x.action == "cut" and "children" in x.pointer for x in fn.losses)
    assert gemini.check(app.tools()) == []


def test_c03_refs_inlined() -> None:
    """C03: location is an inline object with its description; units an inline string enum."""
    fn = only(case("C03"))
    assert not {"$ref", "$defs", "definitions", "ref", "defs", "$schema"} & all_keys(fn.parameters)
    location = body(fn)["properties"]["location"]
    assert location["type"] == "object" and location["description"] == "A named place"
    assert location["required"] == ["name", "region"]
    assert fn.parameters["properties"]["units"] == {"type": "string",
                                                    "enum": ["metric", "imperial"]}


def test_c04_site_descriptions_kept() -> None:
    """C04: role and previousRole are inline string enums led by their site descriptions."""
    props = body(only(case("C04")))["properties"]
    for name, text in (("role", "New role for the member"), ("previousRole", "Role the member")):
        assert props[name]["type"] == "string"
        assert props[name]["enum"] == ["viewer", "editor", "owner"]
        assert props[name]["description"].startswith(text)
    assert "allOf" not in all_keys(props)


def test_c07_nullable_flag() -> None:
    """C07: category, price, tags, owner are single-typed with nullable: true; name is not."""
    fn = only(case("C07"))
    b = body(fn)["properties"]
    nodes = {"category": fn.parameters["properties"]["category"], "price": b["price"],
             "tags": b["tags"], "owner": b["owner"]}
    types = {"category": "string", "price": "number", "tags": "array", "owner": "object"}
    for name, node in nodes.items():
        assert node["type"] == types[name] and node["nullable"] is True, name
        assert "anyOf" not in node
    assert b["tags"]["items"] == {"type": "string"}
    assert b["owner"]["required"] == ["id"]
    assert "nullable" not in b["name"]


def test_c09_type_lists_become_nullable() -> None:
    """C09: timezone is a nullable string, offsetMinutes a nullable integer."""
    b = body(only(case("C09")))
    assert b["properties"]["timezone"]["type"] == "string"
    assert b["properties"]["timezone"]["nullable"] is True
    assert b["properties"]["offsetMinutes"] == {"type": "integer", "nullable": True}
    assert b["required"] == ["instant", "timezone"]


def test_c11_enum_without_null_or_empty() -> None:
    """C11: mode is a nullable enum; channel loses "" but its description says so."""
    fn = only(case("C11"))
    props = body(fn)["properties"]
    assert props["mode"]["enum"] == ["interval", "cron"] and props["mode"]["nullable"] is True
    assert props["channel"]["enum"] == ["email", "sms"]
    assert "empty" in props["channel"]["description"]
    assert any(x.keyword == "enum" and x.action == "dropped" for x in fn.losses)


def test_c13_formats() -> None:
    """C13: uri/email/uuid/date move to descriptions; date-time, int64, float stay."""
    props = body(only(case("C13")))["properties"]
    for name, fmt in (("url", "uri"), ("contactEmail", "email"), ("id", "uuid"),
                      ("birthday", "date")):
        assert "format" not in props[name] and f"@format {fmt}" in props[name]["description"]
    assert props["createdAt"]["format"] == "date-time"
    assert props["count"]["format"] == "int64" and props["ratio"]["format"] == "float"


def test_c18_untyped_items_are_strings() -> None:
    """C18: fields gets items {type: string} with a loss naming fields; ids keeps int64."""
    fn = only(case("C18"))
    props = fn.parameters["properties"]
    assert props["fields"]["items"] == {"type": "string"}
    assert props["ids"]["items"] == {"type": "integer", "format": "int64"}
    assert any("fields" in x.note for x in fn.losses)


def test_c18_strict_typing_is_an_error() -> None:
    """C18 lenient=False: findPets is an error naming fields."""
    app = case("C18", lenient=False)
    assert app.functions == () and "fields" in app.errors[0].message


def test_c19_no_parameters_key() -> None:
    """C19: zero-argument declarations carry no parameters field."""
    tools = case("C19").tools()
    assert len(tools) == 1
    assert [sorted(d) for d in tools[0]["functionDeclarations"]] == [["description", "name"]] * 2


def test_c21_union_body_as_any_of() -> None:
    """C21: body is an anyOf of the two variants, each with its own required list."""
    fn = only(case("C21"))
    members = body(fn)["anyOf"]
    assert [m["required"] for m in members] == [["method", "cardToken", "amount"],
                                                ["method", "iban", "amount"]]
    assert fn.parameters["required"] == ["idempotencyKey", "body"]


def test_c22_allof_merged_required_exist() -> None:
    """C22: one merged object; every required name exists."""
    fn = only(case("C22"))
    b = body(fn)
    assert set(b["properties"]) == {"searchText", "top", "skip", "includeSnippet"}
    for _, node in iter_schemas(fn.parameters):
        if isinstance(node, dict) and "required" in node:
            assert set(node["required"]) <= set(node["properties"])


def test_c23_tag_is_one_value_string_enum() -> None:
    """C23: channel is {type: string, enum: [email]} in the email branch, required."""
    members = body(only(case("C23")))["anyOf"]
    tags = [m["properties"]["channel"] for m in members]
    assert [t["enum"] for t in tags] == [["email"], ["sms"]]
    assert all(t["type"] == "string" and "const" not in t for t in tags)
    assert all("channel" in m["required"] for m in members)


def test_c29_max_depth_error_names_rows() -> None:
    """C29 max_depth=4: appendBlocks is an error naming the rows path."""
    app = case("C29", max_depth=4)
    assert app.functions == ()
    assert "rows" in app.errors[0].message and "appendBlocks" in app.errors[0].message


def test_c29_collapse_deep() -> None:
    """C29 max_depth=4 collapse_deep: rows becomes JSON text; the model's text is decoded."""
    fn = only(case("C29", max_depth=4, collapse_deep=True))
    block = body(fn)["properties"]["sections"]["items"]["properties"]["blocks"]["items"]
    rows = block["properties"]["rows"]
    assert rows["type"] == "string" and rows["description"].startswith("JSON-encoded rows")
    assert any("rows" in x.pointer for x in fn.losses)
    assert fn.extra["decode"] is True


def test_c29_without_limit_keeps_depth() -> None:
    """C29 without max_depth: the full structure is there."""
    b = body(only(case("C29")))
    assert b["properties"]["sections"]["items"]["properties"]["blocks"]["type"] == "array"


@pytest.mark.parametrize("name", ["C01", "C03", "C04", "C07", "C09", "C11", "C13", "C18",
                                  "C19", "C21", "C22", "C23", "C29"])
def test_cases_pass_sdk_and_invariant_6(name: str) -> None:
    """Every case compiles to declarations the SDK takes and invariant 6 allows."""
    assert gemini.check(case(name, unroll=2).tools()) == []


# -- rules ----------------------------------------------------------------------------------


def test_integer_enum_sent_as_strings() -> None:
    """A non-string enum becomes a string enum; the emended schema keeps the integers."""
    fn = compile_body({"type": "object", "properties": {"n": {"type": "integer",
                                                            "enum": [1, 2], "default": 1}}})
    assert body(fn)["properties"]["n"] == {"type": "string", "enum": ["1", "2"],
                                           "default": "1"}
    assert fn.schema["properties"]["body"]["properties"]["n"]["enum"] == [1, 2]
    assert any(x.keyword == "enum" and x.action == "rewritten" for x in fn.losses)


def test_maps_and_free_form_objects() -> None:
    """A typed map becomes key/value entries; a free-form object a string of JSON."""
    fn = compile_body({"type": "object", "properties": {
        "labels": {"type": "object", "additionalProperties": {"type": "string"}},
        "meta": {"type": "object"},
        "mixed": {"type": "object", "properties": {"a": {"type": "string"}},
                  "additionalProperties": {"type": "integer"}}}})
    props = body(fn)["properties"]
    entry = props["labels"]["items"]
    assert props["labels"]["type"] == "array" and entry["required"] == ["key", "value"]
    assert entry["properties"]["value"] == {"type": "string"}
    assert props["meta"]["type"] == "string" and "JSON" in props["meta"]["description"]
    assert set(props["mixed"]) == {"type", "properties"}
    assert gemini.check(httpllm.compile(document({"type": "object", "properties": {
        "m": {"type": "object"}}}), "gemini").tools()) == []


@pytest.mark.slow
def test_losses_of_an_object_without_properties_follow_the_node_order() -> None:
    """Its dropped keywords are reported in the node's order, whatever the hash seed
    (they came from a set difference: cloudflare's report changed from run to run)."""
    import subprocess
    import sys

    code = (
        "import httpllm, json, sys\n"
        "doc = json.loads(sys.argv[1])\n"
        "fn = httpllm.compile(doc, 'gemini').functions[0]\n"
        "print([l.keyword for l in fn.losses if 'on an object without properties' in l.note])"
    )
    extra = {"type": "object", "minProperties": 1, "maxProperties": 9, "required": ["a"],
             "propertyNames": {"pattern": "^a"}, "patternProperties": {"^b": {}},
             "dependentRequired": {"a": ["b"]}, "not": {"required": ["c"]}}
    doc = json.dumps(document({"type": "object", "properties": {"m": extra}}))
    runs = {subprocess.run([sys.executable, "-c", code, doc], capture_output=True, text=True,
                           check=True, env={**os.environ, "PYTHONHASHSEED": str(seed)}).stdout
            for seed in range(4)}
    assert len(runs) == 1
    found = eval(runs.pop())  # our own subprocess's printed list
    assert found == [k for k in extra if k not in ("type", "properties")]


def test_const_and_constraints() -> None:
    """const is a one-value enum; exclusiveMinimum and multipleOf move to the description."""
    fn = compile_body({"type": "object", "properties": {
        "k": {"const": "x"},
        "n": {"type": "number", "exclusiveMinimum": 0, "multipleOf": 2, "maximum": 9}}})
    props = body(fn)["properties"]
    assert props["k"] == {"type": "string", "enum": ["x"]}
    assert props["n"]["maximum"] == 9 and "exclusiveMinimum" not in props["n"]
    assert "@exclusiveMinimum 0" in props["n"]["description"]


def test_const_of_any_type_is_a_string_enum_decode_restores() -> None:
    """A non-string const is a one-value string enum, reported as restored by decode; the
    emended schema keeps the const."""
    fn = compile_body({"type": "object", "properties": {"n": {"const": 5}}})
    assert body(fn)["properties"]["n"] == {"type": "string", "enum": ["5"]}
    assert fn.schema["properties"]["body"]["properties"]["n"] == {"const": 5}
    assert any(x.keyword == "enum" and "execute.decode restores" in x.note for x in fn.losses)


TUPLE = {"type": "array", "prefixItems": [{"type": "string"}, {"type": "integer"}]}


@pytest.mark.parametrize(("rest", "items", "extra"), [
    (False, {"anyOf": [{"type": "string"}, {"type": "integer"}]}, {"maxItems": 2}),
    ({"type": "boolean"},
     {"anyOf": [{"type": "string"}, {"type": "integer"}, {"type": "boolean"}]}, {}),
    (None, {"anyOf": [{"type": "string"}, {"type": "integer"}]}, {}),
    (True, {"anyOf": [{"type": "string"}, {"type": "integer"},
                      {"type": "string", "description": "Any JSON value, as JSON text."}]}, {}),
], ids=["closed", "rest", "open", "any-rest"])
def test_tuple_items_are_the_union_of_its_positions(rest: Any, items: Any,
                                                    extra: dict[str, Any]) -> None:
    """A tuple is sent as an array whose items are the union of its position schemas (and
    of items), at most as long as a closed tuple: values travel as themselves, not as JSON
    text, and the loss says positions are not kept."""
    tuple_ = TUPLE if rest is None else {**TUPLE, "items": rest}
    fn = compile_body({"type": "object", "properties": {"t": tuple_}})
    assert body(fn)["properties"]["t"] == {"type": "array", "items": items, **extra,
                                           "description": "In order: string, integer."}
    loss = next(x for x in fn.losses if x.keyword == "prefixItems")
    assert loss.action == "rewritten" and "any order" in loss.note
    assert gemini.check(httpllm.compile(document({"type": "object", "properties": {
        "t": tuple_}}), "gemini").tools()) == []


def test_a_null_position_of_a_tuple_is_nullable() -> None:
    """A null position joins the union as nullable: true, as a null union member does."""
    fn = compile_body({"type": "object", "properties": {"t": {
        "type": "array", "prefixItems": [{"type": "null"}, {"type": "string"}], "items": False}}})
    assert body(fn)["properties"]["t"] == {"type": "array", "maxItems": 2,
                                           "items": {"type": "string", "nullable": True},
                                           "description": "In order: null, string."}


def test_boolean_and_untyped_subschemas() -> None:
    """true and {} become strings of JSON text; false properties are removed."""
    fn = compile_body({"type": "object", "required": ["no"], "properties": {
        "any": True, "no": False, "x": {}, "ok": {"type": "string"}}})
    props = body(fn)["properties"]
    assert props["any"]["type"] == "string" and props["x"]["type"] == "string"
    assert "no" not in props and "required" not in body(fn)
    [gone] = [loss for loss in fn.losses if loss.action == "dropped"
              and loss.keyword == "properties"]
    assert gone.value == ["no"]


@pytest.mark.parametrize(("provider", "strict"), [
    ("gemini", False), ("gemini-json", False), ("ollama", False), ("chatgpt", True),
    ("claude", True), ("3.0", False)])
def test_items_false_is_at_most_the_tuple(provider: str, strict: bool) -> None:
    """`items: false` allows no item past `prefixItems`: `maxItems` says so, or its
    description where the mode does not keep the keyword (it became "any JSON value, as
    text" or `{}`: any items), and beside a tuple a dialect that drops `prefixItems` keeps
    the count rather than refusing the tuple's items; validate and the tool agree on what
    an array may hold."""
    for schema, fits, refused in (
            ({"type": "array", "items": False}, [], ["x"]),
            ({"type": "array", "prefixItems": [{"type": "string"}], "items": False},
             ["x"], ["x", "y"])):
        app = httpllm.compile(document({"type": "object", "required": ["t"],
                                        "properties": {"t": schema}}), provider, strict=strict)
        fn = app.functions[0]
        tool = body(fn)["properties"]["t"]
        told = tool.get("maxItems", len(fits)) == len(fits) and (
            f"@maxItems {len(fits)}" in tool.get("description", "") or "maxItems" in tool)
        assert told or tool.get("items") == {"not": {}}, tool
        kept = get_dialect(provider).strict_keywords if strict else get_dialect(provider).keywords
        assert "maxItems" not in tool or kept is None or "maxItems" in kept, tool
        assert not app.validate(fn.name, {"body": {"t": fits}}).errors
        assert app.validate(fn.name, {"body": {"t": refused}}).errors
        assert any(loss.keyword in ("items", "prefixItems") for loss in fn.losses)


def test_union_of_several_with_null() -> None:
    """anyOf [string, integer, null] keeps anyOf, each member nullable."""
    fn = compile_body({"type": "object", "properties": {"v": {"type": ["string", "integer",
                                                                       "null"]}}})
    assert body(fn)["properties"]["v"] == {"anyOf": [{"type": "string", "nullable": True},
                                                     {"type": "integer", "nullable": True}]}


def test_decode_flag_set() -> None:
    """Every gemini function asks execute.decode to restore values."""
    fn = compile_body({"type": "object", "properties": {"a": {"type": "string"}}})
    assert fn.extra["decode"] is True


# -- envelope ------------------------------------------------------------------------------


def test_tools_are_one_tool_with_every_declaration() -> None:
    """tools() is one Tool holding all declarations, which the SDK takes as is."""
    from google.genai import types

    tools = case("C27").tools()
    assert len(tools) == 1 and len(tools[0]["functionDeclarations"]) == 3
    types.GenerateContentConfig(tools=tools)


def test_no_functions_no_tool() -> None:
    """An application without functions sends no Tool at all."""
    assert case("C01").tools() == []


def test_json_schema_envelope_keeps_refs() -> None:
    """envelope="json-schema": parametersJsonSchema with $defs for C01, no unroll needed."""
    app = case("C01", envelope="json-schema")
    decl = app.tools()[0]["functionDeclarations"][0]
    schema = decl["parametersJsonSchema"]
    assert "parameters" not in decl and "Folder" in schema["$defs"]
    assert schema["properties"]["body"] == {"$ref": "#/$defs/Folder"}


def test_json_schema_envelope_refuses_required_recursion() -> None:
    """Recursion through required properties only is refused with json-schema."""
    doc = document({"$ref": "#/components/schemas/N"})
    doc["components"] = {"schemas": {"N": {"type": "object", "required": ["next"],
                                           "properties": {"next": {
                                               "$ref": "#/components/schemas/N"}}}}}
    app = httpllm.compile(doc, "gemini", envelope="json-schema")
    assert app.functions == () and "required" in app.errors[0].message


def test_json_schema_required_recursion_names_its_pointer() -> None:
    """The refusal names the ref's pointer, `items` and all (no `None` segment)."""
    doc = document({"$ref": "#/components/schemas/N"})
    doc["components"] = {"schemas": {"N": {"type": "object", "required": ["kids"],
                                           "properties": {"kids": {"type": "array", "items": {
                                               "$ref": "#/components/schemas/N"}}}}}}
    app = httpllm.compile(doc, "gemini-json")
    (error,) = app.errors
    assert "at #/$defs/N/properties/kids/items (a ref to N);" in error.message


def test_json_schema_envelope_keywords() -> None:
    """json-schema: null stays a type, unsupported keywords are described."""
    fn = compile_body({"type": "object", "properties": {"v": {"type": ["string", "null"],
                                                              "pattern": "^a"}}},
                      envelope="json-schema")
    v = body(fn)["properties"]["v"]
    assert v["anyOf"][1] == {"type": "null"} and "pattern" not in all_keys(v)


def test_gemini_json_is_a_registered_dialect_like_the_envelope_alias() -> None:
    """provider="gemini-json" renders what gemini with envelope="json-schema" renders,
    under its own name; the alias keeps the name gemini."""
    by_name = httpllm.compile(shared.case("C01"), "gemini-json")
    by_alias = httpllm.compile(shared.case("C01"), "gemini", envelope="json-schema")
    assert by_name.provider == "gemini-json" and by_alias.provider == "gemini"
    assert by_name.tools() == by_alias.tools()
    assert "parametersJsonSchema" in by_name.tools()[0]["functionDeclarations"][0]
    assert {loss.dialect for loss in by_name.losses} <= {"gemini-json"}


# -- corpus --------------------------------------------------------------------------------


@pytest.mark.corpus
@pytest.mark.parametrize("mode", ["gemini"])
def test_corpus(mode: str) -> None:
    """Every declaration compiled from a real 3.x document passes the SDK and invariant 6;
    all of them form one `Tool`; a recursion error names its cycle."""
    assert_clean(mode)


def _lost_strings(fn: Any) -> list[Any]:
    return [v for x in fn.losses if x.keyword == "anyOf" and x.action == "dropped"
            for v in x.value or ()]


@pytest.mark.parametrize(("schema", "lost"), [
    ({"anyOf": [{"type": "string"}, {"const": 5}]}, ["5"]),
    ({"oneOf": [{"type": "string"}, {"enum": [1, True, 2.5]}]}, ["1", "true", "2.5"]),
    ({"anyOf": [{"type": "string", "enum": ["5", "x"]}, {"const": 5}]}, ["5"]),
    ({"anyOf": [{"const": 5}, {"type": "string", "enum": ["5", "x"]}]}, ["5"]),
    ({"type": ["string", "integer"], "enum": ["5", 5, "a"]}, ["5"]),
    ({"anyOf": [{"type": ["string", "null"]}, {"const": False}]}, ["false"]),
    ({"anyOf": [{"type": "string"}, {"anyOf": [{"const": 7}, {"type": "boolean"}]}]}, ["7"]),
    ({"anyOf": [{"type": "string"}, {"const": {"a": 1}}]}, ['{"a": 1}']),
    ({"anyOf": [{"type": "string", "maxLength": 1}, {"enum": [5, 55]}]}, ["5"]),
    ({"anyOf": [{"type": "string", "pattern": "^[a-z]+$"}, {"const": 5}]}, []),
    ({"anyOf": [{"type": "string", "enum": ["x"]}, {"const": 5}]}, []),
    ({"anyOf": [{"type": "string"}, {"type": "null"}]}, []),
    ({"anyOf": [{"type": "string"}, {"type": "integer"}]}, []),
    ({"enum": ["a", 5]}, []),
], ids=["const", "enum", "string-enum-first", "const-first", "type-array", "nullable",
        "nested", "object-const", "max-length", "pattern", "disjoint", "null", "integer",
        "one-enum"])
def test_a_string_member_that_takes_another_members_text_is_a_loss(
        schema: Any, lost: list[str]) -> None:
    """In a union, the strings a string member takes that another member sends as the
    text of its non-string value (``"5"`` beside ``const: 5``) are reported lost at the
    union, and only those; the declarations stay valid for the SDK."""
    doc = document({"type": "object", "properties": {"v": schema}})
    fn = only(httpllm.compile(doc, "gemini"))
    assert _lost_strings(fn) == lost
    assert all(x.pointer.endswith("/anyOf") for x in fn.losses if x.keyword == "anyOf"
               and x.action == "dropped")
    assert gemini.check(httpllm.compile(doc, "gemini").tools()) == []


@pytest.mark.parametrize("member", [{"type": "object"}, {}], ids=["object", "any"])
def test_a_json_text_member_beside_a_string_member_is_a_loss(member: Any) -> None:
    """A member sent as JSON text (an object without properties, any value) beside a
    string member cannot be told from a string: the loss says its values are lost."""
    fn = compile_body({"type": "object", "properties": {
        "v": {"anyOf": [{"type": "string"}, member]}}})
    notes = [x.note for x in fn.losses if x.keyword == "anyOf" and x.action == "dropped"]
    assert len(notes) == 1 and "JSON text" in notes[0] and "decode keeps the string" in notes[0]
