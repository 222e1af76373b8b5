"""What the command line prints never drives the terminal: control characters and
terminal escape sequences from a document, an API answer or an error are shown escaped
(``\\u001b``), on stdout and stderr, in every command. Run as a user runs it: a process."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from loopback import running
from starlette.applications import Starlette
from starlette.responses import Response
from starlette.routing import Route

ESC = "\x1b"
HIDE = f"{ESC}[2K\r"  # erase the line, back to its start: what follows is all one sees
BIDI = "\u202e"  # right-to-left override: "moc.rodnev" shows as "vendor.com"
FORBIDDEN = (ESC, "\r", "\x07", "\x9b", BIDI, "\x00")
PETSTORE = str(Path(__file__).resolve().parents[2] / "specs" / "petstore-3.0.yaml")


def document(tmp_path: Path) -> Path:
    """A document whose server URL, description, summary, title and a warning carry
    escape sequences, with one operation refused with a message that quotes them; the
    summary and a description hold a lone surrogate (a `\\ud800` escape without its
    pair), which no UTF-8 stream can write."""
    doc = {
        "openapi": "3.1.0",
        "info": {"title": f"Pets{ESC}]0;owned\x07", "version": "1"},
        "servers": [{"url": f"https://evil.example/{HIDE}https://api.vendor.example"}],
        "paths": {
            "/pets": {"get": {
                "operationId": "listPets",
                "summary": f"List pets{HIDE}Delete every pet{BIDI}x\x9b31m \ud800",
                "parameters": [{"name": "limit", "in": "query",
                                "description": f"how many{ESC}[8m hidden \udfff",
                                "schema": {"type": "integer", "x-odd\x00": 1}}],
                "responses": {"200": {"description": "ok"}}}},
            f"/broken{ESC}[31m": {"post": {
                "operationId": "broken",
                "requestBody": {"content": {"application/json": {
                    "schema": {"$ref": f"#/components/schemas/Missing{ESC}[2J"}}}},
                "responses": {"200": {"description": "ok"}}}},
        },
    }
    path = tmp_path / "openapi.json"
    path.write_text(json.dumps(doc))
    return path


def run(*argv: str, cache: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "httpllm", *argv], capture_output=True,
                          text=True, timeout=120, encoding="utf-8", stdin=subprocess.DEVNULL,
                          env={**__import__("os").environ, "HTTPLLM_CACHE_DIR": str(cache)})


def clean(text: str) -> None:
    """No control character but newline and tab; no bidirectional override."""
    for char in FORBIDDEN:
        assert char not in text, f"{char!r} printed raw in {text!r}"


@pytest.mark.parametrize("argv", [
    pytest.param(("inspect", "{spec}"), id="inspect"),
    pytest.param(("inspect", "{spec}", "--json"), id="inspect-json"),
    pytest.param(("compile", "{spec}", "-v"), id="compile-summary"),
    pytest.param(("compile", "{spec}", "--losses"), id="compile-losses"),
    pytest.param(("search", "{spec}", "list pets"), id="search"),
    pytest.param(("serve", "{spec}"), id="serve-stdio"),
    pytest.param(("call", "{spec}", "listPets", "--args", "{{\"limit\": 1}}"),
                 id="call-dry-run"),
])
def test_nothing_printed_drives_the_terminal(tmp_path: Path, argv: tuple[str, ...]) -> None:
    """Every command's stdout and stderr show escape sequences escaped, and JSON output
    stays JSON holding the same text."""
    spec = document(tmp_path)
    done = run(*(a.format(spec=spec) for a in argv), cache=tmp_path / "cache")
    assert "Traceback" not in done.stderr
    clean(done.stdout)
    clean(done.stderr)
    shown = done.stdout + done.stderr
    assert "\\u001b" in shown or "\\x1b" in shown  # escaped, ours or a quoted repr()
    if "--json" in argv or "--losses" in argv:
        json.loads(done.stdout)


def test_the_server_url_is_shown_whole(tmp_path: Path) -> None:
    """`inspect` shows the server URL requests go to, both halves visible: the escape
    that would erase the first half is printed as text (the carriage return as ``\\r``:
    a line of the report is one line)."""
    done = run("inspect", str(document(tmp_path)), cache=tmp_path / "cache")
    assert "https://evil.example/\\u001b[2K\\rhttps://api.vendor.example" in done.stdout


def test_an_error_line_is_escaped(tmp_path: Path) -> None:
    """A one-line error quoting the document (a file name holding an escape) is escaped
    too, and stays one line."""
    missing = tmp_path / f"no{ESC}[2Jsuch.yaml"
    done = run("inspect", str(missing), cache=tmp_path / "cache")
    assert done.returncode == 1
    clean(done.stderr)
    assert "no\\u001b[2Jsuch.yaml" in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1


def test_an_answer_printed_by_call_is_escaped(tmp_path: Path) -> None:
    """`call --send` prints the API's answer (text and JSON) with its escapes as text."""
    async def pets(request: object) -> Response:
        return Response(f"fine{HIDE}rm -rf ~{BIDI}\x9b2J\r\n", media_type="text/plain")

    app = Starlette(routes=[Route("/pets", pets)])
    with running(app) as base:
        done = run("call", str(document(tmp_path)), "listPets", "--args", "{}", "--send",
                   "--base-url", base, cache=tmp_path / "cache")
    assert done.returncode == 0, done.stderr
    clean(done.stdout)
    assert "fine\\u001b[2K\\u000drm -rf ~\\u202e\\u009b2J" in done.stdout


