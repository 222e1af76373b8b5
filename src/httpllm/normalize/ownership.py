"""Which emend recorded which loss, and which named schemas each emend merged.

A pass that drops something (a property the direction excludes) reports a
:class:`~httpllm.loss.Loss` through ``PassContext.lose``; the loss belongs to the emend
that ran the pass, its *owner*. A function's losses are then those of its own inline
schemas and of every named schema their emended forms reach or merged.
"""

from __future__ import annotations

from httpllm._types import Direction, Schema
from httpllm.loss import Loss
from httpllm.normalize.naming import EmendedRefs, SchemaNames

__all__ = ["Forms", "LossOwners", "Owner", "inline_owner", "named_owner"]

Owner = tuple[str, str, str, str]
"""Whose emend recorded a loss: ``("name", def name, direction, "" | "base")`` or
``("inline", file, pointer, direction)``."""

Forms = dict[tuple[str, str, bool], Schema]
"""``(def name, direction, base form) -> emended schema``: the emend cache."""


def named_owner(name: str, direction: Direction, base_form: bool = False) -> Owner:
    """The owner of the emend of the named schema ``name`` (its base form or its own)."""
    return ("name", name, direction, "base" if base_form else "")


def inline_owner(base: str, pointer: str, direction: Direction) -> Owner:
    """The owner of the emend of the inline schema at ``pointer`` of the file ``base``."""
    return ("inline", base, pointer, direction)


class LossOwners:
    """The losses each emend recorded and the named schemas each merged, for one compile.

    Args:
        names: the document's named schemas.
        refs: the refs left in an emended schema.
        forms: the emend cache, read (never written) to follow what a named schema reaches.
    """

    __slots__ = ("_dropped", "_merged", "forms", "names", "refs")

    def __init__(self, names: SchemaNames, refs: EmendedRefs, forms: Forms) -> None:
        self.names = names
        self.refs = refs
        self.forms = forms
        self._dropped: dict[Owner, list[Loss]] = {}
        self._merged: dict[Owner, set[Owner]] = {}

    def lose(self, owner: Owner, loss: Loss) -> None:
        """Record that the emend of ``owner`` dropped something."""
        self._dropped.setdefault(owner, []).append(loss)

    def merge(self, owner: Owner, merged: Owner) -> None:
        """Record that the emend of ``owner`` merged the emended form of ``merged``."""
        found = self._merged.get(owner)
        if found is None:
            found = self._merged[owner] = set()
        found.add(merged)

    def dropped(self, schema: Schema, direction: Direction, *, pointer: str,
                base: str) -> list[Loss]:
        """The losses of the properties ``direction`` dropped in the inline schema emended at
        ``pointer`` (in the file ``base``) and in every named schema its emended form
        reaches or merged (``allOf`` parents, discriminator variants), in a stable order."""
        if not self._dropped:
            return []
        out: list[Loss] = []
        seen: set[tuple[str, ...]] = set()
        stack = [inline_owner(base, pointer, direction),
                 *(named_owner(n, direction) for n in sorted(self.refs(schema), reverse=True))]
        while stack:
            owner = stack.pop()
            if owner in seen:
                continue
            seen.add(owner)
            out += self._dropped.get(owner, ())
            following = set(self._merged.get(owner, ()))
            done = self.forms.get((owner[1], direction, owner[3] == "base")) if (
                owner[0] == "name") else None
            if done is not None:
                following |= {named_owner(n, direction) for n in self.refs(done)}
            stack += sorted(following - seen, reverse=True)
        return list(dict.fromkeys(out))

    def merged_into(self, label: str, direction: Direction) -> list[str]:
        """The places (``#/components/schemas/Base``, ``models/Base.yml#`` in another file:
        :meth:`~httpllm.refs.Resolver.label`, as losses name them) of the named schemas the
        emended form of the named schema at ``label`` (such a place, an
        ``Inliner.origins`` label, read as text:
        :meth:`~httpllm.normalize.naming.SchemaNames.name_at`) merged
        (``allOf`` parents, transitively), its own included; ``[]`` when ``label`` is the
        place of no named schema. A property one of them declares, and the direction
        dropped, belongs to the merged object too."""
        name = self.names.name_at(label)
        if name is None:
            return []
        labels = self.names.labels()
        out: list[str] = []
        seen: set[Owner] = set()
        stack: list[Owner] = [named_owner(name, direction), named_owner(name, direction, True)]
        while stack:
            owner = stack.pop()
            if owner in seen:
                continue
            seen.add(owner)
            place = labels.get(owner[1]) if owner[0] == "name" else None
            if place is not None:
                out.append(place)
            stack.extend(self._merged.get(owner, ()))
        return list(dict.fromkeys(out))
