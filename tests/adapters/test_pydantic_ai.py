"""pydantic-ai runs a turn with its FunctionModel: tool calls reach the echo server,
invalid arguments come back as a retry prompt and upstream failures as failed results."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

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
