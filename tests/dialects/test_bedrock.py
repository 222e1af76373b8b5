"""The `bedrock` dialect: Converse `toolSpec` envelopes, Claude's schema rules, the corpus."""

from __future__ import annotations

from dataclasses import replace

import pytest
from checkers import bedrock as bedrock_checker
from sweep import assert_clean
from toolkit import CONSTRAINED, FOLDER, doc, strict_problems

import httpllm
from httpllm.dialects import Options, get_dialect


def test_envelope_passes_botocore() -> None:
    """`{"toolSpec": {name, description, inputSchema: {json}}}`, valid for botocore."""
    (tool,) = httpllm.compile(doc(CONSTRAINED), "bedrock").tools()
    assert list(tool) == ["toolSpec"]
    assert list(tool["toolSpec"]) == ["name", "description", "inputSchema"]
    assert tool["toolSpec"]["inputSchema"]["json"]["type"] == "object"
    assert bedrock_checker.check({"tools": [tool]}) == []


def test_schema_rules_are_claudes() -> None:
    """Same parameters as `claude`, strict or not (Claude on Bedrock)."""
    for strict in (False, True):
        claude = httpllm.compile(doc(CONSTRAINED), "claude", strict=strict).functions[0]
        bedrock = httpllm.compile(doc(CONSTRAINED), "bedrock", strict=strict).functions[0]
        assert bedrock.parameters == claude.parameters and bedrock.strict == claude.strict


def test_strict_flag_inside_tool_spec() -> None:
    """Strict tools carry `toolSpec.strict: true` and the Claude strict subset."""
    (tool,) = httpllm.compile(doc(CONSTRAINED), "bedrock", strict=True).tools()
    assert tool["toolSpec"]["strict"] is True
    assert strict_problems({"input_schema": tool["toolSpec"]["inputSchema"]["json"]}) == []
    assert bedrock_checker.check({"tools": [tool]}) == []


def test_recursion_is_kept_or_unrolled() -> None:
    """Non-strict keeps `$defs`; strict falls back, or unrolls with `unroll`."""
    source = doc({"$ref": "#/components/schemas/Folder"}, components={"Folder": FOLDER})
    (tool,) = httpllm.compile(source, "bedrock").tools()
    assert "Folder" in tool["toolSpec"]["inputSchema"]["json"]["$defs"]
    assert not httpllm.compile(source, "bedrock", strict=True).functions[0].strict
    (tool,) = httpllm.compile(source, "bedrock", strict=True, unroll=1).tools()
    assert tool["toolSpec"]["strict"] is True


def test_examples_go_into_the_description() -> None:
    """Converse has no input-examples field: the examples join the description."""
    source = doc(CONSTRAINED)
    source["paths"]["/r0"]["post"]["requestBody"]["content"]["application/json"]["example"] = {
        "name": "abc"}
    (tool,) = httpllm.compile(source, "bedrock").tools()
    assert tool["toolSpec"]["description"].endswith('Input Examples:\n{"body":{"name":"abc"}}')
    assert set(tool["toolSpec"]) == {"name", "description", "inputSchema"}


def test_an_empty_description_is_never_sent() -> None:
    """botocore rejects an empty description: method and path stand in."""
    function = httpllm.compile(doc(CONSTRAINED), "bedrock").functions[0]
    tool = get_dialect("bedrock").envelope(replace(function, description=""), Options())
    assert tool["toolSpec"]["description"] == "POST /r0"
    assert bedrock_checker.check({"tools": [tool]}) == []


@pytest.mark.corpus
@pytest.mark.parametrize("mode", ["bedrock", "bedrock-strict"])
def test_corpus(mode: str) -> None:
    """Every tool of every real document passes botocore's Converse validation (strict
    tools: Claude's strict subset)."""
    assert_clean(mode)
