"""`httpllm search SPEC QUERY [-k N] [--tag T] [--json]` and `httpllm compile --discover`."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from httpllm.cli import main

SPEC = str(Path(__file__).resolve().parents[1] / "specs" / "petstore-3.0.yaml")


@pytest.fixture(autouse=True)
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Each test its own cache folder (the user's is never touched)."""
    folder = tmp_path / "cache"
    monkeypatch.setenv("HTTPLLM_CACHE_DIR", str(folder))
    return folder


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    """Run `httpllm ...`; the exit status, stdout and stderr."""
    status = main(list(argv))
    out, err = capsys.readouterr()
    return status, out, err


def test_search_prints_one_line_per_operation(capsys: pytest.CaptureFixture[str]) -> None:
    """Each line holds the operationId, method, path and summary, best first."""
    status, out, _ = run(capsys, "search", SPEC, "add a new pet", "-k", "2")
    lines = out.splitlines()
    assert status == 0
    assert len(lines) == 2
    assert lines[0].split()[:3] == ["createPet", "POST", "/pets"]


def test_search_json(capsys: pytest.CaptureFixture[str]) -> None:
    """--json prints name, operationId, method, path and summary of each operation."""
    status, out, _ = run(capsys, "search", SPEC, "list pets", "--json", "-k", "1")
    found = json.loads(out)
    assert status == 0
    assert [(f["operationId"], f["method"], f["path"]) for f in found] == [
        ("listPets", "GET", "/pets")]
    assert set(found[0]) == {"name", "operationId", "method", "path", "summary"}


def test_search_k_must_be_positive(capsys: pytest.CaptureFixture[str]) -> None:
    """-k 0 is a usage error (exit 2)."""
    with pytest.raises(SystemExit) as exit_:
        main(["search", SPEC, "pets", "-k", "0"])
    assert exit_.value.code == 2
    assert "-k" in capsys.readouterr().err


def test_search_missing_spec_is_one_line(capsys: pytest.CaptureFixture[str]) -> None:
    """An unreadable document exits 1 with one line on stderr."""
    status, _, err = run(capsys, "search", "no-such-file.yaml", "pets")
    assert status == 1
    assert len(err.strip().splitlines()) == 1


def test_compile_discover_prints_the_trio(capsys: pytest.CaptureFixture[str]) -> None:
    """compile --discover prints the three trio tools in the chosen dialect."""
    status, out, err = run(capsys, "compile", SPEC, "--discover", "--provider", "claude")
    tools = json.loads(out)
    assert status == 0
    assert [t["name"] for t in tools] == [
        "search_operations", "describe_operations", "invoke_operation"]
    assert all("input_schema" in t for t in tools)
    assert err.startswith("httpllm: 3 tools for claude over 4 operations;")


def test_compile_discover_counts_the_trio_in_one_gemini_tool(
        capsys: pytest.CaptureFixture[str]) -> None:
    """Gemini's envelope is one Tool holding the three declarations: the summary still
    counts three tools (it said "1 tool for gemini")."""
    status, out, err = run(capsys, "compile", SPEC, "--discover", "--provider", "gemini")
    assert status == 0 and len(json.loads(out)[0]["functionDeclarations"]) == 3
    assert err.startswith("httpllm: 3 tools for gemini over 4 operations;")


def test_search_with_an_empty_query_is_a_usage_error(
        capsys: pytest.CaptureFixture[str]) -> None:
    """A blank QUERY exits 2 with one line saying it is empty, instead of printing nothing."""
    status, out, err = run(capsys, "search", SPEC, "  ")
    assert (status, out) == (2, "")
    assert err.count("\n") == 1 and "QUERY is empty" in err


def test_search_without_a_match_says_so(capsys: pytest.CaptureFixture[str]) -> None:
    """A query no operation matches prints nothing on stdout and one line on stderr."""
    status, out, err = run(capsys, "search", SPEC, "zzzzq")
    assert (status, out) == (0, "")
    assert err.count("\n") == 1 and "no operation matches 'zzzzq'" in err


def test_search_says_its_ranker(capsys: pytest.CaptureFixture[str]) -> None:
    """--ranker bm25 ranks with BM25 alone, and stderr names the ranker that ranked."""
    status, out, err = run(capsys, "search", SPEC, "add a new pet", "--ranker", "bm25")
    assert status == 0
    assert out.splitlines()[0].split()[0] == "createPet"
    assert err.strip() == "httpllm: ranked by bm25"


def test_lines_start_with_the_name_call_takes(capsys: pytest.CaptureFixture[str],
                                               tmp_path: Path) -> None:
    """Each line starts with the function's name (what `httpllm call` takes), the
    operationId beside it when the name differs."""
    spec = tmp_path / "slash.json"
    spec.write_text(json.dumps({
        "openapi": "3.1.0", "info": {"title": "t", "version": "1"},
        "servers": [{"url": "https://api.example.com"}],
        "paths": {"/pulls/{n}/merge": {"put": {
            "operationId": "pulls/merge", "summary": "Merge a pull request",
            "parameters": [{"name": "n", "in": "path", "required": True,
                            "schema": {"type": "integer"}}],
            "responses": {"200": {"description": "ok"}}}}}}))
    status, out, _ = run(capsys, "search", str(spec), "merge a pull request")
    assert status == 0
    name = out.split()[0]
    assert name == "pulls_merge" and out.rstrip().endswith("(operationId pulls/merge)")
    status, _, _ = run(capsys, "call", str(spec), name, "--args", '{"n": 1}')
    assert status == 0


