"""The `llama`, `qwen` and `deepseek` dialects: OpenAI-compatible servers, xgrammar, corpus."""

from __future__ import annotations

from dataclasses import replace

import pytest
from checkers import openai_strict
from checkers._schema import iter_schemas
from sweep import assert_clean
from toolkit import (
    CONSTRAINED,
    FOLDER,
    closed_by_xgrammar,
    compatible,
    doc,
    unsupported_by_xgrammar,
)

import httpllm
from httpllm.dialects.openai import tuple_items
from httpllm.dialects.openai_compatible import (
    DEEPSEEK,
    DEEPSEEK_STRICT_KEYWORDS,
    LLAMA,
    QWEN,
    _strict_const,
)

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


def test_qwen_and_non_strict_deepseek_are_llama_renamed() -> None:
    """qwen is llama's record but the name; deepseek differs only in its strict mode (its
    rules `tuple_items` and `_strict_const` act in strict mode only): so the corpus tests
    of llama cover them (the report table shows them too)."""
    names = {"name": "llama", "aliases": LLAMA.aliases, "source": LLAMA.source}
    assert replace(QWEN, **names) == LLAMA
    assert DEEPSEEK.rules == (tuple_items, _strict_const, *LLAMA.rules)
    assert replace(DEEPSEEK, **names, strict_keywords=None, strict_rules=LLAMA.strict_rules,
                   strict_limits=LLAMA.strict_limits, rules=LLAMA.rules,
                   strict_objects=LLAMA.strict_objects) == LLAMA


def test_non_strict_keeps_every_keyword() -> None:
    """Without strict the model sees the schema as written, a free-form object saying it is
    open (:func:`test_strict_says_open_what_xgrammar_would_close`)."""
    function = httpllm.compile(doc(XGRAMMAR_HARD), "llama").functions[0]
    env = {**XGRAMMAR_HARD["properties"]["env"], "additionalProperties": True}
    assert function.parameters["properties"]["body"] == {
        **XGRAMMAR_HARD, "properties": {**XGRAMMAR_HARD["properties"], "env": env}}
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


UNSAID = {
    "type": "object",
    "properties": {
        "meta": {"type": "object"},
        "maybe": {"type": ["object", "null"]},
        "env": {"type": "object", "patternProperties": {"^[A-Z]+$": {"type": "string"}}},
        "pair": {"type": "array", "prefixItems": [{"type": "string"}, {"type": "integer"}]},
        "shut": {"type": "object", "additionalProperties": False},
    },
}


@pytest.mark.parametrize("provider", ["llama", "qwen"])
def test_strict_says_open_what_xgrammar_would_close(provider: str) -> None:
    """A free-form object (also one whose patternProperties went into the description) says
    additionalProperties: true and an open tuple items: true in strict mode, where
    xgrammar's grammar would close them (only {} or the positions); no loss, the same
    instances; an object closed by the document stays closed, and validate accepts a
    free-form value. Outside strict mode too."""
    app = httpllm.compile(doc(UNSAID), provider, strict=True)
    params = app.functions[0].parameters
    assert closed_by_xgrammar(params) == []
    props = params["properties"]["body"]["properties"]
    assert props["meta"] == {"type": "object", "additionalProperties": True}
    assert props["pair"]["items"] is True and props["shut"]["additionalProperties"] is False
    assert [x.keyword for x in app.functions[0].losses] == ["patternProperties"]
    call = {"body": {"meta": {"a": [1]}, "maybe": {"b": 2}, "env": {"X": "y"},
                     "pair": ["a", 1, 2]}}
    assert app.validate("op0", call).ok
    # vLLM builds the same grammar for a named tool or tool_choice "required", strict or not
    loose = httpllm.compile(doc(UNSAID), provider).functions[0]
    assert closed_by_xgrammar(loose.parameters) == [] and loose.losses == ()
    assert loose.parameters["properties"]["body"]["properties"]["shut"] == UNSAID[
        "properties"]["shut"]


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


def test_deepseek_strict_drops_object_keywords_on_other_types() -> None:
    """`{"type": "string", "additionalProperties": true}` (okta) loses the keyword, which
    has no effect there and which strict mode rejects (an untyped `true` schema)."""
    schema = {"type": "object", "properties": {
        "tags": {"type": "array", "items": {"type": "string", "additionalProperties": True}},
        "name": {"type": "string", "properties": {"x": {"type": "string"}}, "required": ["x"]}}}
    app = httpllm.compile(doc(schema), "deepseek", strict=True)
    (tool,) = app.tools()
    props = tool["function"]["parameters"]["properties"]["body"]["properties"]
    assert tool["function"]["strict"] is True and openai_strict.check(tool) == []
    assert props["tags"]["anyOf"][0]["items"] == {"type": "string"}
    assert props["name"]["anyOf"][0] == {"type": "string"}
    dropped = sorted(x.keyword for x in app.functions[0].losses if x.action == "dropped")
    assert dropped == ["additionalProperties", "properties", "required"]


def test_deepseek_fallback_is_sent_as_llama_sends_it() -> None:
    """A tool over OpenAI's strict limits is sent without `strict` (no grammar is built), in
    the non-strict form: xgrammar's subset does not apply to it."""
    schema = {"type": "object", "properties": {
        "code": {"type": "string", "enum": [f"c{i}" for i in range(1001)]},
        "step": {"type": "number", "multipleOf": 0.5}}}
    (function,) = httpllm.compile(doc(schema), "deepseek", strict=True).functions
    (llama,) = httpllm.compile(doc(schema), "llama").functions
    assert not function.strict and function.parameters == llama.parameters
    assert "1001 enum values" in function.losses[-1].note


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
@pytest.mark.parametrize("mode", ["llama", "llama-strict", "deepseek-strict"])
def test_corpus(mode: str) -> None:
    """Every tool passes the OpenAI SDK types; strict ones xgrammar's subset (and
    DeepSeek's strict ones OpenAI's strict subset). qwen and non-strict deepseek are
    llama renamed (see above)."""
    assert_clean(mode)
