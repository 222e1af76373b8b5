"""The corpus sweep itself (sweep.py), on a one-document corpus."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from sweep import Mode, sweep, table
from toolkit import CONSTRAINED, doc


def corpus(folder: Path) -> Path:
    """A corpus folder: MANIFEST.tsv naming one real 3.1 document and one Swagger 1.2."""
    (folder / "real").mkdir()
    (folder / "real" / "one.json").write_text(json.dumps(doc(CONSTRAINED, ops=2)))
    (folder / "MANIFEST.tsv").write_text(
        "set\tlocal_path\topenapi_version\tn_files\n"
        "real\treal/one.json\t3.1.0\t1\n"
        "real\treal/old.json\t1.2\t1\n"
    )
    return folder


def test_each_mode_gets_its_own_tally(tmp_path: Path) -> None:
    """Functions, losses by action and problems are counted per mode; a check that raises
    is a failure of its mode; Swagger 1.2 rows are not read."""

    def crash(tool: Any, function: Any) -> list[str]:
        raise KeyError("input_schema")

    tallies = sweep([Mode("plain", "claude", lambda tool, function: [f"bad {tool['name']}"]),
                     Mode("strict", "claude", options={"strict": True}),
                     Mode("broken", "mcp", crash)], corpus(tmp_path))
    plain, strict, broken = tallies.values()
    assert (plain.documents, plain.functions) == (1, 2)
    assert plain.failures == ["real/one.json op0: bad op0", "real/one.json op1: bad op1"]
    assert strict.failures == [] and strict.actions["described"] > 0
    assert broken.failures == ["real/one.json: KeyError: 'input_schema'"]
    assert table(tallies).splitlines()[2].startswith("| plain | 1 | 2 | 0 | 2 | 0 | 0 |")
