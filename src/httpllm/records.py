"""The records that cross stages: :class:`Argument` (one entry of the parameter map),
:class:`Server`, :class:`OperationError` and :class:`Function` (what a model sees for one
operation, plus what the way back to HTTP needs). This module imports nothing above
``_types`` and ``loss``; the way back is :func:`httpllm.execute.validate` and
:func:`httpllm.execute.build_request`, called on a function, never from it."""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, TypeVar

from httpllm._types import JSON, Location, Schema
from httpllm.loss import Loss

__all__ = ["Argument", "Function", "OperationError", "Server", "XmlNode", "evolve"]

_R = TypeVar("_R")


def evolve(record: _R, **changes: Any) -> _R:
    """``dataclasses.replace`` for the frozen, slotted records here (none has a
    ``__post_init__``), copying slots instead of re-running ``__init__``: a quarter of the
    cost, which counts when every function is rebuilt once per dialect (3.4 us instead of
    8.4 us for a :class:`Function`).

    Raises:
        TypeError: a keyword names no field of the record.
    """
    cls: type = type(record)
    copy = _copier(cls)
    if not changes.keys() <= copy.fields:
        raise TypeError(f"{cls.__name__} has no field "
                        f"{sorted(changes.keys() - copy.fields)[0]!r}")
    new: _R = copy(record, changes)
    return new


@functools.cache
def _copier(cls: type) -> Any:
    """``copy(record, changes) -> new record`` for a slotted class: one line per slot
    (a loop over the slots costs twice as much), each slot written through its own
    descriptor, as ``dataclasses`` writes ``__init__``. ``copy.fields``: the slot names."""
    slots: tuple[str, ...] = cls.__slots__  # type: ignore[attr-defined]
    namespace: dict[str, Any] = {"new": object.__new__, "cls": cls}
    lines = ["def copy(record, changes):", "    out = new(cls)"]
    for i, name in enumerate(slots):
        namespace[f"set{i}"] = getattr(cls, name).__set__
        lines.append(f"    set{i}(out, changes[{name!r}] if {name!r} in changes "
                     f"else record.{name})")
    lines.append("    return out")
    exec("\n".join(lines), namespace)  # code built from the class's own slot names
    copy = namespace["copy"]
    copy.fields = frozenset(slots)
    return copy


@dataclass(frozen=True, slots=True, kw_only=True)
class XmlNode:
    """How one schema of an XML request body maps to XML: its XML Object, read at compile
    time (the emended schema drops ``xml``) by :func:`httpllm.compose.xml_object.xml_shape`.

    A body's shape is a tuple of nodes, the root first; ``properties`` and ``items`` name
    other nodes by their index, so a recursive schema is a cycle, not an endless tree.

    Attributes:
        name: the XML Object's ``name``, else (the root only) the name of the component
            its ``$ref`` names; ``None``: the property's name (the array's for its items).
        namespace: the XML Object's ``namespace`` (an absolute URI).
        prefix: the XML Object's ``prefix`` (with ``namespace``).
        node_type: ``element``, ``attribute``, ``text``, ``cdata`` or ``none`` (OpenAPI
            3.2 ``nodeType``; ``attribute: true`` is ``attribute``, ``wrapped: true``
            ``element``); ``None``: ``none`` for an array, ``element`` for anything else.
        properties: the node of each property by name (own, then ``$ref``'d and
            ``allOf``/``anyOf``/``oneOf`` members' in order, the first one kept).
        items: the node of an array's items.

    Source: OpenAPI 3.0.3 / 3.1.1 / 3.2.0 XML Object.
    """

    name: str | None = None
    namespace: str | None = None
    prefix: str | None = None
    node_type: str | None = None
    properties: dict[str, int] = field(default_factory=dict)
    items: int | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class Argument:
    """One property of the keyword parameters object and where it goes in the request.

    Attributes:
        name: the property name the model sees (``"id"``, ``"id__query"``, ``"body"``).
        location: ``"path" | "query" | "header" | "cookie" | "body"``.
        original: the parameter's name in the document (``None`` for the request body).
        required: whether the operation requires it.
        schema: the emended schema of the argument (constraints kept; used by ``validate``).
        style: OpenAPI serialization style (``form``, ``simple``, ``deepObject`` ...), defaults
            applied per location (OpenAPI 3.1 section 4.8.12.4.1).
        explode: OpenAPI ``explode``, default applied (``True`` for ``form``).
        allow_reserved: OpenAPI ``allowReserved`` (query; path too in OpenAPI 3.2).
        allow_empty_value: OpenAPI ``allowEmptyValue`` (query only).
        media_type: for ``content``-based parameters and the body: the media type used
            (``"application/json"``, ``"multipart/form-data"`` ...).
        encoding: for form and multipart bodies (and a form ``querystring``), the Encoding
            Objects by property name.
        querystring: an OpenAPI 3.2 ``in: querystring`` parameter (``location`` is
            ``"query"``): its value is the whole query string, serialized by ``media_type``
            (OpenAPI 3.2.0 section 4.12.1).
        xml: for an XML body or ``content`` parameter (``application/xml``, ``text/xml``,
            ``*/*+xml``), how its schema maps to XML (:class:`XmlNode`, the root first);
            ``None`` otherwise.
        separated: kept out of the model's view (``compile(separate=...)``); the host
            supplies the value at execute time (``host_arguments=``).
    """

    name: str
    location: Location
    original: str | None
    required: bool
    schema: Schema
    style: str | None = None
    explode: bool = False
    allow_reserved: bool = False
    allow_empty_value: bool = False
    media_type: str | None = None
    encoding: dict[str, Any] = field(default_factory=dict)
    querystring: bool = False
    xml: tuple[XmlNode, ...] | None = None
    separated: bool = False

    @property
    def wire_name(self) -> str:
        """The name the request sends: :attr:`original`, or :attr:`name` for the body
        (an empty ``original``, a parameter named ``""``, is sent as it is)."""
        return self.name if self.original is None else self.original


