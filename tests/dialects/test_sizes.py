"""Size warnings of a compiled tool list (`dialects._sizes`): the whole list past 32,000
tokens, and each tool past 12,800 as the provider gets it."""

from __future__ import annotations

from typing import Any

import httpllm
from httpllm.dialects._sizes import TOOL_TOKENS


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
