"""execute/aexecute: validate first, send, map the answer and transport failures."""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from httpllm.errors import InvalidArguments, TransportError
from httpllm.execute import aexecute, execute
from httpllm.execute.send import MAX_ANSWER_BYTES

from .records import function, param

WEATHER = function(
    param("query", "city", required=True),
    param("query", "days", {"type": "integer", "minimum": 1}),
    name="getWeather",
)
SECURED = function(
    security=({"basic": []},),
    security_schemes={"basic": {"type": "http", "scheme": "basic"}},
)


class Recorder:
    """A MockTransport handler that records requests and answers as told."""

    def __init__(self, response: httpx.Response | Exception | None = None) -> None:
        """Answer with `response` (200 JSON by default), or raise it if an exception."""
        self.requests: list[httpx.Request] = []
        self.response = response

    def __call__(self, request: httpx.Request) -> httpx.Response:
        """Record the request and answer."""
        self.requests.append(request)
        if isinstance(self.response, Exception):
            raise self.response
        return self.response or httpx.Response(200, json={"ok": True})


def client(recorder: Recorder, **kwargs: Any) -> httpx.Client:
    """An httpx client whose transport is the recorder."""
    return httpx.Client(transport=httpx.MockTransport(recorder), **kwargs)


def test_invalid_arguments_raise_and_nothing_is_sent() -> None:
    """An invalid call raises InvalidArguments with the errors and feedback; no request leaves."""
    recorder = Recorder()
    with pytest.raises(InvalidArguments) as caught:
        execute(WEATHER, '{"days": 0}', client=client(recorder))
    assert recorder.requests == []
    assert [e.pointer for e in caught.value.errors] == ["#/city", "#/days"]
    assert caught.value.message.startswith("Invalid arguments for getWeather; nothing was sent.")


def test_json_answer_is_parsed() -> None:
    """A JSON answer's body is the parsed value, with status and headers."""
    recorder = Recorder(httpx.Response(200, json={"temp": 3}))
    result = execute(WEATHER, {"city": "Oslo"}, client=client(recorder))
    assert (result.status, result.body, result.ok) == (200, {"temp": 3}, True)
    assert result.headers["content-type"] == "application/json"
    assert str(recorder.requests[0].url) == "https://api.example.com/things?city=Oslo"


def test_problem_json_answer_is_parsed_and_not_raised() -> None:
    """A 422 application/problem+json answer is returned with its parsed body."""
    answer = httpx.Response(
        422, content=b'{"title":"bad"}', headers={"content-type": "application/problem+json"}
    )
    result = execute(WEATHER, {"city": "x"}, client=client(Recorder(answer)))
    assert (result.status, result.body, result.ok) == (422, {"title": "bad"}, False)


def test_broken_json_answer_falls_back_to_text() -> None:
    """A body that claims JSON but does not parse is returned as text."""
    answer = httpx.Response(200, content=b"{oops", headers={"content-type": "application/json"})
    assert execute(WEATHER, {"city": "x"}, client=client(Recorder(answer))).body == "{oops"


@pytest.mark.parametrize("content", [b'{"n": 1e400}', b'{"n": NaN}', b'[-Infinity]'])
def test_an_answer_no_double_holds_stays_text_as_it_came(content: bytes) -> None:
    """A JSON answer holding NaN, Infinity or a number past a double's range is the text
    as it came: read as nan or inf, a model read it written back as NaN or Infinity (no
    JSON, not what came), the MCP server made a valid answer a mismatch "received null",
    and a code-mode program died on its host's reply line."""
    from httpllm.execute.answer import fit

    answer = httpx.Response(200, content=content, headers={"content-type": "application/json"})
    result = execute(WEATHER, {"city": "x"}, client=client(Recorder(answer)))
    assert result.body == content.decode()
    assert fit(result, budget=1000).text == content.decode()
    strings = httpx.Response(200, json={"s": "NaN Infinity", "n": 1e-400})
    assert execute(WEATHER, {"city": "x"}, client=client(Recorder(strings))).body == {
        "s": "NaN Infinity", "n": 0.0}


