"""A ``finish`` step for nesting limits: ``Options.max_depth`` object/array levels below
each argument, deeper parts an error or (``collapse_deep``) JSON text."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from httpllm._types import Schema
from httpllm.dialects._base import RenderContext
from httpllm.errors import Unrepresentable
from httpllm.pointer import escape, unescape
from httpllm.walk import children, transform

if TYPE_CHECKING:
    from httpllm.records import Function

__all__ = ["limit_depth"]


def _nests(node: Any) -> bool:
    if not isinstance(node, dict):
        return False
    kind = node.get("type")
    kind = kind.lower() if isinstance(kind, str) else ""
    return kind in ("object", "array") or "properties" in node or "items" in node


def _too_deep(parameters: dict[str, Any], limit: int) -> list[tuple[str, Any]]:
    """``(pointer, node)`` of the first nodes, pre-order, nested deeper than ``limit``."""
    found: list[tuple[str, Any]] = []
    props = parameters.get("properties")
    stack: list[tuple[Any, str, int]] = [
        (sub, f"parameters#/properties/{escape(name)}", 0)
        for name, sub in reversed(list(props.items() if isinstance(props, dict) else ()))
    ]
    while stack:
        node, at, level = stack.pop()
        if not isinstance(node, dict):
            continue
        kids = []
        for keyword, key, sub in children(node):
            where = f"{at}/{keyword}" if key is None else f"{at}/{keyword}/{escape(key)}"
            deeper = level + (1 if _nests(sub) else 0)
            if deeper > limit:
                found.append((where, sub))
            else:
                kids.append((sub, where, deeper))
        stack.extend(reversed(kids))
    return found


def _as_json_text(node: dict[str, Any], at: str, limit: int) -> dict[str, Any]:
    label = node.get("title") or unescape(at.rsplit("/", 1)[-1])
    if label in ("items", "additionalProperties") or label.isdigit():
        label = "value"
    text = f"JSON-encoded {label}: send this value as JSON text."
    shape = json.dumps(node, ensure_ascii=False, separators=(",", ":"))
    if len(shape) <= 1000:
        text += f" Its JSON Schema: {shape}"
    out: dict[str, Any] = {"type": "string", "description": text}
    if node.get("nullable") is True:
        out["nullable"] = True
    return out


def limit_depth(parameters: Schema, function: Function, ctx: RenderContext) -> Schema:
    """A ``finish`` step: enforce ``Options.max_depth``, object/array levels below each
    argument (the argument itself is level 0: in bug case C29, ``sections`` is 1, a
    ``Section`` 2, ``blocks`` 3, a ``Block`` 4, ``rows`` 5).

    Past the limit the function is an error naming the first path that is too deep; with
    ``Options.collapse_deep`` each subtree starting past the limit becomes a string of JSON
    text (``{"type": "string", "description": "JSON-encoded rows: ..."}``) with a loss
    entry, and ``execute.decode`` JSON-decodes it (guided by ``Function.schema``).

    Raises:
        Unrepresentable: too deep and ``collapse_deep`` is off.

    Source: "A FunctionDeclaration in the request exceeds the maximum allowed nesting depth"
    (google-gemini/gemini-cli#5923; the limit is not documented).
    """
    limit = ctx.options.max_depth
    if limit is None or not isinstance(parameters, dict):
        return parameters
    found = _too_deep(parameters, limit)
    if not found:
        return parameters
    if not ctx.options.collapse_deep:
        raise Unrepresentable(
            f"{function.name}: {found[0][0]} nests deeper than max_depth={limit} object/array "
            "levels; pass collapse_deep=True to send deeper parts as JSON text",
            pointer=function.pointer or None)
    targets = dict(found)

    def visit(node: dict[str, Any], at: str) -> Schema:
        if at not in targets:
            return node
        ctx.pointer = at
        ctx.lose("type", "rewritten", None, f"nested deeper than max_depth={limit}: JSON text")
        return _as_json_text(targets[at], at, limit)

    return transform(parameters, visit, pointer="parameters#")
