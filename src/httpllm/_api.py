"""``compile()``: the only module that calls every stage, and the :class:`Application`."""

from __future__ import annotations

import difflib
import functools
import json
import os
import re
import threading
from collections.abc import Callable, Hashable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal, TypeVar

from httpllm._types import JSON, Schema
from httpllm.compose.bounded import finish_bounded, parameters_limit
from httpllm.compose.inline import Inliner
from httpllm.compose.names import function_name, sanitize
from httpllm.compose.operation import Composer, Draft
from httpllm.compose.prune import Sizes
from httpllm.compose.responses import Responses
from httpllm.cut import DEFAULT_BUDGET
from httpllm.dialects import Dialect, Options, get_dialect
from httpllm.dialects._options import check_options, document_keywords, options_of
from httpllm.dialects._sizes import size_warnings
from httpllm.errors import HttpllmError, InternalError, LimitExceeded, UnknownFunction
from httpllm.load import (
    DEFAULT_LIMITS,
    Limits,
    Loader,
    Source,
    is_url,
    load_text,
    shown_url,
    source_of,
    string_keys,
    without_lone_surrogates,
    without_userinfo,
)
from httpllm.loss import Loss, distinct
from httpllm.normalize.named import NamedSchemas
from httpllm.parse import OperationSite, parse
from httpllm.records import Argument, Function, OperationError, evolve
from httpllm.refs import ROOT, Resolver, dangling_refs
from httpllm.render import Renderer
from httpllm.selection import Selector, select
from httpllm.upgrade import Upgraded, upgrade

if TYPE_CHECKING:
    from typing_extensions import Unpack

    from httpllm.agent.runner import AsyncHandleOptions, HandleOptions
    from httpllm.codemode.mode import CodeMode, Confirm
    from httpllm.codemode.mode import Send as CodeSend
    from httpllm.codemode.sandbox import Limits as CodeLimits
    from httpllm.execute.decode import Arguments
    from httpllm.execute.feedback import ValidationResult
    from httpllm.execute.request import FileValue
    from httpllm.execute.send import AsyncExecuteOptions, ExecuteOptions, Result
    from httpllm.toolsets.budget import Budget, Eligibility
    from httpllm.toolsets.deferred import Search
    from httpllm.toolsets.groups import By, Group
    from httpllm.toolsets.lint import Finding, Rule
    from httpllm.toolsets.search import SearchIndex
    from httpllm.toolsets.tokens import Tokenizer

__all__ = ["Application", "Warning", "compile"]

_T = TypeVar("_T")


@dataclass(frozen=True, slots=True, kw_only=True)
class Warning:  # the field's word; shadows the builtin only inside this module
    """Something kept rather than guessed (e.g. a contradictory ``allOf``).

    Attributes:
        pointer: where, spelled like a ``$ref``.
        message: what was found and what was done.
        rule: what a caller may act on, or ``""``: ``"tool-limit"`` when the whole tool
            list has more tools than the provider takes in one request (moot for a list
            split into groups or loaded on demand); ``"tool-too-large"`` for a tool that
            alone passes ``dialects._sizes.TOOL_TOKENS``.
    """

    pointer: str
    message: str
    rule: str = ""

    def to_json(self) -> dict[str, str]:
        """The warning as a JSON object."""
        return {"pointer": self.pointer, "message": self.message}


