"""Place the host's credentials where the operation's security requirements say.

``auth`` maps a security scheme name to its credential. Only schemes of the operation's
requirements are used: the first requirement (an AND of schemes) whose every scheme has a
credential is applied; an empty requirement ``{}`` makes credentials optional. The model
never sees or chooses any of this.

| scheme | credential | goes to |
| --- | --- | --- |
| ``apiKey`` | ``str`` | the header, query parameter or cookie the scheme names |
| ``http`` ``bearer`` | ``str`` | ``Authorization: Bearer <token>`` |
| ``http`` ``basic`` | ``(user, password)`` | ``Authorization: Basic <base64(user:password)>`` |
| ``oauth2``, ``openIdConnect`` | ``str`` (access token) | ``Authorization: Bearer <token>`` |

Source: OpenAPI 3.1.0 section 4.8.27 (Security Scheme Object), 4.8.30 (Security Requirement
Object); RFC 6750 section 2.1 (bearer); RFC 7617 section 2 (basic); RFC 6265 section 4.1.1.
"""

from __future__ import annotations

import base64
import functools
import html
import json
import re
from collections.abc import Callable, Iterable, Mapping
from typing import Any, Literal

from httpllm.compose.parameters import is_token
from httpllm.errors import RequestBuildError
from httpllm.records import Function

__all__ = ["ALONE_BELOW", "ENCODED_FROM", "NOT_SECRET_HEADERS", "REDACTED", "Credential",
           "Placement", "applies", "credentials", "found_in", "missing", "option_secrets",
           "redact", "redact_json", "secrets_of"]

REDACTED = "[redacted]"
"""What stands for a credential in any text httpllm shows: an answer the model reads, a
printed request, an error message, a log line."""

Credential = str | tuple[str, str]
"""An API key or token, or ``(user, password)`` for HTTP basic."""

Placement = tuple[Literal["header", "query", "cookie"], str, str]
"""Where one credential goes: ``("header", "Authorization", "Bearer abc")``."""

_COOKIE_VALUE = re.compile(r"[\x21\x23-\x2B\x2D-\x3A\x3C-\x5B\x5D-\x7E]*")
"""RFC 6265 section 4.1.1 ``cookie-octet``s: a credential is sent in a cookie as it is."""


def credentials(
    function: Function, auth: Mapping[str, Credential], *, required: bool = True
) -> list[Placement]:
    """The placements of the first satisfiable security requirement of ``function``.

    Returns:
        ``[]`` when the operation needs no credentials (no requirement, or ``security: []``),
        when it makes them optional (``{}``) and ``auth`` satisfies no requirement, and when
        ``required`` is ``False`` and ``auth`` satisfies none.

    Raises:
        RequestBuildError: ``auth`` satisfies no requirement of an operation that needs one
            (the message names the schemes, and the combinations, that would), a scheme is
            unknown or cannot be applied to a request (``mutualTLS``), or a credential has
            the wrong shape.
    """
    requirements = function.security
    if not any(requirements):
        return []
    for requirement in requirements:
        if requirement and all(name in auth for name in requirement):
            return [p for name in requirement for p in _place(function, name, auth[name])]
    if not all(requirements) or not required:
        return []
    raise RequestBuildError(
        f"{function.name} needs credentials: {missing(function, auth)}",
        pointer=function.pointer or None,
    )


def missing(function: Function, auth: Mapping[str, Credential]) -> str:
    """What would satisfy ``function``'s security: ``'pass auth= with one of: "petstore_auth"
    (oauth2); "api_key" (apiKey in header X-Key) + "app_id" (apiKey in query app) (none
    given)'``."""
    def scheme(name: str) -> str:
        raw = function.security_schemes.get(name)
        found: Mapping[str, Any] = raw if isinstance(raw, Mapping) else {}
        kind = str(found.get("type", "undefined"))
        if kind == "apiKey":
            kind += f" in {found.get('in')} {found.get('name')}"
        elif kind == "http":
            kind += f" {found.get('scheme')}"
        return f'"{name}" ({kind})'

    options = "; ".join(" + ".join(scheme(n) for n in r) for r in function.security if r)
    given = f"given: {', '.join(f'{n!r}' for n in sorted(auth))}" if auth else "none given"
    return (
        f"pass auth= with one of: {options} ({given}); or require_auth=False when "
        "the client supplies them"
    )


