"""Pass: a name ``required`` lists that ``properties`` does not declare is declared, with
the schema its value must match.

Contract: *equivalent*. A required name without a property is still a property the
object must hold: its value matches the ``additionalProperties`` schema (any value when
there is none, or when a ``patternProperties`` pattern takes the name instead; JSON Schema
2020-12 sections 10.3.2.1-10.3.2.3). Said so, strict modes keep it: they close every object
to its ``properties`` (OpenAI, DeepSeek: every property required; Claude, Bedrock,
Mistral: ``additionalProperties: false``), which left the required name sendable by no
call, and validate refused each one. An object closed by the document
(``additionalProperties: false``) that requires an undeclared name accepts nothing, and
is left as written; so is one with ``unevaluatedProperties`` (and no
``additionalProperties``): a declared name is evaluated, so the keyword would no longer
apply to it (``unevaluatedProperties: false`` forbids the name unless a subschema
evaluates it; declared, any value passed).
"""

from __future__ import annotations

from typing import Any

import jsonschema_rs

from httpllm._types import Schema
from httpllm.normalize._context import PassContext, acts_on

__all__ = ["required_properties", "undeclared_schema", "unevaluated"]


@acts_on("required")
def required_properties(node: dict[str, Any], ctx: PassContext) -> Schema:
    """Declare in ``properties`` each name of ``required`` it lacks, with the value schema
    ``additionalProperties`` gives it (``{}``: any value). Only an object that declares
    properties: a bare ``{"required": [...]}`` (a union member's presence test) is left
    alone.

    >>> required_properties({"properties": {"a": {}}, "required": ["a", "b"],
    ...                      "additionalProperties": {"type": "integer"}}, CTX)["properties"]
    {'a': {}, 'b': {'type': 'integer'}}
    """
    props = node.get("properties")
    required = node.get("required")
    if not isinstance(props, dict) or not props or not isinstance(required, list):
        return node
    missing = [n for n in dict.fromkeys(required) if isinstance(n, str) and n not in props]
    extra = node.get("additionalProperties", True)
    if not missing or extra is False or unevaluated(node):
        return node
    declared = dict(props)
    for name in missing:
        declared[name] = undeclared_schema(node, name)
    return {**node, "properties": declared}


def unevaluated(node: dict[str, Any]) -> bool:
    """Whether ``unevaluatedProperties`` constrains the names ``node`` leaves undeclared (it
    says other than ``true`` and no ``additionalProperties`` evaluates them first): declaring
    such a name takes it from that keyword, which is then no longer equivalent.

    >>> unevaluated({"properties": {}, "unevaluatedProperties": False})
    True
    """
    return ("additionalProperties" not in node
            and node.get("unevaluatedProperties", True) is not True)


def undeclared_schema(node: dict[str, Any], name: str) -> Any:
    """The schema the value of ``name``, a property ``node`` does not declare, must match:
    its ``additionalProperties`` (``{}``, any value, when it has none or a
    ``patternProperties`` pattern takes the name; the pattern's schema still applies
    beside it). Not for an object whose ``additionalProperties`` is ``false``."""
    extra = node.get("additionalProperties", True)
    return {} if extra is True or _patterned(node, name) else extra


def _patterned(node: dict[str, Any], name: str) -> bool:
    """Whether a ``patternProperties`` pattern takes ``name`` (then ``additionalProperties``
    does not apply to it). Both come from the document, so the pattern is run by
    jsonschema-rs (ECMA-262 patterns, as JSON Schema reads them, in linear time or under a
    backtracking limit), never by Python's backtracking ``re``: ``(a+)+$`` against a long
    name would hold the compile for ever. A pattern it cannot read counts as taking the
    name: ``{}`` is then wider than the document, never narrower."""
    patterns = node.get("patternProperties")
    if not isinstance(patterns, dict) or not patterns:
        return False
    try:
        return not jsonschema_rs.is_valid(
            {"patternProperties": {p: False for p in patterns if isinstance(p, str)}},
            {name: None})
    except (ValueError, jsonschema_rs.ValidationError):
        return True
