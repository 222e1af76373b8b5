"""Calls are read from responses, messages and lists, SDK objects or dicts; anything
that is not a call of the format raises with a pointer."""

from __future__ import annotations

import pytest
from sdk import lazy

from httpllm.agent.calls import ToolCall, read_calls
from httpllm.errors import CallError, UnknownDialect

from .providers import PROVIDERS

anthropic_types = lazy("anthropic.types")
genai = lazy("google.genai.types")


def test_chat_message_and_list_read_alike() -> None:
    """A ChatCompletion, its message and its tool_calls list give the same calls."""
    response = PROVIDERS["chatgpt"].build([("c1", "getPet", {"petId": 1})])
    message = response.choices[0].message
    expected = [ToolCall(name="getPet", arguments='{"petId": 1}', id="c1",
                         pointer="#/choices/0/message/tool_calls/0")]
    assert read_calls(response, "chat") == expected
    assert [c.name for c in read_calls(message, "chat")] == ["getPet"]
    assert read_calls(message.tool_calls, "chat")[0].pointer == "#/0"


def test_other_blocks_are_skipped() -> None:
    """Text blocks and parts beside the calls are not calls and are skipped."""
    message = PROVIDERS["claude"].build([("t1", "getPet", {"petId": 1})])
    assert isinstance(message.content[0], anthropic_types.TextBlock)
    [call] = read_calls(message.content, "anthropic")
    assert (call.id, call.arguments, call.pointer) == ("t1", {"petId": 1}, "#/1")
    parts = [genai.Part(text="hi"), genai.Part(function_call=genai.FunctionCall(name="getPet"))]
    [call] = read_calls(parts, "gemini")
    assert (call.id, call.name, call.arguments) == (None, "getPet", None)


def test_mistral_common_assistant_message() -> None:
    """mistral-common's own AssistantMessage is read like the mistralai SDK's."""
    from mistral_common.protocol.instruct.messages import AssistantMessage
    from mistral_common.protocol.instruct.tool_calls import FunctionCall
    from mistral_common.protocol.instruct.tool_calls import ToolCall as Call

    message = AssistantMessage(tool_calls=[Call(id="abcdefghi", function=FunctionCall(
        name="getPet", arguments='{"petId": 1}'))])
    [call] = read_calls(message, "mistral")
    assert (call.id, call.name, call.arguments) == ("abcdefghi", "getPet", '{"petId": 1}')


def test_one_call_passed_alone() -> None:
    """A lone Responses function_call item is read as one call."""
    [call] = read_calls({"type": "function_call", "call_id": "c9", "name": "getPet",
                         "arguments": "{}"}, "responses")
    assert (call.id, call.pointer) == ("c9", "#")


@pytest.mark.parametrize(("response", "fmt", "pointer"), [
    ("text", "chat", "#"),
    ({"choices": []}, "chat", "#"),
    ([{"type": "custom", "custom": {"name": "x"}}], "chat", "#/0"),
    ({"content": [{"type": "tool_use", "name": "getPet", "input": {}}]}, "anthropic",
     "#/content/0"),
    ([{"toolUse": {"toolUseId": "b1"}}], "bedrock", "#/0"),
    ([3], "anthropic", "#/0"),
])
def test_not_a_call_raises(response: object, fmt: str, pointer: str) -> None:
    """What is not a call of the format (or lacks its id or name) raises CallError there."""
    with pytest.raises(CallError) as info:
        read_calls(response, fmt)
    assert info.value.pointer == pointer


@pytest.mark.parametrize(("response", "pointer"), [
    ([{"name": "getPet", "arguments": {}}, {"arguments": {"petId": 1}}], "#/1"),
    ([{"name": 5, "arguments": {}}], "#/0"),
    ({"arguments": {}}, "#"),
    ({"jsonrpc": "2.0", "method": "tools/call", "params": {"arguments": {}}}, "#/params"),
])
def test_an_mcp_call_without_a_name_raises_as_in_every_format(response: object,
                                                             pointer: str) -> None:
    """An MCP call without a usable name is refused with CallError at its pointer, as a
    Chat, Responses or Claude call without one is: it was skipped as no call, so
    ``handle`` answered nothing for it without a word (a lone one in ``params`` said only
    that no list of calls was found, at ``#``)."""
    with pytest.raises(CallError, match="needs a function name") as info:
        read_calls(response, "mcp")
    assert info.value.pointer == pointer


def test_unknown_format_raises() -> None:
    """An unknown format names the known ones."""
    with pytest.raises(UnknownDialect, match="anthropic, bedrock, chat"):
        read_calls([], "telepathy")
