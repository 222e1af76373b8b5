"""Lint: what in a document makes worse tools, per operation with its pointer.

:data:`RULES` is the table: each rule is a small check ``(context) -> findings`` with a
name and a severity. ``error`` means the tools would be refused or cannot be built (exit
status 1 of ``httpllm lint``); ``warning`` means the model sees less than the document
says; ``info`` is worth a look.

Errors:

- ``compile-error``: an operation that could not be compiled;
- ``tools-over-limit``: more tools than the provider accepts in one request
  (``Dialect.tool_limit``);
- ``tools-over-budget``: more tools than ``--max-tools``, or more tokens than
  ``--max-tokens``.

Warnings:

- ``no-description``: an operation with neither ``summary`` nor ``description``;
- ``description-cut``: a description cut to the provider's limit (``description_max``);
- ``name-hashed``: an ``operationId`` over 64 characters (transliterated), cut and hashed;
- ``name-unrecognizable``: a name sanitized until it no longer reads as its
  (transliterated) ``operationId`` (``difflib`` similarity below :data:`_RECOGNIZABLE`);
- ``duplicate-description``: the same description on several operations;
- ``too-many-parameters``: more than :data:`MAX_ARGUMENTS` arguments;
- ``tool-too-large``: a tool (name, description, parameters) over :data:`TOOL_TOKENS`
  tokens, a tenth of a 128k-token context window, by itself;
- ``strict-fallback``: a tool that cannot be strict, and why;
- ``union-flattened``: a union (``anyOf``/``oneOf``/``allOf``/type list) the provider
  rewrites;
- ``enum-unsatisfiable``: a ``const`` or ``enum`` no value can meet, as every keyword
  applies (JSON Schema 2020-12 Validation sections 6.1.1-6.1.3): a ``const`` outside its
  ``enum`` (as JSON values: ``true`` is not ``1``) or of another ``type``, an ``enum``
  none of whose values is of the ``type`` (``type: integer, enum: ["a"]``), an empty
  ``enum``; ``validate`` refuses every value, which the tool may still offer;
- ``enum-type-mismatch``: an ``enum`` some of whose values are not of the schema's
  ``type``: the model may be offered them, ``validate`` refuses them.

Info:

- ``no-operation-id``: a name made from the method and path;
- ``near-duplicate-description``: descriptions with the same words in another order,
  case or punctuation (the ``"GET /path"`` that compile writes for an operation without
  summary or description is not the author's text and is left out, here and in
  ``duplicate-description``);
- ``argument-renamed``: an argument named otherwise than the provider takes
  (``Dialect.argument_pattern``), renamed for the model (the request still sends the
  document's name);
- ``nested-property-key``: property keys inside the arguments that the same pattern
  refuses, sent as written (Claude is reported to check only the top-level keys).
"""

from __future__ import annotations

import difflib
import json
import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from httpllm._json import utf8_size
from httpllm._types import JSON
from httpllm.compose.names import NAME_MAX, transliterate
from httpllm.dialects._sizes import TOOL_TOKENS as _TOOL_TOKENS
from httpllm.loss import Loss
from httpllm.normalize._context import value_key
from httpllm.normalize.mixed_types import matches
from httpllm.pointer import escape
from httpllm.records import Function
from httpllm.toolsets._compiled import Compiled
from httpllm.toolsets.budget import Eligibility, strict_eligibility
from httpllm.toolsets.tokens import Tokenizer, tokenizer_for
from httpllm.walk import nodes

__all__ = ["MAX_ARGUMENTS", "RULES", "TOOL_TOKENS", "Finding", "LintContext", "Rule",
           "Severity", "lint"]

Severity = Literal["error", "warning", "info"]

MAX_ARGUMENTS = 20
"""Arguments past which ``too-many-parameters`` warns: httpllm's own threshold (no
provider documents one; each argument is one more thing for the model to fill)."""

TOOL_TOKENS = _TOOL_TOKENS  # 12,800, the same as compile's warning (dialects._sizes)
"""Tokens past which one tool is ``tool-too-large``: a tenth of a 128,000-token context
window, the smallest of the current models the dialects serve (OpenAI GPT-4o and GPT-4.1
mini, Llama 3.1, Mistral Large 2, DeepSeek V3: 128k; Claude: 200k), which a model pays on
every request before any message. Kubernetes' ``createBatchV1NamespacedJob`` had 70,000
(issue 26); compile keeps parameters within ``compose.bounded.PARAMETERS_MAX`` (about
12,000 tokens), so a finding means the rest of the tool (its description) is large, or a
dialect made it grow. Counted with the dialect's tokenizer (the ``tokens`` extra), else
estimated at 4 bytes of JSON a token."""

