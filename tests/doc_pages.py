"""The user documentation's pages and their code blocks, for the tests that run them
(`tests/cli/test_readme_examples.py` the ```console blocks, `tests/test_doc_examples.py`
the ```python and ```json ones).

A block preceded by the HTML comment ``<!-- not run: REASON -->`` (invisible once rendered)
is only parsed, never run.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

__all__ = ["ROOT", "Block", "blocks", "pages"]

ROOT = Path(__file__).resolve().parents[1]

_DEVELOPER = {"architecture.md", "pitfalls.md", "provider-rules.md"}
"""docs/ pages for contributors, not users: their code blocks are not examples."""

_BLOCK = re.compile(r"(?:<!-- not run: (?P<reason>[^>]*?) -->\n)?"
                    r"^```(?P<language>[a-z]*)\n(?P<code>.*?)^```$", re.DOTALL | re.MULTILINE)


@dataclass(frozen=True)
class Block:
    """One fenced code block of a page."""

    page: str
    line: int
    language: str
    code: str
    not_run: str | None

    @property
    def id(self) -> str:
        return f"{self.page}:{self.line}"


def pages() -> list[Path]:
    """The README and each user page of docs/."""
    found = [ROOT / "README.md"]
    found += sorted(p for p in (ROOT / "docs").glob("*.md") if p.name not in _DEVELOPER)
    return found


def blocks(language: str) -> list[Block]:
    """Every ``language`` block of the pages, in page order."""
    out = []
    for page in pages():
        text = page.read_text(encoding="utf-8")
        for match in _BLOCK.finditer(text):
            if match.group("language") == language:
                line = text.count("\n", 0, match.start("code"))
                out.append(Block(page=str(page.relative_to(ROOT)), line=line,
                                 language=language, code=match.group("code"),
                                 not_run=match.group("reason")))
    return out
