"""``mcp_server(app)``: the compiled document as an ``mcp`` SDK low-level ``Server``.

``tools/list`` answers the tool set (built on first use and kept: GitHub's 1,223 tools are
built once, in milliseconds, from the functions the compile made) in pages of at most
``max_page_bytes`` (see :mod:`httpllm.server.listing`); ``tools/call`` finds the
tool and runs its handler. A compiled function's call is validated, executed with
:func:`httpllm.execute.aexecute` on one shared ``httpx.AsyncClient`` and answered by
:class:`~httpllm.server.answer.Answers`; every failure the model can act on is an
``isError`` result, never a stack trace. An unknown tool is a JSON-RPC ``-32602`` error,
as are arguments that are not an object (the SDK checks ``CallToolRequestParams``).

Source: MCP 2025-11-25 ``server/tools`` (listing, calling, error handling); python-sdk
``mcp/server/lowlevel/server.py``.
"""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator, Iterable, Mapping
from contextlib import asynccontextmanager
from typing import Any
from urllib.parse import urlsplit

import httpx
from mcp.server.auth.provider import TokenVerifier
from mcp.server.auth.settings import AuthSettings
from mcp.server.context import CallNext, ServerRequestContext
from mcp.server.lowlevel import Server
from mcp.shared.exceptions import MCPError
from mcp_types import INVALID_PARAMS, CallToolRequestParams, PaginatedRequestParams
from mcp_types.version import MODERN_PROTOCOL_VERSIONS

from httpllm._api import Application, compile
from httpllm._json import valid_unicode
from httpllm.cut import DEFAULT_BUDGET
from httpllm.errors import (
    CallError,
    HttpllmError,
    InvalidArguments,
    RequestBuildError,
    TransportError,
    UnknownFunction,
)
from httpllm.execute import aexecute, validate
from httpllm.execute.answer import sent_text
from httpllm.execute.security import Credential, credentials, redact, secrets_of
from httpllm.execute.send import MAX_ANSWER_BYTES
from httpllm.load import Source
from httpllm.records import Function
from httpllm.server import credentials as headers
from httpllm.server.admission import authenticated
from httpllm.server.answer import Answers, failure
from httpllm.server.credentials import AuthHook, Credentials, FromRequestHeaders
from httpllm.server.endpoint import Admission, HttpllmServer, answer_ping
from httpllm.server.limits import CallSlots, Limits
from httpllm.server.listing import (
    DEFAULT_MAX_PAGE_BYTES,
    Listing,
    checked_page_bytes,
    cursor_of,
)
from httpllm.server.tools import (
    OUTPUT_BUDGET,
    Answer,
    Call,
    Handler,
    OutputSchemas,
    ServedTool,
    function_tool,
    in_valid_unicode,
    output_schemas_listed,
)

__all__ = ["DEFAULT_MAX_PAGE_BYTES", "DEFAULT_MAX_RESULT_CHARS", "Executor", "function_tools",
           "mcp_server"]

DEFAULT_MAX_RESULT_CHARS = DEFAULT_BUDGET
"""Characters of answer a model reads per call (about 10k tokens; Claude Code warns at
10k tokens of MCP output and stops at 25k)."""
_TIMEOUT = httpx.Timeout(30.0, connect=10.0)
"""Seconds for the shared upstream client."""
_LIST_TTL_MS = 3_600_000
"""How long a 2026-07-28 client may keep the tool listing, in milliseconds."""

log = logging.getLogger("httpllm.server")


def function_tools(app: Application, *, output_schemas: bool = True) -> list[ServedTool]:
    """One served tool per compiled function (the default tool set)."""
    return [function_tool(f, app.options, output=output_schemas) for f in app.functions]


