"""Turn valid arguments into an ``httpx.Request`` through the parameter map.

The URL is built here, not by httpx (whose ``params=`` sends spaces as ``+`` and commas as
``%2C``, and which normalises a raw ``../``): the server URL (``Function.servers[0]`` with
its variables, or the host's ``base_url``; never the model's), then the path template with
every path value percent-encoded so no value can add a segment, leave the path or reach
the query, then the query string in parameter-map order, then credentials.

Rules chosen where OpenAPI leaves room:

- a ``null`` value is undefined (RFC 6570 section 2.3): the parameter is left out, and so
  is a ``null`` body, except a required JSON body whose schema explicitly allows ``null``,
  which is sent as ``null``; a ``null`` for an optional property or argument whose schema
  does not allow ``null`` is left out, as ``validate`` does and notes
  (:func:`httpllm.execute.validate.omit_nulls`);
- an empty query value without ``allowEmptyValue`` (``""``, or a ``""`` member: ``[""]``
  is ``name=`` too) is refused (``validate`` reports it to the model; here it is a
  :class:`RequestBuildError`), and sent as ``name=`` with it; an empty array or object is
  undefined and left out;
- a value that would not arrive as given is refused, as ``validate`` refuses it
  (:mod:`httpllm.execute.wire`): a member holding the delimiter its members are joined
  with as sent (or an exploded object key holding the ``=`` of its pair), an unescaped
  ``style: cookie`` value, a ``null`` item of a parameter array (RFC 6570 would leave it
  out: :func:`~httpllm.execute.wire.null_member`) or of an array property of a form or
  multipart value (a form field has no ``null``: :func:`~httpllm.execute.wire.form_null_items`);
- an OpenAPI 3.2 ``in: querystring`` parameter of a media type other than a form is the
  whole query string (``text/plain`` as written, any other its text percent-encoded:
  :func:`~httpllm.execute.wire.querystring_text`); a query credential cannot join it;
- a path value that expands to nothing, or a path with a ``.`` or ``..`` segment (``%2e``
  spelled too), is refused
  (``validate`` reports both to the model first, as it does every required value that
  would send nothing: :mod:`httpllm.execute.wire`);
- headers that frame or route the request (``Host``, ``Content-Length``,
  ``Transfer-Encoding``, ``Proxy-*`` ...: :func:`~httpllm.compose.parameters.is_host_header`)
  are never arguments: compile drops them (a loss each) and a function that still has one
  is refused here;
- the host wins: a value of the model never shares a name with a credential of the
  function's security schemes in any location or form (an exploded query or cookie object,
  a ``Cookie`` header parameter, whose pairs join the cookies, a body field named like a
  query credential): such a call is refused, so the host's credential is the only copy;
  the host's ``headers=`` replace a header argument of the same name (a host's ``Cookie``
  header's pairs the model's cookies of the same names);
- header parameters named ``Accept``, ``Content-Type`` or ``Authorization`` are ignored
  (OpenAPI 3.1.0 section 4.8.12.1); ``Accept`` comes from the operation's success media
  types (``Function.extra["accept"]``, JSON ones first: a mock server or an API may answer
  with the first, and the model reads JSON best) and ``Content-Type`` from the body's
  media type;
- cookies are ``name=value`` pairs joined by ``"; "`` in one ``Cookie`` header
  (RFC 6265 section 5.4; OpenAPI 3.1.1 Appendix D), values percent-encoded as ``form``
  style does (reserved expansion with ``allowReserved`` in OpenAPI 3.2), ``style: cookie``
  values as given;
- files: ``files={"#/body/avatar": b"..." | (filename, b"...") | (filename, b"...",
  content_type)}`` puts a file at a pointer into the arguments object before encoding
  (a missing container on the way is created: an array before an index token such as ``0``
  or ``-``, else an object); a bare ``bytes`` file part is named after its property.
"""

from __future__ import annotations

import itertools
import re
import secrets
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import unquote, unquote_plus, urlsplit

import httpx

from httpllm import pointer
from httpllm._escape import percent
from httpllm._limits import DEFAULT_LIMITS
from httpllm._media import FORM, essence, is_json
from httpllm.compose.parameters import is_host_header
from httpllm.errors import OptionError, RequestBuildError
from httpllm.execute.body import Body, Upload, encode_body, sends_null
from httpllm.execute.decode import Arguments, decode, depth
from httpllm.execute.security import Credential, credentials
from httpllm.execute.validate import omit_nulls
from httpllm.execute.wire import (
    NULL_MEMBER,
    VARIABLE,
    cookie_pairs_of,
    cookie_unescaped,
    form_null_items,
    form_style,
    header_text_of,
    header_trimmed,
    is_dot_segment,
    null_member,
    path_text,
    query_pairs_of,
    querystring_text,
    sends_empty,
    split_member,
)
from httpllm.records import Argument, Function, Server

