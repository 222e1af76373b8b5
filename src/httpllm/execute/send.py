"""Validate, build and send a tool call; answer with the HTTP result.

Invalid arguments raise :class:`~httpllm.errors.InvalidArguments` before anything is sent;
a non-2xx answer is a :class:`Result` like any other; a failure to send maps to
:class:`~httpllm.errors.TransportError`, whose message says whether the request went out
(a read timeout: "sent, no answer within 30 s — it may have taken effect").

Redirects are followed by httpllm's rule, whatever client is given (the client's
``follow_redirects`` and ``max_redirects`` say whether and how often): only to an origin
credentials may go to (:func:`~httpllm.execute.request.declared_origins`: the document's
servers and ``base_url``), so a credential or a host header never reaches another origin;
a redirect elsewhere is not followed and its 3xx answer is the result.

The answer is read as a stream and stops at ``max_bytes`` (:data:`MAX_ANSWER_BYTES` by
default, counted after content decoding, so a compressed bomb stops too): a 400 MB answer
costs 10 MiB, and the :class:`Result` says it was cut (``truncated``, ``size``).
"""

from __future__ import annotations

import codecs
import contextvars
import logging
from collections.abc import AsyncIterator, Iterable, Iterator, Mapping
from contextlib import contextmanager, suppress
from dataclasses import dataclass
from typing import Any, TypedDict

import httpx

try:  # httpx's default transport speaks HTTP/1.1 through h11, which raises its own errors
    from h11 import ProtocolError as _H11Error
except ImportError:  # pragma: no cover - h11 comes with httpcore
    class _H11Error(Exception):  # type: ignore[no-redef]
        """Stands for h11's error when h11 is absent."""

from httpllm._media import is_json
from httpllm.errors import InvalidArguments, TransportError
from httpllm.execute.decode import Arguments, loads
from httpllm.execute.request import (
    FileValue,
    assemble,
    check_credential_origin,
    credential_map,
    declared_origins,
    origin,
)
from httpllm.execute.security import Credential, redact, secrets_of
from httpllm.execute.validate import validate
from httpllm.records import Function

__all__ = ["AFTER_SENDING", "MAX_ANSWER_BYTES", "AsyncExecuteOptions", "ExecuteOptions", "Result",
           "aexecute", "execute"]

MAX_ANSWER_BYTES = 10 * 2**20
"""Most bytes of one answer read by default (10 MiB, after content decoding); the rest is
never read. ``max_bytes=None`` reads everything."""

Auth = Mapping[str, Credential] | httpx.Auth
"""Credentials by security scheme name, or an ``httpx.Auth`` for the schemes that need one."""


@dataclass(frozen=True, slots=True, kw_only=True)
class Result:
    """The answer to one tool call.

    Attributes:
        status: the HTTP status code (``200``, ``404`` ...).
        headers: the response headers.
        body: the body parsed as JSON when the response says it is JSON (``application/json``
            or ``+json``), parses and was read whole; else the body as text (``""`` when
            empty). A cut body (``truncated``) is always text: a JSON prefix does not parse.
        content: the raw body bytes read (for binary responses); at most ``max_bytes``.
        truncated: the body was longer than ``max_bytes`` and only its first ``max_bytes``
            were read (:func:`execute`); ``content`` and ``body`` hold that part.
        size: the whole body's size in bytes: ``len(content)`` when read whole, the
            ``Content-Length`` the server declared when cut (after content decoding it is
            unknown: ``None``).
        secrets: what the client put on the request as it sent it, as
            :func:`~httpllm.execute.security.secrets_of` reads headers: the header an
            ``httpx.Auth`` adds (``auth=``, or the client's own) and those its request
            hooks add; :func:`httpllm.execute.answer.fit` masks them with the host's.
    """

    status: int
    headers: httpx.Headers
    body: Any
    content: bytes = b""
    truncated: bool = False
    size: int | None = None
    secrets: tuple[str, ...] = ()

    @property
    def ok(self) -> bool:
        """Whether the status is 2xx."""
        return 200 <= self.status < 300


