"""httpllm.toolsets._store: the search index's vectors and saved indexes in the user's cache,
safe against corrupt or hostile files."""

from __future__ import annotations

import importlib.util
import json
import pickle
from pathlib import Path
from typing import Any

import pytest

from httpllm.toolsets import _store

pytestmark = pytest.mark.skipif(importlib.util.find_spec("numpy") is None,
                                reason="needs numpy (the search extra)")



@pytest.fixture(autouse=True)
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    folder = tmp_path / "cache"
    monkeypatch.setenv(_store.CACHE_VARIABLE, str(folder))
    return folder


def test_folder_follows_the_variable_then_xdg(monkeypatch: pytest.MonkeyPatch,
                                              tmp_path: Path) -> None:
    """HTTPLLM_CACHE_DIR names the folder ("off" turns the cache off); without it, Linux
    uses $XDG_CACHE_HOME (when absolute) or ~/.cache, under httpllm/search."""
    assert _store.directory() == tmp_path / "cache"
    monkeypatch.setenv(_store.CACHE_VARIABLE, "off")
    assert _store.directory() is None
    monkeypatch.delenv(_store.CACHE_VARIABLE)
    monkeypatch.setattr(_store.sys, "platform", "linux")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert _store.directory() == tmp_path / "xdg" / "httpllm" / "search"
    monkeypatch.setenv("XDG_CACHE_HOME", "relative/not/allowed")
    assert _store.directory() == Path.home() / ".cache" / "httpllm" / "search"


def test_key_depends_on_texts_order_and_embedder() -> None:
    """The key changes with any text, their order and the embedder's name."""
    base = _store.key("model-a", ["one", "two"])
    assert base == _store.key("model-a", ["one", "two"])
    assert len({base, _store.key("model-b", ["one", "two"]), _store.key("model-a", ["two", "one"]),
                _store.key("model-a", ["one", "two", ""]), _store.key("model-a", ["onetwo"])}) == 5


def test_matrix_round_trip() -> None:
    """A written matrix reads back equal; another row count is a miss."""
    import numpy as np
    matrix = np.arange(12, dtype=np.float32).reshape(3, 4)
    assert _store.write("k1", matrix, "model")
    assert np.array_equal(_store.read("k1", 3), matrix)
    assert _store.read("k1", 4) is None
    assert _store.read("absent", 3) is None


@pytest.mark.parametrize("damage", ["truncated", "not json", "other shape", "nan", "float64"])
def test_damaged_entries_are_misses(cache: Path, damage: str) -> None:
    """A truncated, mislabelled, non-finite or wrongly typed entry reads as a miss."""
    import numpy as np
    matrix = np.ones((2, 3), dtype=np.float32)
    assert _store.write("k", matrix, "model")
    npy, meta = cache / "k.npy", cache / "k.json"
    if damage == "truncated":
        npy.write_bytes(npy.read_bytes()[:-5])
    elif damage == "not json":
        meta.write_text("{", encoding="utf-8")
    elif damage == "other shape":
        np.save(npy, np.ones((2, 5), dtype=np.float32))
    elif damage == "nan":
        np.save(npy, np.full((2, 3), np.nan, dtype=np.float32))
    else:
        np.save(npy, np.ones((2, 3), dtype=np.float64))
    assert _store.read("k", 2) is None


class _Planted:
    """Unpickling this object writes a file: proof that a pickle was run."""

    def __init__(self, path: str) -> None:
        self.path = path

    def __reduce__(self) -> tuple[Any, ...]:
        return (Path.write_text, (Path(self.path), "pwned"))


def test_a_pickle_in_the_cache_is_never_run(cache: Path, tmp_path: Path) -> None:
    """An entry holding a pickled object (a hostile cache file) is a miss, and the pickle
    is not run."""
    import numpy as np
    assert _store.write("k", np.ones((1, 2), dtype=np.float32), "model")
    planted = tmp_path / "planted"
    hostile = np.empty(1, dtype=object)
    hostile[0] = _Planted(str(planted))
    np.save(cache / "k.npy", hostile, allow_pickle=True)
    assert pickle.dumps(hostile)  # the payload is a real pickle
    assert _store.read("k", 1) is None
    assert _store.load_matrix(cache / "k.npy", 1) is None
    assert not planted.exists()


def test_unwritable_cache_is_skipped(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A cache folder that cannot be made is no error: the write says it did not store."""
    import numpy as np
    blocker = tmp_path / "file"
    blocker.write_text("x", encoding="utf-8")
    monkeypatch.setenv(_store.CACHE_VARIABLE, str(blocker / "sub"))
    assert not _store.write("k", np.ones((1, 2), dtype=np.float32), "model")
    assert not _store.save_folder("k", lambda folder: None)


def test_saved_folder_is_complete_or_absent(cache: Path) -> None:
    """A folder whose writing fails leaves nothing behind; a complete one is found."""
    def failing(folder: Path) -> None:
        (folder / "part").write_text("x", encoding="utf-8")
        raise OSError("disk full")

    assert not _store.save_folder("bad", failing)
    assert _store.folder("bad") is None
    assert not [p for p in (cache / "indexes").iterdir()]
    assert _store.save_folder("good", lambda f: (f / "a.json").write_text(json.dumps(1)))
    assert _store.folder("good") == cache / "indexes" / "good"
