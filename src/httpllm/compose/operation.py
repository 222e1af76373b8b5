"""One operation -> one neutral :class:`Function` (emended parameters, map, output).

Two steps, because recursion is only known once every schema the selected operations
reach has been emended: :meth:`Composer.draft` emends an operation's schemas and reads
its parameters (one bad operation raises here and is reported alone);
:meth:`Composer.finish` inlines references and builds the :class:`Function`.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field, replace
from typing import Any
from urllib.parse import urljoin

from httpllm._escape import arrives_as_cookie_name, cookie_text, is_token, percent
from httpllm._json import first_unheld, kind, scalar_text, shown_number, utf8_encodable
from httpllm._limits import DEFAULT_LIMITS
from httpllm._media import FORM, is_xml
from httpllm._media import essence as media_essence
from httpllm._memo import IdentityMemo
from httpllm._types import Schema
from httpllm.compose.inline import Inliner
from httpllm.compose.names import NamePool, function_name, rename_reason, sanitize
from httpllm.compose.parameters import (
    BODY,
    DEFAULT_STYLE,
    IGNORED_HEADERS,
    LOCATIONS,
    ParameterSpec,
    argument_names,
    flagged_ref_opened,
    is_host_header,
    pick_media_type,
    without_flags,
)
from httpllm.compose.responses import ResponseSite
from httpllm.compose.xml_object import xml_shape
from httpllm.errors import HttpllmError, SpecError
from httpllm.loss import Loss
from httpllm.normalize.named import NamedSchemas
from httpllm.parse import (
    Document,
    OperationSite,
    OperationValidator,
    component_entries,
)
from httpllm.pointer import escape, join, unescape
from httpllm.records import Argument, Function, Server
from httpllm.refs import def_name_of
from httpllm.upgrade.openapi32 import QUERYSTRING

__all__ = ["LOCATION_ORDER", "Composer", "Draft"]

LOCATION_ORDER = ("path", "query", "header", "cookie", "body")
"""The order of arguments in the parameters object."""
_RANK = {location: i for i, location in enumerate(LOCATION_ORDER)}
_NO_SERVER = (Server(url="/"),)
_MAX_REF_HOPS = 32  # $ref to $ref chains a body's type is looked through
_COMPOSITE = ("allOf", "anyOf", "oneOf", "not", "if")
FORM_STYLES = ("brackets", "repeat")
"""``compile(form_style=...)`` values (see ``httpllm.execute.serialize.FORM_STYLES``)."""
_SERVER_VARIABLE = re.compile(r"\{([^{}]*)\}")
"""A ``{name}`` of a server URL, as ``execute.wire.VARIABLE`` reads it."""
_USERINFO = re.compile(r"^[^:/?#]*:?//[^/?#]*@")
"""A URL's ``userinfo@`` (RFC 3986 section 3.2.1), with or without a scheme."""
FORM_STYLE_KEY = "x-httpllm-form-style"
"""The document's or an operation's own choice among :data:`FORM_STYLES`."""
_NO_SECURITY: list[dict[str, Any]] = []  # one object: the requirements memo keys on identity


@dataclass(slots=True)
class Draft:
    """An operation whose request schemas are emended but whose refs are not yet inlined
    (its success response is only located: see :mod:`httpllm.compose.responses`)."""

    site: OperationSite
    model: Any
    params: list[ParameterSpec]
    names: list[str]
    body: ParameterSpec | None
    response: ResponseSite | None
    accept: list[str] = field(default_factory=list)
    losses: list[Loss] = field(default_factory=list)
    """Header parameters that are never arguments (:func:`is_host_header`), one loss each."""

    def schemas(self) -> Iterator[Schema]:
        """The emended schemas of its parameters, then of its request body (lazily)."""
        for spec in self.params:
            yield spec.schema
        if self.body is not None:
            yield self.body.schema


def _object(arguments: list[Argument], defs: dict[str, Schema], *,
            visible_only: bool) -> dict[str, Any]:
    """The keyword parameters object of the arguments (all, or those the model sees)."""
    shown = [a for a in arguments if not (visible_only and a.separated)]
    out: dict[str, Any] = {"type": "object", "properties": {a.name: a.schema for a in shown}}
    required = [a.name for a in shown if a.required]
    if required:
        out["required"] = required
    if defs:
        out["$defs"] = dict(sorted(defs.items()))
    return out


def absolute(url: str, document_url: str | None) -> str:
    """A server URL resolved against the document's own URL when it is relative
    (``/api/v1`` -> ``https://example.com/api/v1``); as it is otherwise, or without one.

    Source: OpenAPI 3.1.0 section 4.6 (Relative References in URLs); RFC 3986 section 5.2.
    """
    if document_url is None or "://" in url:
        return url
    return urljoin(document_url, url)


def _alone_in_query(specs: list[ParameterSpec]) -> None:
    """An OpenAPI 3.2 ``in: querystring`` parameter is the whole query string: another
    query or querystring parameter beside it has no place in the URL.

    Raises:
        SpecError: at the querystring parameter.

    Source: OpenAPI 3.2.0 section 4.12.1 (``querystring``: MUST NOT appear more than
    once, nor beside ``in: query`` parameters).
    """
    whole = [spec for spec in specs if isinstance(spec.node.get(QUERYSTRING), dict)]
    if whole and sum(spec.location == "query" for spec in specs) > 1:
        raise SpecError("an `in: querystring` parameter is the whole query string: the "
                        "operation (or its path item) may list no other query or "
                        "querystring parameter", pointer=whole[0].pointer)


def _example_values(holder: Any, pointer: str = "", lost: list[Loss] | None = None
                    ) -> list[Any]:
    """The values of ``holder``'s ``example``/``examples`` (``holder`` at ``pointer``); one
    holding a number no double holds is left out, with a loss in ``lost``."""
    if not isinstance(holder, dict):
        return []
    found: list[tuple[Any, str, str]] = []
    if "example" in holder:
        found.append((holder["example"], join(pointer, "example"), "example"))
    examples = holder.get("examples")
    if isinstance(examples, dict):
        found += [(e["value"], join(pointer, "examples", k, "value"), "examples")
                  for k, e in examples.items() if isinstance(e, dict) and "value" in e]
    elif isinstance(examples, list):
        found += [(e, join(pointer, "examples", i), "examples") for i, e in enumerate(examples)]
    values = []
    for value, at, keyword in found:
        bad = first_unheld(value)
        if bad is None:
            values.append(value)
        elif lost is not None:
            lost.append(Loss(pointer=at, keyword=keyword, action="dropped",
                             value=shown_number(bad) if bad is value else None,
                             note=f"example dropped: {shown_number(bad)} is a number no "
                                  "double holds (JSON text has none for it)"))
    return values