class Executor:
    """Executes compiled functions for the server: credentials, headers, budget, client.

    Args:
        app: the compiled document.
        base_url: replaces the document's server URL.
        credentials: the host's credentials and headers.
        budget: most characters of answer per call.
        output_schemas: whether answers follow listed output schemas (see ``Answers``).
        max_bytes: most bytes of an answer read (``None``: all).
        client: an ``httpx.AsyncClient`` to send with (not closed by the server); else one
            is made when the server starts and closed when it stops.
        limits: the upstream calls a session and a client may have in flight.
        host_arguments: values of the arguments kept from the model (``separate=``).

    Raises:
        ValueError: ``base_url`` has a user name or password (not repeated).
    """

    def __init__(self, app: Application, *, base_url: str | None, credentials: Credentials,
                 budget: int, client: httpx.AsyncClient | None,
                 output_schemas: bool = True, limits: Limits | None = None,
                 max_bytes: int | None = MAX_ANSWER_BYTES,
                 host_arguments: Mapping[str, Any] | None = None) -> None:
        if base_url is not None and "@" in urlsplit(base_url).netloc:
            raise ValueError("base_url has a user name or password (user:pass@); give "
                             "credentials with auth=, never in the URL")
        self.app = app
        self.base_url = base_url
        self.host_arguments = dict(host_arguments or {})
        self.credentials = credentials
        self.slots = CallSlots(limits or Limits())
        self.answers = Answers(budget, structured=output_schemas)
        self.max_bytes = max_bytes
        self.client = None if client is None else headers.hooked(client)
        # A host's client may carry credentials in its own headers: never shown either.
        self._client_secrets = secrets_of(None, client.headers) if client else ()
        self._own = client is None

    @asynccontextmanager
    async def running(self) -> AsyncIterator[None]:
        """Own the shared client while the server runs."""
        if not self._own:
            yield
            return
        async with httpx.AsyncClient(timeout=_TIMEOUT) as client:
            self.client = headers.hooked(client)
            try:
                yield
            finally:
                self.client = None

    async def run(self, name: str, arguments: Any, call: Call) -> Answer:
        """Validate, send and answer one call of the function ``name``."""
        try:
            function = self.app.function(name)
        except UnknownFunction as exc:  # discover mode's invoke: the closest names (difflib)
            said = exc.message if exc.message.endswith(("?", ".")) else f"{exc.message}."
            return failure(f"{said} Nothing was sent.")
        try:
            result, secrets = await self.send(function, arguments, call)
        except HttpllmError as exc:
            return failure(exc.message)
        return self.answers(function, result, secrets)

    async def send(self, function: Function, arguments: Any, call: Call
                   ) -> tuple[Any, tuple[str, ...]]:
        """Validate and send one call with the call's credentials and headers: the HTTP
        result and the credentials used (to redact from what the model reads).

        Raises:
            CallError: the call was not sent; the message is what the model reads
                (credentials redacted).
        """
        name = function.name
        try:
            resolved = await self.credentials.resolve(call)
        except Exception as exc:  # the host's hook: report the kind, never its text
            log.error("auth hook failed for %s: %s", name, type(exc).__name__)
            raise CallError(f"{name}: the server could not get credentials for this call "
                            f"({type(exc).__name__}); nothing was sent.") from None
        token = headers.forwarding(resolved.headers)
        try:
            host = self._host(function)
            checked = validate(function, arguments, host_arguments=host)
            if not checked.ok:
                raise CallError(checked.feedback())
            if self._own and not _credentialed(function, resolved.auth, resolved.headers):
                raise RequestBuildError("no credentials")
            async with self.slots.hold(getattr(call.request, "scope", None), call.session_id):
                result = await self._send(function, arguments, resolved.auth,
                                          resolved.headers, host)
        except HttpllmError as exc:
            if type(exc) is CallError:
                raise
            raise CallError(redact(self._explain(function, exc, resolved.auth),
                                   resolved.secrets + self._client_secrets)) from None
        finally:
            headers.reset(token)
        return result, resolved.secrets + self._client_secrets

    def _host(self, function: Function) -> dict[str, Any] | None:
        """The host's values for the arguments ``function`` keeps from the model."""
        mine = {a.name: self.host_arguments[a.name] for a in function.arguments
                if a.separated and a.name in self.host_arguments}
        return mine or None

    async def _send(self, function: Function, arguments: Any, auth: dict[str, Credential],
                    extra: Mapping[str, str], host: Mapping[str, Any] | None) -> Any:
        # The host's headers go in as execute's headers=, over any header argument of the
        # same name (the request hook adds them only where missing: a second line of
        # defence for requests the host's client makes itself).
        if self.client is not None:
            return await aexecute(function, arguments, client=self.client,
                                  base_url=self.base_url, auth=auth or None,
                                  max_bytes=self.max_bytes, headers=extra,
                                  host_arguments=host)
        async with headers.hooked(httpx.AsyncClient(timeout=_TIMEOUT)) as client:
            return await aexecute(function, arguments, client=client, base_url=self.base_url,
                                  auth=auth or None, max_bytes=self.max_bytes, headers=extra,
                                  host_arguments=host)

    def _explain(self, function: Function, exc: HttpllmError,
                 auth: Mapping[str, Credential]) -> str:
        """The text a model reads for a call that could not be sent."""
        if isinstance(exc, InvalidArguments):
            return exc.message
        if isinstance(exc, TransportError):
            return sent_text(exc, tool=function.name)
        if isinstance(exc, RequestBuildError):
            try:
                credentials(function, auth)
            except RequestBuildError:
                hook = self.credentials.hook
                if isinstance(hook, FromRequestHeaders) and (sent := hook.wanted(
                        function.security, auth)):
                    schemes = " + ".join(scheme for scheme, _ in sent)
                    names = " and ".join(header for _, header in sent)
                    return (f"{function.name} needs the {schemes} credential, which this "
                            f"request did not carry; nothing was sent. The MCP client must "
                            f"send it in the {names} header of its HTTP requests to this "
                            "server (set the header in the client's configuration of this "
                            "MCP server).")
                wanted = " or ".join(" + ".join(r) for r in function.security if r)
                return (f"{function.name} needs credentials for {wanted}, which this server "
                        "was not given; nothing was sent. Whoever runs the server must "
                        "configure them (httpllm serve --auth-env SCHEME=VARIABLE, or "
                        "auth=/auth_hook= in Python).")
        return f"{function.name}: {exc.message}; nothing was sent."


