"""The `llama`, `qwen` and `deepseek` dialects: OpenAI-compatible servers, xgrammar, corpus."""

from __future__ import annotations

import functools
from typing import Any

import pytest
from checkers import openai_envelope, openai_strict
from checkers._schema import iter_schemas
from toolkit import CONSTRAINED, FOLDER, doc, run

import httpllm
from httpllm.dialects.openai_compatible import DEEPSEEK_STRICT_KEYWORDS, XGRAMMAR_FORMATS

compatible = functools.partial(openai_envelope.check, description_max=None)

XGRAMMAR_HARD = {
    "type": "object",
    "properties": {
        "step": {"type": "number", "multipleOf": 0.5},
        "ids": {"type": "array", "items": {"type": "integer", "format": "int64"},
                "uniqueItems": True},
        "code": {"type": "string", "pattern": "^[A-Z]+$", "maxLength": 8},
        "short": {"type": "string", "maxLength": 8},
        "file": {"type": "string", "format": "binary"},
        "home": {"type": "string", "format": "uri"},
        "env": {"type": "object", "patternProperties": {"^[A-Z]+$": {"type": "string"}},
                "propertyNames": {"pattern": "^[A-Z]+$"}},
    },
}


def unsupported_by_xgrammar(schema: Any) -> list[str]:
    """vLLM's `has_xgrammar_unsupported_json_features`, restated (vllm is too heavy here)."""
    out = []
    for pointer, node in iter_schemas(schema):
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


@pytest.mark.parametrize("provider", ["llama", "qwen", "deepseek"])
def test_chat_envelope_without_openai_limits(provider: str) -> None:
    """OpenAI Chat tools, SDK-valid; a long description is not cut at 1,024 characters."""
    source = doc(CONSTRAINED)
    source["paths"]["/r0"]["post"]["summary"] = "Long. " * 400
    app = httpllm.compile(source, provider)
    (tool,) = app.tools()
    assert tool["type"] == "function" and "strict" not in tool["function"]
    assert len(tool["function"]["description"]) > 2000
    assert compatible(tool) == [] and app.losses == ()


def test_aliases_and_identical_rules() -> None:
    """`vllm` and `openai-compatible` name llama; qwen and llama render alike."""
    assert httpllm.compile(doc(CONSTRAINED), "vllm").provider == "llama"
    assert httpllm.compile(doc(CONSTRAINED), "openai-compatible").provider == "llama"
    llama = httpllm.compile(doc(XGRAMMAR_HARD), "llama", strict=True).functions[0]
    qwen = httpllm.compile(doc(XGRAMMAR_HARD), "qwen", strict=True).functions[0]
    assert llama.parameters == qwen.parameters


def test_non_strict_keeps_every_keyword() -> None:
    """Without strict the model sees the schema as written (no grammar is built)."""
    function = httpllm.compile(doc(XGRAMMAR_HARD), "llama").functions[0]
    assert function.parameters["properties"]["body"] == XGRAMMAR_HARD
    assert function.losses == ()


def test_strict_moves_what_xgrammar_cannot_enforce() -> None:
    """Strict tools are marked strict and keep only what xgrammar compiles; the rest is
    described, with a loss each."""
    app = httpllm.compile(doc(XGRAMMAR_HARD), "llama", strict=True)
    (tool,) = app.tools()
    assert tool["function"]["strict"] is True
    params = tool["function"]["parameters"]
    assert unsupported_by_xgrammar(params) == []
    props = params["properties"]["body"]["properties"]
    assert props["ids"]["items"]["format"] == "int64"  # formats on numbers are hints
    assert props["home"]["format"] == "uri" and "format" not in props["file"]
    assert props["short"]["maxLength"] == 8 and "maxLength" not in props["code"]
    assert "@patternProperties" in props["env"]["description"]
    described = sorted(x.keyword for x in app.functions[0].losses)
    assert described == ["format", "maxLength", "multipleOf", "patternProperties",
                         "propertyNames", "uniqueItems"]


def test_deepseek_strict_is_openai_style() -> None:
    """DeepSeek strict: closed objects, every property required (optional ones nullable),
    only the documented keywords."""
    app = httpllm.compile(doc(CONSTRAINED), "deepseek", strict=True)
    (tool,) = app.tools()
    assert tool["function"]["strict"] is True
    params = tool["function"]["parameters"]
    assert openai_strict.check(tool) == []
    used = {k for _, n in iter_schemas(params) if isinstance(n, dict) for k in n}
    assert used <= DEEPSEEK_STRICT_KEYWORDS
    body = params["properties"]["body"]
    assert set(body["required"]) == set(body["properties"])


def test_recursion_stays_in_defs_unless_unrolled() -> None:
    """Recursive schemas stay under `$defs`; `unroll=N` leaves no `$defs` at all."""
    source = doc({"$ref": "#/components/schemas/Folder"}, components={"Folder": FOLDER})
    (tool,) = httpllm.compile(source, "llama").tools()
    assert "Folder" in tool["function"]["parameters"]["$defs"]
    app = httpllm.compile(source, "llama", unroll=2)
    (tool,) = app.tools()
    assert "$defs" not in tool["function"]["parameters"]
    assert {x.action for x in app.functions[0].losses} == {"unrolled", "cut"}
    assert compatible(tool) == []


def test_responses_envelope() -> None:
    """`envelope="responses"` gives vLLM's Responses API shape."""
    (tool,) = httpllm.compile(doc(CONSTRAINED), "llama", envelope="responses").tools()
    assert tool["type"] == "function" and tool["strict"] is False and "parameters" in tool


@pytest.mark.corpus
@pytest.mark.parametrize(("provider", "strict"), [("llama", False), ("llama", True),
                                                  ("deepseek", True)],
                         ids=["llama", "llama-strict", "deepseek-strict"])
def test_corpus(provider: str, strict: bool) -> None:
    """Every tool passes the OpenAI SDK types; strict ones xgrammar's (and DeepSeek's) subset.

    `qwen` and non-strict `deepseek` render exactly as `llama` (same record but the name).
    """

    def check(tool: Any, function: Any) -> list[str]:
        out = compatible(tool)
        if strict:
            out += unsupported_by_xgrammar(tool["function"]["parameters"])
        if strict and provider == "deepseek" and tool["function"].get("strict"):
            out += openai_strict.check(tool)
        return out

    tally = run(provider, [check], strict=strict)
    print(tally.row(f"{provider}{'-strict' if strict else ''}"))
    assert tally.failures[:10] == []