def test_an_answer_keeps_its_numbers_as_they_came() -> None:
    """A model's ``5.0`` is sent as ``5`` (an integer to every reader); an API's ``5.0``
    reaches the model as ``5.0``: the answer is what came, not what arguments become."""
    from httpllm.execute.answer import fit

    answer = httpx.Response(200, content=b'{"v": 5.0, "w": 1e2}',
                            headers={"content-type": "application/json"})
    result = execute(WEATHER, {"city": "x"}, client=client(Recorder(answer)))
    assert [type(v) for v in result.body.values()] == [float, float]
    assert fit(result, budget=1000).text == '{"v":5.0,"w":100.0}'


def test_empty_answer_is_an_empty_text() -> None:
    """A 204 without a body gives an empty text body."""
    result = execute(WEATHER, {"city": "x"}, client=client(Recorder(httpx.Response(204))))
    assert (result.status, result.body, result.content) == (204, "", b"")


@pytest.mark.parametrize("charset", ["base64", "hex", "zlib", "bz2", "quopri", "uu", "rot13",
                                     "utf-16", "no-such-charset"])
def test_a_charset_python_reads_as_no_text_is_read_as_utf8(charset: str) -> None:
    """An answer's ``charset`` naming one of Python's bytes or text transforms (their
    decoders raised ``AssertionError`` or ``TypeError`` out of ``execute``), a text
    encoding whose decoder refuses the body (UTF-16 without a byte order mark: a
    ``TransportError`` saying the answer did not arrive), or no encoding at all: the
    body is read as UTF-8."""
    answer = httpx.Response(200, content="echo: é".encode(),
                            headers={"content-type": f"text/plain; charset={charset}"})
    result = execute(WEATHER, {"city": "x"}, client=client(Recorder(answer)))
    assert (result.status, result.body) == (200, "echo: é")


@pytest.mark.parametrize(
    "failure",
    [
        httpx.ConnectError("refused"),
        httpx.ReadTimeout("slow"),
        httpx.RemoteProtocolError("garbage"),
        httpx.TooManyRedirects("loop"),
    ],
)
def test_transport_failures_become_transport_errors(failure: Exception) -> None:
    """httpx request failures raise our TransportError, chained to the original."""
    with pytest.raises(TransportError) as caught:
        execute(WEATHER, {"city": "x"}, client=client(Recorder(failure)))
    assert caught.value.__cause__ is failure
    assert "GET https://api.example.com/things?city=x" in caught.value.message


def test_httpx_auth_is_applied_to_secured_operations() -> None:
    """An httpx.Auth is handed to the client for an operation with security requirements."""
    recorder = Recorder()
    execute(SECURED, {}, client=client(recorder), auth=httpx.BasicAuth("u", "p"))
    assert recorder.requests[0].headers["authorization"] == "Basic dTpw"


def test_httpx_auth_is_not_applied_without_security() -> None:
    """An httpx.Auth is not used for an operation that declares no security."""
    recorder = Recorder()
    execute(function(), {}, client=client(recorder), auth=httpx.BasicAuth("u", "p"))
    assert "authorization" not in recorder.requests[0].headers


def test_client_default_auth_is_kept() -> None:
    """Without auth=, the client's own auth still applies."""
    recorder = Recorder()
    execute(SECURED, {}, client=client(recorder, auth=("c", "d")))
    assert recorder.requests[0].headers["authorization"] == "Basic Yzpk"


def test_mapping_auth_is_applied() -> None:
    """A credentials mapping is placed in the request by the scheme's rules."""
    recorder = Recorder()
    execute(SECURED, {}, client=client(recorder), auth={"basic": ("u", "p")})
    assert recorder.requests[0].headers["authorization"] == "Basic dTpw"


@pytest.mark.anyio
async def test_aexecute_sends_on_an_async_client() -> None:
    """aexecute validates, builds and sends on an httpx.AsyncClient."""
    recorder = Recorder(httpx.Response(201, text="made"))
    async with httpx.AsyncClient(transport=httpx.MockTransport(recorder)) as async_client:
        result = await aexecute(WEATHER, '{"city": "Oslo"}', client=async_client)
    assert (result.status, result.body) == (201, "made")


