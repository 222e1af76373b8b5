"""Each provider's response, built with its SDK's own types, and its result messages
checked against its SDK's own request-side types.

A :class:`Provider` builds a response holding given calls ``(id, name, arguments)`` and
reads the messages ``handle`` returned back as ``(id, name, text, failed)`` rows, after
validating them with the SDK's request types (TypedDicts through pydantic's
``TypeAdapter`` with no key outside the TypedDict, pydantic models with ``model_validate``,
Bedrock through botocore's own parameter validator of ``Converse``).
"""

from __future__ import annotations

import functools
import json
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from pydantic import TypeAdapter
from sdk import lazy

anthropic_types = lazy("anthropic.types")
botocore_session = lazy("botocore.session")
botocore_validate = lazy("botocore.validate")
genai = lazy("google.genai.types")
mistral_common_messages = lazy("mistral_common.protocol.instruct.messages")
mistral_models = lazy("mistralai.client.models")
ollama = lazy("ollama")
openai_chat = lazy("openai.types.chat")
openai_choice = lazy("openai.types.chat.chat_completion")
openai_tool_call = lazy("openai.types.chat.chat_completion_message_function_tool_call")
openai_responses = lazy("openai.types.responses")
openai_input = lazy("openai.types.responses.response_input_param")

Call = tuple[str, str, Any]
"""``(id, name, arguments)``: arguments a dict (sent as the provider does) or JSON text."""
Row = tuple[str | None, str | None, str, bool]
"""``(id, name, text, failed)`` read back from a result message."""


def conforms(typed: Any, value: Any) -> Any:
    """``value`` validated as the TypedDict ``typed``, with no key the TypedDict lacks."""
    assert set(value) <= set(typed.__annotations__), set(value) - set(typed.__annotations__)
    return TypeAdapter(typed).validate_python(value)


def joined(content: Any) -> str:
    """A result's text: the string, or its text parts joined by newlines (an answer and
    its note travel as two parts, so the answer part stays JSON)."""
    if isinstance(content, str):
        return content
    return "\n".join(part["text"] for part in content)


def _text(arguments: Any) -> str:
    return arguments if isinstance(arguments, str) else json.dumps(arguments)


def _object(arguments: Any) -> Any:
    return json.loads(arguments) if isinstance(arguments, str) else arguments


@dataclass(frozen=True)
class Provider:
    """How one provider's responses are built and its result messages read."""

    provider: str
    build: Callable[[list[Call]], Any]
    read: Callable[[list[dict[str, Any]]], list[Row]]
    options: dict[str, Any] = field(default_factory=dict)
    ids: bool = True


def _chat_build(calls: list[Call]) -> openai_chat.ChatCompletion:
    tool_calls = [openai_chat.ChatCompletionMessageFunctionToolCall(
        id=i, type="function", function=openai_tool_call.Function(name=n, arguments=_text(a)))
        for i, n, a in calls]
    message = openai_chat.ChatCompletionMessage(role="assistant", content=None,
                                                tool_calls=tool_calls)
    return openai_chat.ChatCompletion(
        id="chatcmpl-1", object="chat.completion", created=0, model="gpt",
        choices=[openai_choice.Choice(index=0, finish_reason="tool_calls", message=message)])


def _chat_read(messages: list[dict[str, Any]]) -> list[Row]:
    rows: list[Row] = []
    for m in messages:
        checked = conforms(openai_chat.ChatCompletionToolMessageParam, m)
        rows.append((checked["tool_call_id"], None, joined(checked["content"]), False))
    return rows


def _responses_build(calls: list[Call]) -> openai_responses.Response:
    output: list[Any] = [openai_responses.ResponseOutputMessage(
        id="msg_1", type="message", role="assistant", status="completed",
        content=[{"type": "output_text", "text": "Let me look.", "annotations": []}])]
    output += [openai_responses.ResponseFunctionToolCall(
        type="function_call", id=f"fc_{i}", call_id=i, name=n, arguments=_text(a))
        for i, n, a in calls]
    return openai_responses.Response(id="resp_1", created_at=0, model="gpt", object="response",
                                     output=output, parallel_tool_calls=True,
                                     tool_choice="auto", tools=[])


def _responses_read(messages: list[dict[str, Any]]) -> list[Row]:
    rows: list[Row] = []
    for m in messages:
        checked = conforms(openai_input.FunctionCallOutput, m)
        assert set(m) == {"type", "call_id", "output"} and m["type"] == "function_call_output"
        rows.append((checked["call_id"], None, joined(checked["output"]), False))
    return rows


def _anthropic_build(calls: list[Call]) -> anthropic_types.Message:
    content: list[Any] = [anthropic_types.TextBlock(type="text", text="Let me look.")]
    content += [anthropic_types.ToolUseBlock(type="tool_use", id=i, name=n, input=_object(a))
                for i, n, a in calls]
    return anthropic_types.Message(id="msg_1", type="message", role="assistant", model="claude",
                                   content=content, stop_reason="tool_use",
                                   usage=anthropic_types.Usage(input_tokens=1, output_tokens=1))


