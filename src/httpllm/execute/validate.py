"""Check a tool call against the function's original schema and OpenAPI's parameter rules.

The validator is jsonschema-rs (Draft 2020-12, formats asserted, references never fetched):
its ``pattern`` and ``format: regex`` follow ECMA-262 as JSON Schema requires, where Python's
``re`` rejects valid patterns such as ``(?<name>...)``; and it needs no optional packages to
assert ``date-time``, ``email``, ``uri`` and the other formats, which ``jsonschema`` skips
silently without them. Its errors are turned into :class:`ArgumentError` records; a failed
``anyOf`` is reported through the alternative the value came closest to.

The validator is compiled once per function from ``function.schema`` with every exclusive
union spelled ``oneOf`` again (:func:`httpllm.normalize.unions.as_one_of`): where the
document wrote ``oneOf``, a value matching several alternatives is refused, naming them.

One contract with what the model was shown: a strict function's tool closes every object
that lists ``properties`` (``additionalProperties: false``), so its validator does too
(:func:`_closed`): an undeclared property, a ``readOnly`` one included (the request schema
has none), is refused rather than sent. vLLM's grammar (``llama``, ``qwen`` strict) closes
only the objects that say nothing of other properties, so there an ``additionalProperties``
the document wrote is kept, as the tool keeps it. An argument kept from the model (``separate=``)
is refused when the model sends it: only the host's ``host_arguments`` give its value.
A ``readOnly`` property of the request body (which the request schema no longer has) is
refused wherever the compile found its place (``Function.extra["read_only"]``), strict
or not, in any case (``ID`` for ``id``: servers that bind JSON keys case-blind read it as
``id``): OpenAPI says it is not sent.
"""

from __future__ import annotations

import base64
import binascii
import threading
from collections import deque
from collections.abc import Callable, Mapping
from typing import Any, Literal

import jsonschema_rs

from httpllm import _json, pointer
from httpllm._limits import DEFAULT_LIMITS
from httpllm._memo import BoundedIdentityMemo
from httpllm._types import Schema
from httpllm.dialects import strict_objects
from httpllm.errors import InvalidArguments, LimitExceeded, SchemaError
from httpllm.execute import formats, wire
from httpllm.execute.body import silent_properties
from httpllm.execute.decode import Arguments, decode, depth
from httpllm.execute.feedback import (
    ArgumentError,
    ArgumentNote,
    ValidationResult,
    argument_error,
    show,
    where,
)
from httpllm.normalize.unions import as_one_of
from httpllm.records import Argument, Function
from httpllm.walk import IN_MAPPING, transform

__all__ = ["omit_nulls", "validate"]


def _is_base64(text: str) -> bool:
    try:
        base64.b64decode(text, validate=True)
    except (binascii.Error, ValueError):
        return False
    return True


_FORMATS: dict[str, Callable[[str], bool]] = {"byte": _is_base64}
"""OpenAPI Format Registry string formats jsonschema-rs does not know (``byte``: RFC 4648
base64). ``binary`` and ``password`` assert nothing; ``int32``, ``int64``, ``float``,
``double`` and the other sized numbers apply to numbers, which custom formats never see:
their ranges are bounds in the schema the validator is compiled from (:mod:`.formats`)."""

_FORMAT_HINTS = {
    "date-time": " (RFC 3339, e.g. 2024-01-31T09:30:00Z)",
    "date": " (YYYY-MM-DD)",
    "time": " (RFC 3339 time, e.g. 09:30:00Z)",
    "byte": " (base64)",
}


