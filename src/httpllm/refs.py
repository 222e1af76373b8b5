"""Document -> references: resolve ``$ref``s through the safe loader; the schema ref graph.

A :class:`Resolver` turns a ``$ref`` met at some base URI into its target node and a
canonical URI. Named schemas get stable ``$defs`` names. The :class:`RefGraph` (networkx)
holds schema -> schema edges and answers which schemas are *recursive* (on a cycle).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any
from urllib.parse import urldefrag, urljoin, urlsplit

from httpllm._content import reads_as_content
from httpllm.errors import AccessDenied, HttpllmError, RefError
from httpllm.load import Loader
from httpllm.pointer import escape, file_label, index, parts, trail, unescape
from httpllm.walk import IN_ARRAY, IN_MAPPING, IN_VALUE, subschemas

__all__ = ["DEFS", "RefGraph", "Resolver", "Target", "dangling_refs", "def_name", "def_name_of",
           "def_ref", "has_inner_ids", "id_base", "id_base_at"]

ROOT = "root:"
"""Base URI of a document given as text or dict (no file, so no relative files)."""

_NAME_UNSAFE = re.compile(r"[^A-Za-z0-9_.-]+")


def id_base(node: Any, base: str) -> str:
    """The base URI the ``$ref``s of schema ``node`` (met where ``base`` is the base)
    resolve against: its own ``$id`` resolved against ``base``, else ``base``. A schema's
    ``$id`` applies to the ``$ref`` beside it and to every ``$ref`` below it (JSON Schema
    2020-12 section 8.2.1, "The $id Keyword", and section 8.2.3.1: ``$id`` is processed
    before the ``$ref`` of the same object; OpenAPI 3.1.0 section 4.8.24.1).

    >>> id_base({"$id": "./nested/", "$ref": "ex.json"}, "file:///a/root.json")
    'file:///a/nested/'
    >>> id_base({"type": "string"}, "file:///a/root.json")
    'file:///a/root.json'
    """
    own = node.get("$id") if isinstance(node, dict) else None
    return urldefrag(urljoin(base, own))[0] if isinstance(own, str) else base


def has_inner_ids(schema: Any) -> bool:
    """Whether a subschema below ``schema`` (not ``schema`` itself) has an ``$id``: then
    the ``$ref``s under it resolve against another base than ``schema``'s
    (:func:`id_base_at`). Iterative; ``$ref`` is not followed.

    >>> has_inner_ids({"$id": "a", "properties": {"b": {"type": "string"}}})
    False
    >>> has_inner_ids({"properties": {"b": {"$id": "https://ex.com/b/"}}})
    True
    """
    stack = subschemas(schema) if isinstance(schema, dict) else []
    while stack:
        node = stack.pop()
        if node.__class__ is dict:
            if "$id" in node:
                return True
            stack.extend(subschemas(node))
    return False


def id_base_at(schema: Any, base: str, tokens: list[str], *, own: bool = True) -> str:
    """The base URI of the ``$ref``s of the subschema of ``schema`` that ``tokens`` (its
    pointer's tokens below ``schema``) reach, ``schema``'s base being ``base``: every
    ``$id`` on the way down, ``schema``'s excepted (already in ``base``), resolved against
    the base enclosing it (JSON Schema 2020-12 sections 8.2.1 and 9.1.2: an ``$id`` on
    any subschema starts a schema resource, the base of every ``$ref`` inside it).
    ``own=False``: the base enclosing the subschema, its own ``$id`` left for the caller
    (:func:`id_base`, as a ``$ref`` beside it is resolved).

    >>> id_base_at({"properties": {"b": {"$id": "https://ex.com/b/", "properties": {
    ...     "c": {"$id": "c/", "$ref": "d.json"}}}}}, "file:///a.yaml",
    ...     ["properties", "b", "properties", "c"])
    'https://ex.com/b/c/'
    """
    keyed = False  # the node before is a map or list of subschemas
    last = len(tokens) - 1
    for i, (token, node) in enumerate(zip(tokens, trail(schema, tokens), strict=False)):
        if keyed or (token in IN_VALUE and not isinstance(node, list)):  # a subschema
            if own or i < last:
                base = id_base(node, base)
            keyed = False
        else:  # a keyword's map or list of subschemas (``items`` as a list in old drafts)
            keyed = token in IN_ARRAY or token in IN_MAPPING or token in IN_VALUE
    return base


def _declared_self(root: Any) -> str | None:
    """The ``$self`` an OpenAPI 3.2 document declares (a string), else ``None``."""
    if not isinstance(root, dict):
        return None
    own, version = root.get("$self"), root.get("openapi")
    return own if (isinstance(own, str) and isinstance(version, str)
                   and version.startswith("3.2")) else None


def _self_file(root: Any, base: str) -> str | None:
    """The file URI an OpenAPI 3.2 document's ``$self`` names it by, when it is not the
    file it was read from (``base``), else ``None``: a ``$ref`` from another file to
    that URI is the document itself, never a file of that name read from disk (OpenAPI
    3.2.0 section 4.8.1 "$self": the document's own URI). An absolute ``$self`` names the
    document's folder as the upgrade reads it (``upgrade.openapi32``: the files beside the
    document are the files under ``$self``'s folder), so it names the file of its last
    segment in the document's folder; a relative one is resolved against ``base``.
    The document's own ``$ref``s to it are made local by the upgrade.

    >>> _self_file({"openapi": "3.2.0", "$self": "https://ex.com/api/openapi.yaml"},
    ...            "file:///d/spec.yaml")
    'file:///d/openapi.yaml'
    """
    own = _declared_self(root)
    if own is None or base.startswith(ROOT):
        return None
    own = urldefrag(own)[0]
    if "://" in own:
        own = own.rpartition("/")[2]
    if not own:
        return None
    found = urldefrag(urljoin(base, own))[0]
    return None if found == base else found


def _self_base(root: Any, base: str) -> str:
    """The base URI of the relative ``$ref``s of an OpenAPI 3.2 document read at ``base``:
    its ``$self``, resolved against ``base`` when relative (OpenAPI 3.2.0 sections 4.1
    "$self" and 4.1.2.2.1 "Establishing the Base URI"), else ``base``. What a reference
    resolved against it names is found among the files read, else beside ``base``
    (:meth:`Resolver._fallback`): never fetched.

    >>> _self_base({"openapi": "3.2.0", "$self": "v2/openapi.yaml"}, "file:///d/spec.yaml")
    'file:///d/v2/openapi.yaml'
    """
    own = _declared_self(root)
    if own is None or base.startswith(ROOT):
        return base
    return urldefrag(urljoin(base, own))[0] or base


@dataclass(frozen=True, slots=True)
class Target:
    """A resolved reference: the node, its canonical URI and its document pointer.

    Attributes:
        node: the target node.
        uri: ``"<file uri>#/json/pointer"``, absolute: the identity of the target.
        pointer: how errors and losses name it: ``"#/..."`` or ``"other.yaml#/..."``.
        base: the URI relative ``$ref``s inside ``node`` resolve against: the file, or the
            nearest enclosing ``$id`` (JSON Schema 2020-12 section 8.2.1); ``""`` = the file.
    """

    node: Any
    uri: str
    pointer: str
    base: str = ""

    @property
    def scope(self) -> str:
        """:attr:`base`, or the file of :attr:`uri` when no ``$id`` encloses the node."""
        return self.base or urldefrag(self.uri)[0]


class Resolver:
    """Resolves ``$ref`` strings against the root document and files the loader may read.

    Args:
        root: the root document.
        base: the root document's URI (``file:///.../openapi.yaml``) or :data:`ROOT`.
        loader: reads other files through the gate.
    """

    def __init__(self, root: Any, base: str, loader: Loader) -> None:
        self.root = root
        self.base = base
        self.loader = loader
        self._self = _self_file(root, base)
        self._own = _self_base(root, base)
        version = root.get("openapi") if isinstance(root, dict) else None
        self.ids = not (isinstance(version, str) and version.startswith("3.0"))
        """Whether ``$id`` is a keyword: not in OpenAPI 3.0 (and a Swagger 2.0 document
        upgraded to it), whose Schema Object has no ``$id`` (section 4.7.24): it is ignored
        there as any unknown keyword, on a component, nested, in another file or at its
        top alike (:meth:`id_base`)."""
        self._ids: dict[str, dict[str, tuple[Any, str, str]]] = {}
        self._cache: dict[tuple[str, str], Target] = {}
        self._anchors: dict[str, dict[str, tuple[Any, str, str]]] = {}
        self._walking: set[tuple[str, str]] = set()

    def id_base(self, node: Any, base: str) -> str:
        """:func:`id_base` where ``$id`` is a keyword (:attr:`ids`), else ``base``."""
        return id_base(node, base) if self.ids else base

    def document(self, uri: str) -> Any:
        """The decoded document at ``uri`` (no fragment)."""
        if uri == self.base:
            return self.root
        if uri.startswith(ROOT):
            raise RefError(f"cannot resolve {uri!r}: the document was not given as a file")
        try:
            return self.loader(uri)
        except HttpllmError:
            raise
        except Exception as exc:  # the loader's OS and decode errors are mapped here
            raise RefError(f"cannot load {uri!r}: {exc}") from exc

    def label(self, uri: str) -> str:
        """A short name of a canonical URI for messages: ``#/a/b``, ``file.yaml#/a/b`` or
        ``../common.yaml#/a/b`` (:func:`httpllm.pointer.file_label`)."""
        if uri.startswith(self.base) and uri[len(self.base) : len(self.base) + 1] == "#":
            return uri[len(self.base) :]  # the common case, without urllib's parsing
        doc, frag = urldefrag(uri)
        if doc == self.base:
            return "#" + frag
        if self.base.startswith(ROOT):
            return uri
        return f"{file_label(doc, self.base)}#{frag}"

    def at_label(self, label: str) -> str:
        """The ``$ref`` that names the place :meth:`label` gave as ``label``, met at
        :attr:`base`: ``label`` is relative to the root document's file, so a file's is
        made absolute, beyond the reach of an OpenAPI 3.2 ``$self`` (the base of the
        document's own ``$ref``s).

        >>> Resolver({}, "file:///d/openapi.yaml", Loader(None)).at_label("paths/x.yaml#/post")
        'file:///d/paths/x.yaml#/post'
        """
        if label.startswith("#") or self.base.startswith(ROOT):
            return label
        return urljoin(self.base, label)

    def resolve(self, ref: str, base: str) -> Target:
        """Resolve ``ref`` found in the document at ``base`` (a URI without fragment).

        Follows chains of pure ``{"$ref": ...}`` nodes (at most 64 links), and a pointer
        through a ``$ref`` on its way: ``#/components/parameters/limit`` when
        ``components.parameters`` is ``{"$ref": "parameters.yaml"}`` is ``limit`` in that
        file (not in the specification, whose pointers read the document as written, but
        how split repositories such as sendgrid/sendgrid-oai keep their components, and
        what json-schema-ref-parser resolves).

        Raises:
            RefError: missing file, pointer to nowhere, or a ``$ref`` chain loop.
            AccessDenied: the target needs the network or a file outside the folder.
        """
        if not isinstance(ref, str):  # (a list or an object would not even be a cache key)
            raise RefError(f"$ref must be a string, got {type(ref).__name__}")
        key = (ref, base)
        cached = self._cache.get(key)
        if cached is not None:
            return cached
        if key in self._walking:
            raise RefError(f"$ref {ref!r} loops: its pointer passes through itself")
        self._walking.add(key)
        try:
            target = self._follow(ref, base)
        finally:
            self._walking.discard(key)
        self._cache[key] = target
        return target

    def _follow(self, ref: str, base: str) -> Target:
        seen: list[str] = []
        while True:
            target = self._resolve_one(ref, base)
            node = target.node
            if not (isinstance(node, dict) and len(node) == 1
                    and isinstance(node.get("$ref"), str)):
                return self._checked(target, ref)
            seen.append(target.uri)
            if len(seen) > 64 or target.uri in seen[:-1]:
                raise RefError(f"$ref chain loops or is too long at {ref!r}",
                               pointer=target.pointer)
            ref, base = node["$ref"], target.scope

    def _checked(self, target: Target, ref: str) -> Target:
        """``target``, when it is in the root document or reads as OpenAPI or JSON Schema
        content where it is (:func:`httpllm._content.reads_as_content`).

        Raises:
            AccessDenied: a target in another file that does not: a file the gate let
                through (a keyword somewhere in its first levels) may still be a settings
                file, and a ``$ref`` to it, or to a value in it, would inline its secrets
                into a tool.
        """
        if urldefrag(target.uri)[0] == self.base or reads_as_content(target.node):
            return target
        raise AccessDenied(
            f"$ref {ref!r} points at {target.pointer}, which does not read as OpenAPI or "
            "JSON Schema content (no keyword of either at its top, or a credential beside "
            "them, a text under a key naming one): a value that is not "
            "part of the API description is never inlined into a tool")

    def _located(self, base: str) -> bool:
        """Whether ``base`` is where a document was read from (the root document's URI or
        a file read), not a URI an ``$id`` or ``$self`` gave."""
        return base == self.base or base in getattr(self.loader, "files", ())

    def _resolve_one(self, ref: str, base: str) -> Target:
        """One link of a ``$ref`` (no chain followed): the resource its URI names, else the
        file there, else, when only an ``$id`` or ``$self`` made the base it resolves
        against, the same relative reference beside the file that declared it
        (:meth:`_fallback`)."""
        if base.startswith(ROOT):
            doc_uri, fragment = (base, ref[1:]) if ref.startswith("#") else urldefrag(ref)
            identified = False
        else:
            start = self._own if base == self.base else base  # the document's $self
            if ref.startswith("#"):
                doc_uri, fragment, start = base, ref[1:], base
            else:
                doc_uri, fragment = urldefrag(urljoin(start, ref))
                if doc_uri == self._self or doc_uri == self._own:  # the document itself
                    doc_uri = self.base
            # a relative reference whose base only an ``$id`` or ``$self`` gave: a name,
            # never a place to fetch from (an absolute one names its own place)
            identified = ((start != base or not self._located(base))
                          and not urlsplit(ref).scheme)
        found = self._by_id(doc_uri)  # a 3.1 schema ``$id`` wins over a file of that name
        node: Any = None
        if found is None:
            if identified and not doc_uri.startswith("file:") and doc_uri != self.base:
                doc_uri, node = self._fallback(ref, base, doc_uri, None)
            else:
                try:
                    node = self.document(doc_uri)
                except HttpllmError as exc:
                    # a ``file:`` URI no file answers for may name a schema embedded in a
                    # file read (a relative ``$id`` there): the files read are searched
                    if doc_uri.startswith("file:") and self.ids and (
                            found := self._in_files(doc_uri)) is not None:
                        pass
                    elif identified:
                        doc_uri, node = self._fallback(ref, base, doc_uri, exc)
                    else:
                        raise
        if found is not None:
            node, file_uri, prefix = found
            scope = doc_uri
        else:
            file_uri, prefix = doc_uri, ""
            scope = doc_uri if doc_uri == self.base else self._file_base(node, doc_uri)
        if fragment and not fragment.startswith("/"):
            anchor = self._anchor(file_uri, scope, fragment)
            if anchor is None:
                raise RefError(f"$ref {ref!r}: no $anchor {fragment!r} in {self.label(scope)}")
            node, pointer, anchor_scope = anchor
            uri = f"{file_uri}#{pointer}"
            return Target(node, uri, self.label(uri), anchor_scope)
        return self._walk(node, file_uri, prefix, scope, fragment, ref)

    def _fallback(self, ref: str, base: str, named: str,
                  error: HttpllmError | None) -> tuple[str, Any]:
        """``(file uri, document)`` of ``ref`` resolved against the place of the document
        whose ``$id`` or ``$self`` made ``base`` (its retrieval URI), when ``named``, what
        ``ref`` is against ``base``, is no schema resource of the files read, and no file
        the gate lets us read: a canonical ``https:`` ``$id`` beside a relative ``$ref``
        to a file next to it. ``named`` is never fetched: an ``$id`` is a name, not a place
        (JSON Schema 2020-12 section 8.2.1; OpenAPI 3.2.0 section 4.1.2.2.1, "Establishing
        the Base URI": the retrieval URI is the base when ``$self`` is missing or relative).

        Raises:
            RefError, AccessDenied, LoadError: neither answers (the error of the second,
                naming the first).
        """
        home = self._home(base)
        if home is None:
            if error is not None:
                raise error
            raise AccessDenied(f"$ref {ref!r} is {named}, which names no schema of the files "
                               "read: a URI an $id gives is never fetched")
        doc_uri = home if ref.startswith("#") else urldefrag(
            ref if home.startswith(ROOT) else urljoin(home, ref))[0]
        if doc_uri == self._self:
            doc_uri = self.base
        try:
            return doc_uri, self.document(doc_uri)
        except HttpllmError as exc:
            beside = ("the document" if home == self.base or home.startswith(ROOT)
                      else file_label(home, self.base))
            raise type(exc)(f"$ref {ref!r} is {named} (against the base an $id or $self "
                            "gives), which names no schema of the files read and is never "
                            f"fetched; beside {beside}: {exc.message}",
                            pointer=exc.pointer, source=exc.source) from exc

    def _home(self, base: str) -> str | None:
        """The place (retrieval URI) of the document whose ``$id`` or ``$self`` is
        ``base``, or ``None``: the root document's files are searched for it as for an
        embedded resource (:meth:`_by_id`)."""
        if base == self.base or base == self._own:
            return self.base
        if self.base not in self._ids:
            self._index(self.base, self.root)
        found = self._ids[self.base].get(base) or self._in_files(base)
        return None if found is None else found[1]

    def _file_base(self, document: Any, uri: str) -> str:
        """The base URI of the ``$ref``s of a file read at ``uri`` (not the root
        document): the ``$self`` of an OpenAPI 3.2 document (OpenAPI 3.2.0 section 4.1),
        the ``$id`` at the top of a schema (JSON Schema 2020-12 section 8.2.1), resolved
        against ``uri``; else ``uri``."""
        if not self.ids or document.__class__ is not dict:
            return uri
        own = document.get("$self") if str(document.get("openapi", "")).startswith(
            "3.2") else None if "openapi" in document else document.get("$id")
        return urldefrag(urljoin(uri, own))[0] if isinstance(own, str) else uri

    def _walk(self, node: Any, file_uri: str, prefix: str, scope: str, fragment: str,
              ref: str) -> Target:
        """Follow ``fragment`` from ``node`` (found at ``prefix`` in ``file_uri``), through
        any ``$ref`` whose node lacks the next token (see :meth:`resolve`)."""
        pointer, written, ids = prefix, scope, self.ids
        for token in parts(fragment):
            if isinstance(node, dict) and token not in node and isinstance(
                    node.get("$ref"), str):
                target = self.resolve(node["$ref"], scope)
                node, scope = target.node, target.scope
                file_uri, pointer = urldefrag(target.uri)
            if isinstance(node, dict) and token in node:
                node = node[token]
            elif isinstance(node, list) and (at := index(token)) is not None and at < len(node):
                node = node[at]
            else:
                where = self.label(f"{written}#{fragment}")
                raise RefError(f"$ref {ref!r} points to nowhere ({where} does not exist)")
            pointer += "/" + escape(token)
            if ids:
                scope = id_base(node, scope)
        uri = f"{file_uri}#{pointer}"
        return Target(node, uri, self.label(uri), "" if scope == file_uri else scope)

    def _index(self, doc_uri: str, document: Any) -> None:
        """Index the ``$id``s (where :attr:`ids`) and the ``$anchor``s of ``doc_uri``.

        An anchor is found in the resource that declares it (the nearest ``$id``) and, for
        documents that use anchors without ``$id``, in the whole file. A file's own base
        (:meth:`_file_base`) is the resource of its top; the root document's top has none.
        """
        ids: dict[str, tuple[Any, str, str]] = {}
        anchors: dict[str, tuple[Any, str, str]] = {}
        top = doc_uri if doc_uri == self.base else self._file_base(document, doc_uri)
        if top != doc_uri:
            ids[top] = (document, doc_uri, "")
        stack: list[tuple[Any, str, str]] = [(document, "", top)]
        while stack:
            node, pointer, scope = stack.pop()
            if isinstance(node, dict):
                if self.ids and pointer and isinstance(node.get("$id"), str):
                    scope = urldefrag(urljoin(scope, node["$id"]))[0]
                    ids.setdefault(scope, (node, doc_uri, pointer))
                if isinstance(node.get("$anchor"), str):
                    entry = (node, pointer, "" if scope == doc_uri else scope)
                    anchors.setdefault(f"{scope}#{node['$anchor']}", entry)
                    anchors.setdefault(f"{doc_uri}#{node['$anchor']}", entry)
                items: Iterable[tuple[Any, Any]] = node.items()
            elif isinstance(node, list):
                items = enumerate(node)
            else:
                continue
            for key, child in reversed(list(items)):  # document order wins on duplicates
                if isinstance(child, (dict, list)):
                    stack.append((child, f"{pointer}/{escape(key)}", scope))
        self._ids[doc_uri] = ids
        self._anchors[doc_uri] = anchors

    def _by_id(self, uri: str) -> tuple[Any, str, str] | None:
        """``(node, file uri, pointer)`` of the schema whose ``$id`` is ``uri``, if any: an
        embedded schema resource (JSON Schema 2020-12 sections 8.2.1 and 9.1.2) of the root
        document, else, for a URI no file is read from (``https:``, ``urn:``), of a file
        read so far (the one holding the ``$ref`` is), never looked for on the network or
        the disk. A ``file:`` URI is the file (the files' ``$id``s are not searched for
        it: DigitalOcean's 1,224 files cost 40 % more to compile when they were), unless
        no file answers for it (:meth:`_resolve_one`): a relative ``$id`` nested in a file
        read (``d.json`` under ``parts.json#/$defs/D``) is a ``file:`` URI beside it.
        ``None`` in OpenAPI 3.0 (:attr:`ids`)."""
        if uri == self.base or not self.ids:
            return None
        if self.base not in self._ids:
            self._index(self.base, self.root)
        found = self._ids[self.base].get(uri)
        if found is not None or uri.startswith("file:"):
            return found
        return self._in_files(uri)

    def _in_files(self, uri: str) -> tuple[Any, str, str] | None:
        """``(node, file uri, pointer)`` of the schema whose ``$id`` is ``uri`` in a file
        read so far other than the root document, if any (see :meth:`_by_id`)."""
        for file_uri, document in list(getattr(self.loader, "files", {}).items()):
            if file_uri != self.base:
                if file_uri not in self._ids:
                    self._index(file_uri, document)
                found = self._ids[file_uri].get(uri)
                if found is not None:
                    return found
        return None

    def _anchor(self, file_uri: str, scope: str, name: str) -> tuple[Any, str, str] | None:
        if file_uri not in self._anchors:
            self._index(file_uri, self.document(file_uri))
        return self._anchors[file_uri].get(f"{scope}#{name}")


def _digraph() -> Any:
    import networkx as nx  # 0.1 s of import: only once a ref graph is made (a compile)

    return nx.DiGraph()


def _drop_views(graph: Any) -> None:
    """Forget the views networkx caches on a graph (``G.nodes``, ``G.in_degree`` ...:
    ``functools.cached_property``, each view holding its graph). Such a cache is a reference
    cycle, which leaves the graph and all it holds to the cyclic garbage collector (a full
    collection of the whole heap while responses are computed, about 15 % of reading every
    ``Function.output`` of GitHub's description); without it, reference counting frees
    the graph."""
    cached = type(graph)
    for key in [k for k in vars(graph) if isinstance(getattr(cached, k, None), cached_property)]:
        del vars(graph)[key]


@dataclass(slots=True)
class RefGraph:
    """Schema -> schema references of one document and the recursive ones among them.

    Nodes are ``$defs`` names. :meth:`add` records the references found while a named
    schema was emended; :meth:`finish` computes the cycles once (networkx
    ``strongly_connected_components``): a schema is *recursive* when it is on a cycle.
    """

    graph: Any = field(default_factory=_digraph)
    recursive: frozenset[str] = frozenset()
    cycles: list[list[str]] = field(default_factory=list)
    order: dict[str, int] = field(default_factory=dict)

    def add(self, name: str, targets: Iterable[str]) -> None:
        """Record that the emended schema ``name`` refers to each of ``targets``."""
        self.graph.add_node(name)
        self.graph.add_edges_from((name, t) for t in targets)

    def replace(self, name: str, targets: Iterable[str]) -> None:
        """Record that ``name`` now refers to ``targets`` only (call :meth:`finish`
        again)."""
        self.graph.remove_edges_from(list(self.graph.out_edges(name)))
        self.add(name, targets)

    @classmethod
    def of(cls, edges: Mapping[str, Iterable[str]]) -> RefGraph:
        """The graph of ``name -> names it refers to`` (e.g. a function's ``$defs``), its
        recursive set and cycles computed (not the dependency order)."""
        graph = cls()
        for name, targets in edges.items():
            graph.add(name, targets)
        graph._find_cycles()
        return graph

    def _find_cycles(self) -> None:
        import networkx as nx

        recursive: set[str] = set()
        cycles: list[list[str]] = []
        for component in nx.strongly_connected_components(self.graph):
            if len(component) > 1 or any(self.graph.has_edge(n, n) for n in component):
                recursive.update(component)
                cycles.append(sorted(component))
        self.recursive = frozenset(recursive)
        self.cycles = sorted(cycles)
        _drop_views(self.graph)

    def finish(self) -> None:
        """Compute the recursive set, the cycles (one per strongly connected component)
        and a dependency order (referenced schemas before the schemas that use them)."""
        import networkx as nx

        self._find_cycles()
        condensed = nx.condensation(self.graph)
        members = condensed.graph["mapping"]
        rank = {c: i for i, c in enumerate(reversed(list(nx.topological_sort(condensed))))}
        self.order = {name: rank[members[name]] for name in self.graph.nodes}
        _drop_views(self.graph)
        _drop_views(condensed)

    def is_recursive(self, name: str) -> bool:
        """Whether the named schema is on a reference cycle."""
        return name in self.recursive

    def cycle(self, start: str) -> list[str]:
        """A shortest reference path ``start -> ... -> start`` (breadth first, refs in the
        order they were added); ``[start, start]`` when ``start`` is on no cycle."""
        parents: dict[str, str] = {}
        queue = [start]
        while queue:
            name = queue.pop(0)
            for target in self.graph.successors(name):
                if target == start:
                    path = [name]
                    while path[-1] != start:
                        path.append(parents[path[-1]])
                    return [*reversed(path), start]
                if target not in parents:
                    parents[target] = name
                    queue.append(target)
        return [start, start]

    def reachable(self, names: Iterable[str]) -> set[str]:
        """Every named schema reachable from ``names`` (including them)."""
        out: set[str] = set()
        stack = [n for n in names if n in self.graph]
        while stack:
            name = stack.pop()
            if name in out:
                continue
            out.add(name)
            stack.extend(self.graph.successors(name))
        return out


DEFS = "#/$defs/"
"""How every ``$ref`` of an emended schema begins: ``#/$defs/<name>``."""


def def_ref(name: str) -> str:
    """The ``$ref`` of the ``$defs`` entry ``name``: ``"a/b"`` -> ``"#/$defs/a~1b"``."""
    return DEFS + escape(name)


def def_name_of(ref: str) -> str | None:
    """The ``$defs`` entry a ``$ref`` names, unescaped (RFC 6901): ``"#/$defs/a~1b"`` ->
    ``"a/b"``; ``None`` for any other ``$ref``, one into an entry's subschema included
    (``"#/$defs/A/properties/x"`` names no entry; every ``$ref`` an emended schema holds
    names one, ``naming.SchemaNames.name_for`` gives each target its own). The one
    reading of a ``$defs`` name: the inliner, the ref graphs, the unrolling and the
    dialects' renames ask it.

    >>> def_name_of("#/$defs/Pet"), def_name_of("#/$defs/A/properties/x")
    ('Pet', None)
    """
    if not ref.startswith(DEFS):
        return None
    token = ref[len(DEFS):]
    return None if "/" in token else unescape(token)


def def_name(pointer_tokens: list[str], taken: set[str]) -> str:
    """A ``$defs`` name for a schema from its pointer tokens, unique among ``taken``."""
    raw = pointer_tokens[-1] if pointer_tokens else "schema"
    base = _NAME_UNSAFE.sub("_", raw).strip("_") or "schema"
    name, i = base, 2
    while name in taken:
        name, i = f"{base}_{i}", i + 1
    taken.add(name)
    return name


def dangling_refs(resolver: Resolver, section: str = "components") -> list[tuple[str, str]]:
    """``(pointer, message)`` for each ``$ref`` under the root document's ``section`` that
    does not resolve (iterative; each distinct ``$ref`` is resolved once, through the
    resolver's cache and gate). Operations report the refs they reach; this finds the
    ones no operation reaches, which would otherwise pass unnoticed."""
    root = resolver.root
    start = root.get(section) if isinstance(root, dict) else None
    out: list[tuple[str, str]] = []
    # (node, where, base): ``where`` is ``(parent's where, key)``, a pointer spelled out only
    # for a ``$ref`` that fails (building every container's pointer was most of the walk);
    # ``base`` is what a ``$ref`` there resolves against, as the operations' walk has it
    # (:func:`id_base`: a schema's ``$id`` applies to it and below).
    stack: list[tuple[Any, Any, str]] = [(start, f"#/{section}", resolver.base)]
    ids = resolver.ids
    while stack:
        node, where, base = stack.pop()
        if isinstance(node, dict):
            if ids and "$id" in node:
                base = id_base(node, base)
            ref = node.get("$ref")
            if isinstance(ref, str):
                try:
                    resolver.resolve(ref, base)
                except HttpllmError as exc:
                    out.append((f"{_spelled(where)}/$ref", exc.message))
            items: Iterable[tuple[Any, Any]] = node.items()
        elif isinstance(node, list):
            items = enumerate(node)
        else:
            continue
        for key, child in items:
            if isinstance(child, (dict, list)):
                stack.append((child, (where, key), base))
    return sorted(out)


def _spelled(where: Any) -> str:
    """The pointer of a :func:`dangling_refs` ``(parent, key)`` chain."""
    keys: list[str] = []
    while isinstance(where, tuple):
        where, key = where
        keys.append(escape(key))
    return "/".join([where, *reversed(keys)])
