"""The `chatgpt` dialect: Chat and Responses envelopes, strict rules and limits, fallback."""

from __future__ import annotations

import json
from typing import Any

import pytest
from checkers import openai_envelope, openai_strict
from pydantic import TypeAdapter
from toolkit import CONSTRAINED, FOLDER, doc

import httpllm
from httpllm.dialects import Options, RenderContext
from httpllm.dialects._rules import foreign_keywords
from httpllm.dialects.openai import (
    CHATGPT,
    OPENAI_STRICT_FORMATS,
    strict_limits,
    tuple_items,
)


def test_chat_envelope() -> None:
    """`{"type": "function", "function": {name, description, parameters}}`, SDK-valid;
    no `strict` key unless the tool is strict."""
    from openai.types.chat import ChatCompletionFunctionToolParam

    (tool,) = httpllm.compile(doc(CONSTRAINED), "chatgpt").tools()
    assert list(tool) == ["type", "function"]
    assert list(tool["function"]) == ["name", "description", "parameters"]
    TypeAdapter(ChatCompletionFunctionToolParam).validate_python(tool)
    assert openai_envelope.check(tool) == []


@pytest.mark.parametrize("strict", [False, True])
def test_responses_envelope_always_says_strict(strict: bool) -> None:
    """The flat Responses tool always carries `strict` (omitted, the API guesses)."""
    from openai.types.responses import FunctionToolParam

    app = httpllm.compile(doc(CONSTRAINED), "chatgpt", strict=strict, envelope="responses")
    (tool,) = app.tools()
    assert tool["type"] == "function" and tool["strict"] is strict
    assert set(tool) == {"type", "name", "description", "parameters", "strict"}
    TypeAdapter(FunctionToolParam).validate_python(tool)


def test_alias_openai() -> None:
    """`openai` is an alias of `chatgpt`."""
    assert httpllm.compile(doc(CONSTRAINED), "openai").provider == "chatgpt"


def test_non_strict_keeps_constraints() -> None:
    """Non-strict tools keep every JSON Schema keyword and report nothing."""
    function = httpllm.compile(doc(CONSTRAINED), "chatgpt").functions[0]
    assert function.parameters["properties"]["body"] == CONSTRAINED and function.losses == ()


def test_strict_rules() -> None:
    """Strict: closed objects, every property required, optional ones nullable, maps as
    entries, formats off the allow-list and `minLength`/`maxLength` described."""
    app = httpllm.compile(doc(CONSTRAINED), "chatgpt", strict=True)
    (tool,) = app.tools()
    assert tool["function"]["strict"] is True
    assert openai_strict.check(tool) == []
    body = tool["function"]["parameters"]["properties"]["body"]
    props = body["properties"]
    assert set(body["required"]) == set(props) and body["additionalProperties"] is False
    assert props["count"]["anyOf"][-1] == {"type": "null"}
    assert props["site"] == {"anyOf": [{"type": "string"}, {"type": "null"}],
                             "description": "@format uri"}
    assert props["labels"]["anyOf"][0]["type"] == "array"
    assert "minLength" not in props["name"] and "@minLength 1" in props["name"]["description"]
    actions = {(x.keyword, x.action) for x in app.functions[0].losses}
    assert ("required", "rewritten") in actions and ("format", "described") in actions


def test_strict_formats_are_the_documented_ones() -> None:
    """The strict format allow-list is OpenAI's documented list."""
    assert {"date-time", "time", "date", "duration", "email", "hostname", "ipv4", "ipv6",
            "uuid"} == OPENAI_STRICT_FORMATS


def test_strict_keeps_recursion_under_defs() -> None:
    """OpenAI strict supports recursive `$defs`; each definition is closed too."""
    source = doc({"$ref": "#/components/schemas/Folder"}, components={"Folder": FOLDER})
    (tool,) = httpllm.compile(source, "chatgpt", strict=True).tools()
    folder = tool["function"]["parameters"]["$defs"]["Folder"]
    assert folder["additionalProperties"] is False
    assert set(folder["required"]) == {"name", "children"}
    assert openai_strict.check(tool) == []


def wide(count: int) -> dict[str, Any]:
    return {"type": "object",
            "properties": {f"p{i}": {"type": "string"} for i in range(count)}}


def deep(levels: int) -> dict[str, Any]:
    node: dict[str, Any] = {"type": "string"}
    for _ in range(levels):
        node = {"type": "object", "properties": {"x": node}}
    return node