def validate(
    function: Function,
    arguments: Arguments,
    *,
    host_arguments: Mapping[str, Any] | None = None,
    files: Mapping[str, Any] | None = None,
) -> ValidationResult:
    """Decode a tool call and check it against ``function.schema``.

    Every constraint of the original schema is enforced, including those a dialect stripped
    (``format``, ``pattern``, bounds, ``enum``, discriminator tags, ``required``), the
    ranges of numeric formats (``int32``: -2**31 to 2**31 - 1, ``float`` ...) and ``oneOf``
    (a value matching several of its alternatives is an error naming them, even where the
    tool spells the union ``anyOf``). OpenAPI's parameter rules are checked too (and, for a
    strict function, ``additionalProperties: false`` on every object with ``properties``,
    as its tool says): an empty string for a query parameter without ``allowEmptyValue``
    is an error (OpenAPI 3.1.0 section 4.8.12.2); top-level names outside the parameter
    map are errors, and so is a model's value for an argument kept from it (``separate=``).
    So is a value the request would not carry (:mod:`httpllm.execute.wire`): a path value
    that expands to nothing, ``"."`` or ``".."`` (it would empty or climb the path, RFC
    3986 section 5.2.4); ``null``, ``[]`` or ``{}`` for a required parameter or form
    property, which serialize to nothing; a required body that
    is ``null`` (unless its JSON schema explicitly allows ``null``) or encodes to no bytes;
    an empty query member (``[""]``) without ``allowEmptyValue``, a member holding the
    delimiter it is joined with as sent, an unescaped ``style: cookie`` value and a
    ``null`` item of a form array, which would not arrive as given.

    A ``null`` for an optional value that does not allow ``null`` is left out, with a note
    (:func:`omit_nulls`): ``build_request`` leaves it out the same way.

    Args:
        function: the compiled function.
        arguments: the model's arguments, JSON text or a mapping.
        host_arguments: values the host supplies (``separate=`` arguments); merged over the
            decoded arguments. The model's own value for a separated argument is an
            error: the tool it saw has no such argument.
        files: the ``files=`` given to :func:`httpllm.execute.build_request`; errors at
            those pointers (``"#/body/avatar"``) are not reported, the file fills them.

    Returns:
        The result; not JSON, not an object or too deep gives one error at ``"#"``.

    Raises:
        SchemaError: ``function.schema`` is not a valid JSON Schema.

    Source: JSON Schema Validation 2020-12; OpenAPI 3.1.0 section 4.8.12 (Parameter Object).
    """
    try:
        decoded = decode(function, arguments)
    except InvalidArguments as exc:
        return ValidationResult(function=function.name, errors=exc.errors, arguments=None)
    hidden = [argument_error(pointer.join("#", a.name), "additionalProperties",
                             f'no argument "{a.name}" (the host supplies it)',
                             show(decoded[a.name]))
              for a in function.arguments if a.separated and a.name in decoded]
    if hidden:
        return ValidationResult(function=function.name, errors=tuple(hidden), arguments=None)
    merged = {**decoded, **host_arguments} if host_arguments else decoded
    if depth(merged) > DEFAULT_LIMITS.value_depth:
        error = argument_error(
            "#", "depth", f"at most {DEFAULT_LIMITS.value_depth} levels of nesting",
            "a deeper value"
        )
        return ValidationResult(function=function.name, errors=(error,), arguments=None)
    merged, notes = omit_nulls(function, merged)
    filled = tuple(pointer.join("#", *pointer.parts(key)) for key in files or ())
    errors = [*_schema_errors(function, merged), *_parameter_errors(function, merged),
              *_read_only_errors(function, merged)]
    errors.extend(_wire_errors(function, merged, errors, filled))
    kept: dict[tuple[str, str], ArgumentError] = {}
    for error in errors:
        if not any(error.pointer == p or error.pointer.startswith(p + "/") for p in filled):
            kept.setdefault((error.pointer, error.keyword), error)
    return ValidationResult(
        function=function.name, errors=tuple(kept.values()), arguments=merged, notes=notes
    )


_NOT_A_NULL_MISS = frozenset(("additionalProperties", "unevaluatedProperties", "false", "json"))
"""Errors at a ``null`` that leaving it out must not hide: a name the schema does not take."""


