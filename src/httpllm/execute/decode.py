"""Turn a model's tool-call arguments back into the values the operation takes.

Parsing accepts the JSON text a model produced (or a mapping); a number without a fraction
(``5.0``, which JSON Schema counts as an integer) is read as an ``int``, so it is sent as
``5`` (:func:`_whole`). For a function rendered in
strict mode, :func:`decode` then undoes each strict rewrite, guided by the *original* schema
(``Function.schema``), walking the instance and the schema together with an explicit stack:

- a ``null`` for a property the original schema does not require is dropped where strict
  mode made every property required (OpenAI, DeepSeek): the model must emit every key, so
  ``null`` there means "not given" — also when the original schema accepts ``null``
  (optional *and* nullable: omitted). A ``null`` for a required property is kept, and so is
  every ``null`` of a strict mode that keeps optional properties optional (Claude);
- where the dialect offered the real-null marker (:data:`MARKED_NULL`, ``{"null": true}``,
  for a property optional *and* nullable in the document; ``dialects.openai.null_marker``),
  that object becomes a real ``null``, which is kept;
- an array of ``{"key": ..., "value": ...}`` entries where the original schema has a map
  (``additionalProperties`` and no ``properties``) becomes an object, in a function whose
  rendering spells maps so (:func:`~httpllm.dialects.maps_as_entries`: strict modes); a
  later entry with the same key replaces an earlier one, as duplicate names do in
  ``json.loads``. Elsewhere an array is no map (``[]`` for an object is refused, never
  read as ``{}``);
- a string where the original schema wants an object, an array or any value (and never a
  string) is JSON-decoded; a string that is not JSON is kept, so validation reports it;
- a string that is the JSON text of a non-string ``const`` or ``enum`` value of the original
  schema (``"5"`` for ``const: 5``, ``"null"``, ``"true"``, ``"[1, 2]"``) becomes that value
  where the tool sent the values as strings: everywhere in Gemini ``parameters`` (its enums
  hold strings only, and ``const`` is a one-value enum there), and in strict mode an
  untyped node whose values hold an object or an array. The text reads as the first value
  of the node with it, the one the tool offered (of ``enum: [1, "1"]`` only ``1``: the
  dialect reports ``"1"`` dropped). Across the members of a union a non-string value wins
  over a string with its text (``"5"`` under ``anyOf: [{type: string}, {const: 5}]`` is
  ``5``, in either order: else ``const: 5`` could never be sent); the dialect reports
  those strings lost (``dialects._texts.ambiguous_texts``). A member whose every string
  is JSON text (an object without properties) beside a string member is the one that
  loses: the string is kept. Elsewhere the values travel as themselves, and a
  string stays a string (``"5"`` beside ``const: 5`` in a union with a string is a
  string). An object tag so sent picks its variant as the value itself would.

Non-strict functions are only parsed, unless the dialect asked for decoding
(``Function.extra["decode"]``, Gemini ``parameters``): then every rewrite but the dropped
optional nulls is undone.
"""

from __future__ import annotations

import json
import math
import sys
from collections.abc import Mapping
from typing import Any

from httpllm import pointer
from httpllm._json import type_name, utf8_encodable
from httpllm._limits import DEFAULT_LIMITS
from httpllm._types import Schema
from httpllm.dialects import get_dialect, maps_as_entries, strict_objects
from httpllm.errors import InvalidArguments, UnknownDialect
from httpllm.execute.feedback import argument_error, show
from httpllm.normalize._context import value_key
from httpllm.records import Function

__all__ = ["MARKED_NULL", "Arguments", "allows_null", "decode", "depth", "parse"]

MARKED_NULL = {"null": True}
"""The strict-mode spelling of a real ``null`` (``dialects.openai.NULL_MARKER``)."""

Arguments = Mapping[str, Any] | str | bytes
"""A tool call's arguments: the JSON text the model produced, or an already parsed mapping."""


_UNIONS = ("anyOf", "oneOf", "allOf")
_OBJECT_KEYS = ("properties", "additionalProperties", "patternProperties", "required")
_ARRAY_KEYS = ("items", "prefixItems")


def _reject_constant(name: str) -> Any:
    """``json.loads`` hook: ``NaN`` and ``Infinity`` are not JSON (RFC 8259 section 6)."""
    raise ValueError(f"{name} is not a JSON number")


_EXACT = 2**53
"""Up to this magnitude a double holds every integer (IEEE 754 binary64: 53-bit significand)."""


