"""Named schemas of one document, each emended once per direction and shared.

Its emended form is computed the first time it is needed and cached per
``(name, direction)``: operations share the result (never mutated). The ref graph is
filled from the ``$ref``s left in each emended form; :meth:`NamedSchemas.finish` then
knows which schemas are recursive. The other jobs are the parts it composes: the
``$defs`` names (:mod:`~httpllm.normalize.naming`), discriminator lineage
(:mod:`~httpllm.normalize.lineage`), ``readOnly``/``writeOnly`` flags
(:mod:`~httpllm.normalize.flags`) and whose emend recorded which loss
(:mod:`~httpllm.normalize.ownership`).
"""

from __future__ import annotations

import weakref
from collections.abc import Callable, Iterable
from functools import partial
from typing import Any

from httpllm._memo import IdentityMemo
from httpllm._types import Direction, Schema
from httpllm.errors import HttpllmError, InternalError, LimitExceeded
from httpllm.normalize import PASSES, PassContext, emend, leaf_emend
from httpllm.normalize.flags import Flags
from httpllm.normalize.guarded import cut_cycles
from httpllm.normalize.lineage import Lineage
from httpllm.normalize.naming import EmendedRefs, SchemaNames
from httpllm.normalize.ownership import Forms, LossOwners, inline_owner, named_owner
from httpllm.pointer import unescape
from httpllm.refs import RefGraph, Resolver, def_ref, has_inner_ids, id_base_at
from httpllm.walk import is_leaf

__all__ = ["NamedSchemas"]

_MAX_NESTED = 48  # named schemas being emended inside one another (allOf chains)


def _none() -> list[tuple[str, list[str]]]:
    return []


def _kept(exc: HttpllmError) -> HttpllmError:
    """``exc``, and the errors it was raised from, without their tracebacks: an error kept
    for later holds no frame, whose locals (this cache among them) would hold the error
    back, a reference cycle left to the cyclic collector with all the cache holds."""
    seen: set[int] = set()
    error: BaseException | None = exc
    while error is not None and id(error) not in seen:
        seen.add(id(error))
        error.__traceback__ = None
        error = error.__cause__ or error.__context__
    return exc


def _last_of_each(schemas: Iterable[Schema]) -> list[Schema]:
    """``schemas`` less every one (by identity) listed again later: a component
    parameter's schema is listed by each operation that lists the parameter. Its names, read
    later, are taken first from :meth:`NamedSchemas.close`'s stack, so the named schemas are
    emended in the same order as with every copy listed."""
    out: list[Schema] = []
    seen: set[int] = set()
    for schema in reversed(list(schemas)):  # the list holds each: no id is reused meanwhile
        if id(schema) not in seen:
            seen.add(id(schema))
            out.append(schema)
    out.reverse()
    return out