_RECOGNIZABLE = 0.6
"""Least ``difflib`` similarity between a name and its ``operationId`` (lower case)."""

_UNION_KEYWORDS = frozenset({"anyOf", "oneOf", "allOf"})


@dataclass(frozen=True, slots=True, kw_only=True)
class Finding:
    """One finding.

    Attributes:
        rule: the rule's name (``"description-cut"``).
        severity: ``"error"``, ``"warning"`` or ``"info"``.
        pointer: where, spelled like a ``$ref`` (the operation, or ``"#/paths"`` for the
            whole tool list).
        message: what was found, one line.
        function: the function's name, or ``None`` for the whole tool list.
    """

    rule: str
    severity: Severity
    pointer: str
    message: str
    function: str | None = None

    def to_json(self) -> dict[str, JSON]:
        """The finding as a JSON object."""
        return {"rule": self.rule, "severity": self.severity, "pointer": self.pointer,
                "function": self.function, "message": self.message}


@dataclass(slots=True, kw_only=True)
class LintContext:
    """What the rules read: the application, the strict eligibility, the caller's limits."""

    app: Compiled
    strict: Mapping[str, Eligibility]
    max_tools: int | None = None
    max_tokens: int | None = None
    tokenizer: Callable[[], Tokenizer] | None = None
    enum_hits: dict[str, tuple[list[str], list[str]]] | None = field(default=None,
                                                                     repr=False)
    """Filled on first read by :func:`_enum_hits`, for both enum rules."""


@dataclass(frozen=True, slots=True, kw_only=True)
class Rule:
    """A lint rule: a name, a severity and a check yielding ``(pointer, message, function)``."""

    name: str
    severity: Severity
    check: Callable[[LintContext], Iterable[tuple[str, str, str | None]]]


def _compile_errors(ctx: LintContext) -> Iterable[tuple[str, str, str | None]]:
    for error in ctx.app.errors:
        where = f"{error.method.upper()} {error.path}".strip()
        yield error.pointer, f"{where} could not be compiled: {error.message}", None


def _tools_over_limit(ctx: LintContext) -> Iterable[tuple[str, str, str | None]]:
    dialect, count = ctx.app.dialect, len(ctx.app.functions)
    if dialect.tool_limit is not None and count > dialect.tool_limit:
        source = dialect.limit_sources.get("tool_limit", dialect.source)
        defer = " or defer them (compile --defer)" if dialect.tool_search else ""
        yield "#/paths", (f"{count} tools; {dialect.name} accepts at most "
                          f"{dialect.tool_limit} per request ({source}): group them "
                          f"(compile --group-by){defer}"), None


def _tools_over_budget(ctx: LintContext) -> Iterable[tuple[str, str, str | None]]:
    count = len(ctx.app.functions)
    if ctx.max_tools is not None and count > ctx.max_tools:
        yield "#/paths", f"{count} tools; --max-tools allows {ctx.max_tools}", None
    if ctx.max_tokens is not None and ctx.tokenizer is not None:
        import json

        tokenizer = ctx.tokenizer()
        total = tokenizer.count(json.dumps(ctx.app.tools(), separators=(",", ":"),
                                           ensure_ascii=False))
        if total > ctx.max_tokens:
            yield "#/paths", (f"the tool list has {total:,} tokens ({tokenizer.label()}); "
                              f"--max-tokens allows {ctx.max_tokens:,}"), None


def _generated(f: Function) -> bool:
    """Whether the description is compose's, not the author's: an operation without
    summary or description is described ``"GET /path"``."""
    return f.description.strip() in ("", f"{f.method.upper()} {f.path}")


def _no_description(ctx: LintContext) -> Iterable[tuple[str, str, str | None]]:
    for f in ctx.app.functions:
        if _generated(f):
            yield f.pointer, "no summary or description: the model sees only the name", f.name


def _description_cut(ctx: LintContext) -> Iterable[tuple[str, str, str | None]]:
    limit = ctx.app.dialect.description_max
    for f in ctx.app.functions:
        for loss in f.losses:
            if loss.keyword == "description" and loss.action == "truncated":
                length = len(str(loss.value))
                yield loss.pointer, (f"description of {length:,} characters cut to {limit:,} "
                                     f"for {ctx.app.provider}"), f.name