__all__ = [
    "FileValue",
    "Origin",
    "assemble",
    "build_request",
    "check_credential_origin",
    "credential_map",
    "declared_origins",
    "origin",
    "server_url",
    "server_value_error",
]

FileValue = bytes | tuple[str, bytes] | tuple[str, bytes, str]
"""A file for a binary argument: its bytes, ``(filename, bytes)`` or
``(filename, bytes, content_type)``."""



@dataclass(slots=True)
class _Parts:
    """The pieces of a request while it is assembled (local to one call)."""

    query: list[tuple[str, str]] = field(default_factory=list)
    headers: list[tuple[str, str]] = field(default_factory=list)
    cookies: list[tuple[str, str]] = field(default_factory=list)
    nested: str = "brackets"
    whole_query: tuple[str, str] | None = None
    """An OpenAPI 3.2 ``in: querystring`` parameter's name and encoded text (no pairs)."""


def build_request(
    function: Function,
    arguments: Arguments,
    *,
    base_url: str | None = None,
    auth: Mapping[str, Credential] | httpx.Auth | None = None,
    server_variables: Mapping[str, str] | None = None,
    host_arguments: Mapping[str, Any] | None = None,
    files: Mapping[str, FileValue] | None = None,
    require_auth: bool = True,
    headers: Mapping[str, str] | None = None,
) -> httpx.Request:
    """Build the HTTP request for a tool call, following OpenAPI serialization.

    The arguments are decoded (:func:`httpllm.execute.decode`) but not validated: call
    :func:`httpllm.execute.validate` first, as :func:`httpllm.execute.execute` does.

    Example:
        C25: ``{"id": "u1", "version": 3, "body": {"id": "u1-b", "version": 7, "name": "A"}}``
        -> ``PUT https://api.example.com/users/u1?version=3`` with body
        ``{"id":"u1-b","version":7,"name":"A"}``.

    Args:
        function: the compiled function.
        arguments: the model's arguments, JSON text or a mapping.
        base_url: replaces the server URL (``"https://staging.example.com/v1"``).
        auth: credentials by security scheme name (see :mod:`httpllm.execute.security`).
            An operation whose security requirements ``auth`` does not meet is refused,
            unless ``require_auth=False``. An ``httpx.Auth`` is not applied here (it may
            need the server's challenge): ``execute`` hands it to ``client.send``; it
            counts as meeting every requirement.
        server_variables: values for the server URL's variables, over their defaults;
            each must be one of its ``enum`` and stay in its part of the URL.
        host_arguments: arguments the host supplies; merged over the model's, host wins.
        files: files by pointer into the arguments object, ``{"#/body/avatar": b"..."}``.
        require_auth: ``False`` when credentials come from elsewhere (the client's own
            auth, a proxy): missing ones are then not an error.
        headers: the host's headers (``--header``, forwarded ones): sent over a header
            argument of the same name, never over a credential, ``Accept`` or
            ``Content-Type``.

    Raises:
        InvalidArguments: the arguments are not a JSON object.
        OptionError: ``auth`` is not a mapping or an ``httpx.Auth``.
        RequestBuildError: no usable server URL, a server variable outside its ``enum`` or
            its part of the URL, a path value that is empty or a dot segment, an empty
            query value without ``allowEmptyValue``, missing credentials (the message names
            the schemes that would do), credentials for an origin that no server declares
            and ``base_url`` does not name, a header argument that frames or routes the
            request (``Host``, ``Transfer-Encoding`` ...), a value named like a credential
            (``?api_key=`` from an exploded object), a body that cannot take its media
            type, a URL or header httpx cannot send, arguments nested deeper than
            ``DEFAULT_LIMITS.value_depth``.

    Source: OpenAPI 3.1.0 sections 4.8.5 (Server Object), 4.8.12 (Parameter Object),
    4.8.13 (Request Body Object); RFC 3986 section 3.
    """
    placed = credential_map(auth)
    args = decode(function, arguments)
    if host_arguments:
        args = {**args, **host_arguments}
    args, _ = omit_nulls(function, args)
    return assemble(
        function,
        args,
        base_url=base_url,
        auth=placed,
        server_variables=server_variables,
        files=files,
        require_auth=require_auth and not isinstance(auth, httpx.Auth),
        headers=headers,
    )


def credential_map(auth: object) -> Mapping[str, Credential] | None:
    """The ``auth=`` mapping to place (``None`` for no ``auth`` or an ``httpx.Auth``).

    Raises:
        OptionError: ``auth`` is neither (``["key"]`` was read as no credentials).
    """
    if auth is None or isinstance(auth, httpx.Auth):
        return None
    if not isinstance(auth, Mapping):
        raise OptionError("auth must be a mapping of security scheme name -> credential "
                          f"(or an httpx.Auth), not {type(auth).__name__}", option="auth")
    return auth


