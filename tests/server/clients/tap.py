"""Relay a stdio MCP server and record its ``tools/list`` traffic: ``python tap.py LOG --
COMMAND [ARG ...]``.

The host starts this script as if it were the server; it starts COMMAND, copies the host's
lines to it and its lines back unchanged, and appends one JSON line to LOG for every
``tools/list`` response: ``{"bytes": 1041873, "tools": 130, "cursor": false,
"next": true, "error": null}`` (``bytes``: the line as written, ``cursor``: whether the
request carried one). A test reads LOG to see how many pages a host asked for and how
large each was.
"""

from __future__ import annotations

import json
import subprocess
import sys
import threading
from typing import IO, Any


def _relay_requests(source: IO[bytes], sink: IO[bytes], asked: dict[Any, bool]) -> None:
    """Host -> server: note each tools/list request's id and cursor."""
    for line in source:
        try:
            message = json.loads(line)
        except ValueError:
            message = None
        if isinstance(message, dict) and message.get("method") == "tools/list":
            params = message.get("params") or {}
            asked[json.dumps(message.get("id"))] = bool(params.get("cursor"))
        sink.write(line)
        sink.flush()
    sink.close()


def main(argv: list[str]) -> int:
    log_path, separator, *command = argv
    assert separator == "--", "usage: tap.py LOG -- COMMAND [ARG ...]"
    server = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    assert server.stdin is not None and server.stdout is not None
    asked: dict[Any, bool] = {}
    threading.Thread(target=_relay_requests, args=(sys.stdin.buffer, server.stdin, asked),
                     daemon=True).start()
    out = sys.stdout.buffer
    with open(log_path, "a", encoding="utf-8") as log:
        for line in server.stdout:
            _record(line, asked, log)  # before the host has the line and may end us
            out.write(line)
            out.flush()
    return server.wait()


def _record(line: bytes, asked: dict[Any, bool], log: IO[str]) -> None:
    """Append ``line`` to ``log`` if it answers a tools/list request."""
    try:
        message = json.loads(line)
    except ValueError:
        return
    key = json.dumps(message.get("id")) if isinstance(message, dict) else None
    if key is None or "method" in message or key not in asked:
        return
    result = message.get("result") or {}
    log.write(json.dumps({"bytes": len(line.rstrip(b"\r\n")),
                          "tools": len(result.get("tools") or []),
                          "cursor": asked.pop(key), "next": "nextCursor" in result,
                          "error": message.get("error")}) + "\n")
    log.flush()


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