def _anthropic_read(messages: list[dict[str, Any]]) -> list[Row]:
    [message] = messages  # one user message holds every result
    assert set(message) == {"role", "content"} and message["role"] == "user"
    rows: list[Row] = []
    for block in message["content"]:  # each block on its own (see docs/pitfalls.md)
        checked = conforms(anthropic_types.ToolResultBlockParam, block)
        rows.append((checked["tool_use_id"], None, joined(checked["content"]),
                     checked.get("is_error", False)))
    return rows


def _gemini_build(calls: list[Call]) -> genai.GenerateContentResponse:
    parts = [genai.Part(text="Let me look.")]
    parts += [genai.Part(function_call=genai.FunctionCall(id=i or None, name=n, args=_object(a)))
              for i, n, a in calls]
    return genai.GenerateContentResponse(candidates=[genai.Candidate(
        content=genai.Content(role="model", parts=parts))])


def _gemini_read(messages: list[dict[str, Any]]) -> list[Row]:
    [message] = messages
    content = genai.Content.model_validate(message)
    assert content.role == "user" and content.parts
    rows: list[Row] = []
    for part in content.parts:
        response = part.function_response
        assert response is not None and response.response is not None
        [(key, text), *note] = response.response.items()
        assert [k for k, _ in note] in ([], ["note"])
        rows.append((response.id, response.name, joined([{"text": text}, *(
            {"text": v} for _, v in note)]), key == "error"))
    return rows


@functools.cache
def _converse() -> Any:
    """botocore's model of bedrock-runtime (read once, when a Bedrock test first needs it)."""
    return botocore_session.get_session().get_service_model("bedrock-runtime")


def _bedrock_build(calls: list[Call]) -> dict[str, Any]:
    content: list[Any] = [{"text": "Let me look."}]
    content += [{"toolUse": {"toolUseId": i, "name": n, "input": _object(a)}}
                for i, n, a in calls]
    return {"output": {"message": {"role": "assistant", "content": content}},
            "stopReason": "tool_use", "usage": {"inputTokens": 1, "outputTokens": 1,
                                                "totalTokens": 2}}


def _bedrock_read(messages: list[dict[str, Any]]) -> list[Row]:
    [message] = messages
    shape = _converse().operation_model("Converse").input_shape
    report = botocore_validate.ParamValidator().validate({"modelId": "m", "messages": messages},
                                                         shape)
    assert not report.has_errors(), report.generate_report()
    rows: list[Row] = []
    for block in message["content"]:
        result = block["toolResult"]
        rows.append((result["toolUseId"], None, joined(result["content"]),
                     result.get("status") == "error"))
    return rows


def _ollama_build(calls: list[Call]) -> ollama.ChatResponse:
    tool_calls = [ollama.Message.ToolCall(function=ollama.Message.ToolCall.Function(
        name=n, arguments=_object(a))) for _, n, a in calls]
    return ollama.ChatResponse(model="llama", message=ollama.Message(
        role="assistant", content="", tool_calls=tool_calls))


def _ollama_read(messages: list[dict[str, Any]]) -> list[Row]:
    rows: list[Row] = []
    for m in messages:
        checked = ollama.Message.model_validate(m)
        assert set(m) == {"role", "content", "tool_name"} and checked.role == "tool"
        rows.append((None, checked.tool_name, str(checked.content), False))
    return rows


def _mistral_build(calls: list[Call]) -> Any:
    tool_calls = [mistral_models.ToolCall(id=i, function=mistral_models.FunctionCall(
        name=n, arguments=_text(a))) for i, n, a in calls]
    return mistral_models.ChatCompletionResponse(
        id="cmpl-1", object="chat.completion", model="mistral-large", created=0,
        usage=mistral_models.UsageInfo(prompt_tokens=1, completion_tokens=1, total_tokens=2),
        choices=[mistral_models.ChatCompletionChoice(
            index=0, finish_reason="tool_calls",
            message=mistral_models.AssistantMessage(content="", tool_calls=tool_calls))])


def _mistral_read(messages: list[dict[str, Any]]) -> list[Row]:
    rows: list[Row] = []
    for m in messages:
        checked = mistral_models.ToolMessage.model_validate(m)
        mistral_common_messages.ToolMessage.model_validate(m)
        assert checked.role == "tool"
        rows.append((checked.tool_call_id, checked.name, joined(m["content"]), False))
    return rows


PROVIDERS = {
    "chatgpt": Provider("chatgpt", _chat_build, _chat_read),
    "chatgpt-strict": Provider("chatgpt", _chat_build, _chat_read, {"strict": True}),
    "llama": Provider("llama", _chat_build, _chat_read),
    "responses": Provider("chatgpt", _responses_build, _responses_read,
                          {"envelope": "responses", "strict": True}),
    "claude": Provider("claude", _anthropic_build, _anthropic_read),
    "claude-strict": Provider("claude", _anthropic_build, _anthropic_read, {"strict": True}),
    "gemini": Provider("gemini", _gemini_build, _gemini_read),
    "gemini-json-schema": Provider("gemini", _gemini_build, _gemini_read,
                                   {"envelope": "json-schema"}),
    "bedrock": Provider("bedrock", _bedrock_build, _bedrock_read),
    "ollama": Provider("ollama", _ollama_build, _ollama_read, ids=False),
    "mistral": Provider("mistral", _mistral_build, _mistral_read),
}
"""Every provider whose dialect has a tool-call format (MCP: see test_runner)."""
