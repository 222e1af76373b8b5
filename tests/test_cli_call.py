"""`httpllm call SPEC FUNCTION --args JSON [--base-url URL] [--send]`."""

from __future__ import annotations

import json
import socket
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from httpllm.cli import main

SPEC = str(Path(__file__).resolve().parents[1] / "specs" / "petstore-3.0.yaml")
API = "https://petstore.example.com/v1"

ANY_VALUE = {
    "openapi": "3.0.3",
    "info": {"title": "any value", "version": "1"},
    "paths": {"/things": {"post": {
        "operationId": "putThing",
        "requestBody": {"required": True, "content": {"application/json": {"schema": {
            "type": "object", "required": ["value"],
            "properties": {"value": {"description": "any JSON value"}},
        }}}},
        "responses": {"200": {"description": "ok"}},
    }}},
}
"""No `servers`; in strict mode `value` is a JSON-encoded string the model writes."""


def call(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    """Run `httpllm call ...`; the exit status, stdout and stderr."""
    status = main(["call", *argv])
    out, err = capsys.readouterr()
    return status, out, err


class Recorder(BaseHTTPRequestHandler):
    """Answers 201 with JSON naming the method and path; keeps what it received."""

    def _answer(self) -> None:
        length = int(self.headers.get("content-length") or 0)
        record = {"method": self.command, "path": self.path,
                  "body": self.rfile.read(length).decode("utf-8"),
                  "headers": {k.lower(): v for k, v in self.headers.items()}}
        self.server.seen.append(record)  # type: ignore[attr-defined]
        payload = json.dumps({"method": self.command, "path": self.path}).encode()
        self.send_response(201)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(payload)))
        self.end_headers()
        self.wfile.write(payload)

    do_GET = do_POST = do_DELETE = _answer

    def log_message(self, format: str, *args: Any) -> None:
        """Stay quiet."""


@pytest.fixture
def server() -> Iterator[tuple[str, list[dict[str, Any]]]]:
    """A local HTTP server; yields its base URL and the list of requests it received."""
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Recorder)
    httpd.seen = []  # type: ignore[attr-defined]
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{httpd.server_address[1]}", httpd.seen  # type: ignore[attr-defined]
    finally:
        httpd.shutdown()
        httpd.server_close()
        thread.join(5)


def closed_port() -> int:
    """A 127.0.0.1 port nothing listens on."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
    return port


def test_call_prints_the_request_line_and_headers(capsys: pytest.CaptureFixture[str]) -> None:
    """A valid call prints the method and URL, then one header per line, and exits 0."""
    status, out, err = call(capsys, SPEC, "listPets", "--args", '{"limit": 5, "tag": ["a b", "c"]}')
    lines = out.splitlines()
    assert status == 0 and err.startswith("httpllm: note: not sent; --send would stop")
    assert lines[0] == f"GET {API}/pets?limit=5&tag=a%20b&tag=c"
    assert "accept: application/json" in lines[1:]
    assert "" not in lines  # no body section for a GET


def test_call_prints_the_body_after_a_blank_line(capsys: pytest.CaptureFixture[str]) -> None:
    """A call with a JSON body prints it, compact, after the headers and a blank line."""
    status, out, _ = call(capsys, SPEC, "createPet", "--args", '{"body": {"name": "Rex"}}')
    head, _, body = out.partition("\n\n")
    assert status == 0
    assert head.splitlines()[0] == f"POST {API}/pets"
    assert "content-type: application/json" in head.splitlines()
    assert body == '{"name":"Rex"}\n'


def test_base_url_replaces_the_server_url(capsys: pytest.CaptureFixture[str]) -> None:
    """`--base-url` takes the place of the document's server URL, path kept."""
    status, out, _ = call(capsys, SPEC, "getPet", "--args", '{"petId": 7}',
                          "--base-url", "http://localhost:8080/api/")
    assert status == 0
    assert out.splitlines()[0] == "GET http://localhost:8080/api/pets/7"


def test_a_password_in_the_base_url_is_refused_and_never_printed(
        capsys: pytest.CaptureFixture[str], server: tuple[str, list[dict[str, Any]]]) -> None:
    """`--base-url http://user:pass@host` (issue 22 finding 8): one line naming the flag
    and neither the user nor the password, exit 2, nothing printed as the request and
    nothing sent; httpx would otherwise send them as HTTP Basic in place of `--auth`."""
    url, seen = server
    secret = url.replace("http://", "http://admin:URL-PASSWORD-42@")
    for send in ((), ("--send",)):
        with pytest.raises(SystemExit) as exit_:
            main(["call", SPEC, "getPet", "--args", '{"petId": 1}', "--base-url", secret,
                  "--auth", "apiKey=k", *send])
        out, err = capsys.readouterr()
        assert exit_.value.code == 2 and out == "" and err.count("\n") == 1, (out, err)
        assert "--base-url" in err and "user name or password" in err
        assert "URL-PASSWORD-42" not in err and "admin" not in err
    assert seen == []


