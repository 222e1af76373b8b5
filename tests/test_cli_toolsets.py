"""`httpllm compile --group-by ... -o DIR` and `compile --defer`."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from httpllm.cli import main

SPEC = str(Path(__file__).resolve().parents[1] / "specs" / "petstore-3.0.yaml")


def test_group_by_writes_one_file_per_group_and_an_index(tmp_path: Path) -> None:
    """Each group is a tool list file; _index.json names every group, file and function."""
    out = tmp_path / "groups"
    assert main(["compile", SPEC, "--group-by", "path", "--max-tools", "3", "-o",
                 str(out)]) == 0
    index = json.loads((out / "_index.json").read_text())
    assert index["provider"] == "chatgpt"
    listed = [name for group in index["groups"] for name in group["functions"]]
    assert sorted(listed) == ["createPet", "deletePet", "getPet", "listPets"]
    for group in index["groups"]:
        tools = json.loads((out / group["file"]).read_text())
        assert [t["function"]["name"] for t in tools] == group["functions"]
        assert len(tools) <= 3


def test_group_by_needs_an_output_folder(capsys: pytest.CaptureFixture[str]) -> None:
    """--group-by without -o is a usage error (2) with one line naming the flag."""
    assert main(["compile", SPEC, "--group-by", "tag"]) == 2
    assert "--group-by needs -o DIR" in capsys.readouterr().err


def test_group_by_refuses_a_file_name_for_its_folder(capsys: pytest.CaptureFixture[str],
                                                     tmp_path: Path) -> None:
    """-o g.json with --group-by is a usage error, not a folder named g.json."""
    assert main(["compile", SPEC, "--group-by", "tag", "-o", str(tmp_path / "g.json")]) == 2
    assert "looks like a file name" in capsys.readouterr().err
    assert not (tmp_path / "g.json").exists()


def test_group_by_refuses_an_existing_file_for_its_folder(
        capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    """-o naming a file that exists (`/dev/null`, a file without a suffix) is a usage error
    saying so; it said "cannot write --output /dev/null: File exists"."""
    (tmp_path / "out").write_text("kept")
    for target in (str(tmp_path / "out"), "/dev/null"):
        assert main(["compile", SPEC, "--group-by", "tag", "-o", target]) == 2
        err = capsys.readouterr().err
        assert f"-o {target} is a file; pass a folder" in err and err.count("\n") == 1
    assert (tmp_path / "out").read_text() == "kept"


def test_defer_prints_the_native_deferred_tool_list(capsys: pytest.CaptureFixture[str]) -> None:
    """--defer on claude prints the tool-search tool and the tools, --always kept loaded."""
    assert main(["compile", SPEC, "--provider", "claude", "--defer", "--always",
                 "getPet"]) == 0
    tools = json.loads(capsys.readouterr().out)
    assert tools[0]["type"] == "tool_search_tool_bm25_20251119"
    assert [t["name"] for t in tools[1:] if not t.get("defer_loading")] == ["getPet"]


def test_defer_on_a_provider_without_it_exits_two(capsys: pytest.CaptureFixture[str]) -> None:
    """--defer on gemini is a usage error (exit 2, as a flag value a provider cannot take)
    with one line saying it has no native deferred loading."""
    assert main(["compile", SPEC, "--provider", "gemini", "--defer"]) == 2
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0 and "no native deferred loading" in err


def test_budget_flags_without_group_by_are_a_usage_error(
        capsys: pytest.CaptureFixture[str]) -> None:
    """--max-tools without --group-by exits 2 naming the flags."""
    assert main(["compile", SPEC, "--max-tools", "3"]) == 2
    assert "--group-by" in capsys.readouterr().err


def test_an_unknown_always_name_is_named_with_its_flag(
        capsys: pytest.CaptureFixture[str]) -> None:
    """--always with a name no function has is a usage error (exit 2) with one line naming
    --always."""
    assert main(["compile", SPEC, "--provider", "claude", "--defer", "--always",
                 "nosuch"]) == 2
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0 and "--always" in err and "nosuch" in err
    assert "always:" not in err.replace("--always", "")


@pytest.mark.parametrize("argv", [
    ["compile", SPEC, "--group-by", "tag", "--max-tools", "0", "-o", "out"],
    ["inspect", SPEC, "--budget", "--max-tokens", "-5"],
    ["lint", SPEC, "--max-tools", "0"],
])
def test_a_budget_below_one_is_a_usage_error(
        argv: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    """--max-tools / --max-tokens below 1 exit 2 naming the flag, on every command."""
    with pytest.raises(SystemExit) as exit_:
        main(argv)
    err = capsys.readouterr().err
    assert exit_.value.code == 2 and err.count("\n") == 1
    assert "--max-to" in err and "expected a whole number >= 1" in err