@dataclass(frozen=True, slots=True, kw_only=True)
class Application:
    """The compiled document: one function per operation, for one provider.

    Attributes:
        provider: the dialect name.
        dialect: the dialect record.
        options: the compile's options (every keyword of :func:`compile` but the
            document and the provider, as given).
        functions: the compiled functions, in document order.
        errors: operations that could not be compiled (the others are in ``functions``).
        warnings: problems kept rather than guessed, and limits exceeded.
        cycles: each reference cycle, as the sorted list of the schema names on it.
        version: the document's version (``"2.0"``, ``"3.0"``, ``"3.1"`` or ``"3.2"``).
        operations: how many operations the document has under ``paths``, before
            ``include=``/``exclude=`` chose among them (a path item that cannot be read,
            its ``$ref`` refused, counts as one: it is one of ``errors``).
    """

    provider: str
    dialect: Dialect
    options: Options
    functions: tuple[Function, ...]
    errors: tuple[OperationError, ...]
    version: str = "3.1"
    operations: int = 0
    _by_name: dict[str, Function] = field(default_factory=dict, repr=False, compare=False)
    _deferred: _Deferred = field(default_factory=lambda: _Deferred(warnings=[]), repr=False,
                                 compare=False)
    """Everything made on first read; the application's one mutable part."""

    def __post_init__(self) -> None:
        self._by_name.update({f.name: f for f in self.functions})

    @property
    def warnings(self) -> tuple[Warning, ...]:
        """Problems kept rather than guessed, limits exceeded, response schemas dropped,
        dangling ``$ref``s no operation reaches. Only what the dialect emits is checked:
        the response schemas are computed here for a dialect whose tools carry them
        (``Dialect.outputs``: ``mcp``, ``3.1``), else only once some ``Function.output``
        has been read."""
        return self._deferred.all_warnings(outputs=self.dialect.outputs)

    @property
    def cycles(self) -> tuple[tuple[str, ...], ...]:
        """Each reference cycle among the schemas the functions reach (parameters and
        responses), as the sorted list of the schema names on it."""
        return tuple(tuple(c) for c in self._deferred.cycles())

    @property
    def losses(self) -> tuple[Loss, ...]:
        """Every loss entry of every function."""
        return tuple(loss for f in self.functions for loss in f.losses)

    def function(self, name: str) -> Function:
        """The function called ``name``.

        Raises:
            UnknownFunction: no function has that name (the message names the closest
                ones, as ``difflib.get_close_matches`` finds them).
        """
        try:
            return self._by_name[name]
        except KeyError:
            close = difflib.get_close_matches(name, self._by_name, n=3, cutoff=0.6)
            hint = f"; did you mean {', '.join(map(repr, close))}?" if close else ""
            raise UnknownFunction(f"no function named {name!r} in this application"
                                  f"{hint}") from None

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

    def validate(self, name: str, arguments: Arguments, *,
                 host_arguments: Mapping[str, Any] | None = None,
                 files: Mapping[str, FileValue] | None = None) -> ValidationResult:
        """Validate a tool call: ``httpllm.execute.validate`` on the function ``name``.

        Raises:
            UnknownFunction: no function has that name.
        """
        from httpllm.execute import validate

        return validate(self.function(name), arguments, host_arguments=host_arguments,
                        files=files)

    def execute(self, name: str, arguments: Arguments,
                **options: Unpack[ExecuteOptions]) -> Result:
        """Validate, build and send a tool call; return ``httpllm.execute.Result``
        (status, headers, parsed body). A non-2xx answer is returned, not raised.

        Keyword options: ``client`` (an ``httpx.Client``), ``base_url``, ``auth``,
        ``host_arguments``, ``files``, ``server_variables``, ``require_auth``,
        ``max_bytes``, ``headers`` (the host's, over header arguments of the same name).

        Raises:
            UnknownFunction: no function has that name.
            InvalidArguments: the arguments are invalid (nothing is sent); the message is
                the feedback text for the model.
            RequestBuildError: the call cannot become a request (e.g. credentials the
                operation requires are missing; nothing is sent).
            TransportError: the request could not be sent.
        """
        from httpllm.execute import execute

        return execute(self.function(name), arguments, **options)

    async def aexecute(self, name: str, arguments: Arguments,
                       **options: Unpack[AsyncExecuteOptions]) -> Result:
        """The async twin of :meth:`execute` (``client`` is an ``httpx.AsyncClient``)."""
        from httpllm.execute import aexecute

        return await aexecute(self.function(name), arguments, **options)

    def handle(self, response: Any, *, format: str | None = None,
               **options: Unpack[HandleOptions]) -> list[dict[str, Any]]:
        """Run every tool call of a model's response and return the messages to append,
        in the provider's format: ``httpllm.agent.handle`` over this application's
        functions (see its docstring for the formats and the keyword options ``client``,
        ``auth``, ``base_url``, ``host_arguments``, ``server_variables``).

        ``format`` overrides the tool-call format the provider implies (``"chat"``,
        ``"responses"``, ``"anthropic"``, ``"gemini"``, ``"bedrock"``, ``"ollama"``,
        ``"mistral"``, ``"mcp"``). Invalid calls, non-2xx answers and transport errors
        are error results the model reads, never exceptions.

        Raises:
            UnknownDialect: the provider has no tool-call format and ``format`` is unset.
            CallError: ``response`` is not a response or list of tool calls of the format.
        """
        from httpllm.agent import format_of, handle

        found = format or format_of(self.dialect, self.options)
        return handle(self._by_name, response, format=found, **options)

    async def ahandle(self, response: Any, *, format: str | None = None,
                      **options: Unpack[AsyncHandleOptions]) -> list[dict[str, Any]]:
        """The async twin of :meth:`handle` (``client`` is an ``httpx.AsyncClient``); the
        calls run concurrently, at most ``limit`` (default 8) at once."""
        from httpllm.agent import ahandle, format_of

        found = format or format_of(self.dialect, self.options)
        return await ahandle(self._by_name, response, format=found, **options)

    def budget(self, *, strict: Mapping[str, Eligibility] | None = None,
               tokenizer: Tokenizer | None = None, max_tools: int | None = None,
               max_tokens: int | None = None) -> Budget:
        """The budget report (``httpllm.toolsets.budget.budget``): tokens, arguments,
        depth and strict eligibility per tool, and the totals against the provider's limits.
        Keyword options: ``strict``, ``tokenizer``, ``max_tools``, ``max_tokens``.

        Raises:
            MissingTokenizer: the ``tokens`` extra is not installed.
        """
        from httpllm.toolsets.budget import budget

        return budget(self, strict=strict, tokenizer=tokenizer, max_tools=max_tools,
                      max_tokens=max_tokens)

    def groups(self, by: By = "tag", *, max_tools: int | None = None,
               max_tokens: int | None = None) -> list[Group]:
        """The functions as named tool lists within the limits
        (``httpllm.toolsets.groups.groups``); ``by``: ``"tag"``, ``"path"`` or
        ``(function) -> key``. Every function is in exactly one group; one alone over
        ``max_tokens`` is its own group, marked ``over``.

        Raises:
            HttpllmError: a bad ``by`` or a limit below 1.
            MissingTokenizer: ``max_tokens`` needs the ``tokens`` extra.
        """
        from httpllm.toolsets.groups import groups

        return groups(self, by=by, max_tools=max_tools, max_tokens=max_tokens)

    def deferred_tools(self, *, always: Sequence[str] | None = None, search: Search = "bm25",
                       namespaces: bool = True, by: By = "tag") -> list[JSON]:
        """The tool list with the provider's native deferred loading
        (``httpllm.toolsets.deferred.deferred_tools``): Anthropic ``defer_loading`` plus
        its tool-search tool, or OpenAI Responses ``tool_search`` with deferred functions
        in namespaces. ``always``: the functions to keep loaded (default: a documented
        rule); ``search``, ``namespaces``, ``by``: as there.

        Raises:
            DialectError: the provider has no native deferred loading.
            UnknownFunction: a name in ``always`` is no function here.
        """
        from httpllm.toolsets.deferred import deferred_tools

        return deferred_tools(self, always=always, search=search, namespaces=namespaces,
                              by=by)

    def lint(self, *, strict: Mapping[str, Eligibility] | None = None,
             max_tools: int | None = None, max_tokens: int | None = None,
             rules: Iterable[Rule] | None = None) -> list[Finding]:
        """The lint findings (``httpllm.toolsets.lint.lint``), one per operation and rule,
        each with its pointer and severity; ``rules``: the rules to run (default: every
        one, ``httpllm.toolsets.lint.RULES``).
        """
        from httpllm.toolsets.lint import RULES, lint

        return lint(self, strict=strict, max_tools=max_tools, max_tokens=max_tokens,
                    rules=RULES if rules is None else rules)

    def response_schema(self, function: Function) -> Schema | None:
        """``function``'s emended success response schema whole: ``function.output``,
        except for a dialect that bounds output schemas (``Dialect.output_max``: ``mcp``),
        whose ``output`` is the bounded one a listed tool carries. Code mode types what an
        operation resolves to from this (:mod:`httpllm.codemode.surface`). ``None``: no
        success response schema.
        """
        responses = self._deferred.responses
        if responses is None or self.dialect.output_max is None:
            return function.output
        return responses.output(function.pointer)

    def search(self, query: str, k: int = 10, *, tag: str | None = None) -> list[Function]:
        """The ``k`` functions that best serve ``query`` (a task in a user's words), best
        first; only those tagged ``tag`` when given. The index
        (:class:`httpllm.toolsets.search.SearchIndex`) is built on the first search, with
        the defaults, unless :meth:`search_index` built one.

        Raises:
            MissingExtra: the ``search`` extra is not installed.
        """
        from httpllm.toolsets.search import SearchIndex

        tags = self._deferred.tags
        index: SearchIndex = self._deferred.kept(
            "search", lambda: SearchIndex(self.functions, tags=tags))
        return index.search(query, k, tag=tag)

    def search_index(self, *, ranker: str | None = None, embedder: Any = None,
                     cache: bool = True) -> SearchIndex:
        """Build the search index with these options and keep it: :meth:`search` and the
        search -> describe -> invoke trio use it from now on. ``embedder``: ``"builtin"``,
        ``"fastembed:MODEL"``, an :class:`httpllm.toolsets.embedders.Embedder` or any
        ``callable(list[str]) -> list[list[float]]`` (a user's OpenAI embeddings ...).

        >>> app.search_index(embedder="fastembed:BAAI/bge-small-en-v1.5")  # doctest: +SKIP

        Raises:
            MissingExtra: the ``search`` extra, or the embedder's, is not installed.
            ValueError: an unknown ranker or embedder.
        """
        from httpllm.toolsets.search import SearchIndex

        index = SearchIndex(self.functions, ranker=ranker, embedder=embedder,
                            tags=self._deferred.tags, cache=cache)
        self._deferred.keep("search", index)
        return index

    def code_tools(self, *, api: str = "the API", k: int = 5,
                   execute_options: Mapping[str, Any] | None = None,
                   send: CodeSend | None = None, read_only: bool = False,
                   confirm: Confirm | None = None, limits: CodeLimits | None = None,
                   deno: str | None = None,
                   max_answer_chars: int | None = DEFAULT_BUDGET) -> CodeMode:
        """Code mode (:func:`httpllm.codemode.code_mode`): two tools, ``search_docs`` (the
        typed TypeScript module of this API, a few operations at a time) and ``execute``
        (a program against it, run in a sandbox that holds no credential), in this
        application's dialect; ``.tools`` for the provider's SDK, ``.handle(name,
        arguments)`` / ``.ahandle`` to answer their calls. The options are
        :func:`~httpllm.codemode.code_mode`'s (``execute_options``: ``auth``,
        ``base_url``, ``client`` ...).

        Raises:
            MissingExtra: Deno is not installed (``pip install 'httpllm[code]'``).
        """
        from httpllm.codemode import code_mode

        return code_mode(self, api=api, k=k, execute_options=execute_options, send=send,
                         read_only=read_only, confirm=confirm, limits=limits, deno=deno,
                         max_answer_chars=max_answer_chars)