def _prepare(
    function: Function,
    arguments: Arguments,
    *,
    base_url: str | None,
    auth: Auth | None,
    server_variables: Mapping[str, str] | None,
    host_arguments: Mapping[str, Any] | None,
    files: Mapping[str, FileValue] | None,
    require_auth: bool,
    client: httpx.Client | httpx.AsyncClient | None,
    headers: Mapping[str, str] | None = None,
) -> tuple[httpx.Request, Any]:
    """The request to send and the ``auth=`` for ``client.send``.

    Credentials count as coming from elsewhere when ``auth`` is an ``httpx.Auth`` or the
    client has its own ``auth``; otherwise a requirement ``auth`` does not meet is an error.

    Raises:
        OptionError: ``auth`` is not a mapping or an ``httpx.Auth``.
        InvalidArguments: the call is invalid; the message is the feedback text.
        RequestBuildError: valid arguments that cannot become a request.
    """
    placed = credential_map(auth)  # the host's mistake first, before the model's
    checked = validate(function, arguments, host_arguments=host_arguments, files=files)
    if not checked.ok or checked.arguments is None:
        raise InvalidArguments(
            checked.feedback(), errors=checked.errors, pointer=function.pointer or None
        )
    elsewhere = isinstance(auth, httpx.Auth) or (client is not None and client.auth is not None)
    request = assemble(
        function,
        checked.arguments,
        base_url=base_url,
        auth=placed,
        server_variables=server_variables,
        files=files,
        require_auth=require_auth and not elsewhere,
        headers=headers,
    )
    # An httpx.Auth only for operations that declare a non-empty security requirement,
    # and only to an origin the document or the host named.
    send_auth: Any = httpx.USE_CLIENT_DEFAULT
    if isinstance(auth, httpx.Auth) and any(function.security):
        check_credential_origin(function, str(request.url), base_url)
        send_auth = auth
    return request, send_auth


_SHOWN: contextvars.ContextVar[tuple[str, ...]] = contextvars.ContextVar(
    "httpllm_send_secrets", default=())


class _RedactHttpxLog(logging.Filter):
    """Masks the credentials of the call being sent in httpx's own log lines: httpx logs
    every request's URL at INFO (``HTTP Request: GET https://...?api_key=...``), so an API
    key in the query would reach the host's logs. Acts only inside :func:`_sending`."""

    def filter(self, record: logging.LogRecord) -> bool:
        secrets = _SHOWN.get()
        if secrets:
            text = record.getMessage()
            masked = redact(text, secrets)
            if masked != text:
                record.msg, record.args = masked, ()
        return True


logging.getLogger("httpx").addFilter(_RedactHttpxLog())


@contextmanager
def _sending(auth: Any) -> Iterator[None]:
    token = _SHOWN.set(secrets_of(auth))
    try:
        yield
    finally:
        _SHOWN.reset(token)


def _text(content: bytes, encoding: str, final: bool) -> str:
    """``content`` read in the answer's ``charset``, else as UTF-8: a name that is no text
    encoding to Python (``base64``, ``zlib``, ``rot13``: its bytes and text transforms,
    whose decoders raised ``AssertionError`` or ``TypeError``) or a body its decoder refuses
    whatever the error handler (UTF-16 without a byte order mark) is never an error. Not
    ``final``: a cut body may end inside a character, which is left out."""
    try:
        "\n".encode(encoding)  # LookupError: not a text encoding (empty text is not asked)
        return codecs.getincrementaldecoder(encoding)("replace").decode(content, final=final)
    except (LookupError, UnicodeError):
        return codecs.getincrementaldecoder("utf-8")("replace").decode(content, final=final)


def _added(before: list[tuple[str, str]], response: httpx.Response) -> tuple[str, ...]:
    """The secrets of the headers the client added to the request as it sent it (its auth
    flow, its hooks: they change the request in place), ``before`` its own headers."""
    built = httpx.Headers(before)
    sent = response.request.headers
    return secrets_of(None, {k: v for k, v in sent.items() if built.get(k) != v})


