"""The context every normalize pass receives."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any, TypeVar

from httpllm._types import Direction, Schema
from httpllm.loss import Loss
from httpllm.refs import def_name_of

__all__ = ["ANNOTATIONS", "EXCLUSIVE", "GATES", "KEEPS", "OPENAPI_ONLY", "TYPE_GATES",
           "TYPE_NAMES", "PassContext", "acts_on", "canonical", "describes", "is_ref", "keeps",
           "opens", "ref_name", "types_of", "value_key"]

ANNOTATIONS = frozenset(
    {"title", "description", "default", "examples", "deprecated", "readOnly", "writeOnly",
     "$comment"}
)
"""Keywords that describe but do not constrain (JSON Schema 2020-12 Meta-Data vocabulary)."""

OPENAPI_ONLY = frozenset(
    {"example", "examples", "xml", "externalDocs", "discriminator", "nullable", "$id",
     "$anchor", "$dynamicAnchor", "$recursiveAnchor", "$schema", "$vocabulary", "$defs",
     "definitions", "$comment"}
)
"""Keywords the emended form does not keep: OpenAPI's own (``example``, ``xml`` ...) and
identifiers that would change how a ``$ref`` resolves (every ``$ref`` points into the
root ``$defs``). ``x-*`` extensions go too, but for :data:`EXCLUSIVE`."""

EXCLUSIVE = "x-httpllm-oneOf"
"""The private mark of an *exclusive* union: an emended ``anyOf`` that the document wrote as
a ``oneOf`` whose alternatives may overlap (``{"anyOf": [A, B], "x-httpllm-oneOf": true}``).
The emended form keeps one union keyword, so every pass and dialect rule reads ``anyOf``;
``execute.validate`` reads the mark as ``oneOf`` (exactly one alternative), and the renderer
spells it ``oneOf`` or ``anyOf`` (with a loss) and never lets it reach a tool. It belongs to
the ``anyOf`` beside it: a pass that moves or rebuilds that ``anyOf`` moves the mark with it,
or drops it where exclusivity no longer holds."""


def _unflagged(name: str, flag: str) -> bool:
    return False


def _discard(loss: Loss) -> None:
    return None


def _no_subtypes() -> list[tuple[str, list[str]]]:
    return []


canonical: Callable[[Any], str] = json.JSONEncoder(sort_keys=True, default=str).encode
"""A value's JSON text with sorted keys, for comparing schemas and values by content (one
encoder for every call: ``json.dumps`` with options builds one per call)."""


def value_key(value: Any) -> str:
    """Equal JSON values get equal keys: ``1`` and ``1.0`` are one number, at any depth
    (``[1]`` and ``[1.0]`` are one array); ``true`` is not ``1``.

    >>> value_key([1.0, {"a": 2.0}]) == value_key([1, {"a": 2}]), value_key(True) == "1"
    (True, False)
    """
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    elif isinstance(value, (list, dict)):
        value = _integral(value)
    return canonical(value)


def _integral(value: Any) -> Any:
    """``value`` with every float that holds an integer written as that integer (the depth
    of a document's values is bounded by ``httpllm.load``'s limits)."""
    if isinstance(value, float):
        return int(value) if value.is_integer() else value
    if isinstance(value, list):
        return [_integral(v) for v in value]
    if isinstance(value, dict):
        return {k: _integral(v) for k, v in value.items()}
    return value


class _WeaklyHeld:
    """A weak-reference slot for a slotted dataclass (``weakref_slot=True`` is Python 3.11+):
    a named schema's ``resolve`` reads its context through a weak reference, so that the
    context and its callbacks form no reference cycle."""

    __slots__ = ("__weakref__",)


@dataclass(slots=True)
class PassContext(_WeaklyHeld):
    """What a pass may know besides the node: one typed object, no globals.

    Attributes:
        direction: ``"request"`` or ``"response"``.
        pointer: the JSON pointer of the node being normalized (set by the walker).
        resolve: ``def name -> emended schema`` of a named schema in this direction, or
            ``None`` when it cannot be had yet (it is being emended: a cycle).
        resolve_base: like ``resolve``, but the schema without its unions (``oneOf``,
            ``anyOf``, ``discriminator``): what an ``allOf`` child inherits from a parent
            that lists the child among its variants.
        name_of: raw ``$ref`` string (as written in the document) -> def name, or ``None``.
        report: records a problem that was kept rather than guessed ``(pointer, message)``.
        examples: ``pointer -> example values`` kept aside from ``example``/``examples``;
            ``None``: none are kept (no reader: the response direction's).
        root: the pointer of the named schema being emended (``None`` for an inline one):
            at its root, an ``allOf`` of one ``$ref`` may be inheritance.
        flagged: ``(def name, "readOnly" | "writeOnly") -> bool``: whether the named schema,
            as the document writes it, carries the flag (on itself, through ``$ref``s, an
            ``allOf`` member or every non-null union member); never emends anything.
        lose: records a :class:`~httpllm.loss.Loss` for something a pass dropped (a
            property the direction excludes); the compile attaches it to each function
            that reaches the schema.
        subtypes: ``() -> [(def name, tag values)]``: when the named schema being emended
            is an inheritance-style parent (a ``discriminator`` without ``oneOf``/``anyOf``),
            its subtypes; ``[]`` otherwise.
    """

    direction: Direction
    resolve: Callable[[str], Schema | None]
    resolve_base: Callable[[str], Schema | None]
    name_of: Callable[[str], str | None]
    report: Callable[[str, str], None]
    pointer: str = "#"
    examples: dict[str, list[Any]] | None = field(default_factory=dict)
    root: str | None = None
    flagged: Callable[[str, str], bool] = _unflagged
    lose: Callable[[Loss], None] = _discard
    subtypes: Callable[[], list[tuple[str, list[str]]]] = _no_subtypes


GATES: dict[Callable[..., Any], frozenset[str]] = {}
"""``pass -> keywords``: a node holding none of them is one the pass returns as it is, so
the walker does not call the pass on it (see :func:`acts_on`)."""

TYPE_NAMES = frozenset({"string", "number", "integer", "boolean", "array", "object", "null"})
"""The JSON type names a ``type`` may hold (JSON Schema Validation 2020-12 section 6.1.1)."""

TYPE_GATES: dict[Callable[..., Any], frozenset[str]] = {}
"""``pass -> type names``, for a pass whose gate holds ``type`` but that acts on a node's
``type`` only when it is a list, a name not in :data:`TYPE_NAMES`, or one of these names:
a node whose ``type`` is another one name, and that holds no other keyword of the gate, is
one the pass returns as it is (see :func:`acts_on`)."""

_F = TypeVar("_F", bound=Callable[..., Any])


def acts_on(*keywords: str, types: tuple[str, ...] | None = None) -> Callable[[_F], _F]:
    """Declare that a pass returns every node holding none of ``keywords`` unchanged (and
    says nothing about it): the walker then skips the call with one set operation, which
    costs less than the call (most nodes hold a ``type`` and a ``description`` only, and
    every node goes through every pass). ``types`` (with ``type`` among ``keywords``):
    the single type names on which the pass may act; a node whose ``type`` is another
    name of :data:`TYPE_NAMES` counts as not holding ``type`` (:data:`TYPE_GATES`)."""
    gate = frozenset(keywords)
    if types is not None and "type" not in gate:
        raise ValueError("types= narrows a gate that holds `type`")

    def mark(step: _F) -> _F:
        GATES[step] = gate
        if types is not None:
            TYPE_GATES[step] = frozenset(types)
        return step

    return mark


KEEPS: dict[Callable[..., Any], frozenset[str]] = {}
"""``pass -> keywords``: a node holding no keyword but these is one the pass returns as it
is (see :func:`keeps`), for a pass that may act on any other keyword (``x-*`` ...)."""


def keeps(*keywords: str) -> Callable[[_F], _F]:
    """Declare that a pass returns every node whose keywords are all among ``keywords``
    unchanged (and says nothing about it): the gate of a pass that acts on every keyword
    but a few (:func:`acts_on` names the few it acts on)."""
    kept = frozenset(keywords)

    def mark(step: _F) -> _F:
        KEEPS[step] = kept
        return step

    return mark


def opens(step: Callable[..., Any], keys: Iterable[str], kind: str | None) -> bool:
    """Whether the gate of ``step`` (:func:`acts_on`, :func:`keeps`) lets in a node
    holding ``keys`` whose ``type`` is ``kind`` (``None``: absent, or not one name). A
    pass without a gate takes every node."""
    gate = GATES.get(step)
    if gate is None:
        kept = KEEPS.get(step)
        return kept is None or not kept.issuperset(keys)
    held = gate.intersection(keys)
    if held != {"type"} or kind is None or kind not in TYPE_NAMES:
        return bool(held)
    return kind in TYPE_GATES.get(step, TYPE_NAMES)


def describes(key: str) -> bool:
    """Whether a keyword describes rather than constrains: an annotation, an OpenAPI-only
    keyword or an ``x-`` extension. Such keywords stay on the outside of a union a pass
    builds around a node (where the direction pass drops the OpenAPI-only ones).
    :data:`EXCLUSIVE` constrains: it stays with its ``anyOf``."""
    return key in ANNOTATIONS or key in OPENAPI_ONLY or (key.startswith("x-")
                                                         and key != EXCLUSIVE)


def types_of(node: dict[str, Any]) -> set[str] | None:
    """The JSON types ``node``'s ``type`` names (``"string"`` or a list of them); ``None``
    when it names none. Entries that are not strings are ignored."""
    kind = node.get("type")
    if isinstance(kind, str):
        return {kind}
    return {k for k in kind if isinstance(k, str)} if isinstance(kind, list) else None


def is_ref(node: Any) -> bool:
    """Whether ``node`` is a ``$ref`` (possibly with annotation siblings)."""
    return isinstance(node, dict) and isinstance(node.get("$ref"), str)


def ref_name(node: dict[str, Any]) -> str:
    """The def name of an emended ``{"$ref": "#/$defs/Name"}``."""
    ref: str = node["$ref"]
    return def_name_of(ref) or ref  # a ref to no entry names no schema a pass can find
