"""httpllm.toolsets.discover: the search -> describe -> invoke trio."""

from __future__ import annotations

import json
from typing import Any

import httpx
import pytest
from checkers import BY_DIALECT

import httpllm
from httpllm.toolsets.discover import DESCRIBE, INVOKE, SEARCH, TAG_ENUM_MAX, discover

PETS: dict[str, Any] = {
    "openapi": "3.1.0",
    "info": {"title": "pets", "version": "1"},
    "servers": [{"url": "https://pets.example.com/v1"}],
    "paths": {
        "/pets": {
            "get": {"operationId": "listPets", "summary": "List all pets", "tags": ["pets"],
                    "parameters": [{"name": "limit", "in": "query",
                                    "schema": {"type": "integer", "maximum": 100}}],
                    "responses": {"200": {"description": "ok"}}},
            "post": {"operationId": "createPet", "summary": "Create a pet", "tags": ["pets"],
                     "requestBody": {"required": True, "content": {"application/json": {
                         "schema": {"type": "object", "required": ["name"],
                                    "properties": {"name": {"type": "string"}}}}}},
                     "responses": {"201": {"description": "ok"}}},
        },
        "/pets/{petId}": {
            "get": {"operationId": "getPet", "summary": "Fetch one pet", "tags": ["pets"],
                    "parameters": [{"name": "petId", "in": "path", "required": True,
                                    "schema": {"type": "integer"}}],
                    "responses": {"200": {"description": "ok"}}},
        },
    },
}


@pytest.mark.parametrize("key", sorted(BY_DIALECT))
def test_trio_is_valid_in_every_dialect(key: str) -> None:
    """The three tools pass the provider checkers of every dialect, enveloped and not."""
    provider, strict = key.removesuffix("-strict"), key.endswith("-strict")
    trio = discover(httpllm.compile(PETS, provider, strict=strict))
    assert [f.name for f in trio.functions] == [SEARCH, DESCRIBE, INVOKE]
    problems = [p for tool, _ in trio.pairs() for check in BY_DIALECT[key]
                for p in check(tool)]
    problems += [p for f in trio.functions for check in BY_DIALECT[key] for p in check(f)]
    assert problems == []


def test_search_then_describe() -> None:
    """search returns names with one line; describe returns their tools in the dialect."""
    app = httpllm.compile(PETS, "claude")
    trio = discover(app)
    found = trio.handle(SEARCH, {"query": "add a new pet", "tag": "pets"})
    assert found["operations"][0] == {"name": "createPet", "method": "POST",
                                      "path": "/pets", "summary": "Create a pet"}
    described = trio.handle(DESCRIBE, '{"names": ["createPet", "feedPet"]}')
    assert described["operations"][0] == app.tools()[1]
    assert described["operations"][1]["error"] == (
        "no function named 'feedPet' in this application; did you mean 'createPet', "
        "'getPet'? Nothing was sent; find names with search_operations.")


def test_search_tag_is_an_enum_of_the_tags() -> None:
    """The search tool offers the document's tags as the tag's enum, unless too many."""
    trio = discover(httpllm.compile(PETS, "3.1"))
    assert trio.functions[0].parameters["properties"]["tag"]["enum"] == ["pets"]
    many = {**PETS, "paths": {f"/t{i}": {"get": {
        "tags": [f"t{i}"], "responses": {"200": {"description": "ok"}}}}
        for i in range(TAG_ENUM_MAX + 1)}}
    tag = discover(httpllm.compile(many, "3.1")).functions[0].parameters["properties"]["tag"]
    assert "enum" not in tag
    assert tag["type"] == "string"


def test_invalid_calls_get_feedback() -> None:
    """A bad trio call or bad operation arguments come back as feedback, nothing sent."""
    trio = discover(httpllm.compile(PETS, "chatgpt"))
    assert "query" in trio.handle(SEARCH, {"tag": "pets"})["error"]
    wrong = trio.handle(INVOKE, {"name": "getPet", "arguments": {"petId": "seven"}})
    assert wrong["error"].startswith("Invalid arguments for getPet; nothing was sent.")
    assert "petId: expected an integer" in wrong["error"]
    unknown = trio.handle(INVOKE, {"name": "feedPet"})["error"]
    assert "did you mean 'createPet', 'getPet'? Nothing was sent" in unknown  # difflib
    with pytest.raises(httpllm.UnknownFunction):
        trio.handle("delete_everything", {})


def test_invoke_reaches_the_upstream(live_server: str) -> None:
    """invoke validates, builds and sends the request to the host's base URL."""
    with httpx.Client() as client:
        trio = discover(httpllm.compile(PETS, "chatgpt"),
                        execute_options={"base_url": live_server, "client": client})
        got = trio.handle(INVOKE, {"name": "getPet", "arguments": {"petId": 7}})
        posted = trio.handle(INVOKE, json.dumps(
            {"name": "createPet", "arguments": {"body": {"name": "Rex"}}}))
    assert got["status"] == 200
    assert (got["body"]["method"], got["body"]["raw_path"]) == ("GET", "/pets/7")
    assert json.loads(posted["body"]["body"]) == {"name": "Rex"}


