"""``compile()``: the only module that calls every stage, and the :class:`Application`."""

from __future__ import annotations

import functools
import json
import threading
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from httpllm._gc import pausing_gc
from httpllm._types import JSON
from httpllm.compose.bounded import finish_bounded
from httpllm.compose.inline import Inliner
from httpllm.compose.operation import Composer, Draft
from httpllm.compose.responses import Responses
from httpllm.dialects import Dialect, Options, get_dialect
from httpllm.dialects._split import split
from httpllm.errors import HttpllmError, LimitExceeded, UnknownFunction
from httpllm.load import DEFAULT_LIMITS, Limits, Loader, Source, load_text, source_of
from httpllm.loss import Loss
from httpllm.normalize.named import NamedSchemas
from httpllm.parse import OperationSite, parse
from httpllm.records import Argument, Function, OperationError
from httpllm.refs import ROOT, Resolver, dangling_refs
from httpllm.render import Renderer
from httpllm.selection import Selector, select

__all__ = ["Application", "Warning", "compile"]


@dataclass(frozen=True, slots=True, kw_only=True)
class Warning:  # the field's word; shadows the builtin only inside this module
    """Something kept rather than guessed (e.g. a contradictory ``allOf``).

    Attributes:
        pointer: where, spelled like a ``$ref``.
        message: what was found and what was done.
    """

    pointer: str
    message: str

    def to_json(self) -> dict[str, str]:
        """The warning as a JSON object."""
        return {"pointer": self.pointer, "message": self.message}


@dataclass(frozen=True, slots=True, kw_only=True)
class Application:
    """The compiled document: one function per operation, for one provider.

    Attributes:
        provider: the dialect name.
        dialect: the dialect record.
        options: the options used.
        functions: the compiled functions, in document order.
        errors: operations that could not be compiled (the others are in ``functions``).
        warnings: problems kept rather than guessed, and limits exceeded.
        cycles: each reference cycle, as the sorted list of the schema names on it.
        version: the document's OpenAPI version (``"3.0"`` or ``"3.1"``).
    """

    provider: str
    dialect: Dialect
    options: Options
    functions: tuple[Function, ...]
    errors: tuple[OperationError, ...]
    version: str = "3.1"
    _warnings: list[Warning] = field(default_factory=list, repr=False)
    _cycles: Callable[[], list[list[str]]] = field(default=list, repr=False)
    _responses: Responses | None = field(default=None, repr=False)
    _later: list[Callable[[], list[Warning]]] = field(default_factory=list, repr=False)
    _by_name: dict[str, Function] = field(default_factory=dict, repr=False)
    _lock: Any = field(default_factory=threading.Lock, repr=False, compare=False)

    def __post_init__(self) -> None:
        self._by_name.update({f.name: f for f in self.functions})

    @property
    def warnings(self) -> tuple[Warning, ...]:
        """Problems kept rather than guessed, limits exceeded, response schemas dropped,
        dangling ``$ref``s no operation reaches (reading this computes the response schemas
        and checks the document's components)."""
        if self._responses is not None:
            self._responses.compute()
        with self._lock:  # two threads reading warnings must not run a check twice
            while self._later:
                self._warnings.extend(self._later.pop()())
            return tuple(self._warnings)

    @property
    def cycles(self) -> tuple[tuple[str, ...], ...]:
        """Each reference cycle among the schemas the functions reach (parameters and
        responses), as the sorted list of the schema names on it."""
        if self._responses is not None:
            self._responses.compute()
        return tuple(tuple(c) for c in self._cycles())

    @property
    def losses(self) -> tuple[Loss, ...]:
        """Every loss entry of every function."""
        return tuple(loss for f in self.functions for loss in f.losses)

    def function(self, name: str) -> Function:
        """The function called ``name``.

        Raises:
            UnknownFunction: no function has that name.
        """
        try:
            return self._by_name[name]
        except KeyError:
            raise UnknownFunction(f"no function named {name!r} in this application") from None

    @pausing_gc  # a few thousand small dicts, no cycles: as in compile()
    def tools(self) -> list[JSON]:
        """The tool list in the provider's envelope, JSON-serializable, ready for its SDK.

        The tools share subtrees with each other and with the functions (a schema used by
        many operations is one object, which is what keeps a compile fast and small):
        treat them as read-only, or ``copy.deepcopy`` them before editing.
        """
        envelope, group = self.dialect.envelope, self.dialect.group
        tools = [envelope(f, self.options) for f in self.functions]
        return group(tools) if group is not None else tools

    def to_json(self) -> dict[str, JSON]:
        """The whole result: provider, functions (with maps and losses), errors, cycles."""
        return {
            "provider": self.provider,
            "version": self.version,
            "functions": [f.to_json() for f in self.functions],
            "errors": [e.to_json() for e in self.errors],
            "warnings": [w.to_json() for w in self.warnings],
            "cycles": [list(c) for c in self.cycles],
        }

    def dumps(self, **kwargs: Any) -> str:
        """``json.dumps(self.tools())``."""
        return json.dumps(self.tools(), **kwargs)

    def validate(self, name: str, arguments: Any, **kwargs: Any) -> Any:
        """Validate a tool call: ``httpllm.execute.validate`` on the function ``name``.

        Raises:
            UnknownFunction: no function has that name.
        """
        from httpllm.execute import validate

        return validate(self.function(name), arguments, **kwargs)

    def execute(self, name: str, arguments: Any, **kwargs: Any) -> Any:
        """Validate, build and send a tool call; return ``httpllm.execute.Result``
        (status, headers, parsed body). A non-2xx answer is returned, not raised.

        Keyword options: ``client`` (an ``httpx.Client``), ``base_url``, ``auth``,
        ``host_arguments``, ``files``, ``server_variables``.

        Raises:
            UnknownFunction: no function has that name.
            InvalidArguments: the arguments are invalid (nothing is sent); the message is
                the feedback text for the model.
            TransportError: the request could not be sent.
        """
        from httpllm.execute import execute

        return execute(self.function(name), arguments, **kwargs)

    async def aexecute(self, name: str, arguments: Any, **kwargs: Any) -> Any:
        """The async twin of :meth:`execute` (``client`` is an ``httpx.AsyncClient``)."""
        from httpllm.execute import aexecute

        return await aexecute(self.function(name), arguments, **kwargs)


