"""The budget report: tokens, arguments, depth, strict eligibility, totals against limits."""

from __future__ import annotations

import json

import httpllm
from httpllm.toolsets.budget import budget, depth, properties, strict_eligibility
from httpllm.toolsets.tokens import count_tool, get_tokenizer

from ._specs import PETSTORE, deep, document, many, operation


def test_each_tool_has_its_tokens_arguments_and_depth() -> None:
    """Each line counts the tool as sent, its arguments and its object/array levels."""
    app = httpllm.compile(PETSTORE, "chatgpt")
    report = budget(app)
    counter = get_tokenizer("o200k_base")
    tools = {t["function"]["name"]: t for t in app.tools()}
    for line in report.tools:
        assert line.tokens == count_tool(tools[line.name], counter)
        assert line.parameters == len(app.function(line.name).parameters["properties"])
    assert report.total_tokens == counter.count(
        json.dumps(app.tools(), separators=(",", ":"), ensure_ascii=False))
    assert sum(t.tokens for t in report.tools) <= report.total_tokens + len(report.tools)
    assert (report.tokenizer, report.exact) == ("o200k_base", True)


def test_depth_counts_object_and_array_levels() -> None:
    """depth counts nested objects and arrays, whatever the case of the type name."""
    assert depth({"type": "object", "properties": {}}) == 1
    assert depth(deep(4)) == 4
    assert depth({"type": "OBJECT", "properties": {"a": {"type": "ARRAY",
                                                         "items": {"type": "STRING"}}}}) == 2
    assert depth({"$ref": "#/$defs/A"}) == 0


def test_properties_count_a_shared_subtree_once_per_place() -> None:
    """properties sums every properties entry; a subtree used twice counts twice."""
    shared = {"type": "object", "properties": {"a": {}, "b": {}}}
    root = {"type": "object", "properties": {"x": shared, "y": shared}}
    assert properties(root) == 6
    assert properties({"type": "string"}) == 0


def test_strict_eligibility_names_the_reason() -> None:
    """A tool too deep for OpenAI strict mode is not eligible, with the limit as the reason."""
    spec = document({"/deep": {"post": operation("deepOne", body=deep(12))},
                     "/flat": {"get": operation("flat", parameters=1)}})
    strict = strict_eligibility(httpllm.compile(spec, "chatgpt", strict=True))
    assert strict["flat"] == (True, "")
    eligible, reason = strict["deepOne"]
    assert eligible is False and "nest" in reason
    report = budget(httpllm.compile(spec, "chatgpt"), strict=strict)
    assert [(t.name, t.strict) for t in report.tools] == [("deepOne", False), ("flat", True)]


def test_strict_is_not_checked_without_a_strict_compile() -> None:
    """Without a strict compile the report says strict eligibility was not checked."""
    report = budget(httpllm.compile(PETSTORE, "chatgpt"))
    assert all(t.strict is None and "not checked" in t.reason for t in report.tools)
    gemini = budget(httpllm.compile(PETSTORE, "gemini"))
    assert all(t.strict is None and "no strict mode" in t.reason for t in gemini.tools)


def test_totals_are_measured_against_the_dialect_limits() -> None:
    """130 tools pass OpenAI's 128 per request, with the limit's source."""
    report = budget(httpllm.compile(many(130), "chatgpt"), max_tools=200, max_tokens=10)
    limits = {limit.name: limit for limit in report.limits}
    tools = limits["tools per request"]
    assert (tools.value, tools.limit, tools.over) == (130, 128, True)
    assert "vscode#259392" in tools.source
    assert not limits["tools (--max-tools)"].over
    assert limits["most properties in one tool (strict)"].limit == 5000
    assert limits["tokens (--max-tokens)"].over
    assert json.loads(json.dumps(report.to_json()))["limits"][0]["over"] is True


def test_a_provider_without_a_documented_limit_says_so() -> None:
    """MCP documents no tool limit: the limit is None and never over."""
    report = budget(httpllm.compile(many(130), "mcp"))
    tools = next(limit for limit in report.limits if limit.name == "tools per request")
    assert tools.limit is None and not tools.over


def test_application_budget_is_the_same_report() -> None:
    """app.budget() is budget(app)."""
    app = httpllm.compile(PETSTORE, "claude")
    assert app.budget() == budget(app)


def test_names_shortened_with_a_hash_are_counted_as_transliterated() -> None:
    """`列出` * 20 is 40 characters but 120 once transliterated (names are made from the
    transliteration, `compose.names`): its name is cut and hashed, and the note counts
    it (it counted the 40 characters and said nothing)."""
    app = httpllm.compile(document({"/long": {"get": operation("列出" * 20)},
                                    "/short": {"get": operation("获取")}}), "chatgpt")
    (names,) = [x for x in budget(app).limits if x.name == "longest name (characters)"]
    assert names.value == 64
    assert names.note == "1 longer operationId shortened with a hash"