@dataclass(slots=True, eq=False, kw_only=True)
class _Deferred:
    """What an :class:`Application` makes on first read, once, under one lock: the
    warnings that cost a serialization or a walk of the components, the response schemas,
    and what other layers keep with the application (the search index, code mode's typed
    module). The application holds no other mutable state.

    Attributes:
        warnings: the warnings made so far, in their order.
        responses: the response schemas, computed on first read (``None``: none recorded).
        request_cycles: the reference cycles among the parameters' named schemas.
        sized: warnings made on first read, each list inserted at its index in
            ``warnings`` (the tool list's size: serializing every tool costs a compile
            10 %).
        later: warnings made on first read after ``sized``, appended (they read what was
            told already: dangling ``$ref``s no operation reaches).
        tags: the document's tag descriptions by tag name (what the search index reads).
    """

    warnings: list[Warning]
    responses: Responses | None = None
    request_cycles: list[list[str]] = field(default_factory=list)
    sized: list[tuple[int, Callable[[], list[Warning]]]] = field(default_factory=list)
    later: list[Callable[[], list[Warning]]] = field(default_factory=list)
    tags: dict[str, str] = field(default_factory=dict)
    _kept: dict[Hashable, Any] = field(default_factory=dict)
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def all_warnings(self, *, outputs: bool) -> tuple[Warning, ...]:
        """Every warning, the deferred ones made now; ``outputs``: the dialect's tools
        carry response schemas, so theirs are computed (and warned about) too."""
        if self.responses is not None and outputs:
            self.responses.compute()
        with self._lock:  # two threads reading warnings must not run a check twice
            while self.sized:
                at, made = self.sized.pop()
                self.warnings[at:at] = made()
            while self.later:
                self.warnings.extend(self.later.pop()())
            return tuple(self.warnings)

    def cycles(self) -> list[list[str]]:
        """The cycles of the parameters' and the responses' named schemas, without
        repeats, sorted."""
        if self.responses is None:
            return sorted({tuple(c): c for c in self.request_cycles}.values())
        self.responses.compute()
        found = [*self.request_cycles, *self.responses.cycles]
        return sorted({tuple(c): c for c in found}.values())

    def kept(self, key: Hashable, make: Callable[[], _T]) -> _T:
        """The value kept under ``key``, made by ``make`` on the first call (once, whatever
        the threads)."""
        with self._lock:
            if key not in self._kept:
                self._kept[key] = make()
            found: _T = self._kept[key]
            return found

    def keep(self, key: Hashable, value: object) -> None:
        """Keep ``value`` under ``key`` in place of what was there."""
        with self._lock:
            self._kept[key] = value