def _finite(text: str) -> float:
    """``json.loads`` hook: a number too large for a double (``1e400``) is refused, not
    read as ``inf`` (which no JSON text can carry on)."""
    number = float(text)
    if math.isinf(number):
        raise ValueError(f"{text} is too large a number (past {sys.float_info.max:.4g})")
    return number


def _finite_whole(text: str) -> float | int:
    """:func:`_finite`, an integral number an ``int`` (:func:`_whole`)."""
    return _whole(_finite(text))


def _whole(number: float) -> float | int:
    """A number without a fraction (``5.0``, ``1e2``) as an ``int``, up to 2**53.

    JSON Schema counts ``5.0`` as an integer, so ``validate`` accepts it where the schema
    says ``integer``; sent as ``5.0`` (``?n=5.0``, ``{"k":2.0}``) it is no integer to a
    server's reader (openapi-core, Go's ``encoding/json``, serde). ``5`` is the same number
    to a reader of ``number``.

    >>> _whole(5.0), _whole(0.5), _whole(1e300)
    (5, 0.5, 1e+300)

    Source: JSON Schema 2020-12 Validation section 6.1.1 (``integer``); RFC 8259 section 6.
    """
    return int(number) if number.is_integer() and abs(number) <= _EXACT else number


def loads(text: str | bytes, *, whole: bool = True) -> Any:
    """Strict JSON: no ``NaN``/``Infinity`` (nor a number that overflows to it); too deep a
    nesting is a ``ValueError``. Bytes are read as ``json.loads`` reads them (UTF-8, -16
    or -32). ``whole``: integral numbers are ``int`` (:func:`_whole`: a model's arguments);
    else numbers stay as the text spells them (an API's answer, read as it came).

    Raises:
        ValueError: the text is not JSON.
    """
    try:
        return json.loads(text, parse_constant=_reject_constant,
                          parse_float=_finite_whole if whole else _finite)
    except RecursionError as exc:
        raise ValueError("nested too deeply") from exc


def _whole_numbers(value: Mapping[str, Any]) -> Mapping[str, Any]:
    """``value`` with each integral float an ``int`` (:func:`_whole`), as :func:`loads` reads
    JSON text: a mapping (an SDK's parsed call) is read again through JSON when it holds
    one; else, or when it is no JSON (a deep or foreign value, left to the later checks),
    it is returned as it is."""
    stack: list[Any] = [value]
    while stack:
        node = stack.pop()
        if isinstance(node, float) and _whole(node) is not node:
            break
        if isinstance(node, Mapping):
            stack.extend(node.values())
        elif isinstance(node, (list, tuple)):
            stack.extend(node)
    else:
        return value
    try:
        loaded: Mapping[str, Any] = loads(json.dumps(value, allow_nan=False))
    except (TypeError, ValueError, RecursionError):
        return value
    return loaded


def depth(value: Any) -> int:
    """Nesting depth of a JSON value, counted iteratively; stops counting past
    ``DEFAULT_LIMITS.value_depth``.

    >>> depth({"a": [1, {"b": 2}]})
    4
    """
    deepest = 0
    stack: list[tuple[Any, int]] = [(value, 1)]
    while stack:
        node, level = stack.pop()
        deepest = max(deepest, level)
        if level > DEFAULT_LIMITS.value_depth:
            break
        if isinstance(node, Mapping):
            stack.extend((child, level + 1) for child in node.values())
        elif isinstance(node, (list, tuple)):
            stack.extend((child, level + 1) for child in node)
    return deepest


def parse(function: Function, arguments: Arguments) -> dict[str, Any]:
    """The arguments object of a tool call, from JSON text or a mapping.

    Blank text is read as ``{}`` (some providers send ``""`` for a call without arguments).

    Raises:
        InvalidArguments: the text is not JSON, or the value is not a JSON object; its single
            error has pointer ``"#"``.
    """
    value: Any = arguments
    if isinstance(arguments, (bytes, bytearray)):
        try:
            value = bytes(arguments).decode("utf-8")
        except UnicodeDecodeError as exc:
            raise _not_json(function, f"bytes that are not UTF-8 ({exc.reason})") from exc
    if isinstance(value, str):
        if not value.strip():
            return {}
        try:
            value = loads(value)
        except ValueError as exc:
            raise _not_json(function, f"text that is not JSON ({exc})") from exc
    else:
        value = _whole_numbers(value) if isinstance(value, Mapping) else value
    if not isinstance(value, Mapping):
        error = argument_error("#", "type", "a JSON object of arguments", show(value))
        raise InvalidArguments(
            f"{function.name}: {error.message}", errors=(error,), pointer=function.pointer or None
        )
    broken = _lone_surrogate(value)
    if broken is not None:
        error = argument_error(broken, "json", "text in valid Unicode",
                               "a string with a lone surrogate (a \\ud800-\\udfff escape "
                               "without its pair)")
        raise InvalidArguments(
            f"{function.name}: {error.message}", errors=(error,), pointer=function.pointer or None
        )
    return dict(value)


