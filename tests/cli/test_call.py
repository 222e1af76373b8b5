"""`httpllm call`: its notes and its refusal of invalid arguments are one line each,
whatever the document's names and the arguments' keys hold."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from loopback import running

from httpllm.cli import main

FORGED = "httpllm: note: nothing was sent"


@pytest.fixture
def spec(tmp_path: Path) -> Path:
    """An operation whose body has an optional property named with a line break."""
    path = tmp_path / "api.json"
    path.write_text(json.dumps({
        "openapi": "3.0.3", "info": {"title": "t", "version": "1"},
        "servers": [{"url": "https://api.example"}],
        "paths": {"/a": {"post": {
            "operationId": "make",
            "requestBody": {"required": True, "content": {"application/json": {"schema": {
                "type": "object", "properties": {
                    "name": {"type": "string"},
                    "x\r\n" + FORGED: {"type": "string"}}}}}},
            "responses": {"200": {"description": "ok"}}}}}}))
    return path


def test_a_note_naming_an_argument_is_one_line(
        spec: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The note on a null left out names the property, its line break escaped."""
    args = {"body": {"name": "n", "x\r\n" + FORGED: None}}
    assert main(["call", str(spec), "make", "--args", json.dumps(args)]) == 0
    err = capsys.readouterr().err.splitlines()
    assert FORGED not in err
    assert any(line.startswith(f"httpllm: note: body/x\\r\\n{FORGED}: null for an optional")
               for line in err)


def test_the_refusal_of_invalid_arguments_is_one_line_per_error(
        spec: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Each error of an invalid call is one line, the key it names escaped."""
    args = {"body": {"name": "n", "x\r\n" + FORGED: 5}}
    assert main(["call", str(spec), "make", "--args", json.dumps(args)]) == 1
    err = capsys.readouterr().err.splitlines()
    assert FORGED not in err
    assert len(err) == 2 and err[1].startswith(f"- body/x\\r\\n{FORGED}: ")


async def moved(scope: dict[str, Any], receive: Any, send: Any) -> None:
    """An API whose redirect points at a URL holding U+2028 (UTF-8 bytes, which HTTP
    allows as obs-text and httpx decodes) and then a forged line."""
    if scope["type"] != "http":
        return
    location = ("https://other.example/\u2028" + FORGED).encode()
    await send({"type": "http.response.start", "status": 302,
                "headers": [(b"location", location), (b"content-length", b"0")]})
    await send({"type": "http.response.body", "body": b""})


def test_the_location_of_a_redirect_is_one_line(
        spec: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The `Location:` line `--send` prints is the answer's header on one line."""
    with running(moved) as base:
        assert main(["call", str(spec), "make", "--args", '{"body": {"name": "n"}}',
                     "--send", "--base-url", base]) == 4
    out = capsys.readouterr().out.splitlines()
    assert FORGED not in out
    assert f"Location: https://other.example/\\u2028{FORGED}" in out
