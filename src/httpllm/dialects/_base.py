"""The :class:`Dialect` record and the context its rules receive."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal, TypeVar

from httpllm._memo import IdentityMemo
from httpllm._types import JSON, Schema
from httpllm.dialects._options import Options
from httpllm.loss import Action, Failure, Loss, Undo
from httpllm.pointer import escape
from httpllm.walk import FoldMemo

if TYPE_CHECKING:
    from httpllm.records import Function

__all__ = ["TOOL_CALL_FORMATS", "Dialect", "Options", "RenderContext", "Rule", "StrictLimit",
           "StrictObjects", "ToolCallFormat", "leaf_triggers", "rule_triggers"]

ToolCallFormat = Literal["chat", "responses", "anthropic", "gemini", "bedrock", "ollama",
                         "mistral", "mcp"]
"""The wire formats of a model's tool calls that ``httpllm.agent`` reads and answers."""

TOOL_CALL_FORMATS: tuple[ToolCallFormat, ...] = (
    "chat", "responses", "anthropic", "gemini", "bedrock", "ollama", "mistral", "mcp")
"""Every :data:`ToolCallFormat`, in the order ``httpllm.agent.calls.SHAPES`` lists them."""

StrictObjects = Literal["required", "sealed", "unsaid"]
"""What a dialect's strict mode does to the objects of a tool's schema, which the way back
(``execute.decode``, ``execute.validate``) must know to read a call as the model wrote it:

- ``"required"``: every object listing ``properties`` is closed and every property made
  required, an optional one by allowing ``null`` (OpenAI structured outputs, "all fields must
  be required"; DeepSeek): a ``null`` for an optional property means "not given".
- ``"sealed"``: every such object is closed, optional properties stay optional (Anthropic
  and Bedrock strict tool use, Mistral): a ``null`` is the model's own value.
- ``"unsaid"``: the schema is sent as written and the provider's grammar closes only the
  objects that do not say ``additionalProperties`` (vLLM's xgrammar, ``ParseObject``).
"""


@dataclass(slots=True)
class RenderContext:
    """What a dialect rule may know besides the node.

    ``pointer`` is kept current by the walker; :meth:`lose` is the only way a rule may
    drop or rewrite something.
    """

    dialect: Dialect
    options: Options
    losses: list[Loss] = field(default_factory=list)
    pointer: str = "#"
    problems: list[Failure] = field(default_factory=list)
    strict: bool = False
    memo: dict[Any, Any] = field(default_factory=dict)
    """Shared by every walk of one compile and dialect: see :meth:`identity_memo`."""

    def identity_memo(self, key: str) -> IdentityMemo[Any]:
        """The :class:`~httpllm._memo.IdentityMemo` a rule keeps under its own ``key`` for
        what it built from a (shared) node, made on first use and kept for the compile."""
        found: IdentityMemo[Any] | None = self.memo.get(key)
        if found is None:
            found = self.memo[key] = IdentityMemo()
        return found

    def lose(self, keyword: str, action: Action, value: Any = None, note: str = "", *,
             undo: Undo = "") -> None:
        """Record that ``keyword`` of the current node was dropped or rewritten; ``undo``
        says what ``execute.decode`` undoes of it (:data:`~httpllm.loss.Undo`)."""
        self.losses.append(Loss(pointer=f"{self.pointer}/{escape(keyword)}", keyword=keyword,
                                action=action, value=value, dialect=self.dialect.name,
                                note=note, undo=undo))

    def fail(self, message: str) -> None:
        """Record that the current node cannot be expressed (a :class:`~httpllm.loss.Failure`
        in :attr:`problems`: in strict mode the function falls back to non-strict, otherwise
        it is reported as an error)."""
        self.problems.append(Failure(pointer=self.pointer, reason=message))


Rule = Callable[[dict[str, Any], RenderContext], Schema]
"""A node rule: ``(node, ctx) -> node``, children already rendered; same object if unchanged."""

