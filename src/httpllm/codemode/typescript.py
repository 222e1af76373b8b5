"""JSON Schema -> TypeScript types: the words a model writes code against.

:class:`TypeScript` renders emended schemas (JSON Schema 2020-12, as compose and the
dialects leave them) as TypeScript type expressions: objects (optional members, index
signatures), unions (``anyOf``/``oneOf``/``type`` lists), intersections (``allOf``),
``enum``/``const`` literals, ``null``, arrays and tuples (``prefixItems``), maps
(``additionalProperties``/``patternProperties``), and ``$ref``\\ s to ``$defs`` as named
types, which is how recursion is spelled (``type Node = { children: Node[] }``).

Bottom-up over :func:`httpllm.walk.fold` (iterative: no input depth raises
``RecursionError``), each distinct node rendered once; a subtree nested deeper than
:data:`MAX_NESTING` levels is cut to ``unknown`` with a comment saying so, so the text a
checker parses stays shallow. The same schemas give the same text (names are claimed in a
deterministic order by the caller). Text from the document reaches the output only inside
``/** */`` comments (``*/`` escaped) and JSON string literals.

>>> ts = TypeScript()
>>> ts.expression({"type": "array", "items": {"enum": ["open", "closed"]}})
'("open" | "closed")[]'

Source: JSON Schema 2020-12 (validation and applicator vocabularies); TypeScript handbook,
"Object Types" (index signatures), "Everyday Types" (unions, literal types), tuples with
optional and rest elements.
"""

from __future__ import annotations

import json
import math
import re
import unicodedata
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from httpllm.pointer import unescape
from httpllm.walk import FoldMemo, children, fold

__all__ = ["MAX_NESTING", "RESERVED", "Rendered", "TypeScript", "comment", "identifier",
           "literal", "pascal", "property_key"]

MAX_NESTING = 24
"""Most levels of nested type literals one rendered type holds; a deeper subtree becomes
``unknown`` (the named types a ``$ref`` gives are leaves, so recursion is not nesting)."""

ATOM, INTERSECTION, UNION = 0, 1, 2
"""Binding strength of a rendered expression: where it needs parentheses."""

RESERVED = frozenset({
    # TypeScript/JavaScript reserved words and the type keywords (a type or binding name
    # may not be one of them)
    "break", "case", "catch", "class", "const", "continue", "debugger", "default", "delete",
    "do", "else", "enum", "export", "extends", "false", "finally", "for", "function", "if",
    "import", "in", "instanceof", "new", "null", "return", "super", "switch", "this",
    "throw", "true", "try", "typeof", "var", "void", "while", "with", "implements",
    "interface", "let", "package", "private", "protected", "public", "static", "yield",
    "any", "boolean", "number", "string", "symbol", "unknown", "never", "object", "bigint",
    "undefined", "await", "async", "type", "declare", "namespace", "module", "keyof",
    "readonly", "infer", "is", "asserts", "satisfies", "abstract", "as", "from", "of",
    # the global names the declarations themselves use
    "Promise", "Array", "Record", "Api", "ApiError", "api",
})
"""Names a generated type, interface or binding never takes."""

_IDENTIFIER = re.compile(r"^[A-Za-z_$][A-Za-z0-9_$]*$")
_INVISIBLE = frozenset(
    "\u034f\u115f\u1160\u17b4\u17b5\u180b\u180c\u180d\u180f\u3164\uffa0"
    + "".join(map(chr, range(0xFE00, 0xFE10))) + "".join(map(chr, range(0xE0100, 0xE01F0))))
"""The ``Default_Ignorable_Code_Point`` characters that are ``XID_Continue`` (Hangul
fillers, variation selectors, the grapheme joiner): invisible, so no model could type
them; they separate words (UAX #31 section 2.3 excludes them from identifiers)."""
_SPLIT_CASE = re.compile(r"[ad]+|A+(?!a)|A[ad]*")
"""``[a-z0-9]+|[A-Z]+(?![a-z])|[A-Z][a-z0-9]*`` over a word's case classes (:func:`_shape`)."""

_DOC_MAX = 160
"""Characters of a property's description kept in its comment."""

