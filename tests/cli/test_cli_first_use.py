"""What a new user hit first (issue 26): a URL as SPEC, warnings that say what was done
and what to do, and one exit status and wording for one mistake on every command. Each
test asserts the exit status and the one line the user reads."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from execute.conftest import live_server
from loopback import running
from starlette.staticfiles import StaticFiles

import httpllm
from httpllm.cli import main
from httpllm.errors import AccessDenied, LimitExceeded
from httpllm.load import Limits

ROOT = Path(__file__).resolve().parents[2]
PETSTORE = str(ROOT / "specs" / "petstore-3.0.yaml")

__all__ = ["live_server"]  # the echo server, a fixture of tests/execute

SPLIT = """
openapi: 3.0.3
info: {title: split, version: "1"}
servers: [{url: /v1}]
paths:
  /things:
    post:
      operationId: addThing
      requestBody:
        content: {application/json: {schema: {$ref: "schemas/thing.yaml"}}}
      responses: {"200": {description: ok}}
"""


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, list[str]]:
    """``(status, stdout, stderr lines)`` of the command, usage errors included."""
    try:
        status = main(list(argv))
    except SystemExit as exc:  # argparse's usage errors
        status = int(exc.code or 0)
    out, err = capsys.readouterr()
    assert "Traceback" not in err
    return status, out, [line for line in err.splitlines() if line.strip()]


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A folder served over HTTP on 127.0.0.1: the petstore, and a document whose body
    schema is a file beside it and whose server is relative."""
    folder = tmp_path_factory.mktemp("site")
    (folder / "petstore-3.0.yaml").write_bytes(Path(PETSTORE).read_bytes())
    (folder / "split.yaml").write_text(SPLIT)
    (folder / "schemas").mkdir()
    (folder / "schemas" / "thing.yaml").write_text(
        "{type: object, required: [name], properties: {name: {type: string}}}")
    with running(StaticFiles(directory=folder), lifespan="off") as url:
        yield url


# --- a URL as SPEC ------------------------------------------------------------------------

def test_url_spec_without_allow_network_says_so(capsys: pytest.CaptureFixture[str],
                                                 site: str) -> None:
    """A URL without --allow-network exits 1 with the URL unmangled and the flag named."""
    url = f"{site}/petstore-3.0.yaml"
    status, _, err = run(capsys, "compile", url)
    assert status == 1
    assert err == [f"httpllm: error: {url} is a URL: reading the document from it needs the "
                   "network (pass --allow-network, or download it and give its path)"]


def test_url_spec_is_fetched_with_allow_network(capsys: pytest.CaptureFixture[str],
                                                site: str) -> None:
    """With --allow-network the document at the URL compiles."""
    status, out, err = run(capsys, "compile", f"{site}/petstore-3.0.yaml", "--allow-network",
                           "-p", "claude")
    assert status == 0 and err[-1].startswith("httpllm: 4 tools for claude;")
    assert "createPet" in out


def test_url_spec_refs_and_servers_resolve_against_it(capsys: pytest.CaptureFixture[str],
                                                      site: str) -> None:
    """A fetched document's relative `$ref` is read beside it, and its relative server is
    resolved against its URL (the default --document-url)."""
    status, out, err = run(capsys, "call", f"{site}/split.yaml", "addThing", "--allow-network",
                           "--args", '{"body": {"name": "x"}}')
    assert status == 0, err
    assert out.splitlines()[0] == f"POST {site}/v1/things"
    status, _, err = run(capsys, "call", f"{site}/split.yaml", "addThing", "--allow-network",
                         "--args", '{"body": {"name": 5}}')
    assert status == 1 and "body/name: expected a string" in "\n".join(err)


def test_url_spec_from_python(site: str) -> None:
    """`compile(URL)` is AccessDenied without allow_network, compiles with it, and keeps
    the loader's size limit."""
    url = f"{site}/petstore-3.0.yaml"
    with pytest.raises(AccessDenied, match=r"is a URL: .* \(pass allow_network=True"):
        httpllm.compile(url)
    assert len(httpllm.compile(url, allow_network=True).functions) == 4
    with pytest.raises(LimitExceeded, match="larger than 100 bytes"):
        httpllm.compile(url, allow_network=True, limits=Limits(max_bytes=100))