def assemble(
    function: Function,
    args: Mapping[str, Any],
    *,
    base_url: str | None = None,
    auth: Mapping[str, Credential] | None = None,
    server_variables: Mapping[str, str] | None = None,
    files: Mapping[str, FileValue] | None = None,
    require_auth: bool = True,
    headers: Mapping[str, str] | None = None,
) -> httpx.Request:
    """:func:`build_request` for arguments already decoded and merged.

    Raises:
        RequestBuildError: as :func:`build_request`.
    """
    try:
        return _assemble(function, args, base_url=base_url, auth=auth,
                         server_variables=server_variables, files=files,
                         require_auth=require_auth, headers=headers)
    except (httpx.InvalidURL, UnicodeError) as exc:
        # httpx refuses what it cannot put on the wire (a port out of range, a header
        # value outside Latin-1): a call that cannot be built, never a raw exception.
        detail = str(exc).splitlines()[0] if str(exc) else ""
        raise RequestBuildError(f"{function.name}: the request cannot be sent as built "
                                f"({type(exc).__name__}: {_USERINFO.sub('', detail)})") from exc


def _assemble(
    function: Function,
    args: Mapping[str, Any],
    *,
    base_url: str | None,
    auth: Mapping[str, Credential] | None,
    server_variables: Mapping[str, str] | None,
    files: Mapping[str, FileValue] | None,
    require_auth: bool,
    headers: Mapping[str, str] | None,
) -> httpx.Request:
    if depth(args) > DEFAULT_LIMITS.value_depth:
        raise RequestBuildError(f"{function.name}: arguments nested deeper than "
                                f"{DEFAULT_LIMITS.value_depth} levels")
    values = _with_files(args, files) if files else dict(args)
    base = server_url(function, base_url, server_variables)
    parts = _Parts(nested=form_style(function))
    body: Body | None = None
    named: list[str] = []
    for argument in function.arguments:
        value = values.get(argument.name)
        _refuse_unsent(argument, value)
        if value is None and argument.name in values and sends_null(function, argument):
            body = encode_body(argument, None, parts.nested)
            continue
        if value is None or argument.location == "path":
            continue
        if argument.location == "body":
            body = encode_body(argument, value, parts.nested)
            named = _body_names(argument, value, body)
        else:
            _PLACE[argument.location](argument, value, parts)
    _refuse_credential_names(function, parts, named)
    placements = credentials(function, auth or {}, required=require_auth)
    if placements:
        check_credential_origin(function, base, base_url)
    for where, name, secret in placements:
        if where == "header":
            parts.headers.append((name, secret))
        elif where == "query":
            parts.query.append((percent(name), percent(secret)))
        else:
            parts.cookies.append((name, secret))
    _host_headers(parts, headers, placements)
    path = _path(function, values)
    _same_origin(base + path, base)
    return _request(function, base + path + _query_string(parts), parts, body)


def _refuse_unsent(argument: Argument, value: Any) -> None:
    """Refuse a value that would not arrive as given, as ``validate`` does (the module
    docstring lists them; :mod:`httpllm.execute.wire` says why each is refused).

    Raises:
        RequestBuildError: naming the argument's pointer (or its item's).
    """
    split = split_member(argument, value) or header_trimmed(argument, value)
    if split is not None:
        raise RequestBuildError(f"{argument.location} parameter {argument.wire_name!r} "
                                f"(argument {argument.name!r}): expected {split}",
                                pointer=pointer.join("#", argument.name))
    if (index := null_member(argument, value)) is not None:
        where = "path parameter" if argument.location == "path" else argument.location
        raise RequestBuildError(
            f"{argument.location} parameter {argument.wire_name!r} (argument "
            f"{argument.name!r}): item {index} is null ("
            f"{NULL_MEMBER.format(where=where)})",
            pointer=pointer.join("#", argument.name, str(index)))
    nulls = form_null_items(argument, value)
    if nulls:
        at, why = nulls[0]
        raise RequestBuildError(f"argument {argument.name!r}: the item at {at} is null ({why})",
                                pointer=at)


