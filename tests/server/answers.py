"""An API whose answers are hard to pass on: binary, huge, endless, empty, slow, off their
schema, echoing its ``Accept`` — its OpenAPI document and the Starlette app behind it (run
by uvicorn on 127.0.0.1 in the tests)."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from typing import Any

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, PlainTextResponse, Response, StreamingResponse
from starlette.routing import Route

PNG = (b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x01\x00\x00\x00\x01\x08\x06\x00\x00"
       b"\x00\x1f\x15\xc4\x89\x00\x00\x00\rIDATx\x9cc\xf8\xcf\xc0\xf0\x1f\x00\x05\x00\x01\xff"
       b"\x89\x99=\x1d\x00\x00\x00\x00IEND\xaeB`\x82")
"""A one-pixel PNG (not valid UTF-8: decoded as text it is mojibake)."""
TEXT_SIZE = 5_000_000
"""Characters of the long ``text/plain`` answer."""


def _get(operation: str, media: str, schema: dict[str, Any] | None = None,
         parameters: list[dict[str, Any]] | None = None,
         extra: dict[str, Any] | None = None) -> dict[str, Any]:
    content: dict[str, Any] = {media: {"schema": schema} if schema is not None else {}}
    return {"get": {"operationId": operation, "parameters": parameters or [],
                    "responses": {"200": {"description": "ok", "content": {
                        **content, **(extra or {})}}}}}


def document(url: str) -> dict[str, Any]:
    """The API's OpenAPI 3.1 document, its server at ``url``."""
    binary = {"type": "string", "format": "binary"}
    size = [{"name": "size", "in": "query", "schema": {"type": "integer"}}]
    return {
        "openapi": "3.1.0", "info": {"title": "answers", "version": "1"},
        "servers": [{"url": url}],
        "paths": {
            "/image": _get("getImage", "image/png", binary),
            "/audio": _get("getAudio", "audio/wav", binary),
            "/pdf": _get("getPdf", "application/pdf", binary),
            "/long-text": _get("getLongText", "text/plain", {"type": "string"}),
            "/empty-text": _get("getEmptyText", "text/plain", {"type": "string"}),
            "/event": _get("getEvent", "application/json", {
                "type": "object", "required": ["created"],
                "properties": {"created": {"type": "string", "format": "date-time"},
                               "size": {"type": "integer", "format": "int32"}}}, [
                {"name": "created", "in": "query", "schema": {"type": "string"}}, *size]),
            "/wide": _get("getWide", "application/json", {
                "type": "object", "properties": {"items": {"type": "string"}}}),
            "/slow": {"post": {"operationId": "createSlowly", "responses": {
                "201": {"description": "made"}}}},
            "/endless": _get("getEndless", "application/json", None, size),
            "/declared": _get("getDeclared", "text/plain", None, size),
            "/accept": _get("getAccept", "text/plain", None,
                            extra={"application/json": {}}),
        },
    }


async def image(request: Request) -> Response:
    return Response(PNG, media_type="image/png")


async def audio(request: Request) -> Response:
    return Response(b"RIFF\x24\x00\x00\x00WAVEfmt \xff\xfe", media_type="audio/wav")


async def pdf(request: Request) -> Response:
    return Response(b"%PDF-1.4\n\xe2\xe3\xcf\xd3\n%%EOF", media_type="application/pdf")


async def long_text(request: Request) -> Response:
    return PlainTextResponse("line of text\n" * (TEXT_SIZE // 13))


async def empty_text(request: Request) -> Response:
    return PlainTextResponse("")


async def event(request: Request) -> Response:
    """``{"created": ..., "size": ...}`` as the query asks (``yesterday`` by default)."""
    body: dict[str, Any] = {"created": request.query_params.get("created", "yesterday")}
    if "size" in request.query_params:
        body["size"] = int(request.query_params["size"])
    return JSONResponse(body)


async def wide(request: Request) -> Response:
    return JSONResponse({"items": [f"item-{i}" for i in range(2_000)]})


async def slow(request: Request) -> Response:
    await asyncio.sleep(3)
    return JSONResponse({"made": True}, status_code=201)


async def _chunks(request: Request) -> AsyncIterator[bytes]:
    yield b'{"items":['
    for _ in range(10_000):  # 680 MB, more than any test reads: it ends when the client goes
        if await request.is_disconnected():
            return
        yield b'"xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx",' * 1000


async def endless(request: Request) -> Response:
    """A JSON answer of 680 MB without ``Content-Length``: only a byte limit stops it."""
    return StreamingResponse(_chunks(request), media_type="application/json")


async def declared(request: Request) -> Response:
    """``size`` bytes of text with their ``Content-Length``."""
    size = int(request.query_params.get("size", "1000"))
    return Response(b"d" * size, media_type="text/plain")


async def accept(request: Request) -> Response:
    return PlainTextResponse(request.headers.get("accept", ""))


APP = Starlette(routes=[
    Route("/image", image), Route("/audio", audio), Route("/pdf", pdf),
    Route("/long-text", long_text), Route("/empty-text", empty_text),
    Route("/event", event), Route("/wide", wide), Route("/slow", slow, methods=["POST"]),
    Route("/endless", endless), Route("/declared", declared), Route("/accept", accept),
])
