"""The `claude` dialect: Messages API tools, the strict subset, its budgets, the corpus."""

from __future__ import annotations

import pytest
from checkers import anthropic as anthropic_checker
from sweep import assert_clean
from toolkit import CONSTRAINED, FOLDER, SDK_KEPT, doc, strict_problems

import httpllm
from httpllm.dialects.anthropic import (
    CLAUDE_STRICT_FORMATS,
    CLAUDE_STRICT_KEYWORDS,
    OPTIONAL_MAX,
    STRICT_TOOLS_MAX,
    strict_budget,
)


def test_strict_subset_is_the_sdks() -> None:
    """The strict keywords and formats are exactly those the SDK's `transform_schema` keeps."""
    from anthropic.lib._parse._transform import SupportedStringFormats

    assert CLAUDE_STRICT_KEYWORDS == SDK_KEPT
    assert set(SupportedStringFormats) == CLAUDE_STRICT_FORMATS


def test_envelope_and_sdk_models() -> None:
    """A tool is `{name, description, input_schema}` with a `type: object` root, SDK-valid."""
    (tool,) = httpllm.compile(doc(CONSTRAINED), "claude").tools()
    assert list(tool) == ["name", "description", "input_schema"]
    assert tool["input_schema"]["type"] == "object"
    assert anthropic_checker.check(tool) == []


def test_alias_anthropic() -> None:
    """`anthropic` is an alias of `claude`."""
    assert httpllm.compile(doc(CONSTRAINED), "anthropic").provider == "claude"


def test_non_strict_keeps_every_constraint() -> None:
    """Non-strict tools keep the emended schema's keywords as written, with no loss."""
    function = httpllm.compile(doc(CONSTRAINED), "claude").functions[0]
    body = function.parameters["properties"]["body"]
    assert body["properties"]["name"] == CONSTRAINED["properties"]["name"]
    assert body["properties"]["labels"]["additionalProperties"] == {"type": "string"}
    assert function.losses == () and function.strict is False


def test_strict_subset() -> None:
    """Strict: closed objects, `required` kept, unsupported values described (SDK-equal)."""
    app = httpllm.compile(doc(CONSTRAINED), "claude", strict=True)
    function, (tool,) = app.functions[0], app.tools()
    assert function.strict and tool["strict"] is True
    assert strict_problems(tool) == []
    body = tool["input_schema"]["properties"]["body"]
    props = body["properties"]
    assert body["required"] == ["name"] and body["additionalProperties"] is False
    assert props["name"] == {"type": "string", "description":
                             "@minLength 1\n@maxLength 30\n@pattern ^[a-z]+$"}
    assert "minItems" not in props["tags"] and props["one"]["minItems"] == 1
    assert props["site"]["format"] == "uri" and "format" not in props["sku"]
    assert props["labels"]["type"] == "array"  # a map, as {key, value} entries
    described = {x.keyword for x in function.losses if x.action == "described"}
    assert described == {"minLength", "maxLength", "pattern", "minimum", "maximum",
                         "multipleOf", "default", "minItems", "maxItems", "format"}


def test_strict_recursion_falls_back_or_unrolls() -> None:
    """Recursive schemas leave strict mode with a loss naming them, or unroll with `unroll`."""
    source = doc({"$ref": "#/components/schemas/Folder"}, components={"Folder": FOLDER})
    function = httpllm.compile(source, "claude", strict=True).functions[0]
    assert not function.strict
    (fallback,) = [x for x in function.losses if x.action == "fallback"]
    assert "Folder" in fallback.note and "unroll" in fallback.note
    app = httpllm.compile(source, "claude", strict=True, unroll=2)
    (tool,) = app.tools()
    assert tool["strict"] is True and "$defs" not in tool["input_schema"]
    assert strict_problems(tool) == []
    assert {x.action for x in app.functions[0].losses} >= {"unrolled", "cut"}


def test_unrolling_past_the_strict_budget_falls_back_at_once() -> None:
    """A recursive schema whose unrolling cannot fit Claude's strict budget (24 optional
    properties) leaves strict mode with the reason, the unrolling stopped at the first part
    past the budget (Elastic's query schemas: 62 s -> 3 s of CPU for claude strict,
    unroll=2)."""
    wide = {"type": "object", "properties": {f"p{i}": {"type": "string"} for i in range(20)}
            | {"self": {"$ref": "#/components/schemas/Wide"}}}
    source = doc({"$ref": "#/components/schemas/Wide"}, components={"Wide": wide})
    (function,) = httpllm.compile(source, "claude", strict=True, unroll=3).functions
    assert not function.strict
    (fallback,) = [x for x in function.losses if x.action == "fallback"]
    assert "unrolling 3 levels gives at least" in fallback.note
    assert "optional properties (strict mode allows 24 per request)" in fallback.note
    (small,) = httpllm.compile(doc({"$ref": "#/components/schemas/Folder"},
                                   components={"Folder": FOLDER}),
                               "claude", strict=True, unroll=3).functions
    assert small.strict  # a recursion that fits stays strict


