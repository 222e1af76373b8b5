"""handle/ahandle against the echo server on 127.0.0.1, for every provider with a
tool-call format: SDK-built responses in, SDK-valid result messages out."""

from __future__ import annotations

import json
import socket
from dataclasses import replace
from typing import Any

import httpx
import pytest
from sdk import lazy

import httpllm
from httpllm import dialects
from httpllm.agent.outcome import REDACTED
from httpllm.dialects import JSON_SCHEMA_2020_12, Dialect
from httpllm.records import Function

from .conftest import API_KEY, PETS, compiled
from .providers import PROVIDERS, Call, Provider, Row, joined

mcp_types = lazy("mcp.types")

CALLS: list[Call] = [
    ("call_1", "getPet", {"petId": 7}),
    ("call_2", "createPet", {"body": {"name": "Rex", "tags": ["good"]}}),
    ("call_3", "getPet", {"petId": "seven"}),
    ("call_4", "listPets", {"x-echo-status": "500"}),
    ("call_5", "getPets", {}),
]
"""Two good calls in parallel, an invalid one, one the upstream fails, an unknown one."""


def _echo(text: str) -> dict[str, Any]:
    seen: dict[str, Any] = json.loads(text)
    return seen


def check_rows(provider: Provider, rows: list[Row]) -> None:
    """The five outcomes of CALLS, in order, each answering its own call."""
    assert len(rows) == len(CALLS)
    if provider.ids:
        assert [row[0] for row in rows] == [call[0] for call in CALLS]
    pet, created, bad, upstream, missing = (row[2] for row in rows)
    seen = _echo(pet)
    assert (seen["method"], seen["raw_path"]) == ("GET", "/pets/7")
    assert ["x-api-key", REDACTED] in seen["headers"] and API_KEY not in pet
    seen = _echo(created)
    assert (seen["method"], seen["raw_path"]) == ("POST", "/pets")
    assert json.loads(seen["body"]) == {"name": "Rex", "tags": ["good"]}
    assert bad.startswith("Invalid arguments for getPet; nothing was sent") and "petId" in bad
    assert "HTTP 500 Internal Server Error" in upstream and API_KEY not in upstream
    assert "no function named 'getPets'" in missing and "getPet" in missing
    flags = [row[3] for row in rows]
    if any(flags):  # formats that mark failures (Anthropic, Gemini, Bedrock)
        assert flags == [False, False, True, True, True]


@pytest.fixture(params=sorted(PROVIDERS))
def provider(request: pytest.FixtureRequest) -> Provider:
    """Each provider in turn."""
    return PROVIDERS[request.param]


def test_handle_round_trips(provider: Provider, live_server: str) -> None:
    """Parallel, invalid, failing and unknown calls come back as the provider's messages."""
    app = compiled(provider.provider, **provider.options)
    messages = app.handle(provider.build(CALLS), auth={"key": API_KEY}, base_url=live_server)
    check_rows(provider, provider.read(messages))


def test_handle_reads_plain_dicts(provider: Provider, live_server: str) -> None:
    """The plain-dict form of a response gives the same messages as the SDK object."""
    app = compiled(provider.provider, **provider.options)
    response = provider.build(CALLS[:1])
    plain = response if isinstance(response, dict) else response.model_dump(mode="json")
    options = {"auth": {"key": API_KEY}, "base_url": live_server}
    assert app.handle(plain, **options) == app.handle(response, **options)


@pytest.mark.anyio
async def test_ahandle_round_trips(provider: Provider, live_server: str) -> None:
    """ahandle gives the same outcomes, in the calls' order, running them concurrently."""
    app = compiled(provider.provider, **provider.options)
    async with httpx.AsyncClient() as client:
        messages = await app.ahandle(provider.build(CALLS), auth={"key": API_KEY},
                                     base_url=live_server, client=client, limit=2)
    check_rows(provider, provider.read(messages))


def _acme_tool(function: Function, options: httpllm.Options) -> dict[str, Any]:
    return {"tool_name": function.name, "schema": function.parameters}


