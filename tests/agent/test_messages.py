"""Every provider with a tool-call format has a reader and a writer."""

from __future__ import annotations

import pytest

import httpllm
from httpllm.agent import MESSAGES, SHAPES, format_of
from httpllm.agent.calls import ToolCall
from httpllm.agent.outcome import Outcome
from httpllm.dialects import TOOL_CALL_FORMATS, Options, get_dialect

NO_CALLS = {"3.0", "3.1"}
"""Dialects that describe schemas only: no provider sends calls in them."""


def test_every_format_has_a_writer() -> None:
    """Formats read, formats written and the formats a `Dialect` may name are one list."""
    assert list(SHAPES) == list(MESSAGES) == list(TOOL_CALL_FORMATS)


@pytest.mark.parametrize("provider", httpllm.providers())
def test_every_provider_has_a_format(provider: str) -> None:
    """Each registered dialect but the schema-only ones maps to a tool-call format."""
    dialect = get_dialect(provider)
    if provider in NO_CALLS:
        with pytest.raises(httpllm.UnknownDialect):
            format_of(dialect, Options())
    else:
        assert format_of(dialect, Options()) in SHAPES


def test_responses_envelope() -> None:
    """OpenAI with envelope="responses" answers with function_call_output items."""
    assert format_of(get_dialect("chatgpt"), Options(envelope="responses")) == "responses"
    assert format_of(get_dialect("llama"), Options(envelope="responses")) == "responses"


def test_an_envelope_that_is_no_format() -> None:
    """Gemini's envelope variants name schema spellings, not formats: calls stay Gemini's."""
    assert format_of(get_dialect("gemini"), Options(envelope="json-schema")) == "gemini"


@pytest.mark.parametrize("fmt", sorted(MESSAGES))
def test_no_outcomes_no_messages(fmt: str) -> None:
    """No calls give no messages (never an empty user message)."""
    assert MESSAGES[fmt]([]) == []


@pytest.mark.parametrize(("fmt", "flag"), [
    ("anthropic", ("content", 0, "is_error")),
    ("bedrock", ("content", 0, "toolResult", "status")),
])
def test_failure_flags_only_on_failures(fmt: str, flag: tuple[object, ...]) -> None:
    """is_error / status: "error" are set on failures and absent on successes."""
    def flagged(ok: bool) -> object:
        node: object = MESSAGES[fmt]([Outcome(call=ToolCall(name="f", arguments={}, id="i"),
                                              ok=ok, text="t")])[0]
        for step in flag[:-1]:
            node = node[step]  # type: ignore[index]
        return node.get(flag[-1])  # type: ignore[attr-defined]

    assert flagged(True) is None and flagged(False) in (True, "error")
