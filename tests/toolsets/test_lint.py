"""Lint rules: each finds its problem, with the operation's pointer and its severity."""

from __future__ import annotations

from collections import Counter
from typing import Any

import pytest

import httpllm
from httpllm.toolsets import lint as lint_module
from httpllm.toolsets.budget import strict_eligibility
from httpllm.toolsets.lint import MAX_ARGUMENTS, RULES, Finding, lint
from httpllm.walk import nodes

from ._specs import PETSTORE, deep, document, many, operation


def _problems() -> dict[str, Any]:
    text = "Returns the widgets of a store, newest first, with their prices."
    return document({
        "/bare": {"get": operation("bare", summary="")},
        "/long": {"get": operation("long", description="word " * 300)},
        "/hashed": {"get": operation("list" + "VeryLongOperationName" * 4)},
        "/unreadable": {"get": operation("{{{{{{get}}}}}}")},
        "/pinyin": {"get": operation("获取用户列表")},
        "/dup1": {"get": operation("dup1", summary="", description=text)},
        "/dup2": {"get": operation("dup2", summary="", description=text)},
        "/near1": {"get": operation("near1", summary="", description="Delete the widget.")},
        "/near2": {"get": operation("near2", summary="", description="the widget: DELETE")},
        "/wide": {"get": operation("wide", parameters=MAX_ARGUMENTS + 1)},
        "/anon/{id}": {"get": {"parameters": [{"name": "id", "in": "path", "required": True,
                                                "schema": {"type": "string"}}],
                               "summary": "No id", "responses": {"200": {"description": "ok"}}}},
        "/deep": {"post": operation("deepOne", body=deep(12))},
        "/nullable": {"post": operation("nullable", body={
            "type": "object", "properties": {"a": {"type": ["string", "null"]}}})},
        "/broken": {"get": operation("broken", body=None) | {
            "parameters": [{"name": "q", "in": "query", "schema": {"$ref": "#/nowhere"}}]}},
    })


def _by_rule(findings: list[Finding]) -> dict[str, list[str | None]]:
    out: dict[str, list[str | None]] = {}
    for f in findings:
        out.setdefault(f.rule, []).append(f.function)
    return out


def test_each_rule_finds_its_problem() -> None:
    """Every rule but the budget ones fires on the operation built to trigger it."""
    spec = _problems()
    app = httpllm.compile(spec, "chatgpt")
    found = _by_rule(lint(app, strict=strict_eligibility(
        httpllm.compile(spec, "chatgpt", strict=True))))
    assert found["no-description"] == ["bare"]
    assert found["description-cut"] == ["long"]
    assert found["name-hashed"] == [app.functions[2].name]
    assert found["name-unrecognizable"] == [app.functions[3].name]
    assert found["duplicate-description"] == ["dup1", "dup2"]
    assert found["near-duplicate-description"] == ["near1", "near2"]
    assert found["too-many-parameters"] == ["wide"]
    assert found["no-operation-id"] == ["get__anon_by_id"]
    assert found["strict-fallback"] == ["deepOne"]
    assert found["compile-error"] == [None]
    assert "tools-over-limit" not in found


def test_names_are_measured_and_read_as_transliterated() -> None:
    """An operationId outside ASCII is read as its name is made, transliterated: `获取用户列表`
    is the name `HuoQuYongHuLieBiao`, no unrecognizable one, and `列出` * 20 (40
    characters, 120 transliterated) is cut and hashed, which `name-hashed` missed."""
    app = httpllm.compile(document({
        "/pinyin": {"get": operation("获取用户列表")},
        "/long": {"get": operation("列出" * 20)},
        "/cafe": {"get": operation("getCafé")}}), "chatgpt")
    assert [f.name for f in app.functions][:1] == ["HuoQuYongHuLieBiao"]
    found = {f.rule: f for f in lint(app) if f.rule.startswith("name-")}
    assert set(found) == {"name-hashed"}
    assert found["name-hashed"].function == app.functions[1].name
    assert found["name-hashed"].message.startswith(
        "operationId of 120 characters transliterated '列出列出")


def test_findings_carry_the_operation_pointer_and_severity() -> None:
    """A finding names the operation's pointer; the severity is its rule's."""
    app = httpllm.compile(_problems(), "chatgpt")
    severity = {rule.name: rule.severity for rule in RULES}
    findings = lint(app)
    bare = next(f for f in findings if f.rule == "no-description")
    assert bare.pointer == "#/paths/~1bare/get"
    cut = next(f for f in findings if f.rule == "description-cut")
    assert cut.pointer == "#/paths/~1long/get/description" and "1,024" in cut.message
    assert all(f.severity == severity[f.rule] for f in findings)
    assert {f.rule for f in findings if f.severity == "error"} == {"compile-error"}


