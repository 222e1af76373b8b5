"""OpenAPI 3.2 -> what the 3.1 path reads: one small function per rule, run from
:data:`RULES` over every object (copy on write).

openapi-pydantic has no 3.2 model, so a 3.2 document is read with the 3.1 models: the
fields 3.1 has no place for are carried as they are (its models allow extra fields) or
rewritten here into their 3.1 equivalent:

- ``$self`` (the document's base URI): an absolute ``$ref`` under it names a file beside
  the document and is made relative, so it is read from there through the file gate; a
  ``$ref``, absolute or relative, whose target resolved against ``$self`` (and the
  ``$id``s enclosing it) is the document itself (``openapi.yaml#/...``,
  ``./openapi.yaml#/...`` when ``$self`` ends in ``openapi.yaml``) is made local
  (``#/...``), never read from a file of that name (rule ``self``);
- ``in: querystring`` with an ``application/x-www-form-urlencoded`` ``content`` -> a
  ``query`` parameter of ``style: form``, ``explode: true`` whose media type's ``encoding``
  is kept as :data:`QUERYSTRING` (``{}`` without one): execute sends it by the form body's
  rules (each property a ``name=value`` pair, an array one pair per item, the Encoding
  Objects applied); with any other one media type (``application/json``, ``text/plain``,
  ``application/jsonpath`` ...) -> a ``query`` parameter keeping its ``content``, marked
  :data:`QUERYSTRING` ``{}``: execute sends the value serialized by that media type,
  percent-encoded, as the whole query string (section 4.12.8's JSON and JSONPath
  examples); a ``content`` of several media types, a ``multipart`` one or none is left,
  and the operation is reported (rule ``querystring``);
- ``itemSchema`` (a stream: JSON Lines, JSON Text Sequences, server-sent events) without a
  ``schema`` -> ``schema: {type: array, items: itemSchema}``, with a note (rule
  ``item_schema``);
- Example Objects' ``dataValue`` without ``value`` -> ``value`` (rule ``data_value``);
  ``serializedValue`` is carried;
- the ``query`` method and ``additionalOperations`` are listed by :func:`httpllm.parse.parse`
  (counted here, rules ``query`` and ``additional_operations``); tag ``parent``/``kind``
  and the ``deviceAuthorization`` OAuth flow are carried (counted, rules ``tag_parent``,
  ``device_authorization``).

Source: OpenAPI 3.2.0 (September 2025) sections 4.1 (``$self``), 4.8.10 (Path Item
``query``, ``additionalOperations``), 4.8.12 (``in: querystring``), 4.8.14 (``itemSchema``),
4.8.20 (Example ``dataValue``/``serializedValue``), 4.8.22 (Tag ``parent``, ``kind``),
4.8.29 (``deviceAuthorization``).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urldefrag, urljoin, urlsplit

from httpllm._media import FORM
from httpllm.pointer import escape, split, trail
from httpllm.upgrade._record import Note, PointerMap, Tally, rewrite

__all__ = ["QUERYSTRING", "RULES", "Context", "convert"]


QUERYSTRING = "x-httpllm-querystring"
"""The mark of an ``in: querystring`` parameter made a ``query`` one (the parameter is the
whole query string): a form one's Encoding Objects by property name, sent as a form body
is; ``{}`` for one that keeps its ``content`` of another media type."""


@dataclass(slots=True)
class Context:
    """One 3.2 document being read: its ``$self`` folder, notes, moves and tally."""

    self_folder: str = ""
    self_document: str = ""
    root: Any = None
    pointers: PointerMap = field(default_factory=PointerMap)
    notes: list[Note] = field(default_factory=list)
    tally: Tally = field(default_factory=Tally)


def self_ref(node: dict[str, Any], ctx: Context, at: str) -> dict[str, Any]:
    """An absolute ``$ref`` under the ``$self`` folder -> relative to the document; a
    relative one whose target is the ``$self`` document -> local.

    A relative ``$ref`` resolves against ``$self`` (OpenAPI 3.2.0 sections 4.1 and 4.8.1
    "$self", Appendix F "Resolving Relative References"), or against the ``$id`` of an
    enclosing schema (JSON Schema 2020-12 section 8.2.1): ``openapi.yaml#/A`` in a
    document whose ``$self`` is ``https://ex.com/api/openapi.yaml`` is ``#/A`` in the
    document itself, whatever file it was read from (it read a file of that name beside
    it, or failed for want of one).

    >>> self_ref({"$ref": "https://ex.com/api/s.yaml#/A"}, Context("https://ex.com/api/"), "#")
    {'$ref': 's.yaml#/A'}
    >>> self_ref({"$ref": "./o.yaml#/A"}, Context("", "https://ex.com/api/o.yaml"), "#")
    {'$ref': '#/A'}
    """
    ref = node.get("$ref")
    folder = ctx.self_folder
    if (ctx.self_document and isinstance(ref, str) and not ref.startswith("#")
            and not urlsplit(ref).scheme):
        document, _, fragment = ref.partition("#")
        if urljoin(_base_at(ctx, node, at), document) == ctx.self_document:
            ctx.tally["self"] += 1
            return {**node, "$ref": f"#{fragment}"}
        return node
    if not folder or not isinstance(ref, str) or not ref.startswith(folder):
        return node
    ctx.tally["self"] += 1
    document, _, fragment = ref.partition("#")
    if document == ctx.self_document:  # the document itself, whatever its file is called
        return {**node, "$ref": f"#{fragment}"}
    return {**node, "$ref": ref[len(folder):]}


def _base_at(ctx: Context, node: dict[str, Any], at: str) -> str:
    """The base URI of the ``$ref`` of ``node`` at ``at`` (``"#/..."``): ``$self``, moved by
    every ``$id`` on the way down from the document to ``node`` (``node``'s own included:
    JSON Schema 2020-12 section 8.2.3.1), each resolved against the base enclosing it."""
    base = ctx.self_document
    tokens = split(at)
    for here in [ctx.root, *trail(ctx.root, tokens)][:len(tokens)]:  # node's own: below
        if isinstance(here, dict) and isinstance(here.get("$id"), str):
            base = urljoin(base, here["$id"])
    if isinstance(node.get("$id"), str):
        base = urljoin(base, node["$id"])
    return base


def querystring(node: dict[str, Any], ctx: Context, at: str) -> dict[str, Any]:
    """``in: querystring`` with a form ``content`` -> ``in: query``, ``style: form``,
    ``explode: true``, its ``schema`` and its ``encoding`` (as :data:`QUERYSTRING`); with
    one other media type -> ``in: query``, its ``content`` kept, :data:`QUERYSTRING` ``{}``.

    Source: OpenAPI 3.2.0 sections 4.12.1 (Parameter Locations: ``querystring``), 4.12.2.3
    (``content``: one entry) and 4.12.8 (Parameter Object Examples).
    """
    content = node.get("content")
    if node.get("in") != "querystring":
        return node
    if not isinstance(content, dict) or len(content) != 1 or not isinstance(
            next(iter(content.values())), dict):
        ctx.notes.append(Note(f"{at}/content", "a querystring parameter needs a content of "
                              "exactly one media type: the operation is reported"))
        return node
    media_type = next(iter(content))
    if media_type.lower().startswith("multipart/"):
        ctx.notes.append(Note(f"{at}/content", f"a {media_type} querystring parameter "
                              "has no query string form: the operation is reported"))
        return node
    ctx.tally["querystring"] += 1
    if media_type != FORM:
        return {**node, "in": "query", QUERYSTRING: {}}
    out = {k: v for k, v in node.items() if k != "content"}
    ctx.pointers.move("", f"{at[1:]}/schema", f"{at[1:]}/content/{escape(FORM)}/schema")
    encoding = content[FORM].get("encoding")
    return {**out, "in": "query", "style": "form", "explode": True,
            "schema": content[FORM].get("schema", {"type": "object"}),
            QUERYSTRING: encoding if isinstance(encoding, dict) else {}}


def item_schema(node: dict[str, Any], ctx: Context, at: str) -> dict[str, Any]:
    """A Media Type Object with ``itemSchema`` and no ``schema`` -> ``schema`` an array of
    ``itemSchema`` (a note says the stream is read as an array)."""
    if "itemSchema" not in node or "schema" in node:
        return node
    ctx.tally["item_schema"] += 1
    ctx.notes.append(Note(f"{at}/itemSchema", "a stream of items (itemSchema) is described "
                          "as an array of them"))
    ctx.pointers.move("", f"{at[1:]}/schema/items", f"{at[1:]}/itemSchema")
    return {**node, "schema": {"type": "array", "items": node["itemSchema"]}}


def data_value(node: dict[str, Any], ctx: Context, at: str) -> dict[str, Any]:
    """``examples`` entries (Example Objects) with ``dataValue`` and no ``value`` ->
    ``value`` = ``dataValue``."""
    examples = node.get("examples")
    if not isinstance(examples, dict):
        return node
    fixed = {k: ({**e, "value": e["dataValue"]} if isinstance(e, dict) and "dataValue" in e
                 and "value" not in e else e) for k, e in examples.items()}
    changed = sum(fixed[k] is not e for k, e in examples.items())
    if not changed:
        return node
    ctx.tally["data_value"] += changed
    return {**node, "examples": fixed}


def counted(node: dict[str, Any], ctx: Context, at: str) -> dict[str, Any]:
    """Count the 3.2 fields carried as they are (``query``, ``additionalOperations``, tag
    ``parent``/``kind``, ``deviceAuthorization``)."""
    if at.startswith("#/paths/") and at.count("/") == 2 and isinstance(node.get("query"), dict):
        ctx.tally["query"] += 1
    if isinstance(node.get("additionalOperations"), dict):
        ctx.tally["additional_operations"] += len(node["additionalOperations"])
    if "/tags/" in at and ("parent" in node or "kind" in node):
        ctx.tally["tag_parent"] += 1
    if isinstance(node.get("deviceAuthorization"), dict):
        ctx.tally["device_authorization"] += 1
    return node


RULES: tuple[Callable[[dict[str, Any], Context, str], dict[str, Any]], ...] = (
    self_ref, querystring, item_schema, data_value, counted)
"""The rules, in order, for every object (each returns the node itself when it does not
apply)."""


def convert(root: dict[str, Any], ctx: Context) -> dict[str, Any]:
    """A 3.2 document -> the same document, readable by the 3.1 path (see the module)."""
    own = root.get("$self")
    ctx.root = root
    if isinstance(own, str) and own:
        ctx.self_document = urldefrag(own)[0]
        if "://" in own:  # a relative $self names no folder an absolute $ref could be in
            ctx.self_folder = ctx.self_document.rpartition("/")[0] + "/"

    def visit(node: dict[str, Any], pointer: str) -> dict[str, Any]:
        for rule in RULES:
            node = rule(node, ctx, "#" + pointer)
        return node

    out: dict[str, Any] = rewrite(root, visit)
    return out