_R = TypeVar("_R", bound=Callable[..., Any])

_TRIGGERS = "leaf_triggers"


def leaf_triggers(*keywords: str) -> Callable[[_R], _R]:
    """Declare of a node rule the keywords that may make it act on a leaf: on a node
    without subschemas whose ``type`` is one string other than ``"object"``, whose
    keywords the dialect all keeps (in the mode at hand) and none of which is one of
    ``keywords``, the rule gives the node back itself and records nothing (no loss, no
    failure, no pointer read), whatever the keywords' values. Strict walks skip such
    leaves when every rule of the dialect declares this (:func:`rule_triggers`); most
    of a document's nodes are ``{"type": "string", ...}`` leaves that no strict rule
    changes. A rule without the declaration is given every leaf."""

    def mark(rule: _R) -> _R:
        setattr(rule, _TRIGGERS, frozenset(keywords))
        return rule

    return mark


def rule_triggers(rule: Callable[..., Any]) -> frozenset[str] | None:
    """The keywords :func:`leaf_triggers` declared of ``rule``, or ``None`` (undeclared:
    the rule may act on any leaf)."""
    found = getattr(rule, _TRIGGERS, None)
    return found if isinstance(found, frozenset) else None


StrictLimit = Callable[[Schema, FoldMemo], list[str]]
"""A check of a strict mode's size limits: ``(parameters, memo) -> problems``, called with
the rendered parameters (as sent) and one ``memo`` of the check's own for every schema
it sees in a compile (the functions, or the parts of one unrolling: they share subtrees,
measured once): a :class:`~httpllm.walk.FoldMemo`, to give :func:`~httpllm.walk.fold`, or
a dict by node id whose nodes the check holds (in ``memo.held`` or in its entries), as
ids are reused once a node is freed. A check that needs no memo ignores it. A problem is
a sentence; any makes the function leave strict mode with a ``fallback`` loss quoting
it."""


