"""The command line over every failure a new user met: each ends with the documented exit
status and one clear line on stderr (or the summary), never a traceback, and speaks in
flags rather than Python option names."""

from __future__ import annotations

import io
import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from httpllm.cli import main

ROOT = Path(__file__).resolve().parents[2]
PETSTORE = str(ROOT / "specs" / "petstore-3.0.yaml")
PYTHON_OPTION = re.compile(r"\b(allow_outside_root|allow_network|unroll|reference|include|"
                           r"exclude|collapse_deep|strip_constraints)=")


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    """``(status, stdout, stderr)`` of the command, usage errors included."""
    try:
        status = main(list(argv))
    except SystemExit as exc:  # argparse's usage errors
        status = int(exc.code or 0)
    out, err = capsys.readouterr()
    assert "Traceback" not in err
    assert not PYTHON_OPTION.search(err), err
    return status, out, err


def lines(text: str) -> list[str]:
    return [line for line in text.splitlines() if line.strip()]


@pytest.fixture
def library(tmp_path: Path) -> Path:
    """A document with a referenced file that is missing, a NaN default, a duplicate
    operationId and a Basic security scheme."""
    doc = tmp_path / "api.yaml"
    doc.write_text("""
openapi: 3.0.3
info: {title: t, version: "1"}
servers:
  - url: "https://{region}.example.com/v1"
    variables: {region: {default: eu, enum: [eu, us]}}
components:
  securitySchemes:
    basicAuth: {type: http, scheme: basic}
security: [{basicAuth: []}]
paths:
  /a:
    get:
      operationId: getA
      parameters:
        - {name: q, in: query, schema: {type: number, default: .nan}}
      responses: {"200": {description: ok}}
  /b:
    post:
      operationId: getA
      requestBody:
        content:
          application/json:
            schema: {$ref: "./nothere.yaml#/Thing"}
      responses: {"200": {description: ok}}
""")
    return doc


def test_unwritable_output_is_one_line(capsys: pytest.CaptureFixture[str]) -> None:
    """`-o` into a folder that does not exist exits 1 naming the flag and the file."""
    status, _, err = run(capsys, "compile", PETSTORE, "-o", "/nonexistent/dir/out.json")
    assert status == 1
    assert lines(err) == ["httpllm: error: cannot write --output /nonexistent/dir/out.json: "
                          "No such file or directory"]


def test_output_onto_the_document_itself_is_refused(capsys: pytest.CaptureFixture[str],
                                                     tmp_path: Path) -> None:
    """`compile api.yaml -o api.yaml` (or another name of the same file) replaced the
    document with its tools; it exits 2 and leaves the document as it was."""
    doc = tmp_path / "api.yaml"
    text = Path(PETSTORE).read_text()
    doc.write_text(text)
    (tmp_path / "link.yaml").symlink_to(doc)
    for target in (str(doc), str(tmp_path / "." / "link.yaml")):
        status, out, err = run(capsys, "compile", str(doc), "-o", target)
        assert (status, out) == (2, "")
        assert lines(err) == [f"httpllm compile: error: -o {target} is the document SPEC "
                              "itself: writing the tools there would replace it; name "
                              "another file"]
    assert doc.read_text() == text
    status, _, _ = run(capsys, "compile", str(doc), "-o", str(tmp_path / "tools.json"))
    assert status == 0 and json.loads((tmp_path / "tools.json").read_text())


@pytest.mark.parametrize(("argv", "flag"), [
    (["--envelope", "bogus"], "--envelope"),
    (["--unroll", "-1"], "--unroll"),
    (["--max-depth", "x"], "--max-depth"),
    (["--provider", "gemini", "--strict"], "--strict"),
    (["--provider", "mistral", "--envelope", "responses"], "--envelope"),
    (["--examples", "bogus"], "--examples"),
    (["--fail-on", "nothing"], "--fail-on"),
    (["--provider", "nosuch"], "--provider"),
    (["--root", "/no/such/folder"], "--root"),
    (["--root", ""], "--root"),
    (["--root", PETSTORE], "--root"),
    (["--document-url", "not a url"], "--document-url"),
    (["--document-url", ""], "--document-url"),
    (["--document-url", "http://[::1/o.json"], "--document-url"),
    (["--document-url", "https://x.example:99999/o.json"], "--document-url"),
    (["--document-url", "file:///etc/openapi.json"], "--document-url"),
    (["--document-url", "https://me:secret@x.example/o.json"], "--document-url"),
    (["--include", ""], "--include"),
    (["--exclude", "  "], "--exclude"),
])
def test_bad_option_values_are_usage_errors(capsys: pytest.CaptureFixture[str],
                                            argv: list[str], flag: str) -> None:
    """A value a flag cannot take exits 2 with one line naming the flag once (a folder
    that is none, a document URL that is no absolute http(s) URL: once exit 1 or a bug
    line, or taken silently)."""
    status, out, err = run(capsys, "compile", PETSTORE, *argv)
    assert status == 2 and out == ""
    assert len(lines(err)) == 1 and err.count(flag) == 1, err
    assert "secret" not in err


