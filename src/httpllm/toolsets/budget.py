"""The budget report: tokens, arguments, depth and strict eligibility per tool, and the
totals against each of the provider's limits (``httpllm inspect SPEC --budget``).

Limits are dialect data (``Dialect.tool_limit``, ``name_max``, ``description_max``,
``strict_tool_limit``, ``strict_depth_max``), each with its source in
``Dialect.limit_sources`` (as docs/provider-rules.md cites them); ``max_tools`` and
``max_tokens`` are the caller's own budget.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from httpllm._types import JSON, Schema
from httpllm.compose.names import transliterate
from httpllm.records import Function
from httpllm.toolsets._compiled import Compiled
from httpllm.toolsets.tokens import Tokenizer, count_tool, tokenizer_for
from httpllm.walk import fold

__all__ = ["Budget", "Limit", "ToolBudget", "budget", "depth", "properties",
           "strict_eligibility"]

Eligibility = tuple[bool | None, str]
"""``(eligible, reason)``: ``None`` when not checked (the reason says why)."""


@dataclass(frozen=True, slots=True, kw_only=True)
class ToolBudget:
    """One tool's line of the report.

    Attributes:
        name: the function name.
        pointer: the operation's JSON pointer.
        tokens: tokens of the tool as sent (see :func:`~httpllm.toolsets.tokens.count_tool`).
        parameters: arguments the model sees (top-level properties).
        depth: object/array levels of the parameters schema (the root object is level 1).
        strict: whether the tool can be strict; ``None``: not checked or no strict mode.
        reason: why not (or why not checked); ``""`` when strict.
    """

    name: str
    pointer: str
    tokens: int
    parameters: int
    depth: int
    strict: bool | None
    reason: str

    def to_json(self) -> dict[str, JSON]:
        """The line as a JSON object."""
        return {"name": self.name, "pointer": self.pointer, "tokens": self.tokens,
                "parameters": self.parameters, "depth": self.depth, "strict": self.strict,
                "reason": self.reason}


@dataclass(frozen=True, slots=True, kw_only=True)
class Limit:
    """A measured total against one limit.

    Attributes:
        name: what is limited (``"tools per request"``).
        value: the measured total.
        limit: the limit, or ``None`` when the provider documents none.
        source: where the limit comes from (a ``Dialect.limit_sources`` entry, or the
            option that set it).
        note: what the compile already did to stay within it (``"3 operationIds
            longer shortened with a hash"``), or ``""``.
    """

    name: str
    value: int
    limit: int | None
    source: str
    note: str = ""

    @property
    def over(self) -> bool:
        """Whether ``value`` passes ``limit``."""
        return self.limit is not None and self.value > self.limit

    def to_json(self) -> dict[str, JSON]:
        """The limit as a JSON object."""
        return {"name": self.name, "value": self.value, "limit": self.limit,
                "source": self.source, "over": self.over, "note": self.note}


@dataclass(frozen=True, slots=True, kw_only=True)
class Budget:
    """The whole report.

    Attributes:
        provider: the dialect name.
        tokenizer: the tokenizer's label (``"o200k_base (approximation)"``).
        exact: whether the tokenizer is the provider's own.
        tools: one :class:`ToolBudget` per function, in document order.
        total_tokens: tokens of the whole tool list as sent (``app.tools()``).
        limits: the totals against each limit.
    """

    provider: str
    tokenizer: str
    exact: bool
    tools: tuple[ToolBudget, ...]
    total_tokens: int
    limits: tuple[Limit, ...]

    def to_json(self) -> dict[str, JSON]:
        """The report as a JSON object."""
        return {"provider": self.provider, "tokenizer": self.tokenizer, "exact": self.exact,
                "total_tokens": self.total_tokens,
                "tools": [t.to_json() for t in self.tools],
                "limits": [limit.to_json() for limit in self.limits]}


def depth(schema: Schema) -> int:
    """Object/array levels of ``schema`` (``{"type": "object"}`` is 1; ``$ref`` is a leaf).

    A :func:`walk.fold <httpllm.walk.fold>`: shared subtrees are measured once.

    >>> depth({"type": "object", "properties": {"a": {"type": "array", "items": {}}}})
    2
    """
    return fold(schema, lambda node, below: max(below, default=0) + _is_container(node), 0)


def properties(schema: Schema) -> int:
    """Properties in ``schema`` in total, a shared subtree counted once per place it
    appears (as OpenAI's strict limit counts them; ``$ref`` is a leaf).

    >>> properties({"type": "object", "properties": {"a": {}, "b": {"properties": {"c": {}}}}})
    3
    """
    return fold(schema, _properties, 0)


def _properties(node: dict[str, Any], below: list[int]) -> int:
    own = node.get("properties")
    return (len(own) if isinstance(own, dict) else 0) + sum(below)


def _is_container(node: dict[str, Any]) -> int:
    kind = node.get("type")
    kinds = kind if isinstance(kind, list) else [kind]
    return int(any(isinstance(k, str) and k.lower() in ("object", "array") for k in kinds))


def strict_eligibility(app: Compiled) -> dict[str, Eligibility]:
    """Per function name: whether it is strict in ``app`` and, when not, why (the strict
    fallback's loss note). ``app`` should be compiled with ``strict=True``."""
    if not app.dialect.has_strict:
        return {f.name: (None, f"{app.provider} has no strict mode") for f in app.functions}
    if not app.options.strict:
        return {f.name: (None, "not checked (compile with --strict)") for f in app.functions}
    out: dict[str, Eligibility] = {}
    for f in app.functions:
        notes = [loss.note for loss in f.losses if loss.keyword == "strict"]
        out[f.name] = (f.strict, "" if f.strict else "; ".join(notes) or "not strict")
    return out


def budget(app: Compiled, *, strict: Mapping[str, Eligibility] | None = None,
           tokenizer: Tokenizer | None = None, max_tools: int | None = None,
           max_tokens: int | None = None) -> Budget:
    """The budget report of ``app``.

    Args:
        app: the compiled application.
        strict: strict eligibility by function name (:func:`strict_eligibility` of the
            same document compiled with ``strict=True``); default: from ``app`` itself.
        tokenizer: default: the provider's (:func:`~httpllm.toolsets.tokens.tokenizer_for`).
        max_tools: the caller's own limit on tools per request.
        max_tokens: the caller's own limit on the tool list's tokens.

    Raises:
        MissingTokenizer: the tokenizer's package is not installed.
    """
    tokenizer = tokenizer or tokenizer_for(app.dialect)
    strict = strict if strict is not None else strict_eligibility(app)
    envelope, options = app.dialect.envelope, app.options
    lines = []
    for f in app.functions:
        eligible, reason = strict.get(f.name, (None, "not compiled in strict mode"))
        schema = f.parameters
        props = schema.get("properties") if isinstance(schema, dict) else None
        lines.append(ToolBudget(
            name=f.name, pointer=f.pointer, tokens=count_tool(envelope(f, options), tokenizer),
            parameters=len(props) if isinstance(props, dict) else 0, depth=depth(schema),
            strict=eligible, reason=reason))
    total = tokenizer.count(json.dumps(app.tools(), separators=(",", ":"), ensure_ascii=False))
    limits = _limits(app, app.functions, lines, strict, max_tools, max_tokens, total)
    return Budget(provider=app.provider, tokenizer=tokenizer.label(), exact=tokenizer.exact,
                  tools=tuple(lines), total_tokens=total, limits=limits)


def _limits(app: Compiled, functions: Sequence[Function], lines: Sequence[ToolBudget],
            strict: Mapping[str, Eligibility], max_tools: int | None,
            max_tokens: int | None, total: int) -> tuple[Limit, ...]:
    dialect = app.dialect
    sources = dialect.limit_sources

    def limit(name: str, value: int, field: str, bound: int | None, note: str = "") -> Limit:
        return Limit(name=name, value=value, limit=bound, source=sources.get(field, ""),
                     note=note)

    # Names and descriptions are measured as sent: the compile already shortened or cut
    # what was longer, and the note says how many.
    hashed = sum(1 for f in functions
                 if len(transliterate(f.operation_id or "")) > dialect.name_max)
    cut = sum(1 for f in functions if _original_description(f) != f.description)
    out = [
        limit("tools per request", len(functions), "tool_limit", dialect.tool_limit),
        limit("longest name (characters)", max((len(f.name) for f in functions), default=0),
              "name_max", dialect.name_max,
              f"{hashed:,} longer operationId{'s' if hashed != 1 else ''} shortened with a "
              "hash" if hashed else ""),
        limit("longest description (characters)",
              max((len(f.description) for f in functions), default=0),
              "description_max", dialect.description_max,
              f"{cut:,} description{'s' if cut != 1 else ''} cut to the limit (a loss "
              "entry keeps each)" if cut else ""),
    ]
    if dialect.has_strict:
        eligible = sum(1 for ok, _ in strict.values() if ok)
        out.append(limit("strict-eligible tools per request", eligible, "strict_tool_limit",
                         dialect.strict_tool_limit))
        out.append(limit("deepest parameters (strict, levels)",
                         max((t.depth for t in lines), default=0), "strict_depth_max",
                         dialect.strict_depth_max))
        if dialect.strict_properties_max is not None:
            out.append(limit("most properties in one tool (strict)",
                             max((properties(f.parameters) for f in functions), default=0),
                             "strict_properties_max", dialect.strict_properties_max))
    if max_tools is not None:
        out.append(Limit(name="tools (--max-tools)", value=len(functions), limit=max_tools,
                         source="--max-tools"))
    if max_tokens is not None:
        out.append(Limit(name="tokens (--max-tokens)", value=total, limit=max_tokens,
                         source="--max-tokens"))
    return tuple(out)


def _original_description(function: Function) -> str:
    """The description before the provider's cut (the truncation loss keeps it)."""
    for loss in function.losses:
        if loss.keyword == "description" and loss.action == "truncated":
            return str(loss.value)
    return function.description