def _place(function: Function, name: str, credential: Any) -> list[Placement]:
    scheme = function.security_schemes.get(name)
    if not isinstance(scheme, Mapping):
        raise RequestBuildError(f"{function.name}: security scheme {name!r} is not defined")
    apply = _SCHEMES.get(str(scheme.get("type")))
    if apply is None:
        raise RequestBuildError(
            f"security scheme {name!r} of type {scheme.get('type')!r} cannot be applied to a "
            "request; configure it on the httpx client (e.g. client certificates)"
        )
    return apply(name, scheme, credential)


def _text(name: str, credential: Any) -> str:
    if not isinstance(credential, str):  # its type only: the value may be a secret
        got = "None" if credential is None else type(credential).__name__
        raise RequestBuildError(f"credential for {name!r} must be a string, got {got}")
    if any(c in credential for c in "\r\n\0"):
        raise RequestBuildError(f"credential for {name!r} must be a string without CR, LF or NUL")
    return credential


def _api_key(name: str, scheme: Mapping[str, Any], credential: Any) -> list[Placement]:
    key = _text(name, credential)
    where = scheme.get("in")
    if where in ("header", "cookie") and not is_token(str(scheme.get("name"))):
        raise RequestBuildError(f"security scheme {name!r}: {where} name "
                                f"{scheme.get('name')!r} is not an RFC 9110 token")
    if where == "header":
        return [("header", str(scheme.get("name")), key)]
    if where == "query":
        return [("query", str(scheme.get("name")), key)]
    if where == "cookie":
        if not _COOKIE_VALUE.fullmatch(key):
            raise RequestBuildError(f"credential for {name!r} is not a valid cookie value")
        return [("cookie", str(scheme.get("name")), key)]
    raise RequestBuildError(f"security scheme {name!r}: apiKey 'in' must be header/query/cookie")


def _bearer(name: str, scheme: Mapping[str, Any], credential: Any) -> list[Placement]:
    return [("header", "Authorization", f"Bearer {_text(name, credential)}")]


def _http(name: str, scheme: Mapping[str, Any], credential: Any) -> list[Placement]:
    kind = str(scheme.get("scheme", "")).lower()
    if kind == "bearer":
        return _bearer(name, scheme, credential)
    if kind == "basic":
        if not (isinstance(credential, (tuple, list)) and len(credential) == 2):
            raise RequestBuildError(
                f"credential for {name!r} (http basic) must be (user, password)"
            )
        user, password = (_text(name, part) for part in credential)
        token = base64.b64encode(f"{user}:{password}".encode()).decode("ascii")
        return [("header", "Authorization", f"Basic {token}")]
    raise RequestBuildError(
        f"security scheme {name!r}: http scheme {kind!r} needs an httpx.Auth as auth="
    )


_SCHEMES: dict[str, Callable[[str, Mapping[str, Any], Any], list[Placement]]] = {
    "apiKey": _api_key,
    "http": _http,
    "oauth2": _bearer,
    "openIdConnect": _bearer,
}
_HTTP_SCHEMES = ("bearer", "basic")
"""The HTTP authentication schemes :func:`_http` applies (others need an ``httpx.Auth``)."""


def applies(scheme: Mapping[str, Any]) -> bool:
    """Whether ``auth=`` can carry this security scheme's credential as a value (a key, a
    token, ``(user, password)``): not mutual TLS, not HTTP Digest or another HTTP scheme,
    which the httpx client's own auth must handle."""
    kind = str(scheme.get("type"))
    if kind == "http":
        return str(scheme.get("scheme", "")).lower() in _HTTP_SCHEMES
    return kind in _SCHEMES