def test_missing_url_is_one_line(capsys: pytest.CaptureFixture[str], site: str) -> None:
    """A URL that answers 404 exits 1 naming the URL."""
    status, _, err = run(capsys, "compile", f"{site}/nothere.yaml", "--allow-network")
    assert status == 1 and len(err) == 1
    assert err[0].startswith(f"httpllm: error: {site}/nothere.yaml: cannot fetch")


# --- warnings that say what was done and what to do -------------------------------------

def _big(path: Path) -> Path:
    """Three operations whose body inlines to about 5,900 schema nodes (limit 5,000)."""
    leaf = {"type": "object", "properties": {f"c{i}": {"type": "string"} for i in range(40)}}
    middle = {"type": "object",
              "properties": {f"b{i}": {"$ref": "#/components/schemas/C"} for i in range(12)}}
    top = {"type": "object",
           "properties": {f"a{i}": {"$ref": "#/components/schemas/B"} for i in range(12)}}
    body = {"content": {"application/json": {"schema": {"$ref": "#/components/schemas/A"}}}}
    def op(name: str) -> dict[str, Any]:
        return {"operationId": name, "requestBody": body,
                "responses": {"200": {"description": "ok"}}}
    path.write_text(json.dumps({
        "openapi": "3.0.3", "info": {"title": "big", "version": "1"},
        "paths": {"/a": {"post": op("postA"), "put": op("putA")}, "/b": {"post": op("postB")}},
        "components": {"schemas": {"A": top, "B": middle, "C": leaf}}}))
    return path


def _many(path: Path, count: int, *, long: bool = False) -> Path:
    """``count`` GET operations, tagged in two halves; with ``long`` the first has an
    operationId of 83 characters and a description of 1,500."""
    paths = {f"/r{i}": {"get": {"operationId": f"get{i}", "tags": [f"t{i % 2}"],
                                "responses": {"200": {"description": "ok"}}}}
             for i in range(count)}
    if long:
        paths["/r0"]["get"].update(operationId="get" + "VeryLong" * 10, description="d" * 1500)
    path.write_text(json.dumps({"openapi": "3.0.3", "info": {"title": "m", "version": "1"},
                                "paths": paths}))
    return path


def _wide(path: Path, count: int = 40) -> Path:
    """``count`` operations whose body and answer are one schema of 80 described fields
    (about 8 kB): about 80,000 tokens of tools together, none too large alone."""
    thing = {"type": "object", "properties": {
        f"field{i}": {"type": "string", "description": f"The value of field {i} as the "
                      "service stores it, spelled as it is written."} for i in range(80)}}
    schema = {"content": {"application/json": {"schema": {"$ref": "#/components/schemas/T"}}}}
    path.write_text(json.dumps({
        "openapi": "3.0.3", "info": {"title": "wide", "version": "1"},
        "paths": {f"/things{i}": {"post": {
            "operationId": f"addThing{i}", "summary": f"Add thing {i}", "requestBody": schema,
            "responses": {"200": {"description": "ok", **schema}}}} for i in range(count)},
        "components": {"schemas": {"T": thing}}}))
    return path


LIST_SIZE = (r"the 40 tools take about [\d,]+ tokens \(0\.\d MB of "
             r"JSON; the largest, addThing0\) on every request, over 32,000 \(a quarter of a "
             r"128k-token context window\): send fewer with --include/--exclude, groups "
             r"\(httpllm toolsets\), or serve --mode discover")
"""The whole tool list's size warning, with its figures and the flags that send less."""