def omit_nulls(
    function: Function, args: dict[str, Any]
) -> tuple[dict[str, Any], tuple[ArgumentNote, ...]]:
    """``args`` without the ``null``s given for optional values that do not allow ``null``.

    Outside strict mode a model often sends ``null`` for an argument or property it means
    to leave out. Where the schema refuses ``null`` there and does not require the value,
    the ``null`` is left out and a note says so; a ``null`` the schema allows is kept (it
    is sent), and a ``null`` for a required value stays an error. The schema decides both,
    through ``$ref``, ``allOf`` and unions: a ``null`` is a candidate when the schema
    reports an error at it, and it is left out when the call without it has no
    ``required`` error there. ``args`` is not changed.

    >>> from httpllm.records import Argument, Function
    >>> f = Function(name="f", description="", parameters={}, method="get", path="/",
    ...              operation_id=None, tags=(), deprecated=False, arguments=(),
    ...              schema={"type": "object", "properties": {"q": {"type": "string"}}})
    >>> omit_nulls(f, {"q": None})[0]
    {}

    Returns:
        The arguments (the same object when nothing was left out) and one note per ``null``
        left out.

    Raises:
        SchemaError: ``function.schema`` is not a valid JSON Schema.

    Source: this project's rule for issue 18, kind 3 (OpenAPI gives ``null`` no meaning for
    a value whose schema refuses it; RFC 6570 section 2.3 treats it as undefined).
    """
    if not _has_null(args):
        return args, ()
    candidates = [
        e.pointer
        for e in _schema_errors(function, args)
        if e.keyword not in _NOT_A_NULL_MISS and _is_null_member(args, e.pointer)
    ]
    candidates = list(dict.fromkeys(candidates))
    if not candidates:
        return args, ()
    pruned = _without(args, candidates)
    needed = {
        e.pointer for e in _schema_errors(function, pruned) if e.keyword == "required"
    } & set(candidates)
    if needed:
        candidates = [c for c in candidates if c not in needed]
        pruned = _without(args, candidates) if candidates else args
    notes = tuple(
        ArgumentNote(
            pointer=at,
            message=f"{where(at)}: null for an optional value that does not allow null; "
            "left out (sent as if not given)",
        )
        for at in candidates
    )
    return pruned, notes


def _has_null(value: Any) -> bool:
    stack = [value]
    while stack:
        node = stack.pop()
        if node is None:
            return True
        if isinstance(node, dict):
            stack.extend(node.values())
        elif isinstance(node, (list, tuple)):
            stack.extend(node)
    return False


def _is_null_member(args: dict[str, Any], at: str) -> bool:
    """Whether ``at`` names a ``null`` that is a property of an object."""
    tokens = pointer.split(at)
    if not tokens:
        return False
    node = pointer.get(args, tokens[:-1])
    return isinstance(node, dict) and tokens[-1] in node and node[tokens[-1]] is None


def _without(args: dict[str, Any], pointers: list[str]) -> dict[str, Any]:
    """A copy of ``args`` without the object members at ``pointers`` (copied on the way)."""
    root = dict(args)
    for at in pointers:
        tokens = pointer.split(at)
        node: Any = root
        for token in tokens[:-1]:
            if isinstance(node, dict):
                child = node[token]
                node[token] = child = dict(child) if isinstance(child, dict) else list(child)
            else:
                child = node[int(token)]
                node[int(token)] = child = dict(child) if isinstance(child, dict) else list(child)
            node = child
        node.pop(tokens[-1], None)
    return root


_CACHE_SIZE = 256
"""Compiled validators kept (least recently used dropped first)."""

_Compiled = tuple[Schema, Schema, jsonschema_rs.Validator]
"""(the validation schema, its bounded copy, the validator compiled from the copy)."""

_compiled: BoundedIdentityMemo[_Compiled] = BoundedIdentityMemo(_CACHE_SIZE)
"""``function.schema`` -> what :func:`_validator` derived from it."""

_compiled_lock = threading.Lock()