def secrets_of(auth: Any, headers: Mapping[str, str] | None = None) -> tuple[str, ...]:
    """Every host-supplied secret of a call, each as the host gave it (:func:`redact`
    finds it in every encoding): each key or token, each basic password with its
    ``user:password`` and the base64 ``Authorization`` token of it, and the value of every
    header the host adds (``--header``, forwarded headers, a client's own headers) whatever
    its name (``X-Client-Credential`` is a secret too), with a ``"Bearer abc"`` value also
    giving ``"abc"`` (and a ``"Basic ..."`` one its password). Headers that only negotiate
    the answer (:data:`NOT_SECRET_HEADERS`: ``Accept``, ``User-Agent`` ...) are left out.
    The one list of what to mask, for every place that shows text: the agent loop, the
    trio, the MCP server, the command line, transport errors and httpx's log lines.

    >>> secrets_of({"key": "a b", "basic": ("ann", "pw")})
    ('YW5uOnB3', 'ann:pw', 'a b', 'pw')
    >>> secrets_of(None, {"Authorization": "Bearer t0ken", "Accept": "text/plain"})
    ('Bearer t0ken', 't0ken')
    """
    found: set[str] = set()
    for credential in (auth.values() if isinstance(auth, Mapping) else ()):
        if isinstance(credential, str):
            found.add(credential)
        elif isinstance(credential, (tuple, list)) and len(credential) == 2:
            found.update(_basic_secrets(*(str(part) for part in credential)))
    for name, value in (headers or {}).items():
        if isinstance(value, str) and name.lower() not in NOT_SECRET_HEADERS:
            found.update((value, *_scheme_token(value)))
    found = {s for s in found if s.strip()}
    return tuple(sorted(found, key=lambda s: (-len(s), s)))  # longest first: no leftovers


def option_secrets(options: Mapping[str, Any]) -> tuple[str, ...]:
    """:func:`secrets_of` the keyword options of :func:`httpllm.execute.execute` a host
    gives once for every call (the trio's and code mode's ``execute_options``): ``auth``,
    ``headers`` (``--header``) and the headers of its ``client``.

    >>> option_secrets({"auth": {"key": "k-1"}, "headers": {"X-Team": "t-2"}})
    ('k-1', 't-2')
    """
    client = options.get("client")
    headers = {**dict(getattr(client, "headers", None) or {}),
               **dict(options.get("headers") or {})}
    return secrets_of(options.get("auth"), headers)


NOT_SECRET_HEADERS = frozenset({"accept", "accept-encoding", "accept-language", "connection",
                                "content-type", "user-agent", "cache-control"})
"""Header names whose values only negotiate the answer: never secrets (masking
``application/json`` in every answer would only hurt)."""

ALONE_BELOW = 4
"""Secrets shorter than this (in characters) are masked only where they stand alone (no
letter, digit, ``-`` or ``_`` beside them)."""

ENCODED_FROM = 8
"""Secrets of this many characters or more are masked in their byte encodings too: the
base64 of their UTF-8 bytes (standard and URL-safe alphabets, RFC 4648 sections 4 and 5)
and its hex (section 8, either case). An API that echoes a request (a debugging endpoint,
a signed or logged copy of it) may encode it, and a model that decodes it holds the
credential; shorter secrets are left to the plain forms (their encodings are short enough
to occur by chance in any base64 body)."""


def _basic_secrets(user: str, password: str) -> tuple[str, ...]:
    """A basic credential's secrets: the password, ``user:password`` and its base64 token
    (standard and URL-safe, without padding, so a padded echo is masked too)."""
    token = _basic(user, password).rstrip("=")
    return (password, f"{user}:{password}", token, token.replace("+", "-").replace("/", "_"))


def _scheme_token(value: str) -> tuple[str, ...]:
    """What follows an ``Authorization`` scheme word: ``"Bearer abc"`` -> ``("abc",)``; a
    ``"Basic <base64>"`` value also gives the password it carries."""
    scheme, _, token = value.partition(" ")
    if not token:
        return ()
    if scheme.lower() == "basic":
        try:
            user, _, password = base64.b64decode(token, validate=True).decode().partition(":")
        except ValueError:
            return (token,)
        return (token, *_basic_secrets(user, password)) if password else (token,)
    return (token,)