_PRIMITIVE = {"string": "string", "number": "number", "integer": "number",
              "boolean": "boolean", "null": "null"}


@dataclass(frozen=True, slots=True)
class Rendered:
    """One schema as TypeScript.

    Attributes:
        text: the type expression (``{ id: number; name?: string }``).
        height: levels of nested type literals in ``text``.
        strength: :data:`ATOM`, :data:`INTERSECTION` or :data:`UNION` (for parentheses).
        members: for an object type, its member lines (so the caller can lay a top-level
            type out one member per line); else ``None``.
    """

    text: str
    height: int = 0
    strength: int = ATOM
    members: tuple[str, ...] | None = None


UNKNOWN = Rendered("unknown")
NEVER = Rendered("never")


def pascal(raw: str) -> str:
    """A PascalCase identifier from a schema or tag name (``"simple-user"`` ->
    ``"SimpleUser"``, ``"宠物"`` -> ``"宠物"``, ``"café"`` -> ``"Café"``); ``"_"`` when
    ``raw`` has no letter or digit.

    Letters of every script are kept: ECMAScript identifiers are Unicode ``ID_Start``
    ``ID_Continue*`` (ECMA-262 section 12.7, Names and Keywords), and TypeScript and Deno
    accept them. The words are the runs of letters, marks and digits of ``raw`` in NFKC
    (UAX #31 section 5: the ``XID_`` properties are the ones closed under it, and it makes
    full-width ``\\uff21\\uff22\\uff23`` the ``ABC`` a model types) that are ``XID_Continue``
    (:meth:`str.isidentifier`, which does not normalize: ``XID_Continue`` is within
    ECMAScript's ``ID_Continue``); anything else (``_``, ``$``, punctuation, symbols,
    joiners, invisible fillers and variation selectors) separates words, which are split
    at case changes as in ASCII (an uncased letter, ``宠``, counts as lower case). A name
    whose first character is no ``XID_Start`` (a digit of any script, a combining mark)
    gets a leading ``_``. The letters are those of Python's Unicode tables (14.0 on
    3.11): checked in Deno 2.9 (TypeScript 6.0) across scripts.

    >>> pascal("nullable-simple_user.v2"), pascal("Zahlungsvorgänge"), pascal("3d")
    ('NullableSimpleUserV2', 'Zahlungsvorgänge', '_3d')
    """
    words = [w for part in _words(raw) for w in _split_case(part)]
    name = "".join(_upper_first(w) for w in words) or "_"
    return name if name[0].isidentifier() else "_" + name


def identifier(raw: str) -> str:
    """A camelCase identifier (``"list-global-advisories"`` -> ``"listGlobalAdvisories"``,
    ``"GetCustomers"`` -> ``"getCustomers"``, ``"Платежи"`` -> ``"платежи"``); ``"_"``
    when ``raw`` has none. Same words as :func:`pascal`.

    >>> identifier("get-content.v2")
    'getContentV2'
    """
    name = pascal(raw)
    if name.startswith("_"):
        return name
    shape = _shape(name)
    head = re.match(r"A+(?=Aa|d|$)|A", shape)
    if head is None:  # an uncased first letter (宠物): nothing to lower
        return name
    lowered = "".join(_lower(c) for c in name[:head.end()])
    return lowered + name[head.end():]


def _words(raw: str) -> list[str]:
    """The maximal runs of ``raw`` (NFKC) whose characters are letters, marks or digits
    that are ``XID_Continue``."""
    out: list[str] = []
    current: list[str] = []
    for c in unicodedata.normalize("NFKC", raw):
        if (unicodedata.category(c)[0] in "LMN" and ("a" + c).isidentifier()
                and c not in _INVISIBLE):
            current.append(c)
        elif current:
            out.append("".join(current))
            current = []
    if current:
        out.append("".join(current))
    return out


def _shape(word: str) -> str:
    """``word`` as case classes: ``A`` upper case, ``d`` a digit, ``a`` any other (lower
    case, uncased letters, marks)."""
    return "".join("A" if c.isupper() else "d" if c.isdecimal() else "a" for c in word)


