"""Swagger 2.0 and OpenAPI 3.2 -> the document the 3.0/3.1 path reads, before ``refs``.

:func:`upgrade` picks the converter by the document's version: ``swagger: "2.0"`` ->
:mod:`httpllm.upgrade.swagger2` (an OpenAPI 3.0.3 dict), ``openapi: 3.2.x`` ->
:mod:`httpllm.upgrade.openapi32`; any other document is returned as it is. The files a 2.0
document refers to are upgraded as the loader reads them (:attr:`httpllm.load.Loader.transform`),
so a ``$ref`` into another 2.0 file finds its target in ``components`` too.

The result keeps a :class:`PointerMap` from new pointers to the original ones:
``compile`` names the original 2.0 location in every error, warning and loss.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urldefrag, urljoin

from httpllm.errors import HttpllmError
from httpllm.load import Loader
from httpllm.pointer import file_label, get, replace
from httpllm.upgrade import openapi32, schemas2, swagger2
from httpllm.upgrade._record import Note, PointerMap, Tally

__all__ = ["Note", "PointerMap", "Tally", "Upgraded", "upgrade"]

_SECTIONS = {new: old for old, new in swagger2.SECTIONS.items()}


@dataclass(frozen=True, slots=True, kw_only=True)
class Upgraded:
    """A document as the 3.x path reads it, and how it got there.

    Attributes:
        root: the document (the input itself when nothing was upgraded).
        version: the original version (``"2.0"``, ``"3.2"``), or ``""`` (not upgraded).
        pointers: new pointer -> original pointer (see :meth:`original`).
        notes: what could not be carried, at original pointers (files the loader reads
            later add theirs).
        tally: how often each rule applied (files read later add theirs).
    """

    root: Any
    version: str = ""
    pointers: PointerMap = field(default_factory=PointerMap)
    notes: list[Note] = field(default_factory=list)
    tally: Tally = field(default_factory=Tally)

    def original(self, pointer: str) -> str:
        """The original pointer of ``pointer`` (``"#/components/schemas/Pet"`` ->
        ``"#/definitions/Pet"`` for a 2.0 document; itself otherwise)."""
        return self.pointers.original(pointer) if self.pointers else pointer


def upgrade(root: Any, *, loader: Loader | None = None, base: str = "") -> Upgraded:
    """Upgrade a Swagger 2.0 or OpenAPI 3.2 document; return any other one as it is.

    Args:
        root: the decoded root document.
        loader: the document's loader; for a 2.0 document its ``transform`` is set so the
            files it reads are upgraded as well.
        base: the root document's URI (relative ``$ref``s resolve against it).

    Returns:
        The :class:`Upgraded` document (never raises: a malformed part is left for the
        3.x path to report, at its original pointer).
    """
    if not isinstance(root, dict):
        return Upgraded(root=root)
    if root.get("swagger") == "2.0" and "openapi" not in root:
        return _swagger2(root, loader, base)
    version = root.get("openapi")
    if isinstance(version, str) and version.startswith("3.2."):
        ctx = openapi32.Context()
        new = openapi32.convert(root, ctx)
        return Upgraded(root=new, version="3.2", pointers=ctx.pointers, notes=ctx.notes,
                        tally=ctx.tally)
    return Upgraded(root=root)


class _Files:
    """The 2.0 files of one document: reads the originals through the loader and upgrades
    each file the loader reads (its ``transform``)."""

    def __init__(self, root: dict[str, Any], loader: Loader | None, base: str,
                 done: Upgraded) -> None:
        self.loader = loader
        self.base = base
        self.done = done
        self.originals: dict[str, Any] = {base: root}
        self.path_items: dict[str, list[str]] = {}

    def label(self, uri: str) -> str:
        """How the resolver names a file in pointers (``""`` for the root)."""
        return file_label(uri, self.base)

    def context(self, original: dict[str, Any], uri: str) -> swagger2.Context:
        """A conversion context for the file at ``uri``."""
        return swagger2.Context(root=original, file=self.label(uri), pointers=self.done.pointers,
                                notes=self.done.notes, tally=self.done.tally,
                                resolve=lambda ref, file: self.resolve(ref, uri))

    def resolve(self, ref: str, at: str) -> Any:
        """The original node ``ref`` (found in the file ``at``) points to, or ``None``."""
        for _ in range(16):  # a chain of references, not a loop
            if ref.startswith("#"):
                document, fragment = at, ref[1:]
            elif at.startswith("root:"):
                return None  # a document given as text or a dict reads no file
            else:
                document, fragment = urldefrag(urljoin(at, ref))
            node = get(self._original(document), fragment)
            if not (isinstance(node, dict) and isinstance(node.get("$ref"), str)):
                return node
            ref, at = node["$ref"], document
        return None

    def _original(self, uri: str) -> Any:
        if uri not in self.originals and self.loader is not None:
            try:
                self.loader(uri)
            except HttpllmError:
                return None
        return self.originals.get(uri)

    def transform(self, uri: str, value: Any) -> Any:
        """The loader's hook: keep the original, return the file upgraded."""
        self.originals[uri] = value
        ctx = self.context(value if isinstance(value, dict) else {}, uri)
        if isinstance(value, dict) and value.get("swagger") == "2.0":
            new = swagger2.convert(value, ctx)
        else:
            new = swagger2.fragment(value, ctx)
        for fragment in self.path_items.get(uri, ()):
            new = replace(new, fragment, self._path_item(value, fragment, ctx))
        return new

    def _path_item(self, original: Any, fragment: str, ctx: swagger2.Context) -> Any:
        node = get(original, fragment)
        return schemas2.nodes(swagger2.path_item(node, ctx, "#" + fragment), ctx)

    def register(self, root: dict[str, Any]) -> None:
        """Note every path item the root takes from another file (upgraded when read)."""
        paths = root.get("paths")
        for item in paths.values() if isinstance(paths, dict) else ():
            ref = item.get("$ref") if isinstance(item, dict) else None
            if isinstance(ref, str) and not ref.startswith("#"):
                document, fragment = urldefrag(urljoin(self.base, ref))
                self.path_items.setdefault(document, []).append(fragment)


def _swagger2(root: dict[str, Any], loader: Loader | None, base: str) -> Upgraded:
    done = Upgraded(root=root, version="2.0",
                    pointers=PointerMap(sections={k: v for k, v in _SECTIONS.items()}))
    files = _Files(root, loader, base or "root:", done)
    files.register(root)
    if loader is not None:
        loader.transform = files.transform
    new = swagger2.convert(root, files.context(root, files.base))
    return Upgraded(root=new, version="2.0", pointers=done.pointers, notes=done.notes,
                    tally=done.tally)