def _result(response: httpx.Response, content: bytes, truncated: bool,
            secrets: tuple[str, ...] = ()) -> Result:
    body: Any = _text(content, response.encoding or "utf-8", final=not truncated)
    if content and not truncated and is_json(response.headers.get("content-type", "")):
        # strict: an answer holding NaN or a number no double holds (1e400) stays text as
        # it came; read as nan or inf it was written back as NaN or Infinity, no JSON: not
        # what came, refused by every client's output check, a code-mode program's crash
        with suppress(ValueError):
            body = loads(content, whole=False)
    size: int | None = len(content)
    if truncated:
        declared = response.headers.get("content-length", "")
        size = int(declared) if declared.isdigit() and not response.headers.get(
            "content-encoding") else None
    return Result(status=response.status_code, headers=response.headers, body=body,
                  content=content, truncated=truncated, size=size, secrets=secrets)


def _take(buffer: bytearray, chunk: bytes, max_bytes: int | None) -> bool:
    """Append ``chunk`` to ``buffer`` up to ``max_bytes``; whether the limit was passed."""
    if max_bytes is not None and len(buffer) + len(chunk) > max_bytes:
        buffer += chunk[: max_bytes - len(buffer)]
        return True
    buffer += chunk
    return False


def _read(response: httpx.Response, chunks: Iterable[bytes], max_bytes: int | None,
          secrets: tuple[str, ...]) -> Result:
    buffer = bytearray()
    truncated = any(_take(buffer, chunk, max_bytes) for chunk in chunks)
    return _result(response, bytes(buffer), truncated, secrets)


async def _aread(response: httpx.Response, chunks: AsyncIterator[bytes],
                 max_bytes: int | None, secrets: tuple[str, ...]) -> Result:
    buffer = bytearray()
    async for chunk in chunks:
        if _take(buffer, chunk, max_bytes):
            return _result(response, bytes(buffer), True, secrets)
    return _result(response, bytes(buffer), False, secrets)


AFTER_SENDING = (httpx.ReadTimeout, httpx.ReadError, httpx.RemoteProtocolError)
"""Failures after the request went out: the API may have acted on it."""


_UNSENDABLE = (httpx.InvalidURL, UnicodeError, _H11Error)
"""What the transport may raise for a request it cannot put on the wire (not an
``httpx.RequestError``): a header httpx cannot encode, a URL it refuses, a framing h11
refuses. Each becomes a :class:`~httpllm.errors.TransportError` like the others."""


def _transport_error(request: httpx.Request, exc: Exception, auth: Any = None,
                     response: httpx.Response | None = None) -> TransportError:
    """The error naming the request and saying whether it was sent, with any credential
    of ``auth`` that travels in the URL (an API key in the query) shown as ``[redacted]``:
    a message is logged and shown, a credential never is."""
    where = f"{request.method} {request.url.copy_with(username=None, password=None)}"
    detail = f"{type(exc).__name__}{': ' + str(exc).splitlines()[0] if str(exc) else ''}"
    if response is not None:
        text = (f"{where}: sent; HTTP {response.status_code} began but the rest of the answer "
                f"did not arrive ({detail}) — it may have taken effect")
    elif isinstance(exc, httpx.ReadTimeout):
        timeout = request.extensions.get("timeout", {}).get("read")
        within = f" within {timeout:g} s" if isinstance(timeout, (int, float)) else ""
        text = f"{where}: sent, no answer{within} — it may have taken effect ({detail})"
    elif isinstance(exc, AFTER_SENDING):
        text = (f"{where}: sent, but the connection ended without an answer — it may have "
                f"taken effect ({detail})")
    elif isinstance(exc, _H11Error):
        text = (f"{where}: could not be sent whole ({detail}); the API may have received "
                "part of it")
    else:
        text = f"{where}: could not be sent ({detail}); nothing reached the API"
    hidden = secrets_of(auth) + ((request.url.password,) if request.url.password else ())
    return TransportError(redact(text, hidden))


class ExecuteOptions(TypedDict, total=False):
    """The keyword options of :func:`execute`, as ``Application.execute`` takes them
    (``**options: Unpack[ExecuteOptions]``); each means what :func:`execute` says."""

    client: httpx.Client | None
    base_url: str | None
    auth: Auth | None
    server_variables: Mapping[str, str] | None
    host_arguments: Mapping[str, Any] | None
    files: Mapping[str, FileValue] | None
    require_auth: bool
    max_bytes: int | None
    headers: Mapping[str, str] | None


