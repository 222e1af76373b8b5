"""Shared dialect rules, one module per concern, listed here for the dialects to import.

Node rules (``(node, ctx) -> node``) see a node whose children are already rendered and
return the node (the same object when unchanged); they never drop anything without
``ctx.lose``. ``finish`` steps see the parameters root once.

- :mod:`~httpllm.dialects._keywords`: keep, describe (``@keyword value``) or drop keywords.
- :mod:`~httpllm.dialects._objects`: strict-mode shapes (closed objects, typed nodes, maps).
- :mod:`~httpllm.dialects._recursion`: recursive ``$defs`` (the ref graph), asked by the
  render step ``unroll_rendered`` for strict modes without recursion.
- :mod:`~httpllm.dialects._lossy`: dialects without ``null``, ``const``, booleans, ``allOf``
  or tuples (Gemini, Ollama, OpenAPI 3.0).
"""

from __future__ import annotations

from httpllm.dialects._keywords import (
    CONSTRAINTS,
    JSON_SCHEMA_2020_12,
    Test,
    describe,
    filter_keywords,
    to_description,
)
from httpllm.dialects._lossy import (
    booleans,
    const_as_enum,
    flatten_all_of,
    merge_member,
    null_members,
    nullable_as_flag,
    required_known,
    tuples_as_arrays,
    tuples_as_unions,
)
from httpllm.dialects._objects import (
    close_objects,
    foreign_keywords,
    maps_as_entries,
    ref_alone,
    seal_objects,
    typed_nodes,
)
from httpllm.dialects._recursion import recursive_defs

__all__ = [
    "CONSTRAINTS",
    "JSON_SCHEMA_2020_12",
    "Test",
    "booleans",
    "close_objects",
    "const_as_enum",
    "describe",
    "filter_keywords",
    "flatten_all_of",
    "foreign_keywords",
    "maps_as_entries",
    "merge_member",
    "null_members",
    "nullable_as_flag",
    "recursive_defs",
    "ref_alone",
    "required_known",
    "seal_objects",
    "to_description",
    "tuples_as_arrays",
    "tuples_as_unions",
    "typed_nodes",
]
