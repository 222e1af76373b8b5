"""The tool listing in pages: ``tools/list`` cut by size, each next page behind a cursor.

A page holds whole tools in listing order, as many as fit in ``max_page_bytes`` bytes of
JSON-RPC message; a tool larger than that alone is a page of its own (it cannot be cut).
A tool's size is its compact JSON with non-ASCII characters escaped, the longest form any
transport writes; :data:`ENVELOPE_BYTES` of each page are kept for the JSON-RPC envelope,
the result's other fields and the SSE framing over streamable HTTP.

The cursor is opaque to clients (base64url text). It names the first tool of the next
page and the listing it belongs to (a digest of every tool's JSON), so a host that follows
cursors gets every tool exactly once, in order, and a cursor from another listing (another
document, another version of the server) is refused with JSON-RPC ``-32602`` instead of
silently skipping or repeating tools. Pages are cut afresh for each request from the
cursor's tool on, so several server processes serving one document (``--stateless``
behind a load balancer) accept each other's cursors.

Source: MCP 2025-11-25 and 2026-07-28 ``server/utilities/pagination`` (opaque cursor,
server-chosen page size, invalid cursor is ``-32602``); python-sdk
``mcp/client/streamable_http.py`` ``DEFAULT_MAX_SSE_EVENT_SIZE`` (1 MiB per SSE event).
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from mcp.shared.exceptions import MCPError
from mcp_types import INVALID_PARAMS

from httpllm.errors import OptionError

__all__ = ["DEFAULT_MAX_PAGE_BYTES", "ENVELOPE_BYTES", "MIN_PAGE_BYTES", "Listing",
           "checked_page_bytes", "cursor_of"]

DEFAULT_MAX_PAGE_BYTES = 1_048_576
"""Most bytes of one ``tools/list`` response (1 MiB): the Python SDK client refuses an SSE
event over 1 MiB, the TypeScript SDK client a stdio message over 10 MiB, Claude Code and
Codex a stdio line over 16 MiB. Hosts also bound the pages they follow: Claude Code 2.1
gives up after 64 (``listMaxPages``) and loads no tool at all, Codex 0.171 stopped after
100, so a listing must stay well under 64 MiB (measured 2026-12-04, issue 28)."""

ENVELOPE_BYTES = 1_024
"""Bytes of each page kept for what surrounds the tools: ``{"jsonrpc":"2.0","id":...,
"result":{"tools":[...],"nextCursor":...,"resultType":...,"ttlMs":...,"cacheScope":...}}``
and the ``event:``/``data:``/``id:`` lines of an SSE event (about 250 bytes with a short
request id)."""

MIN_PAGE_BYTES = 2_048
"""Smallest page size besides 0 (one page): the envelope and a small tool."""

_DIGEST_CHARS = 16
"""Hex digits of the listing digest a cursor carries."""

_TOKEN = re.compile(r"([1-9][0-9]{0,17}):([0-9a-f]+)")
"""What a cursor decodes to: the first tool's index (at most 18 digits: ``int()`` refuses
a string of over 4,300, and no listing is longer), the listing digest."""

_SURROGATE_ESCAPE = re.compile(rb"\\ud[89a-f]")
"""A surrogate code point as ``json.dumps`` writes it (lower-case hex; a literal backslash
before ``ud800`` in a string matches too: a false alarm only costs a closer look)."""


def checked_page_bytes(size: int) -> int:
    """``size`` if it can bound a page: 0 (one page) or at least :data:`MIN_PAGE_BYTES`.

    Raises:
        OptionError: any other value (``option="max_page_bytes"``).
    """
    if size != 0 and not (isinstance(size, int) and size >= MIN_PAGE_BYTES):
        raise OptionError(f"max_page_bytes must be 0 (one page) or at least "
                          f"{MIN_PAGE_BYTES:,}, not {size!r}", option="max_page_bytes")
    return size


def cursor_of(params: Any) -> Any:
    """The ``cursor`` of ``tools/list`` params: the SDK's ``PaginatedRequestParams``, the
    raw JSON object (handshake-era requests reach the server's middleware unparsed), or
    ``None``; whatever a client sent, checked by :meth:`Listing.page`."""
    if isinstance(params, Mapping):
        return params.get("cursor")
    return getattr(params, "cursor", None)


@dataclass(frozen=True, slots=True)
class Listing:
    """The served tools, their sizes and a digest, cut into pages on request.

    Attributes:
        tools: the tool JSON objects, in listing order.
        sizes: bytes of each tool's compact JSON, non-ASCII escaped.
        digest: hex digest of every tool's JSON (ties a cursor to this listing).
        max_page_bytes: most bytes of a page's message; ``0``: one page, however large.
        surrogates: indexes of the tools whose JSON escapes a surrogate code point
            (``\\ud800``-``\\udfff``: a character past U+FFFF, or a lone surrogate,
            which a strict UTF-8 serializer refuses); the others certainly hold none.
    """

    tools: Sequence[Mapping[str, Any]]
    sizes: tuple[int, ...]
    digest: str
    max_page_bytes: int
    surrogates: tuple[int, ...] = ()

    @classmethod
    def of(cls, tools: Sequence[Mapping[str, Any]], max_page_bytes: int) -> Listing:
        """Measure ``tools`` once (GitHub's 1,223 tools: about 0.1 s)."""
        digest = hashlib.sha256()
        sizes, surrogates = [], []
        for index, tool in enumerate(tools):
            text = json.dumps(tool, separators=(",", ":")).encode()
            digest.update(len(text).to_bytes(8, "big"))
            digest.update(text)
            sizes.append(len(text))
            if b"\\ud" in text and _SURROGATE_ESCAPE.search(text):
                surrogates.append(index)
        return cls(tools=tools, sizes=tuple(sizes),
                   digest=digest.hexdigest()[:_DIGEST_CHARS], max_page_bytes=max_page_bytes,
                   surrogates=tuple(surrogates))

    def page(self, cursor: Any) -> dict[str, Any]:
        """``{"tools": [...], "nextCursor": "..."}`` from ``cursor`` on (``None``: the
        first page); ``nextCursor`` is absent on the last page.

        Raises:
            MCPError: ``-32602`` for a cursor this listing did not give.
        """
        start = 0 if cursor is None else self._start(cursor)
        end = self._end(start)
        result: dict[str, Any] = {"tools": list(self.tools[start:end])}
        if end < len(self.tools):
            result["nextCursor"] = self._cursor(end)
        return result

    def _end(self, start: int) -> int:
        """One past the last tool of the page that begins at ``start``."""
        if not self.max_page_bytes:
            return len(self.tools)
        room = self.max_page_bytes - ENVELOPE_BYTES
        end, used = start, 0
        while end < len(self.tools):
            used += self.sizes[end] + (end > start)  # the comma between two tools
            if used > room and end > start:
                break
            end += 1
        return end

    def _cursor(self, start: int) -> str:
        token = f"{start}:{self.digest}".encode()
        return base64.urlsafe_b64encode(token).decode().rstrip("=")

    def _start(self, cursor: Any) -> int:
        """The tool index ``cursor`` names.

        Raises:
            MCPError: ``-32602``: not a cursor of this listing.
        """
        if isinstance(cursor, str) and cursor.isascii():
            try:
                token = base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4)).decode()
            except (binascii.Error, UnicodeDecodeError):
                token = ""
            found = _TOKEN.fullmatch(token)
            if (found is not None and found.group(2) == self.digest
                    and int(found.group(1)) < len(self.tools)):
                return int(found.group(1))
        raise MCPError(code=INVALID_PARAMS,
                       message="Invalid cursor: not one this server's tools/list gave "
                               "(the tool list may have changed); list again without one")