def _no_compile(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Make the search command's compile record its calls and fail (an internal error)."""
    import httpllm.cli.search as command

    calls: list[str] = []

    def refuse(args: object) -> object:
        calls.append("compile")
        raise RuntimeError("compiled")

    monkeypatch.setattr(command, "compile_from", refuse)
    return calls


def test_second_search_reads_the_saved_index(capsys: pytest.CaptureFixture[str],
                                             monkeypatch: pytest.MonkeyPatch,
                                             cache: Path) -> None:
    """The index of a document is saved in the cache: the next search of the same bytes
    with the same flags answers the same without compiling; other flags compile again."""
    status, first, _ = run(capsys, "search", SPEC, "remove a pet", "-k", "3")
    assert status == 0 and (cache / "indexes").is_dir()
    calls = _no_compile(monkeypatch)
    assert run(capsys, "search", SPEC, "remove a pet", "-k", "3")[1] == first
    assert run(capsys, "search", SPEC, "add a pet", "--json", "-k", "1")[0] == 0
    assert calls == []
    run(capsys, "search", SPEC, "remove a pet", "--provider", "claude")
    assert calls == ["compile"]
    run(capsys, "search", SPEC, "remove a pet", "--no-cache")
    assert calls == ["compile", "compile"]


def test_a_document_reading_other_files_compiles_each_time(
        capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch,
        tmp_path: Path) -> None:
    """A document that $refs another file is never answered from a saved index (a change
    to the other file would not change the key)."""
    (tmp_path / "pet.yaml").write_text("type: object\nproperties:\n  name: {type: string}\n",
                                       encoding="utf-8")
    spec = tmp_path / "api.yaml"
    spec.write_text(
        "openapi: 3.0.3\ninfo: {title: t, version: '1'}\npaths:\n  /pets:\n    post:\n"
        "      operationId: createPet\n      summary: Create a pet\n      requestBody:\n"
        "        content:\n          application/json:\n            schema:\n"
        "              $ref: './pet.yaml'\n      responses:\n        '201': {description: ok}\n",
        encoding="utf-8")
    assert run(capsys, "search", str(spec), "create a pet")[1].startswith("createPet")
    calls = _no_compile(monkeypatch)
    run(capsys, "search", str(spec), "create a pet")
    assert calls == ["compile"]


def test_unknown_embedder_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    """--embedder with an unknown name exits 2 with one line naming the flag."""
    status, out, err = run(capsys, "search", SPEC, "pets", "--ranker", "hybrid",
                           "--embedder", "word2vec")
    assert (status, out) == (2, "")
    assert err.count("\n") == 1 and "--embedder" in err


def test_a_changed_document_is_indexed_again(capsys: pytest.CaptureFixture[str],
                                             monkeypatch: pytest.MonkeyPatch,
                                             tmp_path: Path) -> None:
    """The saved index is keyed by the document's bytes: one byte changed (a summary's
    word) misses, compiles again and answers from the new text."""
    spec = tmp_path / "api.yaml"
    text = Path(SPEC).read_text(encoding="utf-8")
    spec.write_text(text, encoding="utf-8")
    status, before, _ = run(capsys, "search", str(spec), "remove a pet", "-k", "1")
    assert status == 0 and before.startswith("deletePet")
    calls = _no_compile(monkeypatch)
    assert run(capsys, "search", str(spec), "remove a pet", "-k", "1")[1] == before
    assert calls == []
    assert "Delete a pet" in text
    spec.write_text(text.replace("Delete a pet", "Delete a pen", 1), encoding="utf-8")
    run(capsys, "search", str(spec), "remove a pet", "-k", "1")
    assert calls == ["compile"]
    import httpllm.cli.search as command
    from httpllm.cli._common import compile_from

    monkeypatch.setattr(command, "compile_from", compile_from)
    status, after, _ = run(capsys, "search", str(spec), "remove a pen", "-k", "1")
    assert status == 0 and "Delete a pen" in after


@pytest.mark.skipif(not Path("/proc/self/task").is_dir() or (os.cpu_count() or 1) < 2,
                    reason="counts the process's threads in Linux's /proc, on 2 cores or more")
@pytest.mark.parametrize("chosen", [None, "2"])
def test_search_starts_numpy_on_one_thread(chosen: str | None) -> None:
    """The search command imports numpy with OpenBLAS on one thread (no thread started),
    unless the user chose a number, and leaves the environment as it was."""
    import subprocess
    import sys

    environment = {k: v for k, v in os.environ.items() if k != "OPENBLAS_NUM_THREADS"}
    if chosen:
        environment["OPENBLAS_NUM_THREADS"] = chosen
    script = ("import os, sys\nfrom httpllm.cli.search import _numpy_on_one_thread\n"
              "_numpy_on_one_thread()\nimport numpy\n"
              "print(len(os.listdir('/proc/self/task')), "
              "os.environ.get('OPENBLAS_NUM_THREADS'))\n")
    out = subprocess.run([sys.executable, "-c", script], env=environment, check=True,
                         capture_output=True, text=True).stdout.split()
    # OpenBLAS on n threads starts n - 1 beside the process's own
    assert out == (["2", "2"] if chosen else ["1", "None"])
