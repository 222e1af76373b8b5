"""The dialect record's helpers (dialects/_base.py): rules' leaf triggers."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from httpllm.dialects import Options, RenderContext, get_dialect, providers
from httpllm.dialects._base import leaf_triggers, rule_triggers
from httpllm.dialects._keywords import exclusive_unions
from httpllm.render import plain_leaf, strict_leaf
from httpllm.walk import is_leaf

_VALUES: list[Any] = ["x", "", 0, 3, 2.5, True, None, ["a", 1, None], {"k": {"v": 1}}, []]
"""Values of every kind: a declaration holds whatever the keywords' values."""

_TYPES = ("string", "integer", "number", "boolean", "null", "array", "file")


def test_a_declaration_is_read_back_and_an_undeclared_rule_has_none() -> None:
    """`leaf_triggers` marks the rule itself; a rule without it has no triggers."""

    @leaf_triggers("format", "enum")
    def rule(node: dict[str, Any], ctx: RenderContext) -> Any:
        return node

    assert rule_triggers(rule) == frozenset({"format", "enum"})
    assert rule_triggers(lambda node, ctx: node) is None
    assert rule_triggers(leaf_triggers()(lambda node, ctx: node)) == frozenset()


def _gated() -> list[str]:
    return [name for name in providers()
            if strict_leaf(get_dialect(name), Options(strict=True)) is not None]


def test_the_strict_dialects_of_openai_and_anthropic_skip_leaves() -> None:
    """Their rules all declare their triggers (the gate is what makes strict cheap)."""
    assert {"chatgpt", "claude"} <= set(_gated())


def _gated_leaves(gate: Callable[[dict[str, Any]], Any], keep: frozenset[str]
                  ) -> list[dict[str, Any]]:
    """Every leaf of each type with one kept keyword of each value kind that ``gate``
    lets through, and per type one leaf with all of those keywords together."""
    leaves: list[dict[str, Any]] = []
    for kind in _TYPES:
        together = {"type": kind}
        for keyword in sorted(keep - {"type"}):
            for value in _VALUES:
                leaf = {"type": kind, keyword: value}
                if is_leaf(leaf) and gate(leaf) is leaf:
                    leaves.append(leaf)
                    together[keyword] = value
        leaves.append(together)
    assert len(leaves) > len(_TYPES)
    return leaves


@pytest.mark.parametrize("provider", _gated())
def test_every_rule_keeps_a_leaf_its_dialects_gate_skips(provider: str) -> None:
    """For each dialect with a gate: a leaf (no subschema keyword) the gate lets through
    unvisited (each type but object, each keyword, each kind of value, alone and all
    together) is
    given back by every rule of the strict walk, with no loss and no failure."""
    dialect = get_dialect(provider)
    options = Options(strict=True)
    gate = strict_leaf(dialect, options)
    assert gate is not None
    rules = (exclusive_unions, *dialect.rules, *dialect.strict_rules)
    keep = dialect.strict_keywords or dialect.keywords or frozenset({"description", "title"})
    leaves = _gated_leaves(gate, keep)
    for leaf in leaves:
        assert gate(leaf) is leaf
        ctx = RenderContext(dialect=dialect, options=options, strict=True)
        for rule in rules:
            assert rule(leaf, ctx) is leaf, (provider, rule, leaf)
        assert not ctx.losses and not ctx.problems, (provider, leaf)


_KEYWORDS = frozenset({"description", "title", "format", "enum", "const", "default", "pattern",
                       "minLength", "maxLength", "minimum", "maximum", "multipleOf",
                       "minItems", "maxItems", "uniqueItems", "readOnly", "deprecated",
                       "examples", "nullable", "x-vendor"})
"""Keywords a leaf may carry, for a dialect that keeps all of them (``keywords=None``)."""


@pytest.mark.parametrize("provider", [
    name for name in providers() if plain_leaf(get_dialect(name), Options()) is not None])
def test_every_rule_keeps_a_leaf_its_dialects_plain_gate_skips(provider: str) -> None:
    """:func:`plain_leaf` (what ``StepContext.inert`` skips, MCP's among them): a leaf it
    lets through is given back by every rule of the walk that is not strict
    (``exclusive_unions`` and the dialect's rules), with no loss and no failure."""
    dialect = get_dialect(provider)
    options = Options()
    gate = plain_leaf(dialect, options)
    assert gate is not None
    keep = dialect.keywords or _KEYWORDS
    leaves = _gated_leaves(gate, keep)
    for leaf in leaves:
        assert gate(leaf) is leaf
        ctx = RenderContext(dialect=dialect, options=options, strict=False)
        for rule in (exclusive_unions, *dialect.rules):
            assert rule(leaf, ctx) is leaf, (provider, rule, leaf)
        assert not ctx.losses and not ctx.problems, (provider, leaf)