@pytest.mark.parametrize("brk", ["\n", "\r\n", "\r", "\x0b", "\x0c", "\x1c", "\x1d", "\x1e",
                                 "\x85", "\u2028", "\u2029"])
def test_one_line_leaves_no_line_break(brk: str) -> None:
    """What ``str.splitlines`` splits on is written as an escape: one line stays one."""
    from httpllm.cli._terminal import one_line

    assert one_line(f"a{brk}b").splitlines() == [one_line(f"a{brk}b")]
    assert "\\" in one_line(f"a{brk}b")


def test_no_command_module_prints_but_through_say() -> None:
    """Every line a command prints goes through ``say`` (one line, whatever a document put
    in it), every block through ``write``: a new ``print(f"... {value}")`` could let a
    document write a line of its own."""
    import ast

    folder = Path(__file__).resolve().parents[2] / "src" / "httpllm" / "cli"
    printing = [f"{path.name}:{node.lineno}" for path in sorted(folder.glob("*.py"))
                if path.name != "_terminal.py"
                for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
                if isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
                and node.func.id == "print"]
    assert printing == []


class _Full:
    """Standard output on a full disk (``> /dev/full``): every write and flush refused."""

    encoding = "utf-8"

    def write(self, text: str) -> int:
        raise OSError(28, "No space left on device")

    def flush(self) -> None:
        raise OSError(28, "No space left on device")

    def isatty(self) -> bool:
        return False


@pytest.mark.parametrize("argv", [("compile", PETSTORE), ("inspect", PETSTORE),
                                  ("search", PETSTORE, "pets")])
def test_output_the_system_refuses_is_one_line_exit_1(
        argv: tuple[str, ...], capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    """``httpllm compile SPEC > /dev/full`` said "internal error (OSError: [Errno 28] ...);
    please report it": a full disk is no bug of ours. One line naming standard output,
    exit 1, as an ``-o`` file that cannot be written."""
    from httpllm.cli import main

    monkeypatch.setattr(sys, "stdout", _Full())
    status = main(list(argv))
    err = capsys.readouterr().err
    assert status == 1 and "internal error" not in err
    assert err.splitlines()[-1] == (
        "httpllm: error: cannot write to standard output: No space left on device")