def _tag_descriptions(root: Any) -> dict[str, str]:
    """The document's ``tags``: name -> description (strings only)."""
    tags = root.get("tags") if isinstance(root, dict) else None
    return {t["name"]: t.get("description") or "" for t in tags or ()
            if isinstance(t, dict) and isinstance(t.get("name"), str)
            and isinstance(t.get("description") or "", str)} if isinstance(tags, list) else {}


def _source(spec: Source, limits: Limits, warnings: list[Warning], *,
            root: str | os.PathLike[str] | None, allow_network: bool, allow_outside_root: bool
            ) -> tuple[Any, Loader, str, str, str | None]:
    """``compile``'s ``spec`` read: the document, the loader of the files it refers to,
    its base URI, its label in messages, and its URL when it was fetched (the default
    ``document_url``). Lone surrogates in what is read as text are U+FFFD, a warning in
    ``warnings`` says where; a ``dict`` document's strings are the caller's, as given."""
    if is_url(spec):  # fetched within the network gate; relative refs resolve against it
        base = str(spec).strip()
        label = shown_url(base)
        loader = Loader(None, limits=limits, allow_network=allow_network,
                        allow_outside_root=allow_outside_root, bound=root)
        loader.on_replaced = _replaced_warning(warnings, label)
        return loader.document(base), loader, base, label, without_userinfo(base)
    raw, path, label = source_of(spec, limits)
    if isinstance(raw, (Mapping, list)):
        document = string_keys(raw)
    else:
        document, replaced = without_lone_surrogates(
            load_text(raw, label=label, limits=limits), raw)
        if replaced:
            _replaced_warning(warnings, label)(label, replaced)
    loader = Loader(path, limits=limits, allow_network=allow_network,
                    allow_outside_root=allow_outside_root, bound=root)
    loader.on_replaced = _replaced_warning(warnings, label)
    return document, loader, path.as_uri() if path is not None else ROOT, label, None


