"""Raw document -> :class:`Document`: the version check and the typed view of operations.

OpenAPI 3.0, 3.1 and 3.2 are read here (a Swagger 2.0 document arrives upgraded to 3.0 by
:mod:`httpllm.upgrade`); a 3.2 document is read with the 3.1 models, its ``query`` method
and ``additionalOperations`` listed as operations like the others.
openapi-pydantic (3.0 and 3.1 models) validates each operation's *structure*
(parameters, request body, names) one operation at a time, so one malformed
operation is reported and the others compile. Schemas inside are left to the normalize
passes, which read them as plain JSON (validating a whole 13 MB document with
openapi-pydantic costs about 0.5 s; see docs/pitfalls.md). An operation whose every
field the models read has exactly the JSON type they declare (:func:`plainly_valid`: most
operations of real documents) is accepted without them, so that a compile imports
pydantic and openapi-pydantic (0.15-0.2 s) only for an operation that needs their verdict.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol

from httpllm._json import kind
from httpllm._vocabulary import METHODS, METHODS_32
from httpllm.errors import HttpllmError, SpecError
from httpllm.pointer import escape, join
from httpllm.records import OperationError

__all__ = ["METHODS", "ComponentMap", "Document", "OperationFields", "OperationSite",
           "OperationValidator", "component_entries", "component_map", "parse",
           "plainly_valid"]

_VERSION = re.compile(r"^3\.(0|1|2)\.\d+(-.+)?$")
_SCHEMA = {"$ref": "#"}
"""What a Schema Object is replaced by in the skeleton: schemas are read by the normalize
passes, not here, and a Reference Object (one field) is the cheapest thing the models
accept in their place (a ``{}`` becomes a Schema model of 35 or 52 fields, against
three)."""


@dataclass(frozen=True, slots=True, kw_only=True)
class OperationSite:
    """Where one operation lives.

    Attributes:
        method: lower-case HTTP method.
        path: the path template (key of ``paths``).
        pointer: ``"#/paths/~1pets/get"``.
        node: the raw Operation Object.
        path_item: the raw (resolved) Path Item Object.
        base: URI of the file the path item lives in (relative ``$ref``s resolve from it).
        additional: the OpenAPI 3.2 ``additionalOperations`` key the operation is listed
            under, as written (``"purge"``); ``None`` for a fixed field's (``get`` ...).
    """

    method: str
    path: str
    pointer: str
    node: dict[str, Any]
    path_item: dict[str, Any]
    base: str
    additional: str | None = None


class Resolved(Protocol):
    """A resolved ``$ref`` as the stages below compose read it (a ``refs.Target``)."""

    @property
    def node(self) -> Any: ...
    @property
    def uri(self) -> str: ...
    @property
    def pointer(self) -> str: ...


class Resolver(Protocol):
    """What parse asks of the ``$ref`` resolver, ``refs.Resolver`` (a layer above parse,
    so parse names only what it uses): the root file's URI and ``resolve(ref, base)``."""

    base: str

    def resolve(self, ref: str, base: str) -> Resolved: ...


@dataclass(frozen=True, slots=True, kw_only=True)
class Document:
    """A parsed OpenAPI document.

    Attributes:
        version: ``"3.0"``, ``"3.1"`` or ``"3.2"``.
        root: the raw root document.
        resolver: resolves ``$ref``s (root and other files, through the gate).
        sites: every operation under ``paths``, in document order.
        errors: path items that could not be read (e.g. a ``$ref`` to a missing file).
        label: how the source is named in messages.
    """

    version: str
    root: dict[str, Any]
    resolver: Resolver
    sites: tuple[OperationSite, ...]
    errors: tuple[OperationError, ...]
    label: str


def _kind(value: Any) -> str:
    """What a document's top-level value is, in JSON's terms (``an empty document``)."""
    return "an empty document" if value is None else kind(value)


def _version(root: Any, label: str) -> str:
    if not isinstance(root, dict):
        raise SpecError(f"expected an OpenAPI object at the top, got {_kind(root)}",
                        pointer="#", source=label)
    if "swagger" in root and "openapi" not in root:
        raise SpecError(f"Swagger {root.get('swagger')} is not supported; expected Swagger 2.0 "
                        "or OpenAPI 3.0, 3.1 or 3.2", pointer="#/swagger", source=label)
    version = root.get("openapi")
    if not isinstance(version, str):
        raise SpecError("expected an `openapi` version string (3.0.x, 3.1.x or 3.2.x) "
                        "or `swagger: \"2.0\"`",
                        pointer="#/openapi", source=label)
    match = _VERSION.match(version)
    if not match:
        raise SpecError(f"OpenAPI {version} is not supported; expected 3.0.x, 3.1.x or 3.2.x",
                        pointer="#/openapi", source=label)
    return f"3.{match.group(1)}"


