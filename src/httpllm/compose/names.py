"""Function names: from ``operationId`` (else method and path), transliterated, sanitized,
capped, unique; and argument names a dialect refuses, spelled anew.

The function name rule is the strictest common one, ``^[a-zA-Z_][a-zA-Z0-9_-]{0,63}$``,
which every provider accepts (OpenAI ``^[a-zA-Z0-9_-]{1,64}$``, Gemini must start with a
letter or ``_``, Bedrock 1-64; docs/provider-rules.md section 2a). Letters outside ASCII
are transliterated first (:func:`transliterate`: ``getCafé`` -> ``getCafe``, ``获取宠物``
-> ``HuoQuChongWu``) rather than dropped (``getCaf``), so the model reads what the
author wrote; an ASCII ``operationId`` is not touched. Long names keep a prefix
and a short hash of the whole name, so truncation never makes two names equal and the same
document always gives the same names. Argument names keep the document's spelling unless
the dialect refuses it (``Dialect.argument_characters``/``argument_max``, Anthropic); then
:func:`safe_argument_names` spells them with the dialect's characters, by the same rules.
"""

from __future__ import annotations

import functools
import hashlib
import re
import unicodedata
from collections.abc import Collection, Mapping

__all__ = ["NAME_MAX", "NamePool", "argument_name", "function_name", "rename_reason",
           "safe_argument_names", "sanitize", "transliterate"]

NAME_MAX = 64
_INVALID = re.compile(r"[^A-Za-z0-9_-]+")
_PARAM = re.compile(r"\{([^}]*)\}")


def transliterate(raw: str) -> str:
    """``raw`` in ASCII: each character outside ASCII replaced by its transliteration
    (``anyascii``, ISC license, one table per script after common romanizations: Latin
    letters lose their marks, ``é`` -> ``e``, ``ä`` -> ``a``, ``İ`` -> ``I``, ``ß`` ->
    ``ss``, ``ø`` -> ``o``, ``æ`` -> ``ae``; Cyrillic, Greek, CJK, Arabic ... spelled in
    Latin letters; format characters such as zero-width spaces and bidirectional
    overrides dropped), after NFC so a letter and its combining mark are one. A symbol
    outside ASCII (an emoji, ``✓``, ``€``) is a space, never spelled out (anyascii writes
    ``🎉`` as ``:tada:`` and ``✓`` as ``v``: a word the operation does not say). ASCII text
    is returned as it is, so a name from an ASCII ``operationId`` never changes (and
    ``anyascii`` is imported for the first text outside ASCII only: docs/architecture.md,
    "What a compile imports").

    >>> transliterate("getCafé"), transliterate("Straße"), transliterate("获取宠物")
    ('getCafe', 'Strasse', 'HuoQuChongWu')
    >>> transliterate("🎉party"), transliterate("getPets✓")
    (' party', 'getPets ')
    """
    if raw.isascii():
        return raw
    from anyascii import anyascii

    text = "".join(" " if not c.isascii() and unicodedata.category(c)[0] == "S" else c
                   for c in unicodedata.normalize("NFC", raw))
    return anyascii(text)


def sanitize(raw: str, limit: int = NAME_MAX) -> str:
    """Make ``raw`` a valid function name of at most ``limit`` characters: transliterated
    (:func:`transliterate`), each run of characters outside ``A-Z a-z 0-9 _ -`` one ``_``,
    ``_`` trimmed at both ends; too long, a prefix and a hash of ``raw`` itself (two
    ``operationId`` values that transliterate alike still get different hashes).

    >>> sanitize("repos/get-content.v2"), sanitize("getCafé")
    ('repos_get-content_v2', 'getCafe')
    """
    name = _INVALID.sub("_", transliterate(raw)).strip("_") or "operation"
    if not (name[0].isalpha() or name[0] == "_"):
        name = "_" + name
    if len(name) > limit:
        name = _cut(name, raw, limit, "_-")
    return name


def _digest(raw: str) -> str:
    """8 hex digits of the SHA-1 of ``raw`` (lone surrogates included)."""
    return hashlib.sha1(raw.encode("utf-8", "surrogatepass")).hexdigest()[:8]


def _cut(name: str, raw: str, limit: int, trim: str) -> str:
    """``name`` cut to ``limit``: a prefix (``trim`` stripped at its end), ``_`` and a hash
    of ``raw``; too short a limit for a hash: plain truncation (the callers still make
    names unique)."""
    digest = _digest(raw)
    keep = limit - len(digest) - 1
    return name[:keep].rstrip(trim) + "_" + digest if keep > 0 else name[:limit]


def function_name(operation_id: str | None, method: str, path: str) -> str:
    """The raw name of an operation before sanitizing: its ``operationId`` or ``get_pets_id``.
    An ``operationId`` with no character a name may hold once transliterated (``"..."``,
    a zero-width space) is passed over like a missing one: the method and path say more
    than ``operation``; ``"получить"`` is kept (it becomes ``poluchit``)."""
    if isinstance(operation_id, str) and _INVALID.sub("", transliterate(operation_id)):
        return operation_id
    words = _PARAM.sub(lambda m: "by_" + m.group(1), path)
    return f"{method}_{words}"