def redact(text: str, secrets: Iterable[str], *, cut: bool = False) -> str:
    """``text`` with every secret replaced by :data:`REDACTED`, in every form a secret takes
    in an answer: as is, JSON-escaped (once or twice: a ``"`` as ``\\"`` or ``\\u0022``),
    percent-encoded (either case of hex digits, ``+`` for a space, any mix of encoded and
    plain characters), HTML-escaped, and for a secret of :data:`ENCODED_FROM` characters or
    more base64- and hex-encoded (:func:`_encoded`, each in those forms too); longest secret
    first. ``cut``: the text is an answer
    cut at a byte limit, which may have fallen inside a secret, so an end of it that begins
    a secret of :data:`ALONE_BELOW` characters or more, in any of those forms, is replaced
    too (the first characters of a credential are never shown, however the cut falls).

    A secret of :data:`ALONE_BELOW` characters or more is replaced wherever it occurs (an
    answer never shows one whole); a shorter one (a test key ``"ab"``) only where no letter,
    digit, ``-`` or ``_`` touches it (they join the parts of a word: ``x-ray``, ``x_id``), so
    it does not turn every ``"about"`` into ``"[redacted]out"`` (a secret that short is
    guessed in a few thousand tries: masking cannot protect it).

    >>> redact("GET /x?key=ab&about=1", ["ab"])
    'GET /x?key=[redacted]&about=1'
    >>> redact("q=a%2fb+c&r=a%2Fb%20c", ["a/b c"])
    'q=[redacted]&r=[redacted]'
    >>> redact("token=s3cr", ["s3cret!"], cut=True)
    'token=[redacted]'
    """
    secrets = tuple(secrets)
    spans = _spans(text, secrets)
    if cut:  # on the text as it came: a secret begun inside another's match is found too
        starts = [_begun(text, form) for s in secrets if len(s) >= ALONE_BELOW
                  for form in (s, *_encoded(s))]
        start = min((at for at in starts if at is not None), default=None)
        if start is not None:
            spans = _merged([*spans, (start, len(text))])
    return _masked(text, spans)


def _begun(text: str, secret: str) -> int | None:
    """Where an end of ``text`` that begins ``secret`` starts (its first characters, in any
    form :func:`redact` masks, a form itself possibly cut: ``%2`` of ``%2F``), or ``None``."""
    longest = sum(max(map(len, _literals(ch))) for ch in secret)
    for start in range(max(0, len(text) - longest), len(text)):
        if _runs_to_end(text, start, secret):
            return start
    return None


def _runs_to_end(text: str, start: int, secret: str) -> bool:
    """Whether ``text[start:]`` is the start of ``secret`` (shorter than it), each character
    in one of its forms (:func:`_literals`; hex digits of an escape in either case)."""
    stack = [(start, 0)]
    while stack:
        at, index = stack.pop()
        rest = len(text) - at
        for form in _literals(secret[index]):
            shown = text[at:at + len(form)]
            same = shown == form[:len(shown)] if len(form) == 1 else (
                shown.lower() == form[:len(shown)].lower())
            if not same:
                continue
            if len(form) >= rest:
                return len(form) > rest or index + 1 < len(secret)
            if index + 1 < len(secret):
                stack.append((at + len(form), index + 1))
    return False


def found_in(text: str, secrets: Iterable[str]) -> bool:
    """Whether any secret occurs in ``text`` in any form :func:`redact` masks."""
    return any(scanner.search(text) for scanner in _scanners(tuple(secrets)))


def _spans(text: str, secrets: tuple[str, ...]) -> list[tuple[int, int]]:
    """Where the forms of ``secrets`` occur in ``text``, as ``(start, end)`` spans sorted
    by start, overlapping ones merged: each scanner (:func:`_scanners`) searched again one
    character past each match's start, so a match that begins inside another (a secret
    that begins inside another's base64) is found too and no part of either is left
    shown. A match of the same text that overlaps (a secret repeated in a run of its own
    characters, ``aaaa...``) is not sought: the search goes on after it, as
    ``re.sub`` does, and a text of one repeated form costs one search per match."""
    found: list[tuple[int, int]] = []
    for scanner in _scanners(secrets):
        match = scanner.search(text)
        while match is not None:
            found.append(match.span())
            after = scanner.search(text, match.start() + 1)
            if (after is not None and after.start() < match.end()
                    and after.group() == match.group()):
                after = scanner.search(text, match.end())
            match = after
    return _merged(found)


