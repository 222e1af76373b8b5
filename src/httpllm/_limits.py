"""Every safety limit, one record: what a document, a schema walk, a function's
parameters and its search for ``readOnly`` places, an unrolling and a tool call's value may
be at most.

The limits exist so that no input (a YAML "billion laughs", a schema nested thousands of
levels, a recursion unrolled too far, a model's deeply nested arguments) can exhaust
memory, the stack or the time of a compile or a call; passing one is a
:class:`~httpllm.errors.LimitExceeded` (or ``Unrepresentable`` for an unrolling) naming
the limit, never a ``RecursionError`` or a hang.
"""

from __future__ import annotations

from dataclasses import dataclass, fields

__all__ = ["DEFAULT_LIMITS", "PER_COMPILE", "Limits"]


@dataclass(frozen=True, slots=True, kw_only=True)
class Limits:
    """The safety limits, by what they bound. ``compile(limits=...)`` reads the fields of
    :data:`PER_COMPILE`; the others are the process's (their values here are the ones
    every walk, unrolling and call uses, and ``compile`` refuses others rather than ignore
    them).

    Attributes:
        max_bytes: largest file read, in bytes (64 MiB; ``load``).
        max_depth: deepest nesting of a document's objects and arrays (256 levels;
            ``load``).
        max_nodes: most JSON values of a document after YAML alias expansion (5,000,000;
            ``load``): a YAML "billion laughs" is refused before anything walks it.
        max_expanded_bytes: largest size, as JSON text, after YAML alias expansion (256
            MiB; ``load``), of a document and of the YAML files its references name
            together: each key and string counts at every place an alias puts it, so one
            100 KB string aliased 100,000 times (few values, 10 GB written out) is refused
            before ``compile -o`` or a server's ``tools/list`` writes it.
        parameters_depth: most subschema levels of one function's schema (200;
            ``compose.bounded``: ``json.dumps`` recurses once per level).
        parameters_nodes: most schema nodes of one function's schema as serialized, named
            schemas kept (500,000; ``compose.bounded``).
        read_only_places: most ``readOnly`` places recorded per function (256;
            ``compose.operation``, ``Function.extra["read_only"]``).
        read_only_depth: deepest argument path searched for them (32 levels;
            ``compose.operation``).
        read_only_visits: most schema nodes visited per function searching for them
            (50,000; ``compose.operation``): a subtree is visited once per argument path
            reaching it, and paths through shared subtrees can be exponentially many (five
            properties holding one shared object, nested 32 levels: 5**32). Past it the
            search stops with a ``cut`` loss (the places found are kept).
        walk_depth: deepest schema one walk descends (512; ``walk.transform``, iterative,
            so the limit is the serializers' and the providers', not Python's stack).
        walk_nodes: most nodes one walk lists (2,000,000; ``walk``).
        unroll_nodes: most schema nodes one unrolling may build (100,000;
            ``render.unroll``).
        unroll_states: most distinct (schema, recursion state) expansions of one unrolling
            (10,000; ``render.unroll``).
        value_depth: deepest nesting of a tool call's arguments that is validated or sent
            (512; ``execute.decode``, ``execute.validate``, ``execute.request``):
            jsonschema-rs recurses in native code and crashes the interpreter on instances
            some 10,000+ levels deep under a recursive schema (measured with jsonschema-rs
            0.61.2), and ``json.dumps`` recurses too; no real tool call comes close.
    """

    max_bytes: int = 64 * 1024 * 1024
    max_depth: int = 256
    max_nodes: int = 5_000_000
    max_expanded_bytes: int = 256 * 1024 * 1024
    parameters_depth: int = 200
    parameters_nodes: int = 500_000
    read_only_places: int = 256
    read_only_depth: int = 32
    read_only_visits: int = 50_000
    walk_depth: int = 512
    walk_nodes: int = 2_000_000
    unroll_nodes: int = 100_000
    unroll_states: int = 10_000
    value_depth: int = 512

    def fixed_changed(self) -> list[str]:
        """The fields outside :data:`PER_COMPILE` whose value is not the default's."""
        return [f.name for f in fields(self) if f.name not in PER_COMPILE
                and getattr(self, f.name) != getattr(DEFAULT_LIMITS, f.name)]


DEFAULT_LIMITS = Limits()
"""The limits used when the caller gives none, and the process's fixed ones."""

PER_COMPILE = frozenset({"max_bytes", "max_depth", "max_nodes", "max_expanded_bytes",
                         "parameters_depth", "parameters_nodes"})
"""The fields ``compile(limits=...)`` applies to that compile."""
