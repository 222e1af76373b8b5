"""One argument on the wire: what it adds to the request, and the calls that would send nothing.

``build_request`` places each parameter through :func:`path_text`, :func:`query_pairs_of`,
:func:`header_text_of` and :func:`cookie_pairs_of`; ``validate`` runs the same functions, so a
call it accepts is a call that builds and carries every required value. A value can match
its schema and still send nothing, because RFC 6570 treats ``null``, ``[]``, ``{}`` and
``null`` members as undefined:

- a path value that expands to nothing (``{}``, ``[]``, ``[""]``, ``{"a": null}``) or to a
  ``.``/``..`` segment: ``build_request`` would refuse it (:func:`path_errors`);
- ``null``, an empty array or object, or one of ``null`` members, for a required query,
  header or cookie parameter: the parameter would be missing (:func:`parameter_errors`);
- the same for a required property of a form or multipart body: the encoder leaves it out
  (``body.silent_properties``; ``validate`` checks the body without them);
- a required body that is ``null`` (sent as JSON ``null`` only when the body is JSON and its
  schema explicitly allows ``null``), or that encodes to no bytes (``""`` as a binary or text
  body, an empty form): a server reads either as no body (:func:`body_error`);
- an XML body holding a key that is no XML name or a character XML 1.0 cannot carry, and a
  form or multipart body that is no object (a form's string aside) where its schema says
  no type (``{}``, ``properties`` alone): the build would refuse them (:func:`body_error`).

And values that would arrive other than given, which ``build_request`` refuses with the
same words: an empty query value without ``allowEmptyValue`` (:func:`sends_empty`), a
member holding the delimiter it is joined with as sent, or an exploded object's key
holding the ``=`` of its pair (:func:`split_member`), a
header value or list member a receiver would trim (:func:`header_trimmed`), a
``style: cookie`` value that is not escaped (:func:`cookie_unescaped`), a ``null`` item of
a parameter array (:func:`null_member`) or of an array a form or multipart value sends
(:func:`form_null_items`).

Source: RFC 6570 sections 2.3 and 3.2.1; OpenAPI 3.1.0 sections 4.8.12 (Parameter Object
``required``) and 4.8.13 (Request Body Object ``required``).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from typing import Any
from urllib.parse import unquote

from httpllm import pointer
from httpllm._escape import (
    Encoder,
    arrives_as_cookie_name,
    cookie_reserved,
    cookie_text,
    cookie_unsafe,
    header_text,
    path_reserved,
    percent,
    query_text,
    reserved,
)
from httpllm._media import FORM, essence, is_xml
from httpllm.errors import RequestBuildError
from httpllm.execute.body import encode_body, form_pairs, null_items, sends_null
from httpllm.execute.feedback import ArgumentError, argument_error, show
from httpllm.execute.serialize import (
    DELIMITED,
    FORM_STYLES,
    content_text,
    expand,
    join_delimiter,
    query_pairs,
    scalar,
)
from httpllm.execute.xml_body import xml_text
from httpllm.records import Argument, Function

__all__ = [
    "IGNORED_HEADERS",
    "NULL_MEMBER",
    "VARIABLE",
    "body_error",
    "cookie_errors",
    "cookie_pairs_of",
    "cookie_unescaped",
    "form_null_items",
    "form_style",
    "header_text_of",
    "header_trimmed",
    "is_dot_segment",
    "null_item_errors",
    "null_member",
    "parameter_text",
    "parameter_errors",
    "path_errors",
    "path_text",
    "query_pairs_of",
    "querystring_text",
    "sends_empty",
    "split_errors",
    "split_member",
    "xml_errors",
]

VARIABLE = re.compile(r"\{([^{}]*)\}")
"""A template expression: ``{name}`` in a path or server URL."""

IGNORED_HEADERS = frozenset(("accept", "content-type", "authorization"))
"""Header parameters OpenAPI says to ignore (3.1.0 section 4.8.12.1)."""

_DOTS = (".", "..")

_NON_JSON = (TypeError, ValueError, RequestBuildError)
"""What serializing a value that is not JSON raises, or one an XML ``content`` parameter
cannot hold (``validate`` reports either elsewhere: the schema check, :func:`xml_errors`)."""


def parameter_text(argument: Argument, value: Any, default: str) -> str:
    """The text of a ``content`` parameter's value by its media type (``default`` when it
    names none): an XML one's object, array, number or boolean as an XML document
    (:func:`~httpllm.execute.xml_body.xml_text`, by the schema's XML Objects), anything
    else by :func:`~httpllm.execute.serialize.content_text` (JSON, or a string as it is).

    Raises:
        RequestBuildError: an XML value XML cannot hold (:func:`.xml_body.xml_bytes`).

    Source: OpenAPI 3.2.0 section 4.12.7 (Parameter Object ``content``: the value is
    serialized by its media type) and the XML Object.
    """
    media_type = argument.media_type or default
    if is_xml(media_type) and not isinstance(value, str):
        return xml_text(argument, value)
    return content_text(media_type, value)


_ENCODERS: dict[str, tuple[Encoder, Encoder]] = {
    "path": (percent, path_reserved), "query": (percent, reserved),
    "header": (header_text, header_text), "cookie": (percent, cookie_reserved)}
"""How a ``style``d value's members and an exploded object's keys are encoded in each
place, without and with ``allowReserved`` (OpenAPI 3.2 allows it in a path and a cookie;
a header is sent as given, printable ASCII kept): the one table :func:`_encoder_of` reads."""


def _encoder_of(argument: Argument) -> Encoder:
    """The encoder of a ``style``d parameter's members and exploded keys in its place
    (:data:`_ENCODERS`), which every function here that sends or checks them uses.

    >>> from httpllm.records import Argument
    >>> a = Argument(name="c", location="cookie", original="c", required=False, schema={},
    ...              style="form", allow_reserved=True)
    >>> _encoder_of(a)("a/b;c")
    'a/b%3Bc'

    Source: OpenAPI 3.2.0 section 4.12.2.2 (``allowReserved``) and Appendices C-E; RFC
    6570 sections 3.2.1 and 3.2.3.
    """
    return _ENCODERS[argument.location][argument.allow_reserved]


def path_text(argument: Argument, value: Any) -> str | None:
    """The percent-encoded text a path value fills its template expression with.

    ``None`` or ``""`` when the value expands to nothing.

    >>> from httpllm.records import Argument
    >>> a = Argument(name="id", location="path", original="id", required=True, schema={},
    ...              style="simple")
    >>> path_text(a, ["a b", "c"]), path_text(a, [""]), path_text(a, {})
    ('a%20b,c', '', None)
    """
    if value is None:
        return None
    name = argument.wire_name
    if argument.style is None:
        return percent(parameter_text(argument, value, "text/plain"))
    return expand(argument.style, name, value, argument.explode, _encoder_of(argument))


def is_dot_segment(segment: str) -> bool:
    """Whether a path segment is ``.`` or ``..``, percent-encoded or not (``%2e%2E``: a
    triple of an unreserved character is that character, RFC 3986 section 6.2.2.2), which
    a server's or a proxy's normalization removes with the segment before it."""
    return unquote(segment) in _DOTS


def form_style(function: Function) -> str:
    """How ``function`` sends what ``deepObject`` and form bodies leave undefined:
    ``Function.extra["form_style"]`` (``compile(form_style=...)``, or the document's or the
    operation's ``x-httpllm-form-style``), else ``"brackets"`` (:data:`.serialize.FORM_STYLES`).
    """
    chosen = function.extra.get("form_style")
    return chosen if isinstance(chosen, str) and chosen in FORM_STYLES else "brackets"


def query_pairs_of(
    argument: Argument, value: Any, nested: str = "brackets"
) -> list[tuple[str, str]]:
    """The encoded ``name=value`` pairs a query value adds (``[]``: none).

    An OpenAPI 3.2 ``in: querystring`` form parameter (its object is the whole query) is
    sent as a form body is (:func:`~httpllm.execute.body.form_pairs`); one of another
    media type is no pairs but :func:`querystring_text`.
    """
    if value is None or (argument.querystring and argument.style is None):
        return []
    name = argument.wire_name
    if argument.style is None:
        text = parameter_text(argument, value, "application/json")
        return [(percent(name), percent(text))]
    if argument.querystring and isinstance(value, Mapping):
        return form_pairs(argument, value, nested, by_name=True)
    return query_pairs(argument.style, name, value, argument.explode, _encoder_of(argument),
                       nested=nested)


def sends_empty(argument: Argument, value: Any, nested: str = "brackets") -> bool:
    """Whether a query value without ``allowEmptyValue`` would send its name with an empty
    value (``a=``): ``""``, or an array or object member ``""`` (``[""]``, ``["x", ""]``
    exploded), by the pairs :func:`query_pairs_of` makes.

    >>> from httpllm.records import Argument
    >>> a = Argument(name="a", location="query", original="a", required=False, schema={},
    ...              style="form", explode=True)
    >>> [sends_empty(a, v) for v in ("", [""], ["x", ""], {"b": ""}, "x")]
    [True, True, True, False, False]

    Not exploded, ``["", ""]`` sends ``a=,``, which is not empty. A ``content``
    parameter and a ``querystring`` one take no ``allowEmptyValue`` (OpenAPI: "valid only
    for ``query`` parameters", ignored where ``style`` cannot serialize).

    Source: OpenAPI 3.1.0 section 4.8.12.2 and 3.2.0 section 4.12.2.1 (``allowEmptyValue``:
    clients MAY pass a zero-length value only when it is ``true``).
    """
    if (argument.location != "query" or argument.style is None or argument.querystring
            or argument.allow_empty_value):
        return False
    key = percent(argument.wire_name)
    return any(k == key and v == "" for k, v in query_pairs_of(argument, value, nested))


def querystring_text(argument: Argument, value: Any) -> str | None:
    """The whole query string an OpenAPI 3.2 ``in: querystring`` parameter of a media type
    other than a form sends; ``None`` for ``null``, an empty text or another parameter.

    - ``text/plain``: the text *is* the query string, in a format the API defines
      outside OpenAPI (``a[0]=1&b=2``): sent as written, only what a query cannot hold
      (a space, ``[ ] #``, a lone ``%``, non-ASCII) percent-encoded
      (:func:`~httpllm._escape.query_text`): ``a=1&b=2`` is ``?a=1&b=2``;
    - any other media type (JSON, JSONPath ...): the value serialized by that media type
      (compact JSON, a string as it is) is data, every byte but RFC 3986's unreserved
      ones percent-encoded, as OpenAPI 3.2's own examples show.

    >>> from httpllm.records import Argument
    >>> a = Argument(name="q", location="query", original="q", required=True, schema={},
    ...              media_type="application/json", querystring=True)
    >>> querystring_text(a, {"numbers": [1, 2], "flag": None})
    '%7B%22numbers%22%3A%5B1%2C2%5D%2C%22flag%22%3Anull%7D'
    >>> t = Argument(name="q", location="query", original="q", required=True, schema={},
    ...              media_type="text/plain", querystring=True)
    >>> querystring_text(t, "a=1&b=x y")
    'a=1&b=x%20y'

    Source: OpenAPI 3.2.0 sections 4.12.1 (``querystring``), 4.12.7 (Extending Support
    for Querystring Formats: "use ``content`` and ``text/plain`` with a schema of ``type:
    "string"`` and define the format outside of OpenAPI"), 4.12.8 (its JSON and JSONPath
    examples: ``%7B%22numbers%22...``, ``%24.a.b%5B1%3A1%5D``) and Appendix E; RFC 3986
    sections 2.1-2.3 and 3.4.
    """
    if value is None or not argument.querystring or argument.style is not None:
        return None
    media_type = argument.media_type or "application/json"
    encode = query_text if essence(media_type) == "text/plain" else percent
    return encode(parameter_text(argument, value, media_type)) or None


def header_text_of(argument: Argument, value: Any) -> str | None:
    """The header field value a header parameter sends, or ``None`` for no header."""
    name = argument.wire_name
    if value is None or name.lower() in IGNORED_HEADERS:
        return None
    if argument.style is None:
        return header_text(parameter_text(argument, value, "text/plain"))
    style = argument.style if argument.style in DELIMITED else "simple"
    return expand(style, name, value, argument.explode, _encoder_of(argument), raw=True)


def cookie_pairs_of(argument: Argument, value: Any) -> list[tuple[str, str]]:
    """The encoded ``name=value`` cookie pairs a cookie parameter adds (``[]``: none).

    ``form`` (the default) percent-encodes as RFC 6570 does; OpenAPI 3.2's ``cookie`` style
    sends names and values as given (:func:`~httpllm._escape.cookie_text`).
    """
    if value is None:
        return []
    name = argument.wire_name
    if argument.style is None:
        text = parameter_text(argument, value, "text/plain")
        return [(percent(name), percent(text))]
    if argument.style == "cookie":
        return query_pairs("form", cookie_text(name), value, argument.explode, cookie_text,
                           raw=True)
    return query_pairs("form", name, value, argument.explode, _encoder_of(argument))


def cookie_unescaped(argument: Argument, value: Any) -> str | None:
    """What a ``style: cookie`` value holds that it cannot send as given, said as what was
    expected, or ``None``: a text with a character no cookie value holds
    (:func:`~httpllm._escape.cookie_unsafe`; a ``,`` would also split a
    non-exploded array), or an exploded object's key that is no cookie name (a token).

    OpenAPI 3.2 sends such values as given and says they MUST come escaped: escaping them
    here would send another value than the one given, so the call is refused instead.

    A space passes inside a text (OpenAPI 3.2's example sends ``Hello%2C world!``), never
    at its start or end, which a receiver strips from every name and value.

    An exploded object of a ``style: form`` cookie (the default) is refused alike when a
    key would arrive as another cookie name (:func:`_renamed_cookie`).

    Source: OpenAPI 3.2.0 section 4.12.3 (Style Values ``cookie``) and Appendix D; RFC 6265
    section 4.1.1 (``cookie-name = token``, ``cookie-octet``) and 5.2 (leading and
    trailing whitespace removed).
    """
    if argument.location != "cookie" or argument.style is None or value is None:
        return None
    if argument.style != "cookie":
        return _renamed_cookie(argument, value)
    pairs = value.items() if isinstance(value, Mapping) else []
    for key, _ in pairs:
        if argument.explode and not arrives_as_cookie_name(str(key), cookie_text):
            return f"cookie names that are RFC 6265 tokens ({show(str(key))} is not one)"
    if isinstance(value, Mapping):
        texts = [t for k, v in pairs if v is not None for t in (str(k), scalar(v))]
    elif isinstance(value, (list, tuple)):
        texts = [scalar(v) for v in value if v is not None]
    else:
        texts = [scalar(value)]
    for text in texts:
        char = cookie_unsafe(text)
        if char is not None:
            return (f"cookie-safe text ({show(text)} holds {show(char)}; style cookie sends "
                    f"values as given, so escape it first, e.g. as {percent(char)})")
        if text != text.strip(" "):
            return (f"cookie text that does not start or end with a space ({show(text)}: a "
                    "cookie's receiver strips them, RFC 6265 section 5.2; escape it first, "
                    "e.g. as %20)")
    return None


def _renamed_cookie(argument: Argument, value: Any) -> str | None:
    """What was expected of an exploded ``style: form`` cookie object one of whose keys
    would arrive as another cookie name, or ``None``: each key is a cookie name, sent
    percent-encoded (``a b`` as ``a%20b``, ``a!b`` as ``a%21b``), which a receiver does not
    decode in a name, so only a token encoding leaves as it is arrives as given (the rule
    compose applies to a cookie parameter's own name).

    Source: RFC 6265 sections 4.1.1 (``cookie-name = token``) and 5.2; RFC 6570 section
    3.2.8 (form-style expansion).
    """
    if not argument.explode or not isinstance(value, Mapping):
        return None
    encode = _encoder_of(argument)
    for key, member in value.items():
        name = str(key)
        if member is not None and not arrives_as_cookie_name(name, encode):
            return (f"cookie names that arrive as written ({show(name)} would be sent as "
                    f"{show(encode(name))}: an exploded object's keys are cookie names, and "
                    "a receiver does not decode them)")
    return None


_DELIMITER_NAMES = {",": '","', "|": '"|"', " ": "a space", "\t": "a tab",
                    "%7C": '"|" (%7C)', "%20": "a space (%20)", "%09": "a tab (%09)"}


def _joining(argument: Argument) -> tuple[str, Encoder] | None:
    """The delimiter an array or object value of ``argument`` is joined with as sent and
    how each member is encoded, or ``None`` where members are not joined or cannot hold
    it (exploded query and cookie values are pairs; a ``style: form`` cookie and a
    ``style: cookie`` value are checked by other rules)."""
    style, where = argument.style, argument.location
    if style is None or argument.querystring or where not in ("header", "query", "path"):
        return None
    encode = _encoder_of(argument)
    if where == "header":
        return join_delimiter(style, raw=True), encode
    if where == "query" and not argument.explode and style in ("form", *DELIMITED):
        return join_delimiter(style), encode
    if where == "path" and (style in ("simple", *DELIMITED) or not argument.explode):
        return join_delimiter(style), encode
    if where == "path" and style in _EXPLODED:  # RFC 6570 ``.`` and ``;`` expansions
        return _EXPLODED[style], encode
    return None


_EXPLODED = {"label": ".", "matrix": ";"}
"""The separator of an exploded ``label`` or ``matrix`` path value (RFC 6570 Appendix A):
``.`` is unreserved, so no encoding hides it in a member (``["1.5"]`` is ``.1.5``, as
``["1", "5"]`` is); ``;`` is percent-encoded unless ``allowReserved``."""

def _pair_key_split(argument: Argument, value: Any) -> str | None:
    """What was expected of an exploded object one of whose keys holds ``=`` as sent: its
    pairs are ``key=value`` (``a=b=c`` is key ``a``, value ``b=c``), so the receiver reads
    the key up to its first ``=``; a value may hold ``=``. Where the key is
    percent-encoded (a query, a path or cookie without ``allowReserved``) it never does;
    a header key is sent as given. A ``style: cookie`` key is checked by
    :func:`cookie_unescaped`; ``deepObject`` and the delimited styles send no such pair.

    Source: RFC 6570 section 3.2.1 (an exploded associative array is ``name=value``
    pairs); OpenAPI 3.2.0 Appendix C ("Delimiters in Parameter Values") and Appendix D.
    """
    style, where = argument.style, argument.location
    if (not argument.explode or style is None or argument.querystring
            or not isinstance(value, Mapping) or where not in _ENCODERS
            or (where, style) in (("query", "deepObject"), ("cookie", "cookie"))
            or (where in ("path", "header") and style in DELIMITED)):
        return None
    encode = _encoder_of(argument)
    for key, member in value.items():
        if member is not None and "=" in encode(str(key)):
            return (f'object keys that do not hold "=" (an exploded object is sent as '
                    f"key=value pairs, so the key {show(str(key))} would be read as "
                    f"{show(str(key).split('=', 1)[0])})")
    return None


def split_member(argument: Argument, value: Any) -> str | None:
    """What was expected of an array or object value one of whose members (or keys) holds,
    as sent, the delimiter the members are joined with, so the receiver would read two
    members; ``None`` when none does.

    Or an exploded object whose key holds, as sent, the ``=`` of its ``key=value`` pair
    (:func:`_pair_key_split`).

    Headers are sent as given (``"a,b"`` in ``["a,b", "c"]`` is ``a,b,c``), reserved
    expansion (``allowReserved``) leaves ``,`` as it is, an exploded ``label`` path value
    joins its members with ``.``, which is unreserved (``["1.5", "2"]`` is ``.1.5.2``), an
    exploded ``matrix`` one with ``;`` (kept by ``allowReserved``), and a delimited style's
    delimiter is percent-encoded exactly as the same character in a member (``["a b"]``,
    ``spaceDelimited``, is ``a%20b``): OpenAPI leaves escaping such a member to the caller.

    Source: OpenAPI 3.2.0 Appendix C ("Delimiters in Parameter Values"), Appendix D and
    Appendix E ("Percent-Encoding and Illegal or Reserved Delimiters"); OpenAPI 2.0
    ``collectionFormat``.
    """
    joining = _joining(argument)
    if joining is None or not isinstance(value, (Mapping, list, tuple)):
        return _pair_key_split(argument, value)
    delimiter, encode = joining
    if isinstance(value, Mapping):
        texts = [t for k, v in value.items() if v is not None for t in (str(k), scalar(v))]
    else:
        texts = [scalar(v) for v in value if v is not None]
    for text in texts:
        if delimiter in encode(text):
            shown = _DELIMITER_NAMES.get(delimiter, show(delimiter))
            return (f"members that do not hold {shown} (the members are joined with "
                    f"{shown}, so {show(text)} would be read as two)")
    return _pair_key_split(argument, value)


_OWS = " \t"
"""Optional whitespace (RFC 9110 section 5.6.3): a field value never starts or ends with it."""


def header_trimmed(argument: Argument, value: Any) -> str | None:
    """What was expected of a header value that would not arrive as given, or ``None``: a
    field value starting or ending with a space (RFC 9110 section 5.5: a field value
    excludes such whitespace, so a receiver strips it and h11 refuses to send it), or an
    array member that is ``""`` or starts or ends with a space (section 5.6.1: a list
    recipient ignores empty elements and the whitespace around each ``,``, so
    ``["", "b"]`` would be read as ``["b"]`` and ``["a", " b"]`` as ``["a", "b"]``).

    A header value is sent as given (:func:`header_text_of`): escaping the space would
    send another value, so the call is refused instead, as :func:`split_member` does.

    >>> from httpllm.records import Argument
    >>> a = Argument(name="x", location="header", original="x", required=False, schema={},
    ...              style="simple")
    >>> [header_trimmed(a, v) is None for v in ("a b", " a", ["a", ""], ["a", "b c"])]
    [True, False, False, True]

    Source: RFC 9110 sections 5.5 (Field Values), 5.6.1 (Lists) and 5.6.3 (Whitespace);
    OpenAPI 3.2.0 Appendix D (header values are not percent-encoded).
    """
    if argument.location != "header" or value is None:
        return None
    text = header_text_of(argument, value)
    if text is not None and text != text.strip(_OWS):
        return (f"a header value that does not start or end with a space ({show(text)} "
                "as sent; a header field drops the spaces at its ends, RFC 9110 section 5.5)")
    if argument.style is None or not isinstance(value, (list, tuple)):
        return None
    for item in value:
        member = None if item is None else header_text(scalar(item))
        if member is not None and (not member or member != member.strip(_OWS)):
            return (f"list members that are not empty and do not start or end with a space "
                    f"({show(member)} would not arrive as given: a header list drops empty "
                    "members and the spaces around each, RFC 9110 section 5.6.1)")
    return None


def split_errors(function: Function, args: Mapping[str, Any]) -> dict[str, ArgumentError]:
    """Array and object values a member of which would split in two (:func:`split_member`),
    and header values a receiver would trim (:func:`header_trimmed`), by pointer."""
    return _value_errors(function, args, "delimiter", lambda argument, value: (
        split_member(argument, value) or header_trimmed(argument, value)))


def xml_errors(function: Function, args: Mapping[str, Any]) -> dict[str, ArgumentError]:
    """``content`` parameters of an XML media type whose value an XML document cannot
    hold (a key that is no XML name, U+0000 ...: :func:`parameter_text`), by pointer."""
    return _value_errors(function, args, "xml", _xml_unheld)


def _xml_unheld(argument: Argument, value: Any) -> str | None:
    if (argument.location == "body" or argument.style is not None or value is None
            or isinstance(value, str) or not is_xml(argument.media_type or "")):
        return None
    try:
        xml_text(argument, value)
    except RequestBuildError as exc:
        why = exc.message.removeprefix(f"argument {argument.name!r}: ")
        return f"a value an XML document can hold ({why})"
    return None


def cookie_errors(function: Function, args: Mapping[str, Any]) -> dict[str, ArgumentError]:
    """``style: cookie`` values that are not escaped as a cookie needs, and exploded
    ``style: form`` cookie objects a key of which would arrive renamed
    (:func:`cookie_unescaped`), by pointer."""
    return _value_errors(function, args, "cookie", cookie_unescaped)


def _value_errors(function: Function, args: Mapping[str, Any], keyword: str,
                  expected_of: Callable[[Argument, Any], str | None],
                  ) -> dict[str, ArgumentError]:
    """An error (``keyword``) at each given argument whose value ``expected_of`` says what
    was expected of instead (``None``: it arrives as given); values that are no JSON are
    left to the schema check."""
    errors: dict[str, ArgumentError] = {}
    for argument in function.arguments:
        if argument.name not in args:
            continue
        value = args[argument.name]
        try:
            expected = expected_of(argument, value)
        except _NON_JSON:
            continue
        if expected is not None:
            at = pointer.join("#", argument.name)
            errors[at] = argument_error(at, keyword, expected, show(value))
    return errors


def path_errors(function: Function, args: Mapping[str, Any]) -> dict[str, ArgumentError]:
    """Path values that would fill their segment with nothing, ``.`` or ``..``, by pointer.

    Values not given are left to the schema's ``required``; values that are not JSON to the
    schema check.
    """
    texts: dict[str, str] = {}
    errors: dict[str, ArgumentError] = {}
    for argument in function.arguments:
        if argument.location != "path" or argument.name not in args:
            continue
        value = args[argument.name]
        try:
            text = path_text(argument, value)
        except _NON_JSON:
            continue
        at = pointer.join("#", argument.name)
        if not text or is_dot_segment(text):
            errors[at] = _path_error(at, value, text)
        texts[argument.wire_name] = text or ""
    for segment in function.path.split("/"):
        names = VARIABLE.findall(segment)
        if not names or any(n not in texts for n in names):
            continue
        if is_dot_segment(VARIABLE.sub(lambda m: texts[m.group(1)], segment)):
            for argument in function.arguments:
                at = pointer.join("#", argument.name)
                if argument.location == "path" and argument.original in names:
                    errors.setdefault(at, _path_error(at, args[argument.name], "."))
    return errors


def _path_error(at: str, value: Any, text: str | None) -> ArgumentError:
    if isinstance(value, str) and value in ("", *_DOTS):
        expected = 'a path segment other than "", "." and ".."'
    elif text:
        expected = 'a value that does not expand to a "." or ".." path segment'
    else:
        expected = (
            'a value that fills the path segment (null, [], {}, [""] and null members '
            "expand to nothing)"
        )
    return argument_error(at, "path", expected, show(value))


_PLACES = {"query": "query parameter", "header": "header", "cookie": "cookie"}


def _sends_nothing(argument: Argument, value: Any, nested: str) -> bool:
    name = argument.wire_name
    if argument.location == "query":
        return not (query_pairs_of(argument, value, nested)
                    or querystring_text(argument, value))
    if argument.location == "header":
        return name.lower() not in IGNORED_HEADERS and header_text_of(argument, value) is None
    if argument.location == "cookie":
        return not cookie_pairs_of(argument, value)
    return False


def parameter_errors(function: Function, args: Mapping[str, Any]) -> dict[str, ArgumentError]:
    """Required query, header and cookie parameters whose value sends nothing, by pointer."""
    errors: dict[str, ArgumentError] = {}
    for argument in function.arguments:
        if not argument.required or argument.location not in _PLACES:
            continue
        if argument.name not in args:
            continue
        value = args[argument.name]
        try:
            silent = _sends_nothing(argument, value, form_style(function))
        except _NON_JSON:
            continue
        if silent:
            at = pointer.join("#", argument.name)
            place = "querystring parameter" if argument.querystring else _PLACES[
                argument.location]
            errors[at] = silent_error(at, value, f"required {place}")
    return errors


NULL_MEMBER = ("a {where} array has no null: RFC 6570 leaves an undefined member out, so "
               "it would arrive one item short; leave the item out")
"""Why a ``null`` item of a parameter array is refused (:func:`null_member`)."""


def null_member(argument: Argument, value: Any) -> int | None:
    """The index of the first ``null`` item of an array that a path, query, header or
    cookie parameter sends by its ``style``, or ``None``.

    RFC 6570 treats ``null`` as undefined and leaves such a member out, so ``["x",
    null]`` is sent as ``?a=x``, an array one item short that the receiver cannot tell
    from ``["x"]``: the call is refused (by ``validate`` and ``build_request`` alike)
    rather than sent other than given, as a form's ``null`` item is. An array of nothing
    but ``null`` sends nothing, as ``[]`` does (refused for a required parameter, as
    sending nothing); an object's ``null`` member is left out as an absent property.

    >>> from httpllm.records import Argument
    >>> a = Argument(name="a", location="query", original="a", required=False, schema={},
    ...              style="form", explode=True)
    >>> null_member(a, ["x", None]), null_member(a, [None]), null_member(a, {"k": None})
    (1, None, None)

    Source: RFC 6570 sections 2.3 and 3.2.1 (undefined values and list members are
    skipped); OpenAPI 3.2.0 section 4.12.4 (Style Examples: ``null`` is "undefined").
    """
    if (argument.location == "body" or argument.style is None or argument.querystring
            or not isinstance(value, (list, tuple))
            or all(item is None for item in value)):
        return None
    return next((i for i, item in enumerate(value) if item is None), None)


def null_item_errors(function: Function, args: Mapping[str, Any]) -> dict[str, ArgumentError]:
    """``null`` items of the arrays a parameter sends by its ``style``
    (:func:`null_member`) or a form or multipart value (a body, or an OpenAPI 3.2 form
    ``querystring``) sends by its media type, which the encoder would leave out
    (:func:`~httpllm.execute.body.null_items`), by pointer."""
    errors: dict[str, ArgumentError] = {}
    for argument in function.arguments:
        if argument.name not in args:
            continue
        index = null_member(argument, args[argument.name])
        if index is not None:
            at = pointer.join("#", argument.name, str(index))
            where = _PLACES.get(argument.location, "path parameter")
            why = NULL_MEMBER.format(where=where)
            errors[at] = argument_error(at, "null", f"an item other than null ({why})", "null")
        for at, kind in form_null_items(argument, args[argument.name]):
            errors[at] = argument_error(at, "null", f"an item other than null ({kind})", "null")
    return errors


def form_null_items(argument: Argument, value: Any) -> list[tuple[str, str]]:
    """``(pointer, why)`` of each ``null`` item of an array property that a form or
    multipart body, or an OpenAPI 3.2 form ``querystring``, would leave out
    (:func:`~httpllm.execute.body.null_items`): ``validate`` reports them and
    ``build_request`` refuses them alike (it left them out, sending the array one item
    short, to a call made without ``validate``).

    Source: OpenAPI 3.2.0 section 4.15.1.1 (how a ``null`` form value is sent is left to
    the implementation: "If null values are entirely omitted ...").
    """
    if not (argument.location == "body" or (argument.querystring and argument.style)):
        return []
    kind = "part" if argument.location == "body" and _is_multipart(argument) else "field"
    why = f"a form {kind} has no null: this item would not be sent; leave it out"
    return [(pointer.join("#", argument.name, name, str(index)), why)
            for name, index in null_items(argument, value)]


def _is_multipart(argument: Argument) -> bool:
    return (argument.media_type or "").lower().startswith("multipart/")


def silent_error(at: str, value: Any, slot: str) -> ArgumentError:
    """The error for a value that a required slot (``"required query parameter"``) would
    drop from the request."""
    if value is None:
        wanted = "a value other than null"
    elif isinstance(value, (list, tuple)):
        wanted = "at least one item that is not null" if value else "at least one item"
    elif isinstance(value, Mapping):
        wanted = ("at least one property whose value is sent (null, [], {} and arrays of "
                  "nulls send nothing)" if value else "at least one property")
    else:
        wanted = "a value that is sent"
    expected = f"{wanted} ({slot}; {show(value)} would send nothing)"
    return argument_error(at, "required", expected, show(value))


def body_error(function: Function, argument: Argument, value: Any) -> ArgumentError | None:
    """A required body that would reach the server as no body: ``null`` (unless JSON
    ``null`` is sent, see :func:`httpllm.execute.body.sends_null`) or zero bytes; or a
    body the build would refuse: an XML body holding what XML cannot (a key that is no
    XML name, U+0000 ...: the :mod:`httpllm.execute.xml_body` rules), a form or multipart
    body that is no object (compile offers an object where the schema's ``type`` names
    none; a schema naming no type lets an array through)."""
    at = pointer.join("#", argument.name)
    media_type = argument.media_type or "application/json"
    if value is None:
        if not argument.required or sends_null(function, argument):
            return None
        expected = "a request body (the body is required; null sends no body)"
        return argument_error(at, "required", expected, "null")
    try:
        encoded = encode_body(argument, value, form_style(function))
    except RequestBuildError as exc:
        found = essence(media_type)
        if found.startswith("multipart/") or found == FORM:
            if isinstance(value, Mapping):
                return None
            kind = "parts" if found.startswith("multipart/") else "fields"
            return argument_error(at, "type", f"an object (a {found} body is named "
                                  f"{kind}, one per property)", show(value))
        if not is_xml(media_type) or isinstance(value, str):
            return None
        why = exc.message.removeprefix(f"argument {argument.name!r}: ")
        return argument_error(at, "xml", f"a value an XML document can hold ({why})",
                              show(value))
    except _NON_JSON:
        return None
    if not argument.required or encoded.parts is not None or encoded.content:
        return None
    expected = f"a non-empty body (the body is required; this value is 0 bytes as {media_type})"
    return argument_error(at, "required", expected, show(value))