def _request(function: Function, url: str, parts: _Parts, body: Body | None) -> httpx.Request:
    headers = list(parts.headers)
    accept = function.extra.get("accept")
    if isinstance(accept, (list, tuple)):  # JSON first: a mock or API may pick the first
        accept = ", ".join(sorted((str(a) for a in accept), key=lambda a: not is_json(a)))
    if isinstance(accept, str) and accept:
        headers.append(("Accept", accept))
    if parts.cookies:
        headers.append(("Cookie", "; ".join(f"{k}={v}" for k, v in parts.cookies)))
    method = function.method.upper()
    if body is None:
        return httpx.Request(method, url, headers=headers)
    if body.parts is None:
        if body.content_type:
            headers.append(("Content-Type", body.content_type))
        return httpx.Request(method, url, headers=headers, content=body.content)
    subtype = body.content_type or "multipart/form-data"
    if not body.parts:
        # No parts: only the close delimiter, as browsers send an empty form (RFC 2046 5.1.1).
        boundary = secrets.token_hex(16)
        headers.append(("Content-Type", f"{subtype}; boundary={boundary}"))
        return httpx.Request(method, url, headers=headers, content=f"--{boundary}--\r\n".encode())
    request = httpx.Request(method, url, headers=headers, files=body.parts)
    request.read()
    if body.content_type:  # multipart/mixed ...: httpx writes the same parts as form-data
        made = request.headers["Content-Type"]
        request.headers["Content-Type"] = subtype + made[len("multipart/form-data"):]
    return request


def server_url(
    function: Function, base_url: str | None, variables: Mapping[str, str] | None
) -> str:
    """The absolute server URL without a trailing ``/``: ``base_url``, else the first server.

    A variable's value (the host's ``server_variables``, else its ``default``) must be one
    of its ``enum`` when it has one, and must stay in the part of the URL its
    ``{name}`` sits in: a host label in the host (``[A-Za-z0-9.-]``), digits in the port,
    a scheme name in the scheme, no ``?``, ``#`` or ``\\`` in the path. So no value can
    move the request to another host (``evil.example/``, ``x@evil.example``).

    Raises:
        RequestBuildError: no server and no ``base_url``, a ``base_url`` that is not an
            absolute http(s) URL, a variable without a value, a
            value outside its ``enum`` or its part of the URL, a variable named as the
            URL's ``{name}`` but spelled otherwise (``region`` for ``{Region}``: it was
            ignored for the default), a relative URL, a URL
            with a query or fragment, or one with a user name or password (httpx would
            send them as HTTP Basic in place of the configured credential; the message
            leaves them out).

    Source: OpenAPI 3.1.0 section 4.8.5 (Server Object), 4.8.6 (Server Variable Object);
    RFC 3986 section 3.
    """
    if base_url is not None:
        url = base_url
    elif function.servers:
        url = _fill_server(function.servers[0], variables or {})
    else:
        raise RequestBuildError(f"{function.name}: the document names no server; pass base_url=...")
    shown = _USERINFO.sub("", url)  # never echo a password
    what = "server URL" if base_url is None else "base_url"
    try:
        parsed = httpx.URL(url)
    except httpx.InvalidURL as exc:
        raise RequestBuildError(
            f"{what} {shown!r} is not a URL ({_USERINFO.sub('', str(exc))})") from exc
    if base_url is not None and (parsed.scheme not in ("http", "https") or not parsed.host):
        raise RequestBuildError(f"base_url {shown!r} is not an absolute http(s) URL "
                                "(such as 'https://api.example.com/v1')")
    if not parsed.scheme or not parsed.host:
        raise RequestBuildError(
            f"server URL {shown!r} is relative; pass base_url=..., or document_url=... to "
            "compile (the URL the document came from)"
        )
    if parsed.username or parsed.password:
        raise RequestBuildError(
            f"{what} {shown!r} has a user name or password (user:pass@); refused: "
            "credentials go through auth=, never in the URL")
    if parsed.query or parsed.fragment or "?" in url or "#" in url:
        raise RequestBuildError(f"{what} {shown!r} must not have a query or fragment")
    return url.rstrip("/")


_USERINFO = re.compile(r"(?<=//)[^/?#]*@")
"""The ``user:pass@`` of a URL, left out of every message."""

_PART_OF_URL = {
    "scheme": (re.compile(r"[A-Za-z][A-Za-z0-9+.-]*"), "a scheme name"),
    "host": (re.compile(r"[A-Za-z0-9.-]*"), "letters, digits, '.' and '-' (a host name)"),
    "port": (re.compile(r"[0-9]*"), "digits (a port)"),
    "path": (re.compile(r"[^?#\\\x00-\x20]*"), "a path without '?', '#', '\\' or spaces"),
    "origin": (re.compile(r"[^?#\\\x00-\x20]*"), "a URL without '?', '#', '\\' or spaces"),
}
"""What a server variable's value may hold, by the part of the URL it fills."""