ACME = Dialect(name="acme", keywords=JSON_SCHEMA_2020_12, tool_calls="anthropic",
               envelope=_acme_tool, aliases=("acme-ai",), source="https://acme.invalid/tools")
"""A third party's dialect, made from scratch (no built-in record replaced): its calls
arrive in Anthropic's Messages format."""


@pytest.fixture
def acme() -> Any:
    """ACME registered for one test; the registry restored after it."""
    saved = dict(dialects._REGISTRY), dict(dialects._ALIASES)
    httpllm.register_provider("acme", ACME, aliases=ACME.aliases)
    yield ACME
    dialects._REGISTRY.clear()
    dialects._REGISTRY.update(saved[0])
    dialects._ALIASES.clear()
    dialects._ALIASES.update(saved[1])


@pytest.mark.usefixtures("acme")
def test_registered_dialect_end_to_end(live_server: str) -> None:
    """A dialect registered by a third party compiles to its own envelope, and
    `app.handle` answers its calls in the format its record names (no table elsewhere)."""
    app = httpllm.compile(PETS, provider="acme-ai")
    assert app.provider == "acme"
    assert {t["tool_name"] for t in app.tools()} == {"listPets", "createPet", "getPet"}
    claude = PROVIDERS["claude"]
    messages = app.handle(claude.build(CALLS), auth={"key": API_KEY}, base_url=live_server)
    check_rows(claude, claude.read(messages))


@pytest.mark.usefixtures("acme")
def test_registered_dialect_without_tool_calls_names_the_field() -> None:
    """A registered dialect that states no tool-call format: `handle` says which field."""
    httpllm.register_provider("acme-schemas", replace(ACME, tool_calls=None, aliases=()))
    with pytest.raises(httpllm.UnknownDialect, match="tool_calls is unset"):
        httpllm.compile(PETS, provider="acme-schemas").handle([])


@pytest.mark.anyio
@pytest.mark.usefixtures("acme")
async def test_registered_dialect_is_served() -> None:
    """`mcp_server` over the registered dialect's application lists every function."""
    from mcp.client._memory import InMemoryTransport
    from mcp.client.session import ClientSession

    app = httpllm.compile(PETS, provider="acme")
    async with InMemoryTransport(httpllm.mcp_server(app)) as (read, write), \
            ClientSession(read, write) as session:
        await session.initialize()
        listed = (await session.list_tools()).tools
    assert {t.name for t in listed} == {f.name for f in app.functions}
    create = next(t for t in listed if t.name == "createPet")
    assert create.input_schema["properties"]["body"]["required"] == ["name"]


def test_gemini_calls_without_ids(live_server: str) -> None:
    """A Gemini call without an id is answered by name, without an id."""
    gemini = PROVIDERS["gemini"]
    app = compiled("gemini")
    messages = app.handle(gemini.build([("", "getPet", {"petId": 3})]),
                          auth={"key": API_KEY}, base_url=live_server)
    [(ident, name, text, failed)] = gemini.read(messages)
    assert (ident, name, failed) == (None, "getPet", False)
    assert _echo(text)["raw_path"] == "/pets/3"


def test_gemini_camel_case_dicts(live_server: str) -> None:
    """Gemini's REST spelling (functionCall) reads as the SDK's snake_case does."""
    response = PROVIDERS["gemini"].build(CALLS[:2])
    app = compiled("gemini")
    options = {"auth": {"key": API_KEY}, "base_url": live_server}
    camel = response.model_dump(mode="json", by_alias=True, exclude_none=True)
    assert "functionCall" in json.dumps(camel)
    assert app.handle(camel, **options) == app.handle(response, **options)


def test_mcp_tools_call(live_server: str) -> None:
    """An MCP tools/call request is answered with a valid CallToolResult."""
    app = compiled("mcp")
    request = mcp_types.CallToolRequest(
        method="tools/call", params=mcp_types.CallToolRequestParams(
            name="getPet", arguments={"petId": "x"}))
    [result] = app.handle(request, auth={"key": API_KEY}, base_url=live_server)
    checked = mcp_types.CallToolResult.model_validate(result)
    assert checked.is_error and "petId" in checked.content[0].text
    [result] = app.handle(request.params.model_copy(update={"arguments": {"petId": 2}}),
                          auth={"key": API_KEY}, base_url=live_server)
    checked = mcp_types.CallToolResult.model_validate(result)
    assert not checked.is_error and _echo(checked.content[0].text)["raw_path"] == "/pets/2"