def _success(responses: dict[str, Any]) -> tuple[str, Any] | None:
    codes = sorted(k for k in responses if isinstance(k, str) and k[:1] == "2")
    if codes:
        return codes[0], responses[codes[0]]
    if "default" in responses:
        return "default", responses["default"]
    return None


def _renamed(site: OperationSite, operation_id: str, name: str, holder: str | None
             ) -> Loss:
    """The ``renamed`` loss of an ``operationId`` the function name rule refused (every
    provider's: :mod:`httpllm.compose.names`), at the ``operationId`` in the document;
    ``holder``: the name of the earlier operation it clashed with."""
    return Loss(pointer=join(site.pointer, "operationId"), keyword="operationId",
                action="renamed", value=operation_id,
                note=f"operationId {operation_id!r} is named {name!r}: "
                     f"{rename_reason(operation_id, name, holder=holder)}")


def _read_only_cut(site: OperationSite) -> Loss:
    """The ``cut`` loss of a search for ``readOnly`` places that stopped after
    ``DEFAULT_LIMITS.read_only_visits`` nodes (:meth:`Composer._read_only`), at the
    operation's ``requestBody``: ``validate`` may let some readOnly values through."""
    return Loss(pointer=join(site.pointer, "requestBody"), keyword="readOnly", action="cut",
                note=f"readOnly properties searched in the first "
                     f"{DEFAULT_LIMITS.read_only_visits:,} schema nodes of the request body "
                     "only (shared subtrees reach too many places): validate may let some "
                     "readOnly values through")


def _hidden_by_owner(losses: list[Loss]) -> dict[str, set[str]]:
    """The ``readOnly`` properties the request direction dropped, by the document pointer
    of the object that declared them."""
    hidden: dict[str, set[str]] = {}
    for loss in losses:
        if loss.keyword == "readOnly":
            owner, found, name = loss.pointer.rpartition("/properties/")
            if found:
                hidden.setdefault(owner, set()).add(unescape(name))
    return hidden


def _below(node: dict[str, Any], at: str, path: tuple[str, ...]
           ) -> list[tuple[Any, str, tuple[str, ...]]]:
    """The subschemas where a body value's properties continue: each property (one step
    down the value), array items (``-``) and union members (the same place)."""
    out: list[tuple[Any, str, tuple[str, ...]]] = []
    props = node.get("properties")
    for name, sub in (props.items() if isinstance(props, dict) else ()):
        out.append((sub, f"{at}/properties/{escape(name)}", (*path, name)))
    if isinstance(node.get("items"), dict):
        out.append((node["items"], f"{at}/items", (*path, "-")))
    for keyword in ("anyOf", "oneOf"):
        members = node.get(keyword)
        for i, sub in enumerate(members if isinstance(members, list) else ()):
            out.append((sub, f"{at}/{keyword}/{i}", path))
    return out


