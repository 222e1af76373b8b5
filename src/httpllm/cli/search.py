"""``httpllm search``: the operations that best serve a task said in words.

The search index of a document file is saved in the user's cache
(:mod:`httpllm.toolsets._store`), keyed by the file's bytes, the command's compile flags,
the ranker, the embedder, httpllm's version and the saved index's format: the next search
of the same document skips the compile and the embedding. A document that ``$ref``s other
files is compiled every time (a change to the other file would not change the key).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import re
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from httpllm.cli._common import (
    SPEC_HELP,
    UsageError,
    add_compile_options,
    compile_from,
    write,
)
from httpllm.cli._terminal import say

__all__ = ["register"]

_KEYED_OUT = frozenset({"query", "k", "tag", "json", "handler", "command", "spec",
                        "stdin_document"})
"""Flags that do not change the index (the rest are in the saved index's key)."""

_OTHER_FILE = re.compile(rb"""\$ref["']?\s*:\s*(?!["']?#)["']?[^\s"',}]""")
"""A ``$ref`` whose value does not start with ``#``: the document reads another file."""


_BLAS_THREADS = "OPENBLAS_NUM_THREADS"
"""The variable OpenBLAS (numpy's linear algebra in its wheels) reads once, when numpy is
imported, for how many threads to start."""


def _numpy_on_one_thread() -> None:
    """Import numpy with OpenBLAS on one thread, unless the user set
    :data:`_BLAS_THREADS` or numpy is already imported; the environment is left as it was.

    A search multiplies one query vector by the functions' vectors (1,223 x 384 for GitHub):
    OpenBLAS's threads, one per core, only wait for such work, and starting them and
    waking them cost a warm ``httpllm search`` 0.12 s of its 0.5 s of CPU (2 cores). The
    product is the same number for number on one thread or two (each row's dot product
    is one thread's).
    """
    from httpllm.errors import MissingExtra, requires_extra

    if "numpy" in sys.modules or _BLAS_THREADS in os.environ:
        return
    os.environ[_BLAS_THREADS] = "1"
    try:
        with requires_extra("search", "search", {"numpy"}):
            import numpy  # noqa: F401
    except MissingExtra:
        pass  # the search says so, naming every module of the extra that is missing
    finally:
        del os.environ[_BLAS_THREADS]


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add the ``search`` command."""
    find = sub.add_parser("search", help="find the operations that serve a task")
    find.add_argument("spec", help=SPEC_HELP)
    find.add_argument("query", help="the task in words, e.g. 'merge a PR'")
    find.add_argument("-k", type=_positive, default=10, metavar="N",
                      help="how many operations to print (default 10)")
    find.add_argument("--tag", default=None, help="only operations with this tag")
    find.add_argument("--ranker", choices=("auto", "bm25", "hybrid"), default=None,
                      help="bm25 alone, or hybrid (BM25 + sentence embeddings); default "
                           "auto: hybrid when the search-embed extra is installed")
    find.add_argument("--embedder", default=None, metavar="NAME",
                      help="the hybrid ranker's model: 'builtin' (the search-embed extra's, "
                           "the default) or 'fastembed:MODEL' (downloaded once by fastembed)")
    find.add_argument("--no-cache", action="store_true",
                      help="neither read nor save the index in the user's cache")
    find.add_argument("--json", action="store_true", help="print JSON")
    add_compile_options(find)
    find.set_defaults(handler=run)


def _positive(text: str) -> int:
    try:
        number = int(text)
    except ValueError:
        number = 0
    if number < 1:
        raise argparse.ArgumentTypeError(f"expected a whole number of at least 1, got {text!r}")
    return number


def _check_tag(functions: Sequence[Any], tag: str | None) -> None:
    """``--tag`` names a tag of some operation (case aside, as the search reads it), else
    a usage error listing the tags."""
    tags = sorted({t for f in functions for t in f.tags})
    if tag is None or tag.casefold() in {t.casefold() for t in tags}:
        return
    shown = ", ".join(tags[:30]) + (f" ... ({len(tags)} in all)" if len(tags) > 30 else "")
    raise UsageError(f"--tag {tag}: no operation has the tag {tag!r} (tags: "
                     f"{shown or 'none'})")


def _saved_key(args: argparse.Namespace) -> str | None:
    """The saved index's key for this command, or ``None`` when it must compile: the
    document is standard input or not a local file, it reads other files, or the user
    said ``--no-cache``."""
    from httpllm import __version__
    from httpllm.errors import LimitExceeded
    from httpllm.load import DEFAULT_LIMITS, read_bounded
    from httpllm.toolsets import _store
    from httpllm.toolsets.search import SAVED_FORMAT

    if args.no_cache or args.spec == "-" or _store.directory() is None:
        return None
    path = Path(args.spec)
    if not path.is_file():
        return None  # a pipe is read once, by compile; a missing file: compile says why
    try:
        data = read_bounded(path, DEFAULT_LIMITS.max_bytes)
    except (OSError, LimitExceeded):
        return None  # compile says why
    if _OTHER_FILE.search(data):
        return None
    flags = {k: v for k, v in sorted(vars(args).items()) if k not in _KEYED_OUT}
    digest = hashlib.sha256(data)
    digest.update(json.dumps([__version__, SAVED_FORMAT, repr(flags)]).encode("utf-8"))
    return digest.hexdigest()


def _index(args: argparse.Namespace) -> Any:
    """The search index: the saved one when there, else built (and saved)."""
    from httpllm.errors import MissingExtra
    from httpllm.toolsets import _store
    from httpllm.toolsets.search import SearchIndex

    key = _saved_key(args)
    folder = _store.folder(key) if key else None
    if folder is not None:
        try:
            saved = SearchIndex.load(folder, embedder=args.embedder)
        except MissingExtra:  # saved by a ranker that is no longer installed
            saved = None
        if saved is not None:
            return saved
    app = compile_from(args)
    index = app.search_index(ranker=args.ranker, embedder=args.embedder,
                             cache=not args.no_cache)
    if key:
        if index.embedder is not None:
            index.vectors()
        _store.save_folder(key, index.save)
    return index


def run(args: argparse.Namespace) -> int:
    from httpllm.toolsets.search import one_line

    if not args.query.strip():
        raise UsageError("QUERY is empty: say the task in words, e.g. 'merge a PR'")
    _numpy_on_one_thread()
    try:
        index = _index(args)
    except ValueError as exc:  # an unknown --embedder
        raise UsageError(f"--embedder: {exc}") from None
    _check_tag(index.functions, args.tag)
    found = index.search(args.query, args.k, tag=args.tag)
    if not found:
        say(f"httpllm: no operation matches {args.query!r}"
            + (f" with tag {args.tag!r}" if args.tag else ""), file=sys.stderr)
    else:
        say(f"httpllm: ranked by {index.ranker}", file=sys.stderr)
    if args.json:
        write(json.dumps([{"name": f.name, "operationId": f.operation_id,
                           "method": f.method.upper(), "path": f.path,
                           "summary": one_line(f)} for f in found],
                         indent=2, ensure_ascii=False), None)
        return 0
    for f in found:  # the function's name first: what `httpllm call` takes
        other = f"  (operationId {f.operation_id})" if f.operation_id not in (None, f.name) else ""
        say(f"{f.name}  {f.method.upper()} {f.path}  {one_line(f)}{other}")
    return 0
