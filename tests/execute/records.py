"""`Function` and `Argument` records built by hand, so these tests do not need the compiler."""

from __future__ import annotations

from typing import Any

from httpllm.records import Argument, Function, Server

API = "https://api.example.com"


def function(
    *arguments: Argument,
    path: str = "/things",
    method: str = "get",
    strict: bool = False,
    schema: dict[str, Any] | None = None,
    servers: tuple[Server, ...] = (Server(url=API),),
    security: tuple[dict[str, list[str]], ...] = (),
    security_schemes: dict[str, Any] | None = None,
    extra: dict[str, Any] | None = None,
    name: str = "op",
) -> Function:
    """A function over `arguments`; its schema is built from theirs unless given."""
    if schema is None:
        schema = {
            "type": "object",
            "properties": {a.name: a.schema for a in arguments},
            "required": [a.name for a in arguments if a.required],
        }
    return Function(
        name=name,
        description="",
        parameters=schema,
        method=method,
        path=path,
        operation_id=name,
        tags=(),
        deprecated=False,
        arguments=arguments,
        schema=schema,
        strict=strict,
        servers=servers,
        security=security,
        security_schemes=security_schemes or {},
        extra=extra or {},
        pointer=f"#/paths/{path.replace('/', '~1')}/{method}",
    )


def param(
    location: str,
    name: str,
    schema: Any = None,
    *,
    style: str | None = "",
    explode: bool | None = None,
    required: bool = False,
    original: str | None = None,
    **extra: Any,
) -> Argument:
    """A path/query/header/cookie argument with OpenAPI's defaults for style and explode."""
    default_style = {"path": "simple", "query": "form", "header": "simple", "cookie": "form"}
    if style == "":
        style = default_style[location]
    if explode is None:
        explode = style == "form"
    return Argument(
        name=name,
        location=location,  # type: ignore[arg-type]
        original=original or name,
        required=required or location == "path",
        schema=schema if schema is not None else {"type": "string"},
        style=style,
        explode=explode,
        **extra,
    )


def body(
    schema: Any,
    media_type: str = "application/json",
    *,
    required: bool = True,
    encoding: dict[str, Any] | None = None,
    name: str = "body",
) -> Argument:
    """The request body argument."""
    return Argument(
        name=name,
        location="body",
        original=None,
        required=required,
        schema=schema,
        media_type=media_type,
        encoding=encoding or {},
    )