class Composer:
    """Builds the functions of one document (one instance per compile)."""

    def __init__(self, doc: Document, named: NamedSchemas,
                 document_url: str | None = None, form_style: str = "brackets") -> None:
        self.doc = doc
        self.document_url = document_url
        self.form_style = form_style
        self.named = named
        self.resolver = doc.resolver
        # The map, or an entry of it, may be a ``$ref`` (SendGrid keeps its map in a file).
        self.schemes: dict[str, Any] = component_entries(doc.root, doc.resolver,
                                                         "securitySchemes")
        self.pool = NamePool()
        self._validate = OperationValidator(doc.version)
        self.credentials = self._credential_params()
        self._shared: dict[tuple[str, str], ParameterSpec | Loss | None] = {}
        self._requirements: IdentityMemo[tuple[tuple[dict[str, Any], ...],
                                               dict[str, Any]]] = IdentityMemo()
        self._server_lists: IdentityMemo[tuple[Server, ...]] = IdentityMemo()
        self._arguments: IdentityMemo[tuple[Argument, dict[str, Schema], tuple[Loss, ...]]] = (
            IdentityMemo())
        self._dropped: IdentityMemo[list[Loss]] = IdentityMemo()

    # -- step 1 ---------------------------------------------------------------------

    def _resolve(self, ref: str, base: str) -> tuple[Any, str, str]:
        """A ``$ref`` met at ``base``: its target, the target's base and pointer."""
        target = self.resolver.resolve(ref, base)
        return target.node, target.uri.split("#", 1)[0], target.pointer

    def _deref(self, node: Any, base: str, pointer: str) -> tuple[Any, str, str]:
        if isinstance(node, dict) and isinstance(node.get("$ref"), str):
            return self._resolve(node["$ref"], base)
        return node, base, pointer

    def _credential_params(self) -> set[tuple[str, str]]:
        """Every ``apiKey`` scheme's ``(in, name in lower case)``: a parameter of that name
        in any case is the host's, never the model's. Query and cookie names are
        case-sensitive by their RFCs (3986, 6265), but servers that bind them case-blind
        (ASP.NET) would read a model's ``API_KEY`` beside the host's ``api_key`` as the
        credential: refusing too much is the safe side."""
        out: set[tuple[str, str]] = set()
        for scheme in self.schemes.values():
            if isinstance(scheme, dict) and scheme.get("type") == "apiKey":
                out.add((str(scheme.get("in")), str(scheme.get("name", "")).lower()))
        return out

    def _parameters(self, site: OperationSite) -> tuple[list[ParameterSpec], list[Loss]]:
        merged: dict[tuple[str, str], ParameterSpec] = {}
        refused: list[Loss] = []
        shared = self._shared
        for holder, at in ((site.path_item, None), (site.node, site.pointer)):
            listing = holder.get("parameters")
            if listing is None:
                continue
            if at is None:  # the path item's
                at = site.pointer.rsplit("/", 1)[0]
            at += "/parameters"
            if not isinstance(listing, list):
                raise SpecError("expected `parameters` to be a list", pointer=at)
            for i, raw in enumerate(listing):
                ref = raw.get("$ref") if isinstance(raw, dict) else None
                if isinstance(ref, str):
                    # A component parameter: read and emended once, shared by every operation
                    # (its pointer is the component's, whatever operation lists it).
                    key = (ref, site.base)
                    if key in shared:
                        spec = shared[key]
                    else:
                        spec = shared[key] = self._parameter(raw, site.base, f"{at}/{i}")
                else:
                    spec = self._parameter(raw, site.base, f"{at}/{i}")
                if isinstance(spec, Loss):
                    refused.append(spec)
                elif spec is not None:
                    merged[(spec.location, spec.name)] = spec
        dropped, unfilled = _template_mismatches(site, merged)
        refused += dropped
        for name in unfilled:
            merged[("path", name)] = self._unfilled(site, name)
        _alone_in_query(list(merged.values()))
        return list(merged.values()), refused

    def _unfilled(self, site: OperationSite, name: str) -> ParameterSpec:
        """A required ``string`` path parameter for a template ``{name}`` no ``in: path``
        parameter fills, with a warning at the operation. OpenAPI 3.1.0 section 4.8.12.1
        says each template expression MUST have one; documents omit it (square's PUT
        /v2/vendors/{vendor_id}, hey-api's ``{api-version}``), and the template alone
        says what it takes: one value in the path segment. It is filled as any path
        parameter is (``style: simple``, percent-encoded); without it no call could be
        built, so the operation was an error."""
        raw = {"name": name, "in": "path", "required": True, "schema": {"type": "string"}}
        spec = self._parameter(raw, site.base, site.pointer)
        assert isinstance(spec, ParameterSpec)  # a path parameter is never a loss or None
        self.named.warn(site.pointer, f"path template variable {{{name}}} has no parameter; "
                                      "offered as a required string")
        return spec

    def _parameter(self, raw: Any, base: str, at: str) -> ParameterSpec | Loss | None:
        """The resolved, emended Parameter Object at ``at``; ``None`` for a transport header
        or a credential (the host supplies those); a loss for a header that frames or
        routes the request (:func:`is_host_header`: never an argument).

        Raises:
            SpecError: not a Parameter Object. RefError, AccessDenied: its ``$ref`` does
                not resolve (the error names the list entry when the resolver did not).
        """
        try:
            node, base, pointer = self._deref(raw, base, at)
        except HttpllmError as exc:
            if exc.pointer is not None:
                raise
            raise type(exc)(exc.message, pointer=at, source=exc.source) from exc
        if not isinstance(node, dict) or not isinstance(node.get("name"), str):
            raise SpecError("expected a Parameter object with a `name`", pointer=pointer)
        location = node.get("in")
        if location not in LOCATIONS:
            raise SpecError(f"parameter `in` must be one of {', '.join(LOCATIONS)}; "
                            f"got {location!r}", pointer=join(pointer, "in"))
        name = node["name"]
        if location == "header" and name.lower() in IGNORED_HEADERS:
            return None
        if location == "header" and is_host_header(name) and is_token(name.removeprefix(":")):
            return Loss(pointer=pointer, keyword="name", action="dropped", value=name,
                        note=f"header {name!r} frames or routes the request: the HTTP client "
                             "sets it, never the model (not an argument)")
        if location == "header" and not is_token(name):
            return _unsendable(node, pointer, f"header {name!r} is no HTTP field name (RFC "
                               "9110 section 5.6.2: ASCII letters, digits and "
                               "!#$%&'*+-.^_`|~)")
        if location in ("query", "cookie") and not utf8_encodable(name):
            return _unsendable(node, pointer, f"{location} parameter {name!a} holds a lone "
                               "surrogate (a \\ud800-\\udfff escape without its pair), "
                               "which no UTF-8 text spells")
        if (location, name.lower()) in self.credentials:
            return None  # a credential: supplied by the host through ``auth``
        if location == "cookie" and (lost := _cookie_name_loss(node, name, pointer)):
            return lost
        spec = ParameterSpec(name=name, location=location, node=node, pointer=pointer, base=base,
                             required=location == "path" or node.get("required") is True)
        self._parameter_schema(spec)
        spec.examples = _example_values(node, pointer, spec.lost) or self.named.examples.get(
            spec.schema_pointer, [])
        return spec

    def _parameter_schema(self, spec: ParameterSpec) -> None:
        node = spec.node
        schema: Any = node.get("schema")
        at = join(spec.pointer, "schema")
        content = node.get("content")
        if schema is None and isinstance(content, dict) and content:
            spec.media_type = pick_media_type(content)
            media = content[spec.media_type] if spec.media_type else None
            schema = media.get("schema") if isinstance(media, dict) else None
            at = join(spec.pointer, "content", spec.media_type or "", "schema")
        if schema is None:
            schema = {"type": "string"}
        emended = self.named.emend(schema, "request", pointer=at, base=spec.base)
        if spec.media_type and is_xml(spec.media_type):  # its value is sent as XML
            spec.extra["xml"] = self._xml_shape(schema, spec.base, at, spec.lost)
        spec.schema_pointer = at
        description = node.get("description")
        if isinstance(description, str) and description.strip() and isinstance(emended, dict):
            emended = {**emended, "description": description.strip()}
        if node.get("deprecated") is True and isinstance(emended, dict):
            emended = {**emended, "deprecated": True}
        spec.schema = emended

    def _body(self, site: OperationSite) -> ParameterSpec | None:
        raw = site.node.get("requestBody")
        if raw is None:
            return None
        at = join(site.pointer, "requestBody")
        node, base, pointer = self._deref(raw, site.base, at)
        if not isinstance(node, dict):
            raise SpecError("expected a Request Body object", pointer=pointer)
        content = node.get("content")
        if not isinstance(content, dict) or not content:
            return None
        media_type = pick_media_type(content)
        media = content.get(media_type) if media_type else None
        media = media if isinstance(media, dict) else {}
        schema = media.get("schema")
        if schema is None:
            # a JSON media type's parameters (``; charset=utf-8``) do not make it binary
            binary = not media_essence(media_type or "").endswith("json")
            schema = {"type": "string", "format": "binary"} if binary else {}
        at = join(pointer, "content", media_type or "", "schema")
        emended = self.named.emend(schema, "request", pointer=at, base=base)
        description = node.get("description")
        if isinstance(description, str) and description.strip() and isinstance(emended, dict):
            emended = {**emended, "description": description.strip()}
        encoding = media.get("encoding") if isinstance(media.get("encoding"), dict) else {}
        lost: list[Loss] = []
        named = self._named_fields(media_type or "", schema, emended, base, at)
        if named is not None:
            emended, loss = named
            lost.append(loss)
        examples = _example_values(media, join(pointer, "content", media_type or ""),
                                   lost) or self.named.examples.get(at, [])
        extra: dict[str, Any] = {"encoding": encoding, "media": media}
        if media_type and is_xml(media_type):
            extra["xml"] = self._xml_shape(schema, base, at, lost)
        return ParameterSpec(name=BODY, location="body", node=node, pointer=pointer, base=base,
                             required=node.get("required") is True, schema=emended,
                             media_type=media_type, schema_pointer=at, examples=examples,
                             extra=extra, lost=lost)

    def _xml_shape(self, schema: Any, base: str, at: str, lost: list[Loss]) -> Any:
        """The XML shape of a body or ``content`` parameter schema at ``at``
        (:func:`~httpllm.compose.xml_object.xml_shape`), what it cannot carry in ``lost``."""
        return xml_shape(schema, base, self._resolve, lambda note, value, action: lost.append(
            Loss(pointer=at, keyword="xml", action=action, value=value, note=note)))

    def _named_fields(self, media_type: str, schema: Any, emended: Any, base: str,
                      at: str) -> tuple[Schema, Loss] | None:
        """A form or multipart body schema narrowed to what such a body can carry, with its
        loss; ``None`` for any other body, or one that needs no change.

        Such a body is made of named fields (OpenAPI 3.1.1 Encoding Object: "for
        multipart, the encoding keys MUST map to the name parameter of the
        Content-Disposition: form-data header of each part"; a form is ``name=value``
        pairs, section 4.8.14.3), and a value of no object (``type: array``, ``string``
        with ``format: binary``, a number) names none: ``validate`` would accept it and
        the request could not be built. A string stays a string for a form body (the
        encoded form, sent as it is). So:

        - a union (``oneOf``/``anyOf``, ``type: [array, object]``) keeps the members
          that can be sent (an object, a form's string, ``null``, a member naming no
          type) and drops the others with a ``dropped`` loss: the model is never offered
          a member every call of which would be refused;
        - a schema, or a union, of which nothing can be sent is offered as an object
          whose properties are the fields (or parts), with a ``rewritten`` loss (the
          body's ``description`` kept).
        """
        essence = media_essence(media_type)
        form = essence == FORM
        if not (form or essence.startswith("multipart/")):
            return None
        what = "form fields" if form else "parts"
        sendable = {"object", "null", "string"} if form else {"object", "null"}
        union = _union_keyword(emended)
        if union is not None:
            members = emended[union]
            kept = [m for m in members if (_member_types(m) or sendable) & sendable]
            dropped = sorted({t for m in members if m not in kept
                              for t in _member_types(m) or ()})
            if not dropped:
                return None
            if any(_member_types(m) != {"null"} for m in kept):
                keyword = next((k for k in ("oneOf", "anyOf", "type")
                                if isinstance(schema, dict) and k in schema), union)
                note = (f"a {essence} body is named {what}, one per property; the "
                        f"{'/'.join(dropped)} member{'s' if len(dropped) > 1 else ''} of "
                        f"its union name{'' if len(dropped) > 1 else 's'} none and cannot "
                        "be sent: not offered")
                return _narrowed(emended, union, kept), Loss(
                    pointer=at, keyword=keyword, action="dropped", value="/".join(dropped),
                    note=note)
            kinds: set[str] | None = {t for m in members for t in _member_types(m) or ()}
        else:
            kinds = self._body_types(schema, base)
            if kinds is None or "object" in kinds or (form and kinds <= {"string", "null"}):
                return None
        described = emended.get("description") if isinstance(emended, dict) else None
        note = (f"a {essence} body is named {what}, one per property; the document's "
                f"{'/'.join(sorted(kinds or ()))} schema names none: offered as an object "
                f"whose properties are the {what}")
        offered: Schema = {"type": "object", "description": f"The {what}, by name."}
        if isinstance(described, str) and described.strip():
            offered["description"] = f"{described.strip()} ({what}, by name)"
        return offered, Loss(pointer=at, keyword="type", action="rewritten",
                             value="/".join(sorted(kinds or ())), note=note)

    def _body_types(self, schema: Any, base: str) -> set[str] | None:
        """The JSON types a body schema's ``type`` names, through ``$ref``s; ``None`` when
        it names none (a union, ``{}``: left as written)."""
        for _ in range(_MAX_REF_HOPS):
            if not isinstance(schema, dict):
                return None
            kind = schema.get("type")
            if isinstance(kind, str):
                return {kind}
            if isinstance(kind, list):
                return {k for k in kind if isinstance(k, str)} or None
            ref = schema.get("$ref")
            if not isinstance(ref, str) or any(k in schema for k in _COMPOSITE):
                return None
            try:
                schema, base, _ = self._resolve(ref, base)
            except HttpllmError:  # emending already raised it
                return None
        return None

    def _response(self, site: OperationSite) -> tuple[ResponseSite | None, list[str]]:
        """Where the success response schema is, and the response media types (``Accept``)."""
        responses = site.node.get("responses")
        found = _success(responses) if isinstance(responses, dict) else None
        if found is None:
            return None, []
        code, raw = found
        at = join(site.pointer, "responses", code)
        try:
            node, base, pointer = self._deref(raw, site.base, at)
        except HttpllmError as exc:  # the request does not need it: warn, never fail
            self.named.warn(exc.pointer or at, f"the success response cannot be read "
                            f"({exc.message}); the function has no output schema")
            return None, []
        content = node.get("content") if isinstance(node, dict) else None
        if not isinstance(content, dict) or not content:
            return None, []
        media_type = pick_media_type(content)
        media = content.get(media_type) if media_type else None
        schema = media.get("schema") if isinstance(media, dict) else None
        if schema is None:
            return None, list(content)
        at = join(pointer, "content", media_type or "", "schema")
        return ResponseSite(schema, at, base), list(content)

    def draft(self, site: OperationSite) -> Draft:
        """Emend an operation's schemas and read its parameters.

        Raises:
            HttpllmError: the operation is malformed, reaches a bad ``$ref``, or has a
                path no request can carry.
        """
        model = self._validate(site)
        self._method_case(site)
        if not (site.path.isascii() or utf8_encodable(site.path)):
            raise SpecError(f"the path {site.path!a} holds a lone surrogate (a "
                            "\\ud800-\\udfff escape without its pair), which no UTF-8 "
                            "text spells: no request can carry it", pointer=site.pointer)
        params, refused = self._parameters(site)
        body = self._body(site)
        response, accept = self._response(site)
        names = argument_names(params, body is not None)
        return Draft(site=site, model=model, params=params, names=names, body=body,
                     response=response, accept=accept, losses=refused)

    def _method_case(self, site: OperationSite) -> None:
        """Warn at an ``additionalOperations`` key that is not upper case (``purge``):
        methods are case-sensitive (RFC 9110 section 9.1; OpenAPI 3.2.0 section 4.8.9.1
        names the key the method), but the HTTP client (httpx) upper-cases every method,
        so the request sends ``PURGE``, which a server may read as another method. The
        function is named from the method in lower case, as every function is
        (``purge_items``), and its description says ``PURGE``: what is sent."""
        written = site.additional
        if written is not None and written != written.upper():
            self.named.warn(site.pointer, (
                f"additionalOperations key {written!r} is sent as {written.upper()}: the "
                "HTTP client upper-cases methods (RFC 9110 section 9.1: methods are "
                "case-sensitive, so a server may not read it as the method written)"))

    # -- step 2 ---------------------------------------------------------------------

    @staticmethod
    def _examples(specs: list[tuple[str, ParameterSpec]]) -> tuple[Any, ...]:
        """Example argument objects from parameter, media type and schema examples
        (at most three; OpenAPI 3.1 sections 4.8.12 ``example(s)``, 4.8.14, 4.8.24)."""
        found = {name: spec.examples for name, spec in specs if spec.examples}
        if not found:
            return ()
        count = min(3, max(len(v) for v in found.values()))
        return tuple({name: values[min(i, len(values) - 1)] for name, values in found.items()}
                     for i in range(count))

    def _argument(self, spec: ParameterSpec, name: str, schema: Schema) -> Argument:
        node = spec.node
        if spec.location == "body":
            return Argument(name=name, location="body", original=None, required=spec.required,
                            schema=schema, media_type=spec.media_type,
                            encoding=dict(spec.extra.get("encoding", {})),
                            xml=spec.extra.get("xml"))
        style = node.get("style") if spec.media_type is None else None
        if spec.media_type is None and not isinstance(style, str):
            style = DEFAULT_STYLE[spec.location]
        explode = node.get("explode")
        if not isinstance(explode, bool):
            explode = style in ("form", "cookie")  # OpenAPI 3.2: true for both
        marked = node.get(QUERYSTRING)  # a 3.2 querystring: the whole query string
        querystring = isinstance(marked, dict)
        form = querystring and spec.media_type is None  # sent as a form body is
        encoding = marked if isinstance(marked, dict) else {}
        return Argument(name=name, location=spec.location, original=spec.name,
                        required=spec.required, schema=schema, style=style, explode=explode,
                        allow_reserved=node.get("allowReserved") is True and (
                            spec.location not in ("path", "cookie")
                            or self.doc.version == "3.2"),
                        allow_empty_value=node.get("allowEmptyValue") is True,
                        media_type=FORM if form else spec.media_type,
                        encoding=dict(encoding) if form else {}, querystring=querystring,
                        xml=spec.extra.get("xml"))

    def finish(self, draft: Draft, inliner: Inliner,
               separate: Callable[[Argument], bool] | None = None,
               output: Callable[[], Schema | None] | None = None, *,
               claimed: str | None = None) -> Function:
        """Inline references and build the neutral :class:`Function` of a draft.

        ``output`` gives the success response schema when first read (see
        :mod:`httpllm.compose.responses`). ``claimed``: the function's name when it was already
        claimed (the draft finished again with other inlining).

        ``separate`` picks arguments kept out of the model's view: they stay in the
        parameter map and in ``Function.schema`` (validation) but not in ``parameters``.
        """
        site, model = draft.site, draft.model
        arguments: list[Argument] = []
        defs: dict[str, Schema] = {}
        specs = [*zip(draft.names, draft.params, strict=True)]
        if draft.body is not None:
            specs.insert(0, (BODY, draft.body))
        specs.sort(key=lambda item: _RANK[item[1].location])
        losses: dict[Loss, None] = dict.fromkeys(draft.losses)
        for name, spec in specs:
            dropped = self._losses(spec)
            if dropped:  # most specs drop nothing: no update to make
                losses.update(dict.fromkeys(dropped))
            hit = self._arguments.get(spec, name, inliner.reference)
            if hit is None:
                hit = self._arguments.put(spec, self._inlined(spec, name, inliner), name,
                                          inliner.reference)
            argument, found, flags = hit
            if flags:
                losses.update(dict.fromkeys(flags))
            if found:
                defs.update(found)
            if separate is not None and separate(argument):
                argument = replace(argument, separated=True)
            arguments.append(argument)
        schema_all = _object(arguments, defs, visible_only=False)
        parameters = _object(arguments, defs, visible_only=True) if separate is not None and any(
            a.separated for a in arguments) else schema_all  # never changed: may be shared
        summary = (model.summary or "").strip()
        description = (model.description or "").strip()
        text = summary if not description or description == summary else (
            f"{summary}\n\n{description}" if summary else description)
        security, schemes = self._security(site)
        read_only, searched = self._read_only(draft.body, arguments, inliner, defs)
        if not searched:
            losses[_read_only_cut(site)] = None
        name = claimed or self.pool.claim(function_name(model.operationId, site.method,
                                                        site.path))
        if isinstance(model.operationId, str) and model.operationId != name:
            holder = self.pool.holder(sanitize(model.operationId))
            losses[_renamed(site, model.operationId, name,
                            None if holder == name else holder)] = None
        return Function(
            name=name,
            description=text or f"{site.method.upper()} {site.path}",
            parameters=parameters,
            output_source=output,
            method=site.method,
            path=site.path,
            operation_id=model.operationId,
            tags=tuple(model.tags or ()),
            deprecated=bool(model.deprecated),
            arguments=tuple(arguments),
            schema=schema_all,
            servers=self._servers(site),
            security=security,
            security_schemes=schemes,
            pointer=site.pointer,
            examples=self._examples(specs),
            extra={"accept": draft.accept, **self._form_style(site), **read_only},
            losses=tuple(losses),
        )

    def _inlined(self, spec: ParameterSpec, name: str, inliner: Inliner
                 ) -> tuple[Argument, dict[str, Schema], tuple[Loss, ...]]:
        """The argument of a spec with its schema inlined, the ``$defs`` it keeps, and the
        losses of the ``readOnly``/``writeOnly`` flags its schema no longer carries
        (:func:`~httpllm.compose.parameters.without_flags`)."""
        if spec.schema is not None and not isinstance(spec.schema, dict | bool):
            raise SpecError(f"expected a Schema Object (a JSON object, or a boolean in 3.1), "
                            f"not {json.dumps(spec.schema, default=str)[:40]}",
                            pointer=spec.schema_pointer or join(spec.pointer, "schema"))
        inlined, found = inliner.root(spec.schema, "request", pointer=join(spec.pointer, "schema"))
        inlined, found = flagged_ref_opened(inlined, found)
        schema, flags = without_flags(inlined)
        where = inliner.origins.get(id(inlined), spec.schema_pointer)
        what = "the request body" if spec.location == "body" else f"argument {name!r}"
        losses = tuple(Loss(pointer=f"{inliner.origins.get(id(node), where + at)}/{flag}",
                            keyword=flag, action="dropped", value=value,
                            note=f"{flag} describes properties; {what} is still sent")
                       for node, at, flag, value in flags)
        # Losses inside an argument's own schema point into the document.
        inliner.origin(schema, where)
        return self._argument(spec, name, schema), found, losses

    def _read_only(self, spec: ParameterSpec | None, arguments: list[Argument],
                   inliner: Inliner, defs: dict[str, Schema]) -> tuple[dict[str, Any], bool]:
        """``{"read_only": ("#/body/id", "#/body/tags/-/uid", ...)}``: where in the
        arguments the request body's ``readOnly`` properties would be (``-``: any array
        item), which the request schema no longer has, so ``validate`` refuses them also
        where the tool shows an open object; ``{}`` when the body has none. Paired with
        whether the search was whole (``False``: it stopped after
        ``DEFAULT_LIMITS.read_only_visits`` nodes; at most ``read_only_places`` places are
        recorded, on argument paths at most ``read_only_depth`` long).

        Found by walking the body argument's schema with each node's place in the
        document (the inliner's origins for named schemas) against the properties the
        direction dropped there (``readOnly`` losses), including those of the schemas an
        ``allOf`` merged into it; a name another node at the same place declares (an
        alternative where it is writable) is left out. Source: OpenAPI 3.1.0 section
        4.8.24 (readOnly "SHOULD NOT be sent as part of the request"); issue 22 finding 5.
        """
        if spec is None:
            return {}, True
        hidden = _hidden_by_owner(self._losses(spec))
        body = next((a for a in arguments if a.location == "body"), None) if hidden else None
        if body is None:
            return {}, True
        out: list[tuple[tuple[str, ...], str]] = []
        visits, limits = 0, DEFAULT_LIMITS
        kept: dict[tuple[str, ...], set[str]] = {}  # declared at a path by some node
        seen: set[tuple[int, tuple[str, ...]]] = set()
        stack: list[tuple[Any, str, tuple[str, ...]]] = [
            (body.schema, spec.schema_pointer or "", (body.name,))]
        while stack and len(out) < limits.read_only_places:
            node, at, path = stack.pop()
            if not isinstance(node, dict) or len(path) > limits.read_only_depth or (
                    (id(node), path) in seen):
                continue
            if visits == limits.read_only_visits:
                break
            visits += 1
            seen.add((id(node), path))
            ref = node.get("$ref")
            name = def_name_of(ref) if isinstance(ref, str) else None
            if name is not None:
                target = defs.get(name)
                stack.append((target, inliner.origins.get(id(target), at), path))
                continue
            named = id(node) in inliner.origins
            at = inliner.origins.get(id(node), at)
            # ``at`` is a label relative to the root document (``Resolver.label``:
            # ``models/Pet.yml#``), read as text: never resolved against a base
            owners = self.named.losses.merged_into(at, "request") if named else []
            names = set(hidden.get(at, ())).union(*(hidden.get(o, ()) for o in owners))
            out.extend((path, n) for n in sorted(names))
            props = node.get("properties")
            kept.setdefault(path, set()).update(props if isinstance(props, dict) else ())
            stack.extend(_below(node, at, path))
        # A name another alternative at the same place declares stays a value to send.
        places = [join("#", *path, n) for path, n in out if n not in kept.get(path, ())]
        return ({"read_only": tuple(dict.fromkeys(places))} if places else {},
                visits < limits.read_only_visits)

    def _form_style(self, site: OperationSite) -> dict[str, Any]:
        """``{"form_style": ...}`` unless the default: the operation's
        ``x-httpllm-form-style``, else the document's, else ``compile(form_style=...)``."""
        chosen = site.node.get(FORM_STYLE_KEY, self.doc.root.get(FORM_STYLE_KEY,
                                                                 self.form_style))
        if chosen not in FORM_STYLES:
            raise SpecError(f"{FORM_STYLE_KEY} must be one of {', '.join(FORM_STYLES)}; "
                            f"got {chosen!r}", pointer=join(site.pointer, FORM_STYLE_KEY))
        return {} if chosen == "brackets" else {"form_style": chosen}

    def _losses(self, spec: ParameterSpec) -> list[Loss]:
        """What reading the argument dropped (an example no double holds) and normalizing
        its schema dropped (``readOnly`` properties, numbers no double holds), once per
        spec (a component parameter's spec is shared)."""
        hit = self._dropped.get(spec)
        if hit is None:
            hit = self._dropped.put(spec, [*spec.lost, *self.named.losses.dropped(
                spec.schema, "request", pointer=spec.schema_pointer, base=spec.base)])
        return hit

    def _security(self, site: OperationSite) -> tuple[tuple[dict[str, Any], ...],
                                                       dict[str, Any]]:
        """The operation's security requirements and the schemes they name (the document's
        when the operation has none; computed once per requirement list)."""
        own = site.node.get("security")
        raw = own if own is not None else self.doc.root.get("security")
        raw = _NO_SECURITY if raw is None else raw
        hit = self._requirements.get(raw)
        if hit is not None:
            return hit
        at = join(site.pointer, "security") if own is not None else "#/security"
        _check_requirements(raw, at)
        security = tuple(raw)
        used = {name for req in security for name in req}
        schemes = {k: v for k, v in self.schemes.items() if k in used}
        for i, requirement in enumerate(security):
            for name in requirement:
                if name not in schemes:
                    self.named.warn(join(at, i, str(name)), (
                        f"security scheme {name!r} is not defined (components/"
                        "securitySchemes; securityDefinitions in Swagger 2.0): no "
                        "credential can be placed for it, so a call that needs this "
                        "requirement is refused"))
        for key, scheme in schemes.items():
            _check_scheme(key, scheme)
        return self._requirements.put(raw, (security, schemes))

    def _servers(self, site: OperationSite) -> tuple[Server, ...]:
        for holder in (site.node, site.path_item, self.doc.root):
            servers = holder.get("servers")
            if servers is None:
                continue
            hit = self._server_lists.get(servers)
            if hit is not None:
                return hit
            at = join(_holder_pointer(holder, site), "servers")
            _check_servers(servers, at)
            if servers:
                return self._server_lists.put(servers, tuple(
                    self._server(server, join(at, i)) for i, server in enumerate(servers)))
        if self.document_url is not None:  # the default server "/" (OpenAPI 3.1.0 4.8.1)
            return (Server(url=absolute("/", self.document_url)),)
        return _NO_SERVER

    def _server(self, server: dict[str, Any], at: str) -> Server:
        """One Server Object's record: its variables' ``default`` and ``enum`` as text,
        spelled as the document wrote them (``true``, never Python's ``True``). A
        ``{name}`` of the URL that has no variable of its exact name, but one spelled
        otherwise (``{Region}`` and ``region``), is warned about: the request fills
        ``{name}`` by its exact spelling only. So is a ``default`` that is not one of the
        variable's ``enum`` (OpenAPI 3.1.0 section 4.8.6.1: it MUST be): the request
        refuses it, so every call fails until the host gives a value. So is a URL holding
        a user name or password (``https://user:pw@host``), which the request refuses
        (credentials come from the host's ``auth``); the warning does not repeat them."""
        variables = server.get("variables")
        variables = variables if isinstance(variables, dict) else {}
        # A variable without a default has no value until the host gives one.
        defaults = {k: scalar_text(v["default"]) for k, v in variables.items()
                    if isinstance(v, dict) and "default" in v}
        enums = {k: tuple(scalar_text(e) for e in v["enum"]) for k, v in variables.items()
                 if isinstance(v, dict) and isinstance(v.get("enum"), list)}
        for name, default in defaults.items():
            allowed = enums.get(name)
            if allowed and default not in allowed:
                self.named.warn(join(at, "variables", name, "default"), (
                    f"server variable {{{name}}}'s default {default!r} is not one of its "
                    f"enum ({', '.join(repr(a) for a in allowed)}): every call is refused "
                    "unless the host passes server_variables=..."))
        if _USERINFO.search(server["url"]):
            self.named.warn(join(at, "url"), (
                "the server URL holds a user name or password (user:pass@): every call to "
                "it is refused unless the host passes base_url=... (credentials come from "
                "auth=...)"))
        by_fold = {k.casefold(): k for k in variables if isinstance(k, str)}
        for name in dict.fromkeys(_SERVER_VARIABLE.findall(server["url"])):
            other = by_fold.get(name.casefold())
            if name not in variables and other is not None:
                self.named.warn(join(at, "variables"), (
                    f"server variable {{{name}}} has no entry of that name (variables has "
                    f"{other!r}; names are case-sensitive): {{{name}}} has no value unless "
                    "the host gives one"))
        return Server(url=absolute(server["url"], self.document_url), variables=defaults,
                      enums=enums)


