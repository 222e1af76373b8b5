"""What a JSON value is, in JSON Schema's type names, for messages and type checks."""

from __future__ import annotations

import json
import math
import re
from typing import Any

from httpllm.pointer import escape

__all__ = ["DOUBLE_MAX", "Unheld", "article", "first_unheld", "held", "kind", "scalar_text",
           "shown_number", "type_name", "utf8_encodable", "utf8_size", "valid_unicode"]

DOUBLE_MAX = 2 ** 1024 - 2 ** 971  # sys.float_info.max, as an integer
"""The largest number a double holds (IEEE 754 binary64); an integer past it has none."""

_NONZERO = re.compile(r"[1-9]")


class Unheld(float):
    """A number the document wrote that no double holds, as the loader read it: what
    Python made of it (``inf``, ``-inf``; ``0.0`` or ``-0.0`` for one nearer zero than
    5e-324, such as ``1e-400``) with ``text``, the number as written. A ``float``, so every
    reader takes it as one; :func:`held` tells it apart.

    Source: RFC 8259 section 6 (a number past IEEE 754 binary64 has no interoperable
    value); JSON Schema 2020-12 ``multipleOf`` "MUST be strictly greater than 0".
    """

    __slots__ = ("text",)

    text: str

    def __new__(cls, value: float, text: str) -> Unheld:
        out = super().__new__(cls, value)
        out.text = text
        return out

    def __reduce__(self) -> tuple[type[Unheld], tuple[float, str]]:
        """Copied and pickled with its text (``copy.deepcopy`` of a loaded document)."""
        return Unheld, (float(self), self.text)

    @classmethod
    def of(cls, value: float, text: str) -> float:
        """``value`` as it is, or an :class:`Unheld` when ``text`` names a number the double
        ``value`` does not hold (past the range, or non-zero yet read as ``0.0``).

        >>> Unheld.of(float("1e-400"), "1e-400").text, Unheld.of(0.0, "0e5")
        ('1e-400', 0.0)
        """
        if math.isinf(value) or (value == 0.0 and _NONZERO.search(
                text.lower().split("e", 1)[0]) is not None):
            return cls(value, text)
        return value


def held(value: Any) -> bool:
    """Whether a JSON number is one a double holds: not ``NaN``, an infinity, an
    :class:`Unheld`, or an integer past the largest double (other values: ``True``).

    >>> held(1.5), held(float("inf")), held(10 ** 400), held(Unheld(0.0, "1e-400"))
    (True, False, False, False)
    """
    if type(value) is float:
        return math.isfinite(value)
    if type(value) is int:
        return -DOUBLE_MAX <= value <= DOUBLE_MAX
    if isinstance(value, float):
        return math.isfinite(value) and not isinstance(value, Unheld)
    return True


def first_unheld(value: Any) -> float | int | None:
    """The first number in the JSON value ``value`` (searched iteratively) that no double
    holds (:func:`held`), or ``None``.

    >>> first_unheld({"a": [1, {"b": float("inf")}]}), first_unheld(["x", 2.5])
    (inf, None)
    """
    stack = [value]
    while stack:
        node = stack.pop()
        kind = type(node)
        if kind is str or kind is bool or node is None:
            continue
        if kind is dict:
            stack.extend(node.values())
        elif kind is list:
            stack.extend(node)
        elif isinstance(node, (int, float)) and not isinstance(node, bool) and not held(node):
            found: float | int = node
            return found
    return None


def shown_number(value: float | int) -> str:
    """A number :func:`held` refuses, as the document wrote it where known, for messages
    and the loss report (JSON has no text for ``inf``).

    >>> shown_number(float("-inf")), shown_number(Unheld(0.0, "1e-400")), shown_number(10**5)
    ('-Infinity', '1e-400', '100000')
    """
    if isinstance(value, Unheld):
        return value.text
    if isinstance(value, float):
        return "NaN" if math.isnan(value) else ("Infinity" if value > 0 else "-Infinity")
    text = str(value)
    return text if len(text) <= 60 else f"{text[:24]}...({len(text.lstrip('-'))} digits)"


def type_name(value: Any) -> str:
    """The JSON Schema type of a decoded JSON value: ``"null"``, ``"boolean"``,
    ``"integer"``, ``"number"``, ``"string"``, ``"array"`` or ``"object"`` (anything else).

    >>> [type_name(v) for v in (None, True, 1, 1.5, "a", [], {})]
    ['null', 'boolean', 'integer', 'number', 'string', 'array', 'object']
    """
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer"
    if isinstance(value, float):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list | tuple):
        return "array"
    return "object"


def kind(value: Any) -> str:
    """:func:`type_name` with its article, for messages: ``"an integer"``, ``"a string"``,
    ``"null"``.

    >>> kind(1), kind("x"), kind(None)
    ('an integer', 'a string', 'null')
    """
    return article(type_name(value))