def rename_reason(operation_id: str, name: str, limit: int = NAME_MAX,
                  holder: str | None = None) -> str:
    """Why the function named ``name`` is not named ``operation_id`` (the two differ), in
    words for the loss report: characters a name may not hold, the length, a name an
    earlier operation took (``holder``: the name it got, which may differ in case; the
    sanitized ``operation_id`` when not given), or no character left at all.
    Letters outside ASCII are named as transliterated.

    >>> rename_reason("9lives", "_9lives")
    'a name starts with a letter or _ (function names match ^[a-zA-Z_][a-zA-Z0-9_-]{0,63}$)'
    >>> rename_reason("getA", "getA_2")
    "an earlier operation is named 'getA' (names are unique, case aside): numbered"
    >>> rename_reason("GETA", "GETA_2", holder="getA")
    "an earlier operation is named 'getA' (names are unique, case aside): numbered"
    """
    plain = transliterate(operation_id)
    if not _INVALID.sub("", plain):
        return ("no character a function name may hold (A-Z a-z 0-9 _ -): named from the "
                "method and path")
    reasons = []
    if plain != operation_id:
        reasons.append("characters outside ASCII transliterated (anyascii)")
    replaced = _INVALID.sub("_", plain)
    bare = replaced.strip("_") or "operation"
    if replaced != plain:
        reasons.append("characters outside A-Z a-z 0-9 _ - replaced by _")
    if bare != replaced:
        reasons.append("_ trimmed at the ends")
    if not (bare[0].isalpha() or bare[0] == "_"):
        reasons.append("a name starts with a letter or _")
    if len(bare) + (bare[0] != "_" and not bare[0].isalpha()) > limit:
        reasons.append(f"over {limit} characters: cut, with a hash of the whole")
    if reasons:
        reasons[-1] += f" (function names match ^[a-zA-Z_][a-zA-Z0-9_-]{{0,{limit - 1}}}$)"
    clean = sanitize(operation_id, limit)
    if name != clean:
        reasons.append(f"an earlier operation is named {holder or clean!r} (names are "
                       "unique, case aside): numbered")
    return "; ".join(reasons)


class NamePool:
    """Hands out unique names in document order: a repeated name gets ``_2``, ``_3`` ..."""

    def __init__(self, limit: int = NAME_MAX) -> None:
        self.limit = limit
        self.taken: dict[str, str] = {}  # lower case -> the name handed out

    def claim(self, raw: str) -> str:
        """A unique sanitized name for ``raw``."""
        name = sanitize(raw, self.limit)
        candidate, i = name, 2
        while candidate.lower() in self.taken:
            suffix = f"_{i}"
            candidate = name[: self.limit - len(suffix)] + suffix
            i += 1
        self.taken[candidate.lower()] = candidate
        return candidate

    def holder(self, name: str) -> str | None:
        """The name handed out that ``name`` clashes with (the same, case aside), or
        ``None``: ``holder("GETA")`` is ``"getA"`` once ``getA`` was claimed."""
        return self.taken.get(name.lower())


@functools.cache
def _outside(characters: str) -> re.Pattern[str]:
    return re.compile(f"[^{characters}]+")


def argument_name(raw: str, characters: str | None, limit: int | None, stem: str) -> str:
    """``raw`` spelled with ``characters`` only (the inside of a character class, holding
    ``_``, ``a-z`` and ``0-9``, which the stems and hashes use; ``None``: any), at most
    ``limit`` characters long (``None``: any length).

    Letters are transliterated as function names are (:func:`transliterate`: ``naïve`` ->
    ``naive``, ``ペット`` -> ``petto``, where NFKD alone left ``query_<hash>``); each run of
    other characters outside the class becomes one ``_``, and ``_`` is trimmed at both
    ends. Nothing left: ``<stem>_<hash>``; too long: a prefix, ``_`` and a hash, as
    :func:`sanitize` cuts function names (8 hex digits of the SHA-1 of ``raw``).

    >>> argument_name("filter[status]", "a-zA-Z0-9_.-", 64, "query")
    'filter_status'
    >>> argument_name("$top", "a-zA-Z0-9_.-", 64, "query")
    'top'
    """
    name = raw
    if characters is not None:
        name = _outside(characters).sub("_", transliterate(raw)).strip("_")
        if not name:
            name = f"{stem}_{_digest(raw)}"
    if limit is not None and len(name) > limit:
        name = _cut(name, raw, limit, "_")
    return name


def safe_argument_names(refused: Mapping[str, str], characters: str | None,
                        limit: int | None, taken: Collection[str]) -> dict[str, str]:
    """A new name for each name of ``refused`` (``name -> stem``, in argument order), by
    :func:`argument_name`, unique among themselves and ``taken`` (the names that stay).
    A name spelled like one taken gets ``_<hash>`` of its own name (then ``_2``, ``_3``),
    so its spelling does not depend on the order of the others.

    >>> safe_argument_names({"tag[a]": "query", "tag(a)": "query"}, "a-z0-9_", 64, ())
    {'tag[a]': 'tag_a', 'tag(a)': 'tag_a_08aeeffb'}
    """
    used = set(taken)
    out: dict[str, str] = {}
    for raw, stem in refused.items():
        name = argument_name(raw, characters, limit, stem)
        if name in used:
            hashed = f"{name}_{_digest(raw)}"
            name = hashed if limit is None or len(hashed) <= limit else _cut(name, raw,
                                                                              limit, "_")
            base, i = name, 2
            while name in used:
                suffix = f"_{i}"
                name = (base if limit is None else base[: limit - len(suffix)]) + suffix
                i += 1
        used.add(name)
        out[raw] = name
    return out