def _template_mismatches(site: OperationSite, merged: dict[tuple[str, str], ParameterSpec]
                         ) -> tuple[list[Loss], list[str]]:
    """Match the path template's ``{name}``s and the ``in: path`` parameters (OpenAPI
    3.1.0 section 4.8.12.1: a path parameter's name MUST correspond to a template
    expression in the path, and each expression is filled by one): a parameter the path
    has no ``{name}`` for is taken out of ``merged`` and dropped with a loss (the model's
    value for it went nowhere, without a word); the ``{name}``s no parameter fills are
    returned, in the path's order, for the caller to offer (see
    :meth:`Composer._unfilled`).

    Raises:
        SpecError: an empty ``{}`` in the path (no argument can be named ``""``).
    """
    template = dict.fromkeys(_SERVER_VARIABLE.findall(site.path))
    lost: list[Loss] = []
    for key, spec in list(merged.items()):
        if spec.location == "path" and spec.name not in template:
            del merged[key]
            lost.append(Loss(pointer=spec.pointer, keyword="name", action="dropped",
                             value=spec.name,
                             note=f"path parameter {spec.name!r} has no {{{spec.name}}} in "
                                  f"the path {site.path!r}: no request can carry it (not an "
                                  "argument)"))
    filled = {name for location, name in merged if location == "path"}
    if "" in template:
        raise SpecError("the path holds an empty template expression {}: no parameter "
                        "can be named for it", pointer=site.pointer.rsplit("/", 1)[0])
    return lost, [name for name in template if name not in filled]


