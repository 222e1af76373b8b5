"""What a new user hit first (issue 26): a URL as SPEC, warnings that say what was done
and what to do, and one exit status and wording for one mistake on every command. Each
test asserts the exit status and the one line the user reads."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from loopback import running
from starlette.staticfiles import StaticFiles

import httpllm
from httpllm.cli import main
from httpllm.errors import AccessDenied, LimitExceeded
from httpllm.load import Limits

ROOT = Path(__file__).resolve().parents[2]
PETSTORE = str(ROOT / "specs" / "petstore-3.0.yaml")

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
