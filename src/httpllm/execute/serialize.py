"""Serialize one parameter value by its OpenAPI ``style`` and ``explode``.

``simple``, ``label`` and ``matrix`` (path, header) are the RFC 6570 expansions of the same
names, driven by one operator table (RFC 6570 Appendix A); ``form`` (query, cookie) is RFC
6570 form expansion; ``spaceDelimited``, ``pipeDelimited`` and ``deepObject`` follow the
OpenAPI style examples. Delimiters that RFC 3986 does not allow in a query are
percent-encoded (space ``%20``, ``|`` ``%7C``, ``[`` ``%5B``, ``]`` ``%5D``), as in the
OpenAPI 3.1.1 table, which corrects the 3.1.0 one (its ``label`` ``explode: false`` array
``.blue.black.brown`` is ``.blue,black,brown`` in RFC 6570).

Values: ``null`` is *undefined* (RFC 6570 section 2.3) and produces nothing, so is an empty
array or object, and so are ``null`` members (``execute.wire.null_member``: a call with a
``null`` array item is refused before it gets here); booleans are ``true``/``false``;
numbers are their JSON text; a nested array or object (which no style defines) is its
JSON text.

Source: OpenAPI 3.1.0 section 4.8.12.4 (Style Values) and 4.8.12.5 (Style Examples);
OpenAPI 3.1.1 Appendices C-E; RFC 6570 section 3.2; RFC 3986 sections 2.1-2.4.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from httpllm._escape import Encoder, percent
from httpllm._media import is_json

__all__ = [
    "DELIMITED",
    "FORM_STYLES",
    "bracketed",
    "content_text",
    "expand",
    "join_delimiter",
    "query_pairs",
    "scalar",
]


def scalar(value: Any) -> str:
    """The text of one value: strings as they are, ``true``/``false``, JSON numbers.

    >>> [scalar("blue"), scalar(True), scalar(100), scalar(1.5), scalar({"a": 1})]
    ['blue', 'true', '100', '1.5', '{"a":1}']

    Source: OpenAPI 3.1.1 Appendix B (data type conversion).
    """
    if isinstance(value, str):
        return value
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"), allow_nan=False)


def content_text(media_type: str, value: Any) -> str:
    """The text of a ``content`` parameter: JSON for a JSON media type, else :func:`scalar`.

    Source: OpenAPI 3.1.0 section 4.8.12 (Parameter Object ``content``).
    """
    if is_json(media_type):
        return json.dumps(value, ensure_ascii=False, separators=(",", ":"), allow_nan=False)
    return scalar(value)


@dataclass(frozen=True, slots=True)
class _Operator:
    """One row of RFC 6570 Appendix A: prefix, separator, whether pairs are named."""

    first: str
    sep: str
    named: bool


_OPERATORS = {
    "simple": _Operator(first="", sep=",", named=False),
    "label": _Operator(first=".", sep=".", named=False),
    "matrix": _Operator(first=";", sep=";", named=True),
}


def _defined(value: Any) -> list[tuple[str, Any]] | list[Any] | None:
    """Members of an array/object without ``null`` ones; ``None`` when undefined."""
    if isinstance(value, Mapping):
        pairs = [(str(k), v) for k, v in value.items() if v is not None]
        return pairs or None
    if isinstance(value, (list, tuple)):
        items = [v for v in value if v is not None]
        return items or None
    return None


def expand(style: str, name: str, value: Any, explode: bool, encode: Encoder, *,
           raw: bool = False) -> str | None:
    """Expand a path or header value by ``simple``, ``label`` or ``matrix`` style.

    >>> expand("matrix", "color", ["blue", "black"], True, percent)
    ';color=blue;color=black'
    >>> expand("label", "color", {"R": 100, "G": 200}, False, percent)
    '.R,100,G,200'

    A Swagger 2.0 ``collectionFormat`` of ``ssv``, ``pipes`` or ``tsv`` on a path or
    header array (``spaceDelimited``, ``pipeDelimited``, ``x-httpllm-tabDelimited``) joins
    the members with its delimiter: percent-encoded in a path, as it is in a header
    (``raw``).

    >>> from httpllm._escape import header_text
    >>> expand("pipeDelimited", "ids", ["a", "b"], False, header_text, raw=True)
    'a|b'

    Returns:
        The expansion, or ``None`` when the value is undefined (``null``, ``[]``, ``{}``).

    Source: RFC 6570 sections 3.2.2 (simple), 3.2.5 (label), 3.2.7 (path-style/matrix);
    OpenAPI 3.1.0 section 4.8.12.4; OpenAPI 2.0 Parameter and Header Objects
    (``collectionFormat``).
    """
    op = _OPERATORS.get(style, _OPERATORS["simple"])
    if value is None:
        return None
    key = percent(name)
    if isinstance(value, (Mapping, list, tuple)):
        members = _defined(value)
        if members is None:
            return None
        if style in DELIMITED:
            delimiters = _RAW_DELIMITERS if raw else _URL_DELIMITERS
            return delimiters[style].join(_flat(value, members, encode))
        if isinstance(value, Mapping):
            return op.first + _expand_pairs(op, key, members, explode, encode)
        return op.first + _expand_items(op, key, members, explode, encode)
    text = encode(scalar(value))
    return op.first + (_named(key, text) if op.named else text)


def _named(name: str, text: str) -> str:
    """``name=text``, or ``name`` alone for an empty value (RFC 6570 ``ifemp`` of ``;``)."""
    return f"{name}={text}" if text else name


def _expand_items(op: _Operator, key: str, items: list[Any], explode: bool, enc: Encoder) -> str:
    texts = [enc(scalar(v)) for v in items]
    if explode:
        return op.sep.join(_named(key, t) if op.named else t for t in texts)
    joined = ",".join(texts)
    return f"{key}={joined}" if op.named else joined


def _expand_pairs(
    op: _Operator, key: str, pairs: list[tuple[str, Any]], explode: bool, enc: Encoder
) -> str:
    if explode:
        return op.sep.join(f"{enc(k)}={enc(scalar(v))}" for k, v in pairs)
    joined = ",".join(part for k, v in pairs for part in (enc(k), enc(scalar(v))))
    return f"{key}={joined}" if op.named else joined


# `x-httpllm-tabDelimited`: Swagger 2.0 `collectionFormat: tsv`, which 3.x has no style for
# (httpllm.upgrade.swagger2.TAB_DELIMITED): members joined by a tab.
_URL_DELIMITERS = {"spaceDelimited": "%20", "pipeDelimited": "%7C", "[": "%5B", "]": "%5D",
                   "x-httpllm-tabDelimited": "%09"}
_RAW_DELIMITERS = {"spaceDelimited": " ", "pipeDelimited": "|", "[": "[", "]": "]",
                   "x-httpllm-tabDelimited": "\t"}
DELIMITED = ("spaceDelimited", "pipeDelimited", "x-httpllm-tabDelimited")
"""The styles that join members with one delimiter: a space, ``|``, a tab."""


def join_delimiter(style: str, *, raw: bool = False) -> str:
    """The delimiter a non-exploded array or object of ``style`` is joined with, as sent:
    ``,`` (``form``, ``simple``), or a delimited style's own (percent-encoded unless
    ``raw``).

    >>> join_delimiter("form"), join_delimiter("pipeDelimited"), join_delimiter(
    ...     "spaceDelimited", raw=True)
    (',', '%7C', ' ')
    """
    if style in DELIMITED:
        return (_RAW_DELIMITERS if raw else _URL_DELIMITERS)[style]
    return ","


FORM_STYLES = ("brackets", "repeat")
"""How values OpenAPI leaves undefined in ``deepObject`` and form bodies are sent.

