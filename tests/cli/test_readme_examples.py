"""The README's command-line examples run as written: each `$ httpllm ...` line of a
```console block gives the shown output (lines in order, `...` skipping any) and the
shown exit status (`[exit N]`, else 0), so the README cannot drift from the tool."""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import pytest

from httpllm.cli import main

ROOT = Path(__file__).resolve().parents[2]
BLOCK = re.compile(r"```console\n(.*?)```", re.DOTALL)


def examples() -> list[tuple[list[str], list[str], int]]:
    """``(argv, expected lines, exit status)`` of each README example."""
    found = []
    for block in BLOCK.findall((ROOT / "README.md").read_text(encoding="utf-8")):
        for chunk in re.split(r"^\$ ", block, flags=re.MULTILINE)[1:]:
            command, *shown = chunk.rstrip("\n").split("\n")
            status = 0
            if shown and (m := re.fullmatch(r"\[exit (\d+)\]", shown[-1])):
                status, shown = int(m.group(1)), shown[:-1]
            argv = shlex.split(command)
            assert argv[0] == "httpllm", command
            found.append((argv[1:], shown, status))
    return found


def matches(shown: list[str], output: list[str]) -> bool:
    """Whether ``output`` holds the ``shown`` lines in order, ``...`` standing for any run
    of lines (and without one, the lines follow each other)."""
    position = 0
    skipping = False
    for line in shown:
        if line == "...":
            skipping = True
            continue
        try:
            found = output.index(line, position)
        except ValueError:
            return False
        if not skipping and found != position:
            return False
        position, skipping = found + 1, False
    return True


def test_the_readme_has_examples() -> None:
    """The README shows at least five commands, a failing one among them."""
    found = examples()
    assert len(found) >= 5 and any(status for *_, status in found)


@pytest.mark.parametrize(("argv", "shown", "status"), examples(),
                         ids=lambda v: " ".join(v) if isinstance(v, list) else None)
def test_readme_example(argv: list[str], shown: list[str], status: int,
                        capsys: pytest.CaptureFixture[str], tmp_path: Path,
                        monkeypatch: pytest.MonkeyPatch) -> None:
    """The example's command prints what the README shows and exits as it says."""
    (tmp_path / "specs").symlink_to(ROOT / "specs")
    monkeypatch.chdir(tmp_path)
    try:
        got = main(argv)
    except SystemExit as exc:
        got = int(exc.code or 0)
    out, err = capsys.readouterr()
    output = (out + err).splitlines()
    assert got == status, out + err
    assert matches(shown, output), "\n".join(output)
