"""JSON pointers (RFC 6901) spelled like a ``$ref``: ``"#/components/schemas/Pet"``."""

from __future__ import annotations

import posixpath
from urllib.parse import unquote, urlsplit

__all__ = ["escape", "file_label", "join", "parts", "unescape"]


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
