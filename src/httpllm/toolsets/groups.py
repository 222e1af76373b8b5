"""Split an application's functions into named tool lists under a size limit.

Functions are keyed (by their first tag, their first path segment, or a callable), keys
keep the order in which the document first uses them, and each key's functions, in
document order, are packed into as few lists as the limits allow (``issues``,
``issues_2`` ...). Nothing is dropped: a function whose own tokens pass ``max_tokens`` is
a list of its own, marked ``over``.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Literal

from httpllm._types import JSON
from httpllm.compose.names import transliterate
from httpllm.errors import HttpllmError
from httpllm.records import Function
from httpllm.toolsets._compiled import Compiled
from httpllm.toolsets.tokens import Tokenizer, count_tool, tokenizer_for

__all__ = ["UNTAGGED", "Group", "file_stem", "group_name", "groups", "key_of", "tools_of"]

UNTAGGED = "untagged"
"""The key of a function without tags (``by="tag"``) or path segment (``by="path"``)."""

By = Literal["tag", "path"] | Callable[[Function], str]
_UNSAFE = re.compile(r"[^A-Za-z0-9_-]+")
_NAME_MAX = 64
_FILE_BYTES = 200
"""UTF-8 bytes of a group's file name before ``.json``, suffixes included: a file name is
at most 255 bytes on ext4, XFS, Btrfs and APFS (255 UTF-16 units on NTFS, never more than
its UTF-8 bytes), whatever its characters."""
_VERSION = re.compile(r"^(v\d+([._]\d+)*|\d[\d.-]*|api)$", re.IGNORECASE)
_DEVICE = re.compile(r"CON|PRN|AUX|NUL|COM[0-9¹²³]|LPT[0-9¹²³]", re.IGNORECASE)
"""Windows' reserved device names: ``CON.json`` is the console, not a file, with any
extension and in any case, and the superscript digits count as digits (``COM¹``)
(learn.microsoft.com/windows/win32/fileio/naming-a-file)."""


@dataclass(frozen=True, slots=True, kw_only=True)
class Group:
    """One tool list.

    Attributes:
        name: unique among the groups in any case, ``^[A-Za-z0-9_-]{1,64}$`` (an OpenAI
            namespace name): the key, transliterated and sanitized (:func:`group_name`:
            ``宠物`` is ``ChongWu``), with ``_2``, ``_3`` ... when split.
        key: the grouping key it came from (the tag).
        file: the name of its file without ``.json`` (``compile --group-by``): the key
            with its letters of every script kept (:func:`file_stem`: ``宠物``,
            ``Zahlungsvorgänge``), split and made unique in any case as ``name`` is;
            ``name`` itself when the key is ASCII.
        functions: its functions, in document order.
        tokens: the sum of its tools' tokens, or ``None`` when not counted.
        over: a single function whose own tokens pass ``max_tokens``.
    """

    name: str
    key: str
    file: str
    functions: tuple[Function, ...]
    tokens: int | None = None
    over: bool = False

    def to_json(self) -> dict[str, JSON]:
        """The group without its tools: name, key, function names, tokens, over."""
        return {"name": self.name, "key": self.key,
                "functions": [f.name for f in self.functions], "tokens": self.tokens,
                "over": self.over}


def key_of(function: Function, by: By) -> str:
    """The grouping key of ``function``: its first tag (``"tag"``; without tags, as
    ``"path"``), its first literal path segment that is not a version or ``api``
    (``"path"``: ``/v1/customers/{id}`` -> ``customers``), or ``by(function)``;
    :data:`UNTAGGED` when it has none."""
    if callable(by):
        return str(by(function)) or UNTAGGED
    if by == "tag" and function.tags:
        return function.tags[0]
    if by in ("tag", "path"):
        segments = [s for s in function.path.split("/")
                    if s and not s.startswith("{") and not _VERSION.match(s)]
        return segments[0] if segments else UNTAGGED
    raise HttpllmError(f"group by {by!r}: expected 'tag', 'path' or a callable")


def group_name(key: str) -> str:
    """``key`` as a group name: transliterated as function names are
    (:func:`~httpllm.compose.names.transliterate`: a tag ``宠物`` is ``ChongWu``, no longer
    ``untagged``), then ``[A-Za-z0-9_-]``, at most 64 characters, never a Windows
    device name (``CON``, ``nul``, ``COM1`` ... get a ``_``: ``CON.json`` would open the
    console). :func:`groups` also keeps names apart in any case (``Pets``, ``pets-2``), so
    each is a file of its own on a case-insensitive file system.

    >>> group_name("pet store"), group_name("Aux"), group_name("console"), group_name("宠物")
    ('pet_store', 'Aux_', 'console', 'ChongWu')
    """
    name = _UNSAFE.sub("_", transliterate(key)).strip("_")[:_NAME_MAX] or UNTAGGED
    return f"{name}_" if _DEVICE.fullmatch(name) else name


def file_stem(key: str) -> str:
    """``key`` as the name of a file, ``.json`` left to add: :func:`group_name`'s rule
    with the letters, marks and digits of every script kept (Unicode categories L, M, N;
    a tag ``宠物`` was the file ``untagged-2.json``), NFC-normalized (APFS and HFS+ treat
    names as normalized, so two spellings of ``é`` are one file) and at most
    ``_FILE_BYTES`` UTF-8 bytes (file systems limit bytes, not characters). Everything
    else (``/ \\ : * ? " < > |``, controls, format characters such as bidirectional
    overrides, dots, spaces, symbols) is ``_``, so no name starts with a dot or ends with a
    dot or space; a Windows device name gets a ``_``. An ASCII key gives
    :func:`group_name`'s name (learn.microsoft.com/windows/win32/fileio/naming-a-file).

    >>> file_stem("宠物"), file_stem("café au lait"), file_stem("../Nul")
    ('宠物', 'café_au_lait', 'Nul_')
    """
    text = unicodedata.normalize("NFC", key)
    kept = "".join(c if c in "_-" or unicodedata.category(c)[0] in "LMN" else "\0"
                   for c in text)
    name = _cut(re.sub("\0+", "_", kept).strip("_")[:_NAME_MAX], _FILE_BYTES) or UNTAGGED
    return f"{name}_" if _DEVICE.fullmatch(name) else name


def _cut(name: str, limit: int) -> str:
    """The longest prefix of ``name`` (whole characters) of at most ``limit`` UTF-8
    bytes."""
    if len(name.encode("utf-8", "surrogatepass")) <= limit:
        return name
    size = 0
    for index, c in enumerate(name):
        size += len(c.encode("utf-8", "surrogatepass"))
        if size > limit:
            return name[:index]
    return name


def groups(app: Compiled, *, by: By = "tag", max_tools: int | None = None,
           max_tokens: int | None = None, tokenizer: Tokenizer | None = None,
           functions: Sequence[Function] | None = None) -> list[Group]:
    """``app``'s functions (or ``functions`` of it) as named tool lists, each within
    ``max_tools`` functions and ``max_tokens`` tokens (the sum of its tools' tokens, see
    :func:`~httpllm.toolsets.tokens.count_tool`).

    Same input, same groups. Every function is in exactly one group.

    Raises:
        HttpllmError: ``by`` is not ``"tag"``, ``"path"`` or a callable, or a limit is
            below 1.
        MissingTokenizer: ``max_tokens`` needs the ``tokens`` extra.
    """
    for option, value in (("max_tools", max_tools), ("max_tokens", max_tokens)):
        if value is not None and value < 1:
            raise HttpllmError(f"{option} must be at least 1, not {value}")
    members = app.functions if functions is None else functions
    count = None
    if max_tokens is not None or tokenizer is not None:
        counter = tokenizer or tokenizer_for(app.dialect)
        envelope, options = app.dialect.envelope, app.options
        count = {f.name: count_tool(envelope(f, options), counter) for f in members}
    buckets: dict[str, list[Function]] = {}
    for function in members:
        buckets.setdefault(key_of(function, by), []).append(function)
    out: list[Group] = []
    taken: set[str] = set()
    files: set[str] = set()
    for key, keyed in buckets.items():
        chunks = _pack(keyed, max_tools, max_tokens, count)
        base, stem = group_name(key), file_stem(key)
        for index, (chunk, over) in enumerate(chunks, start=1):
            name = _unique(base if index == 1 else f"{base}_{index}", taken)
            split = "" if index == 1 else f"_{index}"
            file = _unique_file(_cut(stem, _FILE_BYTES - len(split)) + split, files)
            tokens = None if count is None else sum(count[f.name] for f in chunk)
            out.append(Group(name=name, key=key, file=file, functions=tuple(chunk),
                             tokens=tokens, over=over))
    return out


def _pack(members: Sequence[Function], max_tools: int | None, max_tokens: int | None,
          count: dict[str, int] | None) -> list[tuple[list[Function], bool]]:
    """Greedy, in order: a new chunk when the next function would pass a limit."""
    chunks: list[tuple[list[Function], bool]] = []
    current: list[Function] = []
    used = 0
    for function in members:
        size = count[function.name] if count is not None else 0
        if max_tokens is not None and size > max_tokens:
            if current:
                chunks.append((current, False))
                current, used = [], 0
            chunks.append(([function], True))
            continue
        full = max_tools is not None and len(current) >= max_tools
        heavy = max_tokens is not None and used + size > max_tokens
        if current and (full or heavy):
            chunks.append((current, False))
            current, used = [], 0
        current.append(function)
        used += size
    if current:
        chunks.append((current, False))
    return chunks


def _unique(name: str, taken: set[str]) -> str:
    candidate, index = name, 2
    while candidate.lower() in taken:
        suffix = f"-{index}"
        candidate = name[:_NAME_MAX - len(suffix)] + suffix
        index += 1
    taken.add(candidate.lower())
    return candidate


def _unique_file(name: str, taken: set[str]) -> str:
    """:func:`_unique` for file names: apart in any case of any script (``str.casefold``,
    NFC) and cut to ``_FILE_BYTES`` bytes with the suffix."""
    candidate, index = name, 2
    while _folded(candidate) in taken:
        suffix = f"-{index}"
        candidate = _cut(name[:_NAME_MAX - len(suffix)], _FILE_BYTES - len(suffix)) + suffix
        index += 1
    taken.add(_folded(candidate))
    return candidate


def _folded(name: str) -> str:
    return unicodedata.normalize("NFC", name.casefold())


def tools_of(app: Compiled, functions: Sequence[Function]) -> list[JSON]:
    """The tool list of ``functions`` in ``app``'s envelope, as ``app.tools()`` shapes it."""
    envelope, options, group = app.dialect.envelope, app.options, app.dialect.group
    tools = [envelope(f, options) for f in functions]
    return group(tools) if group is not None else tools