@pytest.mark.parametrize(("schema", "needle"), [
    (wide(5001), "properties (strict mode allows 5,000)"),
    (deep(11), "levels of object nesting"),
    ({"type": "string", "enum": [f"v{i}" for i in range(1001)]}, "1001 enum values"),
    ({"type": "string", "enum": ["x" * 1000 + str(i) for i in range(121)]}, "characters"),
    ({"anyOf": [{"const": "x" * 1000 + str(i)} for i in range(121)]}, "characters"),
    ({"type": "string", "enum": [f"{i:060}" for i in range(251)]},
     "properties/body: an enum of 251 strings has 15060 characters"),
], ids=["properties", "nesting", "enum", "characters", "const", "large-enum"])
def test_strict_limits(schema: dict[str, Any], needle: str) -> None:
    """Each strict size limit is detected by `strict_limits`."""
    problems = strict_limits({"type": "object", "properties": {"body": schema}})
    assert any(needle in p for p in problems), problems


def test_over_a_limit_falls_back_with_a_loss() -> None:
    """A tool over a strict limit is sent non-strict, with a `fallback` loss saying why; only
    its parameters object is closed (validate refuses unknown arguments), as non-strict."""
    app = httpllm.compile(doc(deep(11)), "chatgpt", strict=True)
    function, (tool,) = app.functions[0], app.tools()
    assert not function.strict and "strict" not in tool["function"]
    (fallback,) = [x for x in function.losses if x.action == "fallback"]
    assert "nesting" in fallback.note
    assert function.parameters["additionalProperties"] is False
    assert "additionalProperties" not in str(function.parameters["properties"])


def test_description_cut_at_a_sentence_with_a_loss() -> None:
    """A description over 1,024 characters is cut at a sentence end and reported."""
    source = doc(CONSTRAINED)
    source["paths"]["/r0"]["post"]["summary"] = "A sentence here. " * 100
    function = httpllm.compile(source, "chatgpt", examples="off").functions[0]
    assert len(function.description) <= 1024 and function.description.endswith(".")
    (loss,) = function.losses
    assert (loss.keyword, loss.action) == ("description", "truncated")


# -- strict-mode gaps found by the corpus (okta, opensearch, square, prefixItems) -------------

def strict_ctx(strict: bool = True) -> RenderContext:
    return RenderContext(dialect=CHATGPT, options=Options(strict=strict), strict=strict,
                         pointer="#/components/schemas/S")


def test_foreign_keywords_are_dropped_with_a_loss() -> None:
    """Object keywords on a node typed other than object (and `items` on a non-array) are
    dropped with a loss at their pointer (okta: `{type: string, additionalProperties: true}`
    kept an untyped `true` schema in a strict tool)."""
    ctx = strict_ctx()
    node = {"type": "string", "additionalProperties": True, "required": ["a"],
            "items": {"type": "string"}}
    assert foreign_keywords(node, ctx) == {"type": "string"}
    assert [(x.pointer, x.action) for x in ctx.losses] == [
        ("#/components/schemas/S/additionalProperties", "dropped"),
        ("#/components/schemas/S/required", "dropped"),
        ("#/components/schemas/S/items", "dropped")]
    kept = {"type": ["object", "null"], "properties": {}, "additionalProperties": False}
    assert foreign_keywords(kept, ctx) is kept and len(ctx.losses) == 3


def test_foreign_additional_properties_leave_a_valid_strict_tool() -> None:
    """Compiled: the array items keep only their type and the tool passes the checker."""
    body = {"type": "object", "properties": {"tags": {
        "type": "array", "items": {"type": "string", "additionalProperties": True}}}}
    app = httpllm.compile(doc(body), "chatgpt", strict=True)
    (tool,), function = app.tools(), app.functions[0]
    assert function.strict and openai_strict.check(tool) == []
    (loss,) = [x for x in function.losses if x.keyword == "additionalProperties"]
    assert loss.pointer.endswith("/properties/tags/items/additionalProperties")
    assert loss.action == "dropped" and loss.value is True


def test_strict_limits_follow_refs_into_defs() -> None:
    """Nesting is counted through `$ref` into `$defs` (a definition counts where it is
    referred to, not under `$defs`), and the problem names the first level past 10."""
    params = {"type": "object", "properties": {"a": {"$ref": "#/$defs/D"}},
              "$defs": {"D": deep(10)}}
    (problem,) = strict_limits(params)
    assert problem.startswith("11 levels of object nesting")
    assert "level 11 at parameters#/$defs/D" + "/properties/x" * 9 in problem
    assert strict_limits({**params, "$defs": {"D": deep(9)}}) == []


