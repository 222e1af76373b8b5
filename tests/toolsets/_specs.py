"""Small OpenAPI documents built in code for the toolsets tests."""

from __future__ import annotations

from pathlib import Path
from typing import Any

PETSTORE = str(Path(__file__).resolve().parents[2] / "specs" / "petstore-3.0.yaml")


def operation(operation_id: str | None, *, tags: tuple[str, ...] = (), summary: str | None = None,
              description: str = "", parameters: int = 0, body: Any = None) -> dict[str, Any]:
    """One operation with ``parameters`` query parameters and an optional JSON body schema;
    the summary defaults to one naming the operation."""
    summary = f"Run {operation_id}" if summary is None else summary
    out: dict[str, Any] = {"responses": {"200": {"description": "ok"}}}
    if operation_id is not None:
        out["operationId"] = operation_id
    if tags:
        out["tags"] = list(tags)
    if summary:
        out["summary"] = summary
    if description:
        out["description"] = description
    if parameters:
        out["parameters"] = [{"name": f"p{i}", "in": "query", "schema": {"type": "string"}}
                             for i in range(parameters)]
    if body is not None:
        out["requestBody"] = {"content": {"application/json": {"schema": body}}}
    return out


def document(paths: dict[str, dict[str, Any]]) -> dict[str, Any]:
    """An OpenAPI 3.1 document with these path items."""
    return {"openapi": "3.1.0", "info": {"title": "t", "version": "1"}, "paths": paths}


def many(count: int, tags: tuple[str, ...] = ("things",)) -> dict[str, Any]:
    """A document with ``count`` GET operations ``op0`` ... each with a distinct summary."""
    return document({f"/things{i}": {"get": operation(f"op{i}", tags=tags,
                                                        summary=f"Thing number {i}")}
                     for i in range(count)})


def deep(levels: int) -> dict[str, Any]:
    """An object schema nesting ``levels`` objects."""
    schema: dict[str, Any] = {"type": "string"}
    for _ in range(levels):
        schema = {"type": "object", "properties": {"x": schema}}
    return schema