def _unsendable(node: dict[str, Any], pointer: str, why: str) -> Loss:
    """A loss for a parameter whose name no request can carry (``why`` says so): it is no
    argument. A required one means no call the operation accepts can be made, so it is
    the operation's error instead (a tool every call of which fails is no tool).

    Raises:
        SpecError: the parameter is required, at its ``name``.
    """
    if node.get("required") is True:
        raise SpecError(f"required {why}: no request can carry it",
                        pointer=join(pointer, "name"))
    return Loss(pointer=pointer, keyword="name", action="dropped", value=node.get("name"),
                note=f"{why}: no request can carry it (not an argument)")


def _cookie_name_loss(node: dict[str, Any], name: str, pointer: str) -> Loss | None:
    """A loss for a cookie parameter whose name would not arrive as written, or ``None``.

    A cookie name is an RFC 6265 token (section 4.1.1: ``cookie-name = token``, RFC 9110
    section 5.6.2: ASCII letters, digits and ``!#$%&'*+-.^_`|~``; a ``;``, ``,``, ``=`` or
    space ends it or the pair). ``style: form`` (the default) and a ``content`` parameter
    percent-encode the name as RFC 6570 does (``a!b`` is sent as ``a%21b``), which a
    receiver does not decode in a name (RFC 6265 section 5.2), so such a name would reach
    it as another cookie; OpenAPI 3.2's ``style: cookie`` sends a token as written. One
    rule, :func:`~httpllm._escape.arrives_as_cookie_name`, with the encoder
    ``execute.wire.cookie_pairs_of`` sends the name with (it refuses an exploded cookie
    object's keys by the same rule). The parameter is then no argument, with this loss; a
    required one means no call can be made, so it is the operation's error.

    Raises:
        SpecError: the parameter is required, at its ``name``.
    """
    as_given = node.get("style") == "cookie" and "schema" in node
    if arrives_as_cookie_name(name, cookie_text if as_given else percent):
        return None
    why = ("is no cookie name (RFC 6265 section 4.1.1: a token of ASCII letters, digits "
           "and !#$%&'*+-.^_`|~)" if not is_token(name) else
           "would be sent percent-encoded (style form, RFC 6570), under another name")
    return _unsendable(node, pointer, f"cookie parameter {name!a} {why}")