def test_strict_limits_end_recursion() -> None:
    """A `$ref` back into a definition on the path adds no depth, and the walk ends."""
    node = {"type": "object", "properties": {
        "next": {"anyOf": [{"$ref": "#/$defs/Node"}, {"type": "null"}]},
        "root": {"$ref": "#"}}}
    assert strict_limits({"type": "object", "properties": {"n": {"$ref": "#/$defs/Node"}},
                          "$defs": {"Node": node}}) == []


def test_over_the_nesting_limit_through_a_ref_falls_back() -> None:
    """A recursive schema kept under `$defs` whose own nesting passes the limit sends the
    tool non-strict, with a fallback loss naming the place."""
    folder = {"type": "object", "properties": {
        "deep": deep(9), "children": {"type": "array",
                                      "items": {"$ref": "#/components/schemas/Folder"}}}}
    source = doc({"$ref": "#/components/schemas/Folder"}, components={"Folder": folder})
    function = httpllm.compile(source, "chatgpt", strict=True).functions[0]
    assert "$defs" in function.parameters and not function.strict
    (fallback,) = [x for x in function.losses if x.action == "fallback"]
    assert "levels of object nesting" in fallback.note and "$defs/Folder" in fallback.note


def test_strict_limits_count_shared_nodes_per_occurrence() -> None:
    """A node shared by several parents counts at each, as in the sent JSON (square:
    shared enums), and the count stays linear: 2**40 occurrences are counted at once."""
    enum = {"type": "string", "enum": [f"v{i}" for i in range(600)]}
    params = {"type": "object", "properties": {"a": enum, "b": enum}}
    assert strict_limits(params) == ["1200 enum values (strict mode allows 1,000)"]
    node: dict[str, Any] = {"type": "string", "enum": ["x"]}
    for _ in range(40):
        node = {"anyOf": [node, node]}
    assert f"{2 ** 40} enum values" in strict_limits({"type": "object",
                                                     "properties": {"n": node}})[0]


def test_strict_limits_memo_shared_by_functions_gives_the_same_answers() -> None:
    """With one `memo` for every function of a compile (as the renderer passes it), each
    answer is the one a fresh walk gives: shared subtrees with large enums, nesting,
    `$ref`s into `$defs` and the order of the problems included."""
    big = {"type": "string", "enum": ["x" * 70 + str(i) for i in range(300)]}
    deep: dict[str, Any] = {"type": "object", "properties": {"leaf": big}}
    for i in range(11):
        deep = {"type": "object", "properties": {f"l{i}": deep, "e": big}}
    shared = {"type": "object", "properties": {"a": big, "b": {"type": "array", "items": big}}}
    rec = {"type": "object", "properties": {"next": {"$ref": "#/$defs/R"}, "s": shared}}
    functions = [
        {"type": "object", "properties": {"x": shared, "y": big}},
        {"type": "object", "properties": {"deep": deep, "z": shared}},
        {"type": "object", "properties": {"r": {"$ref": "#/$defs/R"}, "s": shared},
         "$defs": {"R": rec}},
        {"type": "object", "properties": {"x": shared, "deep": deep}},
        {"type": "object", "properties": {"s": {"anyOf": [shared, {"type": "null"}]}}},
    ]
    memo: dict[int, Any] = {}
    for params in [*functions, *functions]:
        assert strict_limits(params, memo) == strict_limits(params)
    assert any("an enum of 300 strings" in p for p in strict_limits(functions[0], memo))
    assert any("levels of object nesting" in p for p in strict_limits(functions[1], memo))


