"""How one name or value is escaped for its place in a request: the text encoders
(RFC 3986 percent-encoding, RFC 6570 reserved expansion, header and cookie text) and the
names a header or cookie may carry (RFC 9110 ``token``).

The one place each encoder is defined: ``execute.serialize`` expands values with them,
``execute.wire`` picks the one for each place, and ``compose`` asks
:func:`arrives_as_cookie_name` whether a cookie parameter's name arrives as written.

Source: RFC 3986 sections 2.1-2.4; RFC 6570 sections 3.2.1 and 3.2.3; RFC 9110 section
5.6.2; RFC 6265 section 4.1.1; OpenAPI 3.1.1 Appendices C-E.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from urllib.parse import quote

__all__ = [
    "Encoder",
    "arrives_as_cookie_name",
    "cookie_reserved",
    "cookie_text",
    "cookie_unsafe",
    "header_text",
    "identity",
    "is_token",
    "path_reserved",
    "percent",
    "query_text",
    "reserved",
]

Encoder = Callable[[str], str]
"""Percent-encodes (or passes) one name or value."""

_RESERVED_KEPT = ":/?@!$'()*,;"
"""RFC 3986 reserved characters ``allowReserved`` leaves as they are: all but ``[ ] #`` (not
allowed in a query) and ``& = +`` (delimiters of form data), OpenAPI 3.1.1 Appendix C."""

_TRIPLE = re.compile(r"%[0-9A-Fa-f]{2}")


def percent(text: str) -> str:
    """Percent-encode every UTF-8 byte but the unreserved ``A-Z a-z 0-9 - . _ ~``.

    >>> percent("a b/é?")
    'a%20b%2F%C3%A9%3F'

    Source: RFC 3986 sections 2.1 and 2.3; RFC 6570 section 3.2.1 (simple string expansion).
    """
    return quote(text, safe="")


def reserved(text: str) -> str:
    """Reserved expansion for ``allowReserved``: reserved characters and ``%XX`` triples pass.

    >>> reserved("a/b?c=d&e %2F")
    'a/b?c%3Dd%26e%20%2F'

    Source: RFC 6570 section 3.2.3; OpenAPI 3.1.1 Parameter Object ``allowReserved``.
    """
    return _passing_triples(text, _RESERVED_KEPT)


def _passing_triples(text: str, kept: str) -> str:
    """``text`` percent-encoded but for the characters in ``kept`` and ``%XX`` triples."""
    out: list[str] = []
    start = 0
    for match in _TRIPLE.finditer(text):
        out.append(quote(text[start : match.start()], safe=kept))
        out.append(match.group())
        start = match.end()
    out.append(quote(text[start:], safe=kept))
    return "".join(out)


_QUERY_KEPT = "!$&'()*+,;=:@/?"
"""What a query holds as it is: RFC 3986's sub-delimiters, ``:``, ``@``, ``/`` and ``?``
(section 3.4, ``query = *( pchar / "/" / "?" )``); ``[ ] #`` and a space do not."""


def query_text(text: str) -> str:
    """A text that is a query string already, made one a URL can carry: the characters
    RFC 3986 allows in a query (``&``, ``=``, ``+``, ``,`` ...) and ``%XX`` triples pass,
    the rest (a space, ``[ ] #``, a lone ``%``, non-ASCII as UTF-8) is percent-encoded.

    >>> query_text("a[0]=x y&b=%41+c")
    'a%5B0%5D=x%20y&b=%41+c'

    Source: RFC 3986 sections 2.1, 2.4 and 3.4; OpenAPI 3.2.0 section 4.12.7 (Extending
    Support for Querystring Formats: ``text/plain``, "a plain string").
    """
    return _passing_triples(text, _QUERY_KEPT)


_PATH_KEPT = ":@!$&'()*+,;="
"""What ``allowReserved`` leaves as it is in a path value: RFC 3986's sub-delimiters, ``:``
and ``@`` (``pchar``); ``/ ? # [ ]`` stay encoded, as OpenAPI's path templating requires."""


def path_reserved(text: str) -> str:
    """Reserved expansion of a path value (OpenAPI 3.2 ``allowReserved``): ``pchar``
    reserved characters and ``%XX`` triples pass, ``/ ? # [ ]`` and a lone ``%`` do not.

    >>> path_reserved("a:b;c=d%2Fe/f?g %")
    'a:b;c=d%2Fe%2Ff%3Fg%20%25'

    Source: OpenAPI 3.2.0 sections 4.8.2 (Path Templating) and 4.8.12 (``allowReserved``);
    RFC 3986 section 3.3; RFC 6570 section 3.2.3.
    """
    return _passing_triples(text, _PATH_KEPT)