def _credentialed(function: Function, auth: Mapping[str, Credential],
                  extra: Mapping[str, str]) -> bool:
    """Whether some security requirement of ``function`` is met by ``auth`` or by the
    headers the host adds (a forwarded ``Authorization`` ...). A client the host passed
    may carry its own credentials, so this is asked only of the server's own client."""
    try:
        credentials(function, auth)
        return True
    except RequestBuildError:
        pass
    sent = {name.lower() for name in extra}
    return any(requirement and all(
        name in auth or _header_of(function.security_schemes.get(name)) in sent
        for name in requirement) for requirement in function.security)


def _header_of(scheme: Any) -> str:
    """The header a security scheme's credential travels in (lower case)."""
    if not isinstance(scheme, Mapping):
        return ""
    if scheme.get("type") == "apiKey":
        where = scheme.get("in")
        return str(scheme.get("name", "")).lower() if where == "header" else (
            "cookie" if where == "cookie" else "")
    return "authorization"


def _call(ctx: ServerRequestContext[Any, Any], name: str, executor: Executor) -> Call:
    request = ctx.request
    seen = executor.credentials.incoming(
        getattr(request, "headers", None),
        admitted=authenticated(getattr(request, "scope", None) or {}))

    async def run(function: str, arguments: Any) -> Answer:
        return await executor.run(function, arguments, call)

    async def send(function: Function, arguments: Any) -> tuple[Any, tuple[str, ...]]:
        return await executor.send(function, arguments, call)

    call = Call(tool=name, headers=seen, request=request,
                session_id=seen.get("mcp-session-id"), run=run, send=send)
    return call