def test_invoke_answers_never_carry_the_hosts_credential(live_server: str) -> None:
    """A credential the upstream echoes (an API key in the query string) reaches the model
    as [redacted], as in the agent loop and the MCP server."""
    secured = {**PETS, "security": [{"key": []}], "components": {"securitySchemes": {
        "key": {"type": "apiKey", "in": "query", "name": "api_key"}}}}
    trio = discover(httpllm.compile(secured, "chatgpt"), execute_options={
        "base_url": live_server, "auth": {"key": "s3cret-key/1"}})
    got = trio.handle(INVOKE, {"name": "listPets", "arguments": {"limit": 2}})
    assert got["status"] == 200
    assert "s3cret" not in json.dumps(got)
    assert got["body"]["query_string"] == "limit=2&api_key=[redacted]"


def test_strict_invoke_decodes_entries(live_server: str) -> None:
    """In OpenAI strict mode the arguments map arrives as entries and is decoded."""
    trio = discover(httpllm.compile(PETS, "chatgpt", strict=True),
                    execute_options={"base_url": live_server})
    call = {"name": "listPets", "arguments": [{"key": "limit", "value": "3"}]}
    got = trio.handle(INVOKE, call)
    assert got["body"]["query_string"] == "limit=3"
    assert trio.handle(SEARCH, {"query": "all pets", "tag": None})["operations"]


@pytest.mark.parametrize(("provider", "strict", "sent"), [
    ("mcp", False, []), ("gemini", False, []), ("gemini", False, "[]"),
    ("llama", True, []), ("gemini", False, [{"key": "limit", "value": "3"}]),
])
def test_invoke_with_an_array_for_its_arguments_is_an_error(
        provider: str, strict: bool, sent: Any) -> None:
    """Where the tool does not spell a map as entries (Gemini: JSON text of an object;
    vLLM strict: an object), ``"arguments": []`` is an error naming the object expected,
    and nothing is sent: it was read as ``{}`` and ``listPets`` called without them."""
    trio = discover(httpllm.compile(PETS, provider, strict=strict),
                    execute_options={"base_url": "http://127.0.0.1:9"})
    got = trio.handle(INVOKE, {"name": "listPets", "arguments": sent})
    assert got["error"].startswith("Invalid arguments for invoke_operation; nothing was sent")
    assert "arguments: expected an object; received [" in got["error"]


def test_transport_failure_is_an_error_text() -> None:
    """A request that cannot be sent is reported to the model, not raised."""
    trio = discover(httpllm.compile(PETS, "chatgpt"),
                    execute_options={"base_url": "http://127.0.0.1:9"})
    assert "error" in trio.handle(INVOKE, {"name": "listPets", "arguments": {}})


def test_pairs_hand_each_tool_its_handler() -> None:
    """Each (tool, handler) pair answers calls of its own tool."""
    pairs = discover(httpllm.compile(PETS, "mcp")).pairs()
    assert [tool["name"] for tool, _ in pairs] == [SEARCH, DESCRIBE, INVOKE]
    found = pairs[0][1]({"query": "fetch one pet"})
    assert found["operations"][0]["name"] == "getPet"
    assert pairs[1][1]({"names": ["getPet"]})["operations"][0]["name"] == "getPet"


def test_gemini_groups_the_trio() -> None:
    """For Gemini the three declarations are one Tool, as the dialect groups tools."""
    trio = discover(httpllm.compile(PETS, "gemini"))
    assert len(trio.tools) == 1
    assert [d["name"] for d in trio.tools[0]["functionDeclarations"]] == [
        SEARCH, DESCRIBE, INVOKE]


def test_a_long_invoke_answer_is_cut_with_a_note(live_server: str) -> None:
    """A body longer than ``max_answer_chars`` comes back shortened (still JSON) with a
    ``note`` saying how much was left out; a short one has no note."""
    trio = discover(httpllm.compile(PETS, "chatgpt"), max_answer_chars=600,
                    execute_options={"base_url": live_server})
    tags = [f"tag-{i:04d}" for i in range(300)]
    got = trio.handle(INVOKE, {"name": "createPet",
                               "arguments": {"body": {"name": "Rex", "tags": tags}}})
    assert got["status"] == 200 and isinstance(got["body"], dict)
    assert len(json.dumps(got["body"], separators=(",", ":"))) <= 600
    assert got["note"].startswith("[Answer cut to fit 600 characters")
    short = trio.handle(INVOKE, {"name": "getPet", "arguments": {"petId": 7}})
    assert "note" not in short