def parse(root: Any, resolver: Resolver, *, label: str) -> Document:
    """Check the version and list the operations of a raw document.

    Raises:
        SpecError: not an OpenAPI 3.0/3.1/3.2 document, or ``paths`` is not an object.
    """
    version = _version(root, label)
    paths, paths_base = _paths(root, resolver, label)
    sites: list[OperationSite] = []
    errors: list[OperationError] = []
    for path, item in paths.items():
        pointer = join("#/paths", path)
        base = paths_base
        try:
            if isinstance(item, dict) and isinstance(item.get("$ref"), str):
                target = resolver.resolve(item["$ref"], base)
                siblings = {k: v for k, v in item.items() if k != "$ref"}
                item = {**target.node, **siblings} if isinstance(target.node, dict) else None
                base = target.uri.split("#", 1)[0]
            if not isinstance(item, dict):
                raise SpecError("expected a Path Item object", pointer=pointer)
        except HttpllmError as exc:
            errors.append(OperationError(method="", path=path, pointer=exc.pointer or pointer,
                                         message=exc.message, kind=type(exc).__name__))
            continue
        folded: dict[str, str] = {}  # additionalOperations keys, upper-cased -> as written
        for method, op, site_pointer, additional in _operations(item, pointer, version):
            refused = None if additional is None else _refused_method(additional, folded)
            if refused is not None:
                errors.append(OperationError(method=method, path=path, pointer=site_pointer,
                                             message=refused))
                continue
            op_base = base
            if isinstance(op, dict) and isinstance(op.get("$ref"), str):
                try:  # not in the specification, but common in split documents
                    target = resolver.resolve(op["$ref"], base)
                except HttpllmError as exc:
                    errors.append(OperationError(method=method, path=path,
                                                 pointer=exc.pointer or site_pointer,
                                                 message=exc.message, kind=type(exc).__name__))
                    continue
                op, op_base = target.node, target.uri.split("#", 1)[0]
            if not isinstance(op, dict):
                errors.append(OperationError(method=method, path=path, pointer=site_pointer,
                                             message="expected an Operation object"))
                continue
            sites.append(OperationSite(method=method, path=path, pointer=site_pointer,
                                       node=op, path_item=item, base=op_base,
                                       additional=additional))
    return Document(version=version, root=root, resolver=resolver, sites=tuple(sites),
                    errors=tuple(errors), label=label)


def _paths(root: dict[str, Any], resolver: Resolver, label: str) -> tuple[dict[str, Any], str]:
    """The Paths Object and the URI its path items' ``$ref``s resolve against. A ``paths``
    that is itself a ``$ref`` (not in the specification, but how split repositories such
    as googlemaps/openapi-specification keep theirs) is read from its file.

    Raises:
        SpecError: ``paths`` is not an object. RefError, AccessDenied: its ``$ref`` fails.
    """
    paths = root.get("paths", {})
    base = resolver.base
    if isinstance(paths, dict) and len(paths) == 1 and isinstance(paths.get("$ref"), str):
        try:
            target = resolver.resolve(paths["$ref"], base)
        except HttpllmError as exc:
            raise type(exc)(exc.message, pointer="#/paths/$ref", source=label) from exc
        paths, base = target.node, target.uri.split("#", 1)[0]
    if paths is None:
        paths = {}
    if not isinstance(paths, dict):
        raise SpecError("expected `paths` to be an object", pointer="#/paths", source=label)
    return paths, base


@dataclass(frozen=True, slots=True)
class ComponentMap:
    """One map of ``components`` (``schemas``, ``securitySchemes``, ``parameters``, ...).

    Attributes:
        entries: the map as written (an entry may still be a Reference Object).
        uri: ``"<file uri>#/pointer"`` of the map: an entry's is ``uri + "/" + key``.
        base: the URI relative ``$ref``s inside the entries resolve against.
    """

    entries: dict[str, Any]
    uri: str
    base: str


