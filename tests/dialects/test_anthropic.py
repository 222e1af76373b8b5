"""The `claude` dialect: Messages API tools, the strict subset, its budgets, the corpus."""

from __future__ import annotations

import re
from typing import Any
from urllib.parse import parse_qsl

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
from httpllm.execute import build_request
from httpllm.walk import FoldMemo


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
    memo = FoldMemo()
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


KEY = re.compile(r"^[a-zA-Z0-9_.-]{1,64}$")
"""The property keys the Messages API takes at the top of `input_schema` (400 "Property keys
should match pattern", anthropics/claude-code#79418)."""

LONG = "the_number_of_results_to_return_on_each_page_of_the_listing_at_most_x"
ODD_NAMES = {"filter[status]": "filter_status", "$top": "top", "naïve-\U0001d501": "naive-x",
             "tag[a]": "tag_a", "limit": "limit"}
"""Query parameter names and the argument names Claude gets (the others hash)."""


def _odd_names() -> dict[str, Any]:
    names = ["filter[status]", "$top", "ペット", LONG, "tag[a]", "tag(a)", "naïve-\U0001d501",
             "limit"]
    return {"openapi": "3.1.0", "info": {"title": "t", "version": "1"},
            "servers": [{"url": "https://api.example.com"}],
            "paths": {"/pets": {"get": {
                "operationId": "listPets",
                "parameters": [{"name": n, "in": "query", "schema": {
                    "type": "integer" if n == "$top" else "string"}} for n in names],
                "responses": {"200": {"description": "ok"}}}}}}


def _renamed(function: Any) -> dict[str, str]:
    return {a.original: a.name for a in function.arguments}


@pytest.mark.parametrize("strict", [False, True])
def test_argument_names_are_keys_claude_takes(strict: bool) -> None:
    """Every top-level key matches Claude's pattern, a refused name spelled with its
    characters (with a hash where nothing or too much is left, or where two are spelled
    alike) the same on every compile, with `required` in step."""
    spec = _odd_names()
    spec["paths"]["/pets"]["get"]["parameters"][0]["required"] = True
    (function,) = httpllm.compile(spec, "claude", strict=strict).functions
    keys = list(function.parameters["properties"])
    assert all(KEY.fullmatch(k) for k in keys) and len(set(keys)) == len(keys) == 8
    names = _renamed(function)
    assert {k: names[k] for k in ODD_NAMES} == ODD_NAMES
    assert names["ペット"] == "petto"  # transliterated (compose.names); was query_<hash>
    assert re.fullmatch(r"the_number_of_results_to_return_on_each_page_of_the_lis_[0-9a-f]{8}",
                        names[LONG])
    assert re.fullmatch(r"tag_a_[0-9a-f]{8}", names["tag(a)"])
    assert keys == [a.name for a in function.arguments]
    assert "filter_status" in function.parameters["required"]
    assert function.schema["required"] == ["filter_status"]
    assert list(function.schema["properties"]) == keys
    assert anthropic_checker.check(function) == []
    assert _renamed(httpllm.compile(spec, "claude", strict=strict).functions[0]) == names


def test_each_rename_is_a_loss() -> None:
    """Each renamed argument is one `renamed` loss of its `name`, naming both spellings."""
    (function,) = httpllm.compile(_odd_names(), "claude").functions
    renamed = [loss for loss in function.losses if loss.action == "renamed"]
    names = _renamed(function)
    assert [loss.value for loss in renamed] == [n for n in names if n != "limit"]
    for loss in renamed:
        assert loss.keyword == "name" and loss.dialect == "claude"
        assert loss.pointer == f"parameters#/properties/{loss.value}"
        assert repr(loss.value) in loss.note and repr(names[loss.value]) in loss.note


def test_renamed_arguments_validate_and_go_out_under_their_names() -> None:
    """A call under the new names validates and its request carries the document's names."""
    app = httpllm.compile(_odd_names(), "claude")
    names = _renamed(app.functions[0])
    call = {names[original]: "3" if original == "$top" else f"v{i}"
            for i, original in enumerate(names)}
    call[names["$top"]] = 3
    checked = app.validate("listPets", call)
    assert checked.ok, checked.errors
    request = build_request(app.functions[0], call)
    sent = parse_qsl(request.url.query.decode(), keep_blank_values=True)
    assert [k for k, _ in sent] == list(names)
    assert dict(sent)["$top"] == "3" and dict(sent)["filter[status]"] == "v0"
    assert not app.validate("listPets", {"filter[status]": "x"}).ok


def test_a_new_name_never_takes_one_that_stays() -> None:
    """`$top` beside a parameter named `top` gets a hash; `top` keeps its name."""
    spec = _odd_names()
    spec["paths"]["/pets"]["get"]["parameters"].append(
        {"name": "top", "in": "query", "schema": {"type": "string"}})
    names = _renamed(httpllm.compile(spec, "claude").functions[0])
    assert names["top"] == "top" and re.fullmatch(r"top_[0-9a-f]{8}", names["$top"])


def test_other_providers_keep_the_documents_names() -> None:
    """chatgpt has no key rule: the arguments keep the document's names, with no loss."""
    (function,) = httpllm.compile(_odd_names(), "chatgpt").functions
    assert all(a.name == a.original for a in function.arguments)
    assert not [loss for loss in function.losses if loss.action == "renamed"]


def test_bedrock_renames_as_claude() -> None:
    """Claude through Bedrock Converse refuses the same keys: the same names."""
    claude, bedrock = (httpllm.compile(_odd_names(), p).functions[0]
                       for p in ("claude", "bedrock"))
    assert bedrock.parameters == claude.parameters
    assert all(KEY.fullmatch(k) for k in bedrock.parameters["properties"])


@pytest.mark.corpus
@pytest.mark.parametrize("mode", ["claude", "claude-strict"])
def test_corpus(mode: str) -> None:
    """Every tool of every real document passes the Anthropic checks (strict: the subset;
    a tool sent non-strict carries its fallback loss entry)."""
    assert_clean(mode)
