"""A small real API for the server tests: its OpenAPI document and a Starlette app that
implements it, served by uvicorn on 127.0.0.1.

Every answer that saw an ``Authorization`` header carries its SHA-256 (``auth_sha``), never
the header itself, so a test can tell whose credential a call used.
"""

from __future__ import annotations

import hashlib
import socket
from typing import Any
from urllib.parse import quote_plus

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

ITEM = {"type": "object", "properties": {"id": {"type": "string"},
                                         "verbose": {"type": "boolean"}},
        "required": ["id"]}


def _ok(schema: dict[str, Any]) -> dict[str, Any]:
    return {"200": {"description": "ok", "content": {"application/json": {"schema": schema}}}}


def document(url: str) -> dict[str, Any]:
    """The API's OpenAPI 3.1 document, its server at ``url``."""
    return {
        "openapi": "3.1.0",
        "info": {"title": "shop", "version": "1"},
        "servers": [{"url": url}],
        "components": {"securitySchemes": {"token": {"type": "http", "scheme": "bearer"}}},
        "paths": {
            "/items/{item_id}": {"get": {
                "operationId": "getItem", "summary": "Get one item",
                "parameters": [
                    {"name": "item_id", "in": "path", "required": True,
                     "schema": {"type": "string"}},
                    {"name": "verbose", "in": "query", "schema": {"type": "boolean"}}],
                "responses": _ok(ITEM)}},
            "/items": {
                "get": {"operationId": "listItems", "summary": "List items",
                        "parameters": [{"name": "limit", "in": "query",
                                        "schema": {"type": "integer"}}],
                        "responses": _ok({"type": "array", "items": ITEM})},
                "post": {"operationId": "createItem",
                         "requestBody": {"required": True, "content": {"application/json": {
                             "schema": {"type": "object", "required": ["name"], "properties": {
                                 "name": {"type": "string", "minLength": 1},
                                 "price": {"type": "number", "minimum": 0}}}}}},
                         "responses": _ok({"type": "object"})}},
            "/login": {"post": {
                "operationId": "login",
                "requestBody": {"content": {"application/x-www-form-urlencoded": {
                    "schema": {"type": "object", "properties": {
                        "user": {"type": "string"}, "remember": {"type": "boolean"}}}}}},
                "responses": {"200": {"description": "ok"}}}},
            "/missing/{id}": {"get": {
                "operationId": "getMissing",
                "parameters": [{"name": "id", "in": "path", "required": True,
                                "schema": {"type": "integer"}}],
                "responses": {"200": {"description": "ok"}}}},
            "/me": {"get": {
                "operationId": "whoAmI", "security": [{"token": []}],
                "parameters": [{"name": "n", "in": "query", "schema": {"type": "integer"}}],
                "responses": _ok({"type": "object"})}},
            "/echo-auth": {"get": {
                "operationId": "echoAuth", "security": [{"token": []}],
                "responses": {"200": {"description": "ok"}}}},
            "/items/{item_id}/delete": {"delete": {
                "operationId": "deleteItem",
                "parameters": [{"name": "item_id", "in": "path", "required": True,
                                "schema": {"type": "string"}}],
                "responses": {"204": {"description": "gone"}}}},
            "/broken": {"get": {
                "operationId": "broken",
                "parameters": [{"name": "x", "in": "query",
                                "schema": {"$ref": "#/components/schemas/Missing"}}],
                "responses": {"200": {"description": "ok"}}}},
        },
    }


def _sha(request: Request) -> str | None:
    value = request.headers.get("authorization")
    return hashlib.sha256(value.encode()).hexdigest() if value is not None else None


async def get_item(request: Request) -> Response:
    verbose = request.query_params.get("verbose")
    body: dict[str, Any] = {"id": request.path_params["item_id"]}
    if verbose is not None:
        body["verbose"] = verbose == "true"
    return JSONResponse(body)


async def items(request: Request) -> Response:
    if request.method == "POST":
        return JSONResponse({"created": await request.json(),
                             "content_type": request.headers.get("content-type")})
    limit = int(request.query_params.get("limit", "2000"))
    return JSONResponse([{"id": f"item-{i:05d}", "verbose": False} for i in range(limit)])


async def login(request: Request) -> Response:
    form = await request.form()
    return JSONResponse({"form": dict(form), "content_type": request.headers.get("content-type"),
                         "tenant": request.headers.get("x-tenant")})


async def missing(request: Request) -> Response:
    return JSONResponse({"error": f"no thing {request.path_params['id']}"}, status_code=404)


async def me(request: Request) -> Response:
    return JSONResponse({"auth_sha": _sha(request), "n": request.query_params.get("n"),
                         "tenant": request.headers.get("x-tenant")})


async def echo_auth(request: Request) -> Response:
    return JSONResponse({"authorization": request.headers.get("authorization")})


async def delete_item(request: Request) -> Response:
    return Response(status_code=204)


async def moved(request: Request) -> Response:
    """A redirect to another origin (never followed there) carrying the bearer token in its
    query, percent-encoded. Not in :func:`document`: a test adds the operation it needs."""
    token = request.headers.get("authorization", "").partition(" ")[2]
    return Response(status_code=302, headers={
        "Location": f"https://elsewhere.example/cb?token={quote_plus(token)}&next=%2Fhome"})


SEEN: list[str] = []
"""``"METHOD /raw/path?query"`` of every request the API received, in order."""


class Recording:
    """ASGI middleware appending each request to :data:`SEEN`."""

    def __init__(self, app: Any) -> None:
        self.app = app

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] == "http":
            query = scope["query_string"].decode("latin-1")
            SEEN.append(f"{scope['method']} {scope['raw_path'].decode('latin-1')}"
                        + (f"?{query}" if query else ""))
        await self.app(scope, receive, send)


APP = Starlette(routes=[
    Route("/echo-auth", echo_auth),
    Route("/items/{item_id}/delete", delete_item, methods=["DELETE"]),
    Route("/items/{item_id}", get_item),
    Route("/items", items, methods=["GET", "POST"]),
    Route("/login", login, methods=["POST"]),
    Route("/missing/{id}", missing),
    Route("/me", me),
    Route("/moved", moved),
])
APP.add_middleware(Recording)


def free_port() -> int:
    """A free TCP port on 127.0.0.1 (for a server started as a subprocess)."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])
