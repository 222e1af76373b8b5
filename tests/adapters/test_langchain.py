"""LangChain runs a turn with GenericFakeChatModel: its tool calls go through the
StructuredTools to the echo server and come back as ToolMessages."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

import pytest

from .conftest import API_KEY, compiled

if TYPE_CHECKING:
    from langchain_core.language_models.fake_chat_models import GenericFakeChatModel


def _turn(live_server: str) -> tuple[list[object], GenericFakeChatModel, dict[str, object]]:
    from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
    from langchain_core.messages import AIMessage, HumanMessage

    from httpllm.adapters.langchain import tools

    app = compiled("chatgpt")
    model = GenericFakeChatModel(messages=iter([
        AIMessage(content="", tool_calls=[
            {"name": "getPet", "args": {"petId": 7}, "id": "c1", "type": "tool_call"},
            {"name": "createPet", "args": {"body": {"name": 5}}, "id": "c2",
             "type": "tool_call"},
        ]),
        AIMessage(content="Pet 7 found."),
    ]))
    by_name = {t.name: t for t in tools(app, auth={"key": API_KEY}, base_url=live_server)}
    return [HumanMessage("Find pet 7")], model, by_name


def _check(messages: list[object]) -> None:
    from langchain_core.messages import ToolMessage

    first, second = (m for m in messages if isinstance(m, ToolMessage))
    assert first.tool_call_id == "c1" and first.status == "success"
    assert json.loads(str(first.content))["raw_path"] == "/pets/7"
    assert API_KEY not in str(first.content)
    assert second.tool_call_id == "c2" and second.status == "error"
    assert "body/name: expected a string" in str(second.content)


def test_one_agent_turn(live_server: str) -> None:
    """A valid call answers with the echo; an invalid one with feedback and status error."""
    from langchain_core.messages import AIMessage

    messages, model, by_name = _turn(live_server)
    reply = model.invoke(messages)
    assert isinstance(reply, AIMessage)
    messages.append(reply)
    messages.extend(by_name[call["name"]].invoke(call) for call in reply.tool_calls)
    _check(messages)
    assert model.invoke(messages).content == "Pet 7 found."


@pytest.mark.anyio
async def test_one_async_agent_turn(live_server: str) -> None:
    """The tools' async bodies give the same messages."""
    messages, model, by_name = _turn(live_server)
    reply = await model.ainvoke(messages)
    messages.append(reply)
    for call in reply.tool_calls:
        messages.append(await by_name[call["name"]].ainvoke(call))
    _check(messages)
