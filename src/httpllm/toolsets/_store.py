"""The search index on disk, so that a document is embedded once per machine.

One entry per key: ``<key>.npy`` (the float32 matrix, one row per function, written and
read by numpy with ``allow_pickle=False``: a cache file can hold numbers only, never
code) and ``<key>.json`` (what it is: the format, the embedder's name, the rows and the
width). The key is the SHA-256 of the format, the embedder's name and every text embedded
(so of the document's content and the compile options that shape those texts, and of the
model). An entry that is missing, truncated, of another shape or otherwise unreadable is
a miss, never an error; a write goes to a temporary file renamed into place, so readers
never see half an entry, and a write that fails (read-only home, full disk) is skipped.

Whole saved indexes (for ``httpllm search``, which then skips the compile) are folders
under ``indexes/`` (:func:`folder`, :func:`save_folder`), written complete then renamed.

The folder: ``HTTPLLM_CACHE_DIR`` when set (``""`` or ``off``: no cache), else the
platform's cache folder (``XDG_CACHE_HOME`` or ``~/.cache`` on Linux, ``~/Library/Caches``
on macOS, ``%LOCALAPPDATA%`` on Windows) + ``httpllm/search``.

Source: XDG Base Directory Specification 0.8 (``$XDG_CACHE_HOME``, default
``$HOME/.cache``); numpy ``lib.format`` (``.npy`` version 1.0-3.0).
"""

from __future__ import annotations

import hashlib
import json
import os
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import numpy as np

__all__ = ["CACHE_VARIABLE", "FORMAT", "directory", "folder", "key", "load_matrix", "read",
           "save_folder", "write"]

CACHE_VARIABLE = "HTTPLLM_CACHE_DIR"
"""The environment variable naming the cache folder (``""`` or ``off``: no cache)."""

FORMAT = 1
"""The entries' format; another format never reads this one's entries."""

MAX_ROWS = 1_000_000
MAX_WIDTH = 16_384
"""Bounds on an entry's shape: past them the entry is refused, not read."""


def directory() -> Path | None:
    """The cache folder, or ``None`` when caching is off (:data:`CACHE_VARIABLE`)."""
    chosen = os.environ.get(CACHE_VARIABLE)
    if chosen is not None:
        return None if chosen.strip().lower() in ("", "off", "0", "none") else Path(chosen)
    if sys.platform == "win32":
        base = Path(os.environ.get("LOCALAPPDATA") or Path.home() / "AppData" / "Local")
    elif sys.platform == "darwin":
        base = Path.home() / "Library" / "Caches"
    else:
        xdg = os.environ.get("XDG_CACHE_HOME", "")
        base = Path(xdg) if os.path.isabs(xdg) else Path.home() / ".cache"
    return base / "httpllm" / "search"


def key(embedder: str, texts: Sequence[str]) -> str:
    """The entry's key for ``texts`` embedded by the embedder named ``embedder``."""
    digest = hashlib.sha256(f"httpllm-search-{FORMAT}\x00{embedder}\x00".encode())
    for text in texts:
        digest.update(text.encode("utf-8", "surrogatepass") + b"\x00")
    return digest.hexdigest()


def read(name: str, rows: int) -> np.ndarray[Any, Any] | None:
    """The matrix stored under ``name`` when it has ``rows`` rows of finite float32
    numbers, else ``None`` (any problem reading it is a miss)."""
    folder = directory()
    if folder is None:
        return None
    try:
        meta = json.loads((folder / f"{name}.json").read_text(encoding="utf-8"))
    except (OSError, ValueError, UnicodeDecodeError):
        return None
    if not isinstance(meta, dict) or meta.get("format") != FORMAT or meta.get("rows") != rows:
        return None
    matrix = load_matrix(folder / f"{name}.npy", rows)
    if matrix is None or matrix.shape[1] != meta.get("width"):
        return None
    return matrix


def load_matrix(path: Path, rows: int) -> np.ndarray[Any, Any] | None:
    """The ``.npy`` file at ``path`` when it holds ``rows`` rows of finite float32 numbers
    (no pickle), else ``None``."""
    import numpy

    try:
        matrix = numpy.load(path, allow_pickle=False)
    except (OSError, ValueError, EOFError):
        return None
    if (not isinstance(matrix, numpy.ndarray) or matrix.dtype != numpy.float32
            or matrix.ndim != 2 or matrix.shape[0] != rows
            or not 0 < matrix.shape[1] <= MAX_WIDTH or not numpy.isfinite(matrix).all()):
        return None
    out: np.ndarray[Any, Any] = matrix
    return out


def write(name: str, matrix: np.ndarray[Any, Any], embedder: str) -> bool:
    """Store ``matrix`` under ``name``; whether it was stored (a folder that cannot be
    written is no error: the next process embeds again)."""
    import numpy

    folder = directory()
    if folder is None or matrix.ndim != 2 or not 0 < matrix.shape[0] <= MAX_ROWS:
        return False
    meta = {"format": FORMAT, "embedder": embedder, "rows": int(matrix.shape[0]),
            "width": int(matrix.shape[1])}
    try:
        folder.mkdir(parents=True, exist_ok=True)
        for suffix, data in ((".npy", None), (".json", meta)):
            fd, temporary = tempfile.mkstemp(prefix=f".{name}.", suffix=suffix, dir=folder)
            try:
                with os.fdopen(fd, "wb") as handle:
                    if data is None:
                        numpy.save(handle, matrix.astype(numpy.float32), allow_pickle=False)
                    else:
                        handle.write(json.dumps(data).encode("utf-8"))
                os.replace(temporary, folder / f"{name}{suffix}")
            except BaseException:
                Path(temporary).unlink(missing_ok=True)
                raise
    except OSError:
        return False
    return True


def folder(name: str) -> Path | None:
    """The folder of the saved index ``name`` when it is there, else ``None``."""
    base = directory()
    found = None if base is None else base / "indexes" / name
    return found if found is not None and found.is_dir() else None


def save_folder(name: str, fill: Any) -> bool:
    """Make the folder of the saved index ``name``: ``fill(path)`` writes a temporary
    folder, renamed into place once complete (a folder already there is kept); whether it
    was stored. A folder that cannot be written is no error."""
    import shutil

    base = directory()
    if base is None:
        return False
    target = base / "indexes" / name
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        temporary = Path(tempfile.mkdtemp(prefix=f".{name}.", dir=target.parent))
        try:
            fill(temporary)
            os.replace(temporary, target)
        except BaseException:
            shutil.rmtree(temporary, ignore_errors=True)
            raise
    except OSError:
        return target.is_dir()
    return True