def _validator(function: Function) -> _Compiled:
    """The validation schema of ``function.schema`` (exclusive unions spelled ``oneOf``:
    :func:`~httpllm.normalize.unions.as_one_of`), its bounded copy
    (:func:`.formats.bounded`) and the validator compiled from that, memoized per function
    schema."""
    closing = _closing(function)
    with _compiled_lock:
        hit = _compiled.get(function.schema, closing)
    if hit is not None:
        return hit
    try:
        exact = as_one_of(function.schema)
        if closing != "open":
            exact = _closed(exact, every=closing == "every")
        with_bounds = _utf8(formats.bounded(exact))
        validator = jsonschema_rs.Draft202012Validator(
            with_bounds, validate_formats=True, formats=_FORMATS, offline=True
        )
    except (jsonschema_rs.ValidationError, ValueError, LimitExceeded) as exc:
        message = f"{function.name}: the function's schema is not valid JSON Schema: {exc}"
        raise SchemaError(message.splitlines()[0], pointer=function.pointer or None) from exc
    made = (exact, with_bounds, validator)
    with _compiled_lock:
        return _compiled.put(function.schema, made, closing)


def _utf8(schema: Schema) -> Schema:
    """``schema`` as jsonschema-rs takes it (UTF-8 text only): a lone surrogate (a
    document's ``\\ud800`` escape without its pair) as U+FFFD. An argument holding one is
    refused before validation (:func:`~.decode.decode`), so no value it allowed is lost."""
    return _json.valid_unicode(schema)[0]


Closing = Literal["open", "unsaid", "every"]
"""Which objects listing ``properties`` a function's tool closes: none (not strict),
those without ``additionalProperties`` (vLLM's grammar), every one (the strict modes that
close or seal objects)."""


def _closing(function: Function) -> Closing:
    """Which objects the function's tool closes (:data:`Closing`), as its dialect's strict
    mode states it (:data:`~httpllm.dialects.StrictObjects`): ``"required"`` and
    ``"sealed"`` (OpenAI, DeepSeek, Claude, Bedrock, Mistral) set ``additionalProperties:
    false`` on each object, replacing what the document wrote; ``"unsaid"`` (``llama``,
    ``qwen``) sends it as written, and xgrammar's strict mode closes only an object that has
    no ``additionalProperties`` ("will not allow properties ... that is not specified in the
    schema"): ``additionalProperties: {"type": "integer"}`` stays a place the model may fill.

    Source: mlc-ai/xgrammar ``cpp/json_schema_converter.cc`` ``ParseObject``
    (``allow_additional_properties = !strict_mode`` unless the schema says).
    """
    if not function.strict:
        return "open"
    return "unsaid" if strict_objects(function.dialect) == "unsaid" else "every"


def _close(node: dict[str, Any], at: str) -> dict[str, Any]:
    if isinstance(node.get("properties"), dict) and node.get("additionalProperties") is not False:
        return {**node, "additionalProperties": False}
    return node


def _close_unsaid(node: dict[str, Any], at: str) -> dict[str, Any]:
    if isinstance(node.get("properties"), dict) and "additionalProperties" not in node:
        return {**node, "additionalProperties": False}
    return node


def _closed(schema: Schema, *, every: bool = True) -> Schema:
    """``schema`` with every object that lists ``properties`` closed
    (``additionalProperties: false``), as strict rendering closes it in the tool
    (:func:`httpllm.dialects._objects.close_objects`; a map without ``properties`` is sent
    as entries and stays open); with ``every=False`` only those without
    ``additionalProperties`` (:func:`_closing`).

    >>> _closed({"properties": {"a": {"properties": {}}}})["properties"]
    {'a': {'properties': {}, 'additionalProperties': False}}
    >>> _closed({"properties": {}, "additionalProperties": {}}, every=False)
    {'properties': {}, 'additionalProperties': {}}

    Raises:
        LimitExceeded: the schema nests deeper than the walker's limit.
    """
    return transform(schema, _close if every else _close_unsaid)