def _split_case(word: str) -> list[str]:
    """``word`` split at its case changes (``"getHTTPRequest2"`` -> ``get``, ``HTTP``,
    ``Request2``), the rule ``[a-z0-9]+|[A-Z]+(?![a-z])|[A-Z][a-z0-9]*`` over
    :func:`_shape`, so that it holds for every cased script."""
    return [word[m.start():m.end()] for m in _SPLIT_CASE.finditer(_shape(word))]


def _upper_first(word: str) -> str:
    """``word`` with its first letter upper case, when that is one character (``ß``
    would become ``SS``, a letter more)."""
    first = word[:1].upper()
    return (first if len(first) == 1 else word[:1]) + word[1:]


def _lower(c: str) -> str:
    """``c`` lower case, when that is one character (``İ`` would become two)."""
    low = c.lower()
    return low if len(low) == 1 else c


def property_key(name: str) -> str:
    """A member name as TypeScript spells it: bare when it is an identifier, else a JSON
    string literal (``"x-total"``); ``__proto__`` as the computed key ``["__proto__"]``,
    the one spelling that makes it an own property of an object literal (a plain or quoted
    ``__proto__:`` sets the prototype, so a model copying it never sent the argument;
    ECMA-262 B.3.1, ``__proto__`` property names in object initializers).

    >>> property_key("__proto__")
    '["__proto__"]'
    """
    if name == "__proto__":
        return '["__proto__"]'
    return name if _IDENTIFIER.match(name) else json.dumps(name)


def comment(text: str, limit: int = _DOC_MAX) -> str:
    """``text`` fit for a ``/** */`` comment on one line: the first paragraph, spaces
    collapsed, cut to ``limit`` characters with ``…``, and ``*/`` broken so that no
    document text ends the comment. ``""`` for no text."""
    first = re.split(r"\n\s*\n", text.strip(), maxsplit=1)[0]
    flat = " ".join(first.split())
    if len(flat) > limit:
        flat = flat[: limit - 1].rstrip() + "…"
    return flat.replace("*/", "*\\/")


def literal(value: Any) -> str | None:
    """A JSON value as a TypeScript literal type (``"a"``, ``3``, ``null``, ``{"k": 1}``),
    or ``None`` when it has no literal type (non-finite numbers, nesting past
    ``json.dumps``)."""
    if isinstance(value, float) and not math.isfinite(value):
        return None
    try:
        return json.dumps(value, allow_nan=False, separators=(", ", ": "))
    except (ValueError, TypeError, RecursionError):
        return None


def _wrap(part: Rendered, strength: int) -> str:
    """``part``'s text, parenthesized where it binds looser than ``strength``."""
    return f"({part.text})" if part.strength > strength else part.text


def union(parts: Iterable[Rendered]) -> Rendered:
    """``A | B``: members deduplicated in order; ``unknown`` absorbs the rest; no member
    is ``never``."""
    seen: dict[str, Rendered] = {}
    for part in parts:
        if part.text == "unknown":
            return Rendered("unknown", part.height)
        for piece in _split_union(part):
            seen.setdefault(piece.text, piece)
    if not seen:
        return NEVER
    if len(seen) == 1:
        return next(iter(seen.values()))
    items = list(seen.values())
    return Rendered(" | ".join(_wrap(p, INTERSECTION) for p in items),
                    max(p.height for p in items), UNION)


def _split_union(part: Rendered) -> list[Rendered]:
    if part.strength != UNION or part.members is not None:
        return [part]
    return [Rendered(text=t, height=part.height) for t in _top_level(part.text, " | ")]


def _top_level(text: str, separator: str) -> list[str]:
    """``text`` split at ``separator`` outside brackets and string literals."""
    out, depth, start, i, quoted = [], 0, 0, 0, False
    while i < len(text):
        ch = text[i]
        if quoted:
            if ch == "\\":
                i += 1
            elif ch == '"':
                quoted = False
        elif ch == '"':
            quoted = True
        elif ch in "{[(<":
            depth += 1
        elif ch in "}])>":
            depth -= 1
        elif depth == 0 and text.startswith(separator, i):
            out.append(text[start:i])
            i += len(separator)
            start = i
            continue
        i += 1
    out.append(text[start:])
    return out


