"""The HTTP listener (uvicorn as `listen.uvicorn_config` sets it up): a client that sends
its request headers slowly, or nothing at all, is disconnected after the header timeout;
a kept-alive connection waiting between requests is not. Raw sockets on loopback."""

from __future__ import annotations

import socket
import time

from serving import served
from upstream import document

import httpllm

LIMIT = 10.0
"""Seconds a test waits for the server to act (a bound, not a measurement)."""
TIMEOUT = 0.5
"""The header timeout the tests serve with, in seconds."""


def closed_within(sock: socket.socket, seconds: float, trickle: bytes = b"") -> bool:
    """Whether the server closes ``sock`` within ``seconds`` while the client sends
    ``trickle`` every 0.1 s."""
    sock.settimeout(0.1)
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        try:
            if trickle:
                sock.sendall(trickle)
            if sock.recv(4096) == b"":
                return True
        except TimeoutError:
            continue
        except OSError:
            return True
    return False


def exchange(sock: socket.socket, port: int) -> int:
    """One request on ``sock`` (a GET the endpoint answers 4xx with a body); its status."""
    sock.settimeout(LIMIT)
    sock.sendall(f"GET /mcp HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n"
                 "Accept: text/event-stream\r\n\r\n".encode())
    head = b""
    while b"\r\n\r\n" not in head:
        chunk = sock.recv(1)
        if not chunk:
            raise ConnectionError("closed by the server")
        head += chunk
    length = next(int(line.split(b":")[1]) for line in head.split(b"\r\n")
                  if line.lower().startswith(b"content-length"))
    body = b""
    while len(body) < length:
        body += sock.recv(length - len(body))
    return int(head.split(b" ")[1])


def test_headers_sent_a_byte_at_a_time_are_cut_off(upstream: str) -> None:
    """A request whose headers keep trickling in (a header line every 0.1 s, never the
    blank line) is disconnected once the header timeout passes."""
    from httpllm.server import http_app
    app = http_app(httpllm.mcp_server(document(upstream)))
    with served(app, header_timeout=TIMEOUT) as base:
        port = int(base.rsplit(":", 1)[1])
        with socket.create_connection(("127.0.0.1", port)) as sock:
            sock.sendall(f"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n".encode())
            assert closed_within(sock, LIMIT, trickle=b"X-Slow: 1\r\n")


def test_a_connection_that_never_sends_is_cut_off(upstream: str) -> None:
    """A connection opened and left silent is disconnected after the header timeout."""
    from httpllm.server import http_app
    app = http_app(httpllm.mcp_server(document(upstream)))
    with served(app, header_timeout=TIMEOUT) as base:
        port = int(base.rsplit(":", 1)[1])
        with socket.create_connection(("127.0.0.1", port)) as sock:
            assert closed_within(sock, LIMIT)


def test_a_kept_alive_connection_may_wait_between_requests(upstream: str) -> None:
    """Idle between two requests for longer than the header timeout, a kept-alive
    connection still carries the second one (the deadline runs only within a request)."""
    from httpllm.server import http_app
    app = http_app(httpllm.mcp_server(document(upstream)))
    with served(app, header_timeout=TIMEOUT) as base:
        port = int(base.rsplit(":", 1)[1])
        with socket.create_connection(("127.0.0.1", port)) as sock:
            first = exchange(sock, port)
            time.sleep(3 * TIMEOUT)
            second = exchange(sock, port)
    assert first == second == 400


def test_the_listener_leaves_logging_alone_and_trusts_no_forwarding_header() -> None:
    """The uvicorn config brings no logging config of its own (uvicorn's closes every
    handler in the process), keeps connections 75 s, and ignores X-Forwarded-For."""
    from httpllm.server.listen import uvicorn_config
    config = uvicorn_config(object())
    assert config.log_config is None and config.timeout_keep_alive == 75
    assert config.proxy_headers is False
    assert config.http.args == (10.0,)