def article(name: str) -> str:
    """``"an array"``, ``"a string"``; ``"null"`` as it is."""
    if name == "null":
        return "null"
    return f"an {name}" if name[:1] in "aeiou" else f"a {name}"


def scalar_text(value: Any) -> str:
    """A scalar the document gave where text was meant (a discriminator ``mapping`` key, a
    server variable's ``default`` or ``enum``), spelled as YAML and JSON write it: the
    loader spells a mapping key the same way (``true``, never Python's ``True``).

    >>> scalar_text(1), scalar_text(True), scalar_text(None), scalar_text("cat")
    ('1', 'true', 'null', 'cat')
    """
    if isinstance(value, bool):
        return "true" if value else "false"
    return "null" if value is None else str(value)


_SURROGATE = re.compile("[\ud800-\udfff]")
"""A surrogate code point: in a ``str`` decoded from JSON, one without its pair (a pair of
``\\ud83d\\ude00`` escapes decodes to one character), which UTF-8 cannot hold."""


def _encodable(text: str) -> bool:
    return text.isascii() or _SURROGATE.search(text) is None


def utf8_size(text: str) -> int:
    """Bytes of ``text`` as UTF-8, a lone surrogate (a ``\\ud800`` escape without its
    pair, which UTF-8 cannot hold) counted as its six-byte escape: what an ASCII JSON
    encoder (``json.dumps``' default, the providers' SDKs) writes for it.

    >>> utf8_size("é"), utf8_size("\\ud800")
    (2, 6)
    """
    return len(text) if text.isascii() else len(text.encode("utf-8", "backslashreplace"))


def utf8_encodable(value: Any) -> bool:
    """Whether ``value`` (JSON values) certainly holds no lone surrogate, told at C speed
    (its JSON text encoded); ``False`` also when that cannot tell (not JSON text, or
    deeper than the encoder goes): a walk must look."""
    try:
        json.dumps(value, ensure_ascii=False).encode()
    except (UnicodeEncodeError, TypeError, ValueError, RecursionError):
        return False
    return True


def _post_order(value: Any) -> list[tuple[Any, str]]:
    """Each dict and list in ``value`` once, with its (first) pointer, after every container
    below it (iterative: any depth)."""
    order: list[tuple[Any, str]] = []
    stack: list[tuple[Any, str, bool]] = [(value, "#", False)]
    seen: set[int] = set()
    while stack:
        node, at, below = stack.pop()
        if below:  # all of its children are in ``order`` by now
            order.append((node, at))
            continue
        if not isinstance(node, (dict, list)) or id(node) in seen:
            continue
        seen.add(id(node))
        stack.append((node, at, True))
        items = node.items() if isinstance(node, dict) else enumerate(node)
        stack.extend((child, f"{at}/{escape(key)}", False)
                     for key, child in reversed(list(items)))
    return order


def valid_unicode(value: Any) -> tuple[Any, list[str]]:
    """``value`` (JSON values) with every surrogate code point in a string or a key
    replaced by U+FFFD, and the pointers of the strings changed, each once (a key's is its
    value's, spelled with the key as replaced): what a strict UTF-8 encoder (pydantic's,
    the MCP SDK's) can serialize. Copy-on-write: the same objects where nothing changed
    (``value`` itself when nothing did). Iterative: any depth; a node shared by two
    places is fixed once and named at the first.

    >>> valid_unicode({"a": ["x\\ud800", "ok"]})
    ({'a': ['x\ufffd', 'ok']}, ['#/a/0'])
    """
    if isinstance(value, str):
        return (value, []) if _encodable(value) else (_SURROGATE.sub("\ufffd", value), ["#"])
    if utf8_encodable(value):  # most values hold none
        return value, []
    found: list[str] = []
    fixed: dict[int, Any] = {}
    for node, at in _post_order(value):  # a shared node fixed before any place holding it
        pairs = list(node.items()) if isinstance(node, dict) else list(enumerate(node))
        changed = False
        for index, (key, child) in enumerate(pairs):
            place = _SURROGATE.sub("\ufffd", f"{at}/{escape(key)}")  # (named in logs)
            new = fixed.get(id(child), child)
            if isinstance(child, str) and not _encodable(child):
                new = _SURROGATE.sub("\ufffd", child)
                found.append(place)
            if isinstance(key, str) and not _encodable(key):
                key = _SURROGATE.sub("\ufffd", key)
                found.append(place)
            if new is not child or key is not pairs[index][0]:
                pairs[index], changed = (key, new), True
        if changed:
            fixed[id(node)] = (dict(pairs) if isinstance(node, dict)
                               else [child for _, child in pairs])
    return fixed.get(id(value), value), list(dict.fromkeys(found))
