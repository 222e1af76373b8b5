"""`httpllm compile`: what the loss report (`--losses`) holds, and the flags that write an
output of their own going one at a time."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from httpllm.cli import main

PETSTORE = str(Path(__file__).resolve().parents[2] / "specs" / "petstore-3.0.yaml")


def test_losses_name_a_renamed_operation_id(tmp_path: Path,
                                            capsys: pytest.CaptureFixture[str]) -> None:
    """An operationId compile renames is in `--losses` with its operation's pointer."""
    spec = tmp_path / "api.json"
    spec.write_text(json.dumps({
        "openapi": "3.0.3", "info": {"title": "t", "version": "1"},
        "paths": {"/a": {"get": {"operationId": "日本語",
                                 "responses": {"200": {"description": "ok"}}}}}}),
        encoding="utf-8")
    assert main(["compile", str(spec), "--losses"]) == 0
    [loss] = json.loads(capsys.readouterr().out)
    assert loss["function"] == "RiBenYu" and loss["value"] == "日本語"
    assert loss["pointer"] == "#/paths/~1a/get/operationId"
    assert (loss["keyword"], loss["action"]) == ("operationId", "renamed")


@pytest.mark.parametrize("suffix", [".json", ".yaml"])
def test_numbers_no_double_holds_are_losses_not_nulls(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], suffix: str) -> None:
    """`maximum: 1e400` and `multipleOf: 1e-400`: the tools carry neither (no `null`, no
    `0.0`, no warning about numbers written as null), stderr is the one summary line, and
    `--losses` names each keyword's pointer and what was expected."""
    big, tiny = ("1e400", "1e-400") if suffix == ".json" else ("1.0e+400", "1.0e-400")
    spec = tmp_path / f"api{suffix}"
    spec.write_text(
        '{"openapi": "3.0.3", "info": {"title": "t", "version": "1"}, "paths": {"/a": {"get": {'
        '"operationId": "getA", "parameters": [{"name": "x", "in": "query", "schema": {'
        f'"type": "number", "maximum": {big}, "multipleOf": {tiny}}}}}],'
        '"responses": {"200": {"description": "ok"}}}}}}', encoding="utf-8")
    if suffix == ".yaml":
        spec.write_text("# YAML\n" + spec.read_text(encoding="utf-8"), encoding="utf-8")
    for provider in ("chatgpt", "claude", "gemini", "mcp", "3.0"):
        assert main(["compile", str(spec), "-p", provider]) == 0
        out, err = capsys.readouterr()
        assert json.loads(out, parse_constant=lambda c: pytest.fail(c))
        x = json.dumps(out)
        assert "maximum" not in x and "multipleOf" not in x and "null" not in x
        assert len(err.splitlines()) == 1 and "Traceback" not in err, err
    assert main(["compile", str(spec), "--losses"]) == 0
    losses = json.loads(capsys.readouterr().out)
    assert [(x["pointer"], x["keyword"], x["action"], x["value"]) for x in losses] == [
        ("#/paths/~1a/get/parameters/0/schema/maximum", "maximum", "dropped", big),
        ("#/paths/~1a/get/parameters/0/schema/multipleOf", "multipleOf", "dropped", tiny)]
    assert "expected a number" in losses[1]["note"]


