"""Corpus census (issue 18, kinds 1 and 10): over every OpenAPI 3.x document of the `real`
set, no request schema offers a `readOnly` property and no argument's schema says `readOnly`
(chatgpt, strict and not), and no `$defs` name is defined differently by two tools of one
document (llama and deepseek strict, whose servers merge every tool's `$defs`).
`benchmarks/fidelity_census.py` prints the same counts."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import shared
from checkers.census import conflicts, offered

import httpllm

pytestmark = pytest.mark.corpus


def _documents() -> list[Path]:
    folder = shared.require("specs")
    return [folder / r["local_path"] for r in shared.manifest(["real"], folder)
            if r["openapi_version"][:3] in ("3.0", "3.1")]


def _apps(provider: str, **options: Any) -> list[tuple[str, httpllm.Application]]:
    out = []
    for path in _documents():
        try:
            out.append((path.name, httpllm.compile(path, provider, allow_outside_root=True,
                                                   **options)))
        except httpllm.HttpllmError:
            continue
    return out


@pytest.mark.parametrize("strict", [False, True], ids=["chatgpt", "chatgpt-strict"])
def test_no_request_schema_offers_read_only(strict: bool) -> None:
    """No function of the real corpus asks the model for a readOnly property, nor calls an
    argument (a path id, a body) readOnly."""
    found = [f"{name} {fn.name} {at}" for name, app in _apps("chatgpt", strict=strict)
             for fn in app.functions for at in offered(fn.parameters)]
    assert found[:10] == [], f"{len(found)} readOnly properties offered"


@pytest.mark.parametrize("strict", [False, True], ids=["llama", "deepseek-strict"])
def test_no_defs_name_means_two_schemas(strict: bool) -> None:
    """No two tools of one real document define a `$defs` name differently (llama; deepseek
    strict, where some functions fall back to non-strict)."""
    provider = "deepseek" if strict else "llama"
    found = [f"{name}: {key} in {sorted(tools)[:3]}"
             for name, app in _apps(provider, strict=strict)
             for key, tools in conflicts([(f.name, f.parameters) for f in app.functions]).items()]
    assert found[:10] == [], f"{len(found)} names defined differently"