def _lone_surrogate(value: Any) -> str | None:
    """The pointer of the first string (key or value) no UTF-8 request can carry: JSON's
    ``"\\ud800"`` escape decodes to a lone surrogate. ``None`` when there is none (told at
    C speed for most: :func:`~httpllm._json.utf8_encodable`). Iterative; each node keeps a
    link to its parent, so a deep value costs linear memory."""
    if utf8_encodable(value):
        return None
    stack: list[tuple[Any, Any]] = [(value, None)]  # (node, (token, parent link) | None)
    while stack:
        node, link = stack.pop()
        if isinstance(node, str):
            try:
                node.encode("utf-8")
            except UnicodeEncodeError:
                tokens: list[str] = []
                while link is not None:
                    token, link = link
                    tokens.append(token)
                return pointer.join("#", *reversed(tokens))
        elif isinstance(node, Mapping):
            for key, child in node.items():
                stack.append((key, link))
                stack.append((child, (str(key), link)))
        elif isinstance(node, (list, tuple)):
            stack.extend((child, (str(i), link)) for i, child in enumerate(node))
    return None


def _not_json(function: Function, received: str) -> InvalidArguments:
    error = argument_error("#", "json", "a JSON object of arguments", received)
    return InvalidArguments(
        f"{function.name}: {error.message}", errors=(error,), pointer=function.pointer or None
    )


def decode(function: Function, arguments: Arguments) -> dict[str, Any]:
    """Parse a tool call and undo the strict-mode rewrites of ``function``.

    The input is never mutated; containers on the way are rebuilt, values are shared.

    Example:
        C17 in strict mode: ``'{"city": "Oslo", "units": null, "days": null}'`` ->
        ``{"city": "Oslo"}`` (``units`` and ``days`` are optional, so ``null`` means "not
        given").

    Raises:
        InvalidArguments: the text is not a JSON object (see :func:`parse`).

    Source: OpenAI structured outputs, "all fields must be required" (optional fields are
    emulated with a union with ``null``); JSON Schema 2020-12 Core section 10 (applicators).
    """
    args = parse(function, arguments)
    if not (function.strict or function.extra.get("decode")):
        return args
    # Dialects without JSON Schema's full vocabulary (Gemini `parameters`) set
    # extra["decode"]: their values are converted back the same way, but a null there is
    # the model's own choice, so only strict mode drops optional nulls.
    walk = _Walk(function.schema, drop_nulls=function.strict and _nulls_not_given(function),
                 marked=function.strict and _offers_marker(function),
                 entries=_offers_entries(function), texts=_offers_texts(function))
    decoded: dict[str, Any] = walk.run(args)
    return decoded


def _nulls_not_given(function: Function) -> bool:
    """Whether the strict mode of the function's dialect makes every property required
    (:data:`~httpllm.dialects.StrictObjects` ``"required"``: OpenAI, DeepSeek), so that
    ``null`` means "not given". Claude's, Mistral's and vLLM's strict modes keep optional
    properties optional: a ``null`` there is the model's own value, as outside strict mode."""
    return strict_objects(function.dialect) == "required"


def _offers_marker(function: Function) -> bool:
    """Whether the rendered function offers the real-null marker: its strict rendering
    recorded the rewrite, a loss whose ``undo`` is ``"null-marker"`` (a scan of its
    losses, not of its schema, on every call; their notes are for people)."""
    return any(loss.undo == "null-marker" for loss in function.losses)


def _offers_texts(function: Function) -> bool:
    """Whether the rendered function sends its enums as strings, each value as its JSON
    text (Gemini ``parameters``): its rendering recorded the rewrite, a loss whose
    ``undo`` is ``"enum-as-text"`` (a scan of its losses, as for the marker). Elsewhere a
    const or enum value travels as itself, and a string is the string the model meant
    (``"5"`` beside ``const: 5`` in an ``anyOf`` with a string), but for what
    :func:`_typed_as_text` finds."""
    return any(loss.undo == "enum-as-text" for loss in function.losses)


