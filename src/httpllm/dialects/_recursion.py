"""Recursion in a rendered schema's root ``$defs``: which definitions are on a cycle (the
ref graph, :class:`httpllm.refs.RefGraph`), and the rule for dialects whose strict mode has
no recursion."""

from __future__ import annotations

from typing import Any

from httpllm._types import Schema
from httpllm.dialects._base import RenderContext
from httpllm.dialects._unroll import unroll
from httpllm.errors import Unrepresentable
from httpllm.pointer import unescape
from httpllm.refs import RefGraph
from httpllm.walk import refs_in

__all__ = ["no_recursion", "recursive_defs"]


def recursive_defs(root: dict[str, Any]) -> list[str]:
    """The names under the root's ``$defs`` that lie on a reference cycle, sorted.

    ``$defs`` holds recursive schemas only with ``reference=False``; with
    ``reference=True`` it holds every named schema, most of them not recursive.
    """
    defs = root.get("$defs")
    if not isinstance(defs, dict):
        return []
    graph = RefGraph.of({name: _local_refs(sub) for name, sub in defs.items()})
    return sorted(graph.recursive & defs.keys())


def _local_refs(schema: Any) -> set[str]:
    """Names of the ``#/$defs/...`` targets a schema refers to."""
    return {unescape(ref[8:].split("/", 1)[0]) for ref in refs_in(schema)
            if ref.startswith("#/$defs/")}


def no_recursion(node: dict[str, Any], ctx: RenderContext) -> Schema:
    """At the root (the node holding ``$defs``): recursive schemas are unrolled
    ``Options.unroll`` levels, or the function leaves strict mode (Anthropic strict:
    "recursive schemas are not supported")."""
    names = recursive_defs(node)
    if not names:
        return node
    if ctx.options.unroll is None:
        ctx.fail(f"recursive schemas ({', '.join(names)}) are not supported in strict mode;"
                 " pass unroll=N to expand them")
        return node
    try:
        out, lost = unroll(node, ctx.options.unroll, ctx.dialect.name, pointer=ctx.pointer)
    except Unrepresentable as exc:
        ctx.fail(exc.message)
        return node
    ctx.losses.extend(lost)
    return out
