"""The command-line examples of the README and of docs/ run as written: each
`$ httpllm ...` line of a ```console block gives the shown output (lines in order, `...`
skipping any) and the shown exit status (`[exit N]`, else 0), so the pages cannot drift
from the tool."""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import pytest
from doc_pages import ROOT, blocks

from httpllm.cli import main


def examples() -> list[tuple[str, list[str], list[str], int]]:
    """``(page, argv, expected lines, exit status)`` of each example of the pages."""
    found = []
    for block in blocks("console"):
        for chunk in re.split(r"^\$ ", block.code, flags=re.MULTILINE)[1:]:
            command, *shown = chunk.rstrip("\n").split("\n")
            status = 0
            if shown and (m := re.fullmatch(r"\[exit (\d+)\]", shown[-1])):
                status, shown = int(m.group(1)), shown[:-1]
            argv = shlex.split(command)
            assert argv[0] == "httpllm", command
            found.append((block.page, argv[1:], shown, status))
    return found


def matches(shown: list[str], output: list[str]) -> bool:
    """Whether ``output`` holds the ``shown`` lines in order, ``...`` standing for any run
    of lines (and without one, the lines follow each other): each run of lines between
    ``...`` may start at any later line."""
    runs: list[list[str]] = [[]]
    for line in shown:
        if line == "...":
            runs.append([])
        else:
            runs[-1].append(line)
    if output[:len(runs[0])] != runs[0]:
        return False
    position = len(runs[0])
    for run in runs[1:]:
        starts = (at for at in range(position, len(output) - len(run) + 1)
                  if output[at:at + len(run)] == run)
        found = next(starts, None)
        if found is None:
            return False
        position = found + len(run)
    return True


def test_the_pages_have_examples() -> None:
    """The README shows commands, and the docs at least five more, a failing one among
    them."""
    found = examples()
    assert any(page == "README.md" for page, *_ in found)
    assert len(found) >= 5 and any(status for *_, status in found)


@pytest.mark.parametrize(("page", "argv", "shown", "status"), examples(),
                         ids=lambda v: " ".join(v) if isinstance(v, list) else
                         v if isinstance(v, str) else None)
def test_readme_example(page: str, argv: list[str], shown: list[str], status: int,
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