def test_lone_surrogates_are_replacement_characters_with_a_warning(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A document whose JSON holds `\\ud800`-style escapes without their pair (in a
    parameter's description, a response property's name, an enum) compiles for every
    provider, to a file and to stdout, as UTF-8 a provider's SDK can send: each lone
    surrogate is U+FFFD, and a warning names where."""
    from httpllm.dialects import providers

    spec = tmp_path / "api.json"
    spec.write_text(
        '{"openapi": "3.0.3", "info": {"title": "t", "version": "1"}, "paths": {"/a": {"get": {'
        '"operationId": "getA", "parameters": [{"name": "q", "in": "query", "schema": {'
        '"type": "string", "description": "x\\ud800y", "enum": ["\\udfff", "ok"]}}],'
        '"responses": {"200": {"description": "ok", "content": {"application/json": {"schema":'
        ' {"type": "object", "properties": {"n\\udc00": {"type": "string"}}}}}}}}}}}',
        encoding="utf-8")
    for provider in providers():
        out = tmp_path / f"{provider}.json"
        assert main(["compile", str(spec), "-p", provider, "-o", str(out)]) == 0, provider
        assert "3 string(s) held a lone surrogate" in capsys.readouterr().err
        written = out.read_bytes()
        assert b"\\ud" not in written, provider
        text = json.dumps(json.loads(written), ensure_ascii=False)
        assert "x\ufffdy" in text and "\ufffd" in text.replace("x\ufffdy", ""), provider
        assert main(["compile", str(spec), "-p", provider]) == 0
        assert json.loads(capsys.readouterr().out) == json.loads(written)


def test_the_summary_counts_the_losses(tmp_path: Path,
                                       capsys: pytest.CaptureFixture[str]) -> None:
    """The summary line says how many loss entries the tools carry and which flag lists
    them (only `--losses` told of them before); none, no word."""
    spec = tmp_path / "api.json"
    spec.write_text(json.dumps({
        "openapi": "3.0.3", "info": {"title": "t", "version": "1"},
        "paths": {"/a": {"get": {"operationId": "日本語",
                                 "responses": {"200": {"description": "ok"}}}},
                  "/b": {"get": {"operationId": "b",
                                 "responses": {"200": {"description": "ok"}}}}}}),
        encoding="utf-8")
    assert main(["compile", str(spec), "-o", str(tmp_path / "t.json")]) == 0
    assert "; 1 loss entry (--losses lists them); " in capsys.readouterr().err
    assert main(["compile", str(spec), "-o", str(tmp_path / "t.json"), "--include", "b"]) == 0
    assert "loss" not in capsys.readouterr().err


@pytest.mark.parametrize(("argv", "flags"), [
    (["--discover", "--group-by", "tag"], "--group-by and --discover"),
    (["-p", "claude", "--discover", "--defer"], "--defer and --discover"),
    (["-p", "claude", "--group-by", "tag", "--defer"], "--group-by and --defer"),
    (["--discover", "--losses"], "--discover and --losses"),
])
def test_outputs_of_their_own_go_one_at_a_time(tmp_path: Path,
                                               capsys: pytest.CaptureFixture[str],
                                               argv: list[str], flags: str) -> None:
    """Flags that each write their own output exit 2 together: the first won and the
    others were ignored without a word (`--discover --group-by tag` wrote the groups)."""
    assert main(["compile", PETSTORE, *argv, "-o", str(tmp_path / "out")]) == 2
    assert capsys.readouterr().err == (f"httpllm compile: error: {flags}: each writes an "
                                       "output of its own; choose one\n")
    assert not (tmp_path / "out").exists()


def test_a_line_break_in_a_pointer_or_message_never_writes_a_line(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """`-v` lists each skipped operation and warning on one line: a path, a scheme name
    and a $ref holding ``\\n``, ``\\r\\n`` or U+2028 are shown escaped, never as a line of
    their own (a fake summary, a fake `httpllm: serving` line)."""
    forged = "httpllm: 1 tool for chatgpt; 0 B to stdout"
    spec = tmp_path / "api.json"
    spec.write_text(json.dumps({
        "openapi": "3.0.3", "info": {"title": "t", "version": "1"},
        "paths": {
            "/a\n" + forged: {"get": {
                "security": [{"nosuch\r\n" + forged: []}],
                "responses": {"200": {"description": "ok"}}}},
            "/b\u2028" + forged: {"get": {
                "parameters": [{"name": "n", "in": "query",
                                "schema": {"$ref": "#/components/schemas/x\n" + forged}}],
                "responses": {"200": {"description": "ok"}}}}}}))
    main(["compile", str(spec), "-v", "-o", str(tmp_path / "tools.json")])
    err = capsys.readouterr().err
    assert forged not in err.splitlines()
    assert len(err.splitlines()) == 3  # the skipped operation, the warning, the summary
    assert f"httpllm: warning: #/paths/~1a\\n{forged}/get/security/0/nosuch\\r\\n{forged}: " \
        in err