def _offers_entries(function: Function) -> bool:
    """Whether the rendered function spells a map as ``{key, value}`` entries: a strict
    function of a dialect whose strict rules hold
    :func:`~httpllm.dialects.maps_as_entries` (OpenAI, Claude, Mistral; a strict
    ``Function`` built by hand, of a dialect with no strict mode or none registered, is
    read as OpenAI's). Elsewhere an array for a map is what the model sent (``[]`` for
    Gemini's JSON text of an object, for vLLM's strict map): refused by validation, never
    read as ``{}``."""
    if not function.strict:
        return False
    try:
        rules = get_dialect(function.dialect).strict_rules
    except UnknownDialect:
        rules = ()
    return not rules or maps_as_entries in rules


def _ambiguous(schema: Schema, root: Schema) -> bool:
    """Whether an alternative of ``schema`` declares an object whose only property is
    ``null`` (the marker is not offered there: it would read as that object)."""
    return any(set(_mapping(alt.get("properties"))) == {"null"}
               for alt in alternatives(schema, root))


class _Walk:
    """One walk of an instance alongside the original schema (explicit stack)."""

    def __init__(self, root: Schema, *, drop_nulls: bool = True, marked: bool = False,
                 entries: bool = True, texts: bool = False) -> None:
        self.root = root
        self.drop_nulls = drop_nulls
        self.marked = marked
        self.entries = entries
        self.texts = texts
        self.stack: list[tuple[Any, Schema, Any, Any]] = []

    def run(self, value: Any) -> Any:
        box: list[Any] = [None]
        self.stack.append((value, self.root, box, 0))
        while self.stack:
            item, schema, parent, key = self.stack.pop()
            parent[key] = self.step(item, alternatives(schema, self.root))
        return box[0]

    def step(self, value: Any, alts: list[dict[str, Any]]) -> Any:
        if isinstance(value, str):  # a const or enum value sent as a string (Gemini, strict)
            found = _read_text(value, [a for a in alts if self.texts or _typed_as_text(a)])
            if found is not _NONE:
                return found
        if isinstance(value, str) and _wants_encoded(alts):
            try:
                loaded = loads(value)
            except ValueError:
                return value
            # JSON text (a part collapsed past max_depth) spells its value as the tool
            # described it, in the dialect's own forms: decode those too (a map's entries,
            # the real-null marker), once (a string in the text stays a string).
            if self.marked and loaded == MARKED_NULL and any(
                    "null" in (_types(a) or ()) for a in alts):
                return None
            return self.step(loaded, alts) if isinstance(loaded, dict | list) else loaded
        if isinstance(value, dict):
            return self.object(value, alts)
        if isinstance(value, list):
            return self.array(value, alts)
        return value

    def object(self, value: dict[str, Any], alts: list[dict[str, Any]]) -> Any:
        objects = _narrow([a for a in alts if "object" in (_types(a) or ())], value,
                          self.texts)
        if not objects:
            return value
        declared = {name for a in objects for name in _mapping(a.get("properties"))}
        required = {
            name for a in objects for name in a.get("required", ()) if isinstance(name, str)
        }
        out: dict[str, Any] = {}
        for name, item in value.items():
            optional = name in declared and name not in required
            if self.drop_nulls and item is None and optional:
                continue
            child = _property_schema(objects, name)
            if self.marked and optional and item == MARKED_NULL and child is not None and (
                    allows_null(child, self.root) and not _ambiguous(child, self.root)):
                out[name] = None  # a real null, spelled with the marker
                continue
            out[name] = item
            if child is not None:
                self.stack.append((item, child, out, name))
        return out

    def array(self, value: list[Any], alts: list[dict[str, Any]]) -> Any:
        arrays = [a for a in alts if "array" in (_types(a) or ())]
        if arrays:
            out = list(value)
            for index, item in enumerate(value):
                child = _item_schema(arrays, index)
                if child is not None:
                    self.stack.append((item, child, out, index))
            return out
        maps = [a for a in alts if _is_map(a)] if self.entries else []
        if maps and _is_entries(value):
            entries = {entry["key"]: entry["value"] for entry in value}
            values: Schema = {"anyOf": [_map_values(a) for a in maps]}
            decoded: dict[str, Any] = dict.fromkeys(entries)
            for name, item in entries.items():
                self.stack.append((item, values, decoded, name))
            return decoded
        return value


def resolve(ref: str, root: Schema) -> Schema | None:
    """The node a local ``$ref`` (``"#/$defs/Pet"``) names in ``root``, or ``None``."""
    return pointer.get(root, ref) if ref.startswith("#") else None


