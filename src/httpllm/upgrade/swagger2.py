"""Swagger 2.0 -> OpenAPI 3.0.3: one small function per rule, run from :data:`DOCUMENT_RULES`,
:data:`OPERATION_RULES` and :data:`NODE_RULES`.

The result is a plain 3.0 dict that shares every unchanged subtree with the input (nothing
is changed in place). Every rule counts itself in the :class:`~httpllm.upgrade._record.Tally`
under its own name; what cannot be carried is a :class:`~httpllm.upgrade._record.Note` at its
original pointer; every node that moves is recorded in the
:class:`~httpllm.upgrade._record.PointerMap` so errors, warnings and losses name the 2.0
location.

Schema Objects and the vendor extensions on them are converted by
:mod:`httpllm.upgrade.schemas2` (its docstring lists each extension handled or left).

Source: OpenAPI 2.0 specification; OpenAPI 3.0.3 specification; the rules of
swagger2openapi (Mermade/oas-kit ``packages/swagger2openapi/index.js``); AutoRest extensions
(Azure/autorest ``docs/extensions/readme.md``).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from httpllm._media import FORM
from httpllm.pointer import escape, get
from httpllm.upgrade import schemas2
from httpllm.upgrade._record import Note, PointerMap, Tally
from httpllm.upgrade.schemas2 import nodes, x_ms_discriminator_value

__all__ = [
    "DOCUMENT_RULES",
    "OPERATION_RULES",
    "SECTIONS",
    "TAB_DELIMITED",
    "Context",
    "convert",
    "fragment",
    "path_item",
]

TAB_DELIMITED = "x-httpllm-tabDelimited"
"""Our ``style`` for ``collectionFormat: tsv`` (3.x has none): array members joined by a tab
(``%09`` in a query); read by :func:`httpllm.execute.serialize.query_pairs`."""

METHODS = ("get", "put", "post", "delete", "options", "head", "patch")
JSON = "application/json"
MULTIPART = "multipart/form-data"

SECTIONS = schemas2.SECTIONS

_SCHEMA_KEYS = ("type", "format", "items", "default", "maximum", "exclusiveMaximum", "minimum",
                "exclusiveMinimum", "maxLength", "minLength", "pattern", "maxItems", "minItems",
                "uniqueItems", "enum", "multipleOf", "x-nullable")
"""Parameter (and header, items) fields that are schema keywords in 3.x."""

_COLLECTION = {
    "csv": {"query": ("form", False), "formData": ("form", False), "path": ("simple", False),
            "header": ("simple", False)},
    **{fmt: dict.fromkeys(("query", "formData", "path", "header"), (style, False))
       for fmt, style in (("ssv", "spaceDelimited"), ("pipes", "pipeDelimited"),
                          ("tsv", TAB_DELIMITED))},
    "multi": {"query": ("form", True), "formData": ("form", True)},
}
"""``collectionFormat`` x ``in`` -> (``style``, ``explode``). ``ssv``, ``pipes`` and ``tsv``
apply to every location (OpenAPI 2.0 Parameter Object ``collectionFormat``): the delimited
styles, which 3.x defines for the query alone, are read for a path and a header too
(:func:`httpllm.execute.serialize.expand`). A pair missing here has no form (``multi``
outside the query and a form, which 2.0 allows only there): the nearest (``simple``,
comma) is used, with a note."""

_FLOWS = {"implicit": "implicit", "password": "password", "application": "clientCredentials",
          "accessCode": "authorizationCode"}


@dataclass(slots=True)
class Context:
    """One 2.0 file being converted.

    Attributes:
        root: the original 2.0 document (or file).
        file: the file's label (``""`` for the root document, else as refs name it).
        pointers: the pointer map shared by every file of the document.
        notes: what could not be carried, at original pointers.
        tally: rule name -> times applied.
        resolve: ``(ref, file) -> node or None``: the original node a ``$ref`` found in this
            file points to (other files are read through the loader's gate).
        consumes: the document's ``consumes`` (default ``application/json``).
        produces: the document's ``produces`` (default ``application/json``).
    """

    root: dict[str, Any]
    file: str = ""
    pointers: PointerMap = field(default_factory=PointerMap)
    notes: list[Note] = field(default_factory=list)
    tally: Tally = field(default_factory=Tally)
    resolve: Callable[[str, str], Any] = lambda ref, file: None
    consumes: list[str] = field(default_factory=lambda: [JSON])
    produces: list[str] = field(default_factory=lambda: [JSON])

    def lookup(self, ref: str) -> Any:
        """The original node of a parameter's ``$ref`` (``None`` when it cannot be read):
        a ``#/...`` ref in this file, anything else through :attr:`resolve`."""
        if not ref.startswith("#/"):
            return self.resolve(ref, self.file)
        node = get(self.root, ref)
        if isinstance(node, dict) and isinstance(node.get("$ref"), str):
            return self.resolve(node["$ref"], self.file)
        return node

    def note(self, pointer: str, message: str) -> None:
        """Record something not carried, at its original pointer in this file."""
        self.notes.append(Note(f"{self.file}{pointer}", message))

    def move(self, new: str, old: str) -> None:
        """Record that the node now at ``new`` was at ``old`` (both in this file)."""
        self.pointers.move(self.file, new[1:], old[1:])


def _media(node: dict[str, Any], key: str, default: list[str]) -> list[str]:
    value = node.get(key)
    if isinstance(value, list):
        listed = [v for v in value if isinstance(v, str)]
        return listed or default
    return default


# -- parameters --------------------------------------------------------------------------------


def schema_of(param: dict[str, Any], ctx: Context, at: str) -> dict[str, Any]:
    """The schema of a non-body parameter (or header, or ``items``): its schema keywords,
    ``items`` converted the same way; a nested ``collectionFormat`` is a note."""
    out = {k: param[k] for k in _SCHEMA_KEYS if k in param}
    items = param.get("items")
    if isinstance(items, dict):
        if "collectionFormat" in items:
            ctx.note(f"{at}/items/collectionFormat", "a collectionFormat of nested array "
                     "items has no OpenAPI 3.x form: members are joined with commas")
        out["items"] = schema_of(items, ctx, f"{at}/items")
    return out


def collection_format(param: dict[str, Any], where: str, ctx: Context,
                      at: str) -> dict[str, Any]:
    """``collectionFormat`` (``csv`` by default for an array) -> ``style``/``explode`` of
    the parameter's location (see :data:`_COLLECTION`); ``tsv`` -> :data:`TAB_DELIMITED`.

    Source: OpenAPI 2.0 Parameter Object ``collectionFormat``; OpenAPI 3.0.3 section
    4.7.12.4 (Style Values).
    """
    fmt = param.get("collectionFormat")
    if param.get("type") != "array" and fmt is None:
        return {}
    fmt = fmt if fmt in _COLLECTION else "csv"
    ctx.tally[f"collection_format:{fmt}"] += 1
    found = _COLLECTION[fmt].get(where)
    if found is None:
        ctx.note(f"{at}/collectionFormat", f"collectionFormat {fmt} has no OpenAPI 3.x form "
                 f"in {where}: members are joined with commas")
        found = _COLLECTION["csv"].get(where, ("form", False))
    return {"style": found[0], "explode": found[1]}


def parameter(param: dict[str, Any], ctx: Context, at: str) -> dict[str, Any]:
    """A non-body, non-form 2.0 Parameter Object -> 3.0 (schema keywords under ``schema``,
    ``collectionFormat`` -> ``style``/``explode``, ``x-example`` -> ``example``,
    ``allowEmptyValue`` kept for a query parameter and noted elsewhere)."""
    if "$ref" in param and "name" in param and "in" in param:
        return _ref_as_schema(param, ctx, at)
    if "$ref" in param or "schema" in param:
        return param
    ctx.tally["parameter"] += 1
    out = {k: v for k, v in param.items() if k not in _SCHEMA_KEYS
           and k not in ("collectionFormat", "x-example", "allowEmptyValue")}
    out["schema"] = schema_of(param, ctx, at)
    if "default" in param:
        ctx.tally["default"] += 1
    out.update(collection_format(param, str(param.get("in")), ctx, at))
    if "x-example" in param:
        ctx.tally["x_example"] += 1
        out["example"] = param["x-example"]
    if "allowEmptyValue" in param:
        ctx.tally["allow_empty_value"] += 1
        if param.get("in") == "query":
            out["allowEmptyValue"] = param["allowEmptyValue"]
        else:
            ctx.note(f"{at}/allowEmptyValue", "allowEmptyValue applies to query parameters "
                     "only in OpenAPI 3.x: dropped")
    return out


def _ref_as_schema(param: dict[str, Any], ctx: Context, at: str) -> dict[str, Any]:
    """A parameter with a ``name``, an ``in`` and a ``$ref`` (not valid 2.0, where a
    ``$ref`` replaces the whole parameter): the ``$ref`` read as its schema, with a note."""
    ctx.tally["ref_as_schema"] += 1
    ctx.note(f"{at}/$ref", "a parameter with both a name and a $ref: the $ref is read as "
             "the parameter's schema")
    rest = {k: v for k, v in param.items() if k != "$ref"}
    return parameter({**rest, "schema": {"$ref": param["$ref"]}}, ctx, at)


def _body_content(schema: Any, media: list[str]) -> dict[str, Any]:
    return {m: {"schema": schema} for m in media}


def body(param: dict[str, Any], consumes: list[str], ctx: Context, at: str,
         new: str) -> dict[str, Any]:
    """``in: body`` -> a Request Body Object, one media type per ``consumes`` entry (its
    ``name`` kept as ``x-codegen-request-body-name``, as swagger2openapi does).

    Source: OpenAPI 3.0.3 section 4.7.13 (Request Body Object).
    """
    ctx.tally["body"] += 1
    media = [m for m in consumes if m not in (FORM, MULTIPART)] or [JSON]
    out: dict[str, Any] = {"content": _body_content(param.get("schema", {}), media)}
    for key in ("description", "required"):
        if key in param:
            out[key] = param[key]
    if isinstance(param.get("name"), str):
        out["x-codegen-request-body-name"] = param["name"]
    out.update({k: v for k, v in param.items() if k[:2] == "x-"})
    ctx.move(new, at)
    for m in media:
        ctx.move(f"{new}/content/{escape(m)}/schema", f"{at}/schema")
    return out


def form_data(params: list[tuple[dict[str, Any], str]], consumes: list[str], ctx: Context,
              new: str) -> dict[str, Any]:
    """``in: formData`` parameters -> one object schema in a Request Body Object:
    ``multipart/form-data`` when a parameter is ``type: file`` or ``consumes`` lists it, else
    ``application/x-www-form-urlencoded``; ``collectionFormat`` -> the property's Encoding
    Object ``style``/``explode``.

    Source: OpenAPI 3.0.3 sections 4.7.13 and 4.7.15 (Encoding Object).
    """
    ctx.tally["form_data"] += 1
    has_file = any(p.get("type") == "file" for p, _ in params)
    media = [m for m in consumes if m in (FORM, MULTIPART)]
    if has_file and MULTIPART not in media:
        media = [MULTIPART]
    media = media or [FORM]
    properties: dict[str, Any] = {}
    encoding: dict[str, Any] = {}
    required = []
    for param, at in params:
        name = str(param.get("name"))
        schema = schema_of(param, ctx, at)
        if isinstance(param.get("description"), str):
            schema["description"] = param["description"]
        properties[name] = schema
        style = collection_format(param, "formData", ctx, at)
        if style and style != {"style": "form", "explode": True}:
            encoding[name] = style
        if param.get("required") is True:
            required.append(name)
        for key in ("allowEmptyValue", "x-example"):
            if key in param:
                ctx.note(f"{at}/{key}", f"{key} of a form field has no OpenAPI 3.x place: "
                         "dropped")
        for m in media:
            ctx.move(f"{new}/content/{escape(m)}/schema/properties/{escape(name)}", at)
    schema = {"type": "object", "properties": properties, **({"required": required}
                                                              if required else {})}
    content = {m: {"schema": schema, **({"encoding": encoding} if encoding else {})}
               for m in media}
    out: dict[str, Any] = {"content": content}
    if required:
        out["required"] = True
    return out


# -- operations ----------------------------------------------------------------------------


@dataclass(slots=True)
class _Listing:
    """An operation's parameters, sorted by what they become: ``params`` as
    ``((in, name), 3.0 parameter, original pointer)``, ``body`` as ``(entry, node, pointer)``
    and ``form`` as ``(node, pointer)``."""

    params: list[tuple[Any, Any, str]] = field(default_factory=list)
    body: tuple[Any, dict[str, Any], str] | None = None
    form: list[tuple[dict[str, Any], str]] = field(default_factory=list)

    def add(self, raw: Any, node: Any, at: str, ctx: Context) -> None:
        """Add one entry (later ones override earlier ones by ``(in, name)``, as operation
        parameters override path item ones). A second body parameter of another name
        replaces the first with a note at the one dropped: Swagger 2.0 allows one body
        parameter per operation ("There can be one 'body' parameter at most", Parameter
        Object), and 3.x has one request body."""
        kind = node.get("in") if isinstance(node, dict) else None
        if kind == "body":
            if self.body is not None and self.body[1].get("name") != node.get("name"):
                ctx.note(self.body[2], f"a second body parameter ({at}): Swagger 2.0 allows "
                         "one per operation; this one is dropped, the later one kept")
            self.body = (raw, node, at)
        elif kind == "formData":
            self.form = [f for f in self.form if f[0].get("name") != node.get("name")]
            self.form.append((node, at))
        else:
            key = (kind, node.get("name")) if isinstance(node, dict) else None
            self.params = [p for p in self.params if key is None or p[0] != key]
            # an entry that is no mapping ("x", null) stays, for the parser to refuse at `at`
            kept = raw if raw is not node or not isinstance(raw, dict) else parameter(raw, ctx, at)
            self.params.append((key, kept, at))


def _listing(op: dict[str, Any], item: dict[str, Any], ctx: Context, at: str) -> _Listing:
    """The path item's parameters, then the operation's, each ``$ref`` resolved to see
    where it goes."""
    listing = _Listing()
    for holder, where in ((item, f"{at.rpartition('/')[0]}/parameters"),
                          (op, f"{at}/parameters")):
        entries = holder.get("parameters")
        for i, raw in enumerate(entries if isinstance(entries, list) else ()):
            node = raw
            if isinstance(raw, dict) and isinstance(raw.get("$ref"), str) and not (
                    "name" in raw and "in" in raw):  # else a $ref read as its schema
                node = ctx.lookup(raw["$ref"])
            listing.add(raw, node, f"{where}/{i}", ctx)
    return listing


def _request_body(listing: _Listing, consumes: list[str], ctx: Context, at: str) -> Any:
    """The operation's Request Body Object (a ``$ref`` to ``components/requestBodies`` for a
    shared body parameter), or ``None``."""
    new = f"{at}/requestBody"
    if listing.body is not None:
        raw, node, old = listing.body
        if listing.form:
            ctx.note(f"{at}/parameters", "both a body and formData parameters: the "
                     "formData parameters are dropped")
        head, _, fragment = raw["$ref"].partition("#") if raw is not node else ("", "", "")
        if fragment.startswith("/parameters/"):  # a shared body: its requestBodies entry
            ctx.tally["body"] += 1
            ctx.move(new, old)
            name = fragment.removeprefix("/parameters")
            return {"$ref": f"{head}#/components/requestBodies{name}"}
        return body(node, consumes, ctx, old, new)
    if listing.form:
        ctx.move(new, f"{at}/parameters")
        return form_data(listing.form, consumes, ctx, new)
    return None


def operation(op: dict[str, Any], item: dict[str, Any], ctx: Context, at: str) -> dict[str, Any]:
    """A 2.0 Operation Object -> 3.0: parameters, request body, responses, servers."""
    listing = _listing(op, item, ctx, at)
    out = {k: v for k, v in op.items()
           if k not in ("parameters", "consumes", "produces", "schemes", "responses")}
    if listing.params:
        out["parameters"] = [param for _, param, _ in listing.params]
    for j, (_, param, old) in enumerate(listing.params):
        ctx.move(f"{at}/parameters/{j}", old)
        if isinstance(param, dict) and "$ref" not in param:
            ctx.move(f"{at}/parameters/{j}/schema", old)
    found = _request_body(listing, _media(op, "consumes", ctx.consumes), ctx, at)
    if found is not None:
        out["requestBody"] = found
    produces = _media(op, "produces", ctx.produces)
    if isinstance(op.get("responses"), dict):
        out["responses"] = {
            code: response(r, produces, ctx, f"{at}/responses/{escape(code)}")
            for code, r in op["responses"].items()}
    if "produces" in op or "consumes" in op:
        ctx.tally["media_types"] += 1
    if op.get("schemes") is not None:
        out["servers"] = servers(ctx.root, op["schemes"], ctx, f"{at}/schemes")
    return out


def response(node: Any, produces: list[str], ctx: Context, at: str) -> Any:
    """A 2.0 Response Object -> 3.0: ``schema`` -> ``content`` (one media type per
    ``produces`` entry), ``examples`` -> each media type's ``example``, ``headers`` ->
    Header Objects with a ``schema``.

    Source: OpenAPI 3.0.3 sections 4.7.17 (Response Object) and 4.7.21 (Header Object).
    """
    if not isinstance(node, dict) or "$ref" in node:
        return node
    ctx.tally["response"] += 1
    out = {k: v for k, v in node.items() if k not in ("schema", "examples", "headers")}
    out.setdefault("description", "")
    content: dict[str, Any] = {}
    if "schema" in node:
        ctx.tally["response_schema"] += 1
        for m in produces:
            content[m] = {"schema": node["schema"]}
            ctx.move(f"{at}/content/{escape(m)}/schema", f"{at}/schema")
    examples = node.get("examples")
    if isinstance(examples, dict):
        for m, value in examples.items():
            content[m] = {**content.get(m, {}), "example": value}
    if content:
        out["content"] = content
    headers = node.get("headers")
    if isinstance(headers, dict):
        ctx.tally["response_headers"] += len(headers)
        out["headers"] = {name: _header(h, ctx, f"{at}/headers/{escape(name)}")
                          for name, h in headers.items()}
    return out


def _header(node: Any, ctx: Context, at: str) -> Any:
    if not isinstance(node, dict) or "$ref" in node:
        return node
    out = {k: v for k, v in node.items() if k not in _SCHEMA_KEYS and k != "collectionFormat"}
    out["schema"] = schema_of(node, ctx, at)
    if node.get("collectionFormat", "csv") != "csv":
        ctx.note(f"{at}/collectionFormat", "a response header's collectionFormat other than "
                 "csv has no OpenAPI 3.x form: dropped")
    ctx.move(f"{at}/schema", at)
    return out


def path_item(item: Any, ctx: Context, at: str) -> Any:
    """A 2.0 Path Item -> 3.0: each operation converted; the path's own parameters are
    merged into each operation (a body or form parameter cannot stay on a 3.x path item)."""
    if not isinstance(item, dict) or "$ref" in item:
        return item
    out = {k: v for k, v in item.items() if k != "parameters" and k not in METHODS}
    for method in METHODS:
        op = item.get(method)
        if isinstance(op, dict):
            out[method] = operation(op, item, ctx, f"{at}/{method}")
        elif op is not None:  # kept: the parser makes it the operation's error
            out[method] = op
    return out


# -- the document --------------------------------------------------------------------------


_SECURE = frozenset({"https", "wss"})
"""Schemes over TLS: listed first (2.0's ``schemes`` is a set, with no order to keep)."""


def servers(root: dict[str, Any], schemes: Any, ctx: Context, at: str = "#/schemes",
            ) -> list[dict[str, Any]]:
    """``host`` + ``basePath`` + each of ``schemes`` -> Server Objects (no ``host``: a URL
    relative to where the document was read, as 2.0 says). ``https`` comes before ``http``
    whatever their order in ``schemes`` (which names the protocols the API takes, none
    preferred): the first server is the one requests go to, with the host's credentials,
    which ``http`` would carry in cleartext.

    Source: OpenAPI 2.0 Swagger Object ``host``/``basePath``/``schemes``; OpenAPI 3.0.3
    section 4.7.5 (Server Object).
    """
    ctx.tally["servers"] += 1
    host, path = _host(root, ctx), _text(root, "basePath", ctx)
    path = "/" + path.strip("/") if path.strip("/") else ""
    listed = _schemes(schemes, ctx, at)
    listed.sort(key=lambda s: s not in _SECURE)  # the first server is the one used
    parameterized = root.get("x-ms-parameterized-host")
    if isinstance(parameterized, dict) and isinstance(parameterized.get("hostTemplate"), str):
        return parameterized_host(parameterized, path, listed, ctx)
    if not host:
        return [{"url": path or "/"}]
    return [{"url": f"{s}://{host}{path}"} for s in listed or ["https"]]


def _text(root: dict[str, Any], key: str, ctx: Context) -> str:
    """The string at ``root[key]`` (``""`` when absent); any other value is not carried,
    with a note: ``host: 5`` made every URL relative without a word."""
    value = root.get(key)
    if value is None or isinstance(value, str):
        return value or ""
    note = f"{key} is a string, not {type(value).__name__}: not carried"
    if not any(n.message == note for n in ctx.notes):  # once, though each `schemes` asks
        ctx.note(f"#/{key}", note)
    return ""


_HOST = re.compile(r"(?:[A-Za-z0-9._~{}-]+|\[[0-9A-Fa-f:.]+\])(?::(?P<port>[0-9]{1,5}))?")
"""A 2.0 ``host``: a name or an IP literal, with an optional port ("MUST NOT include the
scheme nor sub-paths")."""


def _host(root: dict[str, Any], ctx: Context) -> str:
    """``host`` when it is a host (and port), else ``""`` with a note: ``h.example/p?q``,
    ``user:pw@h``, a CR/LF in it built a URL every call then failed on."""
    host = _text(root, "host", ctx)
    found = _HOST.fullmatch(host)
    if not host or (found and int(found.group("port") or 0) < 65536):
        return host
    ctx.note("#/host", f"host {host!r} is no host name or IP with a port (OpenAPI 2.0: "
             "\"MUST NOT include the scheme nor sub-paths\"): not carried")
    return ""


_SCHEMES = ("http", "https", "ws", "wss")


def _schemes(schemes: Any, ctx: Context, at: str = "#/schemes") -> list[str]:
    """The transfer protocols ``schemes`` lists, as 2.0 spells them (lower case); a lone
    string is read as a list of one, and a value none of ``http``, ``https``, ``ws``, ``wss``
    is not carried; each with a note (``schemes: "http"`` had requests go to ``https``
    without a word)."""
    if schemes is None:
        return []
    if isinstance(schemes, str):
        ctx.note(at, "schemes is a list of protocols, not a string: read as a list of one")
        schemes = [schemes]
    if not isinstance(schemes, list):
        ctx.note(at, f"schemes is a list of protocols, not {type(schemes).__name__}: "
                 "not carried")
        return []
    listed: list[str] = []
    for i, scheme in enumerate(schemes):
        known = scheme.lower() if isinstance(scheme, str) else None
        if known in _SCHEMES:
            listed.append(known)
        else:
            ctx.note(f"{at}/{i}", f"{scheme!r} is none of {', '.join(_SCHEMES)}: not carried")
    return listed


def parameterized_host(spec: dict[str, Any], path: str, schemes: list[str],
                       ctx: Context) -> list[dict[str, Any]]:
    """``x-ms-parameterized-host`` -> Server Objects: ``hostTemplate`` + ``basePath``, after
    each scheme unless ``useSchemePrefix`` is false (the template then holds the scheme, as
    ``{Endpoint}/formrecognizer/v2.1``); each of its ``parameters`` (inline or a
    ``$ref``) becomes a server variable with its ``default``, ``enum`` and
    ``description``. The host supplies the values (``server_variables=``,
    ``--server-var``), never the model, and the request builder's rules hold: a value
    stays in its part of the URL, and credentials go only to origins the defaults and
    enums make. A parameter without a ``default`` gets none (OpenAPI 3.x would require
    one): the host must give it. ``positionInOperation`` only orders generated SDK
    methods' arguments: nothing to carry.

    >>> spec = {"hostTemplate": "{account}.example.net", "parameters": [
    ...     {"name": "account", "in": "path", "required": True, "type": "string"}]}
    >>> parameterized_host(spec, "/v1", [], Context(root={}))
    [{'url': 'https://{account}.example.net/v1', 'variables': {'account': {}}}]

    Source: AutoRest x-ms-extensions, ``x-ms-parameterized-host``
    (Azure/autorest docs/extensions/readme.md).
    """
    ctx.tally["x_ms_parameterized_host"] += 1
    template = spec["hostTemplate"].rstrip("/")
    prefixed = spec.get("useSchemePrefix", True) is not False
    variables: dict[str, dict[str, Any]] = {}
    given = spec.get("parameters")
    for i, raw in enumerate(given if isinstance(given, list) else []):
        param = ctx.lookup(raw["$ref"]) if isinstance(raw, dict) and isinstance(
            raw.get("$ref"), str) else raw
        if not isinstance(param, dict) or not isinstance(param.get("name"), str):
            ctx.note(f"#/x-ms-parameterized-host/parameters/{i}", "a host parameter without "
                     "a readable name: not carried (its {name} in hostTemplate has no value)")
            continue
        variable: dict[str, Any] = {}
        if param.get("default") is not None:
            variable["default"] = str(param["default"])
        if isinstance(param.get("enum"), list):
            variable["enum"] = [str(e) for e in param["enum"]]
        if isinstance(param.get("description"), str):
            variable["description"] = param["description"]
        variables[param["name"]] = variable
        if "default" in variable:
            continue
        how = f"(server_variables=, as {param['name']}=VALUE) or the whole URL (base_url=)"
        if not prefixed and template.startswith(f"{{{param['name']}}}"):
            rest = template[len(param["name"]) + 2:] + path
            how = f"as the whole URL (base_url=, e.g. https://HOST{rest})"
        ctx.note(f"#/x-ms-parameterized-host/parameters/{i}", f"host parameter "
                 f"{param['name']!r} has no default: the host gives it {how}")
    urls = ([f"{s}://{template}{path}" for s in schemes or ["https"]] if prefixed else
            [f"{template}{path}"])
    return [{"url": url, **({"variables": variables} if variables else {})} for url in urls]


def security_scheme(node: Any, ctx: Context) -> Any:
    """A 2.0 Security Scheme -> 3.0: ``basic`` -> ``http``/``basic``; ``oauth2`` ``flow`` ->
    ``flows`` (``application`` -> ``clientCredentials``, ``accessCode`` ->
    ``authorizationCode``); ``apiKey`` as it is.

    Source: OpenAPI 3.0.3 section 4.7.27 (Security Scheme Object).
    """
    if not isinstance(node, dict):
        return node
    ctx.tally["security_scheme"] += 1
    kind = node.get("type")
    rest = {k: v for k, v in node.items() if k in ("description",) or k[:2] == "x-"}
    if kind == "basic":
        return {**rest, "type": "http", "scheme": "basic"}
    if kind == "oauth2":
        flow = {k: node[k] for k in ("authorizationUrl", "tokenUrl") if k in node}
        flow["scopes"] = node.get("scopes") if isinstance(node.get("scopes"), dict) else {}
        name = _FLOWS.get(str(node.get("flow")), "implicit")
        return {**rest, "type": "oauth2", "flows": {name: flow}}
    return node


def _shared_parameters(root: dict[str, Any], ctx: Context) -> dict[str, Any]:
    """Top-level ``parameters`` -> ``components.parameters`` (``in: body`` ->
    ``components.requestBodies``; ``in: formData`` stays for operations to inline, as 3.x
    has no shared form field)."""
    shared = root.get("parameters")
    if not isinstance(shared, dict):
        return {}
    params: dict[str, Any] = {}
    bodies: dict[str, Any] = {}
    for name, node in shared.items():
        at = f"#/parameters/{escape(name)}"
        if isinstance(node, dict) and node.get("in") == "body":
            bodies[name] = body(node, ctx.consumes, ctx, at,
                                f"#/components/requestBodies/{escape(name)}")
        elif isinstance(node, dict) and node.get("in") != "formData":
            params[name] = parameter(node, ctx, at)
            ctx.move(f"#/components/parameters/{escape(name)}/schema", at)
    out: dict[str, Any] = {}
    if params:
        out["parameters"] = params
    if bodies:
        out["requestBodies"] = bodies
    return out


def components(root: dict[str, Any], ctx: Context) -> dict[str, Any]:
    """``definitions``, ``parameters``, ``responses``, ``securityDefinitions`` ->
    ``components`` (``schemas``, ``parameters``/``requestBodies``, ``responses``,
    ``securitySchemes``)."""
    out: dict[str, Any] = {}
    if isinstance(root.get("definitions"), dict):
        ctx.tally["definitions"] += len(root["definitions"])
        out["schemas"] = root["definitions"]
    out.update(_shared_parameters(root, ctx))
    if isinstance(root.get("responses"), dict):
        out["responses"] = {name: response(r, ctx.produces, ctx,
                                           f"#/components/responses/{escape(name)}")
                            for name, r in root["responses"].items()}
    if isinstance(root.get("securityDefinitions"), dict):
        out["securitySchemes"] = {name: security_scheme(s, ctx)
                                  for name, s in root["securityDefinitions"].items()}
    return out


def _paths(root: dict[str, Any], ctx: Context) -> Any:
    paths = root.get("paths")
    if not isinstance(paths, dict):  # kept: the parser refuses any but an object at #/paths
        return {} if paths is None else paths
    return {path: path_item(item, ctx, f"#/paths/{escape(path)}") for path, item in paths.items()}


def x_ms_paths(root: dict[str, Any], ctx: Context) -> None:
    """``x-ms-paths`` (operations whose path key holds a query string): not carried, a note
    for each."""
    extra = root.get("x-ms-paths")
    if isinstance(extra, dict):
        for path in extra:
            ctx.tally["x_ms_paths"] += 1
            ctx.note(f"#/x-ms-paths/{escape(path)}", "x-ms-paths operations (a query string "
                     "in the path key) have no OpenAPI 3.x form: not compiled")


_MOVED = ("swagger", "host", "basePath", "schemes", "consumes", "produces", "definitions",
          "parameters", "responses", "securityDefinitions", "paths", "x-ms-parameterized-host")
"""Top-level 2.0 fields the document rules replace."""

DocumentRule = Callable[[dict[str, Any], dict[str, Any], Context], dict[str, Any]]
"""``(2.0 root, 3.0 document so far, ctx) -> 3.0 document``."""


def _servers(root: dict[str, Any], out: dict[str, Any], ctx: Context) -> dict[str, Any]:
    return {**out, "servers": servers(root, root.get("schemes"), ctx)}


def _components(root: dict[str, Any], out: dict[str, Any], ctx: Context) -> dict[str, Any]:
    found = components(root, ctx)
    return {**out, "components": found} if found else out


def _paths_of(root: dict[str, Any], out: dict[str, Any], ctx: Context) -> dict[str, Any]:
    x_ms_paths(root, ctx)
    return {**out, "paths": _paths(root, ctx)}


def _nodes(root: dict[str, Any], out: dict[str, Any], ctx: Context) -> dict[str, Any]:
    done: dict[str, Any] = nodes(out, ctx)
    return done


def _mapping(root: dict[str, Any], out: dict[str, Any], ctx: Context) -> dict[str, Any]:
    found = out.get("components")
    schemas = found.get("schemas") if isinstance(found, dict) else None
    if not isinstance(found, dict) or not isinstance(schemas, dict):
        return out
    mapped = x_ms_discriminator_value(schemas, ctx)
    return out if mapped is schemas else {**out, "components": {**found, "schemas": mapped}}


DOCUMENT_RULES: tuple[DocumentRule, ...] = (_servers, _components, _paths_of, _nodes, _mapping)
"""What :func:`convert` applies, in order: ``host``/``basePath``/``schemes`` -> servers
(:func:`servers`); the sections -> components (:func:`components`); each path item
(:func:`path_item`, :func:`operation`; ``x-ms-paths`` noted); the Schema Object rules on
everything (:func:`httpllm.upgrade.schemas2.nodes`); ``x-ms-discriminator-value`` ->
discriminator mappings."""

OPERATION_RULES = ("parameter", "collection_format", "default", "allow_empty_value",
                   "x_example", "body", "form_data", "media_types", "response",
                   "response_schema", "response_headers")
"""The rules :func:`operation` applies (names as counted in the tally)."""


def convert(root: dict[str, Any], ctx: Context) -> dict[str, Any]:
    """A whole 2.0 document (or a 2.0 file it refers to) -> OpenAPI 3.0.3, by
    :data:`DOCUMENT_RULES`.

    >>> ctx = Context(root={})
    >>> convert({"swagger": "2.0", "info": {}, "paths": {}}, ctx)["openapi"]
    '3.0.3'
    """
    ctx.consumes = _media(root, "consumes", ctx.consumes)
    ctx.produces = _media(root, "produces", ctx.produces)
    out: dict[str, Any] = {"openapi": "3.0.3", **{k: v for k, v in root.items()
                                                  if k not in _MOVED}}
    for rule in DOCUMENT_RULES:
        out = rule(root, out, ctx)
    ctx.tally["document"] += 1
    return out


def fragment(node: Any, ctx: Context) -> Any:
    """A file a 2.0 document refers to that is not itself a Swagger object (schemas by
    name, a single schema): its sections moved as in :func:`convert` and the node rules
    applied."""
    if not isinstance(node, dict):
        return nodes(node, ctx)
    found = components(node, ctx)
    if found and "components" not in node:
        kept = {k: v for k, v in node.items() if f"/{k}" not in SECTIONS}
        node = {**kept, "components": found}
    return nodes(node, ctx)

