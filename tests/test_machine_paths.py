"""No file of the repository names one machine's absolute path (issue 27): the corpus and
every other outside folder are found through tests/shared.py (environment variables, else
`../shared` beside the checkout), so that the suite runs on any machine."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import shared

MACHINE_PATH = re.compile(
    r"""(?<![\w.~$}/-])(?:
        /(?:work|root|mnt|srv|opt|scratch|data|workspace|builds)/[\w.-]
      | /(?:home|Users)/(?!me/)[\w.-]+/
      | [A-Za-z]:\\\\?(?:Users|work)\\
    )""",
    re.VERBOSE,
)
"""An absolute path into one machine's folders. `/home/me/...` is the documentation's
example user (README, docs/serve.md), kept on purpose; `/tmp` is on every Unix machine."""

SKIPPED = {".git", "node_modules", "__pycache__", ".venv", ".venv-ci", ".pytest_cache",
           ".mypy_cache", ".ruff_cache", ".hypothesis", ".import_linter_cache", "build",
           "dist", "results"}
"""Folders that are not the repository's own files (kept out of git by .gitignore)."""


def repository_files(root: Path = shared.REPO) -> list[Path]:
    """The files of the checkout: git's list when it is a git checkout, else every file
    outside the ignored folders (a copy made with `git archive`)."""
    try:
        listed = subprocess.run(["git", "-C", str(root), "ls-files", "-z", "--cached",
                                 "--others", "--exclude-standard"], check=True,
                                capture_output=True, timeout=60).stdout
    except (OSError, subprocess.SubprocessError):
        listed = b""
    if listed:
        return [root / name for name in listed.decode().split("\0") if name]
    return [p for p in root.rglob("*")
            if p.is_file() and not SKIPPED & set(p.relative_to(root).parts)]


def machine_paths(text: str) -> list[str]:
    """The machine paths in `text`."""
    return [m.group(0) for m in MACHINE_PATH.finditer(text)]


def test_the_pattern_finds_machine_paths_and_spares_examples() -> None:
    """The pattern finds what it is for, and leaves placeholders and relative paths alone."""
    found = machine_paths('x = "/work/shared/specs"; y = Path("/home/alice/corpus/specs")\n'
                          "z = '/Users/bob/src/'; w = 'C:\\\\Users\\\\bob'")
    assert found == ["/work/s", "/home/alice/", "/Users/bob/", "C:\\\\Users\\"]
    assert machine_paths("/home/me/httpllm/.venv/bin/httpllm ../shared/specs "
                         "/path/to/openapi.yaml https://example.com/work/x src/work/a "
                         "/tmp/fm/bin/python") == []


def test_no_file_names_an_absolute_machine_path() -> None:
    """Every file of the repository is free of absolute machine paths."""
    this = Path(__file__).resolve()
    offenders = []
    for path in repository_files():
        if path.resolve() == this or not path.is_file():
            continue
        try:
            text = path.read_text(encoding="utf-8")
        except (UnicodeDecodeError, OSError):
            continue  # binary: no path a reader would follow
        offenders += [f"{path.relative_to(shared.REPO)}:{text.count(chr(10), 0, m.start()) + 1}"
                      f": {m.group(0)}" for m in MACHINE_PATH.finditer(text)]
    assert offenders == []
