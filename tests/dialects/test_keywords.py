"""Keyword rules (dialects/_keywords.py): a ``const`` a dialect rewrites or leaves out
narrows the ``enum`` beside it."""

from __future__ import annotations

from typing import Any

import pytest
from toolkit import doc

import httpllm

# (provider, strict): the rule that takes the const away. DeepSeek strict keeps `enum` but
# not `const` (filter_keywords); Claude strict describes a const that is no literal
# (to_description); Gemini, Ollama and OpenAPI 3.0 make it a one-value enum (const_as_enum).
MODES = [("deepseek", True), ("claude", True), ("gemini", False), ("ollama", False),
         ("3.0", False)]


def _property(schema: dict[str, Any], provider: str, strict: bool) -> tuple[Any, Any]:
    app = httpllm.compile(doc({"type": "object", "required": ["v"],
                               "properties": {"v": schema}}), provider, strict=strict)
    fn = app.functions[0]
    return fn, fn.parameters["properties"]["body"]["properties"]["v"]


def _refused(fn: Any, value: Any) -> bool:
    return not httpllm.execute.validate(fn, {"body": {"v": value}}).ok


@pytest.mark.parametrize(("provider", "strict"), MODES[:1] + MODES[2:])
def test_a_const_taken_away_narrows_its_enum(provider: str, strict: bool) -> None:
    """`{const: "a", enum: ["a", "b"]}` is offered as `enum: ["a"]`, reported at the enum:
    DeepSeek strict offered `["a", "b"]`, and the model's "b" was refused by validate."""
    fn, offered = _property({"type": "string", "const": "a", "enum": ["a", "b"]}, provider,
                            strict)
    assert offered["enum"] == ["a"] and "const" not in offered
    assert _refused(fn, "b") and not _refused(fn, "a")
    enum = [x for x in fn.losses if x.keyword == "enum"]
    assert [(x.action, x.value, x.note.split(" (")[0]) for x in enum] == [
        ("rewritten", ["a", "b"], "narrowed to the const beside it")]
    assert enum[0].pointer.endswith("/properties/v/enum")


@pytest.mark.parametrize(("provider", "strict"), MODES)
def test_a_const_outside_its_enum_offers_no_value(provider: str, strict: bool) -> None:
    """`{const: true, enum: [1, "b"]}` admits no value (JSON's `true` is not 1): no enum
    value is offered (an empty enum, or none where the dialect cannot spell it, each
    reported), and the loss names the enum's pointer and the const."""
    const: Any = {"x": 1} if provider == "claude" else True  # Claude keeps a literal const
    fn, offered = _property({"const": const, "enum": [1, "b"]}, provider, strict)
    assert offered.get("enum") in ([], None) and "const" not in offered
    loss = next(x for x in fn.losses if x.keyword == "enum" and x.action == "rewritten")
    assert loss.pointer.endswith("/properties/v/enum") and loss.value == [1, "b"]
    assert "is not among its values: no value allowed" in loss.note


@pytest.mark.parametrize("const", ["a", 5, {"x": 1}])
def test_deepseek_strict_holds_the_model_to_a_lone_const(const: Any) -> None:
    """DeepSeek's strict subset has `enum` but no `const`: a lone const is offered as a
    one-value enum (an object one as its JSON text, as every object enum is), reported at
    the const; it was moved into the description (`@const a`), and the model held to
    nothing could send any string. Outside strict mode the const is kept as written."""
    fn, offered = _property({"const": const}, "deepseek", True)
    assert "const" not in offered
    assert offered.get("enum") == [const] or "@enum" in offered.get("description", "")
    assert [(x.action, x.note.split(" (")[0]) for x in fn.losses if x.keyword == "const"] == [
        ("rewritten", "a one-value enum")]
    assert "@const" not in str(offered)
    _, loose = _property({"const": const}, "deepseek", False)
    assert loose == {"const": const}


def test_an_enum_equal_to_the_const_is_left_alone() -> None:
    """`{const: 1, enum: [1.0]}` (one JSON value) is offered as it was, with no enum loss."""
    fn, offered = _property({"const": 1, "enum": [1.0]}, "deepseek", True)
    assert offered["enum"] == [1.0]
    assert [x.keyword for x in fn.losses if x.keyword == "enum"] == []


@pytest.mark.parametrize(("enum", "offered", "dropped"), [
    ([1, "1", 2], ["1", "2"], ["1"]), (["1", 1], ["1"], [1]),
    ([True, "true", "false", False], ["true", "false"], ["true", False]),
    (["x", "null", None], ["x", "null"], None)])
def test_gemini_offers_each_text_once_and_reports_the_rest(
        enum: list[Any], offered: list[str], dropped: list[Any] | None) -> None:
    """Gemini's enums hold strings: of two values with one text (`1` and `"1"`) the model
    could send only the first, so the later ones are dropped with a loss at the enum (they
    were merged into one string silently); a null is `nullable`, no text of `"null"`."""
    fn, offered_node = _property({"enum": enum}, "gemini", False)
    assert offered_node["enum"] == offered
    losses = [x for x in fn.losses if x.keyword == "enum" and x.action == "dropped"]
    assert [x.value for x in losses] == ([] if dropped is None else [dropped])
    assert all(x.pointer.endswith("/properties/v/enum") for x in losses)


def test_a_strict_mode_describes_each_text_once() -> None:
    """An enum a strict mode sends as JSON text (it holds an object) describes one value
    per text: the string `'{"a": 1}'` beside the object `{"a": 1}` is dropped, reported."""
    fn, offered = _property({"enum": [{"a": 1}, '{"a": 1}', 5]}, "chatgpt", True)
    assert offered["description"].endswith('@enum [{"a": 1}, 5]')
    loss = next(x for x in fn.losses if x.keyword == "enum" and x.action == "dropped")
    assert loss.value == ['{"a": 1}'] and loss.pointer.endswith("/properties/v/enum")