def component_map(root: dict[str, Any], resolver: Resolver, section: str) -> ComponentMap:
    """The ``components`` map ``section`` of the document. A map that is itself a ``$ref``
    (not in the specification, whose maps hold entries, but how split repositories such as
    sendgrid/sendgrid-oai keep theirs: ``securitySchemes: {$ref: ./securitySchemes.json}``)
    is read from its file; one whose ``$ref`` does not resolve, or that is not an object,
    is empty here (:func:`httpllm.refs.dangling_refs` reports the ``$ref`` as a warning,
    and what needs an entry of it says which is missing).
    """
    components = root.get("components")
    found = components.get(section) if isinstance(components, dict) else None
    uri, base = f"{resolver.base}#/components/{escape(section)}", resolver.base
    if isinstance(found, dict) and isinstance(found.get("$ref"), str):
        try:
            target = resolver.resolve(found["$ref"], base)
        except HttpllmError:
            return ComponentMap({}, uri, base)
        found, uri, base = target.node, target.uri, target.uri.split("#", 1)[0]
    return ComponentMap(found if isinstance(found, dict) else {}, uri, base)


def component_entries(root: dict[str, Any], resolver: Resolver,
                      section: str) -> dict[str, Any]:
    """The entries of the ``components`` map ``section`` (:func:`component_map`) with each
    Reference Object followed (OpenAPI 3.x allows one for any component but a schema);
    an entry whose ``$ref`` does not resolve is left out (a ``$ref`` in the root document
    is reported by :func:`httpllm.refs.dangling_refs`; an operation that needs the entry
    says it is not defined)."""
    found = component_map(root, resolver, section)
    out: dict[str, Any] = {}
    for name, entry in found.entries.items():
        if isinstance(entry, dict) and isinstance(entry.get("$ref"), str):
            try:
                entry = resolver.resolve(entry["$ref"], found.base).node
            except HttpllmError:
                continue
        out[name] = entry
    return out


def _operations(item: dict[str, Any], pointer: str,
                version: str) -> list[tuple[str, Any, str, str | None]]:
    """``(method, operation, pointer, key)`` of a path item: its fixed methods (key
    ``None``), then (3.2) its ``additionalOperations`` (methods as written, lower-cased:
    ``COPY`` -> ``copy``; the key as written)."""
    fixed = METHODS_32 if version == "3.2" else METHODS
    out: list[tuple[str, Any, str, str | None]] = [
        (m, item[m], f"{pointer}/{m}", None) for m in fixed if item.get(m) is not None]
    extra = item.get("additionalOperations") if version == "3.2" else None
    if isinstance(extra, dict):
        out += [(str(m).lower(), op, f"{pointer}{_ADDITIONAL}{escape(m)}", str(m))
                for m, op in extra.items() if op is not None]
    return out


_METHOD = re.compile(r"[!#$%&'*+.^_`|~0-9A-Za-z-]+")
"""RFC 9110 section 9.1: ``method = token`` (section 5.6.2)."""

_ADDITIONAL = "/additionalOperations/"


def _refused_method(written: str, folded: dict[str, str]) -> str | None:
    """Why the ``additionalOperations`` key ``written`` (as written) cannot be compiled,
    or ``None``: a key that is no HTTP method token (``BAD METHOD``: h11 refused every call,
    "Illegal method characters"), the method of one of the fixed fields (``GET``, any
    case: OpenAPI 3.2.0 section 4.8.9.1 says the map MUST NOT hold it, and it compiled
    into a second function sending ``GET``), or a key equal to an earlier one of the
    path item but for case (``purge`` after ``PURGE``): methods are case-sensitive (RFC
    9110 section 9.1), but the HTTP client (httpx) upper-cases every method, so the two
    were two functions sending the same ``PURGE`` request. ``folded`` holds the keys
    met so far on the path item, upper-cased (this call adds its key)."""
    if _METHOD.fullmatch(written) is None:
        return (f"additionalOperations key {written!r} is no HTTP method (RFC 9110 section "
                "9.1: a token, without spaces, separators or control characters): no request "
                "can carry it")
    if written.lower() in METHODS_32:
        return (f"additionalOperations key {written!r} is the method of the "
                f"`{written.lower()}` field, which the map must not hold (OpenAPI 3.2.0 "
                "section 4.8.9.1): describe the operation there")
    first = folded.setdefault(written.upper(), written)
    if first != written:
        return (f"additionalOperations key {written!r} is {first!r} but for case: the HTTP "
                f"client upper-cases methods, so both would send {written.upper()} "
                "(RFC 9110 section 9.1: methods are case-sensitive); the first is compiled")
    return None