def _fill_server(server: Server, variables: Mapping[str, str]) -> str:
    """The server URL with its variables filled, each value checked (see :func:`server_url`);
    a URL ``urlsplit`` cannot read (an unclosed ``[`` host) is a :class:`RequestBuildError`,
    as :func:`server_url` says of one httpx cannot."""
    known = {**server.variables, **variables}
    try:
        parts = _variable_parts(server.url)
    except ValueError as exc:  # urlsplit: "https://[::1/x", an unclosed IPv6 host
        raise RequestBuildError(f"server URL {_USERINFO.sub('', server.url)!r} is not a URL "
                                f"({exc})") from exc
    by_fold = {name.casefold(): name for name in parts}
    for given in variables:  # a name no template has may be another server's: not refused
        meant = by_fold.get(given.casefold()) if isinstance(given, str) else None
        if meant is not None and meant != given:
            raise RequestBuildError(
                f"server variable {given!r} is not in {server.url!r}, whose {{{meant}}} is "
                "spelled otherwise; names are case-sensitive")

    def fill(match: re.Match[str]) -> str:
        name = match.group(1)
        if name not in known:
            raise RequestBuildError(f"server variable {{{name}}} has no value")
        value = str(known[name])
        problem = _value_problem(server, parts, name, value)
        if problem is not None:
            raise RequestBuildError(problem)
        return value

    return VARIABLE.sub(fill, server.url)


def server_value_error(server: Server, name: str, value: str) -> str | None:
    """Why ``{name}`` of ``server``'s URL cannot take ``value``, or ``None`` when it can: the
    check :func:`server_url` makes of every value (its ``enum``; the document's default alone
    for a variable that is the scheme and host; a value that stays in its part of the URL).

    A caller tells a value it was given from the document's own faults with it (the command
    line's ``--server-var``); a URL template that is no URL is the document's, ``None`` here.

    >>> from httpllm.records import Server
    >>> server = Server(url="https://{region}.example.com", variables={"region": "eu"})
    >>> server_value_error(server, "region", "us"), server_value_error(server, "region", "a/b")
    (None, "server variable {region} is 'a/b'; in the host of ... (a host name)")

    Source: OpenAPI 3.1.0 section 4.8.6 (Server Variable Object); RFC 3986 section 3.
    """
    try:
        parts = _variable_parts(server.url)
    except ValueError:
        return None
    return _value_problem(server, parts, name, value)


def _value_problem(server: Server, parts: Mapping[str, str], name: str,
                   value: str) -> str | None:
    """:func:`server_value_error` with the URL's parts already found."""
    allowed = server.enums.get(name)
    if allowed and value not in allowed:
        return (f"server variable {{{name}}} is {value!r}; expected one of "
                f"{', '.join(repr(a) for a in allowed)} (its enum)")
    if parts.get(name) == "origin" and value != server.variables.get(name) and not allowed:
        return (f"server variable {{{name}}} is {value!r}; it names the scheme and host of "
                f"{server.url!r}, so only its default is taken: pass base_url=... for another "
                "host")
    pattern, says = _PART_OF_URL[parts.get(name, "path")]
    if not pattern.fullmatch(value):
        return (f"server variable {{{name}}} is {value!r}; in the {parts.get(name, 'path')} "
                f"of {server.url!r} it may hold only {says}")
    return None


def _variable_parts(template: str) -> dict[str, str]:
    """Which part of the URL (``scheme``, ``host``, ``port``, ``path``) each ``{name}`` of a
    server URL template is in, found by parsing the template with a plain token in its place.
    A variable in a user-info part counts as ``host`` (it may hold no ``@``)."""
    names = VARIABLE.findall(template)
    tokens = {name: f"v{i}x9q" for i, name in enumerate(names)}
    split = urlsplit(VARIABLE.sub(lambda m: tokens[m.group(1)], template))
    host, _, port = split.netloc.rpartition("@")[2].rpartition(":")
    if not host:
        host, port = port, ""
    parts: dict[str, str] = {}
    for name, token in tokens.items():
        if not split.scheme and not split.netloc and split.path.startswith(token):
            parts[name] = "origin"  # "{server}/v1": the value is the scheme and host
        elif token in split.scheme:
            parts[name] = "scheme"
        elif token in port:
            parts[name] = "port"
        elif token in split.netloc:
            parts[name] = "host"
        else:
            parts[name] = "path"
    return parts


Origin = tuple[str, str, int | None]
"""A URL's scheme, host and port (``("https", "api.example.com", None)``)."""

_MAX_EXPANSIONS = 256
"""Server URLs expanded per server at most when listing the declared origins."""


def origin(url: str) -> Origin | None:
    """The origin of an absolute URL, or ``None`` when it has none (relative, invalid)."""
    try:
        parsed = httpx.URL(url)
    except httpx.InvalidURL:
        return None
    if not parsed.scheme or not parsed.host:
        return None
    return (parsed.scheme, parsed.host, parsed.port)