def _error(site: OperationSite, exc: HttpllmError) -> OperationError:
    return OperationError(method=site.method, path=site.path,
                          pointer=exc.pointer or site.pointer, message=exc.message,
                          kind=type(exc).__name__)


@pausing_gc
def compile(  # the public name the project is known by (shadows the builtin here only)
    spec: Source,
    provider: str = "chatgpt",
    *,
    reference: bool = False,
    strict: bool = False,
    strip_constraints: bool = False,
    unroll: int | None = None,
    split_unions: bool = False,
    lenient: bool = True,
    examples: Literal["native", "description", "off"] = "native",
    envelope: str | None = None,
    max_depth: int | None = None,
    collapse_deep: bool = False,
    include: Iterable[Selector] | Selector | None = None,
    exclude: Iterable[Selector] | Selector | None = None,
    allow_network: bool = False,
    allow_outside_root: bool = False,
    limits: Limits = DEFAULT_LIMITS,
    separate: Callable[[Argument], bool] | None = None,
) -> Application:
    """Compile an OpenAPI 3.0/3.1 document into one function per operation.

    Args:
        spec: a path, JSON/YAML text, bytes, or an already-parsed ``dict``.
        provider: the dialect name (``"chatgpt"``, ``"3.1"`` ...; see
            ``httpllm.dialects.providers()``).
        reference: keep a ``$defs`` entry for every named schema a function reaches
            instead of inlining non-recursive ones.
        strict: render the provider's strict mode (OpenAI structured outputs ...).
        strip_constraints: move validation keywords into descriptions (``@minimum 0``).
        unroll: expand recursion this many levels for dialects without ``$ref``.
        split_unions: one function per union variant for dialects without unions.
        lenient: documented defaults (with a loss entry) instead of errors for what a
            dialect cannot type.
        examples: where OpenAPI examples go: ``"native"``, ``"description"``, ``"off"``.
        envelope: the dialect's envelope variant (``"responses"`` for OpenAI,
            ``"json-schema"`` for Gemini ...).
        max_depth: most object/array levels below each argument; deeper is an error.
        collapse_deep: past ``max_depth``, send the deeper parts as JSON text instead.
        include: selectors of the operations to compile (see :mod:`httpllm.selection`).
        exclude: selectors of operations to leave out.
        allow_network: allow ``$ref``s to ``http(s)://`` (off: never fetch).
        allow_outside_root: allow ``$ref``s to files outside the document's folder.
        limits: size, nesting and alias-expansion limits of the loader.
        separate: picks arguments kept out of the model's view (e.g.
            ``lambda a: a.location == "header"``); the host passes their values to
            ``execute(..., host_arguments=...)``.

    Returns:
        The :class:`Application`. Operations that cannot be compiled are listed in
        ``errors``; the rest compile.

    Raises:
        UnknownDialect: ``provider`` is not registered (the message lists the known ones).
        LoadError: the source cannot be read or decoded (``LimitExceeded``, ``AccessDenied``).
        SpecError: not an OpenAPI 3.0/3.1 document.
    """
    dialect = get_dialect(provider)
    options = Options(strict=strict, strip_constraints=strip_constraints, unroll=unroll,
                      split_unions=split_unions, lenient=lenient, examples=examples,
                      envelope=envelope, max_depth=max_depth, collapse_deep=collapse_deep)
    if dialect.variant is not None:
        dialect = dialect.variant(options)
    raw, path, label = source_of(spec)
    root = raw if isinstance(raw, (Mapping, list)) else load_text(raw, label=label, limits=limits)
    base = path.as_uri() if path is not None else ROOT
    loader = Loader(path, limits=limits, allow_network=allow_network,
                    allow_outside_root=allow_outside_root)
    loader.files[base] = root
    resolver = Resolver(root, base, loader)
    doc = parse(root, resolver, label=label)

    warnings: list[Warning] = []
    named = NamedSchemas(resolver, doc.version,
                         lambda at, msg: warnings.append(Warning(pointer=at, message=msg)))
    composer = Composer(doc, named)
    errors = list(doc.errors)
    drafts: list[Draft] = []
    for site in select(doc.sites, include, exclude):
        try:
            drafts.append(composer.draft(site))
        except HttpllmError as exc:
            errors.append(_error(site, exc))
        except RecursionError:
            errors.append(_error(site, LimitExceeded("operation nests too deep")))
    failed = named.close((schema for draft in drafts for schema in draft.schemas()), "request")
    graph = named.finish()
    inliner = Inliner(named, reference=reference)
    renderer = Renderer(dialect, options, inliner.origins)
    responses = Responses(resolver, doc.version, reference=reference,
                          warn=lambda at, msg: warnings.append(Warning(pointer=at, message=msg)))
    functions: list[Function] = []
    for draft in drafts:
        output = None if draft.response is None else responses.add(draft.site.pointer,
                                                                    draft.response)
        try:
            functions.extend(_finish(draft, composer, inliner, renderer, failed, output,
                                     separate, warnings))
        except HttpllmError as exc:
            errors.append(_error(draft.site, exc))
    warnings.extend(Warning(pointer="#/paths", message=problem)
                    for check in dialect.request_limits for problem in check(functions))
    if dialect.tool_limit is not None and len(functions) > dialect.tool_limit:
        warnings.append(Warning(pointer="#/paths", message=(
            f"{len(functions)} tools exceed {dialect.name}'s limit of {dialect.tool_limit} "
            "per request; select fewer with include=/exclude=")))
    return Application(provider=dialect.name, dialect=dialect, options=options,
                       functions=tuple(functions), errors=tuple(errors), version=doc.version,
                       _warnings=warnings, _cycles=_cycles(graph.cycles, responses),
                       _responses=responses,
                       _later=[functools.partial(_unreached_refs, resolver, errors, warnings)])