def test_unions_a_provider_flattens() -> None:
    """Ollama drops a null union member (reported); Gemini's nullable flag is no loss."""
    spec = _problems()
    ollama = _by_rule(lint(httpllm.compile(spec, "ollama")))
    assert ollama["union-flattened"] == ["nullable"]
    gemini = _by_rule(lint(httpllm.compile(spec, "gemini")))
    assert "union-flattened" not in gemini


def _enums() -> dict[str, Any]:
    def body(**props: Any) -> dict[str, Any]:
        return {"type": "object", "properties": props}

    return document({
        "/const": {"post": operation("constOut", body=body(
            a={"const": "c", "enum": ["a", "b"]}, b={"const": True, "enum": [1]}))},
        "/typed": {"post": operation("typedOut", body=body(
            n={"type": "integer", "enum": ["a"]}, k={"type": "integer", "const": "k"}))},
        "/empty": {"post": operation("emptyEnum", body=body(e={"enum": []}))},
        "/some": {"post": operation("someOff", body=body(
            n={"type": "integer", "enum": [1, "two", True, 3.0]},
            x={"type": ["integer", "null"], "enum": [1, None]},
            f={"type": "number", "enum": [1, 2.5]}, t={"const": 1, "enum": [1.0, 2]}))},
    })


def test_enums_no_value_can_meet() -> None:
    """A const outside its enum (as JSON values: true is not 1) or of another type, an
    enum none of whose values is of the schema's type, an empty enum: one
    `enum-unsatisfiable` warning per operation, naming the first place and counting the
    others (lint had no finding: the tool offered the enum or the values, validate
    refused every call)."""
    findings = [f for f in lint(httpllm.compile(_enums(), "chatgpt"))
                if f.rule == "enum-unsatisfiable"]
    assert [(f.function, f.pointer, f.severity) for f in findings] == [
        ("constOut", "#/paths/~1const/post", "warning"),
        ("typedOut", "#/paths/~1typed/post", "warning"),
        ("emptyEnum", "#/paths/~1empty/post", "warning")]
    where = "parameters#/properties/body/properties"
    assert [f.message for f in findings] == [
        f'{where}/a: const "c" is not in its enum ["a","b"]: no value can be given there '
        "(validate refuses each) (and 1 more)",
        f'{where}/n: no value of its enum ["a"] is integer: no value can be given there '
        "(validate refuses each) (and 1 more)",
        f"{where}/e: an empty enum (not: {{}}): no value can be given there (validate "
        "refuses each)"]


def test_enum_values_outside_the_type() -> None:
    """An enum some of whose values are not of the schema's type (true is no integer, 3.0
    is one) is an `enum-type-mismatch` warning naming them; values of a type list, a
    number's integers and a const among JSON-equal enum values are fine."""
    findings = [f for f in lint(httpllm.compile(_enums(), "chatgpt"))
                if f.rule == "enum-type-mismatch"]
    assert [(f.function, f.pointer, f.severity) for f in findings] == [
        ("someOff", "#/paths/~1some/post", "warning")]
    assert findings[0].message == (
        'parameters#/properties/body/properties/n: enum values ["two",true] are not '
        "integer: the model may be offered them, validate refuses them")


def test_both_enum_rules_walk_each_schema_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """`enum-unsatisfiable` and `enum-type-mismatch` share one walk of each function's
    schema (they walked it once each), and find what each found alone."""
    app = httpllm.compile(_enums(), "chatgpt")
    enum_rules = [r for r in RULES if r.name.startswith("enum-")]
    alone = [f for rule in enum_rules for f in lint(app, rules=[rule])]
    walked: list[int] = []

    def counted(schema: Any, pointer: str) -> Any:
        walked.append(id(schema))
        return nodes(schema, pointer)

    monkeypatch.setattr(lint_module, "nodes", counted)
    together = lint(app, rules=enum_rules)
    assert together == alone
    assert sorted(walked) == sorted(id(f.schema) for f in app.functions)