def _holder_pointer(holder: dict[str, Any], site: OperationSite) -> str:
    """The pointer of the object whose ``servers`` a site uses: the operation, its path
    item or the document."""
    if holder is site.node:
        return site.pointer
    if holder is site.path_item:
        return site.pointer.rsplit("/", 1)[0]
    return "#"



def _check_requirements(raw: Any, at: str) -> None:
    """Refuse a ``security`` that is not an array of Security Requirement objects
    (``security: {api_key: []}``, ``security: [api_key]``): read as no requirement, the
    host's credential was never sent and nothing said why.

    Raises:
        SpecError: naming ``at`` (the ``security`` field) or the entry.
    """
    if not isinstance(raw, list):
        raise SpecError("expected `security` to be an array of Security Requirement "
                        "objects ({scheme name: [scopes]}); got " + kind(raw), pointer=at)
    for i, requirement in enumerate(raw):
        if not isinstance(requirement, dict):
            raise SpecError("expected a Security Requirement object ({scheme name: "
                            "[scopes]}); got " + kind(requirement), pointer=join(at, i))


def _check_servers(servers: Any, at: str) -> None:
    """Refuse a ``servers`` that is not an array of Server objects with a ``url`` string:
    skipped, the operation's calls went to the path item's or the document's server, or
    to none, and nothing said why (an empty array is the next holder's, as OpenAPI says).

    Raises:
        SpecError: naming ``at`` (the ``servers`` field) or the entry.
    """
    if not isinstance(servers, list):
        raise SpecError("expected `servers` to be an array of Server objects; got "
                        + kind(servers), pointer=at)
    for i, server in enumerate(servers):
        if not isinstance(server, dict):
            raise SpecError("expected a Server object; got " + kind(server),
                            pointer=join(at, i))
        if not isinstance(server.get("url"), str):
            raise SpecError("expected the server's `url` to be a string; got "
                            + kind(server.get("url")), pointer=join(at, i, "url"))


