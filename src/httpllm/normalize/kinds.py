"""Pass: a keyword whose value has the wrong JSON type leaves the schema, with a loss.

``pattern: 5``, ``format: 7``, ``uniqueItems: "yes"``, ``type: "strnig"`` or
``type: ["string", 5]`` were sent to every provider as written (a strict provider refuses
the whole tool list over one); ``nullable: "true"``, ``readOnly: "yes"`` were ignored
without a word (dropped, they are read as absent, as before, and said); ``title: 5``,
``description: {}``, ``contentEncoding: 5`` made Ajv refuse the schema (``must be
string``, under its draft-07 meta-schema) and are dropped too, as are ``type: null`` and
``description: null`` (YAML's empty ``type:``, ``description:``), once read as absent. Each such
keyword is dropped; a ``type`` list keeps the type names it holds and loses the rest
(``rewritten``), and so does ``required`` (``required: true`` on a property, as OpenAPI
2.0 wrote it, ``required: null``, ``required: [{...}]``): this pass comes before
``allOf`` merging and ``required_properties``, so they read a list of names (a
``required`` holding an object raised ``TypeError`` there, and the document was lost).
A name ``required`` lists twice is kept once. An ``enum`` that is no list is dropped; one
that lists a value twice (equal as JSON values: ``1`` and ``1.0``) keeps it once; an
empty one, which no value satisfies, is written ``not: {}``, which says the same. Ajv,
the validator of the MCP TypeScript SDK and of the hosts built on it, refuses a schema
with any of these (``enum must have non-empty array``, ``must NOT have duplicate items``
under its draft-07 meta-schema): a client that compiles a listed ``outputSchema`` lists no
tool at all. Numeric keywords are :mod:`httpllm.normalize.numbers`' job.

In the request direction each is a :class:`~httpllm.loss.Loss` at the keyword's document
pointer; in the response direction a warning. Contract: *widening* (reported) for an
assertion (the schema takes what it refused); *equivalent* for the flags, which the later
passes read only when ``true``.
Source: JSON Schema Validation 2020-12 sections 6.1.1 (``type``: a type name or an array
of unique ones), 6.3.3 (``pattern``: a string), 6.4.3 (``uniqueItems``: a boolean), 7.2
(``format``: a string), 9.4 (``readOnly``, ``writeOnly``: booleans); OpenAPI 3.0.3
section 4.7.24.1 (``nullable``: a boolean); JSON Schema Validation 2020-12 section 6.5.3
(``required``: an array of strings), 9.1 (``title``, ``description``: strings), 8.3
and 8.4 (``contentEncoding``, ``contentMediaType``: strings); JSON Schema Core 2020-12
section 8.3 (``$comment``: a string); 6.1.2 (``enum``: an array, its elements SHOULD be
unique; an instance is valid if equal to one of them); Ajv 8.20 (``enum``: non-empty).
"""

from __future__ import annotations

from typing import Any

from httpllm._json import kind
from httpllm._types import Schema
from httpllm.loss import Action, Loss
from httpllm.normalize._context import PassContext, acts_on, value_key

__all__ = ["distinct", "kinds"]

_TYPES = frozenset({"string", "number", "integer", "boolean", "array", "object", "null"})
_EXPECTED: dict[str, tuple[type, str, str]] = {
    "pattern": (str, "a string (a regular expression)", "values it refused are taken"),
    "format": (str, "a string", "values it refused are taken"),
    "uniqueItems": (bool, "a boolean", "values it refused are taken"),
    "nullable": (bool, "a boolean", "read as absent: null is not taken"),
    "readOnly": (bool, "a boolean", "read as absent"),
    "writeOnly": (bool, "a boolean", "read as absent"),
    "title": (str, "a string", "an annotation: no value is taken or refused over it"),
    "description": (str, "a string", "an annotation: no value is taken or refused over it"),
    "$comment": (str, "a string", "an annotation: no value is taken or refused over it"),
    "contentEncoding": (str, "a string", "an annotation: no value is taken or refused over "
                        "it"),
    "contentMediaType": (str, "a string", "an annotation: no value is taken or refused "
                         "over it"),
}
"""keyword -> (its JSON type, that type in words, what dropping it means)."""
_FLAGS = frozenset(_EXPECTED)
_CHECKED = _FLAGS | {"type", "required", "enum"}


@acts_on(*_CHECKED, types=())
def kinds(node: dict[str, Any], ctx: PassContext) -> Schema:
    """Drop each keyword whose value is not of the JSON type its keyword takes.

    >>> kinds({"type": "string", "pattern": 5}, CTX)
    {'type': 'string'}
    """
    given = node.get("type", "string")  # absent reads as a type name; `type: null` is none
    if (given.__class__ is str and given in _TYPES) and _names(
            node.get("required", ())) and ("enum" not in node or distinct(node["enum"])):
        if _FLAGS.isdisjoint(node):
            return node  # the common case: keep it cheap
        for keyword in _FLAGS.intersection(node):
            if not isinstance(node[keyword], _EXPECTED[keyword][0]):
                break
        else:
            return node  # a string format, a boolean flag
    out: dict[str, Any] | None = None
    for keyword, (wanted, says, meaning) in _EXPECTED.items():
        value = node.get(keyword, wanted)
        if keyword in node and not isinstance(value, wanted):
            out = dict(node) if out is None else out
            del out[keyword]
            _record(ctx, keyword, "dropped", value, f"{keyword} dropped: expected {says}, "
                    f"not {_shown(value)}; {meaning}")
    if "type" in node and not _typed(given):
        out = dict(node) if out is None else out
        _type(out, given, ctx)
    if "required" in node and not _names(node["required"]):
        out = dict(node) if out is None else out
        _required(out, node["required"], ctx)
    if "enum" in node and not distinct(node["enum"]):
        out = dict(node) if out is None else out
        _enum(out, node["enum"], ctx)
    return node if out is None else out