def header_text(text: str) -> str:
    r"""A header value: printable ASCII as is, every other character percent-encoded (UTF-8).

    RFC 6570 percent-encoding is not meant for headers (OpenAPI 3.1.1 Appendix D); field
    values are visible ASCII and spaces (RFC 9110 section 5.5), so only the rest is encoded,
    which also means CR and LF can never end a header early.

    >>> header_text("naïve\r\nX: 1")
    'na%C3%AFve%0D%0AX: 1'
    """
    return "".join(c if " " <= c <= "~" else quote(c, safe="") for c in text)


def cookie_text(text: str) -> str:
    r"""A ``style: cookie`` name or value: as given (the caller escapes it), but for what
    would end the pair or the header: ``;``, controls and non-ASCII, percent-encoded (UTF-8).

    >>> cookie_text("Hello%2C world!;x\r\n")
    'Hello%2C world!%3Bx%0D%0A'

    Source: OpenAPI 3.2.0 section 4.8.12.4 (Style Values ``cookie``) and Appendix D; RFC 6265
    section 4.2.1.
    """
    return "".join(c if " " <= c <= "~" and c != ";" else quote(c, safe="") for c in text)


_COOKIE_KEPT = ":/?#[]@!$&'()*+="
"""RFC 3986 reserved characters that are RFC 6265 ``cookie-octet``s: what ``allowReserved``
leaves as it is in a ``style: form`` cookie value (``,`` and ``;`` are no cookie-octets)."""


def cookie_reserved(text: str) -> str:
    """Reserved expansion of a ``style: form`` cookie value (OpenAPI 3.2 ``allowReserved``):
    reserved characters a cookie value may hold and ``%XX`` triples pass, ``,``, ``;``, a
    lone ``%`` and every other character are percent-encoded.

    >>> cookie_reserved("a/b=c, d;%2C")
    'a/b=c%2C%20d%3B%2C'

    Source: OpenAPI 3.2.0 section 4.12.2.2 (``allowReserved``: reserved characters the
    destination does not allow stay encoded) and Appendix D ("to allow the full use of
    ``style: form`` with ``in: cookie``, use the ``allowReserved`` field"); RFC 6265 section
    4.1.1 (``cookie-octet``); RFC 6570 section 3.2.3.
    """
    return _passing_triples(text, _COOKIE_KEPT)


def cookie_unsafe(text: str) -> str | None:
    r"""The first character of a ``style: cookie`` text that a cookie value cannot hold as
    it is, or ``None``: controls, ``"``, ``,``, ``;``, ``\`` and non-ASCII (RFC 6265
    ``cookie-octet``). A space passes, as OpenAPI 3.2's own examples send one
    (``greeting=Hello%2C world!``).

    >>> cookie_unsafe("Hello%2C world!"), cookie_unsafe("a,b"), cookie_unsafe("é")
    (None, ',', 'é')

    Source: OpenAPI 3.2.0 section 4.12.3 (Style Values ``cookie``: "data values that require
    any sort of escaping MUST be provided in escaped form") and 4.12.8 (its cookie example:
    "the comma ... is forbidden in cookie values"); RFC 6265 section 4.1.1.
    """
    for char in text:
        if not " " <= char <= "~" or char in '",;\\':
            return char
    return None


def identity(text: str) -> str:
    """No encoding: multipart parts carry raw text (OpenAPI 3.1.1 Appendix E)."""
    return text


def is_token(name: str) -> bool:
    """Whether ``name`` can be sent as a header field name or a cookie name: RFC 9110
    section 5.6.2 ``token`` (RFC 6265 section 4.1.1: ``cookie-name = token``), so never
    empty and never with a space, a separator or a control character (``"X\\r\\nY: 1"``
    would inject a header).

    >>> is_token("X-Api-Key"), is_token("X-K\\r\\nInjected: 1"), is_token("")
    (True, False, False)
    """
    return _TOKEN.fullmatch(name) is not None


_TOKEN = re.compile(r"[!#$%&'*+.^_`|~0-9A-Za-z-]+")
"""RFC 9110 section 5.6.2 ``token``: what a field name may hold."""


def arrives_as_cookie_name(name: str, encode: Encoder) -> bool:
    """Whether ``name``, sent through ``encode``, reaches the server as the cookie name
    written: it is a token (RFC 6265 section 4.1.1: ``cookie-name = token``) that
    ``encode`` leaves as it is. A receiver does not decode a cookie name (RFC 6265
    section 5.2), so a name :func:`percent` changes (``a!b`` is sent as ``a%21b``) would
    arrive as another cookie.

    The one rule for a cookie parameter's own name (``compose``: :func:`percent` for
    ``style: form`` and ``content``, :func:`cookie_text` for OpenAPI 3.2's ``style:
    cookie``) and for an exploded cookie object's keys (``execute.wire``: the encoder of
    its values).

    >>> [arrives_as_cookie_name(n, percent) for n in ("sid", "a!b", "a b", "")]
    [True, False, False, False]
    >>> arrives_as_cookie_name("a!b", cookie_text), arrives_as_cookie_name("a!b", cookie_reserved)
    (True, True)
    """
    return is_token(name) and encode(name) == name