def _name_hashed(ctx: LintContext) -> Iterable[tuple[str, str, str | None]]:
    """Measured as names are made, transliterated (``compose.names.transliterate``: a
    ``获取宠物`` of 4 characters is 12)."""
    for f in ctx.app.functions:
        raw = f.operation_id or ""
        length = len(transliterate(raw))
        if length > NAME_MAX:
            spelled = "" if raw.isascii() else " transliterated"
            yield f.pointer, (f"operationId of {length} characters{spelled} "
                              f"{raw[:40]!r}... became {f.name!r}"), f.name


def _name_unrecognizable(ctx: LintContext) -> Iterable[tuple[str, str, str | None]]:
    """Compared with the transliterated ``operationId`` (``getCafé`` reads as
    ``getCafe``)."""
    for f in ctx.app.functions:
        raw = f.operation_id
        plain = transliterate(raw or "")
        if not raw or len(plain) > NAME_MAX or plain == f.name:
            continue
        ratio = difflib.SequenceMatcher(None, plain.lower(), f.name.lower()).ratio()
        if ratio < _RECOGNIZABLE:
            yield f.pointer, f"operationId {raw!r} became {f.name!r}", f.name


def _no_operation_id(ctx: LintContext) -> Iterable[tuple[str, str, str | None]]:
    for f in ctx.app.functions:
        if not f.operation_id:
            yield f.pointer, f"no operationId: named {f.name!r} from the method and path", f.name


_SPACE = re.compile(r"\s+")
_WORD = re.compile(r"[a-z0-9]{3,}")


def _by_text(ctx: LintContext) -> dict[str, list[Function]]:
    """The functions by their description, leaving out generated ones (``"GET /a"`` and
    ``"GET /b"`` are not the author's text: ``no-description`` reports them)."""
    found: dict[str, list[Function]] = {}
    for f in ctx.app.functions:
        text = _SPACE.sub(" ", f.description).strip()
        if text and not _generated(f):
            found.setdefault(text, []).append(f)
    return found


def _others(f: Function, group: list[Function]) -> str:
    names = [g.name for g in group if g is not f]
    more = f" and {len(names) - 3} more" if len(names) > 3 else ""
    return ", ".join(names[:3]) + more


def _duplicate_description(ctx: LintContext) -> Iterable[tuple[str, str, str | None]]:
    for group in _by_text(ctx).values():
        if len(group) > 1:
            for f in group:
                yield f.pointer, f"same description as {_others(f, group)}", f.name


def _near_duplicate_description(ctx: LintContext) -> Iterable[tuple[str, str, str | None]]:
    by_words: dict[frozenset[str], list[tuple[str, Function]]] = {}
    for text, group in _by_text(ctx).items():
        words = frozenset(_WORD.findall(text.lower()))
        if words:
            by_words.setdefault(words, []).extend((text, f) for f in group)
    for members in by_words.values():
        if len({text for text, _ in members}) < 2:
            continue
        for text, f in members:
            near = [f, *(g for t, g in members if t != text)]
            yield f.pointer, ("description differs only in word order, case or punctuation "
                              f"from {_others(f, near)}"), f.name


def _too_many_parameters(ctx: LintContext) -> Iterable[tuple[str, str, str | None]]:
    for f in ctx.app.functions:
        shown = [a for a in f.arguments if not a.separated]
        if len(shown) > MAX_ARGUMENTS:
            yield f.pointer, (f"{len(shown)} arguments (more than {MAX_ARGUMENTS}): consider "
                              "separate=... for host-supplied ones"), f.name


def _estimate(text: str) -> int:
    return utf8_size(text) // 4


def _tool_too_large(ctx: LintContext) -> Iterable[tuple[str, str, str | None]]:
    import json

    from httpllm.toolsets.tokens import MissingTokenizer

    count: Callable[[str], int] = _estimate
    how = "estimated at 4 bytes a token"
    try:
        if ctx.tokenizer is not None:
            tokenizer = ctx.tokenizer()
            count, how = tokenizer.count, tokenizer.label()
    except MissingTokenizer:
        pass
    for f in ctx.app.functions:
        text = json.dumps([f.name, f.description, f.parameters], ensure_ascii=False,
                          separators=(",", ":"))
        if utf8_size(text) <= TOOL_TOKENS:  # a token is at least one byte: cannot be over
            continue
        tokens = count(text)
        if tokens > TOOL_TOKENS:
            yield f.pointer, (f"{f.name} alone has {tokens:,} tokens ({how}), over "
                              f"{TOOL_TOKENS:,} (a tenth of a 128k-token context window): "
                              "serve it with --mode discover, leave it out (--exclude), or "
                              "put it in a group of its own"), f.name