def test_empty_selection_says_why_and_exits_3(capsys: pytest.CaptureFixture[str]) -> None:
    """`--include` matching nothing prints `[]`, says no operation matched, exits 3."""
    status, out, err = run(capsys, "compile", PETSTORE, "--include", "tag:nosuch")
    assert status == 3 and json.loads(out) == []
    assert "no operation of the document's 4 matched --include/--exclude" in err


def test_webhooks_only_document_says_so(capsys: pytest.CaptureFixture[str],
                                        tmp_path: Path) -> None:
    """A document with webhooks and no paths gives no tools and says why (exit 3)."""
    doc = tmp_path / "hooks.yaml"
    doc.write_text("openapi: 3.1.0\ninfo: {title: t, version: '1'}\nwebhooks:\n"
                   "  ping: {post: {responses: {'200': {description: ok}}}}\n")
    status, _, err = run(capsys, "compile", str(doc))
    assert status == 3 and "no operations under paths" in err


def test_partial_result_has_a_summary_and_fail_on(capsys: pytest.CaptureFixture[str],
                                                  library: Path) -> None:
    """A skipped operation is named with the missing file, the summary counts it, and
    `--fail-on skipped` turns it into exit 3."""
    status, _, err = run(capsys, "compile", str(library))
    assert status == 0
    assert "nothere.yaml" in err
    assert re.search(r"httpllm: 1 tool for chatgpt; 1 operation skipped \(LoadError 1\)", err)
    status, _, err = run(capsys, "compile", str(library), "--fail-on", "skipped")
    assert status == 3 and "--fail-on: 1 skipped" in err


def test_quiet_silences_and_verbose_lists(capsys: pytest.CaptureFixture[str],
                                          library: Path) -> None:
    """`-q` prints nothing but output; `-v` gives each skipped operation its pointer."""
    _, out, err = run(capsys, "compile", str(library), "-q")
    assert out and "skipped" not in err and "tool" not in err
    _, _, err = run(capsys, "compile", str(library), "-v")
    assert "#/paths/~1b/post/requestBody" in err


def test_nan_is_never_written_bare(capsys: pytest.CaptureFixture[str], library: Path) -> None:
    """A `.nan` default is no number: it leaves the tool (not even as `null`), and the
    loss report names where it was."""
    _, out, err = run(capsys, "compile", str(library))
    tool = json.loads(out)[0]  # strict JSON: no NaN
    assert "default" not in tool["function"]["parameters"]["properties"]["q"]
    assert "null" not in err
    _, out, _ = run(capsys, "compile", str(library), "--losses")
    [loss] = [x for x in json.loads(out) if x["keyword"] == "default"]
    assert loss["pointer"].endswith("/parameters/0/schema/default") and loss["value"] == "NaN"


def test_unknown_function_lists_close_matches(capsys: pytest.CaptureFixture[str]) -> None:
    """A misspelt function name exits 1 and suggests the closest names."""
    status, _, err = run(capsys, "call", PETSTORE, "listPet", "--args", "{}")
    assert status == 1 and "did you mean 'listPets'" in err and len(lines(err)) == 1


def test_outside_folder_message_names_the_flag(capsys: pytest.CaptureFixture[str],
                                               tmp_path: Path) -> None:
    """A `$ref` outside the document's folder is reported with `--allow-outside-root`."""
    (tmp_path / "outside.yaml").write_text("Thing: {type: string}\n")
    api = tmp_path / "api"
    api.mkdir()
    (api / "api.yaml").write_text("""
openapi: 3.0.3
info: {title: t, version: "1"}
paths:
  /a:
    post:
      operationId: postA
      requestBody: {content: {application/json: {schema: {$ref: "../outside.yaml#/Thing"}}}}
      responses: {"200": {description: ok}}
""")
    _, _, err = run(capsys, "compile", str(api / "api.yaml"))
    assert "--allow-outside-root" in err