def _replaced_warning(warnings: list[Warning], main: str) -> Callable[[str, list[str]], None]:
    """What tells ``warnings`` that the file ``label`` held lone surrogates at ``pointers``,
    replaced by U+FFFD (:func:`~httpllm.load.without_lone_surrogates`): one warning per
    file, at its first string (in another file than ``main``: the pointer after the file's
    name)."""

    def replaced(label: str, pointers: list[str]) -> None:
        shown = [p if label == main else f"{label}{p}" for p in pointers]
        warnings.append(Warning(pointer=shown[0], message=(
            f"{len(shown)} string(s) held a lone surrogate (a \\ud800-\\udfff escape "
            "without its pair, which no UTF-8 text spells: a provider's SDK or an MCP client "
            "would fail on the tools), replaced by U+FFFD: " + ", ".join(shown[:5])
            + (" ..." if len(shown) > 5 else ""))))

    return replaced


def _error(site: OperationSite, exc: HttpllmError, label: str | None = None) -> OperationError:
    """The operation's error; a message about another file (a referenced one that cannot
    be read ...) names that file."""
    message = exc.message
    if exc.source and exc.source != label and exc.source not in message:
        message = f"{exc.source}: {message}"
    return OperationError(method=site.method, path=site.path,
                          pointer=exc.pointer or site.pointer, message=message,
                          kind=type(exc).__name__)