_UNCHECKED = frozenset({"responses", "callbacks", "security", "servers", "externalDocs"})
_AS_IS = frozenset({"summary", "description", "operationId", "tags", "deprecated"})
_LEFT_OUT = frozenset({"example", "examples", "callbacks", "links"})


def _skeleton_shallow(value: Any) -> Any:
    if isinstance(value, dict):
        if len(value) == 1 and "$ref" in value:
            return value  # a Reference Object: nothing to leave out
        return {k: (_SCHEMA if k == "schema" else _skeleton_shallow(v)) for k, v in value.items()
                if k not in _LEFT_OUT}
    if isinstance(value, list):
        return [_skeleton_shallow(v) for v in value]
    return value


class OperationValidator:
    """openapi-pydantic validation of each operation's structure, for one document.

    A Parameter Object given as ``{"$ref": ...}`` is validated once per reference and the
    model reused by every operation that lists it (GitHub's description lists 3,153 such
    references to 175 component parameters); everything else is validated where it is.
    """

    def __init__(self, version: str) -> None:
        self.version = version
        self._references: dict[str, Any] = {}

    def __call__(self, site: OperationSite) -> Any:
        """Validate the operation's structure; return the Operation model (without its
        parameters, each validated on its own: the model is read for names only), or the
        same fields as :class:`OperationFields` when :func:`plainly_valid` vouches for it.

        Raises:
            SpecError: naming the first invalid field's pointer and what was expected.
        """
        fields = plainly_valid(site.node)
        return fields if fields is not None else self.modelled(site)

    def modelled(self, site: OperationSite) -> Any:
        """:meth:`__call__` without :func:`plainly_valid`: always the openapi-pydantic
        models' verdict and Operation model.

        Raises:
            SpecError: naming the first invalid field's pointer and what was expected.
        """
        listing = site.node.get("parameters")
        if isinstance(listing, list):
            for i, raw in enumerate(listing):
                self._parameter_model(raw, site.pointer, i)
        return _validated(_models(self.version)[0], self._skeleton(site), site.pointer)

    @staticmethod
    def _skeleton(site: OperationSite) -> dict[str, Any]:
        """The parts of an operation compile reads (request body, names), without their
        schemas; parameters are validated apart (but a ``parameters`` that is no list is
        left for the model to reject); responses, callbacks and security are read
        defensively instead, so a document that is valid but odd there still compiles.
        Nothing is changed in place: the parts that hold no schema are passed as they are."""
        out: dict[str, Any] = {}
        for key, value in site.node.items():
            if key in _AS_IS:
                out[key] = value
            elif key == "parameters" and isinstance(value, list):
                continue
            elif key not in _UNCHECKED and key[:2] != "x-":
                out[key] = _skeleton_shallow(value)
        out["responses"] = {}  # required by the model; an empty map costs no Response model
        return out

    def _parameter_model(self, raw: Any, pointer: str, index: int) -> Any:
        """The Parameter (or Reference) model of entry ``index`` of the list at
        ``pointer``'s ``parameters``; a ``{"$ref": ...}`` is validated once."""
        ref = raw.get("$ref") if isinstance(raw, dict) and len(raw) == 1 else None
        parameter = _models(self.version)[1]
        if not isinstance(ref, str):
            return _validated(parameter, _skeleton_shallow(raw), f"{pointer}/parameters/{index}")
        model = self._references.get(ref)
        if model is None:
            model = self._references[ref] = _validated(parameter, raw,
                                                       f"{pointer}/parameters/{index}")
        return model


@functools.cache
def _models(version: str) -> tuple[Any, Any]:
    """The Operation model and a ``Parameter | Reference`` adapter of ``version``."""
    from openapi_pydantic.v3 import v3_0, v3_1
    from pydantic import TypeAdapter

    module: Any = v3_0 if version == "3.0" else v3_1  # 3.2: the 3.1 models, new fields carried
    return module.Operation, TypeAdapter(module.Parameter | module.Reference)


def _validated(model: Any, value: Any, pointer: str) -> Any:
    from pydantic import TypeAdapter, ValidationError

    try:
        return model.validate_python(value) if isinstance(model, TypeAdapter) else (
            model.model_validate(value))
    except ValidationError as exc:
        first = exc.errors()[0]
        loc = [str(p) for p in first["loc"] if not str(p)[0].isupper()]
        raise SpecError(f"invalid operation: {first['msg']}",
                        pointer=pointer + "".join("/" + escape(p) for p in loc)) from exc


