"""Exact bytes on the wire, through httpx's ASGI transport and through a real uvicorn server."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import httpx
import pytest

from httpllm.execute import Result, aexecute, execute

from .conftest import ECHO
from .records import body, function, param

pytestmark = pytest.mark.anyio


@dataclass(frozen=True)
class Target:
    """Where a call goes: the echo app in-process (ASGI) or behind uvicorn on 127.0.0.1."""

    base_url: str
    asgi: bool

    async def call(self, fn: Any, args: Any, **kwargs: Any) -> Result:
        """Run `aexecute` against this target."""
        transport = httpx.ASGITransport(app=ECHO) if self.asgi else None
        async with httpx.AsyncClient(transport=transport) as client:
            return await aexecute(fn, args, client=client, base_url=self.base_url, **kwargs)


@pytest.fixture(params=["asgi", "uvicorn"])
def target(request: pytest.FixtureRequest) -> Target:
    """Each test runs once in-process and once over a real socket."""
    if request.param == "asgi":
        return Target(base_url="http://testserver", asgi=True)
    return Target(base_url=request.getfixturevalue("live_server"), asgi=False)


def headers_of(seen: Mapping[str, Any]) -> dict[str, list[str]]:
    """The echoed headers by lower-case name."""
    out: dict[str, list[str]] = {}
    for name, value in seen["headers"]:
        out.setdefault(name, []).append(value)
    return out


async def test_c25_round_trip(target: Target) -> None:
    """C25: PUT /users/u1?version=3 arrives with the JSON body holding the body's id and version."""
    fn = function(
        param("path", "id"),
        param("query", "version", {"type": "integer"}),
        body({"type": "object", "properties": {"id": {}, "version": {}, "name": {}}}),
        path="/users/{id}",
        method="put",
    )
    args = '{"id": "u1", "version": 3, "body": {"id": "u1-b", "version": 7, "name": "A"}}'
    seen = (await target.call(fn, args)).body
    assert (seen["method"], seen["raw_path"], seen["query_string"]) == (
        "PUT",
        "/users/u1",
        "version=3",
    )
    assert seen["body"] == '{"id":"u1-b","version":7,"name":"A"}'
    assert headers_of(seen)["content-type"] == ["application/json"]


async def test_c17_strict_nulls_are_not_sent(target: Target) -> None:
    """C17: strict nulls for optional query parameters never reach the server."""
    fn = function(
        param("query", "city", required=True),
        param("query", "units", {"type": "string", "enum": ["metric", "imperial"]}),
        param("query", "days", {"type": "integer"}),
        path="/weather",
        strict=True,
    )
    seen = (await target.call(fn, '{"city": "São Paulo", "units": null, "days": null}')).body
    assert seen["query_string"] == "city=S%C3%A3o%20Paulo"
    assert "null" not in seen["query_string"]


async def test_path_values_arrive_encoded_and_in_one_segment(target: Target) -> None:
    """Reserved characters, spaces, dots and unicode in a path value arrive percent-encoded."""
    fn = function(param("path", "name"), path="/files/{name}/meta")
    seen = (await target.call(fn, {"name": "../a b?c#d/é"})).body
    assert seen["raw_path"] == "/files/..%2Fa%20b%3Fc%23d%2F%C3%A9/meta"
    assert seen["query_string"] == ""


async def test_query_styles_arrive_exactly(target: Target) -> None:
    """Exploded arrays, deepObject, pipe and space delimited values arrive byte for byte."""
    fn = function(
        param("query", "id", {"type": "array"}),
        param("query", "filter", {"type": "object"}, style="deepObject", explode=True),
        param("query", "tags", {"type": "array"}, style="pipeDelimited"),
        param("query", "words", {"type": "array"}, style="spaceDelimited"),
        param("query", "csv", {"type": "array"}, explode=False),
        param("query", "plus"),
    )
    args = {
        "id": [1, 2],
        "filter": {"min": 1, "name": "a,b"},
        "tags": ["x", "y"],
        "words": ["hi", "you"],
        "csv": ["a", "b,c"],
        "plus": "1+1=2",
    }
    seen = (await target.call(fn, args)).body
    assert seen["query_string"] == (
        "id=1&id=2&filter%5Bmin%5D=1&filter%5Bname%5D=a%2Cb&tags=x%7Cy&words=hi%20you"
        "&csv=a,b%2Cc&plus=1%2B1%3D2"
    )