def test_repairs_are_named(live_server: str) -> None:
    """A fenced call with a trailing comma and a stringified body is sent, repairs named."""
    app = compiled("chatgpt")
    calls: list[Call] = [
        ("c1", "getPet", '```json\n{"petId": 7,}\n```'),
        ("c2", "createPet", json.dumps({"body": json.dumps({"name": "Rex"})})),
        ("c3", "getPet", '{"petId": 7'),
    ]
    messages = app.handle(PROVIDERS["chatgpt"].build(calls), auth={"key": API_KEY},
                          base_url=live_server)
    fenced, stringified, truncated = (joined(m["content"]) for m in messages)
    assert "removed a Markdown code fence; removed a trailing comma" in fenced
    assert _echo(fenced.split("\n(httpllm")[0])["raw_path"] == "/pets/7"
    assert "decoded body from JSON text" in stringified
    assert json.loads(_echo(stringified.split("\n(httpllm")[0])["body"]) == {"name": "Rex"}
    assert truncated.startswith("Invalid arguments for getPet") and "not JSON" in truncated


def test_transport_error_is_a_result() -> None:
    """A refused connection is an error result naming the failure, not an exception."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    app = compiled("claude")
    [message] = app.handle(PROVIDERS["claude"].build(CALLS[:1]), auth={"key": API_KEY},
                           base_url=f"http://127.0.0.1:{port}")
    [block] = message["content"]
    assert block["is_error"] is True and "could not be sent (ConnectError" in block["content"]


def test_missing_credentials_are_a_result(live_server: str) -> None:
    """A call whose security requirement the host's credentials miss is an error result."""
    app = compiled("chatgpt")
    [message] = app.handle(PROVIDERS["chatgpt"].build(CALLS[:1]), base_url=live_server,
                           auth={"other": API_KEY})
    assert "needs credentials" in message["content"] and '"key"' in message["content"]
    assert API_KEY not in message["content"]


def test_no_calls_no_messages() -> None:
    """A response without tool calls gives no messages."""
    response = PROVIDERS["claude"].build([])
    assert compiled("claude").handle(response) == []
    chat = PROVIDERS["chatgpt"].build([])
    chat.choices[0].message.tool_calls = None
    assert compiled("chatgpt").handle(chat) == []


def test_programming_errors_raise() -> None:
    """Something that is not a tool call, or a dialect without calls, raises."""
    with pytest.raises(httpllm.CallError, match="OpenAI Chat"):
        compiled("chatgpt").handle(42)
    with pytest.raises(httpllm.CallError, match="needs an id") as info:
        compiled("chatgpt").handle([{"type": "function", "function": {"name": "getPet"}}])
    assert info.value.pointer == "#/0"
    assert str(info.value).startswith("#/0: an OpenAI Chat tool call")  # was "a OpenAI"
    with pytest.raises(httpllm.CallError, match=r"^#/0: not a Gemini tool call: int$"):
        compiled("gemini").handle([1])
    with pytest.raises(httpllm.UnknownDialect, match="no tool-call format"):
        compiled("3.1").handle([])
    with pytest.raises(httpllm.UnknownDialect, match="known formats"):
        compiled("chatgpt").handle([], format="smoke-signals")


def test_host_arguments_reach_only_their_functions(live_server: str) -> None:
    """A separated argument is filled by the host for the functions that have it."""
    app = compiled("chatgpt", separate=lambda a: a.name == "x-echo-status")
    calls: list[Call] = [("c1", "listPets", {}), ("c2", "getPet", {"petId": 1})]
    messages = app.handle(PROVIDERS["chatgpt"].build(calls), auth={"key": API_KEY},
                          base_url=live_server, host_arguments={"x-echo-status": "404"})
    listed, got = (m["content"] for m in messages)
    assert "HTTP 404" in listed and _echo(got)["raw_path"] == "/pets/1"