@document_keywords  # each keyword's Args entry is its Options field's doc
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
    document_url: str | None = None,
    form_style: Literal["brackets", "repeat"] = "brackets",
    root: str | os.PathLike[str] | None = None,
) -> Application:
    """Compile a Swagger 2.0 or OpenAPI 3.0/3.1/3.2 document into one function per operation.

    Each keyword is the field of :class:`httpllm.dialects.Options` of its name, which
    ``Application.options`` keeps: its entry under Args is that field's documentation.

    Args:
        spec: a path, JSON/YAML text, bytes, an already-parsed ``dict``, or an
            ``http(s)://`` URL (fetched only with ``allow_network``; it is then the
            ``document_url`` unless one is given). A lone surrogate in what is read as
            text (a ``\\ud800`` escape without its pair, which UTF-8 cannot hold) becomes
            U+FFFD, with a warning; a ``dict``'s strings are used as given.
        provider: the dialect name (``"chatgpt"``, ``"3.1"`` ...; see
            ``httpllm.dialects.providers()``).

    Returns:
        The :class:`Application`. Operations that cannot be compiled are listed in
        ``errors``; the rest compile.

    Raises:
        UnknownDialect: ``provider`` is not registered (the message lists the known ones).
        OptionError: an option value cannot be used (``unroll=-1``, ``strict="yes"``, a
            ``root`` that is no folder, a ``document_url`` that is no absolute http(s) URL,
            an envelope the provider does not have, ``strict=True`` for a provider without
            a strict mode, ``limits`` changing a process-wide limit).
        LoadError: the source cannot be read or decoded (``LimitExceeded``, ``AccessDenied``).
        SpecError: not a Swagger 2.0 or OpenAPI 3.0/3.1/3.2 document.
    """
    options = options_of(locals())  # first: the locals are the keywords, as given
    dialect = get_dialect(provider)
    check_options(options, dialect)
    if dialect.variant is not None:
        dialect = dialect.variant(options)
    warnings: list[Warning] = []
    document, loader, base, label, url = _source(spec, limits, warnings, root=root,
                                                 allow_network=allow_network,
                                                 allow_outside_root=allow_outside_root)
    document_url = document_url or url
    upgraded = upgrade(document, loader=loader, base=base)
    loader.files[base] = upgraded.root
    resolver = Resolver(upgraded.root, base, loader)
    doc = parse(upgraded.root, resolver, label=label)

    said: set[tuple[str, str]] = set()

    def warn(at: str, message: str) -> None:
        # once: a named schema is emended per direction, and responses read it again
        if (at, message) not in said:
            said.add((at, message))
            warnings.append(Warning(pointer=upgraded.original(at), message=message))

    named = NamedSchemas(resolver, doc.version, warn)
    composer = Composer(doc, named, document_url, form_style)
    errors = list(doc.errors)
    drafts: list[Draft] = []
    for site in select(doc.sites, options.include, options.exclude, name_of=_name_of):
        try:
            drafts.append(composer.draft(site))
        except HttpllmError as exc:
            errors.append(_error(site, exc, label))
        except RecursionError:
            errors.append(_error(site, LimitExceeded("operation nests too deep")))
        except Exception as exc:  # a fault of ours: this operation only
            errors.append(_error(site, InternalError.of(exc)))
    failed = named.close((schema for draft in drafts for schema in draft.schemas()), "request")
    graph = named.finish()
    inliner = Inliner(named, reference=reference)
    responses = Responses(resolver, doc.version, reference=reference, warn=warn)
    renderer = Renderer(dialect, options, inliner.origins, output_names=responses.name_of,
                        claim=composer.pool.claim)
    # Every response is recorded before any function renders: a dialect that reads
    # ``output`` while rendering (mcp) computes them all at its first read.
    outputs = [None if draft.response is None else responses.add(draft.site.pointer,
                                                                  draft.response)
               for draft in drafts]
    bounds = (parameters_limit(len(drafts)), Sizes(), limits)
    functions = _finish_all(zip(drafts, outputs, strict=True), named, failed, errors, label,
                            lambda draft, output: _finish(draft, composer, inliner, renderer,
                                                          output, separate, warnings, bounds))
    warnings.extend(Warning(pointer="#/paths", message=problem)
                    for check in dialect.request_limits for problem in check(functions))
    sized_at = len(warnings)  # the size warnings' place: made on first read
    if not options.split_unions:  # variants are named apart on purpose
        warnings.extend(_renamed(functions, composer.pool.holder))
    if dialect.tool_limit is not None and len(functions) > dialect.tool_limit:
        warnings.append(Warning(pointer="#/paths", rule="tool-limit", message=(
            f"{len(functions)} tools exceed {dialect.name}'s limit of {dialect.tool_limit} "
            "per request; select fewer with include=/exclude=")))
    errors.sort(key=_in_document_order(upgraded.root, doc.sites))
    later: Callable[[], list[Warning]] = functools.partial(_unreached_refs, resolver, errors,
                                                           warnings)
    if upgraded.version:
        functions, errors, later = _originals(upgraded, functions, errors, later, warnings)
    return Application(provider=dialect.name, dialect=dialect, options=options,
                       functions=tuple(functions), errors=tuple(errors),
                       version=upgraded.version or doc.version,
                       operations=len(doc.sites) + len(doc.errors),
                       _deferred=_Deferred(
                           warnings=warnings, responses=responses, request_cycles=graph.cycles,
                           sized=[(sized_at, functools.partial(_size_warnings, functions,
                                                               dialect))],
                           later=[later], tags=_tag_descriptions(upgraded.root)))