def declared_origins(function: Function, base_url: str | None = None) -> set[Origin]:
    """The origins credentials may go to: every server of the function with each variable
    taking its ``default`` or one of its ``enum`` values, and the host's ``base_url``.

    Source: issue 18 kind 5 (no credential to a host that neither the document nor the
    host application named); OpenAPI 3.1.0 section 4.8.6.
    """
    found: set[Origin] = set()
    if base_url is not None and (mine := origin(base_url)) is not None:
        found.add(mine)
    for server in function.servers:
        names = list(dict.fromkeys(VARIABLE.findall(server.url)))
        choices = [
            list(dict.fromkeys([*([server.variables[n]] if n in server.variables else []),
                                *server.enums.get(n, ())]))
            for n in names
        ]
        for combination in itertools.islice(itertools.product(*choices), _MAX_EXPANSIONS):
            values = dict(zip(names, combination, strict=True))
            url = VARIABLE.sub(lambda m, v=values: v[m.group(1)], server.url)  # type: ignore[misc]
            if (declared := origin(url)) is not None:
                found.add(declared)
    return found


def check_credential_origin(function: Function, url: str, base_url: str | None) -> None:
    """Refuse to send credentials to ``url`` unless its origin is declared.

    Raises:
        RequestBuildError: the origin is neither a server of the document (variables from
            their defaults and enums) nor the host's ``base_url``.
    """
    if origin(url) in declared_origins(function, base_url):
        return
    raise RequestBuildError(
        f"{function.name}: refusing to send credentials to {url!r}: no server of the document "
        "names that origin (variables from their defaults and enums); pass it as base_url=... "
        "to name it yourself"
    )


def _path(function: Function, values: Mapping[str, Any]) -> str:
    """Fill the path template; every value percent-encoded, dot segments refused.

    Source: OpenAPI 3.1.0 section 4.3 (Path Templating); RFC 3986 sections 3.3, 5.2.4.
    """
    by_name = {a.original: a for a in function.arguments if a.location == "path"}

    def fill(match: re.Match[str]) -> str:
        name = match.group(1)
        argument = by_name.get(name)
        if argument is None:
            raise RequestBuildError(f"path variable {{{name}}} has no path parameter")
        text = path_text(argument, values.get(argument.name))
        if not text:
            raise RequestBuildError(
                f"path parameter {name!r} (argument {argument.name!r}) has no value; "
                "a path parameter needs a non-empty value"
            )
        return text

    path = VARIABLE.sub(fill, function.path)
    if any(is_dot_segment(segment) for segment in path.split("/")):
        raise RequestBuildError(f"path {path!r} has a '.' or '..' segment; refused")
    return path


def _same_origin(url: str, base: str) -> None:
    """The built URL keeps the server's scheme, host and port (defence in depth): a path
    the document writes without its leading ``/`` (``{p}/x``, ``@evil.example/x``) filled
    with a value ``allowReserved`` leaves as it is (``@evil.example``, ``:8443``) moves it.

    ``url`` is the server URL and the path alone, never the query, which holds a query
    credential (the message is raised to the host, which may log it, and shown to the
    model); a ``user:pass@`` the path makes is left out of it too.

    Raises:
        RequestBuildError: the origin moved.
        httpx.InvalidURL: the URL is none httpx reads (:func:`assemble` says so).
    """
    built, server = httpx.URL(url), httpx.URL(base)
    if (built.scheme, built.host, built.port) != (server.scheme, server.host, server.port):
        raise RequestBuildError(
            f"built URL {_USERINFO.sub('', url)!r} left the server {base!r}; refused")


def _query_string(parts: _Parts) -> str:
    """``?`` and the query: the pairs joined by ``&``, or a querystring parameter's text,
    which no pair (a query credential) may join: the whole query string is its value
    (OpenAPI 3.2.0 section 4.12.1)."""
    if parts.whole_query is not None:
        name, text = parts.whole_query
        if parts.query:
            raise RequestBuildError(
                f"querystring parameter {name!r} is the whole query string: the query "
                f"credential or parameter {unquote(parts.query[0][0])!r} cannot join it")
        return "?" + text
    if parts.query:
        return "?" + "&".join(f"{k}={v}" for k, v in parts.query)
    return ""


def _query(argument: Argument, value: Any, parts: _Parts) -> None:
    name = argument.wire_name
    if argument.querystring and argument.style is None:
        text = querystring_text(argument, value)
        if text is not None:
            parts.whole_query = (name, text)
        return
    if sends_empty(argument, value, parts.nested):
        raise RequestBuildError(
            f"query parameter {name!r} (argument {argument.name!r}) would be sent empty "
            f"({percent(name)}=) and does not allow empty values; leave it out or give a "
            "value")
    parts.query.extend(query_pairs_of(argument, value, parts.nested))