def test_strict_allows_non_recursive_defs() -> None:
    """With `reference=True`, `$defs` that are not recursive stay and strict holds."""
    source = doc({"$ref": "#/components/schemas/Pet"},
                 components={"Pet": {"type": "object", "properties": {"n": {"type": "string"}}}})
    (tool,) = httpllm.compile(source, "claude", strict=True, reference=True).tools()
    assert tool["strict"] is True and "Pet" in tool["input_schema"]["$defs"]
    assert strict_problems(tool) == []


def test_one_tool_over_the_optional_budget_is_not_strict() -> None:
    """25 optional properties cannot fit the request's budget of 24: reported fallback."""
    params = [{"name": f"q{i}", "in": "query", "schema": {"type": "string"}} for i in range(25)]
    function = httpllm.compile(doc(CONSTRAINED, params=params), "claude",
                               strict=True).functions[0]
    assert not function.strict
    (fallback,) = [x for x in function.losses if x.action == "fallback"]
    assert "optional properties" in fallback.note


def test_unions_count_toward_their_budget() -> None:
    """Each nullable property is a union; 17 of them exceed the 16 allowed."""
    props = {f"p{i}": {"type": ["string", "null"]} for i in range(17)}
    schema = {"type": "object", "required": list(props), "properties": props}
    assert strict_budget(httpllm.compile(doc(schema), "claude").functions[0].parameters)[1] == 17
    function = httpllm.compile(doc(schema), "claude", strict=True).functions[0]
    assert not function.strict and "union" in function.losses[-1].note


def test_budget_counts_a_shared_subtree_at_each_place() -> None:
    """A subtree met twice counts twice; a memo shared by two schemas changes no count."""
    shared = {"type": "object", "properties": {"a": {"type": "string"}}}
    one = {"type": "object", "properties": {"x": shared, "y": {"anyOf": [shared, shared]}}}
    two = {"type": "object", "required": ["z"], "properties": {"z": shared}}
    assert strict_budget(one) == (2 + 3, 1) and strict_budget(two) == (1, 0)
    memo: dict[int, tuple[int, int]] = {}
    assert [strict_budget(s, memo) for s in (one, two, one)] == [(5, 1), (1, 0), (5, 1)]


def test_request_limits_are_warnings() -> None:
    """Strict tools together over 20 tools or 24 optional properties give warnings."""
    app = httpllm.compile(doc(CONSTRAINED, ops=STRICT_TOOLS_MAX + 1), "claude", strict=True)
    messages = " ".join(w.message for w in app.warnings)
    assert f"{STRICT_TOOLS_MAX + 1} strict tools" in messages
    optional = strict_budget(app.functions[0].parameters)[0] * len(app.functions)
    assert optional > OPTIONAL_MAX and f"{optional} optional properties" in messages
    assert httpllm.compile(doc(CONSTRAINED), "claude").warnings == ()


def test_strict_rejects_allof_with_ref() -> None:
    """`allOf` holding a `$ref` (unsupported in strict mode) makes the tool non-strict."""
    from httpllm.dialects import Options, RenderContext, get_dialect
    from httpllm.dialects.anthropic import _inexpressible

    ctx = RenderContext(dialect=get_dialect("claude"), options=Options(strict=True))
    node = {"allOf": [{"$ref": "#/$defs/A"}, {"type": "object"}]}
    assert _inexpressible(node, ctx) is node and ctx.problems


def test_required_only_union_members_fall_back() -> None:
    """`anyOf: [{required: [a]}, {required: [b]}]` beside properties has no strict form:
    the tool is sent non-strict (typing such members would make the object unsatisfiable)."""
    schema = {"type": "object", "properties": {"a": {"type": "string"}, "b": {"type": "string"}},
              "anyOf": [{"required": ["a"]}, {"required": ["b"]}]}
    function = httpllm.compile(doc(schema), "claude", strict=True).functions[0]
    assert not function.strict
    assert "only lists required" in function.losses[-1].note


def test_required_on_a_non_object_is_described() -> None:
    """`required` on an array (meaningless there) is described, as the SDK would."""
    schema = {"type": "array", "items": {"type": "string"}, "required": ["items"]}
    (tool,) = httpllm.compile(doc(schema), "claude", strict=True).tools()
    assert tool["strict"] is True and strict_problems(tool) == []


@pytest.mark.corpus
@pytest.mark.parametrize("mode", ["claude", "claude-strict"])
def test_corpus(mode: str) -> None:
    """Every tool of every real document passes the Anthropic checks (strict: the subset;
    a tool sent non-strict carries its fallback loss entry)."""
    assert_clean(mode)
