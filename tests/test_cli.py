"""The httpllm command line."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from httpllm.cli import main

SPEC = str(Path(__file__).resolve().parents[1] / "specs" / "petstore-3.0.yaml")


def test_compile_prints_the_tool_list(capsys: pytest.CaptureFixture[str]) -> None:
    """`httpllm compile SPEC` prints the provider's tool list as JSON and exits 0."""
    assert main(["compile", SPEC, "--provider", "chatgpt"]) == 0
    tools = json.loads(capsys.readouterr().out)
    assert [t["function"]["name"] for t in tools][:2] == ["listPets", "createPet"]


def test_compile_writes_a_file(tmp_path: Path) -> None:
    """`-o FILE` writes the tool list to the file."""
    out = tmp_path / "tools.json"
    assert main(["compile", SPEC, "--strict", "-o", str(out)]) == 0
    assert all(t["function"]["strict"] for t in json.loads(out.read_text()))


def test_losses_flag_prints_the_loss_report(capsys: pytest.CaptureFixture[str]) -> None:
    """`--losses` prints one entry per loss with its function and pointer."""
    assert main(["compile", SPEC, "--strict", "--losses"]) == 0
    losses = json.loads(capsys.readouterr().out)
    assert {"function", "pointer", "keyword", "action"} <= set(losses[0])


def test_inspect_lists_operations_cycles_and_errors(capsys: pytest.CaptureFixture[str]) -> None:
    """`httpllm inspect` names the operations and each recursive cycle."""
    library = str(Path(SPEC).parent / "library" / "openapi.yaml")
    assert main(["inspect", library]) == 0
    out = capsys.readouterr().out
    assert "createCategory" in out and "cycle: Category -> Category" in out


@pytest.mark.parametrize("as_json", [False, True])
def test_inspect_never_prints_a_server_urls_password(
        as_json: bool, capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    """A server URL holding `user:pass@` is shown without them (text and --json): the
    compile warns about it, and inspect printed the password whole."""
    spec = tmp_path / "s.json"
    spec.write_text(json.dumps({
        "openapi": "3.1.0", "info": {"title": "t", "version": "1"},
        "servers": [{"url": "https://me:s3cret-pw@api.example.com/v1"}],
        "paths": {"/a": {"get": {"operationId": "a",
                                 "responses": {"200": {"description": "ok"}}}}}}))
    assert main(["inspect", str(spec), *(["--json"] if as_json else [])]) == 0
    captured = capsys.readouterr()
    assert "https://api.example.com/v1" in captured.out
    assert "s3cret-pw" not in captured.out + captured.err
    assert "me:" not in captured.out + captured.err


def test_invalid_input_exits_non_zero_with_one_line(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """Invalid input exits 1 with a one-line message on stderr."""
    bad = tmp_path / "bad.yaml"
    bad.write_text("swagger: '1.2'\n")
    assert main(["compile", str(bad)]) == 1
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0 and "Swagger" in err


def test_list_providers(capsys: pytest.CaptureFixture[str]) -> None:
    """`--list-providers` lists chatgpt and the neutral 3.1 target."""
    assert main(["compile", "--list-providers"]) == 0
    out = capsys.readouterr().out
    assert "chatgpt" in out and "3.1" in out


def test_root_flag_bounds_the_files_read(capsys: pytest.CaptureFixture[str]) -> None:
    """`--root DIR` lets a $ref read a sibling folder of the document's; without it the
    operation is skipped with the gate's message."""
    fixtures = Path(__file__).resolve().parent / "fixtures" / "refs"
    spec = str(fixtures / "api" / "openapi.yaml")
    assert main(["compile", spec, "-p", "3.1", "--include", "readOutside",
                 "--root", str(fixtures)]) == 0
    assert "skipped" not in capsys.readouterr().err
    assert main(["compile", spec, "-p", "3.1", "--include", "readOutside"]) == 3  # no tool
    assert "outside the document's folder" in capsys.readouterr().err


def test_swagger2_document_compiles(capsys: pytest.CaptureFixture[str]) -> None:
    """A Swagger 2.0 document compiles from the command line like a 3.x one."""
    spec = str(Path(__file__).resolve().parent / "fixtures" / "swagger2" / "wire.yaml")
    assert main(["compile", spec, "-p", "chatgpt"]) == 0
    names = [t["function"]["name"] for t in json.loads(capsys.readouterr().out)]
    assert names == ["getItems", "listItems", "addPet", "upload", "sendForm"]