def _in_document_order(root: Any, sites: Sequence[OperationSite]
                       ) -> Callable[[OperationError], tuple[int, int]]:
    """A sort key putting operation errors in the document's order (they are found stage by
    stage: parse, draft, render): by path, then by operation within the path item."""
    paths = root.get("paths") if isinstance(root, dict) else None
    path_rank = {path: i for i, path in enumerate(paths)} if isinstance(paths, dict) else {}
    site_rank = {(site.path, site.method): i for i, site in enumerate(sites)}
    return lambda e: (path_rank.get(e.path, len(path_rank)), site_rank.get((e.path, e.method), -1))


def _name_of(site: OperationSite) -> str:
    """The function name an operation gets before duplicates are told apart (what
    ``inspect`` and ``search`` show), for ``include=``/``exclude=``."""
    op_id = site.node.get("operationId")
    return sanitize(function_name(op_id if isinstance(op_id, str) else None, site.method,
                                  site.path))


_REF_IN_TEXT = re.compile(r"#/components/[^\s'\"()]+")
"""A pointer into the upgraded document's components, as messages quote a ``$ref``."""


def _originals(upgraded: Upgraded, functions: list[Function], errors: list[OperationError],
               later: Callable[[], list[Warning]], warnings: list[Warning],
               ) -> tuple[list[Function], list[OperationError], Callable[[], list[Warning]]]:
    """Errors, losses and later warnings of an upgraded document named at their original
    pointers (Swagger 2.0: ``#/definitions/...``), and the upgrade's own notes as warnings."""
    original = upgraded.original
    warnings.extend(Warning(pointer=n.pointer, message=n.message) for n in upgraded.notes)
    errors = [evolve(e, pointer=original(e.pointer), message=_REF_IN_TEXT.sub(
        lambda m: original(m.group()), e.message)) for e in errors]
    functions = [evolve(f, losses=distinct(evolve(x, pointer=original(x.pointer))
                                           for x in f.losses)) if f.losses else f
                 for f in functions]

    def translated() -> list[Warning]:
        return [Warning(pointer=original(w.pointer), message=w.message) for w in later()]

    return functions, errors, translated


