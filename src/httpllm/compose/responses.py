"""Success-response schemas (``Function.output``), emended and inlined on first use.

Only two targets put a response schema in their tool list (MCP's ``outputSchema`` and the
``"3.1"`` target's ``output``); for every other one they are dead weight, and on GitHub's
description they cost a third of a compile (the response direction of every named schema
a response reaches). So :func:`httpllm.compile` records where each operation's success
response schema is, and the first read of any function's ``output`` (or of the
application's ``warnings`` or ``cycles``) computes all of them at once: emend (direction
``"response"``), close the ref graph over what they reach, inline as the request schemas
were. A response that cannot be emended (a dangling ``$ref`` ...) is dropped with a
warning; the operation still compiles, since a call never needs it.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from httpllm._gc import pausing_gc
from httpllm._types import Schema
from httpllm.compose.inline import Inliner
from httpllm.errors import HttpllmError
from httpllm.normalize.named import NamedSchemas

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
        named: the compile's named schemas (their request forms are already made).
        reference: as ``compile(reference=...)``: inline non-recursive refs or keep them.
        warn: receives ``(pointer, message)`` for each response dropped.
    """

    def __init__(self, named: NamedSchemas, *, reference: bool,
                 warn: Callable[[str, str], None]) -> None:
        self._named: NamedSchemas | None = named
        self._reference = reference
        self._warn = warn
        self._sites: dict[str, ResponseSite] = {}
        self._outputs: dict[str, Schema | None] | None = None
        self._lock = threading.Lock()

    def add(self, key: str, site: ResponseSite) -> Callable[[], Schema | None]:
        """Record the response of the operation ``key``; return what gives its output."""
        self._sites[key] = site
        return lambda: self.output(key)

    def output(self, key: str) -> Schema | None:
        """The emended, inlined response schema of operation ``key`` (``None`` if dropped)."""
        return self.compute().get(key)

    def compute(self) -> dict[str, Schema | None]:
        """Every recorded response's output, by key (computed once)."""
        with self._lock:
            if self._outputs is None:
                self._outputs = self._compute()
                self._named = None  # the document and caches are no longer needed
            return self._outputs

    @pausing_gc
    def _compute(self) -> dict[str, Schema | None]:
        named = self._named
        assert named is not None
        emended: dict[str, Schema] = {}
        for key, site in self._sites.items():
            try:
                emended[key] = named.emend(site.schema, "response", pointer=site.pointer,
                                           base=site.base)
            except HttpllmError as exc:
                self._dropped(site.pointer, exc)
            except RecursionError:
                self._warn(site.pointer, "response schema dropped: it nests too deep")
        failed = named.close(emended.values(), "response")
        graph = named.finish()
        inliner = Inliner(named, reference=self._reference)
        outputs: dict[str, Schema | None] = {}
        for key, schema in emended.items():
            site = self._sites[key]
            if failed and graph.reachable(named.refs(schema)) & failed.keys():
                bad = sorted(graph.reachable(named.refs(schema)) & failed.keys())[0]
                self._dropped(site.pointer, failed[bad])
                continue
            try:
                out, defs = inliner.root(schema, "response", pointer=site.pointer)
            except HttpllmError as exc:
                self._dropped(site.pointer, exc)
                continue
            outputs[key] = {**out, "$defs": defs} if defs and isinstance(out, dict) else out
        return outputs

    def _dropped(self, pointer: str, exc: HttpllmError) -> None:
        where = f" at {exc.pointer}" if exc.pointer and exc.pointer != pointer else ""
        self._warn(pointer, f"response schema dropped: {exc.message}{where}")
