"""Recursion in a rendered schema's root ``$defs``: which definitions are on a cycle (the
ref graph, :class:`httpllm.refs.RefGraph`)."""

from __future__ import annotations

from typing import Any

from httpllm.refs import RefGraph, def_name_of
from httpllm.walk import refs_in

__all__ = ["recursive_defs"]


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
    return {name for ref in refs_in(schema) if (name := def_name_of(ref)) is not None}