def alternatives(schema: Schema, root: Schema) -> list[dict[str, Any]]:
    """The concrete schemas a node stands for: ``$ref`` followed, unions flattened.

    ``allOf`` members are listed beside ``anyOf``/``oneOf`` ones: for finding where a value
    goes that is enough, and validation checks the intersection afterwards. ``true`` and an
    unresolvable ``$ref`` are ``{}`` (any value); ``false`` is dropped.
    """
    out: list[dict[str, Any]] = []
    stack: list[Schema] = [schema]
    seen: set[str] = set()
    while stack:
        node = stack.pop()
        if node is True:
            out.append({})
            continue
        if not isinstance(node, dict):
            continue
        ref = node.get("$ref")
        if isinstance(ref, str):
            if ref not in seen:
                seen.add(ref)
                target = resolve(ref, root)
                stack.append({} if target is None else target)
            continue
        members = [m for key in _UNIONS for m in node.get(key, ()) if isinstance(m, (dict, bool))]
        if not members:
            out.append(node)
            continue
        stack.extend(reversed(members))
        rest = {k: v for k, v in node.items() if k not in _UNIONS}
        if "type" in rest or any(k in rest for k in (*_OBJECT_KEYS, *_ARRAY_KEYS)):
            out.append(rest)
    return out


def allows_null(schema: Schema, root: Schema) -> bool:
    """Whether ``schema`` explicitly allows ``null``: an alternative whose ``type``, ``const``
    or ``enum`` names it (a schema without a type, or ``true``, does not count).

    >>> allows_null({"anyOf": [{"type": "string"}, {"type": "null"}]}, {})
    True
    >>> allows_null({"properties": {"a": {}}}, {})
    False
    """
    return any("null" in (_types(alt) or ()) for alt in alternatives(schema, root))


def _types(alt: dict[str, Any]) -> frozenset[str] | None:
    """The JSON types a schema declares, inferred from its keywords; ``None``: any value."""
    declared = alt.get("type")
    if isinstance(declared, str):
        return frozenset((declared,))
    if isinstance(declared, list):
        return frozenset(t for t in declared if isinstance(t, str))
    if any(key in alt for key in _OBJECT_KEYS):
        return frozenset(("object",))
    if any(key in alt for key in _ARRAY_KEYS):
        return frozenset(("array",))
    if "const" in alt:
        return frozenset((type_name(alt["const"]),))
    if isinstance(alt.get("enum"), list):
        return frozenset(type_name(v) for v in alt["enum"])
    return None


def _wants_encoded(alts: list[dict[str, Any]]) -> bool:
    """A string here stands for a JSON-encoded object, array or any value (strict rewrite)."""
    types = [_types(a) for a in alts]
    if any(t is not None and "string" in t for t in types):
        return False
    return any(t is None or "object" in t or "array" in t for t in types)