def intersection(parts: list[Rendered]) -> Rendered:
    """``A & B``: ``unknown`` parts dropped; ``unknown`` when none is left."""
    kept: dict[str, Rendered] = {}
    for part in parts:
        if part.text != "unknown":
            kept.setdefault(part.text, part)
    if not kept:
        return UNKNOWN
    if len(kept) == 1:
        return next(iter(kept.values()))
    items = list(kept.values())
    return Rendered(" & ".join(_wrap(p, ATOM) for p in items),
                    max(p.height for p in items), INTERSECTION)


class TypeScript:
    """Renders schemas as TypeScript, naming each ``$ref`` by ``ref_name``.

    Args:
        ref_name: ``"#/$defs/simple-user"`` -> the type name (``"SimpleUser"``), or
            ``None`` for a reference it cannot name (rendered ``unknown``). Default: the
            PascalCase of the last pointer segment.

    One instance keeps a memo of what it rendered (by node identity, holding the node),
    so the schemas of a whole application cost one pass; reference names must not change
    while it is used.
    """

    def __init__(self, ref_name: Callable[[str], str | None] | None = None) -> None:
        self.ref_name = ref_name or _last_segment
        self._memo = FoldMemo()

    def render(self, schema: Any) -> Rendered:
        """The schema as a :class:`Rendered` type (``True``/``{}`` -> ``unknown``,
        ``False`` -> ``never``)."""
        if schema is True:
            return UNKNOWN
        if schema is False:
            return NEVER
        if not isinstance(schema, dict):
            return UNKNOWN
        result: Rendered = fold(schema, self._combine, UNKNOWN, self._memo)
        return result

    def expression(self, schema: Any) -> str:
        """The schema as one line of TypeScript."""
        return self.render(schema).text

    def layout(self, schema: Any, indent: str = "", *, describe: bool = False) -> str:
        """The schema as TypeScript, an object's members one per line (for a top-level
        type or argument list), each with its description, format and default as a
        comment when ``describe`` (nested types never carry comments: they would cost
        more than they tell)."""
        rendered = self.render(schema)
        if not rendered.members:
            return rendered.text
        members = rendered.members
        if describe and isinstance(schema, dict):
            kids: dict[str, list[tuple[Any, Rendered]]] = {}
            for keyword, key, sub in children(schema):
                kids.setdefault(keyword, []).append((key, self.render(sub)))
            members = self._object(schema, kids, describe=True).members or members
        inner = indent + "  "
        lines = (line for member in members for line in member.split("\n"))
        return "{\n" + "".join(f"{inner}{line}\n" for line in lines) + indent + "}"

    def _combine(self, node: dict[str, Any], values: list[Rendered]) -> Rendered:
        if isinstance(node.get("$ref"), str):
            name = self.ref_name(node["$ref"])
            return UNKNOWN if name is None else Rendered(name)
        kids: dict[str, list[tuple[Any, Rendered]]] = {}
        for (keyword, key, _), value in zip(children(node), values, strict=True):
            if value.height >= MAX_NESTING:
                value = Rendered(f"unknown /* nested deeper than {MAX_NESTING} levels */")
            kids.setdefault(keyword, []).append((key, value))
        parts = [self._typed(node, kids)]
        for keyword in ("anyOf", "oneOf"):
            if keyword in kids:
                parts.append(union(v for _, v in kids[keyword]))
        parts.extend(v for _, v in kids.get("allOf", ()))
        return intersection(parts)

    def _typed(self, node: dict[str, Any], kids: Mapping[str, list[tuple[Any, Rendered]]]
               ) -> Rendered:
        """What ``const``, ``enum`` and ``type`` (or the keywords implying a type) say."""
        if "const" in node:
            text = literal(node["const"])
            return UNKNOWN if text is None else Rendered(text)
        if isinstance(node.get("enum"), list):
            texts = [literal(v) for v in node["enum"]]
            if any(t is None for t in texts):
                return UNKNOWN
            return union(Rendered(t) for t in texts if t is not None)
        types = node.get("type")
        if isinstance(types, str):
            types = [types]
        elif not isinstance(types, list):
            types = _implied(node)
        if not types:
            return UNKNOWN
        out = []
        for kind in types:
            if kind == "object":
                out.append(self._object(node, kids))
            elif kind == "array":
                out.append(_array(node, kids))
            else:
                out.append(Rendered(_PRIMITIVE.get(kind, "unknown")) if isinstance(kind, str)
                           else UNKNOWN)
        return union(out)

    def _object(self, node: dict[str, Any], kids: Mapping[str, list[tuple[Any, Rendered]]],
                *, describe: bool = False) -> Rendered:
        props = kids.get("properties", [])
        required = node.get("required")
        required = set(required) if isinstance(required, list) else set()
        found = node.get("properties")
        schemas: dict[str, Any] = found if isinstance(found, dict) else {}
        members, types, optional = [], [], False
        for key, value in props:
            sub = schemas.get(key)
            doc = _describe(sub) if describe and isinstance(sub, dict) else ""
            mark = "" if key in required else "?"
            optional = optional or bool(mark)
            members.append(f"{f'/** {doc} */{chr(10)}' if doc else ''}"
                           f"{property_key(str(key))}{mark}: {value.text};")
            types.append(value)
        extra = self._extra(node, kids)
        if extra is not None:
            index = extra if not types else union(
                [extra, *types, *([Rendered("undefined")] if optional else [])])
            members.append(f"[key: string]: {index.text};")
            types.append(index)
        if not members:
            return Rendered("Record<string, never>")
        height = 1 + max((t.height for t in types), default=0)
        return Rendered("{ " + " ".join(members) + " }", height, ATOM, tuple(members))

    def _extra(self, node: dict[str, Any], kids: Mapping[str, list[tuple[Any, Rendered]]]
               ) -> Rendered | None:
        """The index signature's type: ``additionalProperties`` and ``patternProperties``
        values; ``unknown`` for an object open to any property and listing none; ``None``
        when no other property is allowed or properties are listed without one."""
        values = [v for _, v in kids.get("patternProperties", [])]
        additional = node.get("additionalProperties")
        if additional is False:
            return union(values) if values else None
        if isinstance(additional, dict) and additional:
            values.extend(v for _, v in kids.get("additionalProperties", []))
        elif not node.get("properties") and not values:
            return UNKNOWN
        return union(values) if values else None