def _schema_errors(function: Function, instance: dict[str, Any]) -> list[ArgumentError]:
    exact, with_bounds, validator = _validator(function)
    try:
        raw = list(validator.iter_errors(instance))
    except (ValueError, TypeError) as exc:
        return [argument_error("#", "json", "JSON values only", f"a non-JSON value ({exc})")]
    out: list[ArgumentError] = []
    pending = deque(raw)
    while pending:
        error = pending.popleft()
        if isinstance(error.kind, _UNION_KINDS):
            branch = _closest(error)
            if branch is not None:
                pending.extendleft(reversed(branch))
                continue
            out.append(_union_error(error))
            continue
        out.extend(_convert(exact, with_bounds, error))
    return out


_UNION_KINDS = (
    jsonschema_rs.ValidationErrorKind.AnyOf,
    jsonschema_rs.ValidationErrorKind.OneOfNotValid,
)


def _closest(error: jsonschema_rs.ValidationError) -> list[jsonschema_rs.ValidationError] | None:
    """The errors of the alternative the value came closest to, or ``None`` if none fits.

    An alternative whose only complaint is the value's type at this place did not fit at
    all. Of those left, one whose one-value ``enum``/``const`` tag fails below is a worse
    fit (discriminator), then the one with fewer errors wins.
    """
    kind = error.kind
    assert isinstance(kind, _UNION_KINDS)
    depth = len(error.instance_path)
    fitting = [
        branch
        for branch in kind.context
        if branch and not all(_is_type_miss(e, depth) for e in branch)
    ]
    if not fitting:
        return None
    return min(fitting, key=lambda branch: (_tag_miss(branch, depth), len(branch)))


def _is_type_miss(error: jsonschema_rs.ValidationError, depth: int) -> bool:
    kinds = jsonschema_rs.ValidationErrorKind
    shallow = len(error.instance_path) == depth
    return shallow and isinstance(error.kind, (kinds.Type, kinds.Constant, kinds.FalseSchema))


def _tag_miss(branch: list[jsonschema_rs.ValidationError], depth: int) -> bool:
    kinds = jsonschema_rs.ValidationErrorKind
    for error in branch:
        kind = error.kind
        if len(error.instance_path) <= depth:
            continue
        if isinstance(kind, kinds.Constant) or (
            isinstance(kind, kinds.Enum) and len(kind.options) == 1
        ):
            return True
    return False


def _union_error(error: jsonschema_rs.ValidationError) -> ArgumentError:
    kind = error.kind
    assert isinstance(kind, _UNION_KINDS)
    wanted: list[str] = []
    for branch in kind.context:
        for text in (_expected(e) for e in branch[:1]):
            if text not in wanted:
                wanted.append(text)
    expected = " or ".join(wanted) or "a value matching one of the alternatives"
    return argument_error(
        _instance_pointer(error.instance_path),
        "anyOf",
        expected,
        _received(error.instance, typed=True),
        _schema_pointer(error.schema_path),
    )


def _instance_pointer(path: list[str | int]) -> str:
    return pointer.join("#", *path)


def _schema_pointer(path: list[str | int]) -> str:
    """A validator's schema path as a pointer into ``Function.schema``, where an exclusive
    union is spelled ``anyOf`` (a ``oneOf`` keyword, not a property named so, is one)."""
    tokens: list[str | int] = []
    name = False
    for token in path:
        tokens.append("anyOf" if token == "oneOf" and not name else token)
        name = not name and token in IN_MAPPING
    return pointer.join("#", *tokens)


def _resolve(schema: Schema, path: list[str | int]) -> Any:
    """The node at a validator's schema path in the schema it was compiled from."""
    return pointer.get(schema, [str(token) for token in path])


def _received(value: Any, *, typed: bool = False) -> str:
    text = show(value)
    if not typed:
        return text
    return f"{text} ({_json.kind(value)})"


def _types(kind: Any) -> str:
    names = [str(t) for t in kind.types]
    return " or ".join(_json.article(n) for n in names)


def _options(values: list[Any]) -> str:
    shown = ", ".join(show(v) for v in values[:12])
    more = f" (and {len(values) - 12} more)" if len(values) > 12 else ""
    return f"one of {shown}{more}"


