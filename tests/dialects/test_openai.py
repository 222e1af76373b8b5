"""The `chatgpt` dialect: Chat and Responses envelopes, strict rules and limits, fallback."""

from __future__ import annotations

from typing import Any

import pytest
from checkers import openai_envelope, openai_strict
from pydantic import TypeAdapter
from toolkit import CONSTRAINED, FOLDER, doc

import httpllm
from httpllm.dialects.openai import OPENAI_STRICT_FORMATS, strict_limits


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
], ids=["properties", "nesting", "enum", "characters"])
def test_strict_limits(schema: dict[str, Any], needle: str) -> None:
    """Each strict size limit is detected by `strict_limits`."""
    problems = strict_limits({"type": "object", "properties": {"body": schema}})
    assert any(needle in p for p in problems), problems


def test_over_a_limit_falls_back_with_a_loss() -> None:
    """A tool over a strict limit is sent non-strict, with a `fallback` loss saying why."""
    app = httpllm.compile(doc(deep(11)), "chatgpt", strict=True)
    function, (tool,) = app.functions[0], app.tools()
    assert not function.strict and "strict" not in tool["function"]
    (fallback,) = [x for x in function.losses if x.action == "fallback"]
    assert "nesting" in fallback.note
    assert "additionalProperties" not in str(function.parameters)


def test_description_cut_at_a_sentence_with_a_loss() -> None:
    """A description over 1,024 characters is cut at a sentence end and reported."""
    source = doc(CONSTRAINED)
    source["paths"]["/r0"]["post"]["summary"] = "A sentence here. " * 100
    function = httpllm.compile(source, "chatgpt", examples="off").functions[0]
    assert len(function.description) <= 1024 and function.description.endswith(".")
    (loss,) = function.losses
    assert (loss.keyword, loss.action) == ("description", "truncated")