def test_a_tool_list_past_a_quarter_of_a_window_is_a_warning(
        capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    """40 tools of about 2,000 tokens each: `compile` warns once with the figures and the
    fixes (it said nothing, even with -v), and still writes the tools (exit 0)."""
    status, _, err = run(capsys, "compile", str(_wide(tmp_path / "wide.json")), "-o",
                         str(tmp_path / "out.json"))
    assert status == 0
    assert re.fullmatch("httpllm: warning: #/paths: " + LIST_SIZE, err[0]), err[0]
    assert err[1].startswith("httpllm: 40 tools for chatgpt; 1 warning;")


def _one(path: Path, parts: int) -> Path:
    """One operation whose description (which claude and mcp keep whole) holds ``parts``
    words: about 8 bytes each."""
    path.write_text(json.dumps({
        "openapi": "3.1.0", "info": {"title": "t", "version": "1"},
        "paths": {"/big": {"post": {"operationId": "bigOne", "responses": {
            "200": {"description": "ok"}},
            "description": " ".join(f"part{i}" for i in range(parts))}}}}))
    return path


TOO_LARGE = (r"one tool takes about [\d,]+ tokens as {dialect} gets it \(bigOne: [\d,]+ KiB of "
             r"JSON\), over 12,800 alone \(a tenth of a 128k-token context window\): leave it "
             r"out \(--exclude\), put it in a group of its own, or serve --mode discover")
"""One tool's size warning, with its figures and the ways to send it less often."""


def test_one_tool_too_large_alone_is_a_warning(capsys: pytest.CaptureFixture[str],
                                               tmp_path: Path) -> None:
    """A tool of 64 kB (about 16,000 tokens) is a warning naming it, its size as the
    provider gets it and the fixes, though the list (one tool) is under 32,000; exit 0."""
    status, _, err = run(capsys, "compile", str(_one(tmp_path / "one.json", 8_000)), "-p",
                         "claude", "-o", str(tmp_path / "out.json"))
    assert status == 0
    assert re.fullmatch("httpllm: warning: #/paths/~1big/post: "
                        + TOO_LARGE.format(dialect="claude"), err[0]), err[0]
    assert err[1].startswith("httpllm: 1 tool for claude; 1 warning;")


def test_one_tool_past_a_quarter_of_a_window_says_tool(
        capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    """One tool of 155 kB is "the 1 tool takes", never "the 1 tools take", then the tool's
    own warning."""
    status, _, err = run(capsys, "compile", str(_one(tmp_path / "one.json", 17_000)), "-p",
                         "claude", "-o", str(tmp_path / "out.json"))
    assert status == 0
    assert err[0].startswith("httpllm: warning: #/paths/~1big/post: one tool takes about "
                             "39,741 tokens as claude gets it (bigOne: 155 KiB of JSON)")
    assert err[1].startswith("httpllm: warning: #/paths: the 1 tool takes about 39,741 tokens ")
    assert err[2].startswith("httpllm: 1 tool for claude; 2 warnings;")


def test_serve_names_a_tool_too_large_alone(tmp_path: Path) -> None:
    """`serve` says on stderr that one tool alone is too large (it said only "serving")."""
    done = subprocess.run([sys.executable, "-m", "httpllm", "serve",
                           str(_one(tmp_path / "one.json", 8_000))],
                          input="", capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    first, *rest = done.stderr.splitlines()
    assert re.fullmatch("httpllm: warning: " + TOO_LARGE.format(dialect="mcp"), first), first
    assert rest == ["httpllm: serving 1 tool over stdio"]


def test_serve_says_how_large_the_listing_is_once(tmp_path: Path) -> None:
    """`serve` of the same 40 tools says on stderr how large they are (with
    --output-schemas off among the fixes), that auto leaves the output schemas out, then
    what it serves; every line is httpllm's (the server's own log no longer repeats the
    output-schema line unprefixed, in bytes)."""
    done = subprocess.run([sys.executable, "-m", "httpllm", "serve",
                           str(_wide(tmp_path / "wide.json"))],
                          input="", capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    lines = done.stderr.splitlines()
    assert re.fullmatch(f"httpllm: warning: {LIST_SIZE} or --output-schemas off", lines[0]), \
        lines[0]
    assert re.fullmatch(r"httpllm: output schemas left out: 0\.\d MiB for 40 tools \(auto "
                        r"lists up to 256 KiB, which clients compile in a few seconds\); "
                        r"answers are text; --output-schemas on lists them", lines[1]), lines[1]
    assert lines[2:] == ["httpllm: serving 40 tools over stdio"]


def test_grouped_warning_shows_figures_and_what_was_done(
        capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    """Warnings of one kind are one line: the first in full (its node count, the limit,
    what was done, in flags) and how many more are alike; never a literal N."""
    status, _, err = run(capsys, "compile", str(_big(tmp_path / "big.json")), "-o",
                         str(tmp_path / "out.json"))
    assert status == 0
    assert err[0] == ("httpllm: warning: #/paths/~1a/put: parameters would have 5,918 schema "
                      "nodes with every $ref inlined (limit 5,000): named schemas kept under "
                      "$defs, as with --reference (and 2 more like it; -v lists each)")
    assert err[1].startswith("httpllm: 3 tools for chatgpt; 3 warnings;")


def test_budget_names_and_descriptions_are_measured_as_sent(
        capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    """`inspect --budget` measures names and descriptions as the compile sends them (never
    OVER: they were shortened and cut) and says how many were."""
    status, out, _ = run(capsys, "inspect", str(_many(tmp_path / "long.json", 2, long=True)),
                         "--budget")
    assert status == 0
    name = next(line for line in out.splitlines() if "longest name" in line)
    described = next(line for line in out.splitlines() if "longest description" in line)
    assert name.startswith("  longest name (characters): 64 (limit 64); 1 longer "
                           "operationId shortened with a hash  (source: ")
    assert described.startswith("  longest description (characters): 1,024 (limit 1,024); "
                                "1 description cut to the limit (a loss entry keeps each)")
    assert "OVER" not in out


@pytest.mark.parametrize("flags", [("--group-by", "tag"), ("--defer",), ("--discover",)])
def test_tool_limit_warning_only_for_one_list(capsys: pytest.CaptureFixture[str],
                                              tmp_path: Path, flags: tuple[str, ...]) -> None:
    """The "exceeds chatgpt's limit of 128" warning shows for one list of 300 tools, not
    for groups (each at most 128 tools by default), deferred loading or the trio."""
    spec = str(_many(tmp_path / "many.json", 300))
    status, _, err = run(capsys, "compile", spec, "-o", str(tmp_path / "one.json"))
    assert status == 0
    assert err[0] == ("httpllm: warning: #/paths: 300 tools exceed chatgpt's limit of 128 per "
                      "request; select fewer with --include/--exclude")
    status, _, err = run(capsys, "compile", spec, *flags, "-o", str(tmp_path / "split"),
                         "--fail-on", "warning")
    assert status == 0 and len(err) == 1 and "warning:" not in err[0], err
    if flags[0] == "--group-by":
        index = json.loads((tmp_path / "split" / "_index.json").read_text())
        assert max(len(g["functions"]) for g in index["groups"]) <= 128


def test_refs_outside_the_folder_name_root_and_exit_3(capsys: pytest.CaptureFixture[str],
                                                      tmp_path: Path) -> None:
    """A multi-file document compiled without --root: the skipped operations are one line
    naming --root and the folder holding both, a line says how many of how many the gate
    cut, and the exit status is 3; with --root everything compiles."""
    (tmp_path / "schemas").mkdir()
    (tmp_path / "schemas" / "pet.yaml").write_text("{type: object}")
    (tmp_path / "spec").mkdir()
    ops = {f"/p{i}": {"post": {"operationId": f"post{i}", "requestBody": {"content": {
        "application/json": {"schema": {"$ref": "../schemas/pet.yaml"}}}},
        "responses": {"200": {"description": "ok"}}}} for i in range(3)}
    ops["/ok"] = {"get": {"operationId": "ok", "responses": {"200": {"description": "ok"}}}}
    spec = tmp_path / "spec" / "api.json"
    spec.write_text(json.dumps({"openapi": "3.0.3", "info": {"title": "t", "version": "1"},
                                "paths": ops}))
    status, _, err = run(capsys, "compile", str(spec), "-o", str(tmp_path / "out.json"))
    assert status == 3
    assert err[0].startswith("httpllm: skipped: POST /p0: ")
    assert err[0].endswith(f"is outside the document's folder {tmp_path / 'spec'} (pass --root "
                           f"a folder holding both, such as {tmp_path}, or "
                           "--allow-outside-root) (and 2 more like it; -v lists each)")
    assert err[1] == ("httpllm: 3 of 4 operations skipped because a $ref needs a file or URL "
                      "the gate refused: pass the flag the message names (--root DIR, "
                      "--allow-outside-root or --allow-network), or --exclude them (exit 3)")
    status, _, err = run(capsys, "compile", str(spec), "--root", str(tmp_path), "-o",
                         str(tmp_path / "out.json"))
    assert status == 0 and err[-1].startswith("httpllm: 4 tools for chatgpt;")


# --- one mistake, one exit status and one wording on every command -----------------------

@pytest.mark.parametrize("command", [("call", PETSTORE, "listPets", "--args", "{}"),
                                     ("serve", PETSTORE)], ids=["call", "serve"])
@pytest.mark.parametrize(("flags", "message"), [
    (("--auth", "apiKey"), "--auth expects NAME=VALUE, not 'apiKey'"),
    (("--auth-env", "nosuch=HOME"), "--auth-env nosuch=...: no compiled operation requires a "
     "security scheme named 'nosuch' (they require: apiKey; 'httpllm inspect' lists them)"),
], ids=["no-equals", "unknown-scheme"])
def test_credential_mistakes_read_the_same_on_call_and_serve(
        capsys: pytest.CaptureFixture[str], command: tuple[str, ...],
        flags: tuple[str, ...], message: str) -> None:
    """A malformed --auth or an unknown scheme is a usage error (exit 2) with the same
    words on `call` and `serve`."""
    status, _, err = run(capsys, *command, *flags)
    assert status == 2
    assert err == [f"httpllm {command[0]}: error: {message}"]


def test_defer_for_a_provider_without_it_is_a_usage_error(
        capsys: pytest.CaptureFixture[str]) -> None:
    """`--defer` with gemini exits 2 before compiling, naming the providers that have it
    and what to use instead."""
    status, _, err = run(capsys, "compile", PETSTORE, "-p", "gemini", "--defer")
    assert status == 2
    assert err == ["httpllm compile: error: --defer: provider 'gemini' has no native deferred "
                   "loading (chatgpt, claude have); for it use --discover (search, describe, "
                   "invoke) or --group-by"]


def test_always_takes_several_names(capsys: pytest.CaptureFixture[str]) -> None:
    """`--always a b` keeps both loaded, as the synopsis `--always NAME ...` says."""
    status, out, _ = run(capsys, "compile", PETSTORE, "-p", "claude", "--defer",
                         "--always", "listPets", "getPet")
    assert status == 0
    loaded = [t["name"] for t in json.loads(out) if "input_schema" in t
              and not t.get("defer_loading")]
    assert loaded == ["listPets", "getPet"]


@pytest.mark.parametrize(("name", "hint"), [
    ("listpets", "did you mean listPets?"),
    ("nosuch", "functions: createPet, deletePet, getPet, listPets"),
])
def test_always_unknown_name_suggests(capsys: pytest.CaptureFixture[str], name: str,
                                      hint: str) -> None:
    """An unknown `--always` name exits 2 with the closest names (or the functions), and
    no literal `...`."""
    status, _, err = run(capsys, "compile", PETSTORE, "-p", "claude", "--defer",
                         "--always", name)
    assert status == 2
    assert err == [f"httpllm compile: error: --always {name}: no function named {name!r}; "
                   f"{hint} ('httpllm inspect' lists them)"]


def test_search_unknown_tag_lists_the_tags(capsys: pytest.CaptureFixture[str]) -> None:
    """`search --tag` with a tag no operation has exits 2 listing the tags."""
    status, out, err = run(capsys, "search", PETSTORE, "pets", "--tag", "nosuch")
    assert status == 2 and out == ""
    assert err == ["httpllm search: error: --tag nosuch: no operation has the tag 'nosuch' "
                   "(tags: pets)"]


def test_provider_names_are_case_blind(capsys: pytest.CaptureFixture[str],
                                       tmp_path: Path) -> None:
    """`--provider Claude` is claude, on the command line and in Python."""
    status, _, err = run(capsys, "compile", PETSTORE, "--provider", "Claude", "-o",
                         str(tmp_path / "t.json"))
    assert status == 0 and err[-1].startswith("httpllm: 4 tools for claude;")
    assert httpllm.compile(PETSTORE, "OpenAI").provider == "chatgpt"


@pytest.mark.slow
def test_serving_one_tool_says_tool(tmp_path: Path) -> None:
    """`serve` of a one-operation document says "serving 1 tool"."""
    spec = _many(tmp_path / "one.json", 1)
    done = subprocess.run([sys.executable, "-m", "httpllm", "serve", str(spec)],
                          input="", capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert "httpllm: serving 1 tool over stdio" in done.stderr.splitlines()


# --- Azure x-ms-parameterized-host --------------------------------------------------------

def _azure(path: Path, host: dict[str, Any]) -> Path:
    """A Swagger 2.0 document whose server is ``host`` (an x-ms-parameterized-host), with
    an API key and one operation."""
    path.write_text(json.dumps({
        "swagger": "2.0", "info": {"title": "az", "version": "1"}, "schemes": ["https"],
        "x-ms-parameterized-host": host,
        "securityDefinitions": {"key": {"type": "apiKey", "in": "header",
                                        "name": "Ocp-Apim-Subscription-Key"}},
        "security": [{"key": []}],
        "paths": {"/jobs/{id}": {"get": {
            "operationId": "Job_Get", "responses": {"200": {"description": "ok"}},
            "parameters": [{"name": "id", "in": "path", "required": True, "type": "string"}]}}}}))
    return path


def test_parameterized_host_reaches_its_endpoint(capsys: pytest.CaptureFixture[str],
                                                 tmp_path: Path, live_server: str) -> None:
    """An `{Endpoint}/api` host template (useSchemePrefix: false) with a default sends the
    call there, credentials included; an endpoint the host names otherwise is refused."""
    spec = str(_azure(tmp_path / "az.json", {
        "hostTemplate": "{Endpoint}/api", "useSchemePrefix": False,
        "parameters": [{"name": "Endpoint", "in": "path", "required": True, "type": "string",
                        "default": live_server, "x-ms-skip-url-encoding": True}]}))
    status, out, _ = run(capsys, "call", spec, "Job_Get", "--args", '{"id": "7"}',
                         "--auth", "key=s3cret-key", "--send")
    assert status == 0
    echoed = json.loads(out.split("=> 200\n", 1)[1])
    assert echoed["raw_path"] == "/api/jobs/7"
    sent = dict(echoed["headers"])  # the echoed credential is shown redacted
    assert sent["ocp-apim-subscription-key"] == "[redacted]" and "s3cret-key" not in out
    status, _, err = run(capsys, "call", spec, "Job_Get", "--args", '{"id": "7"}',
                         "--server-var", "Endpoint=http://evil.example", "--auth", "key=k")
    assert status == 2 and len(err) == 1  # a value the flag cannot take (was exit 1)
    assert err[0].startswith("httpllm call: error: --server-var: server variable {Endpoint}")
    assert "only its default is taken: pass --base-url" in err[0]


def test_parameterized_host_without_default_names_the_flag(
        capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    """A host parameter without a default is a compile warning and, on `call`, a usage
    error naming --server-var; a value leaving the host part is refused."""
    spec = str(_azure(tmp_path / "adla.json", {
        "hostTemplate": "{accountName}.azuredatalakeanalytics.net",
        "parameters": [{"name": "accountName", "in": "path", "required": True,
                        "type": "string"}]}))
    status, _, err = run(capsys, "compile", spec, "-o", str(tmp_path / "t.json"))
    assert status == 0
    assert err[0] == ("httpllm: warning: #/x-ms-parameterized-host/parameters/0: host parameter "
                      "'accountName' has no default: the host gives it (--server-var, as "
                      "accountName=VALUE) or the whole URL (--base-url)")
    status, _, err = run(capsys, "call", spec, "Job_Get", "--args", '{"id": "7"}')
    assert status == 2
    assert err == ["httpllm call: error: the server "
                   "'https://{accountName}.azuredatalakeanalytics.net' needs --server-var "
                   "accountName=VALUE (it has no default; or give the whole URL with --base-url)"]
    status, out, _ = run(capsys, "call", spec, "Job_Get", "--args", '{"id": "7"}',
                         "--server-var", "accountName=myacct")
    assert status == 0
    assert out.splitlines()[0] == "GET https://myacct.azuredatalakeanalytics.net/jobs/7"
    status, _, err = run(capsys, "call", spec, "Job_Get", "--args", '{"id": "7"}',
                         "--server-var", "accountName=evil.example/x")
    assert status == 2 and "may hold only letters, digits" in err[0]


def test_parameterized_endpoint_without_default_needs_base_url(
        capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    """Form Recognizer's `{endpoint}/formrecognizer/v2.1` (useSchemePrefix: false, the
    endpoint by $ref, no default): the warning and `call` both say to give the whole URL
    with --base-url, which then works."""
    spec = _azure(tmp_path / "fr.json", {
        "hostTemplate": "{endpoint}/formrecognizer/v2.1", "useSchemePrefix": False,
        "parameters": [{"$ref": "#/parameters/Endpoint"}]})
    document = json.loads(spec.read_text())
    document["parameters"] = {"Endpoint": {
        "name": "endpoint", "in": "path", "required": True, "type": "string",
        "x-ms-skip-url-encoding": True, "x-ms-parameter-location": "client"}}
    spec.write_text(json.dumps(document))
    status, _, err = run(capsys, "compile", str(spec), "-o", str(tmp_path / "t.json"))
    assert status == 0
    assert err[0] == ("httpllm: warning: #/x-ms-parameterized-host/parameters/0: host parameter "
                      "'endpoint' has no default: the host gives it as the whole URL "
                      "(--base-url, e.g. https://HOST/formrecognizer/v2.1)")
    status, _, err = run(capsys, "call", str(spec), "Job_Get", "--args", '{"id": "7"}')
    assert status == 2
    assert err == ["httpllm call: error: the server '{endpoint}/formrecognizer/v2.1' starts "
                   "with {endpoint}, which has no default: give the whole URL with --base-url"]
    url = "https://westus2.api.cognitive.microsoft.com/formrecognizer/v2.1"
    status, out, _ = run(capsys, "call", str(spec), "Job_Get", "--args", '{"id": "7"}',
                         "--base-url", url, "--auth", "key=k")
    assert status == 0 and out.splitlines()[0] == f"GET {url}/jobs/7"


def test_a_ref_no_flag_opens_is_not_told_to_pass_one(tmp_path: Path,
                                                     capsys: pytest.CaptureFixture[str]) -> None:
    """A $ref refused for what it points at (a settings file beside the document) is not
    sent to --root or --allow-outside-root, which cannot read it: it said so."""
    (tmp_path / "config.yaml").write_text("scheme: https\napi_key: sk_live_SECRET1\n")
    spec = tmp_path / "api.json"
    spec.write_text(json.dumps({"openapi": "3.1.0", "info": {"title": "t", "version": "1"},
                                "paths": {"/a": {"post": {"operationId": "a", "requestBody": {
                                    "content": {"application/json": {"schema": {
                                        "$ref": "config.yaml"}}}},
                                    "responses": {"200": {"description": "ok"}}}}}}))
    status, _, err = run(capsys, "compile", str(spec), "-o", str(tmp_path / "out.json"))
    assert status == 3 and "sk_live" not in "".join(err)
    assert err[1] == ("httpllm: 1 of 1 operations skipped because a $ref points at a file or "
                      "value that is not part of the API description (a settings file, a "
                      "dotfile, no JSON or YAML): no flag reads it; fix the $ref or --exclude "
                      "them (exit 3)")
