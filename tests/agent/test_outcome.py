"""Outcome texts: what the model reads for each thing that can happen to a call."""

from __future__ import annotations

import httpx

import httpllm
from httpllm.agent.calls import ToolCall
from httpllm.agent.outcome import REDACTED, answered, failed, unknown
from httpllm.agent.runner import secrets_of
from httpllm.errors import RequestBuildError, TransportError
from httpllm.execute import Result

CALL = ToolCall(name="getPet", arguments={}, id="c1")


def test_answers_by_media_type() -> None:
    """JSON is compact text, text is kept, binary is described, empty is said."""
    def text(result: Result) -> str:
        return answered(CALL, result, (), ()).text

    assert text(Result(status=200, headers=httpx.Headers(), body={"a": [1, "é"]})) == \
        '{"a":[1,"é"]}'
    png = Result(status=200, headers=httpx.Headers({"content-type": "image/png"}),
                 body="\x89PNG", content=b"\x89PNG")
    assert text(png) == "A binary answer (image/png, 4 bytes)."
    plain = Result(status=200, headers=httpx.Headers({"content-type": "text/plain"}),
                   body="ok", content=b"ok")
    assert text(plain) == "ok"
    assert text(Result(status=204, headers=httpx.Headers(), body="")) == "(empty body)"


def test_credentials_are_redacted_in_every_form() -> None:
    """A key, a basic password, its Authorization token and a URL-encoded key are hidden."""
    secrets = secrets_of({"key": "k/ey+1", "basic": ("ann", "hunter22")})
    echoed = ('{"query": "api_key=k%2Fey%2B1", "auth": "Basic YW5uOmh1bnRlcjIy", '
              '"raw": "k/ey+1", "pw": "hunter22"}')
    result = Result(status=401, headers=httpx.Headers(), body=echoed)
    outcome = answered(CALL, result, (), secrets)
    assert not outcome.ok and outcome.kind == "answered"
    assert outcome.text.startswith("getPet failed: the API answered HTTP 401 Unauthorized")
    for secret in ("k%2Fey%2B1", "YW5uOmh1bnRlcjIy", "k/ey+1", "hunter22"):
        assert secret not in outcome.text
    assert outcome.text.count(REDACTED) == 4


def test_failures_say_what_happened() -> None:
    """A transport error names its cause; a build error its reason; both are 'failed'."""
    function = httpllm.compile({"openapi": "3.1.0", "info": {"title": "t", "version": "1"},
                                "paths": {"/x": {"get": {"operationId": "getPet", "responses": {
                                    "200": {"description": "ok"}}}}}}, "chatgpt")
    try:  # nothing listens on port 9 of the loopback interface
        function.execute("getPet", {}, base_url="http://127.0.0.1:9")
    except TransportError as exc:
        sent = failed(CALL, exc, ("removed a trailing comma",), ("s3cret",))
    assert sent.kind == "failed" and sent.text.startswith(
        "getPet failed: GET http://127.0.0.1:9/x: could not be sent (ConnectError")
    assert "nothing reached the API" in sent.text
    assert sent.text.endswith("(httpllm repaired the arguments before sending: "
                              "removed a trailing comma.)")
    built = failed(CALL, RequestBuildError("no credentials"), (), ())
    assert "cannot be made into a request: no credentials" in built.text


def test_unknown_function_lists_close_matches() -> None:
    """An unknown name is answered with the closest names, or with none when none is close."""
    close = unknown(ToolCall(name="get_pet", arguments={}), ["getPet", "listPets", "zzz"])
    assert close.kind == "unknown" and "Did you mean getPet?" in close.text
    far = unknown(ToolCall(name="weather", arguments={}), ["getPet"])
    assert "Did you mean" not in far.text and "one of the 1 functions" in far.text


def test_an_unknown_name_is_echoed_cut() -> None:
    """A name no tool has is echoed to 80 characters: the model wrote it, and a 1 MB name
    came back whole."""
    long = unknown(ToolCall(name="x" * 1_000_000, arguments={}), ["getPet"])
    assert f"There is no function named '{'x' * 79}…'; nothing was sent." in long.text
    assert len(long.text) < 200
