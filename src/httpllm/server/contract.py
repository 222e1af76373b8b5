"""What the strictest MCP client asserts of ``structuredContent``, checked by the server first.

The official TypeScript SDK client (and every host built on it, the MCP Inspector among
them) compiles each tool's ``outputSchema`` with Ajv 8 (its default draft-07 class,
``strict: false``) plus ajv-formats 3 in its default "full" mode, and refuses a result
whose ``structuredContent`` fails it with a ``-32602`` protocol error: the model gets
nothing. So the server checks an answer with the same semantics before it sends
``structuredContent``; an answer that fails goes to the model as data with a note.

The check is jsonschema-rs, run twice (draft 2020-12, the dialect the schemas are written
in, and draft-07, Ajv's default class: ``items`` then applies to every item even beside
``prefixItems``), with ajv-formats' formats in place of jsonschema-rs's own:

- string formats: :data:`STRING_FORMATS`, ported from ajv-formats ``dist/formats.js``
  (``fullFormats``; MIT licence) — the same regular expressions (ASCII ``\\d``, whole
  string) and the same date, time and leap-second rules; ``regex`` is approximated with
  Python's ``re`` (JavaScript's ``RegExp`` accepts a little more);
- formats jsonschema-rs knows but ajv-formats does not (``idn-email``, ``iri`` ...) are
  not asserted, as Ajv ignores unknown formats with ``strict: false``;
- numeric formats (``int32``: an integer within 32 bits; ``int64``: an integer; ``float``,
  ``double``: any number) become ``if number then integer/bounds`` beside the node, as
  jsonschema-rs hands custom formats strings only.

Source: @modelcontextprotocol/sdk 1.32 ``client/index.js`` ``callTool`` and
``validation/ajv-provider.js``; ajv-formats 3.0.1 ``dist/formats.js``.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

import jsonschema_rs

from httpllm._json import valid_unicode
from httpllm._types import Schema
from httpllm.walk import transform

__all__ = ["STRING_FORMATS", "Checker", "checker"]

_I = re.IGNORECASE | re.ASCII


def _full(pattern: str, flags: int = re.ASCII) -> Callable[[str], bool]:
    compiled = re.compile(pattern, flags)
    return lambda text: compiled.fullmatch(text) is not None


_DAYS = (0, 31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31)
_DATE = re.compile(r"(\d\d\d\d)-(\d\d)-(\d\d)", re.ASCII)
_TIME = re.compile(r"(\d\d):(\d\d):(\d\d(?:\.\d+)?)(z|([+-])(\d\d)(?::?(\d\d))?)?", _I)
_SEPARATOR = re.compile(r"t|\s", re.IGNORECASE)


def _date(text: str) -> bool:
    found = _DATE.fullmatch(text)
    if found is None:
        return False
    year, month, day = (int(g) for g in found.groups())
    leap = year % 4 == 0 and (year % 100 != 0 or year % 400 == 0)
    return 1 <= month <= 12 and 1 <= day <= (29 if month == 2 and leap else _DAYS[month])


def _time(strict_zone: bool) -> Callable[[str], bool]:
    def time(text: str) -> bool:
        found = _TIME.fullmatch(text)
        if found is None:
            return False
        hour, minute, second = int(found[1]), int(found[2]), float(found[3])
        sign = -1 if found[5] == "-" else 1
        zone_hour, zone_minute = int(found[6] or 0), int(found[7] or 0)
        if zone_hour > 23 or zone_minute > 59 or (strict_zone and not found[4]):
            return False
        if hour <= 23 and minute <= 59 and second < 60:
            return True
        utc_minute = minute - zone_minute * sign  # a leap second, 23:59:60 UTC
        utc_hour = hour - zone_hour * sign - (1 if utc_minute < 0 else 0)
        return utc_hour in (23, -1) and utc_minute in (59, -1) and second < 61
    return time


def _date_time(strict_zone: bool) -> Callable[[str], bool]:
    time = _time(strict_zone)

    def date_time(text: str) -> bool:
        parts = _SEPARATOR.split(text)
        return len(parts) == 2 and _date(parts[0]) and time(parts[1])
    return date_time


_IP4 = r"(?:(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)\.){3}(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)"
_H16 = "[0-9a-f]{1,4}"
_IP6 = (
    rf"(?:(?:{_H16}:){{7}}(?:{_H16}|:)|(?:{_H16}:){{6}}(?::{_H16}|{_IP4}|:)"
    rf"|(?:{_H16}:){{5}}(?:(?::{_H16}){{1,2}}|:{_IP4}|:)"
    rf"|(?:{_H16}:){{4}}(?:(?::{_H16}){{1,3}}|(?::{_H16})?:{_IP4}|:)"
    rf"|(?:{_H16}:){{3}}(?:(?::{_H16}){{1,4}}|(?::{_H16}){{0,2}}:{_IP4}|:)"
    rf"|(?:{_H16}:){{2}}(?:(?::{_H16}){{1,5}}|(?::{_H16}){{0,3}}:{_IP4}|:)"
    rf"|(?:{_H16}:){{1}}(?:(?::{_H16}){{1,6}}|(?::{_H16}){{0,4}}:{_IP4}|:)"
    rf"|:(?:(?::{_H16}){{1,7}}|(?::{_H16}){{0,5}}:{_IP4}|:))"
)
_IP_LITERAL = (  # RFC 3986 IP-literal, as ajv-formats writes it
    r"\[(?:(?:(?:(?:[0-9a-f]{1,4}:){6}|::(?:[0-9a-f]{1,4}:){5}|(?:[0-9a-f]{1,4})?::"
    r"(?:[0-9a-f]{1,4}:){4}|(?:(?:[0-9a-f]{1,4}:){0,1}[0-9a-f]{1,4})?::(?:[0-9a-f]{1,4}:){3}"
    r"|(?:(?:[0-9a-f]{1,4}:){0,2}[0-9a-f]{1,4})?::(?:[0-9a-f]{1,4}:){2}|(?:(?:[0-9a-f]{1,4}:)"
    r"{0,3}[0-9a-f]{1,4})?::[0-9a-f]{1,4}:|(?:(?:[0-9a-f]{1,4}:){0,4}[0-9a-f]{1,4})?::)"
    r"(?:[0-9a-f]{1,4}:[0-9a-f]{1,4}|(?:(?:25[0-5]|2[0-4]\d|[01]?\d\d?)\.){3}"
    r"(?:25[0-5]|2[0-4]\d|[01]?\d\d?))|(?:(?:[0-9a-f]{1,4}:){0,5}[0-9a-f]{1,4})?::"
    r"[0-9a-f]{1,4}|(?:(?:[0-9a-f]{1,4}:){0,6}[0-9a-f]{1,4})?::)|[Vv][0-9a-f]+\."
    r"[a-z0-9\-._~!$&'()*+,;=:]+)\]"
)
_PCT = "%[0-9a-f]{2}"
_V4_LOOSE = r"(?:(?:25[0-5]|2[0-4]\d|[01]?\d\d?)\.){3}(?:25[0-5]|2[0-4]\d|[01]?\d\d?)"


def _uri_pattern(scheme: str, host_chars: str, path_chars: str) -> re.Pattern[str]:
    """``uri`` (scheme and hierarchical part required) or ``uri-reference`` (both optional,
    ``"`` allowed), as ajv-formats writes them."""
    segment = rf"(?:[{path_chars}]|{_PCT})"
    hier = (
        rf"(?:\/?\/(?:(?:[a-z0-9\-._~!$&'()*+,;=:]|{_PCT})*@)?(?:{_IP_LITERAL}|{_V4_LOOSE}"
        rf"|(?:[{host_chars}]|{_PCT})*)(?::\d*)?(?:\/{segment}*)*"
        rf"|\/(?:{segment}+(?:\/{segment}*)*)?|{segment}+(?:\/{segment}*)*)"
    )
    tail = rf"(?:\?(?:[{path_chars}/?]|{_PCT})*)?(?:#(?:[{path_chars}/?]|{_PCT})*)?"
    optional = "?" if scheme.endswith("?") else ""
    return re.compile(scheme + hier + optional + tail, _I)


_URI = _uri_pattern(r"(?:[a-z][a-z0-9+\-.]*:)", r"a-z0-9\-._~!$&'()*+,;=",
                    r"a-z0-9\-._~!$&'()*+,;=:@")
_URI_REFERENCE = _uri_pattern(r"(?:[a-z][a-z0-9+\-.]*:)?", r"a-z0-9\-._~!$&'\"()*+,;=",
                              r"a-z0-9\-._~!$&'\"()*+,;=:@")


def _uri(text: str) -> bool:
    return re.search(r"\/|:", text) is not None and _URI.fullmatch(text) is not None


_BYTE = re.compile(r"(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?")
_JS_LINES = re.compile("\r|\n|\u2028|\u2029")


def _byte(text: str) -> bool:
    # ajv-formats' regular expression has the "m" flag: any one line may match.
    return any(_BYTE.fullmatch(line) for line in _JS_LINES.split(text))


_JS_IDENTITY_ESCAPE = re.compile(r"\\([CEFGHIJKLMOPQRTVXYceghijklmopqyz])")
"""Escapes of letters JavaScript reads as the letter itself (no ``u`` flag) and Python
refuses."""


_PYTHON_ONLY = re.compile(r"\(\?[aiLmsux>P#-]|(?<!\\)[*+?}]\+")
"""Syntax Python's ``re`` accepts and JavaScript's ``RegExp`` refuses: inline flags, atomic
and ``P`` groups, comments, possessive quantifiers (a ``[*+]`` class is refused too: the
check may be stricter than the client, never looser)."""


def _regex(text: str) -> bool:
    if re.search(r"[^\\]\\Z", text) or _PYTHON_ONLY.search(text):
        return False
    try:
        re.compile(_JS_IDENTITY_ESCAPE.sub(r"\1", text))
    except (re.error, RecursionError, OverflowError):
        return False
    return True


def _always(text: str) -> bool:
    return True


STRING_FORMATS: dict[str, Callable[[str], bool]] = {
    "date": _date,
    "time": _time(True),
    "date-time": _date_time(True),
    "iso-time": _time(False),
    "iso-date-time": _date_time(False),
    "duration": _full(r"P(?!\Z)((\d+Y)?(\d+M)?(\d+D)?(T(?=\d)(\d+H)?(\d+M)?(\d+S)?)?|(\d+W)?)"),
    "uri": _uri,
    "uri-reference": lambda text: _URI_REFERENCE.fullmatch(text) is not None,
    "uri-template": _full(
        r"(?:(?:[^\x00-\x20\"'<>%\\^`{|}]|%[0-9a-f]{2})|\{[+#./;?&=,!@|]?(?:[a-z0-9_]|"
        r"%[0-9a-f]{2})+(?::[1-9][0-9]{0,3}|\*)?(?:,(?:[a-z0-9_]|%[0-9a-f]{2})+"
        r"(?::[1-9][0-9]{0,3}|\*)?)*\})*", _I),
    "url": _full(
        r"(?:https?|ftp):\/\/(?:\S+(?::\S*)?@)?(?:(?!(?:10|127)(?:\.\d{1,3}){3})"
        r"(?!(?:169\.254|192\.168)(?:\.\d{1,3}){2})(?!172\.(?:1[6-9]|2\d|3[0-1])"
        r"(?:\.\d{1,3}){2})(?:[1-9]\d?|1\d\d|2[01]\d|22[0-3])(?:\.(?:1?\d{1,2}|2[0-4]\d|"
        r"25[0-5])){2}(?:\.(?:[1-9]\d?|1\d\d|2[0-4]\d|25[0-4]))|(?:(?:[a-z0-9\u00a1-\uffff]+-)*"
        r"[a-z0-9\u00a1-\uffff]+)(?:\.(?:[a-z0-9\u00a1-\uffff]+-)*[a-z0-9\u00a1-\uffff]+)*"
        r"(?:\.(?:[a-z\u00a1-\uffff]{2,})))(?::\d{2,5})?(?:\/[^\s]*)?", re.IGNORECASE),
    "email": _full(
        r"[a-z0-9!#$%&'*+/=?^_`{|}~-]+(?:\.[a-z0-9!#$%&'*+/=?^_`{|}~-]+)*@(?:[a-z0-9]"
        r"(?:[a-z0-9-]*[a-z0-9])?\.)+[a-z0-9](?:[a-z0-9-]*[a-z0-9])?", _I),
    "hostname": _full(
        r"(?=.{1,253}\.?\Z)[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?(?:\.[a-z0-9](?:[-0-9a-z]"
        r"{0,61}[0-9a-z])?)*\.?", _I),
    "ipv4": _full(_IP4),
    "ipv6": _full(_IP6, _I),
    "regex": _regex,
    "uuid": _full(r"(?:urn:uuid:)?[0-9a-f]{8}-(?:[0-9a-f]{4}-){3}[0-9a-f]{12}", _I),
    "json-pointer": _full(r"(?:\/(?:[^~/]|~0|~1)*)*"),
    "json-pointer-uri-fragment": _full(
        r"#(?:\/(?:[a-z0-9_\-.!$&'()*+,;:=@]|%[0-9a-f]{2}|~0|~1)*)*", _I),
    "relative-json-pointer": _full(r"(?:0|[1-9][0-9]*)(?:#|(?:\/(?:[^~/]|~0|~1)*)*)"),
    "byte": _byte,
    "password": _always,
    "binary": _always,
    # jsonschema-rs asserts these; ajv-formats does not know them, and Ajv ignores them.
    "idn-email": _always,
    "idn-hostname": _always,
    "iri": _always,
    "iri-reference": _always,
}
"""ajv-formats' ``fullFormats`` string checks, by format name (see the module docstring)."""

_NUMBER_CHECKS: dict[str, Schema] = {
    "int32": {"type": "integer", "minimum": -(2**31), "maximum": 2**31 - 1},
    "int64": {"type": "integer"},
}
"""ajv-formats' numeric formats that refuse something (``float``/``double`` never do)."""


def _numbers(node: Schema, at: str) -> Schema:
    """``transform`` visitor: a numeric format's check beside the node (numbers only)."""
    check = _NUMBER_CHECKS.get(node.get("format")) if isinstance(node.get("format"),
                                                                 str) else None
    if check is None:
        return node
    guarded = {"if": {"type": "number"}, "then": check}
    return {**node, "allOf": [*node.get("allOf", []), guarded]}


Checker = Callable[[Any], "str | None"]
"""``check(instance) -> None`` when the client would accept it, else the first reason."""


def checker(schema: Schema) -> Checker | None:
    """The check of ``schema`` as the strictest client makes it; ``None`` when jsonschema-rs
    cannot compile the schema (the client then judges it alone). A lone surrogate (a
    ``\\ud800`` escape without its pair), in the schema or an answer, is checked as the
    U+FFFD the client receives (jsonschema-rs takes UTF-8 only: a valid answer was a
    mismatch)."""
    widened = transform(valid_unicode(schema)[0], _numbers)
    try:
        validators = [cls(widened, validate_formats=True, formats=STRING_FORMATS)
                      for cls in (jsonschema_rs.Draft202012Validator,
                                  jsonschema_rs.Draft7Validator)]
    except (ValueError, jsonschema_rs.ValidationError, jsonschema_rs.ReferencingError):
        return None

    def check(instance: Any) -> str | None:
        instance = valid_unicode(instance)[0]
        for validator in validators:
            try:
                error = next(iter(validator.iter_errors(instance)), None)
            except (ValueError, TypeError) as exc:
                return str(exc).splitlines()[0]
            if error is not None:
                return _reason(error)
        return None
    return check


_REASON_MAX = 200
"""Longest reason in a mismatch note, in characters."""


def _reason(error: jsonschema_rs.ValidationError) -> str:
    """``at /created: the value is not a "date-time" (received "yesterday")`` — the reason
    first, the value last and short (jsonschema-rs puts the whole value first)."""
    from httpllm.cut import dumps
    from httpllm.execute.feedback import show

    where = "/" + "/".join(str(p) for p in error.instance_path)
    message = error.message.splitlines()[0] if error.message else type(error.kind).__name__
    try:
        shown = dumps(error.instance)
    except (ValueError, RecursionError):
        shown = ""
    if shown and message.startswith(shown):
        message = f"the value{message[len(shown):]} (received {show(error.instance)})"
    elif len(message) > _REASON_MAX:
        message = f"{type(error.kind).__name__} failed (received {show(error.instance)})"
    return f"at {where}: {message[:_REASON_MAX]}"
