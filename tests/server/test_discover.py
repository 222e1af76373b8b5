"""httpllm.server.discover: `--mode discover` builds the search index once, from the start."""

from __future__ import annotations

import importlib.util
import threading
from pathlib import Path

import pytest

import httpllm

pytestmark = pytest.mark.skipif(
    any(importlib.util.find_spec(name) is None for name in ("mcp", "bm25s")),
    reason="needs mcp and bm25s (the mcp and search extras)")

SPEC = Path(__file__).resolve().parents[2] / "specs" / "petstore-3.0.yaml"


def test_index_is_built_once_from_the_start(monkeypatch: pytest.MonkeyPatch,
                                            tmp_path: Path) -> None:
    """The served trio starts building the application's search index at once, in a
    thread; the trio's searches use that one index."""
    from httpllm.server.discover import discover_tools
    monkeypatch.setenv("HTTPLLM_CACHE_DIR", str(tmp_path))
    monkeypatch.setenv("HTTPLLM_SEARCH_RANKER", "bm25")
    app = httpllm.compile(SPEC, "mcp")
    tools = discover_tools(app)
    builders = [t for t in threading.enumerate() if t.name == "httpllm-search-index"]
    for builder in builders:  # none left: it has already finished
        builder.join(timeout=60)
    index = app._deferred.kept("search", list)
    assert not isinstance(index, list)  # built already
    assert tools[0].tool["name"] == "search_operations"
    assert app.search("remove a pet", 1)[0].name == "deletePet"
    assert app._deferred.kept("search", list) is index