def test_strict_limits_of_a_root_over_measured_arguments() -> None:
    """A parameters object whose arguments earlier functions measured is summed from their
    totals without a walk: the same answers as a fresh walk, the nesting message with its
    deepest path included."""
    deep: dict[str, Any] = {"type": "object", "properties": {"leaf": {"type": "string"}}}
    for i in range(10):
        deep = {"type": "object", "properties": {f"l{i}": deep}}
    many = {"type": "object", "properties": {f"p{i}": {"type": "integer"} for i in range(3000)}}
    enum = {"type": "string", "enum": [f"v{i}" for i in range(600)]}
    first = [{"type": "object", "properties": {"a": arg}} for arg in (deep, many, enum)]
    later = [
        {"type": "object", "properties": {"d": deep, "e": enum}, "required": ["d"]},
        {"type": "object", "properties": {"m": many, "n": many, "e": enum, "g": enum}},
        {"type": "object", "properties": {"e": enum, "f": {"type": "string", "enum": ["x"]}}},
    ]
    memo: dict[int, Any] = {}
    for params in [*first, *later]:
        assert strict_limits(params, memo) == strict_limits(params)
    assert any("12 levels of object nesting" in p and "/d/properties/l9" in p
               for p in strict_limits(later[0], memo))
    assert any("6004 properties" in p for p in strict_limits(later[1], memo))
    assert any("1200 enum values" in p for p in strict_limits(later[1], memo))


def test_strict_limits_count_defs_once() -> None:
    """Definitions count once however often they are referred to."""
    enum = {"type": "string", "enum": [f"v{i}" for i in range(600)]}
    params = {"type": "object", "$defs": {"E": enum},
              "properties": {"a": {"$ref": "#/$defs/E"}, "b": {"$ref": "#/$defs/E"}}}
    assert strict_limits(params) == []


def test_tuple_items() -> None:
    """Strict: `prefixItems` becomes `items`, the union of the members (and of `items`);
    a closed tuple gets `maxItems`; the order goes into the description; each rewrite is
    reported at its pointer."""
    ctx = strict_ctx()
    string, number = {"type": "string"}, {"type": "number"}
    assert tuple_items({"type": "array", "prefixItems": [string, number, string]}, ctx) == {
        "type": "array", "items": {"anyOf": [string, number]},
        "description": "In order: string, number, string."}
    assert tuple_items({"type": "array", "prefixItems": [string], "items": number}, ctx) == {
        "type": "array", "items": {"anyOf": [string, number]}, "description": "In order: string."}
    assert tuple_items({"type": "array", "prefixItems": [string, number], "items": False,
                        "description": "A point."}, ctx) == {
        "type": "array", "items": {"anyOf": [string, number]}, "maxItems": 2,
        "description": "A point.\nIn order: string, number."}
    assert [(x.pointer, x.action) for x in ctx.losses] == [
        ("#/components/schemas/S/prefixItems", "rewritten")] * 3
    assert "at most 2" in ctx.losses[-1].note


def test_tuple_items_only_in_strict_mode() -> None:
    """Non-strict tools keep `prefixItems`; a tuple of boolean schemas has no strict form."""
    node = {"type": "array", "prefixItems": [{"type": "string"}]}
    assert tuple_items(node, strict_ctx(strict=False)) is node
    ctx = strict_ctx()
    assert tuple_items({"type": "array", "prefixItems": [True]}, ctx)["prefixItems"] == [True]
    assert ctx.problems and not ctx.losses


def test_prefix_items_only_array_is_strict() -> None:
    """Compiled: a `prefixItems`-only array is a valid strict array with a loss entry."""
    body = {"type": "object", "properties": {"pair": {
        "type": "array", "prefixItems": [{"type": "string"}, {"type": "number"}],
        "maxItems": 2}}}
    app = httpllm.compile(doc(body), "chatgpt", strict=True)
    (tool,), function = app.tools(), app.functions[0]
    assert function.strict and openai_strict.check(tool) == []
    pair = function.parameters["properties"]["body"]["properties"]["pair"]["anyOf"][0]
    assert pair == {"type": "array", "maxItems": 2,
                    "items": {"anyOf": [{"type": "string"}, {"type": "number"}]}}
    (loss,) = [x for x in function.losses if x.keyword == "prefixItems"]
    assert loss.pointer.endswith("/properties/pair/prefixItems")
    plain = httpllm.compile(doc(body), "chatgpt").functions[0]
    assert "prefixItems" in plain.parameters["properties"]["body"]["properties"]["pair"]


BOOLEANS = {"type": "object", "required": ["pair"], "properties": {
    "any": True, "never": False,
    "pair": {"type": "array", "prefixItems": [{"type": "string"}, {"type": "integer"}],
             "items": False}}}