``brackets`` (the default): every array member and object property below the name gets its
own bracketed key, ``expand[0]=a``, ``tax_id_data[0][type]=eu_vat``, as Stripe, Rails
(Rack), PHP and Express (``qs``) read them. ``repeat``: array members repeat the key
(``expand=a&expand=b``) and objects inside arrays are JSON text, as before."""


def query_pairs(
    style: str,
    name: str,
    value: Any,
    explode: bool,
    encode: Encoder,
    *,
    raw: bool = False,
    nested: str = "brackets",
) -> list[tuple[str, str]]:
    """The ``name=value`` pairs of a query (or form body) value, already encoded.

    >>> query_pairs("form", "color", ["blue", "black"], True, percent)
    [('color', 'blue'), ('color', 'black')]
    >>> query_pairs("deepObject", "color", {"R": 100}, True, percent)
    [('color%5BR%5D', '100')]

    >>> query_pairs("deepObject", "expand", ["a", "b"], True, percent)
    [('expand%5B0%5D', 'a'), ('expand%5B1%5D', 'b')]

    ``form`` is used for combinations OpenAPI leaves undefined (a primitive with
    ``spaceDelimited``, an exploded ``pipeDelimited`` array, a primitive ``deepObject``).
    ``deepObject`` nests brackets for nested objects; arrays in a ``deepObject`` (OpenAPI
    3.1.1 leaves both undefined) follow ``nested`` (:data:`FORM_STYLES`): indexed brackets,
    or the key repeated per member.

    Args:
        style: ``form``, ``spaceDelimited``, ``pipeDelimited`` or ``deepObject``.
        name: the parameter (or form property) name.
        value: the value; ``None`` gives no pair.
        explode: OpenAPI ``explode``.
        encode: :func:`~httpllm._escape.percent`, :func:`~httpllm._escape.reserved`
            (``allowReserved``) or :func:`~httpllm._escape.identity`.
        raw: delimiters as literal characters (multipart parts) instead of percent-encoded.
        nested: ``"brackets"`` or ``"repeat"`` (:data:`FORM_STYLES`).

    Source: OpenAPI 3.1.0 section 4.8.12.4; RFC 6570 section 3.2.8 (form-style expansion).
    """
    if value is None:
        return []
    delimiters = _RAW_DELIMITERS if raw else _URL_DELIMITERS
    key = name if raw else percent(name)
    composite = isinstance(value, (Mapping, list, tuple))
    if style == "deepObject" and isinstance(value, Mapping):
        return _deep_object(key, value, encode, delimiters, indexed=nested == "brackets")
    if style == "deepObject" and composite and nested == "brackets":
        return _deep_object(key, value, encode, delimiters, indexed=True)
    if style in DELIMITED and composite and not explode:
        members = _defined(value)
        if members is None:
            return []
        return [(key, delimiters[style].join(_flat(value, members, encode)))]
    return _form(key, value, explode, encode)


def _flat(value: Any, members: list[Any], encode: Encoder) -> list[str]:
    if isinstance(value, Mapping):
        return [encode(part) for k, v in members for part in (k, scalar(v))]
    return [encode(scalar(v)) for v in members]


def _form(key: str, value: Any, explode: bool, encode: Encoder) -> list[tuple[str, str]]:
    if not isinstance(value, (Mapping, list, tuple)):
        return [(key, encode(scalar(value)))]
    members = _defined(value)
    if members is None:
        return []
    if not explode:
        return [(key, ",".join(_flat(value, members, encode)))]
    if isinstance(value, Mapping):
        return [(encode(k), encode(scalar(v))) for k, v in members]
    return [(key, encode(scalar(v))) for v in members]


def _deep_object(
    key: str, value: Any, encode: Encoder, delimiters: dict[str, str], *, indexed: bool
) -> list[tuple[str, str]]:
    """``color[R]=100&color[G]=200``, nested objects as ``a[b][c]``, iteratively; array
    members as ``a[0]``, ``a[1][b]`` when ``indexed``, else under the array's own key."""
    pairs: list[tuple[str, str]] = []
    stack: list[tuple[str, Any]] = [(key, value)]
    opening, closing = delimiters["["], delimiters["]"]
    while stack:
        prefix, node = stack.pop()
        if isinstance(node, Mapping):
            children = [(f"{prefix}{opening}{encode(str(k))}{closing}", v)
                        for k, v in node.items()]
            stack.extend(reversed(children))
        elif isinstance(node, (list, tuple)):
            items = [(f"{prefix}{opening}{i}{closing}" if indexed else prefix, v)
                     for i, v in enumerate(node)]
            stack.extend(reversed(items))
        elif node is not None:
            pairs.append((prefix, encode(scalar(node))))
    return pairs


def bracketed(name: str, items: list[Any] | tuple[Any, ...], encode: Encoder) -> list[
        tuple[str, str]]:
    """An array of objects or arrays in a form body as indexed brackets:
    ``tax_id_data[0][type]=eu_vat`` (:data:`FORM_STYLES` ``brackets``).

    >>> bracketed("t", [{"type": "eu_vat"}], percent)
    [('t%5B0%5D%5Btype%5D', 'eu_vat')]
    """
    return _deep_object(percent(name), list(items), encode, _URL_DELIMITERS, indexed=True)
