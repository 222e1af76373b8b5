"""The HTTP listener: uvicorn set up for a server other programs share a process with and
that clients may hold open.

- the host's logging is left as it is (uvicorn's default ``dictConfig`` closes every
  handler of the process, the host's own included);
- idle kept-alive connections stay open 75 s (uvicorn's 5 s closed the connection while
  the TypeScript client was busy compiling validators after a large ``tools/list``, and
  its next call failed);
- :class:`HeadDeadline`: each request's line and headers must arrive within 10 s (uvicorn
  has no such timeout, so a client sending headers a byte at a time held a connection
  forever);
- ``X-Forwarded-For`` is not trusted (the limits count clients by address).
"""

from __future__ import annotations

import asyncio
import functools
from typing import Any

import h11
from uvicorn.protocols.http.h11_impl import H11Protocol

__all__ = ["HeadDeadline", "uvicorn_config"]


class HeadDeadline(H11Protocol):
    """uvicorn's h11 protocol with a deadline for each request's line and headers.

    The clock starts when a connection opens and, on a kept-alive connection, at the first
    byte of the next request; it stops when the headers are complete. A client that has
    not sent them by then is disconnected. (uvicorn's keep-alive timer stops at the first
    byte, and a new connection has none: uvicorn issue #157.)
    """

    header_timeout: float = 10.0
    _deadline: asyncio.TimerHandle | None = None

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        self._arm()

    def data_received(self, data: bytes) -> None:
        if self._deadline is None and self.conn.their_state is h11.IDLE:
            self._arm()
        super().data_received(data)
        if self.conn.their_state is not h11.IDLE:
            self._disarm()

    def connection_lost(self, exc: Exception | None) -> None:
        self._disarm()
        super().connection_lost(exc)

    def _arm(self) -> None:
        self._disarm()
        self._deadline = self.loop.call_later(self.header_timeout, self._expire)

    def _disarm(self) -> None:
        if self._deadline is not None:
            self._deadline.cancel()
            self._deadline = None

    def _expire(self) -> None:
        self._deadline = None
        if self.conn.their_state is h11.IDLE and not self.transport.is_closing():
            self.transport.close()


def uvicorn_config(app: Any, *, host: str = "127.0.0.1", port: int = 8000,
                   keep_alive: float = 75.0,
                   header_timeout: float = 10.0, **options: Any) -> Any:
    """The ``uvicorn.Config`` :func:`serve` runs ``app`` with (see the module docstring);
    ``options`` go to ``uvicorn.Config`` (``workers``, ``factory`` ...).

    ``X-Forwarded-For`` is not trusted (the limits count clients by address): behind a
    proxy, authenticate clients, and the limits count tokens instead."""
    import uvicorn

    return uvicorn.Config(
        app, host=host, port=port, log_config=None, log_level="warning",
        timeout_keep_alive=keep_alive,  # type: ignore[arg-type]  # uvicorn takes float
        http=functools.partial(_protocol, header_timeout),  # type: ignore[arg-type]
        proxy_headers=False, server_header=False, **options)


def _protocol(header_timeout: float, **kwargs: Any) -> HeadDeadline:
    """A picklable protocol factory (uvicorn's workers are spawned processes)."""
    protocol = HeadDeadline(**kwargs)
    protocol.header_timeout = header_timeout
    return protocol