def _strict_fallback(ctx: LintContext) -> Iterable[tuple[str, str, str | None]]:
    for f in ctx.app.functions:
        eligible, reason = ctx.strict.get(f.name, (None, ""))
        if eligible is False:
            yield f.pointer, f"not strict: {reason}", f.name


def _union_flattened(ctx: LintContext) -> Iterable[tuple[str, str, str | None]]:
    for f in ctx.app.functions:
        hits = [loss for loss in f.losses if _flattens(loss)]
        if hits:
            first = hits[0]
            more = f" (and {len(hits) - 1} more)" if len(hits) > 1 else ""
            yield first.pointer, (f"{first.keyword} {first.action} for {ctx.app.provider}"
                                  f"{': ' + first.note if first.note else ''}{more}"), f.name


def _flattens(loss: Loss) -> bool:
    """A union member dropped or moved into a description, or a type list cut to one type
    (an equivalent rewrite, such as Gemini's ``nullable: true``, is not flattening)."""
    if loss.keyword in _UNION_KEYWORDS:
        return loss.action != "rewritten"
    if loss.keyword == "type" and isinstance(loss.value, list):
        return len([kind for kind in loss.value if kind != "null"]) > 1
    return False


_SHOWN = 80
"""Most characters of a value a message shows (as ``validate``'s messages do)."""


def _shown(value: Any) -> str:
    text = json.dumps(value, ensure_ascii=False, separators=(",", ":"), default=str)
    return text if len(text) <= _SHOWN else text[: _SHOWN - 1] + "…"


def _enum_problem(node: dict[str, Any]) -> tuple[bool, str] | None:
    """``(whether no value is left, what)`` of a node's ``const``/``enum`` that its other
    keywords contradict (its ``enum``, its ``type``), or ``None``. An empty enum is
    ``not: {}`` in ``Function.schema`` (``normalize.kinds``: Ajv refuses it)."""
    if node.get("not") == {}:
        return True, "an empty enum (not: {})"
    enum = node["enum"] if isinstance(node.get("enum"), list) else None
    kind = node.get("type")
    kinds = [kind] if isinstance(kind, str) else (
        [k for k in kind if isinstance(k, str)] if isinstance(kind, list) else None)
    named = " or ".join(kinds or ())
    if "const" in node:
        const = node["const"]
        if enum is not None and value_key(const) not in {value_key(v) for v in enum}:
            return True, f"const {_shown(const)} is not in its enum {_shown(enum)}"
        if kinds and not any(matches(const, k) for k in kinds):
            return True, f"const {_shown(const)} is not {named}"
        return None
    if enum is None:
        return None
    if not enum:
        return True, "an empty enum"
    bad = [v for v in enum if kinds and not any(matches(v, k) for k in kinds)]
    if not bad:
        return None
    if len(bad) == len(enum):
        return True, f"no value of its enum {_shown(enum)} is {named}"
    return False, f"enum values {_shown(bad)} are not {named}"


def _enum_hits(ctx: LintContext) -> dict[str, tuple[list[str], list[str]]]:
    """Per function name, the nodes of its schema (``Function.schema``, what ``validate``
    checks: the document's consts, enums and types) whose enum problem leaves some values
    (first) or none (second), each as ``"<pointer>: <what>"``: one walk of each schema for
    both enum rules, kept on ``ctx``."""
    if ctx.enum_hits is None:
        ctx.enum_hits = {}
        for f in ctx.app.functions:
            hits: tuple[list[str], list[str]] = ([], [])
            for node, at in nodes(f.schema, "parameters#"):
                found = _enum_problem(node)
                if found is not None:
                    hits[found[0]].append(f"{at}: {found[1]}")
            ctx.enum_hits[f.name] = hits
    return ctx.enum_hits


def _enum_findings(ctx: LintContext, unsatisfiable: bool, then: str
                   ) -> Iterable[tuple[str, str, str | None]]:
    """One finding per function: the first node of its schema with such a problem
    (:func:`_enum_hits`), and how many more."""
    found = _enum_hits(ctx)
    for f in ctx.app.functions:
        hits = found[f.name][unsatisfiable]
        if hits:
            more = f" (and {len(hits) - 1} more)" if len(hits) > 1 else ""
            yield f.pointer, f"{hits[0]}: {then}{more}", f.name


