"""The ``$defs`` names of one document's named schemas, and ``$ref``s rewritten to them.

Every ``$ref`` target met while emending becomes a *named schema* with a ``$defs`` name
(:func:`refs.def_name <httpllm.refs.def_name>`); component schemas are named first, so
they keep their own names whatever is compiled first.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import PurePosixPath
from typing import Any
from urllib.parse import urldefrag, urlparse

from httpllm._json import kind
from httpllm._memo import IdentityMemo
from httpllm._types import Schema
from httpllm.errors import HttpllmError, RefError
from httpllm.normalize._context import ANNOTATIONS
from httpllm.parse import component_map
from httpllm.pointer import escape, parts
from httpllm.refs import Resolver, def_name, def_name_of, def_ref
from httpllm.walk import is_leaf, refs_in

__all__ = ["EmendedRefs", "Named", "SchemaNames", "collect_refs"]

_REF_SIBLINGS_30 = ANNOTATIONS | {"nullable"}

_OBJECTS = {"parameters": "a Parameter Object", "responses": "a Response Object",
            "requestBodies": "a Request Body Object", "headers": "a Header Object",
            "securitySchemes": "a Security Scheme Object", "examples": "an Example Object",
            "links": "a Link Object", "callbacks": "a Callback Object",
            "pathItems": "a Path Item Object"}
"""What an entry of each ``components`` map other than ``schemas`` is (OpenAPI 3.1.0
section 4.8.7)."""

_OUTSIDE = {"openapi", "info", "jsonSchemaDialect", "servers", "security", "tags",
            "externalDocs"}
"""Top-level fields of an OpenAPI document that hold no schema at any depth."""


def _refuse_other_object(ref: str, tokens: list[str]) -> None:
    """Refuse a schema ``$ref`` into the OpenAPI document itself that names another kind
    of object: a ``components`` entry other than a schema, a path item or an operation,
    ``info`` ... (as a schema each took any value, in silence).

    Raises:
        RefError: saying what the target is.
    """
    what = None
    if tokens and tokens[0] in _OUTSIDE:
        what = f"the document's {tokens[0]!r}"
    elif len(tokens) == 3 and tokens[0] == "components" and tokens[1] in _OBJECTS:
        what = _OBJECTS[tokens[1]]
    elif len(tokens) in (2, 3) and tokens[0] in ("paths", "webhooks"):
        what = "a Path Item Object" if len(tokens) == 2 else "an Operation Object"
    elif len(tokens) <= 2 and tokens[:1] == ["components"]:
        what = "the document's components" if len(tokens) == 1 else "a components map"
    if what is not None:
        raise RefError(f"$ref {ref!r} points to {what}; expected a Schema Object")


def collect_refs(schema: Schema) -> set[str]:
    """The def names of every ``#/$defs/...`` ``$ref`` in an emended schema
    (:func:`walk.refs_in <httpllm.walk.refs_in>`)."""
    return {name for ref in refs_in(schema) if (name := def_name_of(ref)) is not None}


class EmendedRefs:
    """:func:`collect_refs` of emended schemas, remembered per object: the refs left in an
    output are the edges of the ref graph (a ref an ``allOf`` merged away, or a property
    the direction dropped, is no edge)."""

    __slots__ = ("_memo",)

    def __init__(self) -> None:
        self._memo: IdentityMemo[frozenset[str]] = IdentityMemo()

    def __call__(self, schema: Schema) -> frozenset[str]:
        hit = self._memo.get(schema)
        if hit is not None:
            return hit
        if schema.__class__ is dict and is_leaf(schema):  # half the calls: no walk
            ref = schema.get("$ref")
            name = def_name_of(ref) if ref.__class__ is str else None
            return self._memo.put(schema, _NO_REFS if name is None else frozenset((name,)))
        return self._memo.put(schema, frozenset(collect_refs(schema)) or _NO_REFS)

    def none(self, schema: Schema) -> None:
        """Record that ``schema`` refers to no named schema (its emend met no ``$ref``)."""
        self._memo.put(schema, _NO_REFS)


_NO_REFS: frozenset[str] = frozenset()
"""The refs of most emended schemas: one object for all of them (a frozenset is a
container the cyclic collector counts, one per schema otherwise)."""


@dataclass(slots=True)
class Named:
    """A named schema as the document writes it."""

    uri: str  # canonical URI of the target
    pointer: str  # how messages name it
    node: Any  # the document node
    base: str  # URI of the file it lives in


class SchemaNames:
    """``$ref`` target -> ``$defs`` name, for one document.

    Args:
        resolver: resolves ``$ref``s of the document.
        version: ``"3.0"`` or ``"3.1"`` (3.0 ignores non-annotation ``$ref`` siblings).
    """

    __slots__ = ("_at", "_by_uri", "_labels", "_named", "_taken", "resolver", "version")

    def __init__(self, resolver: Resolver, version: str) -> None:
        self.resolver = resolver
        self.version = version
        self._by_uri: dict[str, str] = {}
        self._labels: dict[str, str] | None = None  # labels(), until a name is given
        self._at: dict[str, str] | None = None  # name_at(): labels() the other way
        self._named: dict[str, Named] = {}
        self._taken: set[str] = set()
        # Component schemas keep their own names, whatever is compiled first.
        # The map may be a ``$ref`` to a file of schemas (sendgrid/sendgrid-oai).
        schemas = component_map(resolver.root, resolver, "schemas")
        for key, node in schemas.entries.items():
            uri = f"{schemas.uri}/{escape(key)}"
            name = self._register(uri, resolver.label(uri), node,
                                  resolver.id_base(node, schemas.base), [key])
            if isinstance(node, dict) and set(node) == {"$ref"}:
                self._alias(name, f"#/components/schemas/{escape(key)}")

    def _alias(self, name: str, pointer: str) -> None:
        """A component that is only a ``$ref`` (often to another file) names its target."""
        try:
            target = self.resolver.resolve(pointer, self.resolver.base)
        except HttpllmError:
            return  # reported where the component is used
        if target.uri not in self._by_uri:
            self._by_uri[target.uri] = name
            self._labels = None
            self._named[name] = Named(target.uri, target.pointer, target.node, target.scope)

    def _register(self, uri: str, pointer: str, node: Any, base: str, tokens: list[str]) -> str:
        name = def_name(tokens, self._taken)
        self._by_uri[uri] = name
        self._labels = None
        self._named[name] = Named(uri, pointer, node, base)
        return name

    def name_for(self, ref: str, base: str) -> str:
        """The def name of the schema ``ref`` (met in the file ``base``) points to.

        Raises:
            RefError: the reference does not resolve.
            AccessDenied: it needs the network or a file outside the folder.
        """
        target = self.resolver.resolve(ref, base)
        if not isinstance(target.node, dict | bool):  # a components/schemas entry too
            raise RefError(f"$ref {ref!r} points to {kind(target.node)} at "
                           f"{target.pointer}; expected a Schema Object (a JSON object, "
                           "or a boolean in 3.1)")
        name = self._by_uri.get(target.uri)
        if name is None:
            if target.pointer == "#":
                raise RefError(f"$ref {ref!r} points to the whole OpenAPI document; expected "
                               "a Schema Object")
            doc, fragment = urldefrag(target.uri)
            if doc == urldefrag(self.resolver.base)[0]:
                _refuse_other_object(ref, parts(fragment))
            tokens = parts(fragment) or [PurePosixPath(urlparse(doc).path).stem]  # a whole file
            name = self._register(target.uri, target.pointer, target.node, target.scope, tokens)
        return name

    def known(self, ref: Any, base: str) -> str | None:
        """The def name :meth:`name_for` gives ``ref`` when it already has one (a component
        schema, or a target met before), else ``None``: for a ``$ref`` that does not resolve,
        to no schema, or to a target not yet named, and for one into another file.

        Rule: it names nothing and loads nothing (a ``#`` pointer is into a file already
        read), so a ``$ref`` it answers may be read before or after the others: a target
        it does not know keeps the name :meth:`name_for` gives it, in the order the walk
        meets it, and the files are read in that order too."""
        if ref.__class__ is not str or ref[:1] != "#":
            return None
        try:
            target = self.resolver.resolve(ref, base)
        except HttpllmError:
            return None
        if not isinstance(target.node, dict | bool):
            return None
        return self._by_uri.get(target.uri)

    def name_or_none(self, ref: str, base: str) -> str | None:
        """:meth:`name_for`, ``None`` where it raises; a bare name (a discriminator
        ``mapping`` value) names a component schema."""
        if "#" not in ref and "/" not in ref and "." not in ref:
            ref = "#/components/schemas/" + ref  # discriminator mapping by bare schema name
        try:
            return self.name_for(ref, base)
        except HttpllmError:
            return None

    def __contains__(self, name: object) -> bool:
        return name in self._named

    def entry(self, name: str) -> Named:
        """The registered named schema ``name`` (``KeyError`` for a name never given)."""
        return self._named[name]

    def pointer(self, name: str) -> str:
        """The document pointer of a named schema (``#/components/schemas/Pet``)."""
        return self._named[name].pointer

    def all(self) -> list[str]:
        """Every def name registered so far."""
        return list(self._named)

    def labels(self) -> dict[str, str]:
        """``def name -> label`` of the URI each name was given last (an aliased
        component's is its target's), as losses and the inliner's origins name places
        (:meth:`~httpllm.refs.Resolver.label`): ``#/components/schemas/Pet`` in the
        document, ``models/Pet.yml#`` in another file (its fragment alone, ``#``, named
        no place a loss is recorded at)."""
        if self._labels is None:  # made again only after a name was given
            uris = {name: uri for uri, name in self._by_uri.items()}
            self._labels = {name: self.resolver.label(uri) for name, uri in uris.items()}
            self._at = None
        return self._labels

    def name_at(self, label: str) -> str | None:
        """The def name of the schema at ``label`` (an ``Inliner.origins`` or loss
        pointer: ``models/Pet.yml#``, or an operation's schema that is a ``$ref``,
        ``paths/pets.yml#/post/requestBody/content/application~1json/schema``), or
        ``None``: the place :meth:`labels` gives a name, read as text, else the label
        resolved from the root document's file (:meth:`~httpllm.refs.Resolver.at_label`),
        which it is relative to: not the file an operation is in, nor, in OpenAPI 3.2, the
        document's ``$self``."""
        labels = self.labels()
        if self._at is None:
            self._at = {place: name for name, place in labels.items()}
        found = self._at.get(label)
        if found is None:
            found = self.name_or_none(self.resolver.at_label(label), self.resolver.base)
        return found

    def _target(self, ref: str, at: str, base: str) -> str:
        """:meth:`name_for`, with the ``$ref``'s pointer on errors that have none."""
        try:
            return self.name_for(ref, base)
        except HttpllmError as exc:  # RefError, AccessDenied, LoadError: name the $ref
            if exc.pointer is not None:
                raise
            raise type(exc)(exc.message, pointer=at, source=exc.source) from exc

    def rewrite_ref(self, node: dict[str, Any], at: str, base: str) -> dict[str, Any]:
        """A document ``$ref`` node -> ``#/$defs/<name>``, its siblings as the version says.

        A 3.1 ``$id`` beside the ``$ref`` is the base it resolves against
        (:func:`~httpllm.refs.id_base`); 3.0 ignores every sibling of ``$ref``.

        Raises:
            RefError, AccessDenied: the reference does not resolve (at ``at``).
        """
        base = self.resolver.id_base(node, base)
        ref = {"$ref": def_ref(self._target(node["$ref"], at, base))}
        siblings = {k: v for k, v in node.items() if k != "$ref"}
        if not siblings:
            return ref
        if self.version == "3.0":  # siblings of $ref are ignored in 3.0; keep annotations
            return {**ref, **{k: v for k, v in siblings.items() if k in _REF_SIBLINGS_30}}
        if set(siblings) <= _REF_SIBLINGS_30:
            return {**ref, **siblings}
        return {**siblings, "allOf": [ref, *siblings.get("allOf", [])]}

    def rewrite_mapping(self, ref: str, at: str, base: str) -> dict[str, Schema]:
        """``properties: {$ref: attrs.yml#/X}`` -> one ``$defs`` ref per schema of ``X``.

        Raises:
            RefError, AccessDenied: the reference does not resolve, or not to a map.
        """
        try:
            target = self.resolver.resolve(ref, base)
        except HttpllmError as exc:
            if exc.pointer is not None:
                raise
            raise type(exc)(exc.message, pointer=at, source=exc.source) from exc
        if not isinstance(target.node, dict):
            raise RefError(f"$ref {ref!r} stands for a map of schemas but points to a "
                           f"{type(target.node).__name__}", pointer=at)
        prefix = ref if "#" in ref else ref + "#"
        return {key: self.rewrite_ref({"$ref": f"{prefix}/{escape(key)}"},
                                      f"{at}/{escape(key)}", base)
                for key in target.node}
