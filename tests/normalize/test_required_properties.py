"""Pass required_properties: a required name no property declares is declared."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import strategies as st

import httpllm
from httpllm.errors import LimitExceeded
from httpllm.normalize.required_properties import required_properties

from ._support import check_pass_contract, deep, run, scalar_schemas

A = {"type": "string"}


INTEGER = {"type": "integer"}


@pytest.mark.parametrize(("pattern", "name", "taken"), [
    ("(a+)+$", "a" * 40 + "!", False),  # catastrophic for a backtracking engine
    ("^(a|aa)+$", "a" * 40 + "b", False),
    ("^x-", "x-rate", True),
    ("\\p{Lu}", "Rate", True),  # ECMA-262 with the u flag, as JSON Schema reads it
    ("[", "x", True),  # unreadable: counts as taking it (wider, never narrower)
])
def test_a_pattern_is_run_in_linear_time_and_as_json_schema_reads_it(
        pattern: str, name: str, taken: bool) -> None:
    """Pattern and name both come from the document: the pattern is never run by Python's
    backtracking ``re`` (``(a+)+$`` against 40 ``a`` and a ``!`` held the compile for
    minutes), and a pattern that takes the name gives any value, else
    ``additionalProperties``' schema."""
    schema = {"properties": {"a": A}, "required": [name], "patternProperties": {pattern: A},
              "additionalProperties": INTEGER}
    declared = run(required_properties, schema)[0]["properties"][name]
    assert declared == ({} if taken else INTEGER)


@pytest.mark.parametrize(
    ("schema", "out"),
    [
        ({"type": "object", "properties": {"a": A}, "required": ["a", "b"]},
         {"type": "object", "properties": {"a": A, "b": {}}, "required": ["a", "b"]}),
        ({"properties": {"a": A}, "required": ["b"], "additionalProperties": {"type": "integer"}},
         {"properties": {"a": A, "b": {"type": "integer"}}, "required": ["b"],
          "additionalProperties": {"type": "integer"}}),
        ({"properties": {"a": A}, "required": ["x1"], "patternProperties": {"^x": A},
          "additionalProperties": {"type": "integer"}},
         {"properties": {"a": A, "x1": {}}, "required": ["x1"], "patternProperties": {"^x": A},
          "additionalProperties": {"type": "integer"}}),
    ],
)
def test_examples(schema: dict[str, Any], out: dict[str, Any]) -> None:
    """A required name without a property gets the schema its value must match:
    additionalProperties', or any value (none, or a pattern takes the name)."""
    assert run(required_properties, schema) == (out, [])


@pytest.mark.parametrize(
    "schema",
    [{"type": "object", "properties": {"a": A}, "required": ["a"]},
     {"required": ["a"]}, {"type": "object", "required": ["a"]},
     {"properties": {"a": A}, "required": ["b"], "additionalProperties": False},
     {"properties": {"a": A}, "required": ["b"], "unevaluatedProperties": False},
     {"properties": {"a": A}, "required": ["b"], "unevaluatedProperties": A}],
)
def test_left_alone(schema: dict[str, Any]) -> None:
    """Declared names, a bare presence test, an object without properties, an object the
    document closed and one whose undeclared names unevaluatedProperties holds (declared,
    they would be evaluated and escape it) come back as the same object."""
    assert run(required_properties, schema)[0] is schema


def test_depth_10000_is_limit_exceeded() -> None:
    """A schema 10,000 levels deep raises LimitExceeded, not RecursionError."""
    with pytest.raises(LimitExceeded):
        run(required_properties, deep(10_000))


@pytest.mark.parametrize(("provider", "options"), [
    ("chatgpt", {"strict": True}), ("deepseek", {"strict": True}), ("claude", {"strict": True}),
    ("bedrock", {"strict": True}), ("mistral", {"strict": True}), ("gemini", {}),
])
def test_strict_tools_keep_a_required_name_sendable(provider: str, options: Any) -> None:
    """A body requiring a name it does not declare: the closed tool declares it, and a
    call giving it validates (OpenAI strict dropped it from required, every strict mode
    closed it out, and validate refused every call)."""
    body = {"type": "object", "properties": {"a": A}, "required": ["a", "b"]}
    source = {"openapi": "3.1.0", "info": {"title": "t", "version": "1"}, "paths": {"/x": {
        "post": {"operationId": "op", "responses": {"200": {"description": "ok"}},
                 "requestBody": {"required": True,
                                 "content": {"application/json": {"schema": body}}}}}}}
    app = httpllm.compile(source, provider, **options)
    tool_body = app.functions[0].parameters["properties"]["body"]
    assert set(tool_body["required"]) <= set(tool_body["properties"]) == {"a", "b"}
    assert app.validate("op", '{"body": {"a": "x", "b": "[1]"}}').ok


def objects() -> st.SearchStrategy[dict[str, Any]]:
    names = st.sampled_from(["a", "b", "x1"])
    return st.fixed_dictionaries(
        {"type": st.just("object"),
         "properties": st.dictionaries(names, scalar_schemas(), min_size=1, max_size=2),
         "required": st.lists(names, max_size=3, unique=True)},
        optional={"additionalProperties": st.booleans() | scalar_schemas(),
                  "patternProperties": st.just({"^x": {"type": "string"}})},
    )


@pytest.mark.slow
def test_equivalent_pure_fixpoint() -> None:
    """The result accepts exactly the same instances; the pass is a fixpoint, deterministic,
    pure, and identity when nothing changes."""
    check_pass_contract(required_properties, objects(), "equivalent", pure=True)