@dataclass(frozen=True, slots=True, kw_only=True)
class Dialect:
    """One provider's rules, as data plus a few node rules.

    Attributes:
        name: registry name (``"chatgpt"``), lower-hyphen.
        keywords: schema keywords the provider keeps; any other is moved into the
            description (constraints) or dropped, with a loss entry. ``None``: all.
        strict_keywords: the keywords kept in strict mode (``None``: as ``keywords``).
        refs: what becomes of the ``$ref``s and root ``$defs`` a function keeps (recursive
            named schemas; all of them with ``reference=True``); the render steps
            ``unroll_refs`` and ``unroll_rendered`` read it. ``"keep"``: sent as they
            are. ``"inline"``: the provider has no ``$ref``: expanded before the rules,
            recursion ``Options.unroll`` levels deep, else the function is reported.
            ``"on-request"``: sent, unless ``Options.unroll`` is given: then expanded in
            the rendered schema, so the tool has no ``$defs`` (vLLM merges every tool's
            ``$defs`` into one map).
        strict_recursion: whether strict mode takes a recursive ``$ref`` (default
            ``True``). ``False`` (Anthropic strict: "recursive schemas are not
            supported"): a strict function whose rendered ``$defs`` are recursive is
            unrolled ``Options.unroll`` levels (all its ``$defs`` expanded), or falls
            back to non-strict.
        one_of: whether an exclusive union (a document ``oneOf`` whose alternatives may
            overlap, which ``validate`` enforces as ``oneOf``) is spelled ``oneOf`` where
            the keyword is kept; ``False`` (the default): ``anyOf``, with a ``rewritten``
            loss. ``True`` only where every rule reads a ``oneOf`` as well as an ``anyOf``
            (the JSON Schema targets ``3.1`` and ``mcp``). Source: JSON Schema 2020-12
            section 10.2.1.3.
        name_max: longest function name, in characters.
        name_pattern: regular expression a function name must match.
        argument_characters: the characters an argument's name (a top-level property
            key of the parameters) may hold, as the inside of a regular-expression
            character class holding ``_``, ``a-z`` and ``0-9`` (a new name may need
            them: :func:`~httpllm.compose.names.argument_name`); ``None`` (the default):
            any. With ``argument_max`` it makes :attr:`argument_pattern`; the render step
            ``rename_arguments`` renames each argument the pattern refuses (a
            ``renamed`` loss; the request still sends the document's name). Anthropic:
            ``"a-zA-Z0-9_.-"``: the Messages API refuses the whole tool list with a 400
            when a key of ``input_schema.properties`` does not match
            ``^[a-zA-Z0-9_.-]{1,64}$`` ("Property keys should match pattern", [issue]
            anthropics/claude-code#79418, ComposioHQ/composio#3500); Claude through
            Bedrock Converse the same ([issue]
            aws-solutions-library-samples/accelerated-intelligent-document-processing-on-aws#709,
            which also reports that keys of nested objects are not checked: ``httpllm
            lint`` lists them).
        argument_max: the longest argument name, in characters (``None``, the default:
            no limit). Anthropic: 64, as above.
        description_max: longest function description, in characters (``None``: no limit).
        tool_limit: most tools in one request (``None``: unknown).
        rules: node rules, applied in order to every node, children first.
        strict_rules: extra node rules for ``Options.strict`` (``()``: no strict mode).
        strict_objects: what strict mode does to objects (:data:`StrictObjects`), stated
            beside ``strict_rules`` (which must do it); the default is OpenAI's
            ``"required"``.
        strict_limits: checks of the strict mode's size limits, each a
            :data:`StrictLimit`: ``(parameters, memo) -> problems``.
        request_limits: checks of limits that hold for a whole request (all tools sent
            together, e.g. Anthropic's 20 strict tools); each takes the compiled
            functions and returns problems, reported as warnings of the application.
        native_examples: whether the envelope sends ``Function.extra["input_examples"]``
            (Anthropic ``input_examples``); otherwise examples go into the description.
        finish: ``(parameters, function, ctx) -> parameters`` applied once to the root.
        envelope: ``(function, options) -> tool`` the provider's wire shape.
        group: ``(tools) -> tools``: the per-function envelopes as the provider's request
            takes them (Gemini: one ``Tool`` holding every declaration); ``None``: as is.
        envelopes: the envelope variants ``Options.envelope`` may name, the default first
            (``()``: only the default, ``envelope=None``).
        outputs: whether the envelope carries each function's success response schema
            (``Function.output``); only then does a compile's ``warnings`` compute the
            response schemas.
        output_max: most bytes of compact JSON a function's output schema may have in
            the tool (``None``, the default: the output as compiled, unchanged). Where
            set, the render step ``outputs`` bounds each output
            (:func:`httpllm.compose.prune.bound`: repeats shared, deep levels cut, a
            ``cut`` loss) and applies the dialect's rules to it (ECMA-262 patterns for
            MCP). MCP: 16 KiB (issue 28: a client compiles a validator per output
            schema when it lists).
        variant: ``(options) -> dialect``: the record to use for these options (Gemini's
            ``envelope="json-schema"`` has other rules); ``None``: this one.
        decodes: tool-call values differ from the operation's (a string enum for an
            integer one, JSON text for an object): ``execute.decode`` must restore them
            from ``Function.schema``; the renderer sets ``Function.extra["decode"]`` (also
            for any dialect under ``collapse_deep``).
        aliases: other registry names.
        source: the provider documentation these facts come from.
        strict_tool_limit: most strict tools in one request (``None``: no documented
            limit). Anthropic: 20 (strict tool use).
        strict_depth_max: most object nesting levels a strict schema may have (``None``:
            none documented). OpenAI structured outputs: 10.
        strict_properties_max: most properties a strict schema may have in total
            (``None``: none documented). OpenAI structured outputs: 5,000.
        tokenizer: the provider's own tokenizer for token counts (``httpllm.toolsets.tokens``
            names: ``"o200k_base"``, ``"tekken"``); ``None``: none is published as a
            package, counts are approximated (see ``toolsets.tokens.APPROXIMATION``).
        tool_search: the provider's native deferred loading (``"anthropic"``: tools with
            ``defer_loading`` plus a tool-search tool; ``"openai"``: Responses
            ``tool_search`` with deferred functions in namespaces); ``None``: none.
        tool_calls: the wire format of the provider's tool calls and of the results
            answered to them (:data:`ToolCallFormat`), which ``Application.handle`` reads
            and writes; an ``Options.envelope`` that names a format wins (OpenAI's
            ``"responses"``). ``None`` (the default): the dialect has no tool calls
            (``"3.1"``, ``"3.0"``): ``handle`` needs ``format=``.
        limit_sources: where each limit field's value comes from, by field name
            (``{"tool_limit": "[issue] microsoft/vscode#259392"}``), as
            docs/provider-rules.md cites them.
    """

    name: str
    keywords: frozenset[str] | None
    strict_keywords: frozenset[str] | None = None
    refs: Literal["keep", "inline", "on-request"] = "keep"
    strict_recursion: bool = True
    one_of: bool = False
    name_max: int = 64
    name_pattern: str = r"^[a-zA-Z0-9_-]{1,64}$"
    argument_characters: str | None = None
    argument_max: int | None = None
    description_max: int | None = None
    tool_limit: int | None = None
    rules: tuple[Rule, ...] = ()
    strict_rules: tuple[Rule, ...] = ()
    strict_objects: StrictObjects = "required"
    strict_limits: tuple[StrictLimit, ...] = ()
    request_limits: tuple[Callable[[Sequence[Function]], list[str]], ...] = ()
    native_examples: bool = False
    finish: Callable[[Schema, Function, RenderContext], Schema] | None = None
    envelope: Callable[[Function, Options], JSON] = lambda f, o: f.to_json()
    group: Callable[[list[JSON]], list[JSON]] | None = None
    envelopes: tuple[str, ...] = ()
    outputs: bool = False
    output_max: int | None = None
    variant: Callable[[Options], Dialect] | None = None
    decodes: bool = False
    aliases: tuple[str, ...] = ()
    source: str = ""
    strict_tool_limit: int | None = None
    strict_depth_max: int | None = None
    strict_properties_max: int | None = None
    tokenizer: str | None = None
    tool_search: Literal["anthropic", "openai"] | None = None
    tool_calls: ToolCallFormat | None = None
    limit_sources: Mapping[str, str] = field(default_factory=dict, compare=False)

    @property
    def has_strict(self) -> bool:
        """Whether the dialect has a strict mode."""
        return bool(self.strict_rules)

    def kept_keywords(self, strict: bool) -> frozenset[str] | None:
        """The keywords the dialect keeps in strict mode or outside it (``None``: all):
        :attr:`strict_keywords` in strict mode when given, else :attr:`keywords`.

        >>> Dialect(name="x", keywords=frozenset({"a", "b"}),
        ...         strict_keywords=frozenset({"a"})).kept_keywords(True)
        frozenset({'a'})
        """
        if strict and self.strict_keywords is not None:
            return self.strict_keywords
        return self.keywords

    @property
    def argument_pattern(self) -> str | None:
        """The regular expression every argument name must match in full, made of
        ``argument_characters`` and ``argument_max``; ``None``: any name.

        >>> Dialect(name="x", keywords=None, argument_characters="a-z_.-",
        ...         argument_max=64).argument_pattern
        '^[a-z_.-]{1,64}$'
        """
        if self.argument_characters is None and self.argument_max is None:
            return None
        characters = r"[\s\S]" if self.argument_characters is None else (
            f"[{self.argument_characters}]")
        count = "+" if self.argument_max is None else f"{{1,{self.argument_max}}}"
        return f"^{characters}{count}$"
