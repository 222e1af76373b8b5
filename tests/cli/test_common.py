"""The compile flags are read from the options record: each flagged field of ``Options``
is a flag of every compiling command, with its help, its ``FLAGS`` entry, and its value
reaching ``Application.options``."""

from __future__ import annotations

import argparse
from dataclasses import fields
from pathlib import Path

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