@dataclass(frozen=True, slots=True, kw_only=True)
class OperationFields:
    """The fields compose reads of an Operation model, for an operation
    :func:`plainly_valid` vouches for (the model would hold the same values)."""

    summary: str | None
    description: str | None
    operationId: str | None
    tags: list[str] | None
    deprecated: bool


def _opt_str(value: Any) -> bool:
    return value is None or type(value) is str


def _str(value: Any) -> bool:
    return type(value) is str


def _bool(value: Any) -> bool:
    return type(value) is bool


def _opt_bool(value: Any) -> bool:
    return value is None or type(value) is bool


def _opt_str_list(value: Any) -> bool:
    return value is None or (type(value) is list and all(type(v) is str for v in value))


def _location(value: Any) -> bool:
    return value in ("query", "header", "path", "cookie") and type(value) is str


def _map_of(fields: dict[str, _Check]) -> _Check:
    """A check of a map whose values are objects with ``fields``."""
    def check(value: Any) -> bool:
        return type(value) is dict and all(type(key) is str and _fields_fit(item, fields)
                                           for key, item in value.items())
    return check


def _optional(check: _Check) -> _Check:
    return lambda value: value is None or check(value)


_Check = Callable[[Any], bool]

_ENCODING_FIELDS: dict[str, _Check] = {
    "contentType": _opt_str, "style": _opt_str, "explode": _opt_bool, "allowReserved": _bool,
}
_MEDIA_FIELDS: dict[str, _Check] = {"encoding": _optional(_map_of(_ENCODING_FIELDS))}
_media_map = _map_of(_MEDIA_FIELDS)
_PARAMETER_FIELDS: dict[str, _Check] = {
    "name": _str, "in": _location, "description": _opt_str, "required": _bool,
    "deprecated": _bool, "allowEmptyValue": _bool, "style": _opt_str, "explode": _opt_bool,
    "allowReserved": _bool, "content": _optional(_media_map),
}
_BODY_FIELDS: dict[str, _Check] = {
    "description": _opt_str, "content": _media_map, "required": _bool,
}
_DOUBTFUL = frozenset({"$ref", "param_in", "param_schema", "media_type_schema", "ref",
                       "headers"})
"""Keys left to the models: a reference beside other fields, the field names the models
also accept for their aliases (``populate_by_name``), and an encoding's ``headers``
(Header objects are not checked here)."""


def _fields_fit(node: Any, fields: dict[str, _Check], required: tuple[str, ...] = ()) -> bool:
    """Whether ``node`` is an object whose keys are strings and whose ``fields`` each have
    the declared JSON type: what the models accept for sure (other keys are extra fields,
    which they allow; ``schema`` and the keys the skeleton leaves out are not read)."""
    if type(node) is not dict:
        return False
    for key, value in node.items():
        if type(key) is not str:
            return False
        check = fields.get(key)
        if check is not None:
            if not check(value):
                return False
        elif key in _DOUBTFUL and not (key == "headers" and value is None):
            return False
    return all(key in node for key in required)


def _parameter_fits(raw: Any) -> bool:
    if type(raw) is dict and len(raw) == 1 and "$ref" in raw:
        return type(raw["$ref"]) is str
    return _fields_fit(raw, _PARAMETER_FIELDS, ("name", "in"))


def _body_fits(body: Any) -> bool:
    if body is None:
        return True
    if type(body) is dict and len(body) == 1 and "$ref" in body:
        return type(body["$ref"]) is str
    return _fields_fit(body, _BODY_FIELDS, ("content",))


def plainly_valid(node: dict[str, Any]) -> OperationFields | None:
    """The fields of an operation that the openapi-pydantic models certainly accept: every
    field they read (the operation's names, each parameter, the request body and its
    media types) holds exactly the JSON type they declare, and nothing else is left to
    them (:data:`_DOUBTFUL`). ``None`` when in doubt: the models then give the verdict
    (and the error message). Never accepts what the models refuse."""
    listing = node.get("parameters")
    if listing is not None and (type(listing) is not list
                                or not all(_parameter_fits(p) for p in listing)):
        return None
    if not _body_fits(node.get("requestBody")):
        return None
    get = node.get
    summary, description, operation_id = get("summary"), get("description"), get("operationId")
    tags, deprecated = get("tags"), get("deprecated", False)
    if not (_opt_str(summary) and _opt_str(description) and _opt_str(operation_id)
            and _opt_str_list(tags) and type(deprecated) is bool):
        return None
    return OperationFields(summary=summary, description=description, operationId=operation_id,
                           tags=tags, deprecated=deprecated)
