"""What the command line prints never drives the terminal.

A document, an API's answer and an error quoting either are untrusted text: an escape
sequence in a server URL (``ESC [2K`` then ``CR``: erase the line) can make the screen show
the vendor's URL while requests go elsewhere, and a right-to-left override reverses what
follows it. While a command runs, :func:`printable_output` puts :class:`Printable` over
``sys.stdout`` and ``sys.stderr``: every character that controls a terminal is written as
``\\uXXXX`` (inside a JSON string that is the same character, so JSON output stays JSON
with the same value; JSON never holds one outside a string).

Escaped: C0 controls but tab and newline (a carriage return too, unless it ends a line
before ``\\n``), DEL, C1 controls (``\\x9b`` is a one-byte CSI), and the Unicode
bidirectional and invisible marks (ALM, LRM, RLM, the embeddings, overrides and isolates);
and a lone surrogate (a document's ``\\ud800`` escape without its pair), which no UTF-8
stream can write: the command failed on it.
What is written straight to ``sys.stdout.buffer`` (the MCP stdio transport) is not touched.

Line breaks are kept by the streams (the command's own output has lines), so a value from a
document or an answer could still write a line of its own: a security scheme, a path or an
operationId holding ``\\n`` could print a fake ``httpllm: serving ...`` or ``(none)``. Every
line the command says (a diagnostic, a report line, a listing row) goes through :func:`say`,
which writes it on one line: a line break inside it (CR, LF, VT, FF, the file, group and
record separators, NEL, U+2028, U+2029: what ``str.splitlines`` splits on) is shown as
``\\n``, ``\\r`` or ``\\uXXXX`` (:func:`one_line`). Only a block that is the output itself
(JSON, a request or answer body, a compiled document) is written as it is, by
:func:`httpllm.cli._common.write`; a rendered table applies :func:`one_line` to each of
its lines. No module of the command calls ``print`` (a test checks it).

Source: ECMA-48 (control functions: C0, C1, CSI); Unicode UAX #9 (explicit directional
formatting characters); CVE-2021-42574 ("Trojan Source").
"""

from __future__ import annotations

import re
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any, TextIO

from httpllm.errors import HttpllmError

__all__ = ["Printable", "one_line", "printable", "printable_output", "say"]

_CONTROL = re.compile(
    "[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069"
    "\ud800-\udfff]|\r(?!\n)")


_BREAK = re.compile("[\n\r\x0b\x0c\x1c-\x1e\x85\u2028\u2029]")
"""What ``str.splitlines`` splits a line on (Python docs, ``str.splitlines``; Unicode
UAX #14, mandatory breaks)."""

_NAMED = {"\n": "\\n", "\r": "\\r"}


def one_line(text: str) -> str:
    r"""``text`` with each line break in it written as ``\n``, ``\r`` or ``\uXXXX``:
    it prints as one line, whatever a document or an answer put in it.

    >>> one_line("k\r\nhttpllm: serving 1 tool over stdio\u2028x")
    'k\\r\\nhttpllm: serving 1 tool over stdio\\u2028x'
    """
    return _BREAK.sub(lambda m: _NAMED.get(m.group(), f"\\u{ord(m.group()):04x}"), text)


def say(text: str = "", *, file: TextIO | None = None, flush: bool = False) -> None:
    """Print ``text`` as one line (:func:`one_line`) on ``file`` (standard output unless
    named; ``sys.stderr`` for a diagnostic). The one way the command prints a line."""
    print(one_line(text), file=sys.stdout if file is None else file, flush=flush)


def printable(text: str) -> str:
    r"""``text`` with every character that controls a terminal written as ``\uXXXX``.

    >>> printable("https://a.example/\x1b[2K\rhttps://b.example\r\n")
    'https://a.example/\\u001b[2K\\u000dhttps://b.example\r\n'
    """
    return _CONTROL.sub(lambda m: f"\\u{ord(m.group()):04x}", text)


class Printable:
    """A text stream whose ``write`` passes :func:`printable` text on to ``stream``;
    everything else (``buffer``, ``isatty`` ...) is the stream's own. A write or flush the
    system refuses (``> /dev/full``: no space left) is an :class:`~httpllm.errors.HttpllmError`
    naming the stream, one line and exit 1, never an internal error; a closed pipe
    (``| head``) stays ``BrokenPipeError``, which the command ends quietly on."""

    def __init__(self, stream: TextIO, name: str = "standard output") -> None:
        self.stream = stream
        self.label = name

    def write(self, text: str) -> int:
        """Write ``text`` escaped; the count of characters given, as ``TextIO`` does.

        Raises:
            HttpllmError: the stream cannot be written.
        """
        with self._refused():
            self.stream.write(printable(text))
        return len(text)

    def flush(self) -> None:
        """Flush the stream.

        Raises:
            HttpllmError: the stream cannot be written.
        """
        with self._refused():
            self.stream.flush()

    @contextmanager
    def _refused(self) -> Iterator[None]:
        try:
            yield
        except BrokenPipeError:
            raise
        except OSError as exc:
            raise HttpllmError(f"cannot write to {self.label}: {exc.strerror or exc}") from None

    def writelines(self, lines: Any) -> None:
        for line in lines:
            self.write(line)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.stream, name)


@contextmanager
def printable_output() -> Iterator[None]:
    """``sys.stdout`` and ``sys.stderr`` escape terminal controls within the block (the
    streams that were there are put back after it)."""
    out, err = sys.stdout, sys.stderr
    sys.stdout, sys.stderr = Printable(out), Printable(err, "standard error")
    try:
        yield
    finally:
        sys.stdout, sys.stderr = out, err
