"""Named schemas of one document, each emended once per direction and shared.

Every ``$ref`` target met while emending becomes a *named schema* with a ``$defs`` name.
Its emended form is computed the first time it is needed and cached per
``(name, direction)``: operations share the result (never mutated). The ref graph is
filled from the ``$ref``s left in each emended form; :meth:`NamedSchemas.finish` then
knows which schemas are recursive.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from functools import partial
from pathlib import PurePosixPath
from typing import Any
from urllib.parse import urldefrag, urlparse

from httpllm._json import kind
from httpllm._memo import IdentityMemo
from httpllm._types import Direction, Schema
from httpllm.errors import HttpllmError, LimitExceeded, RefError
from httpllm.loss import Loss
from httpllm.normalize import PASSES, PassContext, emend
from httpllm.normalize._context import ANNOTATIONS
from httpllm.normalize.direction import flagged
from httpllm.parse import component_map
from httpllm.pointer import escape, parts, unescape
from httpllm.refs import RefGraph, Resolver, def_name, def_name_of, def_ref
from httpllm.walk import refs_in

__all__ = ["NamedSchemas", "collect_refs"]

_Owner = tuple[str, str, str, str]
"""Whose emend recorded a loss: ``("name", def name, direction, "" | "base")`` or
``("inline", file, pointer, direction)``."""
_MAX_NESTED = 48  # named schemas being emended inside one another (allOf chains)
_REF_SIBLINGS_30 = ANNOTATIONS | {"nullable"}


def _none() -> list[tuple[str, list[str]]]:
    return []


def _gone(name: str) -> Schema | None:
    raise RuntimeError("this pass context's emend has finished")


def collect_refs(schema: Schema) -> set[str]:
    """The def names of every ``#/$defs/...`` ``$ref`` in an emended schema
    (:func:`walk.refs_in <httpllm.walk.refs_in>`)."""
    return {name for ref in refs_in(schema) if (name := def_name_of(ref)) is not None}


@dataclass(slots=True)
class _Named:
    uri: str  # canonical URI of the target
    pointer: str  # how messages name it
    node: Any  # the document node
    base: str  # URI of the file it lives in


@dataclass
class NamedSchemas:
    """The per-compile cache of emended named schemas.

    Args:
        resolver: resolves ``$ref``s of the document.
        version: ``"3.0"`` or ``"3.1"`` (3.0 ignores non-annotation ``$ref`` siblings).
        warn: receives ``(pointer, message)`` for problems kept rather than guessed.
    """

    resolver: Resolver
    version: str
    warn: Callable[[str, str], None]
    graph: RefGraph = field(default_factory=RefGraph)
    examples: dict[str, list[Any]] = field(default_factory=dict)
    _by_uri: dict[str, str] = field(default_factory=dict)
    _named: dict[str, _Named] = field(default_factory=dict)
    _taken: set[str] = field(default_factory=set)
    _cache: dict[tuple[str, str, bool], Schema] = field(default_factory=dict)
    _failed: dict[tuple[str, str, bool], HttpllmError] = field(default_factory=dict)
    _busy: list[tuple[str, str, bool]] = field(default_factory=list)
    _refs: IdentityMemo[frozenset[str]] = field(default_factory=IdentityMemo)
    _inline: IdentityMemo[Schema] = field(default_factory=IdentityMemo)
    _variant_names: dict[str, frozenset[str]] = field(default_factory=dict)
    _lineages: dict[str, frozenset[str]] = field(default_factory=dict)
    _flags: dict[str, dict[str, bool]] = field(default_factory=dict)
    _children: dict[str, list[str]] | None = None
    _dropped: dict[_Owner, list[Loss]] = field(default_factory=dict)
    _merged: dict[_Owner, set[_Owner]] = field(default_factory=dict)

    def refs(self, schema: Schema) -> frozenset[str]:
        """:func:`collect_refs` of an emended schema, remembered per object: the refs left in
        the output are the edges of the ref graph (a ref an ``allOf`` merged away, or a
        property the direction dropped, is no edge)."""
        hit = self._refs.get(schema)
        if hit is not None:
            return hit
        return self._refs.put(schema, frozenset(collect_refs(schema)))

    def __post_init__(self) -> None:
        # Component schemas keep their own names, whatever is compiled first.
        # The map may be a ``$ref`` to a file of schemas (sendgrid/sendgrid-oai).
        schemas = component_map(self.resolver.root, self.resolver, "schemas")
        for key, node in schemas.entries.items():
            uri = f"{schemas.uri}/{escape(key)}"
            name = self._register(uri, self.resolver.label(uri), node, schemas.base, [key])
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
            self._named[name] = _Named(target.uri, target.pointer, target.node, target.scope)

    def _register(self, uri: str, pointer: str, node: Any, base: str, tokens: list[str]) -> str:
        name = def_name(tokens, self._taken)
        self._by_uri[uri] = name
        self._named[name] = _Named(uri, pointer, node, base)
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
            tokens = parts(fragment) or [PurePosixPath(urlparse(doc).path).stem]  # a whole file
            name = self._register(target.uri, target.pointer, target.node, target.scope, tokens)
        return name

    def pointer(self, name: str) -> str:
        """The document pointer of a named schema (``#/components/schemas/Pet``)."""
        return self._named[name].pointer

    def names(self) -> list[str]:
        """Every def name registered so far."""
        return list(self._named)

    def emended(self, name: str, direction: Direction, *, base_form: bool = False) -> Schema | None:
        """The emended schema of ``name`` for ``direction``; ``None`` while it is being made.

        ``base_form=True`` gives the schema without its unions and discriminator (what an
        ``allOf`` child inherits from a parent that lists the child as a variant).

        Raises:
            RefError, LimitExceeded: the schema (or one it needs) cannot be emended.
        """
        key = (name, direction, base_form)
        if key in self._cache:
            return self._cache[key]
        if key in self._failed:
            raise self._failed[key]
        if key in self._busy:
            return None
        if len(self._busy) >= _MAX_NESTED:
            raise LimitExceeded(f"allOf/discriminator chain deeper than {_MAX_NESTED} schemas",
                                pointer=self._named[name].pointer)
        entry = self._named[name]
        node = entry.node
        if base_form and isinstance(node, dict):
            node = {k: v for k, v in node.items()
                    if k not in ("oneOf", "anyOf", "discriminator")}
        self._busy.append(key)
        try:
            out = self._emend(node, direction, pointer=entry.pointer, base=entry.base,
                              name=name, base_form=base_form)
        except HttpllmError as exc:
            self._failed[key] = exc
            raise
        finally:
            self._busy.pop()
        self._cache[key] = out
        if not base_form:
            self.graph.add(name, self.refs(out))
        return out

    def emend(self, schema: Schema, direction: Direction, *, pointer: str, base: str) -> Schema:
        """Emend an inline schema found at ``pointer`` in the file ``base``.

        The same document node (e.g. a shared component parameter's schema) is emended once
        per direction.

        Raises:
            RefError, LimitExceeded: a ``$ref`` does not resolve, or the schema nests too deep.
        """
        hit = self._inline.get(schema, direction)
        if hit is not None:
            return hit
        return self._inline.put(schema, self._emend(schema, direction, pointer=pointer,
                                                    base=base), direction)

    def _emend(self, schema: Schema, direction: Direction, *, pointer: str, base: str,
               name: str | None = None, base_form: bool = False) -> Schema:
        owner = (("name", name, direction, "base" if base_form else "")
                 if name is not None else ("inline", base, pointer, direction))
        merged = self._merged.setdefault(owner, set())

        def resolve(parent: str) -> Schema | None:
            # ``Cat: allOf: [Pet, ...]`` where ``Pet: oneOf: [Cat, Dog]`` (or an ancestor of
            # Pet lists Cat): Cat inherits Pet's base form, not the union that lists Cat
            # itself (OpenAPI 3.1 section 4.8.25, "Models with Polymorphism Support"); a base
            # form inherits base forms. ``None`` sends the pass to ``resolve_base``.
            if name is not None and ctx.pointer == pointer and (
                base_form or self._inherits(name, parent)
            ):
                return None
            merged.add(("name", parent, direction, ""))
            return self.emended(parent, direction)

        def resolve_base(parent: str) -> Schema | None:
            merged.add(("name", parent, direction, "base"))
            return self.emended(parent, direction, base_form=True)

        ctx = PassContext(
            direction=direction,
            resolve=resolve,
            resolve_base=resolve_base,
            name_of=lambda ref: self._name_or_none(ref, base),
            report=self.warn,
            examples=self.examples,
            root=pointer if name is not None else None,
            flagged=self.flagged,
            subtypes=_none if name is None or base_form else partial(self.subtypes, name),
            lose=partial(self._lose, owner),
        )

        rewritten = []

        def rewrite_ref(node: dict[str, Any], at: str) -> dict[str, Any]:
            rewritten.append(at)
            return self._rewrite_ref(node, at, base)

        def rewrite_mapping(ref: str, at: str) -> dict[str, Schema]:
            rewritten.append(at)
            return self._rewrite_mapping(ref, at, base)

        try:
            out = emend(schema, ctx, pointer=pointer, rewrite_ref=rewrite_ref, passes=PASSES,
                        rewrite_mapping=rewrite_mapping)
            if not rewritten and not merged:  # no $ref met or merged: none in the result
                self._refs.put(out, frozenset())
            return out
        finally:
            # ``resolve`` reads ``ctx.pointer``: a reference cycle. Break it, so that reference
            # counting frees the context (the collector is paused during a compile).
            ctx.resolve = ctx.resolve_base = _gone

    def _target(self, ref: str, at: str, base: str) -> str:
        """:meth:`name_for`, with the ``$ref``'s pointer on errors that have none."""
        try:
            return self.name_for(ref, base)
        except HttpllmError as exc:  # RefError, AccessDenied, LoadError: name the $ref
            if exc.pointer is not None:
                raise
            raise type(exc)(exc.message, pointer=at, source=exc.source) from exc

    def _rewrite_ref(self, node: dict[str, Any], at: str, base: str) -> dict[str, Any]:
        """A document ``$ref`` node -> ``#/$defs/<name>``, its siblings as the version says."""
        ref = {"$ref": def_ref(self._target(node["$ref"], at, base))}
        siblings = {k: v for k, v in node.items() if k != "$ref"}
        if not siblings:
            return ref
        if self.version == "3.0":  # siblings of $ref are ignored in 3.0; keep annotations
            return {**ref, **{k: v for k, v in siblings.items() if k in _REF_SIBLINGS_30}}
        if set(siblings) <= _REF_SIBLINGS_30:
            return {**ref, **siblings}
        return {**siblings, "allOf": [ref, *siblings.get("allOf", [])]}

    def _rewrite_mapping(self, ref: str, at: str, base: str) -> dict[str, Schema]:
        """``properties: {$ref: attrs.yml#/X}`` -> one ``$defs`` ref per schema of ``X``."""
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
        return {key: self._rewrite_ref({"$ref": f"{prefix}/{escape(key)}"},
                                       f"{at}/{escape(key)}", base)
                for key in target.node}

    def _inherits(self, child: str, parent: str) -> bool:
        """Whether ``parent``, or a schema it extends, lists ``child`` as a variant."""
        return any(child in self._variants(n) for n in self._lineage(parent))

    def _lineage(self, name: str) -> frozenset[str]:
        """``name`` and every named schema it extends through a root ``allOf``, transitively."""
        found = self._lineages.get(name)
        if found is None:
            seen, stack = {name}, [name]
            while stack:
                entry = self._named[stack.pop()]
                node = entry.node if isinstance(entry.node, dict) else {}
                members: list[Any] = node["allOf"] if isinstance(node.get("allOf"), list) else []
                if isinstance(node.get("$ref"), str) and len(node) > 1:
                    members = [*members, node]  # 3.1: a $ref with siblings extends its target
                for member in members:
                    ref = member.get("$ref") if isinstance(member, dict) else None
                    parent = self._name_or_none(ref, entry.base) if isinstance(ref, str) else None
                    if parent is not None and parent not in seen:
                        seen.add(parent)
                        stack.append(parent)
            found = self._lineages[name] = frozenset(seen)
        return found

    def _variants(self, name: str) -> frozenset[str]:
        """Def names a named schema lists as ``$ref``s in its own ``oneOf``/``anyOf``, or as
        the subtypes of its discriminator (:meth:`subtypes`)."""
        found = self._variant_names.get(name)
        if found is None:
            entry = self._named[name]
            node = entry.node if isinstance(entry.node, dict) else {}
            refs = [m["$ref"] for key in ("oneOf", "anyOf") if isinstance(node.get(key), list)
                    for m in node[key] if isinstance(m, dict) and isinstance(m.get("$ref"), str)]
            names = (self._name_or_none(ref, entry.base) for ref in refs)
            found = frozenset(n for n in names if n is not None)
            found |= {n for n, _ in self.subtypes(name)}
            self._variant_names[name] = found
        return found

    def subtypes(self, name: str) -> list[tuple[str, list[str]]]:
        """``[(def name, tag values)]``: the subtypes of an inheritance-style parent, a named
        schema with a ``discriminator`` and no ``oneOf``/``anyOf``. Those its ``mapping``
        names (tags: the mapping keys), else every component schema whose root ``allOf``
        refers to it (tag: the component's name); OpenAPI 3.1 section 4.8.25, "Models with
        Polymorphism Support". ``[]`` for any other schema."""
        entry = self._named[name]
        node = entry.node if isinstance(entry.node, dict) else {}
        spec = node.get("discriminator")
        if not isinstance(spec, dict) or "oneOf" in node or "anyOf" in node:
            return []
        mapping = spec.get("mapping")
        found: dict[str, list[str]] = {}
        if isinstance(mapping, dict) and mapping:
            for tag, ref in mapping.items():
                target = self._name_or_none(ref, entry.base) if isinstance(ref, str) else None
                if target is not None:
                    found.setdefault(target, []).append(str(tag))
            return list(found.items())
        if self._children is None:
            self._children = {}
            for child in list(self._named):
                for parent in self._parents(child):
                    self._children.setdefault(parent, []).append(child)
        return [(child, [unescape(self._named[child].pointer.rsplit("/", 1)[-1])])
                for child in self._children.get(name, ())]

    def _parents(self, name: str) -> list[str]:
        """The named schemas a named schema's root ``allOf`` refers to."""
        entry = self._named[name]
        node = entry.node if isinstance(entry.node, dict) else {}
        members = node.get("allOf")
        refs = [m["$ref"] for m in (members if isinstance(members, list) else ())
                if isinstance(m, dict) and isinstance(m.get("$ref"), str)]
        names = (self._name_or_none(ref, entry.base) for ref in refs)
        return [n for n in names if n is not None and n != name]

    def flagged(self, name: str, flag: str) -> bool:
        """Whether the named schema, as the document writes it, carries ``flag``
        (``"readOnly"``/``"writeOnly"``; see :func:`httpllm.normalize.direction.flagged`):
        answered from the document nodes, without emending, memoized; a ``$ref`` cycle
        counts as not flagged. Iterative: a name whose targets are not known yet is looked
        at again once they are."""
        memo = self._flags.setdefault(flag, {})
        if name not in self._named:
            return False
        stack, opened = [name], {name}
        while name not in memo:
            top = stack[-1]
            entry = self._named[top]
            needed: list[str] = []

            def ref(target: str, base: str = entry.base, needed: list[str] = needed) -> bool:
                found = self._name_or_none(target, base)
                if found is None or (found in opened and found not in memo):
                    return False  # unresolvable, or a cycle back to a schema being decided
                if found not in memo:
                    needed.append(found)
                    return False
                return memo[found]

            value = flagged(entry.node, flag, ref)
            if needed and not value:
                opened.update(needed)
                stack.extend(dict.fromkeys(needed))
                continue
            memo[top] = value
            stack.pop()
        return memo[name]

    def _lose(self, owner: _Owner, loss: Loss) -> None:
        self._dropped.setdefault(owner, []).append(loss)

    def dropped(self, schema: Schema, direction: Direction, *, pointer: str,
                base: str) -> list[Loss]:
        """The losses of the properties ``direction`` dropped in the inline schema emended at
        ``pointer`` (in the file ``base``) and in every named schema its emended form
        reaches or merged (``allOf`` parents, discriminator variants), in a stable order."""
        if not self._dropped:
            return []
        out: list[Loss] = []
        seen: set[tuple[str, ...]] = set()
        stack = [("inline", base, pointer, direction),
                 *(("name", n, direction, "") for n in sorted(self.refs(schema), reverse=True))]
        while stack:
            owner = stack.pop()
            if owner in seen:
                continue
            seen.add(owner)
            out += self._dropped.get(owner, ())
            following = set(self._merged.get(owner, ()))
            done = self._cache.get((owner[1], direction, owner[3] == "base")) if (
                owner[0] == "name") else None
            if done is not None:
                following |= {("name", n, direction, "") for n in self.refs(done)}
            stack += sorted(following - seen, reverse=True)
        return list(dict.fromkeys(out))

    def merged_into(self, ref: str, base: str, direction: Direction) -> list[str]:
        """The document pointers (``#/components/schemas/Base``) of the named schemas the
        emended form of the named schema ``ref`` merged (``allOf`` parents, transitively),
        its own included; ``[]`` when ``ref`` names no named schema. A property one of them
        declares, and the direction dropped, belongs to the merged object too."""
        name = self._name_or_none(ref, base)
        if name is None:
            return []
        uris = {v: k for k, v in self._by_uri.items()}
        out: list[str] = []
        seen: set[_Owner] = set()
        stack: list[_Owner] = [("name", name, direction, ""), ("name", name, direction, "base")]
        while stack:
            owner = stack.pop()
            if owner in seen:
                continue
            seen.add(owner)
            uri = uris.get(owner[1]) if owner[0] == "name" else None
            if uri is not None and "#" in uri:
                out.append("#" + uri.split("#", 1)[1])
            stack.extend(self._merged.get(owner, ()))
        return list(dict.fromkeys(out))

    def _name_or_none(self, ref: str, base: str) -> str | None:
        if "#" not in ref and "/" not in ref and "." not in ref:
            ref = "#/components/schemas/" + ref  # discriminator mapping by bare schema name
        try:
            return self.name_for(ref, base)
        except HttpllmError:
            return None

    def close(self, schemas: Iterable[Schema], direction: Direction) -> dict[str, HttpllmError]:
        """Emend, for ``direction``, every named schema the emended ``schemas`` reach
        (transitively), so that the ref graph holds all of them; return the named schemas
        that failed, by name (each is a node without edges)."""
        failed: dict[str, HttpllmError] = {}
        pending = [name for schema in schemas for name in self.refs(schema)]
        done: set[str] = set()
        while pending:
            name = pending.pop()
            if name in done:
                continue
            done.add(name)
            try:
                out = self.emended(name, direction)
            except HttpllmError as exc:
                failed[name] = exc
                self.graph.add(name, ())
                continue
            pending.extend(n for n in self.refs(out) if n not in done)
        return failed

    def broken(self, schemas: Iterable[Schema],
               failed: dict[str, HttpllmError]) -> HttpllmError | None:
        """The error of the first (by name) named schema in ``failed`` that the emended
        ``schemas`` reach through the ref graph, or ``None``."""
        if not failed:
            return None
        used: set[str] = set()
        for schema in schemas:
            used |= self.refs(schema)
        bad = sorted(self.graph.reachable(used) & failed.keys())
        return failed[bad[0]] if bad else None

    def finish(self) -> RefGraph:
        """Compute the recursive set once every needed schema has been emended (again after
        more were emended: the responses are closed after the requests)."""
        self.graph.finish()
        return self.graph