@pytest.mark.anyio
@pytest.mark.parametrize(("limit", "most"), [(2, 2), (8, 5), (1, 1)])
async def test_ahandle_limit(limit: int, most: int) -> None:
    """ahandle keeps at most `limit` requests in flight and runs that many together."""
    import anyio

    running = peak = 0
    full = anyio.Event()  # each answer waits until `most` are in flight together

    async def answer(request: httpx.Request) -> httpx.Response:
        nonlocal running, peak
        running += 1
        peak = max(peak, running)
        if running == most:
            full.set()
        with anyio.move_on_after(10):  # a bound, not a timing: fewer in flight never fill
            await full.wait()
        await anyio.sleep(0)
        running -= 1
        return httpx.Response(200, json={"path": request.url.path})

    calls: list[Call] = [(f"c{k}", "getPet", {"petId": k}) for k in range(5)]
    async with httpx.AsyncClient(transport=httpx.MockTransport(answer)) as client:
        messages = await compiled("chatgpt").ahandle(
            PROVIDERS["chatgpt"].build(calls), client=client, auth={"key": API_KEY},
            base_url="http://pets.test", limit=limit)
    assert peak == most
    assert [json.loads(m["content"])["path"] for m in messages] == [
        f"/pets/{k}" for k in range(5)]


def test_strict_nulls_are_decoded(live_server: str) -> None:
    """Strict mode's nulls for optional arguments are undone by the decode step."""
    app = compiled("chatgpt", strict=True)
    calls: list[Call] = [("c1", "listPets", '{"limit": null, "x-echo-status": null}'),
                         ("c2", "listPets", {"limit": 3, "x-echo-status": None})]
    first, second = app.handle(PROVIDERS["chatgpt"].build(calls), auth={"key": API_KEY},
                               base_url=live_server)
    assert _echo(first["content"])["query_string"] == ""
    assert _echo(second["content"])["query_string"] == "limit=3"


def test_a_broken_function_does_not_sink_the_others(live_server: str) -> None:
    """A function whose schema the validator cannot compile fails alone, as a result."""
    from execute.records import function, param

    from httpllm.agent import handle

    good = compiled("chatgpt").function("getPet")
    broken = function(param("query", "q", {"type": "string", "pattern": "(["}), name="search")
    calls: list[Call] = [("c1", "search", {"q": "a"}), ("c2", "getPet", {"petId": 4})]
    first, second = handle({"search": broken, "getPet": good},
                           PROVIDERS["chatgpt"].build(calls), format="chat",
                           auth={"key": API_KEY}, base_url=live_server)
    assert "search failed: the call cannot be made into a request" in first["content"]
    assert "not valid JSON Schema" in first["content"]
    assert _echo(second["content"])["raw_path"] == "/pets/4"


def test_a_long_answer_is_cut_with_a_note(live_server: str) -> None:
    """An answer over ``max_answer_chars`` reaches the model cut, JSON kept JSON, followed
    by a note saying so and naming the arguments that ask for less; ``None`` never cuts."""
    app = compiled("chatgpt")
    tags = [f"tag-{i:04d}" for i in range(400)]
    calls: list[Call] = [("c1", "createPet", {"body": {"name": "Rex", "tags": tags}}),
                         ("c2", "listPets", {})]
    cut, short = (m["content"] for m in app.handle(
        PROVIDERS["chatgpt"].build(calls), auth={"key": API_KEY}, base_url=live_server,
        max_answer_chars=1_000))
    answer, note = (part["text"] for part in cut)  # the note in a part of its own
    assert len(answer) <= 1_000 and isinstance(json.loads(answer), dict)
    assert note.startswith("[Answer cut to fit 1,000 characters (it had ")
    assert "createPet has no paging or filter argument" in note
    assert "[Answer cut" not in short and _echo(short)["raw_path"] == "/pets"
    (whole,) = (m["content"] for m in app.handle(
        PROVIDERS["chatgpt"].build(calls[:1]), auth={"key": API_KEY}, base_url=live_server,
        max_answer_chars=None))
    assert "[Answer cut" not in whole and "tag-0399" in whole
