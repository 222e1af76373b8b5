"""The `mistral` dialect: Draft 7 parameters for mistral-common, strict mode, the corpus."""

from __future__ import annotations

import pytest
from checkers import mistral as mistral_checker
from sweep import assert_clean
from toolkit import (
    CONSTRAINED,
    FOLDER,
    doc,
    draft7_keywords,
    mistral_common_accepts,
)

import httpllm

TUPLE = {"type": "object", "properties": {
    "point": {"type": "array", "prefixItems": [{"type": "number"}, {"type": "number"}],
              "items": False},
    "when": {"type": "object", "dependentRequired": {"a": ["b"]},
             "properties": {"a": {"type": "string"}, "b": {"type": "string"}}},
}}


def test_envelope_and_mistral_common() -> None:
    """An OpenAI-shaped tool with `parameters`, accepted by mistral-common."""
    (tool,) = httpllm.compile(doc(CONSTRAINED), "mistral").tools()
    assert list(tool["function"]) == ["name", "description", "parameters"]
    mistral_common_accepts(tool)
    assert mistral_checker.check(tool) == []


def test_defs_become_definitions() -> None:
    """`$defs` is spelled `definitions` and every ref follows; Draft 7 resolves them."""
    from jsonschema import Draft7Validator

    app = httpllm.compile(doc({"$ref": "#/components/schemas/Folder"},
                              components={"Folder": FOLDER}), "mistral")
    (tool,) = app.tools()
    params = tool["function"]["parameters"]
    assert "$defs" not in params and "Folder" in params["definitions"]
    assert params["properties"]["body"] == {"$ref": "#/definitions/Folder"}
    folder = params["definitions"]["Folder"]
    assert folder["properties"]["children"]["items"] == {"$ref": "#/definitions/Folder"}
    validator = Draft7Validator(params)
    assert validator.is_valid({"body": {"name": "a", "children": [{"name": "b"}]}})
    assert not validator.is_valid({"body": {"name": "a", "children": [{"children": []}]}})
    (loss,) = app.functions[0].losses
    assert (loss.keyword, loss.action) == ("$defs", "rewritten")
    mistral_common_accepts(tool)


def test_tuples_and_2020_keywords_are_spelled_in_draft_7() -> None:
    """`prefixItems` becomes the array form of `items`; keywords Draft 7 lacks are described."""
    from jsonschema import Draft7Validator

    app = httpllm.compile(doc(TUPLE), "mistral")
    (tool,) = app.tools()
    params = tool["function"]["parameters"]
    point = params["properties"]["body"]["properties"]["point"]
    assert point["items"] == [{"type": "number"}, {"type": "number"}]
    assert point["additionalItems"] is False
    assert draft7_keywords(params) == set()
    assert Draft7Validator(params).is_valid({"body": {"point": [1, 2]}})
    assert not Draft7Validator(params).is_valid({"body": {"point": [1, 2, 3]}})
    actions = {(x.keyword, x.action) for x in app.functions[0].losses}
    assert actions == {("prefixItems", "rewritten"), ("dependentRequired", "described")}


def test_ref_siblings_are_kept_visible() -> None:
    """Draft 7 ignores a `$ref`'s siblings, so a described `$ref` is wrapped."""
    source = doc({"type": "object", "properties": {
        "f": {"$ref": "#/components/schemas/Folder", "description": "The folder."}}},
        components={"Folder": FOLDER})
    params = httpllm.compile(source, "mistral").functions[0].parameters
    node = params["properties"]["body"]["properties"]["f"]
    assert "$ref" not in node or len(node) == 1
    assert "The folder." in str(node)


def test_strict_closes_objects_and_keeps_required() -> None:
    """Strict: every object closed, maps as entries, `required` as the document says."""
    app = httpllm.compile(doc(CONSTRAINED), "mistral", strict=True)
    (tool,) = app.tools()
    assert tool["function"]["strict"] is True
    body = tool["function"]["parameters"]["properties"]["body"]
    assert body["additionalProperties"] is False and body["required"] == ["name"]
    assert body["properties"]["labels"]["type"] == "array"
    mistral_common_accepts(tool)


@pytest.mark.corpus
@pytest.mark.parametrize("mode", ["mistral", "mistral-strict"])
def test_corpus(mode: str) -> None:
    """Every tool of every real document passes mistral-common's rules (Draft 7, name)."""
    assert_clean(mode)
