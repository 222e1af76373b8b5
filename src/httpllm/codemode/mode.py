"""Code mode's two tools: ``search_docs`` (the typed module, a few operations at a time) and
``execute`` (a TypeScript program against ``api``, run in the sandbox).

The host side of every binding is here: a program's call names an operation; it is
refused past :attr:`Limits.calls` operations or :attr:`Limits.answer_bytes` of answers,
refused when the code mode is read-only and the operation is not ``GET``/``HEAD`` (or
when the host's ``confirm`` says no), then validated exactly as a tool call is
(:func:`httpllm.execute.validate`, the same feedback text), sent with the host's
credentials (:func:`httpllm.execute.aexecute`, or the host's ``send``) and answered as
data: the parsed body, or an ``ApiError`` with the status and body. Every answer the
program gets, and everything it prints, has the host's credentials replaced by
``[redacted]`` (:func:`httpllm.execute.security.redact`), so a credential an API echoes
never reaches the program, let alone the model; what the model reads is cut to
``max_answer_chars`` with a note (:mod:`httpllm.cut`).

>>> code = app.code_tools(execute_options={"auth": {"bearer": token}})   # doctest: +SKIP
>>> program = "console.log((await api.meta.root()).current_user_url)"
>>> code.handle("execute", {"code": program})  # doctest: +SKIP
{'output': 'https://api.github.com/user'}
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import inspect
import json
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from http import HTTPStatus
from typing import Any, Protocol

from httpllm._types import JSON, Schema
from httpllm.codemode.sandbox import PROGRAM_MAX, Limits, Run, Sandbox
from httpllm.codemode.surface import Surface
from httpllm.cut import DEFAULT_BUDGET, cut_text
from httpllm.dialects import Dialect, Options
from httpllm.errors import HttpllmError, UnknownFunction
from httpllm.records import Argument, Function
from httpllm.render import Renderer

__all__ = ["DOCS_BUDGET", "EXECUTE", "SEARCH_DOCS", "CodeMode", "Sent", "code_mode"]

SEARCH_DOCS = "search_docs"
EXECUTE = "execute"
DOCS_BUDGET = 12_000
"""Most characters of one ``search_docs`` answer (about 3k tokens); the named types past it
are listed by name."""
_READ = ("get", "head")


class Compiled(Protocol):
    """What code mode needs of an :class:`httpllm.Application`."""

    @property
    def functions(self) -> tuple[Function, ...]: ...
    @property
    def dialect(self) -> Dialect: ...
    @property
    def options(self) -> Options: ...
    def search(self, query: str, k: int = 10, *, tag: str | None = None) -> list[Function]: ...
    def response_schema(self, function: Function) -> Schema | None: ...


@dataclass(frozen=True, slots=True, kw_only=True)
class Sent:
    """One operation's HTTP answer, as the host's ``send`` gives it.

    Attributes:
        result: the :class:`httpllm.execute.Result`.
        secrets: the credentials this call used (redacted from what the program gets).
    """

    result: Any
    secrets: tuple[str, ...] = ()


Send = Callable[[Function, Any], Awaitable[Sent]]
"""``await send(function, arguments) -> Sent``; raises :class:`HttpllmError` (its message
is what the program's error says) when the call cannot be sent."""
Confirm = Callable[[Function, Any], bool | Awaitable[bool]]
"""``confirm(function, arguments) -> bool``: whether the host allows a call that changes
something (every method but ``GET`` and ``HEAD``)."""


def _argument(name: str, schema: Schema) -> Argument:
    return Argument(name=name, location="query", original=name, required=True,
                    schema=schema, style="form", explode=True)


def _function(name: str, description: str, properties: dict[str, Schema],
              required: Sequence[str]) -> Function:
    parameters: Schema = {"type": "object", "properties": properties,
                          "required": list(required), "additionalProperties": False}
    return Function(name=name, description=description, parameters=parameters, method="",
                    path="", operation_id=name, tags=(), deprecated=False,
                    arguments=tuple(_argument(n, s) for n, s in properties.items()),
                    schema=parameters)


def pair(api: str, limits: Limits, read_only: bool) -> tuple[Function, Function]:
    """The two tools before any dialect (neutral JSON Schema 2020-12)."""
    search = _function(SEARCH_DOCS, (
        f"Search the typed TypeScript module of {api} by what you want to do, in words "
        "(\"list open pull requests\"), or by a type's name. Returns the declarations of "
        "the best matching operations (api.<namespace>.<method>(args): Promise<Result>) "
        f"and the types they use, to call from {EXECUTE}."), {
        "query": {"type": "string", "minLength": 1,
                  "description": "the task in words, or a type name"}}, ["query"])
    writes = (" Only GET and HEAD operations may be called (read-only)."
              if read_only else "")
    run = _function(EXECUTE, (
        f"Run a TypeScript program against {api}, type-checked first. The global `api` is "
        "its only access: `await api.<namespace>.<method>(args)` resolves to the response "
        "body and rejects with ApiError (status, body) on a non-2xx answer; find methods "
        f"with {SEARCH_DOCS}. Only what the program prints (console.log) comes back, so "
        "filter and summarize in the program. No imports, network, files or environment; "
        f"at most {limits.calls} operations and {limits.seconds:g} s per program.{writes}"), {
        "code": {"type": "string", "minLength": 1, "maxLength": PROGRAM_MAX,
                 "description": "the program (TypeScript; top-level await works)"}},
        ["code"])
    return search, run


@dataclass(slots=True)
class _Tally:
    calls: int = 0
    answer_bytes: int = 0
    secrets: set[str] = field(default_factory=set)


class CodeMode:
    """The two tools for one application (build it with :func:`code_mode`).

    Attributes:
        tools: the two tools in the dialect's envelope (grouped as the dialect groups
            tools), ready for the provider's SDK.
        functions: the two tools' functions as rendered by the dialect.
        surface: the typed module (:class:`~httpllm.codemode.surface.Surface`).
        sandbox: where programs run.
    """

    def __init__(self, app: Compiled, *, tools: list[JSON], functions: tuple[Function, ...],
                 surface: Surface, sandbox: Sandbox, execute_options: Mapping[str, Any],
                 send: Send | None, read_only: bool, confirm: Confirm | None, k: int,
                 max_answer_chars: int | None) -> None:
        self.app = app
        self.tools = tools
        self.functions = functions
        self.surface = surface
        self.sandbox = sandbox
        self.execute_options = dict(execute_options)
        self.read_only = read_only
        self.k = k
        self.max_answer_chars = max_answer_chars
        self._send = send
        self._confirm = confirm

    def search_docs(self, query: str) -> str:
        """The declarations of the operations matching ``query`` (and of a type named
        ``query``), within :data:`DOCS_BUDGET` characters.

        Raises:
            MissingExtra: the ``search`` extra is not installed.
        """
        words = query.split()
        types = [n for n in self.surface.type_names() if n in words or n == query.strip()]
        # Read-only: the writes are not in the surface (docs skips them); ask for enough
        # that k reads remain when the best matches are writes.
        hidden = len(self.app.functions) - len(self.surface.by_name)
        found = [] if types and len(words) == 1 else [
            f for f in self.app.search(query, self.k + max(hidden, 0))
            if f.name in self.surface.by_name][:self.k]
        if not found and not types:
            return f"// No operation matches {query!r}; try other words.\n"
        return self.surface.docs(found, DOCS_BUDGET, types=types)

    async def execute(self, code: str, *, send: Send | None = None) -> Run:
        """Run one program (see :meth:`ahandle`); ``send`` replaces the code mode's own
        way of sending a call for this run (the MCP server's, with per-call credentials).
        The run's output and error have every credential used redacted."""
        tally = _Tally()
        tally.secrets.update(_secrets()(self.execute_options))
        sender = send or self._send or self._aexecute

        async def bind(name: str, arguments: Any) -> dict[str, Any]:
            return await self._bind(name, arguments, tally, sender)

        names = self.surface.referenced(code)
        run = await self.sandbox.run(self.surface.declarations(names), code,
                                     self.surface.table(), bind)
        return Run(output=_redact(run.output, tally.secrets),
                   error=None if run.error is None else _redact(run.error, tally.secrets),
                   stage=run.stage, calls=run.calls)

    async def ahandle(self, tool_name: str, arguments: Any) -> JSON:
        """Answer one call of ``search_docs`` or ``execute`` (``arguments``: the model's JSON
        text or a mapping): ``{"output": text}`` for a program that finished,
        ``{"output": text, "error": text}`` for one that did not, ``{"docs": text}`` for a
        search, ``{"error": text}`` for invalid arguments. Never raises for what the model
        sent.

        Raises:
            UnknownFunction: ``tool_name`` is not one of the two.
        """
        from httpllm.execute import validate

        by_name = {f.name: f for f in self.functions}
        if tool_name not in by_name:
            raise UnknownFunction(f"{tool_name!r} is not one of {', '.join(by_name)}")
        checked = validate(by_name[tool_name], arguments)
        if not checked.ok or checked.arguments is None:
            return {"error": checked.feedback()}
        if tool_name == SEARCH_DOCS:
            return {"docs": self.search_docs(str(checked.arguments["query"]))}
        return self.answer(await self.execute(str(checked.arguments["code"])))

    def handle(self, tool_name: str, arguments: Any) -> JSON:
        """:meth:`ahandle` for synchronous callers (run on a fresh event loop, in a
        thread of its own when the caller's thread already runs one)."""
        try:
            asyncio.get_running_loop()
        except RuntimeError:
            return asyncio.run(self.ahandle(tool_name, arguments))
        with concurrent.futures.ThreadPoolExecutor(1) as pool:
            return pool.submit(asyncio.run, self.ahandle(tool_name, arguments)).result()

    def pairs(self) -> list[tuple[JSON, Callable[[Any], JSON]]]:
        """``(tool, handler)`` for each tool, the handler ``arguments -> result`` as
        :meth:`handle`."""
        envelope = self.app.dialect.envelope
        return [(envelope(f, self.app.options), _bound(self, f.name)) for f in self.functions]

    def answer(self, run: Run) -> dict[str, Any]:
        """What the model reads of a run: its output cut to ``max_answer_chars`` (with a
        note saying how much was left out and to print less), and its error."""
        output = run.output
        budget = self.max_answer_chars
        if budget is not None and len(output) > budget:
            cut = cut_text(output, budget)
            output = (f"{cut.text}\n[Output cut to fit {budget:,} characters (it had "
                      f"{cut.total:,}): {cut.chars:,} left out. Print less: filter, count or "
                      "summarize in the program, or print a part at a time.]")
        answer: dict[str, Any] = {"output": output}
        if run.error is not None:
            answer["error"] = run.error
        return answer

    async def _bind(self, name: str, arguments: Any, tally: _Tally, send: Send
                    ) -> dict[str, Any]:
        """The host side of one binding call (see the module docstring)."""
        from httpllm.execute import validate

        binding = self.surface.by_name.get(name)
        if binding is None:
            return _error("UnknownOperation", f"no operation named {name!r}")
        function = binding.function
        where = f"{function.method.upper()} {function.path}"
        if tally.calls >= self.sandbox.limits.calls:
            return _error("LimitExceeded", f"{where}: this program already called "
                          f"{tally.calls} operations, the most one program may")
        if tally.answer_bytes > self.sandbox.limits.answer_bytes:
            return _error("LimitExceeded", f"{where}: this program already received "
                          f"{tally.answer_bytes:,} bytes of answers, the most one may")
        refused = await self._refused(function, arguments)
        if refused is not None:
            return _error("Refused", f"{where}: {refused}; nothing was sent")
        checked = validate(function, arguments)
        if not checked.ok:
            return _error("InvalidArguments", checked.feedback())
        tally.calls += 1
        try:
            sent = await send(function, arguments)
        except HttpllmError as exc:
            return _error(type(exc).__name__, _redact(exc.message, tally.secrets))
        result = sent.result
        tally.secrets.update((*sent.secrets, *result.secrets))
        tally.answer_bytes += len(result.content)
        if tally.answer_bytes > self.sandbox.limits.answer_bytes:
            return _error("LimitExceeded", f"{where}: the answers of this program passed "
                          f"{self.sandbox.limits.answer_bytes:,} bytes; this one was not "
                          "handed over")
        value = _value(result)
        if result.truncated and isinstance(value, str):  # the byte limit may end in one
            value = _redact(value, tally.secrets, cut=True)
        body = _scrubbed(value, tally.secrets)
        if result.ok:
            return {"ok": True, "value": body}
        shown = body if isinstance(body, str) else json.dumps(body, ensure_ascii=False)
        moved = _location(result, tally.secrets)
        return {"ok": False, "error": {
            "kind": "api", "name": "ApiError", "status": result.status, "body": body,
            "operation": where, "location": moved,
            "message": f"{where} answered HTTP {_status(result.status)}"
                       f"{f' (Location: {moved})' if moved else ''}: {shown[:500]}"}}

    async def _refused(self, function: Function, arguments: Any) -> str | None:
        if function.method in _READ:
            return None
        if self.read_only:
            return "this code mode is read-only: only GET and HEAD operations may be called"
        if self._confirm is None:
            return None
        verdict = self._confirm(function, arguments)
        if inspect.isawaitable(verdict):
            verdict = await verdict
        return None if verdict else "the host did not allow this call"

    async def _aexecute(self, function: Function, arguments: Any) -> Sent:
        from httpllm.execute import aexecute

        result = await aexecute(function, arguments, **self.execute_options)
        return Sent(result=result)


def _secrets() -> Callable[[Mapping[str, Any]], tuple[str, ...]]:
    """The host's secrets of ``execute_options``: ``auth``, ``headers=``, its client's."""
    from httpllm.execute.security import option_secrets

    return option_secrets


def _redact(text: str, secrets: set[str], *, cut: bool = False) -> str:
    if not secrets or not text:
        return text
    from httpllm.execute.security import redact

    return redact(text, sorted(secrets), cut=cut)


def _location(result: Any, secrets: set[str]) -> str | None:
    """The ``Location`` of a redirect not followed, masked as every answer is
    (:func:`httpllm.execute.answer.location`); ``None`` otherwise."""
    from httpllm.execute.answer import location

    return location(result, tuple(sorted(secrets))) or None


def _scrubbed(value: Any, secrets: set[str]) -> Any:
    """``value`` with every credential in its strings replaced by ``[redacted]`` (through
    its JSON text: each secret as given, whose every form :func:`redact` finds there
    JSON-escaped, and in its JSON-escaped form too). The escaped form alone missed an echo
    percent-encoded or HTML-escaped of a secret holding ``"`` or ``\\``, which a program
    decodes and prints in a form no mask knows (base64)."""
    if not secrets:
        return value
    from httpllm.execute.security import REDACTED, redact

    text = json.dumps(value, ensure_ascii=False)
    masked = redact(text, [*sorted(secrets), *(json.dumps(s, ensure_ascii=False)[1:-1]
                                               for s in sorted(secrets))])
    if masked == text:
        return value
    try:
        return json.loads(masked)
    except ValueError:  # a replacement cut an escape apart: hand over nothing of it
        return f"(the answer held a credential and was withheld: {REDACTED})"


def _value(result: Any) -> Any:
    """The body a program gets: parsed JSON, text, or a line naming binary content."""
    ctype = str(result.headers.get("content-type", "")).split(";", 1)[0].strip().lower()
    if isinstance(result.body, str) and result.content and ctype and not (
            ctype.startswith("text/") or "json" in ctype or "xml" in ctype):
        return f"(binary {ctype}, {len(result.content):,} bytes)"
    return result.body


def _status(code: int) -> str:
    try:
        return f"{code} {HTTPStatus(code).phrase}"
    except ValueError:
        return str(code)


def _error(name: str, message: str) -> dict[str, Any]:
    return {"ok": False, "error": {"name": name, "message": message}}


def _bound(mode: CodeMode, name: str) -> Callable[[Any], JSON]:
    return lambda arguments: mode.handle(name, arguments)


def code_mode(app: Compiled, *, api: str = "the API", k: int = 5,
              execute_options: Mapping[str, Any] | None = None, send: Send | None = None,
              read_only: bool = False, confirm: Confirm | None = None,
              limits: Limits | None = None, deno: str | None = None,
              max_answer_chars: int | None = DEFAULT_BUDGET) -> CodeMode:
    """Code mode for ``app``: ``search_docs`` and ``execute``, in its dialect.

    Args:
        app: a compiled :class:`httpllm.Application` (``reference=True`` makes every named
            schema one named type: smaller declarations).
        api: how the tools name the API (``"GitHub's REST API"``).
        k: how many operations a search returns.
        execute_options: keyword options for :func:`httpllm.execute.aexecute`
            (``base_url``, ``auth``, ``client`` (an ``httpx.AsyncClient``),
            ``host_arguments`` ...), given by the host, never by the model.
        send: sends one validated call instead (the MCP server passes its own).
        read_only: refuse every operation but ``GET`` and ``HEAD``, and leave the others
            out of the typed module (``search_docs`` never shows them; a program naming
            one fails its type check).
        confirm: asked before any other operation is sent (see :data:`Confirm`).
        limits: what one program may use (:class:`~httpllm.codemode.sandbox.Limits`).
        deno: the ``deno`` executable (default: the ``code`` extra's, else ``PATH``).
        max_answer_chars: most characters of a program's output the model reads.

    Raises:
        MissingExtra: Deno is not installed (``pip install 'httpllm[code]'``).
    """
    sandbox = Sandbox(limits, deno=deno)
    renderer = Renderer(app.dialect, app.options, {})
    functions = tuple(r for f in pair(api, sandbox.limits, read_only)
                      for r in renderer.render(f))
    tools = [app.dialect.envelope(f, app.options) for f in functions]
    group = app.dialect.group
    return CodeMode(app, tools=group(tools) if group is not None else tools,
                    functions=functions, surface=_surface(app, read_only), sandbox=sandbox,
                    execute_options=execute_options or {}, send=send, read_only=read_only,
                    confirm=confirm, k=k, max_answer_chars=max_answer_chars)


def _surface(app: Compiled, read_only: bool = False) -> Surface:
    """The application's typed module, made once per application (and once more for
    read-only: only its ``GET`` and ``HEAD`` operations) and kept with it."""
    def make() -> Surface:
        functions = tuple(f for f in app.functions if not read_only or f.method in _READ)
        return Surface(functions, app.response_schema)

    deferred = getattr(app, "_deferred", None)  # an Application keeps it; a stand-in not
    if deferred is None:
        return make()
    found: Surface = deferred.kept(("code-surface", read_only), make)
    return found