def test_invalid_arguments_print_feedback_and_nothing_else(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """Invalid arguments exit 1 with the model-facing feedback on stderr and no request."""
    status, out, err = call(capsys, SPEC, "listPets", "--args", '{"limit": 0, "color": "red"}')
    assert status == 1 and out == ""
    assert err.startswith("Invalid arguments for listPets; nothing was sent.")
    assert "- limit: expected a number >= 1; received 0" in err
    assert '- color: expected no argument "color"' in err


def test_arguments_that_are_not_json_are_refused(capsys: pytest.CaptureFixture[str]) -> None:
    """`--args` that is not JSON exits 1 with feedback naming the JSON problem."""
    status, out, err = call(capsys, SPEC, "listPets", "--args", "{limit: 5}")
    assert status == 1 and out == ""
    assert "expected a JSON object of arguments" in err


def test_unknown_function_exits_with_one_line(capsys: pytest.CaptureFixture[str]) -> None:
    """An unknown function name exits 1 with one error line on stderr."""
    status, out, err = call(capsys, SPEC, "adoptPet", "--args", "{}")
    assert status == 1 and out == ""
    assert err.count("\n") == 1 and "adoptPet" in err


def test_document_without_servers_needs_base_url(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """A document without servers exits 1 asking for --base-url (by its flag) unless one is
    given."""
    spec = tmp_path / "any.json"
    spec.write_text(json.dumps(ANY_VALUE))
    status, out, err = call(capsys, str(spec), "putThing", "--args", '{"body": {"value": 1}}')
    assert status == 1 and out == ""
    assert err.count("\n") == 1 and "--base-url" in err and "--document-url" in err
    assert "base_url" not in err and "document_url" not in err
    status, out, _ = call(capsys, str(spec), "putThing", "--args", '{"body": {"value": 1}}',
                          "--base-url", "https://api.example.com")
    assert status == 0 and out.splitlines()[0] == "POST https://api.example.com/things"


def test_a_server_urls_password_is_never_printed(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """A usage error about a server variable names the server URL without the
    `user:pass@` the document put in it (it was printed whole)."""
    spec = tmp_path / "s.json"
    spec.write_text(json.dumps({
        "openapi": "3.1.0", "info": {"title": "t", "version": "1"},
        "servers": [{"url": "https://me:s3cret-pw@{region}.example.com/v1",
                     "variables": {"region": {"default": "eu"}}}],
        "paths": {"/a": {"get": {"operationId": "a",
                                 "responses": {"200": {"description": "ok"}}}}}}))
    status, _, err = call(capsys, str(spec), "a", "--args", "{}", "--server-var", "nosuch=x")
    assert status == 2 and "nosuch" in err and "example.com" in err
    assert "s3cret-pw" not in err and "me:" not in err


def test_strict_nulls_leave_optional_arguments_out(capsys: pytest.CaptureFixture[str]) -> None:
    """With `--strict`, a null for an optional argument leaves it out of the request."""
    status, out, _ = call(capsys, SPEC, "listPets", "--strict",
                          "--args", '{"limit": null, "tag": null}')
    assert status == 0
    assert out.splitlines()[0] == f"GET {API}/pets"


def test_strict_encoded_values_are_decoded_once(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """With `--strict`, a JSON-encoded string value is decoded once: '"123"' stays a string."""
    spec = tmp_path / "any.json"
    spec.write_text(json.dumps(ANY_VALUE))
    arguments = json.dumps({"body": {"value": json.dumps("123")}})
    status, out, _ = call(capsys, str(spec), "putThing", "--strict", "--args", arguments,
                          "--base-url", "https://api.example.com")
    assert status == 0
    assert out.partition("\n\n")[2] == '{"value":"123"}\n'


def test_send_prints_the_answer_after_the_request(
    capsys: pytest.CaptureFixture[str], server: tuple[str, list[dict[str, Any]]]
) -> None:
    """`--send` sends the request once and prints `=> status` and the JSON answer."""
    url, seen = server
    status, out, _ = call(capsys, SPEC, "createPet", "--args", '{"body": {"name": "Rex"}}',
                          "--base-url", url, "--send", "--auth", "apiKey=k")
    request, _, answer = out.partition("\n=> ")
    assert status == 0
    assert request.splitlines()[0] == f"POST {url}/pets"
    assert answer.splitlines()[0] == "201"
    assert json.loads(answer.partition("\n")[2]) == {"method": "POST", "path": "/pets"}
    assert [(r["method"], r["path"], r["body"]) for r in seen] == [
        ("POST", "/pets", '{"name":"Rex"}')]


def test_without_send_nothing_is_sent(
    capsys: pytest.CaptureFixture[str], server: tuple[str, list[dict[str, Any]]]
) -> None:
    """Without `--send` the request is printed and never sent."""
    url, seen = server
    status, out, _ = call(capsys, SPEC, "deletePet", "--args", '{"petId": 3}', "--base-url", url)
    assert status == 0 and out.splitlines()[0] == f"DELETE {url}/pets/3"
    assert seen == []


def test_send_failure_exits_with_one_line(capsys: pytest.CaptureFixture[str]) -> None:
    """`--send` to a closed port exits 1 with one transport error line after the request."""
    url = f"http://127.0.0.1:{closed_port()}"
    status, out, err = call(capsys, SPEC, "getPet", "--args", '{"petId": 1}',
                            "--base-url", url, "--send", "--auth", "apiKey=k")
    assert status == 1
    assert out.splitlines()[0] == f"GET {url}/pets/1"
    assert err.count("\n") == 1 and "ConnectError" in err


def test_send_without_credentials_exits_naming_the_scheme(
    capsys: pytest.CaptureFixture[str], server: tuple[str, list[dict[str, Any]]]
) -> None:
    """`--send` for a secured operation without `--auth` exits 1 naming the scheme; nothing
    is sent."""
    url, seen = server
    status, _, err = call(capsys, SPEC, "getPet", "--args", '{"petId": 1}',
                          "--base-url", url, "--send")
    assert status == 1 and seen == []
    assert err.count("\n") == 1 and '"apiKey" (apiKey in header X-Api-Key)' in err


def test_args_is_required(capsys: pytest.CaptureFixture[str]) -> None:
    """`call` without `--args` is a usage error (exit status 2)."""
    with pytest.raises(SystemExit) as exit_:
        main(["call", SPEC, "listPets"])
    assert exit_.value.code == 2
    assert "--args" in capsys.readouterr().err


def test_send_without_credentials_names_only_flags_there_are(
        capsys: pytest.CaptureFixture[str]) -> None:
    """--send for a secured operation without --auth exits 1 with one line asking for
    --auth, offering no flag the command line lacks (no '--auth False')."""
    status, out, err = call(capsys, SPEC, "createPet", "--args", '{"body": {"name": "Rex"}}',
                            "--send", "--base-url", "http://127.0.0.1:9")
    assert (status, out) == (1, "")
    assert err.count("\n") == 1 and "pass --auth SCHEME=VALUE with one of" in err
    assert "False" not in err and "require_auth" not in err


def test_a_short_credential_is_masked_where_it_is_placed_only(
        capsys: pytest.CaptureFixture[str]) -> None:
    """`--auth apiKey=x` masks the X-Api-Key header's value, not every "x" of the request
    (it printed `[redacted]-api-key: [redacted]`); `--auth apiKey=Rex` leaves the body's
    "Rex" readable (it printed `{"name":"[redacted]"}`): the preview is the user's own call."""
    status, out, _ = call(capsys, SPEC, "createPet", "--args", '{"body": {"name": "Rex"}}',
                          "--auth", "apiKey=x")
    assert status == 0
    assert "x-api-key: [redacted]" in out.splitlines()
    _, out, _ = call(capsys, SPEC, "createPet", "--args", '{"body": {"name": "Rex"}}',
                     "--auth", "apiKey=Rex")
    head, _, body = out.partition("\n\n")
    assert "x-api-key: [redacted]" in head.splitlines()
    assert body == '{"name":"Rex"}\n'


def test_a_short_credential_echoed_in_the_answer_is_masked_alone_only(
        capsys: pytest.CaptureFixture[str], server: tuple[str, list[dict[str, Any]]]) -> None:
    """`--auth apiKey=x --send`: the API echoing its query string shows the lone `x` (an
    echo of the key) masked, not the `x` of `x-ray` (it showed `[redacted]-ray`)."""
    url, seen = server
    status, out, _ = call(capsys, SPEC, "listPets", "--args", '{"tag": ["x-ray", "x"]}',
                          "--auth", "apiKey=x", "--send", "--base-url", url)
    assert status == 0 and seen[0]["headers"]["x-api-key"] == "x"
    answer = json.loads(out.partition("=> 201\n")[2])
    assert answer == {"method": "GET", "path": "/pets?tag=x-ray&tag=[redacted]"}


def test_a_long_credential_is_masked_wherever_it_shows(
        capsys: pytest.CaptureFixture[str]) -> None:
    """A credential of 8 characters or more is masked in the body of the preview too (it
    cannot be there by chance)."""
    key = "k-1234567890"
    _, out, _ = call(capsys, SPEC, "createPet", "--args",
                     json.dumps({"body": {"name": key}}), "--auth", f"apiKey={key}")
    assert key not in out and '{"name":"[redacted]"}' in out


def test_a_scheme_with_a_bad_header_name_is_never_previewed(
        capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    """An apiKey scheme named `X-K\\r\\nInjected: 1` fails its operation at compile: `call`
    exits 1 with one line and prints no spoofed `injected: 1` header line."""
    doc = {"openapi": "3.1.0", "info": {"title": "t", "version": "1"},
           "servers": [{"url": API}],
           "components": {"securitySchemes": {
               "k": {"type": "apiKey", "in": "header", "name": "X-K\r\nInjected: 1"}}},
           "paths": {"/a": {"get": {"operationId": "getA", "security": [{"k": []}],
                                    "responses": {"200": {"description": "ok"}}}}}}
    spec = tmp_path / "bad.json"
    spec.write_text(json.dumps(doc))
    status, out, err = call(capsys, str(spec), "getA", "--args", "{}", "--auth", "k=x")
    assert status == 1 and out == ""
    assert err.count("\n") == 1 and "no function named 'getA'" in err
    assert "injected" not in (out + err).lower()


@pytest.mark.parametrize(("argv", "message"), [
    (["--auth", "apiKey=x", "--auth", "apiKey=y"],
     "--auth apiKey=... is given twice; give each name once"),
    (["--auth", "apiKey="], "--auth apiKey=...: the credential is empty"),
    (["--auth", "apiKey=a\nb"],
     "--auth apiKey=...: the credential holds a CR, LF or NUL character, which no request "
     "can carry"),
    (["--auth", "apiKey=x", "--auth-env", "apiKey=HTTPLLM_TEST_KEY"],
     "--auth-env apiKey=...: 'apiKey' is also given by --auth; give each scheme once"),
    (["--auth-env", "apiKey=HTTPLLM_TEST_EMPTY"],
     "--auth-env apiKey=...: the environment variable HTTPLLM_TEST_EMPTY is empty"),
    (["--host-arg", "a=1", "--host-arg", "a=2"],
     "--host-arg a=... is given twice; give each name once"),
])
def test_auth_misuse_is_one_line_exit_2(capsys: pytest.CaptureFixture[str],
                                        monkeypatch: pytest.MonkeyPatch,
                                        argv: list[str], message: str) -> None:
    """A scheme given twice, an empty credential and one with a line break exit 2 with one
    line naming the flag (they were kept silently, sent empty, or refused at send with exit
    1 and no flag named); the credential itself is never printed."""
    monkeypatch.setenv("HTTPLLM_TEST_KEY", "k")
    monkeypatch.setenv("HTTPLLM_TEST_EMPTY", "")
    status, out, err = call(capsys, SPEC, "listPets", "--args", "{}", *argv)
    assert (status, out, err) == (2, "", f"httpllm call: error: {message}\n")


@pytest.mark.parametrize("url", ["file:///etc/passwd", "not a url"])
def test_a_base_url_that_is_not_absolute_http_exits_2(capsys: pytest.CaptureFixture[str],
                                                      url: str) -> None:
    """`--base-url file:///etc/passwd` exits 2 with one line naming --base-url (it exited 1
    saying the server URL "is relative; pass base_url=...")."""
    with pytest.raises(SystemExit) as exit_:
        main(["call", SPEC, "listPets", "--args", "{}", "--auth", "apiKey=k",
              "--base-url", url])
    out, err = capsys.readouterr()
    assert (exit_.value.code, out) == (2, "")
    assert err == (f"httpllm call: error: argument --base-url: {url!r} is "
                   "not an absolute http(s) URL (such as "
                   "https://api.example.com/v1)\n")