def _header(argument: Argument, value: Any, parts: _Parts) -> None:
    name = argument.wire_name
    if is_host_header(name):
        raise RequestBuildError(
            f"header {name!r} (argument {argument.name!r}) frames or routes the request: the "
            "HTTP client sets it, never an argument; refused")
    text = header_text_of(argument, value)
    if text is None:
        return
    if name.lower() == "cookie":  # its pairs join the cookies (one Cookie header)
        for pair in text.split(";"):
            key, _, rest = pair.strip().partition("=")
            if key:
                parts.cookies.append((key, rest))
        return
    parts.headers.append((name, text))


def _credential_names(function: Function) -> dict[str, set[str]]:
    """The names the function's credentials use, by location, in lower case: every
    ``apiKey`` scheme's name where it goes, and ``authorization`` for the others."""
    names: dict[str, set[str]] = {"header": {"authorization"}, "query": set(), "cookie": set()}
    for scheme in function.security_schemes.values():
        if isinstance(scheme, Mapping) and scheme.get("type") == "apiKey":
            where, name = scheme.get("in"), scheme.get("name")
            if where in names and isinstance(name, str):
                names[str(where)].add(_header_key(name) if where == "header" else name.lower())
    return names


def _header_key(name: str) -> str:
    """A header name as a server reading it through CGI variables sees it: lower case, ``_``
    as ``-`` (WSGI, Rack and PHP name both ``X-Api-Key`` and ``X_Api_Key``
    ``HTTP_X_API_KEY``, joining or overwriting one with the other).

    Source: RFC 3875 section 4.1.18 (protocol-specific meta-variables).
    """
    return name.strip().lower().replace("_", "-")


def _refuse_credential_names(function: Function, parts: _Parts,
                             body: Sequence[str] = ()) -> None:
    """Refuse a call whose values, as sent, carry a name a credential of the function
    uses: a second ``api_key`` before the host's would be read first by many frameworks
    (an exploded ``{"api_key": ...}`` query object, a cookie object, a ``Cookie`` header),
    and a bracketed ``api_key[a]`` (``deepObject``) is read into the same name. ``body``:
    the names a form or multipart body sends, or a JSON object body's keys
    (:func:`_body_names`), which Rails' ``params``, Laravel's ``input()``, PHP's
    ``$_REQUEST`` and ASP.NET's model binding read over the query's: a body field named
    like a query credential would replace the host's key with the model's.

    Raises:
        RequestBuildError: naming the location and the name.
    """
    names = _credential_names(function)
    names["body"] = names["query"]
    sent = {"query": [unquote(k) for k, _ in parts.query],
            "cookie": [unquote(k) for k, _ in parts.cookies],
            "header": [k for k, _ in parts.headers],
            "body": list(body)}
    for where, keys in sent.items():
        for key in keys:
            # ``api_key[a]`` too: qs, Rack and PHP read it into ``api_key`` itself.
            seen = _header_key(key) if where == "header" else key.strip().lower()
            if {seen.split("[", 1)[0], _php_name(seen)} & names[where]:
                raise RequestBuildError(
                    f"{function.name}: the {where} name {key!r} is the host's credential; "
                    "no argument may send it (refused)")


def _php_name(name: str) -> str:
    """The variable PHP reads a query or form name into: a space or ``.`` before the first
    ``[`` as ``_``, and that ``[`` too when no ``]`` closes it (``api.key``, ``api key``,
    ``api[key`` are all ``api_key``), the part before the ``[`` otherwise.

    Source: PHP manual, "Variables From External Sources" (dots and spaces in variable
    names are converted to underscores); ``main/php_variables.c``.
    """
    head, bracket, rest = name.partition("[")
    head = re.sub(r"[ .]", "_", head)
    return head + "_" + re.sub(r"[ .]", "_", rest) if bracket and "]" not in rest else head


def _body_names(argument: Argument, value: Any, body: Body) -> list[str]:
    """The field names a body sends that a server may read as parameters: a form's pair
    names (decoded, ``+`` a space: a string form body too), a multipart body's part
    names, a JSON object body's keys; none for any other body."""
    if body.parts is not None:
        return [name for name, _ in body.parts]
    media = essence(argument.media_type or "application/json")
    if media == FORM and body.content is not None:
        text = body.content.decode("latin-1")
        return [unquote_plus(pair.partition("=")[0]) for pair in text.split("&")]
    if is_json(media) and isinstance(value, Mapping):
        return [str(key) for key in value]
    return []