def test_basic_auth_and_masking(capsys: pytest.CaptureFixture[str], library: Path) -> None:
    """`--auth SCHEME=user:password` sends HTTP Basic, and the printed request masks it."""
    status, out, _ = run(capsys, "call", str(library), "getA", "--args", "{}",
                         "--auth", "basicAuth=alice:s3cret", "--server-var", "region=us")
    assert status == 0
    assert "https://us.example.com/v1/a" in out
    assert "authorization: basic [redacted]" in out.lower() and "s3cret" not in out
    assert "YWxpY2U6czNjcmV0" not in out  # base64("alice:s3cret")


def test_a_dry_run_without_credentials_says_what_send_needs(
        capsys: pytest.CaptureFixture[str], library: Path) -> None:
    """`call` without --send still prints the request when credentials are missing, and
    a note names the scheme --send would need, in flags (not Python option names)."""
    status, out, err = run(capsys, "call", str(library), "getA", "--args", "{}")
    assert status == 0 and out.startswith("GET https://eu.example.com/v1/a")
    assert err.count("\n") == 1 and "--send would stop, as getA needs credentials" in err
    assert 'pass --auth SCHEME=VALUE with one of: "basicAuth" (http basic) (none given)' in err
    assert "auth=" not in err.replace("--auth", "") and "require_auth" not in err


def test_an_unknown_server_variable_is_a_usage_error(capsys: pytest.CaptureFixture[str],
                                                     library: Path) -> None:
    """`--server-var` naming no variable of the server (a typo) exits 2 with one line
    listing the server's variables, instead of being ignored."""
    status, out, err = run(capsys, "call", str(library), "getA", "--args", "{}",
                           "--auth", "basicAuth=alice:s3cret", "--server-var", "regoin=us")
    assert (status, out) == (2, "") and len(lines(err)) == 1
    assert "--server-var regoin=..." in err and "(it has: region)" in err


@pytest.mark.parametrize("value", ["region=mars", "region=us/../x?y"])
def test_a_server_value_the_server_refuses_is_a_usage_error(
        capsys: pytest.CaptureFixture[str], library: Path, value: str) -> None:
    """`--server-var` with a value off its enum exits 2 with one line naming the flag, as
    every value a flag cannot take (it exited 1, as an unusable document does)."""
    status, out, err = run(capsys, "call", str(library), "getA", "--args", "{}",
                           "--server-var", value)
    assert (status, out) == (2, "") and len(lines(err)) == 1
    assert err.startswith("httpllm call: error: --server-var: server variable {region} is ")
    assert "expected one of 'eu', 'us' (its enum)" in err


def test_basic_auth_without_password_is_a_usage_error(capsys: pytest.CaptureFixture[str],
                                                      library: Path) -> None:
    """A Basic credential without a colon exits 2 saying USER:PASSWORD."""
    status, _, err = run(capsys, "call", str(library), "getA", "--args", "{}",
                         "--auth", "basicAuth=alice")
    assert status == 2 and "USER:PASSWORD" in err


def test_auth_env_reads_the_variable(capsys: pytest.CaptureFixture[str], library: Path,
                                     monkeypatch: pytest.MonkeyPatch) -> None:
    """`--auth-env` takes the credential from the environment; an unset one exits 2."""
    monkeypatch.setenv("API_BASIC", "bob:pw")
    status, out, _ = run(capsys, "call", str(library), "getA", "--args", "{}",
                         "--auth-env", "basicAuth=API_BASIC")
    assert status == 0 and "authorization: basic [redacted]" in out.lower()
    status, _, err = run(capsys, "call", str(library), "getA", "--args", "{}",
                         "--auth-env", "basicAuth=NOT_SET_ANYWHERE")
    assert status == 2 and "NOT_SET_ANYWHERE" in err


def test_inspect_lists_security_and_servers(capsys: pytest.CaptureFixture[str],
                                            library: Path) -> None:
    """`inspect` names each security scheme with the flag to pass, and each server with
    its variables; `--json` gives the same as one object."""
    _, out, _ = run(capsys, "inspect", str(library))
    assert "--auth basicAuth=USER:PASSWORD" in out
    assert "https://{region}.example.com/v1" in out and "region=eu" in out
    _, out, _ = run(capsys, "inspect", str(library), "--json")
    data = json.loads(out)
    assert data["security_schemes"]["basicAuth"]["scheme"] == "basic"
    assert data["servers"][0]["variables"] == {"region": "eu"}