def mcp_server(
    app: Application | Source,
    *,
    base_url: str | None = None,
    auth: Mapping[str, Credential] | None = None,
    auth_hook: AuthHook | None = None,
    headers: Mapping[str, str] | None = None,
    forward_headers: Iterable[str] = (),
    max_result_chars: int = DEFAULT_MAX_RESULT_CHARS,
    max_answer_bytes: int | None = MAX_ANSWER_BYTES,
    client: httpx.AsyncClient | None = None,
    tools: Iterable[ServedTool | tuple[Mapping[str, Any], Handler]] | None = None,
    output_schemas: OutputSchemas | bool = "auto",
    name: str | None = None,
    token_verifier: TokenVerifier | None = None,
    auth_settings: AuthSettings | None = None,
    limits: Limits | None = None,
    max_page_bytes: int = DEFAULT_MAX_PAGE_BYTES,
    host_arguments: Mapping[str, Any] | None = None,
) -> HttpllmServer:
    """The compiled document as an MCP server (``mcp.server.lowlevel.Server``).

    Args:
        app: an :class:`~httpllm.Application` (compile with ``provider="mcp"``), or a
            document, compiled here for ``mcp``.
        base_url: replaces the document's server URL.
        auth: credentials by security scheme name (``{"bearerAuth": "tok"}``,
            ``{"basic": ("user", "pass")}``).
        auth_hook: ``(call: Call) -> {scheme: credential} | None``, sync or async, called per
            call and merged over ``auth`` (``call.headers`` are the incoming HTTP request's).
        headers: sent on every upstream request, over a header argument of the same name
            (never replacing a credential, ``Accept`` or ``Content-Type``).
        forward_headers: incoming HTTP request headers copied onto the upstream request.
        max_result_chars: most characters of answer a model reads per call; longer answers
            are cut with a note saying how much and how to ask for less.
        max_answer_bytes: most bytes of an upstream answer read (10 MiB; ``None``: all);
            the rest is never read and the model is told where it was cut.
        client: the ``httpx.AsyncClient`` to send with (kept open; a request hook that adds
            the forwarded headers is appended to it); default: one per server. Its own
            auth or headers count as credentials: calls are then not refused for lack of
            ``auth``.
        tools: the tool set, replacing one tool per function: :class:`ServedTool`\\ s or
            ``(tool JSON, handler)`` pairs (see :func:`function_tools` to extend the
            default set).
        output_schemas: ``"on"``: list each operation's ``outputSchema`` (bounded per
            tool, see ``httpllm.dialects.mcp.OUTPUT_MAX``) and answer
            ``structuredContent`` (an answer off its schema is then an error that shows
            it); ``"off"`` for APIs that drift from their documents: every answer is
            text; ``"auto"`` (the default): ``"on"`` when the schemas together fit in
            :data:`~httpllm.server.tools.OUTPUT_BUDGET` bytes (a client compiles a
            validator for each when it lists), else ``"off"`` with a log warning.
            ``True``/``False`` mean ``"on"``/``"off"``.
        name: the server's name in ``serverInfo`` (default ``"httpllm"``).
        token_verifier: over HTTP, admit only requests whose bearer token it accepts (the
            SDK's ``TokenVerifier``: :class:`~httpllm.server.admission.StaticTokens`,
            :class:`~httpllm.server.admission.JwtVerifier` or your own). That token admits
            the client to this server and is never sent upstream: ``Authorization`` is
            then withheld from ``call.headers`` and cannot be forwarded.
        auth_settings: with ``token_verifier``, the SDK's ``AuthSettings`` of an OAuth
            resource server (``issuer_url``, ``resource_server_url``, ``required_scopes``):
            RFC 9728 metadata and ``resource_metadata`` in 401 answers.
        limits: sessions and upstream calls per client (:class:`~httpllm.server.Limits`).
        max_page_bytes: most bytes of one ``tools/list`` response (1 MiB); longer listings
            come in pages a host follows by ``nextCursor``, a tool larger than a page alone
            in its own. ``0``: one page however large, for a host that reads no cursor.
        host_arguments: the values of arguments kept from the model (compile with
            ``separate=``), by argument name; each function takes those it has. A model
            sending one of them is refused (its tool has no such argument).

    Returns:
        The server: ``await server.run(read, write, server.create_initialization_options())``
        on streams, or ``server.streamable_http_app()`` for an ASGI app (mount it and run
        ``server.session_manager.run()`` in your app's lifespan); that app validates
        ``Host``/``Origin``, requires the token and keeps the limits.

    Raises:
        LoadError, SpecError: ``app`` is a document that cannot be compiled.
        ValueError: ``forward_headers`` names ``Authorization`` while a ``token_verifier``
            reads it, ``auth_settings`` comes without ``token_verifier``, or ``base_url``
            has a user name or password (httpx would send them as HTTP Basic in place of
            the configured credential; the message does not repeat them).
        OptionError: ``max_page_bytes`` is neither 0 nor at least
            :data:`~httpllm.server.listing.MIN_PAGE_BYTES`.
    """
    checked_page_bytes(max_page_bytes)
    admission = Admission(token_verifier=token_verifier, auth_settings=auth_settings,
                          limits=limits or Limits())
    withheld = ("authorization",) if token_verifier is not None else ()
    application = app if isinstance(app, Application) else compile(app, "mcp")
    output_schemas = _listed(application, output_schemas, tell=tools is None)
    executor = Executor(application, base_url=base_url, budget=max_result_chars,
                        credentials=Credentials(auth=dict(auth or {}), hook=auth_hook,
                                                headers=dict(headers or {}),
                                                forward=tuple(forward_headers),
                                                withheld=withheld),
                        client=client, output_schemas=output_schemas, limits=admission.limits,
                        max_bytes=max_answer_bytes, host_arguments=host_arguments)
    served: dict[str, ServedTool] = {}
    pages: list[Listing] = []
    executor.answers.listed = lambda tool: _output_of(tool_set().get(tool))

    def tool_set() -> dict[str, ServedTool]:
        if not served:
            given = function_tools(application, output_schemas=output_schemas) if (
                tools is None) else [
                t if isinstance(t, ServedTool) else ServedTool(tool=t[0], handler=t[1])
                for t in tools]
            named, listing = _served(given, max_page_bytes)
            served.update(named)
            pages.append(listing)
        return served

    async def list_tools(ctx: ServerRequestContext[Any, Any],
                         params: PaginatedRequestParams | None) -> dict[str, Any]:
        tool_set()
        # 2026-07-28 wants the result type and cache directives on every page (older
        # revisions drop them): the listing never changes while the server runs, for any
        # user, and a cursor stays valid as long as it does.
        return {**pages[0].page(cursor_of(params)), "resultType": "complete",
                "ttlMs": _LIST_TTL_MS, "cacheScope": "public"}

    async def call_tool(ctx: ServerRequestContext[Any, Any],
                        params: CallToolRequestParams) -> dict[str, Any]:
        tool = tool_set().get(params.name)
        if tool is None:
            raise MCPError(code=INVALID_PARAMS, message=f"Unknown tool: {params.name}")
        call = _call(ctx, params.name, executor)
        arguments = params.arguments if params.arguments is not None else {}
        try:
            if tool.handler is not None:
                answer = await tool.handler(arguments, call)
            else:
                answer = await executor.run(
                    tool.function.name if tool.function else tool.name, arguments, call)
        except Exception as exc:  # a bug must not reach the model as a stack trace
            log.error("tool %s failed: %s", params.name, type(exc).__name__)
            answer = failure(f"{params.name} failed inside the server "
                             f"({type(exc).__name__}); nothing more is known.")
        # 2026-07-28 requires the result type; older revisions drop the key. A lone
        # surrogate (an API's, or a document's a message quotes) as U+FFFD: the SDK's
        # strict UTF-8 serializer would write no answer at all.
        result: dict[str, Any] = valid_unicode({"resultType": "complete", **answer})[0]
        return result

    @asynccontextmanager
    async def lifespan(_: Server[Any]) -> AsyncIterator[dict[str, Any]]:
        async with executor.running():
            yield {}

    def input_schema(tool: str) -> Mapping[str, Any] | None:
        found = tool_set().get(tool)
        schema = None if found is None else found.tool.get("inputSchema")
        return schema if isinstance(schema, Mapping) else None

    server = HttpllmServer(name or "httpllm", version=_version(), lifespan=lifespan,
                           get_tool_input_schema=input_schema)
    server.admission = admission
    # Registered as raw handlers: they answer JSON objects, not SDK models (1,223 Tool
    # models per listing would cost more than the listing itself).
    server.add_request_handler("tools/list", PaginatedRequestParams, list_tools)
    server.add_request_handler("tools/call", CallToolRequestParams, call_tool)

    async def listed_as_built(ctx: ServerRequestContext[Any, Any], call_next: CallNext) -> Any:
        # Handshake-era listings go out as built: the SDK would re-validate every schema of
        # every tool on each listing (a quarter of a compile on GitHub's 1,223 tools); the
        # tools are checked against the SDK's Tool models by the tests instead.
        if ctx.method == "tools/list" and ctx.protocol_version not in MODERN_PROTOCOL_VERSIONS:
            tool_set()
            return pages[0].page(cursor_of(ctx.params))
        return await call_next(ctx)

    server.middleware.append(listed_as_built)
    server.middleware.append(answer_ping)
    return server