def _host_headers(parts: _Parts, headers: Mapping[str, str] | None,
                  placements: Sequence[tuple[str, str, str]]) -> None:
    """The host's headers over the model's of the same name; never over a credential,
    ``Accept`` or ``Content-Type`` (which the request gets from the operation). A host's
    ``Cookie`` header is cookies: :func:`_host_cookies`."""
    if not headers:
        return
    kept = {_header_key(name) for where, name, _ in placements if where == "header"}
    kept |= {"accept", "content-type"}
    for name, value in headers.items():
        lower = _header_key(name)
        if lower in kept:
            continue
        if lower == "cookie":
            _host_cookies(parts, value, placements)
            continue
        parts.headers = [(k, v) for k, v in parts.headers if _header_key(k) != lower]
        parts.headers.append((name, value))


def _host_cookies(parts: _Parts, value: str,
                  placements: Sequence[tuple[str, str, str]]) -> None:
    """The pairs of a host's ``Cookie`` header (``--header``, a forwarded one) join the
    request's one ``Cookie`` header over the model's cookies of the same names (cookie
    parameters, a ``Cookie`` header parameter), in any case, as a credential's name is
    kept from them; a pair named like a cookie credential is left out (the credential
    wins). Sent as a second ``Cookie`` line, the host's pairs were followed by the model's
    ``session=<attacker's>``, which a server that joins the lines and reads the last
    takes.

    Source: RFC 6265 section 5.4 (one ``Cookie`` header); OpenAPI 3.1.1 Appendix D.
    """
    credential = {name.lower() for where, name, _ in placements if where == "cookie"}
    pairs = [(key.strip(), rest.strip()) for piece in value.split(";")
             for key, _, rest in [piece.partition("=")] if key.strip()]
    host = [(k, v) for k, v in pairs if k.lower() not in credential]
    names = {k.lower() for k, _ in host}
    parts.cookies = [(k, v) for k, v in parts.cookies
                     if unquote(k).strip().lower() not in names] + host


def _cookie(argument: Argument, value: Any, parts: _Parts) -> None:
    expected = cookie_unescaped(argument, value)
    if expected is not None:
        raise RequestBuildError(f"cookie parameter {argument.wire_name!r} (argument "
                                f"{argument.name!r}): expected {expected}",
                                pointer=pointer.join("#", argument.name))
    parts.cookies.extend(cookie_pairs_of(argument, value))


_PLACE = {"query": _query, "header": _header, "cookie": _cookie}


def _upload(key: str, value: Any) -> Upload:
    if isinstance(value, (bytes, bytearray, memoryview)):
        return Upload(content=bytes(value))
    if isinstance(value, tuple) and len(value) in (2, 3):
        filename, content, *rest = value
        if isinstance(filename, str) and isinstance(content, (bytes, bytearray)):
            content_type = rest[0] if rest else None
            return Upload(content=bytes(content), filename=filename, content_type=content_type)
    raise RequestBuildError(
        f"file {key!r} must be bytes, (filename, bytes) or (filename, bytes, content_type)"
    )


def _with_files(args: Mapping[str, Any], files: Mapping[str, FileValue]) -> dict[str, Any]:
    """Put each file at its pointer, copying the containers on the way (input untouched)."""
    root: dict[str, Any] = dict(args)
    for key, value in files.items():
        tokens = pointer.parts(key)
        if not tokens:
            raise RequestBuildError(f"file pointer {key!r} must name an argument")
        node: Any = root
        for token, after in itertools.pairwise(tokens):
            node = _child_copy(node, token, after, key)
        _put(node, tokens[-1], _upload(key, value), key)
    return root


def _child_copy(node: Any, token: str, after: str, key: str) -> Any:
    """A copy of ``node[token]``, put back in place.

    A missing container is created: an array when the next token is an index (``0``,
    ``-``), else an object.
    """
    current = _get(node, token)
    child: Any
    if isinstance(current, Mapping):
        child = dict(current)
    elif isinstance(current, (list, tuple)):
        child = list(current)
    else:
        child = [] if after == "-" or pointer.index(after) is not None else {}
    _put(node, token, child, key)
    return child


def _get(node: Any, token: str) -> Any:
    if isinstance(node, dict):
        return node.get(token)
    at = pointer.index(token)
    if isinstance(node, list) and at is not None and at < len(node):
        return node[at]
    return None


def _put(node: Any, token: str, value: Any, key: str) -> None:
    if isinstance(node, dict):
        node[token] = value
    elif isinstance(node, list) and (token == "-" or pointer.index(token) == len(node)):
        node.append(value)
    elif isinstance(node, list) and (at := pointer.index(token)) is not None and at < len(node):
        node[at] = value
    else:
        raise RequestBuildError(f"file pointer {key!r} does not fit the arguments")
