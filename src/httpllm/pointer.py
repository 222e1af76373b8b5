"""JSON pointers (RFC 6901) spelled like a ``$ref``: ``"#/components/schemas/Pet"``."""

from __future__ import annotations

import posixpath
from collections.abc import Iterator, Mapping, Sequence
from typing import Any
from urllib.parse import unquote, urlsplit

__all__ = ["escape", "file_label", "get", "index", "join", "parts", "replace", "split",
           "trail", "unescape"]


def escape(token: str | int) -> str:
    """Escape one reference token: ``~`` -> ``~0``, ``/`` -> ``~1`` (RFC 6901 section 3)."""
    text = str(token)
    if "~" not in text and "/" not in text:
        return text
    return text.replace("~", "~0").replace("/", "~1")


def unescape(token: str) -> str:
    """Undo :func:`escape` (RFC 6901 section 4)."""
    return token.replace("~1", "/").replace("~0", "~")


def join(pointer: str, *tokens: str | int) -> str:
    """Append tokens to a pointer: ``join("#/paths", "/pets")`` -> ``"#/paths/~1pets"``."""
    for token in tokens:
        pointer += "/" + escape(token)
    return pointer


def parts(fragment: str) -> list[str]:
    """Split a fragment (``"#/a/b~1c"``, ``"/a"`` or ``""``) into unescaped tokens.

    Percent-encoding in the fragment is decoded first (RFC 6901 section 6).
    """
    fragment = fragment.removeprefix("#")
    if "%" in fragment:
        fragment = unquote(fragment)
    if not fragment:
        return []
    # Only the first "/" is dropped: "//a" is the key "" then the key "a" (RFC 6901 section 4).
    return [unescape(t) for t in fragment.removeprefix("/").split("/")]


def split(pointer: str) -> list[str]:
    """The tokens of a pointer :func:`join` built, split and unescaped, never
    percent-decoded: ``split("#/body/a%20b")`` -> ``["body", "a%20b"]``.

    :func:`parts` reads a ``$ref`` a document wrote, a URI fragment whose ``%XX`` escapes it
    decodes (RFC 6901 section 6); :func:`join` keeps each key's ``%`` as it is, so ``parts``
    read a pointer it made to a key holding one (``100%``, ``a%20b``, ``q%5Bname%5D``) as
    another key. Read what ``join`` made (the pointers of argument errors, of read-only
    places) with this.

    >>> split("#/body/a%20b/0"), parts("#/body/a%20b/0")
    (['body', 'a%20b', '0'], ['body', 'a b', '0'])
    """
    fragment = pointer.removeprefix("#")
    if not fragment:
        return []
    return [unescape(t) for t in fragment.removeprefix("/").split("/")]


def _tokens(at: str | Sequence[str]) -> Sequence[str]:
    return parts(at) if isinstance(at, str) else at


_MAX_INDEX_DIGITS = 18
"""Digits of the longest index a token may spell: no list is longer, and ``int()`` refuses
a string of over 4,300 digits (Python's limit, a ``ValueError``)."""


def index(token: str) -> int | None:
    """The array index a reference token spells, or ``None`` when it spells none: RFC 6901
    section 4 (``array-index = %x30 / ( %x31-39 *%x30-39 )``): ASCII digits only (``str.isdigit``
    also takes ``²`` and ``٣``, which ``int()`` refuses or reads as 3), no leading zero,
    ``0`` alone; and at most 18 digits (see :data:`_MAX_INDEX_DIGITS`).

    >>> index("12"), index("0"), index("01"), index("²"), index("-"), index("1" * 19)
    (12, 0, None, None, None, None)
    """
    if not (0 < len(token) <= _MAX_INDEX_DIGITS and token.isascii() and token.isdigit()):
        return None
    if len(token) > 1 and token[0] == "0":
        return None
    return int(token)


def _index(node: list[Any], token: str) -> int | None:
    """The list index a token names (see :func:`index`), or ``None`` past the end or when
    it is no index."""
    found = index(token)
    return found if found is not None and found < len(node) else None


def get(document: Any, at: str | Sequence[str], default: Any = None) -> Any:
    """The node at ``at`` (a pointer such as ``"#/a/0"``, or its tokens) in ``document``;
    ``default`` when the path does not exist (a key absent, an index that is not one or
    past the end, a scalar on the way). Never raises.

    >>> get({"a": [{"b~c": 1}]}, "#/a/0/b~0c")
    1
    >>> get({"a": [1]}, ["a", "01"], "absent")
    'absent'
    """
    node = document
    for token in _tokens(at):
        if isinstance(node, Mapping):
            if token not in node:
                return default
            node = node[token]
        elif isinstance(node, list) and (index := _index(node, token)) is not None:
            node = node[index]
        else:
            return default
    return node


def trail(document: Any, at: str | Sequence[str]) -> Iterator[Any]:
    """The nodes on the way down ``at`` in ``document``: the one each token reaches, in
    order, stopping where the path does not exist (as :func:`get` finds it).

    >>> list(trail({"a": [{"b": 1}]}, ["a", "0", "b"])), list(trail({"a": 1}, "#/a/b"))
    ([[{'b': 1}], {'b': 1}, 1], [1])
    """
    node = document
    for token in _tokens(at):
        if isinstance(node, Mapping) and token in node:
            node = node[token]
        elif isinstance(node, list) and (index := _index(node, token)) is not None:
            node = node[index]
        else:
            return
        yield node


def replace(document: Any, at: str | Sequence[str], value: Any) -> Any:
    """``document`` with the node at ``at`` replaced by ``value``, copy on write: only
    the containers on the way are copied (shallowly), ``document`` is never changed and
    shares every other subtree with the result. ``value`` itself when ``at`` is the root;
    ``document`` itself when the path does not exist.

    >>> doc = {"a": {"b": 1}, "c": {"d": 2}}
    >>> new = replace(doc, "#/a/b", 3)
    >>> new, doc["a"]["b"], new["c"] is doc["c"]
    ({'a': {'b': 3}, 'c': {'d': 2}}, 1, True)
    """
    tokens = _tokens(at)
    chain = [document]
    for token in tokens:
        node = chain[-1]
        if isinstance(node, Mapping) and token in node:
            chain.append(node[token])
        elif isinstance(node, list) and (index := _index(node, token)) is not None:
            chain.append(node[index])
        else:
            return document
    for holder, token in zip(reversed(chain[:-1]), reversed(tokens), strict=True):
        if isinstance(holder, Mapping):
            value = {**holder, token: value}
        else:
            copied = list(holder)
            copied[int(token)] = value
            value = copied
    return value


def file_label(uri: str, base: str) -> str:
    """How messages and losses name the file ``uri`` (no fragment) read beside the root
    document at ``base``: ``""`` for the root itself, a path relative to the root's folder
    for another file on the same host (``"schemas/pet.yaml"``, ``"../common.yaml"``), the
    whole URI otherwise. Never an absolute path of the machine: a loss report reads the
    same wherever the document lies."""
    if uri == base:
        return ""
    here, there = urlsplit(base), urlsplit(uri)
    if (here.scheme, here.netloc) != (there.scheme, there.netloc) or not here.path:
        return uri
    folder = here.path.rpartition("/")[0] or "/"
    if there.path.startswith(folder + "/"):
        return there.path[len(folder) + 1 :]
    return posixpath.relpath(there.path, folder)