def _merged(spans: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """``spans`` sorted, the overlapping ones made one (touching ones stay apart).

    >>> _merged([(5, 9), (0, 3), (3, 4), (8, 12)])
    [(0, 3), (3, 4), (5, 12)]
    """
    merged: list[tuple[int, int]] = []
    for start, end in sorted(spans):
        if merged and start < merged[-1][1]:
            merged[-1] = (merged[-1][0], max(end, merged[-1][1]))
        else:
            merged.append((start, end))
    return merged


def _masked(text: str, spans: list[tuple[int, int]]) -> str:
    """``text`` with each span replaced by :data:`REDACTED`."""
    if not spans:
        return text
    parts: list[str] = []
    at = 0
    for start, end in spans:
        parts += (text[at:start], REDACTED)
        at = end
    parts.append(text[at:])
    return "".join(parts)


def redact_json(value: Any, secrets: Iterable[str], *, text: str | None = None) -> Any:
    """A JSON value with every secret masked (:func:`redact`) in every string and key; the
    same object when no secret occurs (``text``: its compact JSON text, when known, which
    makes that check cheap). Iterative: answers nest as deep as ``json.loads`` allows.

    Raises:
        RecursionError: ``value`` nests deeper than ``json.dumps`` can write (when
            ``text`` is not given).
    """
    secrets = tuple(secrets)
    if not _scanners(secrets):
        return value
    if text is None:
        text = json.dumps(value, ensure_ascii=False, separators=(",", ":"))
    if not found_in(text, secrets):
        return value

    def masked(node: str) -> str:
        return _masked(node, _spans(node, secrets))

    holder: list[Any] = [None]
    stack: list[tuple[Any, Any, Any]] = [(value, holder, 0)]
    while stack:
        node, parent, key = stack.pop()
        if isinstance(node, dict):
            new: Any = {}
            for k, v in node.items():
                name = masked(k) if isinstance(k, str) else k
                new[name] = None
                stack.append((v, new, name))
        elif isinstance(node, list):
            new = [None] * len(node)
            stack.extend((v, new, i) for i, v in enumerate(node))
        else:
            new = masked(node) if isinstance(node, str) else node
        parent[key] = new
    return holder[0]


_GROUP = 16
"""First characters per scanner (:func:`_scanners`): measured on 10 MiB of JSON text
(``benchmarks/redact_cost.py``), a scanner costs about one pass of a literal search
plus a few nanoseconds per character that begins one of its alternatives."""


@functools.lru_cache(maxsize=256)
def _scanners(secrets: tuple[str, ...]) -> tuple[re.Pattern[str], ...]:
    """The compiled patterns that find every form of every secret (raw and
    :func:`_encoded`, each character in each :func:`_forms` spelling), a few alternations
    rather than one pattern per form, so that the cost stops growing with the number of
    secrets once their forms begin with most characters (a pass per character at most).
    Python's ``re`` skips, at C speed, the characters that begin no alternative of a
    pattern whose alternatives all begin with a literal character, and tries the
    alternatives one by one at the others: forms are keyed by their first spelled
    character (a form beginning with ``/`` gives one alternative per spelling of ``/``:
    ``/``, ``%2F``, ``\\/`` ...); each scanner holds the forms of :data:`_GROUP` keys
    that begin two forms or more, each key's forms longest first (where two begin at one
    place, the longer is masked). A key that begins one form only gives it a pattern of
    its own: ``re`` searches a literal prefix faster than a set of first characters
    (measured: about 5 ms per 10 MiB against 9 ms per key). A secret shorter than
    :data:`ALONE_BELOW` keeps a pattern of its own (its look-around must come first)."""
    ordered = sorted({form for s in secrets if s for form in (s, *_encoded(s))},
                     key=lambda s: (-len(s), s))
    by_first: dict[str, list[str]] = {}
    alone: list[re.Pattern[str]] = []
    for secret in ordered:
        rest = "".join(_forms(ch) for ch in secret[1:])
        if len(secret) < ALONE_BELOW:
            alone.append(re.compile(rf"(?<![0-9A-Za-z_-]){_forms(secret[0])}{rest}"
                                    r"(?![0-9A-Za-z_-])"))
            continue
        for first in _literals(secret[0]):
            source = _hex_either_case(re.escape(first))
            head = re.escape(first[0])
            by_first.setdefault(first[0], []).append(source[len(head):] + rest)
    shared = sorted(key for key, forms in by_first.items() if len(forms) > 1)
    scanners = [
        re.compile("|".join(f"{re.escape(key)}(?:{'|'.join(by_first[key])})"
                            for key in shared[at:at + _GROUP]))
        for at in range(0, len(shared), _GROUP)
    ]
    single = [re.compile(re.escape(key) + forms[0])
              for key, forms in sorted(by_first.items()) if len(forms) == 1]
    return (*scanners, *single, *alone)


@functools.lru_cache(maxsize=256)
def _encoded(secret: str) -> tuple[str, ...]:
    """The base64 and hex spellings of a secret of :data:`ENCODED_FROM` characters or more
    (``()`` for a shorter one), longest first: its hex in either case, its base64 alone
    (without padding), and the part of the base64 its bytes alone decide at each of the
    three offsets it can take inside a longer encoded text (a request echoed encoded
    whole), each in the standard and the URL-safe alphabet (RFC 4648 sections 4, 5, 8).

    >>> _encoded("s3cr3t-token")[2:]
    ('czNjcjN0LXRva2Vu', 'MzY3IzdC10b2tlb', 'zM2NyM3QtdG9rZW')
    """
    if len(secret) < ENCODED_FROM:
        return ()
    data = secret.encode("utf-8", "surrogatepass")
    forms = {data.hex(), data.hex().upper(), base64.b64encode(data).decode().rstrip("=")}
    for offset in range(3):
        text = base64.b64encode(bytes(offset) + data).decode()
        # a base64 digit holds 6 bits: those wholly of the secret's bytes
        forms.add(text[-(-8 * offset // 6): 8 * (offset + len(data)) // 6])
    forms |= {form.replace("+", "-").replace("/", "_") for form in forms}
    forms.discard(secret)
    return tuple(sorted(forms, key=lambda form: (-len(form), form)))


@functools.lru_cache(maxsize=4096)
def _forms(ch: str) -> str:
    """A pattern matching one character of a secret in each form it can take: itself,
    percent-encoded once or twice (its UTF-8 bytes, hex digits in either case; ``+`` for a
    space), JSON-escaped once or twice (``\\"``, ``\\u0022``, ``\\/``), HTML-escaped
    (named, decimal or hex references). ASCII letters and digits stand for themselves: no
    encoder changes them."""
    if ch.isascii() and ch.isalnum():
        return ch
    alternatives = sorted((_hex_either_case(re.escape(f)) for f in _literals(ch)), key=len,
                          reverse=True)
    return "(?:" + "|".join(alternatives) + ")"


@functools.lru_cache(maxsize=4096)
def _literals(ch: str) -> tuple[str, ...]:
    """Each form one character of a secret takes (see :func:`_forms`), hex digits upper
    case in ``%XX`` and lower case in ``\\uXXXX``, as text."""
    if ch.isascii() and ch.isalnum():
        return (ch,)
    percent = "".join(f"%{b:02X}" for b in ch.encode())
    forms = {ch, percent, percent.replace("%", "%25"), html.escape(ch), f"&#{ord(ch)};",
             f"&#{ord(ch):03};", f"&#x{ord(ch):x};", f"&#x{ord(ch):04x};"}
    units = ch.encode("utf-16-be")
    unicode = "".join(f"\\u{units[i]:02x}{units[i + 1]:02x}" for i in range(0, len(units), 2))
    for escaped in (json.dumps(ch)[1:-1], json.dumps(ch, ensure_ascii=False)[1:-1], unicode):
        forms |= {escaped, json.dumps(escaped)[1:-1]}
    if ch == "/":
        forms |= {"\\/", "\\\\\\/"}
    if ch == " ":
        forms.add("+")
    return tuple(sorted(forms))


def _hex_either_case(source: str) -> str:
    """An escaped pattern whose ``%XX`` (``%25XX`` too), ``\\uXXXX`` and ``&#xXX;`` hex
    letters match either case, and whose HTML numeric references may be written ``&#X``
    and with leading zeros (``&#x2F;``, the OWASP form; ``&#039;``, PHP's)."""
    source = re.sub(r"(?<=%)[0-9A-F]{2}|(?<=%25)[0-9A-F]{2}|(?<=\\\\u)[0-9a-f]{4}|"
                    r"(?<=\\&\\#x)[0-9a-f]+(?=;)",
                    lambda m: "".join(f"[{c}{c.swapcase()}]" if c.isalpha() else c
                                      for c in m.group()), source)
    return re.sub(r"^\\&\\#(x?)", lambda m: r"\&\#" + ("[xX]" if m.group(1) else "") + "0*",
                  source)


def _basic(user: str, password: str) -> str:
    return base64.b64encode(f"{user}:{password}".encode()).decode("ascii")
