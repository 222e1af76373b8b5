"""The portable search -> describe -> invoke trio: three tools that stand for a whole API.

A model that cannot hold 1,223 tools gets three: ``search_operations`` (a task in words,
optionally a tag -> names and one-line summaries), ``describe_operations`` (names -> each
operation's tool in the application's dialect, with its full parameter schema) and
``invoke_operation`` (a name and its arguments -> the HTTP answer, through
:func:`httpllm.execute.validate` and :func:`httpllm.execute.execute`). The trio's own
tools are rendered by the application's dialect like any function, so they are valid
wherever its tools are; :meth:`Discovery.handle` answers their calls, and
:meth:`Discovery.pairs` gives ``(tool, handler)`` pairs for a server (MCP ``--mode
discover``).

>>> trio = discover(app)                                        # doctest: +SKIP
>>> client.chat.completions.create(tools=trio.tools, ...)       # doctest: +SKIP
>>> trio.handle("search_operations", {"query": "merge a PR"})   # doctest: +SKIP
{'operations': [{'name': 'pulls_merge', 'method': 'PUT', ...}]}

Stainless and Speakeasy serve large APIs to models the same way (``shared/docs/peers.md``).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from httpllm._types import JSON, Schema
from httpllm.cut import DEFAULT_BUDGET, narrowing
from httpllm.dialects import Dialect, Options
from httpllm.errors import CallError, UnknownFunction
from httpllm.records import Argument, Function
from httpllm.render import Renderer
from httpllm.toolsets.search import one_line

__all__ = ["DESCRIBE", "DESCRIBE_MAX", "INVOKE", "SEARCH", "TAG_ENUM_MAX", "Discovery",
           "discover", "trio"]

SEARCH = "search_operations"
DESCRIBE = "describe_operations"
INVOKE = "invoke_operation"
DESCRIBE_MAX = 20
"""Most operations one ``describe_operations`` call may name."""

TAG_ENUM_MAX = 100
"""Most tags listed as the search tool's ``tag`` enum; past it the tag is any string
(GitHub's description has 47 tags)."""

Handler = Callable[[Any], JSON]
"""``(arguments: JSON text or mapping) -> JSON result`` of one trio tool."""


class Compiled(Protocol):
    """What the trio needs of an :class:`httpllm.Application`."""

    @property
    def functions(self) -> tuple[Function, ...]: ...
    @property
    def dialect(self) -> Dialect: ...
    @property
    def options(self) -> Options: ...
    def function(self, name: str) -> Function: ...
    def search(self, query: str, k: int = 10, *, tag: str | None = None) -> list[Function]: ...


def _argument(name: str, schema: Schema, required: bool) -> Argument:
    """A trio argument; never sent over HTTP, located in the query so that ``validate``
    applies the query rules (an empty string is refused)."""
    return Argument(name=name, location="query", original=name, required=required,
                    schema=schema, style="form", explode=True)


def _function(name: str, description: str, properties: dict[str, Schema],
              required: Sequence[str]) -> Function:
    parameters: Schema = {"type": "object", "properties": properties,
                          "required": list(required), "additionalProperties": False}
    return Function(name=name, description=description, parameters=parameters, method="",
                    path="", operation_id=name, tags=(), deprecated=False,
                    arguments=tuple(_argument(n, s, n in required)
                                    for n, s in properties.items()),
                    schema=parameters, pointer="")


def trio(tags: Sequence[str], api: str = "the API") -> tuple[Function, Function, Function]:
    """The three functions before any dialect (neutral JSON Schema 2020-12)."""
    tag: Schema = {"type": "string", "description": "only operations with this tag"}
    if 0 < len(tags) <= TAG_ENUM_MAX:
        tag = {**tag, "enum": sorted(tags)}
    search = _function(SEARCH, (
        f"Find the operations of {api} that do a task. Write the query as the API's "
        "documentation would: a verb and the thing it acts on, in the API's own nouns "
        "(\"merge pull request\", \"list invoices of a customer\"), not a whole "
        "sentence. Returns the ten best operations, best first, each with its method, "
        "path and a one-line summary: choose among them, then call "
        f"{DESCRIBE} for their parameters. If none fits, search again with other words "
        "(a synonym, the resource's name in this API, a broader or narrower term) or "
        "with a tag."), {
        "query": {"type": "string", "minLength": 1,
                  "description": "a verb and the thing it acts on, in the API's words"},
        "tag": tag}, ["query"])
    describe = _function(DESCRIBE, (
        f"The full parameter schemas of operations named by {SEARCH}, to call them with "
        f"{INVOKE}."), {
        "names": {"type": "array", "minItems": 1, "maxItems": DESCRIBE_MAX,
                  "items": {"type": "string"}, "description": "operation names"}},
        ["names"])
    invoke = _function(INVOKE, (
        f"Call one operation by name with arguments that match its schema from "
        f"{DESCRIBE}. Returns the HTTP status and body, or what to fix in the arguments."), {
        "name": {"type": "string", "minLength": 1, "description": "the operation name"},
        "arguments": {"type": "object", "description": "the operation's arguments"}},
        ["name"])
    return search, describe, invoke


@dataclass(frozen=True, slots=True, kw_only=True)
class Discovery:
    """The trio for one application.

    Attributes:
        tools: the three tools in the dialect's envelope (grouped as the dialect groups
            tools, e.g. one Gemini ``Tool``), ready for the provider's SDK.
        functions: the trio's functions as rendered by the dialect (with their losses).
        app: the application whose operations the trio searches and calls.
        k: how many operations a search returns.
        execute_options: keyword options for :func:`httpllm.execute.execute`
            (``base_url``, ``auth``, ``client`` ...), given by the host, never the model.
        max_answer_chars: most characters of an invoked operation's answer the model
            reads; every credential is masked first (:func:`httpllm.execute.answer.fit`),
            then a longer body is cut, JSON kept JSON, and the answer gets a ``note``
            saying how much was left out (:mod:`httpllm.cut`); ``None``: never.
    """

    tools: list[JSON]
    functions: tuple[Function, ...]
    app: Compiled
    k: int = 10
    execute_options: Mapping[str, Any] = field(default_factory=dict)
    max_answer_chars: int | None = DEFAULT_BUDGET

    def handle(self, tool_name: str, arguments: Any) -> JSON:
        """Answer one call of a trio tool (``arguments``: the model's JSON text or a
        mapping); the result is JSON for the model.

        Invalid arguments, unknown operations and failed requests are answered as
        ``{"error": "..."}`` texts the model can act on, never raised.

        Raises:
            UnknownFunction: ``tool_name`` is not one of the three.
        """
        from httpllm.execute import validate

        by_name = {f.name: f for f in self.functions}
        if tool_name not in by_name:
            raise UnknownFunction(f"{tool_name!r} is not one of {', '.join(by_name)}")
        checked = validate(by_name[tool_name], arguments)
        if not checked.ok or checked.arguments is None:
            return {"error": checked.feedback()}
        args = checked.arguments
        if tool_name == SEARCH:
            return self._search(args["query"], args.get("tag"))
        if tool_name == DESCRIBE:
            return self._describe(args["names"])
        return self._invoke(args["name"], args.get("arguments", {}))

    def pairs(self) -> list[tuple[JSON, Handler]]:
        """``(tool, handler)`` for each trio tool, the tool in the dialect's envelope
        (not grouped), the handler ``arguments -> result`` as :meth:`handle`."""
        envelope = self.app.dialect.envelope
        return [(envelope(f, self.app.options), _bound(self, f.name)) for f in self.functions]

    def _search(self, query: str, tag: str | None) -> JSON:
        found = self.app.search(query, self.k, tag=tag)
        return {"operations": [{"name": f.name, "method": f.method.upper(), "path": f.path,
                                "summary": one_line(f)} for f in found]}

    def _describe(self, names: list[str]) -> JSON:
        envelope, options = self.app.dialect.envelope, self.app.options
        out: list[JSON] = []
        for name in names:
            try:
                out.append(envelope(self.app.function(name), options))
            except UnknownFunction as exc:
                out.append({"name": name, "error": _unknown(exc)})
        return {"operations": out}

    def _invoke(self, name: str, arguments: Any) -> JSON:
        from httpllm.execute import execute, validate
        from httpllm.execute.answer import fit

        try:
            function = self.app.function(name)
        except UnknownFunction as exc:  # its message names the closest (difflib)
            return {"error": _unknown(exc)}
        checked = validate(function, arguments)
        if not checked.ok:
            return {"error": checked.feedback()}
        secrets = self._secrets()
        try:
            result = execute(function, arguments, **self.execute_options)
        except CallError as exc:
            from httpllm.errors import TransportError
            from httpllm.execute.answer import sent_text

            text = sent_text(exc, tool=name) if isinstance(exc, TransportError) else \
                exc.message
            return {"error": _masked(text, secrets)}
        fitted = fit(result, secrets=secrets, budget=self.max_answer_chars, tool=name,
                     narrowing=narrowing(function))
        answer: dict[str, Any] = {"status": result.status,
                                  "body": fitted.value if fitted.has_value else
                                  fitted.text}
        if fitted.location:
            answer["location"] = fitted.location
        if fitted.note:
            answer["note"] = fitted.note
        return answer

    def _secrets(self) -> tuple[str, ...]:
        """The host's secrets: ``auth``, its ``headers=`` and its client's headers."""
        from httpllm.execute.security import option_secrets

        return option_secrets(self.execute_options)


def _unknown(exc: UnknownFunction) -> str:
    said = exc.message if exc.message.endswith(("?", ".")) else f"{exc.message}."
    return f"{said} Nothing was sent; find names with {SEARCH}."


def _masked(text: str, secrets: tuple[str, ...]) -> str:
    from httpllm.execute.security import redact

    return redact(text, secrets)


def _bound(discovery: Discovery, name: str) -> Handler:
    return lambda arguments: discovery.handle(name, arguments)


def discover(app: Compiled, *, k: int = 10, api: str = "the API",
             execute_options: Mapping[str, Any] | None = None,
             max_answer_chars: int | None = DEFAULT_BUDGET) -> Discovery:
    """The search -> describe -> invoke trio for ``app``, in its dialect.

    Args:
        app: a compiled :class:`httpllm.Application`.
        k: how many operations a search returns.
        api: how the tools name the API (``"GitHub's REST API"``).
        execute_options: keyword options for :func:`httpllm.execute.execute` (``base_url``,
            ``auth``, ``client``, ``host_arguments`` ...).
        max_answer_chars: most characters of an invoked operation's answer the model
            reads (see :class:`Discovery`); ``None``: never cut.

    Raises:
        Unrepresentable: the dialect cannot express the trio's parameters (no dialect
            here fails; a user's registered one might).
    """
    tags = sorted({t for f in app.functions for t in f.tags})
    renderer = Renderer(app.dialect, app.options, {})
    functions = tuple(r for f in trio(tags, api) for r in renderer.render(f))
    tools = [app.dialect.envelope(f, app.options) for f in functions]
    group = app.dialect.group
    return Discovery(tools=group(tools) if group is not None else tools, functions=functions,
                     app=app, k=k, execute_options=dict(execute_options or {}),
                     max_answer_chars=max_answer_chars)