@pytest.mark.anyio
async def test_aexecute_maps_transport_failures() -> None:
    """aexecute raises TransportError when the request cannot be sent."""
    recorder = Recorder(httpx.ConnectError("refused"))
    async with httpx.AsyncClient(transport=httpx.MockTransport(recorder)) as async_client:
        with pytest.raises(TransportError):
            await aexecute(WEATHER, {"city": "x"}, client=async_client)


@pytest.mark.anyio
async def test_aexecute_refuses_invalid_arguments() -> None:
    """aexecute raises InvalidArguments for a call that is not JSON, sending nothing."""
    recorder = Recorder()
    async with httpx.AsyncClient(transport=httpx.MockTransport(recorder)) as async_client:
        with pytest.raises(InvalidArguments):
            await aexecute(WEATHER, "{", client=async_client)
    assert recorder.requests == []


def test_connection_refused_on_a_closed_local_port() -> None:
    """A real refused connection to a closed 127.0.0.1 port raises TransportError."""
    import socket

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    with pytest.raises(TransportError):
        execute(WEATHER, {"city": "x"}, base_url=f"http://127.0.0.1:{port}")


def test_a_transport_error_never_shows_the_query_string() -> None:
    """An API key sent in the query is not in the message of a failed request."""
    import socket

    import httpllm
    from httpllm.execute import execute

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    doc = {"openapi": "3.1.0", "info": {"title": "t", "version": "1"},
           "servers": [{"url": f"http://127.0.0.1:{port}"}],
           "components": {"securitySchemes": {"key": {"type": "apiKey", "in": "query",
                                                      "name": "api_key"}}},
           "security": [{"key": []}],
           "paths": {"/a": {"get": {"operationId": "getA",
                                    "responses": {"200": {"description": "ok"}}}}}}
    function = httpllm.compile(doc).function("getA")
    with pytest.raises(httpllm.TransportError) as caught:
        execute(function, {}, auth={"key": "sekrit-value-123"})
    assert "sekrit-value-123" not in str(caught.value) and f"127.0.0.1:{port}/a" in str(
        caught.value)


def _query_key_function() -> Any:
    import httpllm

    doc = {"openapi": "3.1.0", "info": {"title": "t", "version": "1"},
           "servers": [{"url": "https://api.example.com"}],
           "components": {"securitySchemes": {"key": {"type": "apiKey", "in": "query",
                                                      "name": "api_key"}}},
           "security": [{"key": []}],
           "paths": {"/a": {"get": {"operationId": "getA",
                                    "responses": {"200": {"description": "ok"}}}}}}
    return httpllm.compile(doc).function("getA")


def test_httpx_log_lines_never_show_a_credential(caplog: pytest.LogCaptureFixture) -> None:
    """httpx logs each request's URL at INFO; an API key in the query shows masked there,
    while the request itself still carries it."""
    recorder = Recorder()
    with caplog.at_level("INFO", logger="httpx"):
        execute(_query_key_function(), {}, client=client(recorder),
                auth={"key": "sekrit-value-123"})
    assert recorder.requests[0].url.params["api_key"] == "sekrit-value-123"
    logged = [r.getMessage() for r in caplog.records if r.name == "httpx"]
    assert logged and all("sekrit-value-123" not in line for line in logged)
    assert any("api_key=[redacted]" in line for line in logged)


@pytest.mark.anyio
async def test_httpx_log_lines_are_masked_on_an_async_client(
        caplog: pytest.LogCaptureFixture) -> None:
    """The same on an AsyncClient; and a log line outside a call is left as it is."""
    recorder = Recorder()
    async_client = httpx.AsyncClient(transport=httpx.MockTransport(recorder))
    with caplog.at_level("INFO", logger="httpx"):
        await aexecute(_query_key_function(), {}, client=async_client,
                       auth={"key": "sekrit-value-123"})
        await async_client.get("https://api.example.com/b?api_key=sekrit-value-123")
    await async_client.aclose()
    logged = [r.getMessage() for r in caplog.records if r.name == "httpx"]
    assert "sekrit-value-123" not in logged[0] and "sekrit-value-123" in logged[1]