def distinct(values: Any) -> bool:
    """Whether an ``enum`` or ``required`` value is a non-empty list of distinct values
    (equal as JSON values: ``1`` and ``1.0`` are one; ``true`` is not ``1``).

    >>> distinct(["a", "b"]), distinct([1, 1.0]), distinct([])
    (True, False, False)
    """
    if values.__class__ is not list or not values:
        return False
    if all(v.__class__ is str for v in values):  # the common case: no JSON text made
        return len(set(values)) == len(values)
    return len({value_key(v) for v in values}) == len(values)


def _enum(out: dict[str, Any], given: Any, ctx: PassContext) -> None:
    """``enum`` with each value once; ``not: {}`` for an empty one; dropped when it is no
    list."""
    if not isinstance(given, list):
        del out["enum"]
        _record(ctx, "enum", "dropped", given, f"enum dropped: expected a list of values, "
                f"not {_shown(given)}; values it refused are taken")
    elif not given:
        del out["enum"]
        out["not"] = {}
        _record(ctx, "enum", "rewritten", None, "enum [] allows no value: written not: {}, "
                "which says the same (Ajv refuses an empty enum)")
    else:
        seen: dict[str, Any] = {}
        for value in given:
            seen.setdefault(value_key(value), value)
        out["enum"] = list(seen.values())
        _record(ctx, "enum", "rewritten", None, f"enum lists {len(given) - len(seen)} "
                "value(s) more than once: each is kept once (Ajv refuses duplicates)")


def _names(value: Any) -> bool:
    """Whether ``required`` holds property names only, each once (absent reads as
    ``()``)."""
    return (value.__class__ in (list, tuple) and all(n.__class__ is str for n in value)
            and len(set(value)) == len(value))


def _required(out: dict[str, Any], given: Any, ctx: PassContext) -> None:
    """``required`` with the property names it holds, each once; dropped when it holds
    none."""
    names = list(dict.fromkeys(n for n in given if isinstance(n, str))) if isinstance(
        given, (list, tuple)) else []
    if names and all(isinstance(n, str) for n in given):  # only a name listed twice
        out["required"] = names
        _record(ctx, "required", "rewritten", None, f"required lists {len(given) - len(names)}"
                " name(s) more than once: each is kept once (Ajv refuses duplicates)")
        return
    # The kinds of what is no name, never the value itself: it may be large.
    others = (" and ".join(sorted({kind(n) for n in given if not isinstance(n, str)}))
              if isinstance(given, list) else kind(given))
    if names:
        out["required"] = names
        _record(ctx, "required", "rewritten", None, f"required holds {others} besides "
                f"property names: only the names are kept, {names!r}"[:300])
    else:
        del out["required"]
        shown = f"a list holding {others}" if isinstance(given, list) else others
        _record(ctx, "required", "dropped", None, "required dropped: expected a list of "
                f"property names, not {shown}; no property is required")


def _typed(value: Any) -> bool:
    """Whether ``type`` holds a type name or a list of distinct ones."""
    if isinstance(value, str):
        return value in _TYPES
    return (isinstance(value, list) and bool(value) and all(
        isinstance(t, str) and t in _TYPES for t in value) and len(set(value)) == len(value))


def _type(out: dict[str, Any], given: Any, ctx: PassContext) -> None:
    """``type`` with the names it holds, each once; dropped when none is left."""
    names = list(dict.fromkeys(t for t in (given if isinstance(given, list) else [given])
                               if isinstance(t, str) and t in _TYPES))
    if names:
        out["type"] = names[0] if len(names) == 1 and not isinstance(given, list) else names
        _record(ctx, "type", "rewritten", given, f"type {_shown(given)} is {names!r}: only "
                f"the type names {', '.join(sorted(_TYPES))} are kept, each once")
    else:
        del out["type"]
        _record(ctx, "type", "dropped", given, f"type dropped: expected a type name ("
                f"{', '.join(sorted(_TYPES))}) or a list of them, not {_shown(given)}; "
                "values of any type are taken")


def _shown(value: Any) -> str:
    return repr(value) if isinstance(value, (str, int, float, list)) else kind(value)


def _record(ctx: PassContext, keyword: str, action: Action, value: Any, note: str) -> None:
    if ctx.direction == "request":
        shown = value if isinstance(value, (str, int, float, bool)) else None  # hashed
        ctx.lose(Loss(pointer=f"{ctx.pointer}/{keyword}", keyword=keyword, action=action,
                      value=shown, note=note))
    else:
        ctx.report(f"{ctx.pointer}/{keyword}", note)
