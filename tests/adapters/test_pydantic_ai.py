"""pydantic-ai runs a turn with its FunctionModel: tool calls reach the echo server,
invalid arguments come back as a retry prompt and upstream failures as failed results; code
mode's two tools run a program of three calls, and one that does not type-check is a
failed result."""

from __future__ import annotations

import json
import os
from typing import TYPE_CHECKING

import pytest

from .conftest import API_KEY, compiled

if TYPE_CHECKING:
    from pydantic_ai.messages import ModelMessage
    from pydantic_ai.models.function import AgentInfo


def _parts(messages: list[ModelMessage]) -> list[object]:
    from pydantic_ai.messages import ModelRequest

    return [p for m in messages if isinstance(m, ModelRequest) for p in m.parts]


def test_one_agent_turn(live_server: str) -> None:
    """A valid call, an invalid one (retried), and an upstream 500 (failed) in one turn."""
    from pydantic_ai import Agent
    from pydantic_ai.messages import (
        ModelResponse,
        RetryPromptPart,
        TextPart,
        ToolCallPart,
        ToolReturnPart,
    )
    from pydantic_ai.models.function import FunctionModel

    from httpllm.adapters.pydantic_ai import toolset

    app = compiled("3.1")

    def model(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        assert [t.name for t in info.function_tools] == ["listPets", "createPet", "getPet"]
        if len(messages) == 1:
            return ModelResponse(parts=[
                ToolCallPart("getPet", {"petId": 7}, tool_call_id="c1"),
                ToolCallPart("getPet", {"petId": "seven"}, tool_call_id="c2"),
                ToolCallPart("listPets", {"x-echo-status": "500"}, tool_call_id="c3"),
            ])
        return ModelResponse(parts=[TextPart("done")])

    agent = Agent(FunctionModel(model),
                  toolsets=[toolset(app, auth={"key": API_KEY}, base_url=live_server)])
    result = agent.run_sync("Find pet 7")
    assert result.output == "done"
    parts = {getattr(p, "tool_call_id", None): p for p in _parts(result.all_messages())}
    returned = parts["c1"]
    assert isinstance(returned, ToolReturnPart)
    assert json.loads(str(returned.content))["raw_path"] == "/pets/7"
    retry = parts["c2"]
    assert isinstance(retry, (ToolReturnPart, RetryPromptPart)) and "petId" in str(retry.content)
    assert getattr(retry, "outcome", "retried") == "retried"  # a retry prompt, not a result
    failed = parts["c3"]
    assert isinstance(failed, ToolReturnPart) and "HTTP 500" in str(failed.content)
    assert failed.outcome == "failed"
    assert API_KEY not in json.dumps([str(p) for p in parts.values()])


def _deno() -> str:
    """Deno for code mode: skipped without it, failed when the `CI` variable is set."""
    from httpllm.codemode.sandbox import find_deno
    from httpllm.errors import MissingExtra

    try:
        return find_deno()
    except MissingExtra as exc:
        if os.environ.get("CI"):
            pytest.fail(exc.message, pytrace=False)
        pytest.skip(exc.message)


PROGRAM = """
const a = await api.getPet({ petId: 7 }) as any;
const b = await api.getPet({ petId: 8 }) as any;
const listed = await api.listPets({ limit: 2 }) as any;
const key = a.headers.find((h: string[]) => h[0] === "x-api-key")[1];
console.log([a.raw_path, b.raw_path, `${listed.raw_path}?${listed.query_string}`].join(" "), key);
"""


def test_code_mode_turns(live_server: str) -> None:
    """The model searches the declarations, runs a program of three calls and reads its
    filtered output (the host's key sent, shown to no one); a program that does not
    type-check is a failed result the model can rewrite, with nothing sent."""
    from pydantic_ai import Agent
    from pydantic_ai.messages import ModelResponse, TextPart, ToolCallPart, ToolReturnPart
    from pydantic_ai.models.function import FunctionModel

    from httpllm.adapters.pydantic_ai import code_toolset

    app = compiled("3.1", reference=True)
    code = app.code_tools(execute_options={"auth": {"key": API_KEY}, "base_url": live_server},
                          deno=_deno())

    def model(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        assert [t.name for t in info.function_tools] == ["search_docs", "execute"]
        if len(messages) == 1:
            return ModelResponse(parts=[ToolCallPart("search_docs", {"query": "get a pet"},
                                                     tool_call_id="s1")])
        if len(messages) == 3:
            return ModelResponse(parts=[
                ToolCallPart("execute", {"code": PROGRAM}, tool_call_id="x1"),
                ToolCallPart("execute", {"code": "const n: number = api.getPet;"},
                             tool_call_id="x2")])
        return ModelResponse(parts=[TextPart("done")])

    try:
        result = Agent(FunctionModel(model), toolsets=[code_toolset(code)]).run_sync("pets")
    finally:
        code.sandbox.close()
    assert result.output == "done"
    parts = {getattr(p, "tool_call_id", None): p for p in _parts(result.all_messages())}
    docs, ran, failed = parts["s1"], parts["x1"], parts["x2"]
    assert isinstance(docs, ToolReturnPart) and "getPet(args: {" in str(docs.content)
    assert isinstance(ran, ToolReturnPart) and ran.outcome == "success"
    assert ran.content == "/pets/7 /pets/8 /pets?limit=2 [redacted]"
    assert isinstance(failed, ToolReturnPart) and failed.outcome == "failed"
    assert "does not type-check" in str(failed.content) and "line 1" in str(failed.content)
    assert API_KEY not in json.dumps([str(p) for p in parts.values()])
