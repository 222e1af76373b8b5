"""Whether a named schema, as the document writes it, carries ``readOnly``/``writeOnly``."""

from __future__ import annotations

from httpllm.normalize.direction import flagged
from httpllm.normalize.naming import SchemaNames

__all__ = ["Flags"]


class Flags:
    """The flags of the named schemas ``names`` knows, answered from the document nodes
    (never by emending) and memoized per flag."""

    __slots__ = ("_memo", "names")

    def __init__(self, names: SchemaNames) -> None:
        self.names = names
        self._memo: dict[str, dict[str, bool]] = {}

    def flagged(self, name: str, flag: str) -> bool:
        """Whether the named schema, as the document writes it, carries ``flag``
        (``"readOnly"``/``"writeOnly"``; see :func:`httpllm.normalize.direction.flagged`):
        answered from the document nodes, without emending, memoized; a ``$ref`` cycle
        counts as not flagged. Iterative: a name whose targets are not known yet is looked
        at again once they are."""
        memo = self._memo.setdefault(flag, {})
        known = memo.get(name)
        if known is not None:  # most calls: a schema many properties refer to
            return known
        if name not in self.names:
            return False
        stack, opened = [name], {name}
        while name not in memo:
            top = stack[-1]
            entry = self.names.entry(top)
            needed: list[str] = []

            def ref(target: str, base: str = entry.base, needed: list[str] = needed) -> bool:
                found = self.names.name_or_none(target, base)
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