def _served(given: Iterable[ServedTool], max_page_bytes: int
            ) -> tuple[dict[str, ServedTool], Listing]:
    """The tools by name and their listing, each tool as a strict UTF-8 serializer can
    write it (:func:`~httpllm.server.tools.in_valid_unicode`). Only the tools whose listed
    JSON escapes a surrogate are walked for a lone one (GitHub's 1,223 tools: none, and
    65 ms less on the first listing than walking each)."""
    served = {t.name: t for t in given}
    listing = Listing.of([t.tool for t in served.values()], max_page_bytes)
    if not listing.surrogates:
        return served, listing
    tools = list(served.values())
    for index in listing.surrogates:
        tools[index] = in_valid_unicode(tools[index])
    served = {t.name: t for t in tools}
    return served, Listing.of([t.tool for t in served.values()], max_page_bytes)


def _output_of(tool: ServedTool | None) -> Mapping[str, Any] | None:
    """The ``outputSchema`` a served tool lists (answers are checked against it)."""
    schema = None if tool is None else tool.tool.get("outputSchema")
    return schema if isinstance(schema, Mapping) else None


def _listed(app: Application, mode: OutputSchemas | bool, *, tell: bool = True) -> bool:
    """Whether the tools list their output schemas (``"auto"`` tells when it leaves them
    out, unless ``tell`` is false: the server lists tools of its own, as code and discover
    mode do, which carry none)."""
    listed, size = output_schemas_listed(app.functions, mode)
    if tell and mode == "auto" and not listed:
        log.warning("output schemas left out: %s bytes for %s tools (auto lists up to %s); "
                    "answers are text", f"{size:,}", f"{len(app.functions):,}",
                    f"{OUTPUT_BUDGET:,}")
    return listed


def _version() -> str:
    from httpllm import __version__

    return __version__