def test_document_from_stdin(capsys: pytest.CaptureFixture[str],
                             monkeypatch: pytest.MonkeyPatch) -> None:
    """`-` reads the document from standard input."""
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(Path(PETSTORE).read_bytes())))
    status, out, _ = run(capsys, "compile", "-", "--provider", "claude")
    assert status == 0 and json.loads(out)[0]["name"] == "listPets"


@pytest.mark.parametrize(("data", "message"), [
    (b"", "<stdin>#: expected an OpenAPI object at the top, got an empty document"),
    (b"{{{", "<stdin>: not valid JSON or YAML at line 2, column 1: did not find expected "
             "node content")])
def test_a_document_from_stdin_is_named_stdin(data: bytes, message: str,
                                              capsys: pytest.CaptureFixture[str],
                                              monkeypatch: pytest.MonkeyPatch) -> None:
    """An unreadable document given as ``-`` was named ``<bytes>`` (what the loader was
    handed), a name the user never gave: it is ``<stdin>``."""
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(data)))
    status, _, err = run(capsys, "compile", "-")
    assert (status, err) == (1, f"httpllm: error: {message}\n")


def test_stdin_document_with_path_item_refs_names_its_path(
        capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    """A split document (path items as ``$ref``s to files beside it) read from ``-``: the
    line counting what was cut said "2 of 0 operations" and blamed a settings file no flag
    reads, then "the document has no operations under paths"; it counts the path items and
    says to name the document by its path."""
    document = {"openapi": "3.0.3", "info": {"title": "t", "version": "1"},
                "paths": {"/a": {"$ref": "paths/a.yaml"}, "/b": {"$ref": "paths/b.yaml"}}}
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(json.dumps(document).encode())))
    status, out, err = run(capsys, "compile", "-")
    assert status == 3 and json.loads(out) == []
    assert lines(err)[1:] == [
        "httpllm: 2 of 2 operations skipped because a $ref names a file beside the document, "
        "which was read from standard input (or given as text): name the document by its "
        "path instead (exit 3)",
        "httpllm: no tools: every selected operation was skipped (2)",
        "httpllm: 0 tools for chatgpt; 2 operations skipped (AccessDenied 2); 3 B to stdout"]


@pytest.mark.parametrize("argv", [["lint", "-"], ["inspect", "-", "--budget"]])
def test_commands_that_compile_twice_read_stdin_once(
        argv: list[str], capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    """`lint -` and `inspect - --budget` (which compile again in strict mode) use the
    document read from standard input both times."""
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(Path(PETSTORE).read_bytes())))
    status, out, err = run(capsys, *argv)
    assert (status, err) == (0, "")
    assert "listPets" in out or out.endswith("findings\n")


def test_separate_keeps_an_argument_from_the_model(capsys: pytest.CaptureFixture[str]) -> None:
    """`--separate` hides an argument from the tool, `--host-arg` supplies it on call."""
    _, out, _ = run(capsys, "compile", PETSTORE, "--separate", "query:limit")
    tools = {t["function"]["name"]: t for t in json.loads(out)}
    assert "limit" not in tools["listPets"]["function"]["parameters"].get("properties", {})
    status, out, _ = run(capsys, "call", PETSTORE, "listPets", "--args", "{}",
                         "--separate", "limit", "--host-arg", "limit=7")
    assert status == 0 and "limit=7" in out


def test_version(capsys: pytest.CaptureFixture[str]) -> None:
    """`--version` prints the version and exits 0."""
    import httpllm

    status, out, _ = run(capsys, "--version")
    assert status == 0 and out.strip() == f"httpllm {httpllm.__version__}"