def _size_warnings(functions: list[Function], dialect: Dialect) -> list[Warning]:
    """The tool list's size warnings (``dialects._sizes``): the whole list's at
    ``#/paths``, each tool's as ``tool-too-large``."""
    return [Warning(pointer=pointer, message=message,
                    rule="" if pointer == "#/paths" else "tool-too-large")
            for pointer, message in size_warnings(functions, dialect)]


def _renamed(functions: list[Function], holder: Callable[[str], str | None]
             ) -> list[Warning]:
    """A warning for each function whose name had to change to stay unique (a repeated
    ``operationId``, or two that sanitize alike, case aside): a model or a host calling it
    by the document's name would otherwise reach the other operation without a word.
    ``holder``: the name handed out that a name clashes with."""
    out = []
    for f in functions:
        wanted = sanitize(function_name(f.operation_id, f.method, f.path))
        if f.name != wanted:
            taken = holder(wanted) or wanted
            by = "" if taken == wanted else f" (as {taken!r}; names are unique, case aside)"
            out.append(Warning(pointer=f.pointer, message=(
                f"function name {wanted!r} is taken by an earlier operation{by}: this one "
                f"is named {f.name!r}")))
    return out


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


def _finish_all(drafts: Iterable[tuple[Draft, Callable[[], Any] | None]], named: NamedSchemas,
                failed: dict[str, HttpllmError], errors: list[OperationError], label: str | None,
                finish: Callable[[Draft, Callable[[], Any] | None], list[Function]],
                ) -> list[Function]:
    """``finish`` each draft (with its output), in order; a draft that cannot be finished, or
    reaches a named schema in ``failed``, is an error instead. A failed schema's error is
    reported, never raised: raised again, it would hold this frame, which holds it."""
    functions: list[Function] = []
    for draft, output in drafts:
        broken = named.broken(draft.schemas(), failed)  # at once when none failed
        if broken is not None:
            errors.append(_error(draft.site, broken, label))
            continue
        try:
            functions.extend(finish(draft, output))
        except HttpllmError as exc:
            errors.append(_error(draft.site, exc, label))
        except RecursionError:
            errors.append(_error(draft.site, LimitExceeded("operation nests too deep")))
        except Exception as exc:  # a fault of ours: this operation only
            errors.append(_error(draft.site, InternalError.of(exc)))
    return functions


def _finish(draft: Draft, composer: Composer, inliner: Inliner, renderer: Renderer,
            output: Callable[[], Any] | None, separate: Callable[[Argument], bool] | None,
            warnings: list[Warning], bounds: tuple[int, Sizes, Limits]) -> list[Function]:
    function = finish_bounded(draft, composer, inliner, separate, output,
                              lambda at, msg: warnings.append(Warning(pointer=at, message=msg)),
                              limit=bounds[0], sizes=bounds[1], limits=bounds[2])
    return renderer.render(function)  # one function per part when split (split_unions)