def _enum_unsatisfiable(ctx: LintContext) -> Iterable[tuple[str, str, str | None]]:
    return _enum_findings(ctx, True, "no value can be given there (validate refuses each)")


def _enum_type_mismatch(ctx: LintContext) -> Iterable[tuple[str, str, str | None]]:
    return _enum_findings(ctx, False, "the model may be offered them, validate refuses them")


def _argument_renamed(ctx: LintContext) -> Iterable[tuple[str, str, str | None]]:
    for f in ctx.app.functions:
        for loss in f.losses:
            if loss.keyword == "name" and loss.action == "renamed":
                yield f.pointer, loss.note, f.name


_KEYS_SHOWN = 5
"""Keys named in one ``nested-property-key`` finding (the rest are counted)."""


def _nested_property_key(ctx: LintContext) -> Iterable[tuple[str, str, str | None]]:
    dialect = ctx.app.dialect
    pattern = dialect.argument_pattern
    if pattern is None:
        return
    fits = re.compile(pattern).fullmatch
    for f in ctx.app.functions:
        refused = [f"{key!r} ({at}/properties/{escape(key)})"
                   for node, at in nodes(f.parameters, "parameters#") if at != "parameters#"
                   and isinstance(node.get("properties"), dict)
                   for key in node["properties"] if not fits(key)]
        if refused:
            more = f" and {len(refused) - _KEYS_SHOWN} more" if len(refused) > _KEYS_SHOWN else ""
            yield f.pointer, (f"property keys inside the arguments that do not match "
                              f"{pattern}: {', '.join(refused[:_KEYS_SHOWN])}{more}; sent as "
                              f"written ({dialect.name} is reported to check only the "
                              "argument names, which are renamed)"), f.name


RULES: tuple[Rule, ...] = (
    Rule(name="compile-error", severity="error", check=_compile_errors),
    Rule(name="tools-over-limit", severity="error", check=_tools_over_limit),
    Rule(name="tools-over-budget", severity="error", check=_tools_over_budget),
    Rule(name="no-description", severity="warning", check=_no_description),
    Rule(name="description-cut", severity="warning", check=_description_cut),
    Rule(name="name-hashed", severity="warning", check=_name_hashed),
    Rule(name="name-unrecognizable", severity="warning", check=_name_unrecognizable),
    Rule(name="duplicate-description", severity="warning", check=_duplicate_description),
    Rule(name="too-many-parameters", severity="warning", check=_too_many_parameters),
    Rule(name="tool-too-large", severity="warning", check=_tool_too_large),
    Rule(name="strict-fallback", severity="warning", check=_strict_fallback),
    Rule(name="union-flattened", severity="warning", check=_union_flattened),
    Rule(name="enum-unsatisfiable", severity="warning", check=_enum_unsatisfiable),
    Rule(name="enum-type-mismatch", severity="warning", check=_enum_type_mismatch),
    Rule(name="no-operation-id", severity="info", check=_no_operation_id),
    Rule(name="near-duplicate-description", severity="info",
         check=_near_duplicate_description),
    Rule(name="argument-renamed", severity="info", check=_argument_renamed),
    Rule(name="nested-property-key", severity="info", check=_nested_property_key),
)
"""Every rule, in the order findings are reported."""


def lint(app: Compiled, *, strict: Mapping[str, Eligibility] | None = None,
         max_tools: int | None = None, max_tokens: int | None = None,
         rules: Iterable[Rule] = RULES) -> list[Finding]:
    """The findings of ``rules`` on ``app``, rule by rule, each in document order.

    Args:
        app: the compiled application.
        strict: strict eligibility by function name
            (:func:`~httpllm.toolsets.budget.strict_eligibility` of a ``strict=True``
            compile); default: from ``app`` (checked only when it was compiled strict).
        max_tools: the caller's limit on tools per request.
        max_tokens: the caller's limit on the tool list's tokens (needs the ``tokens``
            extra).
        rules: the rules to run.

    Raises:
        MissingTokenizer: ``max_tokens`` without the ``tokens`` extra.
    """
    ctx = LintContext(app=app, strict=strict if strict is not None else strict_eligibility(app),
                      max_tools=max_tools, max_tokens=max_tokens,
                      tokenizer=lambda: tokenizer_for(app.dialect))
    return [Finding(rule=rule.name, severity=rule.severity, pointer=pointer, message=message,
                    function=function)
            for rule in rules for pointer, message, function in rule.check(ctx)]