def test_send_exits_4_on_a_non_2xx_answer(capsys: pytest.CaptureFixture[str],
                                          tmp_path: Path) -> None:
    """`call --send` exits 4 when the API answers 404, after printing the answer."""
    import threading
    from http.server import BaseHTTPRequestHandler, HTTPServer

    class NotFound(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            self.send_response(404)
            self.send_header("content-type", "application/json")
            self.end_headers()
            self.wfile.write(b'{"error": "no such pet"}')

        def log_message(self, *args: object) -> None:
            pass

    server = HTTPServer(("127.0.0.1", 0), NotFound)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        status, out, err = run(capsys, "call", PETSTORE, "getPet", "--args", '{"petId": 1}',
                               "--base-url", f"http://127.0.0.1:{server.server_port}",
                               "--auth", "apiKey=k", "--send")
    finally:
        server.shutdown()
    assert status == 4 and "=> 404" in out and "no such pet" in out
    assert lines(err) == ["httpllm: the API answered 404 (exit 4)"]


def test_no_traceback_from_the_real_command(tmp_path: Path) -> None:
    """The installed entry point, run as a process, fails in one line on a bad file."""
    bad = tmp_path / "bad.yaml"
    bad.write_text("openapi: [unclosed\n")
    run_ = subprocess.run([sys.executable, "-m", "httpllm", "compile", str(bad)],
                          capture_output=True, text=True, check=False)
    assert run_.returncode == 1
    assert len(lines(run_.stderr)) == 1 and "Traceback" not in run_.stderr


def test_a_root_that_does_not_hold_the_document_names_the_flag_once(
        capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    """`--root` naming a missing folder exits 2 (a usage error), one that does not hold
    the document exits 1; either with one line naming --root once."""
    for root, status_of in ((tmp_path / "missing", 2), (tmp_path, 1)):
        status, _, err = run(capsys, "compile", PETSTORE, "--root", str(root), "-q")
        assert status == status_of and len(lines(err)) == 1
        assert err.count("--root") == 1 and "root=" not in err


DIGEST = """
openapi: 3.0.3
info: {title: t, version: "1"}
servers: [{url: "https://api.example.com"}]
components:
  securitySchemes:
    weird: {type: http, scheme: digest}
    tls: {type: mutualTLS}
    key: {type: apiKey, in: header, name: X-Key}
paths:
  /a:
    get:
      operationId: getA
      security: [{weird: []}, {tls: []}, {key: []}]
      responses: {"200": {description: ok}}
"""


def test_schemes_no_flag_can_carry_are_said_so(capsys: pytest.CaptureFixture[str],
                                               tmp_path: Path) -> None:
    """`inspect` offers `--auth NAME=...` only for schemes a flag can carry; `--auth` for
    HTTP Digest or mutual TLS exits 2 saying what to do instead; a name no operation
    requires is said so (not "the document declares no ...")."""
    spec = tmp_path / "digest.yaml"
    spec.write_text(DIGEST)
    status, out, _ = run(capsys, "inspect", str(spec))
    assert status == 0
    assert "--auth key=KEY" in out and "--auth weird" not in out and "--auth tls" not in out
    assert out.count("(no flag: give the httpx client its auth in Python)") == 2
    for scheme, kind in (("weird", "HTTP digest"), ("tls", "mutualTLS")):
        status, _, err = run(capsys, "call", str(spec), "getA", "--args", "{}",
                             "--auth", f"{scheme}=x")
        assert status == 2 and len(lines(err)) == 1
        assert f"'{scheme}' is {kind}, whose credential cannot be given as text" in err
    status, _, err = run(capsys, "call", str(spec), "getA", "--args", "{}", "--auth", "nope=x")
    assert status == 2
    assert "no compiled operation requires a security scheme named 'nope'" in err
    assert "(they require: key, tls, weird;" in err


def test_a_scheme_required_but_never_defined_is_said_so(capsys: pytest.CaptureFixture[str],
                                                       tmp_path: Path) -> None:
    """`--auth` (and `serve --auth-header`) for a scheme the operations require but the
    document never defines says that, in one line; it said no operation requires it
    ("they require: none"), which was untrue."""
    spec = tmp_path / "undefined.yaml"
    spec.write_text("openapi: 3.0.3\ninfo: {title: t, version: '1'}\n"
                    "servers: [{url: 'https://a.example.com'}]\nsecurity: [{nosuch: []}]\n"
                    "paths: {/a: {get: {operationId: getA, responses: {'200': "
                    "{description: ok}}}}}\n")
    for argv in (("call", str(spec), "getA", "--args", "{}", "--auth", "nosuch=x"),
                 ("serve", str(spec), "--transport", "http", "--auth-header",
                  "nosuch=X-Key")):
        status, _, err = run(capsys, *argv)
        assert status == 2 and len(lines(err)) == 1
        assert "operations require a security scheme named 'nosuch', but the document " \
               "does not define it" in err


def test_separate_says_when_it_matches_nothing(capsys: pytest.CaptureFixture[str],
                                               tmp_path: Path) -> None:
    """A `--separate` selector that picks no argument is a warning naming it (it was
    silent); a name holding a colon that is not a location (`sess:id`) is a name."""
    spec = tmp_path / "cookie.yaml"
    spec.write_text("""
openapi: 3.0.3
info: {title: t, version: "1"}
servers: [{url: "https://api.example.com"}]
paths:
  /a:
    get:
      operationId: getA
      parameters: [{name: "sess:id", in: query, schema: {type: string}}]
      responses: {"200": {description: ok}}
""")
    status, out, err = run(capsys, "compile", str(spec), "--separate", "sess:id",
                           "--separate", "nosuch")
    assert status == 0 and "sess:id" not in out
    assert lines(err)[0] == ("httpllm: warning: --separate nosuch matched no argument (name it "
                             "as the document does, optionally after path:, query:, header: "
                             "or cookie:)")
    assert "sess:id matched" not in err


def test_an_unroll_too_deep_names_the_flag(capsys: pytest.CaptureFixture[str],
                                           tmp_path: Path) -> None:
    """A recursive schema unrolled past the node limit is skipped saying to pass a smaller
    --unroll K: it said "pass a smaller unroll", the Python option's name."""
    spec = tmp_path / "tree.yaml"
    spec.write_text("""
openapi: 3.0.3
info: {title: t, version: "1"}
components:
  schemas:
    Node: {type: object, properties: {l: {$ref: "#/components/schemas/Node"},
                                      r: {$ref: "#/components/schemas/Node"}}}
paths:
  /a:
    post:
      operationId: a
      requestBody: {content: {application/json: {schema: {$ref: "#/components/schemas/Node"}}}}
      responses: {"200": {description: ok}}
""")
    status, _, err = run(capsys, "compile", str(spec), "-p", "gemini", "--unroll", "30")
    assert status == 3 and "pass a smaller --unroll K" in err and "smaller unroll" not in err


@pytest.mark.parametrize("argv", [
    ("search", PETSTORE, "pets", "--method", "get"),
    ("compile", PETSTORE, "--bogus"),
    ("inspect", PETSTORE, "extra"),
])
def test_an_unknown_argument_names_the_subcommand(capsys: pytest.CaptureFixture[str],
                                                  argv: tuple[str, ...]) -> None:
    """An argument the subcommand does not know is its usage error, as its others: it was
    ``httpllm: error: unrecognized arguments: ...``, naming no command."""
    status, out, err = run(capsys, *argv)
    assert (status, out) == (2, "")
    assert err.splitlines() == [f"httpllm {argv[0]}: error: unrecognized arguments: "
                                + " ".join(a for a in argv[3 if argv[0] == "search" else 2:])]


@pytest.mark.parametrize("argv", [
    ("compile", PETSTORE, "extra\nhttpllm: serving 9 tools over stdio"),
    ("search", PETSTORE, "pets", "x\u2028y"),
])
def test_a_usage_error_quoting_an_argument_is_one_line(
        capsys: pytest.CaptureFixture[str], argv: tuple[str, ...]) -> None:
    """argparse quotes an argument it does not know as given: one holding a line break
    printed a line of its own (a fake ``httpllm: serving ...``); it is shown escaped."""
    status, out, err = run(capsys, *argv)
    assert (status, out) == (2, "")
    assert err.splitlines() == [f"httpllm {argv[0]}: error: unrecognized arguments: "
                                + argv[-1].replace("\n", "\\n").replace("\u2028", "\\u2028")]


def test_an_error_quoting_the_document_is_one_whole_line(
        capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    """A usage error that lists the document's tags shows a tag's line break escaped and
    the message whole: it was cut at the break, ``(tags: t`` and nothing more."""
    forged = "httpllm: serving 9 tools over stdio"
    doc = tmp_path / "api.json"
    doc.write_text(json.dumps({
        "openapi": "3.0.3", "info": {"title": "t", "version": "1"},
        "paths": {"/a": {"get": {"operationId": "ga", "tags": ["t\n" + forged],
                                 "responses": {"200": {"description": "ok"}}}}}}))
    status, _, err = run(capsys, "search", str(doc), "pets", "--tag", "nosuch")
    assert status == 2
    assert err.splitlines() == [f"httpllm search: error: --tag nosuch: no operation has the "
                                f"tag 'nosuch' (tags: t\\n{forged})"]