async def _endless(request: Any) -> Any:
    """A JSON answer of 1 GB without ``Content-Length``, sent until the client goes."""
    from starlette.responses import StreamingResponse

    async def chunks() -> Any:
        yield b'{"items":['
        for _ in range(15_000):
            if await request.is_disconnected():
                return
            yield b'"' + b"x" * 65_536 + b'",'
    return StreamingResponse(chunks(), media_type="application/json")


async def _sized(request: Any) -> Any:
    """``size`` bytes of JSON text (a string), with their ``Content-Length``; ``gzip=1``
    compresses them."""
    import gzip

    from starlette.responses import Response

    size = int(request.query_params["size"])
    body = b'"' + b"y" * (size - 2) + b'"'
    if request.query_params.get("gzip"):
        return Response(gzip.compress(body), media_type="application/json",
                        headers={"Content-Encoding": "gzip"})
    return Response(body, media_type="application/json")


@pytest.fixture(scope="module")
def streaming() -> Any:
    """An API with an endless answer and sized ones, behind uvicorn on 127.0.0.1."""
    from loopback import running
    from starlette.applications import Starlette
    from starlette.routing import Route

    app = Starlette(routes=[Route("/endless", _endless), Route("/sized", _sized)])
    with running(app, lifespan="off") as url:
        yield url


ENDLESS = function(path="/endless", name="getEndless")
SIZED = function(param("query", "size", {"type": "integer"}),
                 param("query", "gzip", {"type": "integer"}), path="/sized", name="getSized")


def test_an_endless_answer_is_read_to_the_byte_limit(streaming: str) -> None:
    """An answer that would run to 1 GB is read to ``max_bytes`` and said to be cut, its
    size unknown; its body is the text read (a JSON prefix does not parse)."""
    result = execute(ENDLESS, {}, base_url=streaming, max_bytes=1_000_000)
    assert result.truncated and len(result.content) == 1_000_000 and result.size is None
    assert isinstance(result.body, str) and result.body.startswith('{"items":["xxx')


@pytest.mark.anyio
async def test_aexecute_reads_to_the_byte_limit_too(streaming: str) -> None:
    """The async twin stops at the limit as well."""
    result = await aexecute(ENDLESS, {}, base_url=streaming, max_bytes=500_000)
    assert result.truncated and len(result.content) == 500_000


def test_a_declared_size_is_kept_and_none_reads_everything(streaming: str) -> None:
    """A cut answer keeps the size the server declared; ``max_bytes=None`` reads a large
    answer whole, parsed; a compressed answer is limited after decoding (its declared
    size is the compressed one: unknown)."""
    cut = execute(SIZED, {"size": 3_000_000}, base_url=streaming, max_bytes=1_000_000)
    assert cut.truncated and cut.size == 3_000_000
    whole = execute(SIZED, {"size": 12_000_000}, base_url=streaming, max_bytes=None)
    assert not whole.truncated and whole.size == 12_000_000 and len(whole.body) == 11_999_998
    default = execute(SIZED, {"size": 12_000_000}, base_url=streaming)
    assert default.truncated and len(default.content) == MAX_ANSWER_BYTES
    bomb = execute(SIZED, {"size": 3_000_000, "gzip": 1}, base_url=streaming,
                   max_bytes=1_000_000)
    assert bomb.truncated and len(bomb.content) == 1_000_000 and bomb.size is None


def test_a_read_timeout_says_the_request_was_sent() -> None:
    """A read timeout comes after the request went out: the message says so."""
    with pytest.raises(TransportError) as caught:
        execute(WEATHER, {"city": "Oslo"},
                client=client(Recorder(httpx.ReadTimeout("timed out"))))
    assert ": sent, no answer" in caught.value.message
    assert "it may have taken effect" in caught.value.message
    with pytest.raises(TransportError) as refused:
        execute(WEATHER, {"city": "Oslo"},
                client=client(Recorder(httpx.ConnectError("refused"))))
    assert ": could not be sent (ConnectError: refused); nothing reached the API" in \
        refused.value.message
