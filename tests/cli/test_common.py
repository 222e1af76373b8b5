"""The compile flags are read from the options record: each flagged field of ``Options``
is a flag of every compiling command, with its help, its ``FLAGS`` entry, and its value
reaching ``Application.options``."""

from __future__ import annotations

import argparse
import json
from dataclasses import fields
from pathlib import Path
from typing import Any

import pytest

from httpllm.cli import main
from httpllm.cli._common import FLAGS, add_compile_options, compile_from
from httpllm.dialects import Options
from httpllm.dialects._options import option_of

ROOT = Path(__file__).resolve().parents[2]
PETSTORE = ROOT / "specs" / "petstore-3.0.yaml"
FLAGGED = {spec.name: flag for spec in fields(Options)
           if (flag := option_of(spec).flag) is not None}


def test_flags_maps_each_flagged_option_to_its_flag() -> None:
    """FLAGS names each flagged option's flag and holds no Python-only option."""
    assert {name: FLAGS[name] for name in FLAGGED} == {n: f.name for n, f in FLAGGED.items()}
    assert not ({spec.name for spec in fields(Options)} - set(FLAGGED)) & set(FLAGS)


def test_each_flag_reaches_the_application_options() -> None:
    """Every compile flag given on the command line is the value of its field in
    app.options (``--separate`` as the predicate of its selectors)."""
    parser = argparse.ArgumentParser()
    parser.add_argument("spec")
    add_compile_options(parser)
    argv = [str(PETSTORE), "--strict", "--reference", "--strip-constraints", "--unroll", "2",
            "--envelope", "responses", "--split-unions", "--examples", "off",
            "--max-depth", "5", "--collapse-deep", "--include", "tag:pets",
            "--exclude", "nosuch", "--separate", "header:X-Request-Id", "--allow-network",
            "--allow-outside-root", "--document-url", "https://api.example.com/",
            "--root", str(PETSTORE.parent)]
    given = {flag.name for flag in FLAGGED.values()}
    assert given == {a for a in argv if a.startswith("--")}
    app = compile_from(parser.parse_args(argv))
    wanted = {"strict": True, "reference": True, "strip_constraints": True, "unroll": 2,
              "envelope": "responses", "split_unions": True, "examples": "off",
              "max_depth": 5, "collapse_deep": True, "include": ["tag:pets"],
              "exclude": ["nosuch"], "allow_network": True, "allow_outside_root": True,
              "document_url": "https://api.example.com/", "root": str(PETSTORE.parent)}
    assert {name: getattr(app.options, name) for name in wanted} == wanted
    assert callable(app.options.separate) and app.functions


def test_defaults_are_the_record_defaults() -> None:
    """With no flag, each flagged option is its field's default."""
    parser = argparse.ArgumentParser()
    add_compile_options(parser)
    parsed = vars(parser.parse_args([]))
    assert {n: parsed[n] for n in FLAGGED} == {
        spec.name: spec.default for spec in fields(Options) if spec.name in FLAGGED}


@pytest.mark.parametrize("command", ["compile", "inspect", "call", "serve", "search", "lint"])
def test_help_shows_each_flag_with_its_help(command: str, capsys: pytest.CaptureFixture[str],
                                           monkeypatch: pytest.MonkeyPatch) -> None:
    """Each command that compiles lists every flagged option with its help text."""
    monkeypatch.setenv("COLUMNS", "1000")  # one line per flag: its help is whole
    with pytest.raises(SystemExit) as caught:
        main([command, "--help"])
    out = capsys.readouterr().out
    assert caught.value.code == 0
    for flag in FLAGGED.values():
        assert flag.name in out and flag.help in out, flag.name


@pytest.mark.parametrize(("document", "expected"), [
    ({"servers": [{"url": "/v1"}]}, "httpllm: error: server URL '/v1' is relative; pass "
     "--base-url URL, or --document-url URL (the URL the document came from)"),
    ({"servers": [{"url": "{origin}/v1", "variables": {"origin": {
        "default": "https://api.example.com"}}}]}, None),
])
def test_a_library_hint_reads_in_flags_with_their_values(
        document: dict[str, Any], expected: str | None, tmp_path: Path,
        capsys: pytest.CaptureFixture[str]) -> None:
    """A library message naming keywords (``base_url=..., or document_url=... to
    compile``) reads in the command's terms: each flag with the value ``--help`` names, no
    ``...`` and no Python function the flag is no keyword of (it said "--document-url ...
    to compile" to a user running ``httpllm call``)."""
    spec = tmp_path / "relative.json"
    spec.write_text(json.dumps({
        "openapi": "3.1.0", "info": {"title": "t", "version": "1"}, **document,
        "paths": {"/x": {"get": {"operationId": "getX",
                                 "responses": {"200": {"description": "ok"}}}}}}))
    if expected is None:  # a value for a variable that is the scheme and host
        expected = ("httpllm call: error: --server-var: server variable {origin} is "
                    "'https://evil.example'; it names the scheme and host of "
                    "'{origin}/v1', so only its default is taken: pass --base-url URL for "
                    "another host")
        argv = ["--server-var", "origin=https://evil.example"]
        assert main(["call", str(spec), "getX", "--args", "{}", *argv]) == 2
    else:
        assert main(["call", str(spec), "getX", "--args", "{}"]) == 1
    assert capsys.readouterr().err.splitlines() == [expected]