_EXPECTED: dict[str, Callable[[Any], str]] = {
    "Type": _types,
    "Enum": lambda k: _options(list(k.options)),
    "Constant": lambda k: f"exactly {show(k.expected_value)}",
    "Minimum": lambda k: f"a number >= {k.limit}",
    "Maximum": lambda k: f"a number <= {k.limit}",
    "ExclusiveMinimum": lambda k: f"a number > {k.limit}",
    "ExclusiveMaximum": lambda k: f"a number < {k.limit}",
    "MultipleOf": lambda k: f"a multiple of {k.multiple_of}",
    "MinLength": lambda k: f"a string of at least {k.limit} characters",
    "MaxLength": lambda k: f"a string of at most {k.limit} characters",
    "MinItems": lambda k: f"an array of at least {k.limit} items",
    "MaxItems": lambda k: f"an array of at most {k.limit} items",
    "MinProperties": lambda k: f"an object with at least {k.limit} properties",
    "MaxProperties": lambda k: f"an object with at most {k.limit} properties",
    "Pattern": lambda k: f"a string matching the pattern {k.pattern}",
    "Format": lambda k: f"a valid {k.format} string{_FORMAT_HINTS.get(k.format, '')}",
    "UniqueItems": lambda k: "an array whose items are all different",
    "Contains": lambda k: "an array with at least one item matching the item schema",
    "FalseSchema": lambda k: "no value here",
    "Not": lambda k: f"a value not matching {show(k.schema)}",
    "OneOfMultipleValid": lambda k: "a value matching exactly one of the alternatives",
    "Required": lambda k: f'a value (required property "{k.property}")',
}
"""jsonschema-rs error kind -> the expected phrase (JSON Schema Validation 2020-12 section 6)."""

_KEYWORDS = {
    "Constant": "const",
    "OneOfMultipleValid": "oneOf",
    "FalseSchema": "false",
}


def _expected(error: jsonschema_rs.ValidationError) -> str:
    name = type(error.kind).__name__
    describe = _EXPECTED.get(name)
    if name == "Type" and list(getattr(error.kind, "types", ())) == ["null"]:
        return "null"
    return describe(error.kind) if describe else error.message


def _keyword(error: jsonschema_rs.ValidationError) -> str:
    name = type(error.kind).__name__
    return _KEYWORDS.get(name, name[:1].lower() + name[1:])


def _convert(
    exact: Schema, with_bounds: Schema, error: jsonschema_rs.ValidationError
) -> list[ArgumentError]:
    """One validator error as :class:`ArgumentError` records; ``exact`` is the validation
    schema (:func:`_validator`), ``with_bounds`` its bounded copy."""
    kinds = jsonschema_rs.ValidationErrorKind
    kind = error.kind
    path = list(error.instance_path)
    schema_at = _schema_pointer(error.schema_path)
    if isinstance(kind, (kinds.Minimum, kinds.Maximum)):
        fmt = formats.format_of_bound(exact, with_bounds, list(error.schema_path))
        if fmt is not None:
            return [
                argument_error(
                    _instance_pointer(path),
                    "format",
                    formats.describe(fmt),
                    _received(error.instance),
                    _schema_pointer([*error.schema_path[:-1], "format"]),
                )
            ]
    if isinstance(kind, kinds.OneOfMultipleValid):
        return [
            argument_error(
                _instance_pointer(path),
                "oneOf",
                _ambiguity(with_bounds, error),
                _received(error.instance, typed=True),
                schema_at,
            )
        ]
    if isinstance(kind, kinds.Required):
        return [
            argument_error(
                _instance_pointer([*path, kind.property]),
                "required",
                _expected(error),
                "nothing",
                schema_at,
            )
        ]
    if isinstance(kind, (kinds.AdditionalProperties, kinds.UnevaluatedProperties)):
        allowed = _allowed(with_bounds, error.schema_path)
        instance = error.instance if isinstance(error.instance, dict) else {}
        return [
            argument_error(
                _instance_pointer([*path, name]),
                _keyword(error),
                f'no property "{name}"{allowed}',
                show(instance.get(name)),
                schema_at,
            )
            for name in kind.unexpected
        ]
    typed = isinstance(kind, kinds.Type)
    return [
        argument_error(
            _instance_pointer(path),
            _keyword(error),
            _expected(error),
            _received(error.instance, typed=typed),
            schema_at,
        )
    ]