def test_tool_lists_over_the_limit_or_budget_are_errors() -> None:
    """130 tools pass chatgpt's 128; --max-tools and --max-tokens are the caller's errors."""
    app = httpllm.compile(many(130), "chatgpt")
    rules = Counter(f.rule for f in lint(app, max_tools=100, max_tokens=100)
                    if f.severity == "error")
    assert rules == {"tools-over-limit": 1, "tools-over-budget": 2}
    assert not [f for f in lint(httpllm.compile(many(5), "chatgpt"), max_tools=5)
                if f.severity == "error"]


def test_a_clean_document_has_no_warnings() -> None:
    """The petstore example has nothing worse than info."""
    findings = httpllm.compile(PETSTORE, "chatgpt").lint()
    assert [f for f in findings if f.severity != "info"] == []


def _keys() -> dict[str, Any]:
    body = {"type": "object", "properties": {
        "fine": {"type": "string"},
        "nested": {"type": "object", "properties": {"@type": {"type": "string"}}},
        "tags": {"type": "array", "items": {"type": "object", "properties": {
            "key name": {"type": "string"}}}}}}
    spec = document({"/keys": {"post": operation("keys", body=body)},
                     "/plain": {"get": operation("plain", parameters=1)}})
    spec["paths"]["/keys"]["post"]["parameters"] = [
        {"name": "filter[status]", "in": "query", "schema": {"type": "string"}}]
    return spec


def test_keys_a_provider_refuses() -> None:
    """For claude each renamed argument is an info finding naming both names, and the body
    keys outside the pattern (reported unchecked by Claude) one finding per operation, each
    key with its pointer; chatgpt has no key rule."""
    findings = lint(httpllm.compile(_keys(), "claude"))
    renamed = [f for f in findings if f.rule == "argument-renamed"]
    keys = [f for f in findings if f.rule == "nested-property-key"]
    assert [(f.function, f.pointer, f.severity) for f in renamed] == [
        ("keys", "#/paths/~1keys/post", "info")]
    assert "'filter[status]'" in renamed[0].message and "'filter_status'" in renamed[0].message
    assert [(f.function, f.pointer, f.severity) for f in keys] == [
        ("keys", "#/paths/~1keys/post", "info")]
    message = keys[0].message
    assert "'@type' (parameters#/properties/body/properties/nested/properties/@type)" in message
    assert "'key name' (parameters#/properties/body/properties/tags/items/properties/key name)" \
        in message
    assert "^[a-zA-Z0-9_.-]{1,64}$" in message
    chatgpt = lint(httpllm.compile(_keys(), "chatgpt"))
    assert not [f for f in chatgpt if f.rule in ("argument-renamed", "nested-property-key")]


def test_a_tool_past_a_tenth_of_a_context_window_is_a_finding() -> None:
    """A tool of 64 kB (a description claude keeps whole) is over 12,800 tokens however they
    are counted: a default `tool-too-large` warning naming the fixes; one of 12 kB is not
    (it cannot hold 12,800 tokens of at least a byte each)."""
    from httpllm.toolsets.lint import TOOL_TOKENS

    words = " ".join(f"part{i}" for i in range(8000))  # about 64 kB
    spec = document({"/big": {"post": operation("bigOne", description=words)},
                     "/small": {"post": operation("smallOne", description=words[:12_000])}})
    found = [f for f in lint(httpllm.compile(spec, "claude")) if f.rule == "tool-too-large"]
    assert [(f.function, f.pointer, f.severity) for f in found] == [
        ("bigOne", "#/paths/~1big/post", "warning")]
    assert f"over {TOOL_TOKENS:,} (a tenth of a 128k-token context window)" in found[0].message
    assert "--mode discover" in found[0].message and "--exclude" in found[0].message


def test_generated_descriptions_are_not_near_duplicates() -> None:
    """Operations without summary or description are described "GET /a", "GET /b" by
    compile: that text is not the author's, so it is no (near-)duplicate of anything; an
    author's own near-duplicate beside them is still found."""
    spec = document({
        "/a": {"get": operation("getA", summary="")},
        "/b": {"get": operation("getB", summary="")},
        "/x": {"get": operation("x", summary="", description="Lists the GET items.")},
        "/y": {"get": operation("y", summary="", description="items: lists the get")},
    })
    app = httpllm.compile(spec, "chatgpt")
    assert [f.description for f in app.functions[:2]] == ["GET /a", "GET /b"]
    found = _by_rule(lint(app))
    assert found["no-description"] == ["getA", "getB"]
    assert found["near-duplicate-description"] == ["x", "y"]
    assert "duplicate-description" not in found