def _check_scheme(key: str, scheme: Any) -> None:
    """Refuse an ``apiKey`` security scheme whose header or cookie name HTTP cannot carry
    (:func:`~httpllm._escape.is_token`): ``name: "X-K\\r\\nInjected: 1"``
    would add a header the document chose to every request that sends the key; or whose
    query name is no string or empty (``name: null`` sent the key as ``?None=...``, under a
    name the document never gave).

    A scheme that is no object (``k: "x"``) is refused too: no credential can be placed for
    it, and execute said only "not defined".

    Raises:
        SpecError: naming ``#/components/securitySchemes/<key>`` (``/name``); every
            operation that requires the scheme is an operation error, the others compile.
    """
    if not isinstance(scheme, dict):
        raise SpecError(f"security scheme {key!r} is {kind(scheme)}; expected a Security "
                        "Scheme Object ({type: apiKey | http | oauth2 | openIdConnect | "
                        "mutualTLS, ...})",
                        pointer=f"#/components/securitySchemes/{escape(key)}")
    if scheme.get("type") != "apiKey":
        return
    where, name = scheme.get("in"), scheme.get("name")
    if where == "query" and not (isinstance(name, str) and name):
        raise SpecError(f"apiKey security scheme {key!r} names query parameter {name!r}; "
                        "expected a non-empty string",
                        pointer=f"#/components/securitySchemes/{escape(key)}/name")
    if where in ("header", "cookie") and not (isinstance(name, str) and is_token(name)):
        raise SpecError(f"apiKey security scheme {key!r} names {where} {name!r}, which is not "
                        "an RFC 9110 token (letters, digits and !#$%&'*+.^_`|~-)",
                        pointer=f"#/components/securitySchemes/{escape(key)}/name")


def _union_keyword(schema: Any) -> str | None:
    """``anyOf`` or ``oneOf`` where an emended schema is a union at its top, else ``None``."""
    if not isinstance(schema, dict):
        return None
    return next((k for k in ("anyOf", "oneOf")
                 if isinstance(schema.get(k), list) and schema[k]), None)


def _member_types(member: Any) -> set[str] | None:
    """The JSON types a union member's ``type`` names; ``None`` when it names none."""
    kind = member.get("type") if isinstance(member, dict) else None
    if isinstance(kind, str):
        return {kind}
    if isinstance(kind, list):
        return {k for k in kind if isinstance(k, str)} or None
    return None


def _narrowed(schema: Schema, union: str, kept: list[Any]) -> Schema:
    """``schema`` with its union holding ``kept`` only; one member left is the schema
    (the union's siblings, such as ``description``, kept over it)."""
    rest = {k: v for k, v in schema.items() if k != union}
    if len(kept) == 1 and isinstance(kept[0], dict):
        return {**kept[0], **rest}
    return {**rest, union: kept}