class AsyncExecuteOptions(TypedDict, total=False):
    """The keyword options of :func:`aexecute` (``client`` an ``httpx.AsyncClient``)."""

    client: httpx.AsyncClient | None
    base_url: str | None
    auth: Auth | None
    server_variables: Mapping[str, str] | None
    host_arguments: Mapping[str, Any] | None
    files: Mapping[str, FileValue] | None
    require_auth: bool
    max_bytes: int | None
    headers: Mapping[str, str] | None


def execute(
    function: Function,
    arguments: Arguments,
    *,
    client: httpx.Client | None = None,
    base_url: str | None = None,
    auth: Auth | None = None,
    server_variables: Mapping[str, str] | None = None,
    host_arguments: Mapping[str, Any] | None = None,
    files: Mapping[str, FileValue] | None = None,
    require_auth: bool = True,
    max_bytes: int | None = MAX_ANSWER_BYTES,
    headers: Mapping[str, str] | None = None,
) -> Result:
    """Validate a tool call, build its request and send it.

    Args:
        function: the compiled function.
        arguments: the model's arguments, JSON text or a mapping.
        client: the httpx client to send with; a new one (closed afterwards) when ``None``.
            Its ``follow_redirects`` and ``max_redirects`` are read, but redirects follow
            httpllm's rule (see the module docstring): never to another origin.
        base_url: replaces the server URL; without a user or password (``user:pass@``
            is refused: credentials go through ``auth``).
        auth: credentials by scheme name, or an ``httpx.Auth`` (see ``build_request``).
        server_variables: values for the server URL's variables.
        host_arguments: the values of arguments kept from the model (``separate=``); a
            model's value for one of those is an error (``validate``).
        files: files by pointer into the arguments, ``{"#/body/avatar": b"..."}``.
        require_auth: ``False`` when credentials come from elsewhere; an ``httpx.Auth`` as
            ``auth`` or a ``client`` with its own ``auth`` says so too.
        max_bytes: most bytes of the answer read (after content decoding); the rest is
            never read and the result says so (``truncated``). ``None``: read it all (a
            download you trust); the default bounds what a hostile API can make you hold.
        headers: the host's own headers for this call (``--header``, forwarded ones):
            sent over any header argument of the same name (see ``build_request``).

    Returns:
        The status, headers and body; a non-2xx answer is returned, not raised (so is a
        redirect httpllm does not follow). The body
        is never redacted: it is the API's answer to the host; what a model reads goes
        through :func:`httpllm.execute.answer.fit`, which masks every credential first.

    Raises:
        OptionError: ``auth`` is not a mapping of scheme name -> credential or an
            ``httpx.Auth`` (nothing was sent).
        InvalidArguments: the arguments are invalid (nothing was sent); ``.errors`` has the
            :class:`~httpllm.execute.ArgumentError` records, the message is the feedback.
        RequestBuildError: valid arguments that cannot become a request, or an operation
            whose security requirements no credential meets (see ``build_request``).
        TransportError: the request could not be sent or its answer read (connection,
            timeout, protocol, too many redirects, undecodable body, a header or URL the
            transport refuses); the message says whether the request went out ("sent, no
            answer within 30 s — it may have taken effect").
    """
    request, send_auth = _prepare(
        function,
        arguments,
        base_url=base_url,
        auth=auth,
        server_variables=server_variables,
        host_arguments=host_arguments,
        files=files,
        require_auth=require_auth,
        client=client,
        headers=headers,
    )
    route = _Route(function, base_url)
    with _sending(auth):
        if client is None:
            with httpx.Client() as own:
                return _send(own, request, send_auth, auth, max_bytes, route)
        return _send(client, request, send_auth, auth, max_bytes, route)


_REDIRECTS = frozenset({301, 302, 303, 307, 308})


