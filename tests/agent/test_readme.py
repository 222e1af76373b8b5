"""The README's agent loops, run with the real OpenAI and Anthropic SDKs whose model
endpoint is a scripted in-process transport, and the API behind the echo server."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import httpx2
from sdk import lazy

import httpllm

anthropic = lazy("anthropic")
openai = lazy("openai")

SPEC = Path(__file__).resolve().parents[2] / "specs" / "petstore-3.0.yaml"
KEY = "petstore-secret"


def scripted(replies: list[dict[str, Any]], seen: list[dict[str, Any]],
             http: Any = httpx) -> Any:
    """A client of ``http`` (httpx, or the httpx2 fork Anthropic's SDK takes) whose every
    request gets the next reply; request bodies are kept."""
    answers: Iterator[dict[str, Any]] = iter(replies)

    def answer(request: Any) -> Any:
        seen.append(json.loads(request.content))
        return http.Response(200, json=next(answers))

    return http.Client(transport=http.MockTransport(answer))


def test_openai_chat_loop(live_server: str) -> None:
    """The model's createPet call reaches the API and its answer is the next request's."""
    seen: list[dict[str, Any]] = []
    call = {"id": "call_1", "type": "function", "function": {
        "name": "createPet", "arguments": '{"body": {"name": "Tom", "tag": "cat"}}'}}
    replies = [{"id": "r", "object": "chat.completion", "created": 0, "model": "m",
                "choices": [{"index": 0, "finish_reason": reason, "message": message}]}
               for reason, message in [
                   ("tool_calls", {"role": "assistant", "content": None, "tool_calls": [call]}),
                   ("stop", {"role": "assistant", "content": "Tom is added."})]]
    client = openai.OpenAI(api_key="test", base_url="http://model.test/v1",
                           http_client=scripted(replies, seen))
    app = httpllm.compile(SPEC, provider="chatgpt", strict=True)
    messages: list[Any] = [{"role": "user", "content": "Add a cat called Tom."}]
    while True:
        response = client.chat.completions.create(model="m", messages=messages,
                                                  tools=app.tools())
        message = response.choices[0].message
        messages.append(message.model_dump(exclude_none=True))
        if not message.tool_calls:
            break
        messages += app.handle(response, auth={"apiKey": KEY}, base_url=live_server)
    assert message.content == "Tom is added."
    sent = seen[1]["messages"][2]
    assert (sent["role"], sent["tool_call_id"]) == ("tool", "call_1")
    echo = json.loads(sent["content"])
    assert (echo["method"], echo["raw_path"]) == ("POST", "/pets")
    assert json.loads(echo["body"]) == {"name": "Tom", "tag": "cat"} and KEY not in sent["content"]


def test_anthropic_messages_loop(live_server: str) -> None:
    """The model's tool_use block is answered by one user message of tool_result blocks."""
    seen: list[dict[str, Any]] = []
    usage = {"input_tokens": 1, "output_tokens": 1}
    replies = [
        {"id": "m1", "type": "message", "role": "assistant", "model": "c", "usage": usage,
         "stop_reason": "tool_use", "stop_sequence": None, "content": [
             {"type": "text", "text": "Listing."},
             {"type": "tool_use", "id": "toolu_1", "name": "listPets", "input": {"limit": 0}},
             {"type": "tool_use", "id": "toolu_2", "name": "listPets", "input": {"limit": 5}}]},
        {"id": "m2", "type": "message", "role": "assistant", "model": "c", "usage": usage,
         "stop_reason": "end_turn", "stop_sequence": None,
         "content": [{"type": "text", "text": "No pets yet."}]},
    ]
    client = anthropic.Anthropic(api_key="test", base_url="http://model.test",
                                 http_client=scripted(replies, seen, httpx2))
    app = httpllm.compile(SPEC, provider="claude")
    messages: list[Any] = [{"role": "user", "content": "List the pets."}]
    while True:
        response = client.messages.create(model="c", max_tokens=1024, messages=messages,
                                          tools=app.tools())
        messages.append({"role": "assistant", "content": response.content})
        if response.stop_reason != "tool_use":
            break
        messages += app.handle(response, auth={"apiKey": KEY}, base_url=live_server)
    assert response.content[-1].text == "No pets yet."
    bad, good = seen[1]["messages"][2]["content"]
    assert bad["tool_use_id"] == "toolu_1" and bad["is_error"] is True
    assert "limit: expected" in bad["content"]
    assert good["tool_use_id"] == "toolu_2" and "is_error" not in good
    assert json.loads(good["content"])["query_string"] == "limit=5"