@dataclass(frozen=True, slots=True, kw_only=True)
class Server:
    """A server URL template with its variables' defaults (OpenAPI 3.1 Server Object).

    Attributes:
        url: the URL template, made absolute against ``compile(document_url=...)`` when the
            document gives a relative one (``/api/v1``).
        variables: each variable's ``default``.
        enums: each variable's ``enum`` (only variables that have one), as strings.
    """

    url: str
    variables: dict[str, str] = field(default_factory=dict)
    enums: dict[str, tuple[str, ...]] = field(default_factory=dict)


@dataclass(frozen=True, slots=True, kw_only=True)
class OperationError:
    """An operation that could not be compiled; the rest of the document still compiles.

    Attributes:
        method: HTTP method in lower case (``"get"``), or ``""`` for a whole path item.
        path: the path template (``"/pets/{id}"``).
        pointer: JSON pointer of the offending node.
        message: what went wrong and what was expected.
        kind: the error class name (``"RefError"``, ``"SchemaError"`` ...), or
            ``"InternalError"`` for a fault of httpllm's own met on this operation.
    """

    method: str
    path: str
    pointer: str
    message: str
    kind: str = "SpecError"

    def to_json(self) -> dict[str, str]:
        """The error as a JSON object."""
        return {
            "method": self.method,
            "path": self.path,
            "pointer": self.pointer,
            "message": self.message,
            "kind": self.kind,
        }


@dataclass(frozen=True, slots=True, kw_only=True)
class Function:
    """What a model sees for one operation, and the way back to an HTTP request.

    Attributes:
        name: function name, unique in the application, valid for the provider.
        description: summary + description of the operation (cut to the provider's limit).
        parameters: the JSON schema of the keyword parameters object *as the provider
            receives it* (after the dialect).
        output: emended schema of the success response body (refs inlined as in
            ``parameters``), or ``None``. Computed on first read, for every function of
            the application at once (see :mod:`httpllm.compose.responses`).
        method: HTTP method, lower case.
        path: path template.
        operation_id: the document's ``operationId`` or ``None``.
        tags: the operation's tags.
        deprecated: the operation's ``deprecated`` flag.
        arguments: the parameter map, one :class:`Argument` per property of ``parameters``.
        schema: the emended keyword parameters object before any dialect (constraints kept,
            recursive refs under ``$defs``); ``validate`` checks tool calls against it.
        losses: the loss report of this function for its dialect.
        strict: whether the tool is declared strict to the provider.
        servers: candidate server URLs, most specific first (operation, path item, document).
        security: the operation's security requirements (list of ``{scheme: scopes}``).
        security_schemes: the document's security schemes that ``security`` names.
        pointer: JSON pointer of the operation (``"#/paths/~1pets/get"``).
        examples: example argument objects gathered from the document.
        dialect: name of the dialect that rendered ``parameters``.
        extra: dialect-specific envelope fields (e.g. Claude ``input_examples``).
    """

    name: str
    description: str
    parameters: Schema
    method: str
    path: str
    operation_id: str | None
    tags: tuple[str, ...]
    deprecated: bool
    arguments: tuple[Argument, ...]
    schema: Schema
    losses: tuple[Loss, ...] = ()
    strict: bool = False
    servers: tuple[Server, ...] = ()
    security: tuple[dict[str, list[str]], ...] = ()
    security_schemes: dict[str, JSON] = field(default_factory=dict)
    pointer: str = ""
    examples: tuple[JSON, ...] = ()
    dialect: str = "3.1"
    extra: dict[str, JSON] = field(default_factory=dict)
    output_source: Callable[[], Schema | None] | None = field(default=None, repr=False,
                                                               compare=False)
    """Gives ``output`` when first read (``None``: no success response schema)."""

    @property
    def output(self) -> Schema | None:
        """The emended success response schema, or ``None`` (see the class attributes)."""
        return self.output_source() if self.output_source is not None else None

    def argument(self, name: str) -> Argument | None:
        """The parameter-map entry for a property of ``parameters``, or ``None``."""
        for arg in self.arguments:
            if arg.name == name:
                return arg
        return None

    def to_json(self) -> dict[str, JSON]:
        """The function as a JSON object (parameters, output, map, losses)."""
        return {
            "name": self.name,
            "description": self.description,
            "parameters": self.parameters,
            "output": self.output,
            "method": self.method,
            "path": self.path,
            "operation_id": self.operation_id,
            "tags": list(self.tags),
            "deprecated": self.deprecated,
            "strict": self.strict,
            "arguments": {
                a.name: {"in": a.location, "name": a.original, "required": a.required,
                         **({"separated": True} if a.separated else {})}
                for a in self.arguments
            },
            "losses": [loss.to_json() for loss in self.losses],
        }