def _implied(node: dict[str, Any]) -> list[str]:
    """The type a node without ``type`` implies by its keywords, or none."""
    if any(k in node for k in ("properties", "additionalProperties", "patternProperties",
                               "required")):
        return ["object"]
    if "items" in node or "prefixItems" in node:
        return ["array"]
    return []


def _array(node: dict[str, Any], kids: Mapping[str, list[tuple[Any, Rendered]]]) -> Rendered:
    items = [v for _, v in kids.get("items", ())]
    rest = NEVER if node.get("items") is False else (items[0] if items else UNKNOWN)
    prefix = [v for _, v in kids.get("prefixItems", ())]
    if not prefix:
        return Rendered(f"{_wrap(rest, ATOM)}[]", rest.height + 1)
    given = node.get("minItems")
    least: int = given if isinstance(given, int) else 0
    slots = [f"{p.text}{'' if i < least else '?'}" for i, p in enumerate(prefix)]
    if rest.text != "never":
        slots.append(f"...{_wrap(rest, ATOM)}[]")
    return Rendered("[" + ", ".join(slots) + "]", 1 + max(p.height for p in [*prefix, rest]))


def _describe(schema: dict[str, Any]) -> str:
    """A property's comment: its description's first line, then its format and default."""
    parts = []
    description = schema.get("description")
    if isinstance(description, str) and description.strip():
        text = comment(description)
        parts.append(text if text[-1:] in ".!?…:" else text + ".")
    if isinstance(schema.get("format"), str):
        parts.append(f"Format: {comment(schema['format'], 40)}.")
    if "default" in schema:
        shown = literal(schema["default"])
        if shown is not None and len(shown) <= 40:
            parts.append("Default: " + shown.replace("*/", "*\\/") + ".")
    if schema.get("deprecated") is True:
        parts.append("@deprecated")
    return " ".join(parts)


def _last_segment(ref: str) -> str | None:
    """The default name of a reference: the PascalCase of its last pointer segment."""
    if not ref.startswith("#/"):
        return None
    return pascal(unescape(ref.rsplit("/", 1)[-1]))
