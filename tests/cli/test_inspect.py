"""`httpllm inspect`: a document's keys and values are shown each on its own line of the
report, never as lines of their own."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from httpllm.cli import main

FORGED = "httpllm: serving 9 tools over stdio"
BREAKS = {"LF": "\n", "CRLF": "\r\n", "CR": "\r", "LS": "\u2028", "PS": "\u2029"}
"""The breaks the terminal-control escaping keeps (VT, FF and NEL it escapes already)."""


def document(tmp_path: Path, brk: str) -> Path:
    """A document whose path, operationId, parameter, server URL, security scheme (used,
    and an undefined one: a warning) and a dangling $ref (a skipped operation) each hold
    ``brk`` and then a line the command never writes."""
    line = brk + FORGED
    path = tmp_path / "api.json"
    path.write_text(json.dumps({
        "openapi": "3.0.3", "info": {"title": "t", "version": "1"},
        "servers": [{"url": "https://api.example/" + line}],
        "components": {"securitySchemes": {
            "k" + line: {"type": "apiKey", "in": "header", "name": "X-K"}}},
        "paths": {
            "/a" + line: {"get": {
                "operationId": "getA" + line,
                "security": [{"k" + line: []}, {"nosuch" + line: []}],
                "parameters": [{"name": "q" + line, "in": "query",
                                "schema": {"type": "string"}}],
                "responses": {"200": {"description": "ok"}}}},
            "/b" + line: {"get": {
                "parameters": [{"name": "n", "in": "query",
                                "schema": {"$ref": "#/components/schemas/no" + line}}],
                "responses": {"200": {"description": "ok"}}}}}}))
    return path


@pytest.mark.parametrize("brk", BREAKS.values(), ids=BREAKS.keys())
def test_a_line_break_in_the_document_never_writes_a_line(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], brk: str) -> None:
    """Each server, scheme, operation, error and warning is one line, the break shown
    escaped: a document could print a fake ``httpllm: serving ...`` line."""
    assert main(["inspect", str(document(tmp_path, brk))]) == 0
    out, err = capsys.readouterr()
    lines = (out + err).splitlines()  # every break a terminal or an editor may honour
    assert not [line for line in lines if line.startswith(FORGED)]
    shown = "\\r\\n" if brk == "\r\n" else "\\n" if brk == "\n" else "\\r" if brk == "\r" \
        else f"\\u{ord(brk):04x}"
    assert f"  https://api.example/{shown}{FORGED}" in lines
    assert any(line.startswith(f"  warning: #/paths/~1a{shown}{FORGED}/get/security/1/")
               for line in lines)