def _ambiguity(schema: Schema, error: jsonschema_rs.ValidationError) -> str:
    """The expected phrase for a value that matches several ``oneOf`` alternatives: which
    ones it matches (by ``title`` or ``$ref`` name, else position), and what tells them
    apart. ``schema``: the one the validator was compiled from."""
    kind = error.kind
    matched = [i for i, branch in enumerate(getattr(kind, "context", ())) if not branch]
    node = _resolve(schema, list(error.schema_path))
    members = node if isinstance(node, list) else []
    names = [_alternative_name(members[i], i) if i < len(members) else f"#{i + 1}"
             for i in matched]
    which = f" (it matches {', '.join(names)})" if len(names) > 1 else ""
    return (f"a value matching exactly one of the alternatives{which}; add the properties "
            "or the tag value that only the intended one has")


_NAME_MAX = 60
"""Longest description shown to name an alternative, in characters."""


def _alternative_name(member: Any, index: int) -> str:
    """``"Card"`` (its title or ``$ref`` name), else ``alternative 2 ("Pay by card")``
    (its position in the union, and the first line of its description)."""
    if isinstance(member, dict):
        if isinstance(member.get("title"), str):
            return f'"{member["title"]}"'
        if isinstance(member.get("$ref"), str):
            return f'"{member["$ref"].rsplit("/", 1)[-1]}"'
        text = member.get("description")
        if isinstance(text, str) and text.strip():
            line = text.strip().splitlines()[0]
            line = line if len(line) <= _NAME_MAX else line[: _NAME_MAX - 1] + "…"
            return f'alternative {index + 1} ("{line}")'
    return f"alternative {index + 1}"


def _allowed(schema: Schema, schema_path: list[str | int]) -> str:
    """``" (allowed: a, b)"``: the declared properties beside a failed ``additionalProperties``
    (``schema``: the one the validator was compiled from)."""
    node = _resolve(schema, list(schema_path[:-1]))
    names = list(node.get("properties", {})) if isinstance(node, dict) else []
    return f" (allowed: {', '.join(names)})" if names else ""


def _read_only_errors(function: Function, args: dict[str, Any]) -> list[ArgumentError]:
    """A ``readOnly`` property of the request body the call sends anyway
    (``Function.extra["read_only"]``: its places, ``-`` for any array item). A strict
    function whose tool closes every object refuses them already
    (``additionalProperties``)."""
    places = function.extra.get("read_only")
    if _closing(function) == "every" or not isinstance(places, (list, tuple)):
        return []
    errors: list[ArgumentError] = []
    for place in places:
        tokens = pointer.split(place)
        nodes: list[tuple[Any, tuple[str, ...]]] = [(args, ())]
        for token in tokens[:-1]:
            following: list[tuple[Any, tuple[str, ...]]] = []
            for node, at in nodes:
                if token == "-" and isinstance(node, list):
                    following += [(item, (*at, str(i))) for i, item in enumerate(node)]
                elif isinstance(node, dict) and token in node:
                    following.append((node[token], (*at, token)))
            nodes = following
        name = tokens[-1] if tokens else ""
        errors += [argument_error(pointer.join("#", *at, key), "readOnly",
                                  f'no property "{key}" (readOnly{_spelled(key, name)}: the '
                                  "API sets it; leave it out)", show(node[key]))
                   for node, at in nodes if isinstance(node, dict)
                   for key in node if key == name or _folds_to(key, name)]
    return errors


