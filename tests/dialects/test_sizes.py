"""Size warnings of a compiled tool list (`dialects._sizes`): the whole list past 32,000
tokens, and each tool past 12,800 as the provider gets it."""

from __future__ import annotations

import json
from typing import Any

import httpllm
from httpllm.dialects._sizes import TOOL_TOKENS, _largest
from httpllm.records import Function


def _shared(refs: int) -> dict[str, Any]:
    """One operation whose body names a schema ``refs`` times, each naming a schema of 12
    references to a leaf of 40 described fields: small with named schemas kept under
    ``$defs``, about 50 kB per reference written out in place."""
    leaf = {"type": "object", "properties": {
        f"c{i}": {"type": "string", "description": f"Field {i} of the leaf, as stored."}
        for i in range(40)}}
    middle = {"type": "object",
              "properties": {f"b{i}": {"$ref": "#/components/schemas/Leaf"} for i in range(12)}}
    top = {"type": "object",
           "properties": {f"a{i}": {"$ref": "#/components/schemas/Middle"} for i in range(refs)}}
    return {"openapi": "3.0.3", "info": {"title": "shared", "version": "1"},
            "paths": {"/things": {"post": {
                "operationId": "addThing", "summary": "Add a thing",
                "requestBody": {"content": {"application/json": {
                    "schema": {"$ref": "#/components/schemas/Top"}}}},
                "responses": {"200": {"description": "ok"}}}}},
            "components": {"schemas": {"Leaf": leaf, "Middle": middle, "Top": top}}}


def test_a_tool_that_grows_past_the_bound_as_the_provider_gets_it_is_a_warning() -> None:
    """Named schemas keep chatgpt's tool small; gemini writes each one out in place, so the
    same tool passes 12,800 tokens: a `tool-too-large` warning at the operation, with its
    size for gemini, and none for chatgpt."""
    spec = _shared(3)
    assert not [w for w in httpllm.compile(spec, "chatgpt").warnings
                if w.rule == "tool-too-large"]
    app = httpllm.compile(spec, "gemini")
    (large,) = [w for w in app.warnings if w.rule == "tool-too-large"]
    assert large.pointer == "#/paths/~1things/post"
    assert large.message.startswith("one tool takes about ")
    assert "as gemini gets it (addThing: " in large.message
    tokens = int(large.message.split()[4].replace(",", ""))
    assert tokens > TOOL_TOKENS


def test_a_tool_under_the_bound_is_no_warning() -> None:
    """One reference (about 13,000 bytes written out): no size warning for any provider."""
    for provider in ("chatgpt", "gemini", "mcp"):
        app = httpllm.compile(_shared(1), provider)
        assert not [w for w in app.warnings if w.rule == "tool-too-large" or
                    "tokens" in w.message], provider


def test_size_warnings_keep_their_place_among_the_others() -> None:
    """The size warnings are made when `warnings` is first read, yet stand where a compile
    puts them: before the warning that an operation had to be renamed."""
    spec = _shared(3)
    paths = spec["paths"]
    paths["/other"] = {"post": {"operationId": "addThing", "summary": "The same id again",
                                "responses": {"200": {"description": "ok"}}}}
    app = httpllm.compile(spec, "gemini")
    rules = [(w.rule, w.pointer) for w in app.warnings]
    large = rules.index(("tool-too-large", "#/paths/~1things/post"))
    renamed = next(i for i, w in enumerate(app.warnings) if "is taken by an earlier" in w.message)
    assert large < renamed
    assert app.warnings == app.warnings  # read twice: made once


def test_the_largest_tool_is_the_longest_default_json_of_its_parameters() -> None:
    """`_largest` serializes again only the parameters within a third of the largest
    compact size, and finds what `max` over every function's `json.dumps` finds: also
    when non-ASCII text (escaped to 6 characters a letter) outgrows a compact leader."""
    def function(name: str, parameters: dict[str, Any]) -> Function:
        return Function(name=name, description="", parameters=parameters, method="get",
                        path="/", pointer="#/paths/~1/get", operation_id=None, tags=(),
                        deprecated=False, arguments=(), schema=parameters)

    functions = [
        function("ascii", {"type": "object", "description": "a" * 300}),
        function("greek", {"type": "object", "description": "\u03b1" * 140}),  # 280 B, 840 chars
        function("small", {"type": "string"}),
        function("tie", {"type": "object", "description": "\u03b1" * 140}),
    ]
    parameters = [len(json.dumps(f.parameters, ensure_ascii=False,
                                 separators=(",", ":")).encode()) for f in functions]
    expected = max(functions, key=lambda f: len(json.dumps(f.parameters)))
    assert expected.name == "greek"
    assert _largest(functions, parameters) is expected