class NamedSchemas:
    """The per-compile cache of emended named schemas.

    Args:
        resolver: resolves ``$ref``s of the document.
        version: ``"3.0"`` or ``"3.1"`` (3.0 ignores non-annotation ``$ref`` siblings).
        warn: receives ``(pointer, message)`` for problems kept rather than guessed.
        examples: keep ``example``/``examples`` values aside (``False``: no one reads
            them, as for the response schemas; ``examples`` then stays empty).

    Attributes:
        names: the ``$defs`` names (:class:`~httpllm.normalize.naming.SchemaNames`).
        lineage: who extends and lists whom (:class:`~httpllm.normalize.lineage.Lineage`).
        flags: ``readOnly``/``writeOnly`` of named schemas
            (:class:`~httpllm.normalize.flags.Flags`).
        losses: losses by owner, merges (:class:`~httpllm.normalize.ownership.LossOwners`).
        refs: the def names an emended schema refers to, remembered per object.
        graph: the ref graph the emended named schemas fill.
        examples: ``pointer -> example values`` the passes kept aside.
    """

    __slots__ = ("_busy", "_cache", "_failed", "_inline", "_inner_ids", "_kept_examples",
                 "examples", "flags", "graph", "lineage", "losses", "names", "refs", "warn")

    def __init__(self, resolver: Resolver, version: str,
                 warn: Callable[[str, str], None], *, examples: bool = True) -> None:
        self.warn = warn
        self.names = SchemaNames(resolver, version)
        self.lineage = Lineage(self.names)
        self.flags = Flags(self.names)
        self.refs = EmendedRefs()
        self._cache: Forms = {}
        self.losses = LossOwners(self.names, self.refs, self._cache)
        self.graph = RefGraph()
        self.examples: dict[str, list[Any]] = {}
        self._kept_examples = self.examples if examples else None
        self._failed: dict[tuple[str, str, bool], HttpllmError] = {}
        self._busy: list[tuple[str, str, bool]] = []
        self._inline: IdentityMemo[Schema] = IdentityMemo()
        self._inner_ids: IdentityMemo[bool] = IdentityMemo()

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
        entry = self.names.entry(name)
        if len(self._busy) >= _MAX_NESTED:
            raise LimitExceeded(f"allOf/discriminator chain deeper than {_MAX_NESTED} schemas",
                                pointer=entry.pointer)
        node = entry.node
        if base_form and isinstance(node, dict):
            node = {k: v for k, v in node.items()
                    if k not in ("oneOf", "anyOf", "discriminator")}
        self._busy.append(key)
        try:
            out = self._emend(node, direction, pointer=entry.pointer, base=entry.base,
                              name=name, base_form=base_form)
        except HttpllmError as exc:
            self._failed[key] = _kept(exc)
            raise
        except RecursionError:
            raise
        except Exception as exc:  # a fault of ours: this schema fails, not the document
            error = self._failed[key] = InternalError.of(exc, pointer=entry.pointer)
            raise error from None
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
        base = self.names.resolver.id_base(schema, base)  # an inline schema's own ``$id``
        out = self._lone_ref(schema, base)
        if out is None:
            out = self._emend(schema, direction, pointer=pointer, base=base)
        return self._inline.put(schema, out, direction)

    def _lone_ref(self, schema: Schema, base: str) -> Schema | None:
        """The emended form of a lone ``{"$ref": ...}`` whose target is already named (a
        quarter of GitHub's response schemas), else ``None``: what :meth:`_emend` gives it,
        without a pass context made for it (see ``known_ref`` of
        :func:`~httpllm.normalize.emend`). Such an emend records no loss and merges
        nothing, so no owner is missed."""
        if schema.__class__ is not dict or len(schema) != 1 or "$ref" not in schema:
            return None
        found = self.names.known(schema["$ref"], base)
        return None if found is None else {"$ref": def_ref(found)}

    def _emend(self, schema: Schema, direction: Direction, *, pointer: str, base: str,
               name: str | None = None, base_form: bool = False) -> Schema:
        # A lone leaf no pass changes but by dropping its examples (a parameter's
        # ``{"type": "string"}``: half of GitHub's request sites) is what the walk's ``leaf``
        # says, without a pass context made for it: it records no loss, merges nothing.
        plain = (leaf_emend(keep_examples=self._kept_examples is not None)(schema)
                 if schema.__class__ is dict and is_leaf(schema) else None)
        if plain is not None:
            self.refs.none(plain)
            return plain
        owner = (named_owner(name, direction, base_form) if name is not None
                 else inline_owner(base, pointer, direction))
        merge = partial(self.losses.merge, owner)
        met: list[str] = []  # the $refs rewritten and the named schemas merged
        here: Callable[[], PassContext | None]  # the context, held weakly: no reference cycle

        def resolve(parent: str) -> Schema | None:
            # ``Cat: allOf: [Pet, ...]`` where ``Pet: oneOf: [Cat, Dog]`` (or an ancestor of
            # Pet lists Cat): Cat inherits Pet's base form, not the union that lists Cat
            # itself (OpenAPI 3.1 section 4.8.25, "Models with Polymorphism Support"); a base
            # form inherits base forms. ``None`` sends the pass to ``resolve_base``.
            at = here()
            if name is not None and at is not None and at.pointer == pointer and (
                base_form or self.lineage.inherits(name, parent)
            ):
                return None
            met.append(parent)
            merge(named_owner(parent, direction))
            return self.emended(parent, direction)

        def resolve_base(parent: str) -> Schema | None:
            met.append(parent)
            merge(named_owner(parent, direction, True))
            return self.emended(parent, direction, base_form=True)

        names = self.names
        scoped = self._bases(schema, pointer, base)

        def base_of(at: Any, *, own: bool = True) -> str:
            return base if scoped is None else scoped(at, own)

        ctx = PassContext(
            direction=direction,
            resolve=resolve,
            resolve_base=resolve_base,
            name_of=lambda ref: names.name_or_none(ref, base_of(here())),
            report=self.warn,
            examples=self._kept_examples,
            root=pointer if name is not None else None,
            flagged=self.flags.flagged,
            subtypes=_none if name is None or base_form else partial(self.lineage.subtypes,
                                                                     name),
            lose=partial(self.losses.lose, owner),
        )
        here = weakref.ref(ctx)

        def rewrite_ref(node: dict[str, Any], at: str) -> dict[str, Any]:
            met.append(at)
            return names.rewrite_ref(node, at, base_of(at, own=False))

        def rewrite_mapping(ref: str, at: str) -> dict[str, Schema]:
            met.append(at)
            return names.rewrite_mapping(ref, at, base_of(at))

        def known_ref(node: dict[str, Any]) -> dict[str, Any] | None:
            found = names.known(node["$ref"], base)
            if found is None:
                return None  # visited: rewrite_ref names it, or says what is wrong
            met.append(found)
            return {"$ref": def_ref(found)}

        out = emend(schema, ctx, pointer=pointer, rewrite_ref=rewrite_ref, passes=PASSES,
                    rewrite_mapping=rewrite_mapping,
                    known_ref=known_ref if scoped is None else None)
        if not met:  # no $ref met or merged: none in the result
            self.refs.none(out)
        return out

    def _bases(self, schema: Schema, pointer: str,
               base: str) -> Callable[[Any, bool], str] | None:
        """``at -> the base URI of the $refs at pointer at`` in ``schema`` (found at
        ``pointer``, ``base`` being its base), or ``None`` (``base`` everywhere) unless
        a subschema below it has an ``$id`` (OpenAPI 3.1 and later: JSON Schema 2020-12
        section 8.2.1; 3.0's Schema Object has no ``$id``, and ignores every sibling of a
        ``$ref``), which is the base of every ``$ref`` under it
        (:func:`~httpllm.refs.id_base_at`; ``own=False``: the node's own ``$id`` left
        to ``rewrite_ref``). ``at`` may be a :class:`PassContext` (its ``pointer``) or
        ``None`` (``base``). A lone ``$ref`` is then never taken as
        ``known_ref`` (which has no pointer): ``rewrite_ref`` resolves it at its base."""
        if not self.names.resolver.ids or schema.__class__ is not dict:
            return None
        inner = self._inner_ids.get(schema)
        if inner is None:
            inner = self._inner_ids.put(schema, has_inner_ids(schema))
        if not inner:
            return None
        start = len(pointer)

        def base_of(at: Any, own: bool) -> str:
            at = at.pointer if isinstance(at, PassContext) else at
            if not isinstance(at, str) or not at.startswith(pointer):
                return base
            tokens = [unescape(t) for t in at[start:].split("/")[1:]]
            return id_base_at(schema, base, tokens, own=own)

        return base_of

    def close(self, schemas: Iterable[Schema], direction: Direction) -> dict[str, HttpllmError]:
        """Emend, for ``direction``, every named schema the emended ``schemas`` reach
        (transitively), so that the ref graph holds all of them; return the named schemas
        that failed, by name (each is a node without edges)."""
        failed: dict[str, HttpllmError] = {}
        # By name, never in a frozenset's order (hash-seeded): the order of emends is the
        # order of the warnings they make, which stays the same from run to run.
        pending = [name for schema in _last_of_each(schemas)
                   for name in sorted(self.refs(schema), reverse=True)]
        done: set[str] = set()
        while pending:
            name = pending.pop()
            if name in done:
                continue
            done.add(name)
            try:
                out = self.emended(name, direction)
            except HttpllmError as exc:
                failed[name] = _kept(exc)
                self.graph.add(name, ())
                continue
            pending.extend(n for n in sorted(self.refs(out), reverse=True) if n not in done)
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
        more were emended: the responses are closed after the requests). A cycle that
        passes no property or item is cut where it closes first
        (:mod:`~httpllm.normalize.guarded`), with a warning."""
        self.graph.finish()
        if self.graph.cycles and self._unguard():
            self.graph.finish()
        return self.graph

    def _unguard(self) -> bool:
        """Cut, in the emended forms of each direction, each ``$ref`` that closes a cycle of
        in-place references (:func:`~httpllm.normalize.guarded.cut_cycles`); whether any
        was cut."""
        on_cycle = {name for cycle in self.graph.cycles for name in cycle}
        cut = False
        for direction in sorted({key[1] for key in self._cache if key[0] in on_cycle}):
            forms = {key[0]: form for key, form in self._cache.items()
                     if key[0] in on_cycle and key[1] == direction and not key[2]}
            changed = cut_cycles(forms, lambda name, message: self.warn(
                self.names.pointer(name), message))
            for name, out in changed.items():
                self._cache[(name, direction, False)] = out
                self.graph.replace(name, {ref for key, form in self._cache.items()
                                          if key[0] == name and not key[2]
                                          for ref in self.refs(form)})
                cut = True
        return cut