async def test_headers_and_cookies_arrive(target: Target) -> None:
    """Header parameters, cookies and Accept arrive as built; the cookie header is one line."""
    fn = function(
        param("header", "X-Trace", {"type": "array"}),
        param("cookie", "session"),
        param("cookie", "theme"),
        extra={"accept": ["application/json"]},
    )
    seen = (await target.call(fn, {"X-Trace": ["a", "b"], "session": "s 1", "theme": "dark"})).body
    headers = headers_of(seen)
    assert headers["x-trace"] == ["a,b"]
    assert headers["cookie"] == ["session=s%201; theme=dark"]
    assert headers["accept"] == ["application/json"]
    assert seen["cookies"] == {"session": "s%201", "theme": "dark"}


async def test_form_body_arrives_exactly(target: Target) -> None:
    """An application/x-www-form-urlencoded body arrives byte for byte."""
    encoding = {"filter": {"style": "deepObject", "explode": True}}
    fn = function(body({"type": "object"}, "application/x-www-form-urlencoded", encoding=encoding))
    args = {"body": {"name": "a b", "tags": ["x", "y"], "filter": {"q": "z"}, "meta": {"k": 1}}}
    seen = (await target.call(fn, args)).body
    assert seen["body"] == "name=a%20b&tags=x&tags=y&filter%5Bq%5D=z&meta=%7B%22k%22%3A1%7D"
    assert headers_of(seen)["content-type"] == ["application/x-www-form-urlencoded"]


async def test_multipart_body_arrives_exactly(target: Target) -> None:
    """A multipart/form-data body with text, JSON and file parts arrives byte for byte."""
    encoding = {"meta": {"contentType": "application/json"}}
    fn = function(body({"type": "object"}, "multipart/form-data", encoding=encoding), method="post")
    args = {"body": {"title": "Zoë", "meta": {"a": [1]}, "tags": ["x", "y"]}}
    files = {"#/body/file": ("n.bin", b"\x00\xff\r\n", "application/octet-stream")}
    seen = (await target.call(fn, args, files=files)).body
    content_type = headers_of(seen)["content-type"][0]
    assert content_type.startswith("multipart/form-data; boundary=")
    b = content_type.split("boundary=")[1]
    part = 'Content-Disposition: form-data; name="{}"'
    expected = (
        (
            f"--{b}\r\n{part.format('title')}\r\n\r\nZoë\r\n"
            f"--{b}\r\n{part.format('meta')}\r\nContent-Type: application/json\r\n\r\n"
            '{"a":[1]}\r\n'
            f"--{b}\r\n{part.format('tags')}\r\n\r\nx\r\n"
            f"--{b}\r\n{part.format('tags')}\r\n\r\ny\r\n"
            f'--{b}\r\n{part.format("file")}; filename="n.bin"\r\n'
            "Content-Type: application/octet-stream\r\n\r\n"
        ).encode()
        + b"\x00\xff\r\n\r\n"
        + f"--{b}--\r\n".encode()
    )
    assert seen["body"].encode("latin-1") == expected


async def test_credentials_arrive(target: Target) -> None:
    """Credentials for the operation's scheme arrive; others are not sent."""
    schemes = {
        "key": {"type": "apiKey", "in": "query", "name": "key"},
        "token": {"type": "http", "scheme": "bearer"},
    }
    fn = function(security=({"key": []},), security_schemes=schemes)
    seen = (await target.call(fn, {}, auth={"key": "k/1", "token": "t"})).body
    assert seen["query_string"] == "key=k%2F1"
    assert "authorization" not in headers_of(seen)


async def test_non_2xx_is_returned_not_raised(target: Target) -> None:
    """A 404 answer is a Result with its status and parsed body."""
    fn = function(param("header", "X-Echo-Status"))
    result = await target.call(fn, {}, host_arguments={"X-Echo-Status": "404"})
    assert (result.status, result.ok) == (404, False)
    assert result.body["method"] == "GET"


async def test_text_answer_is_text(target: Target) -> None:
    """A text/plain answer's body is the text."""
    fn = function(param("header", "X-Echo-Text"), path="/t")
    result = await target.call(fn, {"X-Echo-Text": "1"})
    assert result.body == "GET /t"
    assert result.content == b"GET /t"


def test_sync_execute_without_a_client_reaches_the_live_server(live_server: str) -> None:
    """execute() with no client opens its own and gets the echo from uvicorn."""
    fn = function(param("query", "q"), path="/sync")
    result = execute(fn, '{"q": "a b"}', base_url=live_server)
    assert result.status == 200
    assert (result.body["raw_path"], result.body["query_string"]) == ("/sync", "q=a%20b")


async def test_async_execute_without_a_client_reaches_the_live_server(live_server: str) -> None:
    """aexecute() with no client opens its own AsyncClient and gets the echo from uvicorn."""
    fn = function(path="/async", method="delete")
    result = await aexecute(fn, {}, base_url=live_server)
    assert (result.status, result.body["method"]) == (200, "DELETE")
