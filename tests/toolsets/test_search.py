"""httpllm.toolsets.search: the BM25 index over functions, and Application.search."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

import httpllm
from httpllm.errors import MissingExtra
from httpllm.toolsets.search import SearchIndex, action, one_line, words

TASKS = Path(__file__).resolve().parents[2] / "benchmarks" / "search_tasks.yaml"

PETS: dict[str, Any] = {
    "openapi": "3.1.0",
    "info": {"title": "pets", "version": "1"},
    "paths": {
        "/pets": {
            "get": {"operationId": "listPets", "summary": "List all pets", "tags": ["pets"],
                    "responses": {"200": {"description": "ok"}}},
            "post": {"operationId": "createPet", "summary": "Create a pet", "tags": ["pets"],
                     "responses": {"201": {"description": "ok"}}},
        },
        "/pets/{petId}": {
            "delete": {"operationId": "deletePet", "summary": "Delete a pet", "tags": ["pets"],
                       "parameters": [{"name": "petId", "in": "path", "required": True,
                                       "schema": {"type": "string"}}],
                       "responses": {"204": {"description": "gone"}}},
        },
        "/stores/{storeId}/orders": {
            "get": {"operationId": "listOrders", "summary": "<p>List a store's orders</p>",
                    "tags": ["store"],
                    "parameters": [{"name": "storeId", "in": "path", "required": True,
                                    "schema": {"type": "string"}}],
                    "responses": {"200": {"description": "ok"}}},
        },
    },
}

# A handful of the benchmark's tasks (benchmarks/search_tasks.yaml), both documents,
# both halves: their operation must stay in the first five.
KEPT = (
    "merge pull request 42",
    "list all chargebacks",
    "share a code snippet publicly",
    "open a PR from my feature branch into main",
    "cancel a pending payout",
    "fork a repo into my account",
    "issue a virtual card to an employee",
    "what's the newest release",
)


@pytest.fixture(autouse=True)
def bm25_alone(monkeypatch: pytest.MonkeyPatch) -> None:
    """These tests describe the BM25 ranker; test_embed.py covers the hybrid one."""
    monkeypatch.setenv("HTTPLLM_SEARCH_RANKER", "bm25")


def test_words_split_identifiers() -> None:
    """camelCase, snake_case, kebab-case and path segments split into lower-case words."""
    assert words("PostPaymentIntents /pull_requests/{pull_number} list-for-repo OAuthApp") \
        == ["post", "payment", "intents", "pull", "requests", "pull", "number", "list",
            "for", "repo", "o", "auth", "app"]
    assert words("Créer un café_au_lait HTTPServer v2") == [
        "créer", "un", "café", "au", "lait", "http", "server", "v", "2"]


def test_action_follows_method_and_path() -> None:
    """GET on a collection lists, on an item gets; POST creates or updates; DELETE deletes."""
    app = httpllm.compile(PETS, "3.1")
    assert {f.name: action(f) for f in app.functions} == {
        "listPets": "list", "createPet": "create", "deletePet": "delete",
        "listOrders": "list"}


def test_one_line_drops_html_and_cuts() -> None:
    """The one-line summary has no HTML tags and is cut at a word with an ellipsis."""
    app = httpllm.compile(PETS, "3.1")
    assert one_line(app.function("listOrders")) == "List a store's orders"
    assert one_line(app.function("listPets"), limit=8) == "List…"


def test_search_ranks_by_words_and_intent() -> None:
    """The verb picks among operations on one resource; synonyms reach unsaid words."""
    app = httpllm.compile(PETS, "3.1")
    assert app.search("remove a pet", k=1)[0].name == "deletePet"
    assert app.search("add a new pet", k=1)[0].name == "createPet"
    assert [f.name for f in app.search("orders")] == ["listOrders"]


def test_search_tag_k_and_no_match() -> None:
    """tag= keeps only tagged functions, k bounds the list, unrelated words find nothing."""
    app = httpllm.compile(PETS, "3.1")
    assert {f.name for f in app.search("list", tag="STORE")} == {"listOrders"}
    assert len(app.search("pet", k=2)) == 2
    assert app.search("zebra quantum") == []
    assert app.search("pet", k=0) == []
    assert app.search("") == []


def test_index_is_built_once() -> None:
    """Application.search builds its index on the first search and keeps it."""
    app = httpllm.compile(PETS, "3.1")
    app.search("pet")
    first = app._search[0]
    app.search("order")
    assert app._search == [first]


def test_concurrent_searches_agree() -> None:
    """Searches from many threads at once (one shared stemmer) give the same answers."""
    from concurrent.futures import ThreadPoolExecutor

    app = httpllm.compile(PETS, "3.1")
    queries = ["remove a pet", "add a new pet", "orders of a store", "list pets"] * 25
    expected = [[f.name for f in app.search(q)] for q in queries]
    with ThreadPoolExecutor(8) as pool:
        got = list(pool.map(lambda q: [f.name for f in app.search(q)], queries))
    assert got == expected


def test_missing_extra_names_it(monkeypatch: pytest.MonkeyPatch) -> None:
    """Without bm25s the search raises MissingExtra naming the extra to install."""
    monkeypatch.setitem(sys.modules, "bm25s", None)
    app = httpllm.compile(PETS, "3.1")
    with pytest.raises(MissingExtra, match=r"httpllm\[search\]"):
        app.search("pet")


def test_search_reads_other_scripts() -> None:
    """Summaries outside ASCII are indexed and found by their words."""
    doc = {**PETS, "paths": {"/chats": {"get": {
        "operationId": "listeChats", "summary": "Lister les félins",
        "responses": {"200": {"description": "ok"}}}}}}
    assert [f.name for f in httpllm.compile(doc, "3.1").search("félins")] == ["listeChats"]


def test_empty_application() -> None:
    """An index of no functions answers every query with nothing."""
    assert SearchIndex([]).search("anything") == []


def test_benchmark_tasks_stay_in_top_five(specs_dir: Path) -> None:
    """A handful of the benchmark's tasks keep their operation among the first five."""
    data = yaml.safe_load(TASKS.read_text(encoding="utf-8"))
    tasks = [t for t in data["tasks"] if t["query"] in KEPT]
    assert len(tasks) == len(KEPT)
    apps = {s: httpllm.compile(specs_dir / data["specs"][s], "3.1")
            for s in {t["spec"] for t in tasks}}
    missed = [t["query"] for t in tasks
              if not {f.name for f in apps[t["spec"]].search(t["query"], 5)} & set(t["expect"])]
    assert missed == []