def _cycles(request: list[list[str]], responses: Responses) -> Callable[[], list[list[str]]]:
    """The cycles of the parameters' and the responses' named schemas, without repeats."""
    def cycles() -> list[list[str]]:
        return sorted({tuple(c): c for c in [*request, *responses.cycles]}.values())
    return cycles


def _unreached_refs(resolver: Resolver, errors: list[OperationError],
                    warnings: list[Warning]) -> list[Warning]:
    """Dangling ``$ref``s in the components that no error or warning points at yet (at
    the ``$ref``, inside it, or at a schema holding it)."""
    told = [p for p in [*(e.pointer for e in errors), *(w.pointer for w in warnings)] if p]
    found = []
    for at, message in dangling_refs(resolver):
        if not any(at.startswith(t) or t.startswith(at.removesuffix("/$ref")) for t in told):
            found.append(Warning(pointer=at, message=f"{message} (no operation reaches it)"))
    return found


def _finish(draft: Draft, composer: Composer, inliner: Inliner, renderer: Renderer,
            failed: dict[str, HttpllmError], output: Callable[[], Any] | None,
            separate: Callable[[Argument], bool] | None,
            warnings: list[Warning]) -> list[Function]:
    broken = inliner.named.broken(draft.schemas(), failed)  # at once when none failed
    if broken is not None:
        raise broken
    function = finish_bounded(draft, composer, inliner, separate, output,
                              lambda at, msg: warnings.append(Warning(pointer=at, message=msg)))
    parts = ([function] if not renderer.options.split_unions
             else split(function, inliner.origins, composer.pool.claim))
    return [renderer.render(part) for part in parts]
