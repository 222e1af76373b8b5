"""Validate, build and send a tool call; answer with the HTTP result.

Invalid arguments raise :class:`~httpllm.errors.InvalidArguments` before anything is sent;
a non-2xx answer is a :class:`Result` like any other; a failure to send maps to
:class:`~httpllm.errors.TransportError`.
"""

from __future__ import annotations

import contextvars
import json
import logging
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

import httpx

from httpllm.errors import InvalidArguments, TransportError
from httpllm.execute.body import is_json
from httpllm.execute.decode import Arguments
from httpllm.execute.request import FileValue, assemble, check_credential_origin
from httpllm.execute.security import Credential, redact, secrets_of
from httpllm.execute.validate import validate
from httpllm.records import Function

__all__ = ["Result", "aexecute", "execute"]

Auth = Mapping[str, Credential] | httpx.Auth
"""Credentials by security scheme name, or an ``httpx.Auth`` for the schemes that need one."""


@dataclass(frozen=True, slots=True, kw_only=True)
class Result:
    """The answer to one tool call.

    Attributes:
        status: the HTTP status code (``200``, ``404`` ...).
        headers: the response headers.
        body: the body parsed as JSON when the response says it is JSON (``application/json``
            or ``+json``) and parses, else the body as text (``""`` when empty).
        content: the raw body bytes (for binary responses).
    """

    status: int
    headers: httpx.Headers
    body: Any
    content: bytes = b""

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
) -> tuple[httpx.Request, Any]:
    """The request to send and the ``auth=`` for ``client.send``.

    Credentials count as coming from elsewhere when ``auth`` is an ``httpx.Auth`` or the
    client has its own ``auth``; otherwise a requirement ``auth`` does not meet is an error.

    Raises:
        InvalidArguments: the call is invalid; the message is the feedback text.
        RequestBuildError: valid arguments that cannot become a request.
    """
    checked = validate(function, arguments, host_arguments=host_arguments, files=files)
    if not checked.ok or checked.arguments is None:
        raise InvalidArguments(
            checked.feedback(), errors=checked.errors, pointer=function.pointer or None
        )
    placed = auth if isinstance(auth, Mapping) else None
    elsewhere = isinstance(auth, httpx.Auth) or (client is not None and client.auth is not None)
    request = assemble(
        function,
        checked.arguments,
        base_url=base_url,
        auth=placed,
        server_variables=server_variables,
        files=files,
        require_auth=require_auth and not elsewhere,
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


def _result(response: httpx.Response) -> Result:
    body: Any = response.text
    if response.content and is_json(response.headers.get("content-type", "")):
        try:
            body = json.loads(response.content)
        except (ValueError, RecursionError):
            body = response.text
    return Result(
        status=response.status_code,
        headers=response.headers,
        body=body,
        content=response.content,
    )


def _transport_error(request: httpx.Request, exc: httpx.RequestError,
                     auth: Any = None) -> TransportError:
    """The error naming the request, with any credential of ``auth`` that travels in the
    URL (an API key in the query) shown as ``[redacted]``: a message is logged and shown, a
    credential never is."""
    text = f"{request.method} {request.url}: {type(exc).__name__}: {exc}"
    return TransportError(redact(text, secrets_of(auth)))


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
) -> Result:
    """Validate a tool call, build its request and send it.

    Args:
        function: the compiled function.
        arguments: the model's arguments, JSON text or a mapping.
        client: the httpx client to send with; a new one (closed afterwards) when ``None``.
        base_url: replaces the server URL.
        auth: credentials by scheme name, or an ``httpx.Auth`` (see ``build_request``).
        server_variables: values for the server URL's variables.
        host_arguments: arguments the host supplies, merged over the model's.
        files: files by pointer into the arguments, ``{"#/body/avatar": b"..."}``.
        require_auth: ``False`` when credentials come from elsewhere; an ``httpx.Auth`` as
            ``auth`` or a ``client`` with its own ``auth`` says so too.

    Returns:
        The status, headers and body; a non-2xx answer is returned, not raised.

    Raises:
        InvalidArguments: the arguments are invalid (nothing was sent); ``.errors`` has the
            :class:`~httpllm.execute.ArgumentError` records, the message is the feedback.
        RequestBuildError: valid arguments that cannot become a request, or an operation
            whose security requirements no credential meets (see ``build_request``).
        TransportError: the request could not be sent or its answer read (connection,
            timeout, protocol, too many redirects, undecodable body).
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
    )
    try:
        with _sending(auth):
            if client is None:
                with httpx.Client() as own:
                    response = own.send(request, auth=send_auth)
            else:
                response = client.send(request, auth=send_auth)
    except httpx.RequestError as exc:
        raise _transport_error(request, exc, auth) from exc
    return _result(response)


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
    )
    try:
        with _sending(auth):
            if client is None:
                async with httpx.AsyncClient() as own:
                    response = await own.send(request, auth=send_auth)
            else:
                response = await client.send(request, auth=send_auth)
    except httpx.RequestError as exc:
        raise _transport_error(request, exc, auth) from exc
    return _result(response)
