"""`httpllm lint`: findings per operation, exit status 1 on errors."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from httpllm.cli import main

SPEC = str(Path(__file__).resolve().parents[1] / "specs" / "petstore-3.0.yaml")


def test_a_clean_document_exits_zero(capsys: pytest.CaptureFixture[str]) -> None:
    """The petstore lints without errors: exit 0 and a closing count."""
    assert main(["lint", SPEC]) == 0
    assert capsys.readouterr().out.splitlines()[-1].endswith("findings")


def test_an_error_exits_one_and_json_lists_it(capsys: pytest.CaptureFixture[str]) -> None:
    """--max-tools below the tool count is an error: exit 1; --json names rule and pointer."""
    assert main(["lint", SPEC, "--max-tools", "2", "--json"]) == 1
    findings = json.loads(capsys.readouterr().out)
    assert {"rule": "tools-over-budget", "severity": "error", "pointer": "#/paths",
            "function": None, "message": "4 tools; --max-tools allows 2"} in findings


def test_findings_name_the_function_and_pointer(tmp_path: Path,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    """Each text line gives severity, rule, function and pointer."""
    spec = tmp_path / "api.yaml"
    spec.write_text("openapi: 3.1.0\ninfo: {title: t, version: '1'}\npaths:\n"
                    "  /a:\n    get:\n      operationId: bare\n"
                    "      responses: {'200': {description: ok}}\n")
    assert main(["lint", str(spec)]) == 0
    out = capsys.readouterr().out
    assert "warning: no-description: bare: #/paths/~1a/get: " in out


def test_help_lists_every_rule(capsys: pytest.CaptureFixture[str]) -> None:
    """`lint --help` lists each rule with its severity and what it finds."""
    from httpllm.toolsets.lint import RULES

    with pytest.raises(SystemExit):
        main(["lint", "--help"])
    out = capsys.readouterr().out
    for rule in RULES:
        assert f"  {rule.severity:<8} {rule.name}" in out
    assert "  warning  too-many-parameters: more than 20 arguments" in out
    assert ":data:" not in out and "``" not in out


def test_a_tool_too_large_is_a_default_finding(tmp_path: Path,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    """A tool of about 64 kB (a description claude keeps whole) is a `tool-too-large`
    warning with default options: exit 0 (a warning), the figures and the fixes; the count
    says "1 finding"."""
    words = " ".join(f"part{i}" for i in range(8000))
    spec = tmp_path / "big.json"
    spec.write_text(json.dumps({
        "openapi": "3.1.0", "info": {"title": "t", "version": "1"},
        "paths": {"/big": {"post": {"operationId": "bigOne", "description": words,
                                    "responses": {"200": {"description": "ok"}}}}}}))
    assert main(["lint", str(spec), "--provider", "claude"]) == 0
    out = capsys.readouterr().out.splitlines()
    (line,) = [line for line in out if line.startswith("warning: tool-too-large")]
    assert re.fullmatch(r"warning: tool-too-large: bigOne: #/paths/~1big/post: bigOne alone has "
                        r"[\d,]+ tokens \(.+\), over 12,800 \(a tenth of a 128k-token context "
                        r"window\): serve it with --mode discover, leave it out \(--exclude\), "
                        r"or put it in a group of its own", line), line
    assert out[-1] == "1 finding: 1 tool-too-large"


def test_lone_surrogates_are_counted_not_a_crash(tmp_path: Path,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    """A tool whose strings hold lone surrogates (a `\\ud800` escape without its pair) is
    counted by the tokenizer (as U+FFFD) and by the byte estimate (as its escape): the
    budget finding is made, no UnicodeEncodeError."""
    spec = tmp_path / "api.json"
    spec.write_text(
        '{"openapi": "3.0.3", "info": {"title": "t", "version": "1"}, "paths": {"/a": {"get": {'
        '"operationId": "getA", "summary": "Get \\ud800 A", "parameters": [{"name": "q", '
        '"in": "query", "schema": {"type": "string", "description": "x\\udfffy"}}], '
        '"responses": {"200": {"description": "ok"}}}}}}', encoding="utf-8")
    assert main(["lint", str(spec), "--max-tokens", "10", "--json"]) == 1
    found = json.loads(capsys.readouterr().out)
    assert [f["rule"] for f in found] == ["tools-over-budget"]


def test_a_line_break_in_the_document_never_writes_a_finding(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Each finding is one line: a path holding a line break is shown escaped, and cannot
    write a fake finding or a fake closing count."""
    forged = "0 findings"
    spec = tmp_path / "api.json"
    spec.write_text(json.dumps({
        "openapi": "3.1.0", "info": {"title": "t", "version": "1"},
        "paths": {"/a\n" + forged: {"get": {
            "operationId": "bare", "responses": {"200": {"description": "ok"}}}}}}))
    main(["lint", str(spec)])
    lines = capsys.readouterr().out.splitlines()
    assert forged not in lines
    assert f"warning: no-description: bare: #/paths/~1a\\n{forged}/get: " \
        "no summary or description: the model sees only the name" in lines