def _mapping(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _narrow(objects: list[dict[str, Any]], value: dict[str, Any], texts: bool
            ) -> list[dict[str, Any]]:
    """Keep the object alternatives whose one-value tags (``const``/``enum``) match ``value``
    (``texts``: also a tag's JSON text, where the tool sent values as strings).

    Discriminator tags are required one-value ``enum``s in the emended schema; when no
    alternative matches, all are kept.
    """
    kept = [a for a in objects if _tags_match(a, value, texts)]
    return kept or objects


def _tags_match(alt: dict[str, Any], value: dict[str, Any], texts: bool) -> bool:
    for name, prop in _mapping(alt.get("properties")).items():
        if name not in value or not isinstance(prop, dict):
            continue
        given = value[name]
        if "const" in prop and not _same(prop["const"], given, texts):
            return False
        enum = prop.get("enum")
        if isinstance(enum, list) and len(enum) == 1 and not _same(enum[0], given, texts):
            return False
    return True


def _constants(alt: dict[str, Any]) -> list[Any]:
    """The values ``const`` and ``enum`` list (``const`` first; empty: neither)."""
    enum = alt.get("enum")
    listed = enum if isinstance(enum, list) else []
    return [alt["const"], *listed] if "const" in alt else listed


_NONE = object()
""":func:`_by_text` found no value."""


def _by_text(given: str, alt: dict[str, Any]) -> Any:
    """The first const or enum value of ``alt`` whose text is ``given`` (a string is its
    own text, any other value its JSON text), or :data:`_NONE`. The first, as the dialect
    offered it: of two values with one text it keeps the first and reports the others
    (``dialects._keywords.one_per_text``), so ``"1"`` is ``1`` under ``enum: [1, "1"]``
    and ``"1"`` under ``enum: ["1", 1]``.

    >>> _by_text("1", {"enum": [1, "1"]}), _by_text("1", {"enum": ["1", 1]})
    (1, '1')
    """
    for member in _constants(alt):
        if member == given if isinstance(member, str) else _is_text_of(given, member):
            return member
    return _NONE


def _read_text(given: str, alts: list[dict[str, Any]]) -> Any:
    """The value the text ``given`` stands for among ``alts`` (those whose values were sent
    as text), or :data:`_NONE`: the first non-string value of the first alternative with one
    of that text (:func:`_by_text`), else the string itself where an alternative lists it.
    A non-string value wins over a string of another member with its text (``"5"`` of
    ``anyOf: [{enum: ["5"]}, {const: 5}]`` is ``5``, whatever the members' order): the
    render reported those strings lost (``dialects._texts.ambiguous_texts``), as it
    reports the later values of one enum with one text (``one_per_text``).

    >>> _read_text("5", [{"enum": ["5"]}, {"const": 5}]), _read_text("a", [{"enum": ["a"]}])
    (5, 'a')
    """
    listed = False
    for alt in alts:
        found = _by_text(given, alt)
        if found is not _NONE and not isinstance(found, str):
            return found
        listed = listed or found is not _NONE
    return given if listed else _NONE


def _typed_as_text(alt: dict[str, Any]) -> bool:
    """Whether a strict mode sent ``alt``'s values as JSON text: a node without a type
    whose const or enum holds an object or an array (``dialects.typed_nodes``)."""
    return "type" not in alt and any(isinstance(v, (dict, list)) for v in _constants(alt))


def _is_text_of(given: Any, member: Any) -> bool:
    """Whether ``given`` is the JSON text of the non-string ``member``: how a dialect whose
    enums hold strings only (Gemini) sends a const or enum value of any other type.

    >>> _is_text_of("5", 5), _is_text_of("null", None), _is_text_of("5", "5")
    (True, True, False)
    """
    return isinstance(given, str) and not isinstance(member, str) and json.dumps(member) == given


def _same(member: Any, given: Any, texts: bool) -> bool:
    """Whether ``given`` is the tag value ``member`` as JSON values (``true`` is not ``1``,
    as Python's ``True == 1`` says; ``1`` is ``1.0``), or, with ``texts``, its JSON text.

    >>> _same(1, True, False), _same(1, 1.0, False), _same(True, "true", True)
    (False, True, True)
    """
    if isinstance(member, str) or isinstance(given, str):  # most tags: no JSON text made
        return member == given or (texts and _is_text_of(given, member))
    return value_key(member) == value_key(given) or (texts and _is_text_of(given, member))


def _property_schema(objects: list[dict[str, Any]], name: str) -> Schema | None:
    found: list[Schema] = []
    for alt in objects:
        properties = _mapping(alt.get("properties"))
        if name in properties:
            found.append(properties[name])
        elif isinstance(alt.get("additionalProperties"), (dict, bool)):
            found.append(alt["additionalProperties"])
    return {"anyOf": found} if found else None


def _item_schema(arrays: list[dict[str, Any]], index: int) -> Schema | None:
    found: list[Schema] = []
    for alt in arrays:
        prefix = alt.get("prefixItems")
        if isinstance(prefix, list) and index < len(prefix):
            found.append(prefix[index])
        elif isinstance(alt.get("items"), (dict, bool)):
            found.append(alt["items"])
    return {"anyOf": found} if found else None


def _is_map(alt: dict[str, Any]) -> bool:
    """An object schema without declared properties: a map from names to values (also
    one with ``patternProperties``, which strict rendering spells as entries too:
    ``dialects._objects.maps_as_entries``)."""
    return (
        "object" in (_types(alt) or ())
        and not _mapping(alt.get("properties"))
        and alt.get("additionalProperties", True) is not False
    )


def _map_values(alt: dict[str, Any]) -> Schema:
    values = alt.get("additionalProperties", True)
    return values if isinstance(values, (dict, bool)) else True


def _is_entries(value: list[Any]) -> bool:
    """``[{"key": "a", "value": 1}, ...]``: the strict-mode spelling of a map."""
    return all(
        isinstance(e, dict) and e.keys() == {"key", "value"} and isinstance(e["key"], str)
        for e in value
    )