def _folds_to(key: Any, name: str) -> bool:
    """Whether ``key`` is ``name`` in another case (``ID``, ``Id``; U+017F, the long s,
    for ``s``, the Kelvin sign for ``k``: Unicode case folding): Go's ``encoding/json``
    and ASP.NET Core's web defaults bind a JSON key to a field case-blind, so ``{"ID":
    ...}`` sets the ``readOnly`` ``id`` an open object would otherwise carry past the
    check.

    Source: Go ``encoding/json`` ``Unmarshal`` ("preferring an exact match but also
    accepting a case-insensitive match"); .NET ``JsonSerializerDefaults.Web``
    (``PropertyNameCaseInsensitive``).
    """
    return isinstance(key, str) and key != name and key.casefold() == name.casefold()


def _spelled(key: str, name: str) -> str:
    return "" if key == name else f", as {name!r} in another case"


def _parameter_errors(function: Function, args: dict[str, Any]) -> list[ArgumentError]:
    """OpenAPI's parameter rules that no schema states."""
    errors: list[ArgumentError] = []
    known = [a.name for a in function.arguments]
    for name, value in args.items():
        argument = function.argument(name)
        at = pointer.join("#", name)
        if argument is None:
            allowed = f" (known: {', '.join(known)})" if known else " (this function takes none)"
            errors.append(
                argument_error(
                    at, "additionalProperties", f"no argument {show(name)}{allowed}", show(value)
                )
            )
        elif _sends_empty(function, argument, value):
            wanted = ("a non-empty value, or leave the argument out" if value == "" else
                      'no "" member (the parameter does not allow empty values: '
                      f"{show(value)} would send {argument.wire_name}=), or leave the "
                      "argument out")
            errors.append(argument_error(at, "allowEmptyValue", wanted, show(value)))
    return errors


def _sends_empty(function: Function, argument: Argument, value: Any) -> bool:
    try:
        return wire.sends_empty(argument, value, wire.form_style(function))
    except (TypeError, ValueError):  # not JSON: the schema check reports it
        return False


def _wire_errors(
    function: Function,
    args: dict[str, Any],
    found: list[ArgumentError],
    filled: tuple[str, ...],
) -> list[ArgumentError]:
    """Values the schema accepts that the request would not carry (:mod:`.wire`).

    A place that already has an error is left to it; a body that files fill is not checked.
    """
    taken = [e.pointer for e in found]
    candidates = {**wire.path_errors(function, args), **wire.parameter_errors(function, args),
                  **wire.null_item_errors(function, args), **wire.cookie_errors(function, args),
                  **wire.xml_errors(function, args),
                  **wire.split_errors(function, args)}
    out = [e for at, e in candidates.items() if not _under(at, taken)]
    for argument in function.arguments:
        if argument.location != "body" or argument.name not in args:
            continue
        silent = [e for e in _silent_form_errors(function, args, argument)
                  if not _under(e.pointer, taken)]
        out.extend(silent)
        at = pointer.join("#", argument.name)
        if silent or _under(at, taken) or _under(at, list(filled)):
            continue
        error = wire.body_error(function, argument, args[argument.name])
        if error is not None:
            out.append(error)
    return out


def _under(at: str, pointers: list[str]) -> bool:
    """Whether one of ``pointers`` is ``at`` or below it."""
    return any(p == at or p.startswith(at + "/") for p in pointers)


def _silent_form_errors(
    function: Function, args: dict[str, Any], argument: Argument
) -> list[ArgumentError]:
    """Required properties of a form or multipart body whose value the encoder drops.

    The call is checked again without them: each ``required`` error there at one of them
    is one of these. So a property is required exactly as the body schema says (through
    ``$ref``, ``allOf`` and the alternative the body matches).
    """
    value = args[argument.name]
    silent = silent_properties(argument, value, wire.form_style(function))
    if not silent:
        return []
    kept = {k: v for k, v in value.items() if k not in silent}
    dropped = {pointer.join("#", argument.name, k): value[k] for k in silent}
    slot = "required form property"
    if (argument.media_type or "").lower().startswith("multipart/"):
        slot = "required multipart part"
    return [
        wire.silent_error(e.pointer, dropped[e.pointer], slot)
        for e in _schema_errors(function, {**args, argument.name: kept})
        if e.keyword == "required" and e.pointer in dropped
    ]