@dataclass(frozen=True, slots=True)
class _Route:
    """Where one call's redirects may lead: the origins its credentials may go to."""

    function: Function
    base_url: str | None

    def follow(self, client: httpx.Client | httpx.AsyncClient, request: httpx.Request,
               response: httpx.Response, hops: int) -> httpx.Request | None:
        """The request a redirect answer leads to, or ``None`` when it is not followed
        (not a redirect, the client does not follow redirects, no usable ``Location``, or
        an origin credentials may not go to).

        Raises:
            httpx.TooManyRedirects: more than the client's ``max_redirects``.

        Source: RFC 9110 section 15.4 (303, and 301/302 after POST, become GET); issue
        22 finding 3 (a host's client re-sent an API key and host headers elsewhere).
        """
        if (response.status_code not in _REDIRECTS or not client.follow_redirects
                or "location" not in response.headers):
            return None
        try:
            url = request.url.join(response.headers["location"]).copy_with(fragment=None)
        except (httpx.InvalidURL, UnicodeError):
            return None
        if url.username or url.password:
            return None
        here = origin(str(request.url))
        there = origin(str(url))
        if there is None or (there != here and there not in declared_origins(
                self.function, self.base_url)):
            return None
        if hops >= client.max_redirects:
            raise httpx.TooManyRedirects("Exceeded maximum allowed redirects.",
                                         request=request)
        method = request.method
        status = response.status_code
        if (status == 303 and method != "HEAD") or (status in (301, 302) and method == "POST"):
            method = "GET"
        keep_body = method == request.method
        dropped = {"host"} | (set() if keep_body else
                              {"content-length", "content-type", "transfer-encoding"})
        kept = [(k, v) for k, v in request.headers.multi_items() if k.lower() not in dropped]
        return httpx.Request(method, url, headers=kept,
                             content=request.content if keep_body else None,
                             extensions=request.extensions)


def _send(client: httpx.Client, request: httpx.Request, send_auth: Any, auth: Any,
          max_bytes: int | None, route: _Route) -> Result:
    response = None
    hops = 0
    try:
        while True:
            own = request.headers.multi_items()
            response = client.send(request, auth=send_auth, stream=True,
                                   follow_redirects=False)
            try:
                following = route.follow(client, request, response, hops)
                if following is None:
                    return _read(response, response.iter_bytes(), max_bytes,
                                 _added(own, response))
            finally:
                response.close()
            request, response, hops = following, None, hops + 1
    except (httpx.RequestError, *_UNSENDABLE) as exc:
        raise _transport_error(request, exc, auth, response) from exc


async def _asend(client: httpx.AsyncClient, request: httpx.Request, send_auth: Any, auth: Any,
                 max_bytes: int | None, route: _Route) -> Result:
    response = None
    hops = 0
    try:
        while True:
            own = request.headers.multi_items()
            response = await client.send(request, auth=send_auth, stream=True,
                                         follow_redirects=False)
            try:
                following = route.follow(client, request, response, hops)
                if following is None:
                    return await _aread(response, response.aiter_bytes(), max_bytes,
                                        _added(own, response))
            finally:
                await response.aclose()
            request, response, hops = following, None, hops + 1
    except (httpx.RequestError, *_UNSENDABLE) as exc:
        raise _transport_error(request, exc, auth, response) from exc


async def aexecute(
    function: Function,
    arguments: Arguments,
    *,
    client: httpx.AsyncClient | None = None,
    base_url: str | None = None,
    auth: Auth | None = None,
    server_variables: Mapping[str, str] | None = None,
    host_arguments: Mapping[str, Any] | None = None,
    files: Mapping[str, FileValue] | None = None,
    require_auth: bool = True,
    max_bytes: int | None = MAX_ANSWER_BYTES,
    headers: Mapping[str, str] | None = None,
) -> Result:
    """:func:`execute` on an ``httpx.AsyncClient``.

    Raises:
        InvalidArguments: as :func:`execute`.
        RequestBuildError: as :func:`execute`.
        TransportError: as :func:`execute`.
    """
    request, send_auth = _prepare(
        function,
        arguments,
        base_url=base_url,
        auth=auth,
        server_variables=server_variables,
        host_arguments=host_arguments,
        files=files,
        require_auth=require_auth,
        client=client,
        headers=headers,
    )
    route = _Route(function, base_url)
    with _sending(auth):
        if client is None:
            async with httpx.AsyncClient() as own:
                return await _asend(own, request, send_auth, auth, max_bytes, route)
        return await _asend(client, request, send_auth, auth, max_bytes, route)