@pytest.mark.parametrize("provider", ["chatgpt", "deepseek", "claude", "bedrock"])
def test_strict_boolean_subschemas_and_tuples(provider: str) -> None:
    """Strict: a boolean subschema has no strict form ("schema must have a 'type' key"):
    `true` is any value as JSON text (a loss), a `false` property is removed; a tuple
    is the union of its members with `maxItems` (DeepSeek and Claude left `{"type":
    "array"}` or `items: false`, an array that must be empty). The call goes back as the
    document has it."""
    from checkers import BY_DIALECT, anthropic, bedrock

    app = httpllm.compile(doc(BOOLEANS), provider, strict=True)
    (tool,), function = app.tools(), app.functions[0]
    assert function.strict
    body = function.parameters["properties"]["body"]
    assert not any(isinstance(v, bool) for v in body["properties"].values())
    assert "never" not in body["properties"]
    assert {(x.keyword, x.action, x.note.split(" (")[0]) for x in function.losses} >= {
        ("properties", "rewritten", "boolean subschema"), ("prefixItems", "rewritten",
        "a tuple: items of any member type, in any order")}
    check = {"chatgpt": BY_DIALECT["chatgpt-strict"], "deepseek": (openai_strict.check,),
             "claude": (anthropic.check,), "bedrock": (bedrock.check,)}[provider]
    target = {"tools": [tool]} if provider == "bedrock" else tool
    assert [p for c in check for p in c(target)] == []
    call = {"body": {"any": '{"a": [1]}', "pair": ["x", 2]}}
    result = app.validate(function.name, call)
    assert result.ok, result.feedback()
    assert result.arguments == {"body": {"any": {"a": [1]}, "pair": ["x", 2]}}


MAP_KEYWORDS = {"type": "object", "required": ["m", "pick"], "properties": {
    "m": {"type": "object", "additionalProperties": {"type": "string"},
          "minProperties": 1, "maxProperties": 4, "propertyNames": {"maxLength": 5},
          "patternProperties": {"^x-": {"type": "string"}}, "default": {"a": "b"}},
    "pick": {"enum": [[1, 2], [3, 4]]},
    "shape": {"const": {"x": 1}, "description": "The only shape."}}}


@pytest.mark.parametrize("provider", ["chatgpt", "deepseek", "claude", "mistral"])
def test_strict_map_keywords_and_structured_constants_are_reported(provider: str) -> None:
    """Strict: a map given as entries reports each keyword of the map it does not keep
    (Mistral's strict mode dropped `minProperties`, `propertyNames`, `patternProperties`,
    `default` without a loss). An `enum`/`const` of arrays or objects is JSON text with
    the values described (it was typed `object`, a map: `[3, 4]` could not be sent and
    the values were lost without a loss); the call goes back as the document has it."""
    app = httpllm.compile(doc(MAP_KEYWORDS), provider, strict=True)
    function = app.functions[0]
    assert function.strict
    lost = {x.pointer.rsplit("/", 1)[-1] for x in function.losses}
    assert lost >= {"minProperties", "maxProperties", "propertyNames", "patternProperties",
                    "default", "enum", "const"}
    props = function.parameters["properties"]["body"]["properties"]
    pick = props["pick"]
    assert pick["type"] == "string" and "@enum [[1, 2], [3, 4]]" in pick["description"]
    shape = json.dumps(props["shape"])
    # DeepSeek's strict subset has no const: a one-value enum, described as every object
    # enum is (dialects.openai_compatible._strict_const)
    said = '@enum [{\\"x\\": 1}]' if provider == "deepseek" else "@const"
    assert "The only shape." in shape and said in shape
    call = {"body": {"m": [{"key": "a", "value": "b"}], "pick": "[3, 4]",
                     "shape": '{"x": 1}'}}
    result = app.validate(function.name, call)
    assert result.ok, result.feedback()
    assert result.arguments == {"body": {"m": {"a": "b"}, "pick": [3, 4], "shape": {"x": 1}}}


def test_strict_limits_count_a_node_shared_with_a_definition() -> None:
    """A node inside a definition that is also used outside it (and refers back to the
    definition) counts at both places, whichever the walk meets first."""
    shared = {"type": "object", "properties": {
        "d": {"$ref": "#/$defs/D"}, "e": {"type": "string", "enum": [f"v{i}" for i in range(400)]}}}
    params = {"type": "object", "properties": {"c": shared},
              "$defs": {"D": {"type": "object", "properties": {"c": shared}}}}
    assert strict_limits(params) == []
    params["properties"]["more"] = {"type": "string", "enum": [f"w{i}" for i in range(201)]}
    assert strict_limits(params) == ["1001 enum values (strict mode allows 1,000)"]
