"""Success-response schemas (``Function.output``), emended and inlined on first use.

Only two targets put a response schema in their tool list (MCP's ``outputSchema`` and the
``"3.1"`` target's ``output``); for every other one they are dead weight, and on GitHub's
description they cost a third of a compile (the response direction of every named schema
a response reaches). So :func:`httpllm.compile` records where each operation's success
response schema is, and the first read of any function's ``output`` (or of the
application's ``warnings`` or ``cycles``) computes all of them at once, with named
schemas of their own (a response is a document of its own: its ``$defs`` names need not
match the parameters'): emend (direction ``"response"``), close the ref graph over what
they reach, inline as the request schemas were. Until then nothing of the compile but the
resolver is kept alive. A response that cannot be emended (a dangling ``$ref`` ...) is
dropped with a warning; the operation still compiles, since a call never needs it.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from typing import Any, TypeVar

from httpllm._types import Schema
from httpllm.compose.inline import INLINE_MAX_NODES, Inliner
from httpllm.errors import HttpllmError, InternalError
from httpllm.normalize.named import NamedSchemas
from httpllm.pointer import unescape
from httpllm.refs import Resolver
from httpllm.walk import is_leaf, subschemas

_T = TypeVar("_T")

__all__ = ["ResponseSite", "Responses"]


@dataclass(frozen=True, slots=True)
class ResponseSite:
    """Where an operation's success response schema is.

    Attributes:
        schema: the document's schema node (not emended).
        pointer: its JSON pointer (``#/paths/~1pets/get/responses/200/content/.../schema``).
        base: URI of the file it is in.
    """

    schema: Any
    pointer: str
    base: str


class Responses:
    """The response schemas of one compile, computed together on first use.

    Args:
        resolver: the compile's resolver (the document and its files).
        version: ``"3.0"`` or ``"3.1"``.
        reference: as ``compile(reference=...)``: inline non-recursive refs or keep them.
        warn: receives ``(pointer, message)`` for each response dropped.
    """

    def __init__(self, resolver: Resolver, version: str, *, reference: bool,
                 warn: Callable[[str, str], None]) -> None:
        self._resolver: Resolver | None = resolver
        self._version = version
        self._reference = reference
        self.cycles: list[list[str]] = []
        self._warn = warn
        self._sites: dict[str, ResponseSite] = {}
        self._outputs: dict[str, Schema | None] | None = None
        self._origins: dict[int, str] = {}
        self._lock = threading.Lock()

    def add(self, key: str, site: ResponseSite) -> Callable[[], Schema | None]:
        """Record the response of the operation ``key``; return what gives its output."""
        self._sites[key] = site
        return _Output(self, key)

    def output(self, key: str) -> Schema | None:
        """The emended, inlined response schema of operation ``key`` (``None`` if dropped)."""
        return self.compute().get(key)

    def compute(self) -> dict[str, Schema | None]:
        """Every recorded response's output, by key (computed once)."""
        with self._lock:
            if self._outputs is None:
                self._outputs = self._compute()
                self._resolver = None  # the document is no longer needed
            return self._outputs

    def _compute(self) -> dict[str, Schema | None]:
        assert self._resolver is not None
        said = [0]  # warnings the emends gave so far

        def warn(at: str, message: str) -> None:
            said[0] += 1
            self._warn(at, message)

        named = NamedSchemas(self._resolver, self._version, warn, examples=False)
        emended: dict[str, Schema] = {}
        plain: dict[tuple[str, str], Schema] = {}  # (base, _plain_key) -> emended form
        for key, site in self._sites.items():
            text = _plain_key(site.schema)
            hit = None if text is None else plain.get((site.base, text))
            if hit is not None:
                emended[key] = hit
                continue
            before = said[0]
            found = self._guarded(site.pointer, partial(
                named.emend, site.schema, "response", pointer=site.pointer, base=site.base))
            if found is None:
                continue
            emended[key] = found
            if text is not None and said[0] == before:
                plain[(site.base, text)] = found
        failed = named.close(emended.values(), "response")
        graph = named.finish()
        self.cycles = graph.cycles
        inliner = Inliner(named, reference=self._reference)
        self._origins = inliner.origins
        outputs: dict[str, Schema | None] = {}
        made: dict[str, tuple[Schema, int]] = {}  # repr of an emended schema -> output
        counts = _Counts()
        for key, schema in emended.items():
            site = self._sites[key]
            broken = named.broken([schema], failed)
            if broken is not None:
                self._dropped(site.pointer, broken)
                continue
            # Equal emended schemas inline to equal outputs: one object for all of them
            # (GitHub: 930 responses, 466 distinct), so each later stage that reads an
            # output (MCP's bound and rules) does its work once per distinct output.
            text = repr(schema)
            hit = made.get(text)
            if hit is None:
                hit = self._guarded(site.pointer, partial(
                    self._inlined, inliner, schema, site.pointer, counts))
                if hit is None:
                    continue
                made[text] = hit
            output, size = hit
            if size > INLINE_MAX_NODES and not inliner.reference:
                self._warn(site.pointer, (
                    f"response schema would have {size:,} schema nodes with every $ref "
                    f"inlined (limit {INLINE_MAX_NODES:,}): named schemas kept under $defs"))
            outputs[key] = output
        return outputs

    @staticmethod
    def _inlined(inliner: Inliner, schema: Schema, pointer: str, counts: _Counts
                 ) -> tuple[Schema, int]:
        """``schema`` inlined (named schemas kept under ``$defs`` past
        :data:`INLINE_MAX_NODES`), and its size with every ``$ref`` inlined."""
        out, defs = inliner.root(schema, "response", pointer=pointer)
        size = counts.size({**out, "$defs": defs} if isinstance(out, dict) else out)
        if size > INLINE_MAX_NODES and not inliner.reference:
            out, defs = inliner.keeping().root(schema, "response", pointer=pointer)
        return ({**out, "$defs": defs} if defs and isinstance(out, dict) else out), size

    def name_of(self, node: Any) -> str | None:
        """The name of the named schema a shared node of the outputs was inlined from
        (``"customer"`` for ``#/components/schemas/customer``), or ``None``."""
        pointer = self._origins.get(id(node))
        return None if pointer is None else unescape(pointer.rsplit("/", 1)[-1])

    def _guarded(self, pointer: str, make: Callable[[], _T]) -> _T | None:
        """``make()``, or ``None`` when the response at ``pointer`` cannot be made: it is
        dropped with a warning, the others are kept (a fault of ours, an exception outside
        :class:`HttpllmError`, is an :class:`InternalError` of that response only)."""
        try:
            return make()
        except HttpllmError as exc:
            self._dropped(pointer, exc)
        except RecursionError:
            self._warn(pointer, "response schema dropped: it nests too deep")
        except Exception as exc:
            self._dropped(pointer, InternalError.of(exc, pointer=pointer))
        return None

    def _dropped(self, pointer: str, exc: HttpllmError) -> None:
        where = f" at {exc.pointer}" if exc.pointer and exc.pointer != pointer else ""
        self._warn(pointer, f"response schema dropped: {exc.message}{where}")


class _Output:
    """``() -> Responses.output(key)``: one object per operation (a closure is three the
    cyclic collector counts: the function, its cells and their tuple)."""

    __slots__ = ("key", "responses")

    def __init__(self, responses: Responses, key: str) -> None:
        self.responses = responses
        self.key = key

    def __call__(self) -> Schema | None:
        return self.responses.output(self.key)


def _plain_key(schema: Any) -> str | None:
    """The text of a response schema made of strings alone, two levels at most
    (``{"$ref": ...}``, an array of one: 747 of GitHub's 930 responses), else ``None``.

    Rule: an inline schema's emended form depends on its content and its file alone (its
    pointer only names what is reported), so equal plain schemas of one file, emended
    without a warning, share the first one's form; the others are not emended again. A
    number is never plain: its ``repr`` does not tell a value the loader held from one it
    did not (:class:`httpllm._json.Unheld`), which emend drops."""
    if not isinstance(schema, dict):
        return None
    for value in schema.values():
        if isinstance(value, dict):
            if not all(type(k) is str and type(v) is str for k, v in value.items()):
                return None
        elif type(value) is not str:
            return None
    return repr(schema)


class _Counts:
    """Schema nodes as serialized (a shared subtree counted at each place): the size
    :func:`~httpllm.compose.inline.measure` gives, without the depth, each distinct node
    counted once per compile.

    Not a :func:`~httpllm.walk.fold`: its memo keeps a tuple per node (two with
    ``measure``'s values) to hold the node, and those 8,800 objects (GitHub's outputs)
    were what made the collector run a full collection (about 40 ms) during a ``3.1``
    compile. Here a count is an int by id, the schemas measured are held in a list, and
    the only containers made die at once.
    """

    def __init__(self) -> None:
        self._of: dict[int, int] = {}
        self._held: list[Any] = []  # every node counted is under one of these

    def size(self, root: Any) -> int:
        """Nodes of ``root``; every subschema's count remembered (not the root's, which
        may be a temporary)."""
        if not isinstance(root, dict):
            return 1
        self._held.append(root)
        of, leaf = self._of, is_leaf
        # (node, None) on the way down; (node, its subschemas) once they are stacked
        stack: list[tuple[dict[str, Any], list[Any] | None]] = [(root, None)]
        pop, push = stack.pop, stack.append
        while stack:
            node, subs = pop()
            if subs is None:
                if id(node) in of and node is not root:
                    continue  # met again, on another path
                subs = subschemas(node)
                push((node, subs))
                for sub in subs:
                    if not isinstance(sub, dict) or id(sub) in of:
                        continue
                    if leaf(sub):  # most nodes: counted at once, never stacked
                        of[id(sub)] = 1
                    else:
                        push((sub, None))
                continue
            count = 1
            for sub in subs:
                count += of[id(sub)] if isinstance(sub, dict) else 1
            if node is root:
                return count
            of[id(node)] = count
        raise AssertionError("unreachable: the root is counted last")
