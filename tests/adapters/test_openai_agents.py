"""The OpenAI Agents SDK runs a turn with its ScriptedModel: tool calls reach the echo
server and their results go back to the model."""

from __future__ import annotations

import json

import pytest

from .conftest import API_KEY, compiled

pytestmark = pytest.mark.anyio


@pytest.mark.slow
async def test_one_agent_turn(live_server: str) -> None:
    """A valid, an invalid and an upstream-failed call: the echo answer, the validator's
    feedback and the failure come back to the model as the calls' outputs."""
    from agents import Agent, RunConfig, Runner
    from agents.testing import ScriptedModel, assistant_message, function_call

    from httpllm.adapters.openai_agents import function_tools

    app = compiled("chatgpt", strict=True)
    model = ScriptedModel([
        [function_call("getPet", {"petId": 7}, call_id="c1"),
         function_call("getPet", '{"petId": "seven"}', call_id="c2"),
         function_call("listPets", {"limit": None, "x-echo-status": "500"}, call_id="c3")],
        [assistant_message("Pet 7 found.")],
    ])
    tools = function_tools(app, auth={"key": API_KEY}, base_url=live_server)
    assert [t.name for t in tools] == ["listPets", "createPet", "getPet"]
    assert all(t.strict_json_schema for t in tools)
    assert API_KEY not in json.dumps([t.params_json_schema for t in tools])
    agent = Agent(name="pets", model=model, tools=tools)
    result = await Runner.run(agent, "Find pet 7", run_config=RunConfig(tracing_disabled=True))
    assert result.final_output == "Pet 7 found."
    outputs = {item["call_id"]: item["output"] for item in model.calls[1].input
               if isinstance(item, dict) and item.get("type") == "function_call_output"}
    seen = json.loads(outputs["c1"])
    assert seen["raw_path"] == "/pets/7" and API_KEY not in outputs["c1"]
    assert outputs["c2"].startswith("Invalid arguments for getPet; nothing was sent")
    assert "HTTP 500" in outputs["c3"] and API_KEY not in outputs["c3"]
