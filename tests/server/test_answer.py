"""HTTP answers -> CallToolResult objects: structured content only where it matches."""

from __future__ import annotations

import json
from typing import Any

import httpx
from upstream import document

import httpllm
from httpllm.execute import Result
from httpllm.server.answer import REDACTED, Answers

APP = httpllm.compile(document("http://127.0.0.1:9"), "mcp")


def result(body: Any, status: int = 200, ctype: str = "application/json") -> Result:
    content = body if isinstance(body, bytes) else (
        json.dumps(body).encode() if ctype.endswith("json") else str(body).encode())
    parsed = json.loads(content) if ctype.endswith("json") and content else content.decode(
        "latin-1")
    return Result(status=status, headers=httpx.Headers({"content-type": ctype}), body=parsed,
                  content=content)


def test_matching_json_is_structured_and_text() -> None:
    """A JSON answer matching the listed schema is structured content plus the same text."""
    answer = Answers(1000)(APP.function("getItem"), result({"id": "a"}))
    assert answer == {"content": [{"type": "text", "text": '{"id":"a"}'}],
                      "structuredContent": {"id": "a"}}


def test_non_object_output_is_wrapped_under_result() -> None:
    """An array answer is structured as {"result": [...]}, as its listed schema says."""
    answer = Answers(1000)(APP.function("listItems"), result([{"id": "a"}]))
    assert answer["structuredContent"] == {"result": [{"id": "a"}]}


def test_answer_that_does_not_match_its_schema_is_an_error_with_the_answer() -> None:
    """An answer off its documented schema is an error that still shows the answer."""
    answer = Answers(1000)(APP.function("getItem"), result({"id": 5}))
    assert answer["isError"] is True and "structuredContent" not in answer
    first, second = (block["text"] for block in answer["content"])
    assert first.startswith('Mismatch: at /id: the value is not of type "string" (received '
                            '5). GET /items/{item_id} answered HTTP 200 OK')
    assert second == '{"id":5}'


def test_error_status_is_an_error_with_status_and_body() -> None:
    """A 500 answer is an error naming the status and carrying the body."""
    answer = Answers(1000)(APP.function("getItem"), result("boom", 500, "text/plain"))
    assert answer["isError"] is True
    assert answer["content"][0]["text"] == ("GET /items/{item_id} answered HTTP 500 "
                                            "Internal Server Error:\nboom")


def test_images_are_image_blocks_and_other_binaries_are_resources() -> None:
    """An image answer is an image block; other binary answers are embedded resources."""
    answers = Answers(1000)
    image = answers(APP.function("login"), result(b"\x89PNG....", ctype="image/png"))
    assert image["content"][0]["type"] == "image"
    assert image["content"][0]["mimeType"] == "image/png"
    blob = answers(APP.function("login"), result(b"\x00\x01", ctype="application/zip"))
    assert blob["content"][0] == {"type": "resource", "resource": {
        "uri": "httpllm://answer/login", "mimeType": "application/zip", "blob": "AAE="}}


def test_secrets_are_redacted_from_text_and_structured_content() -> None:
    """A credential the upstream echoes back never reaches the model."""
    secret = "sk-live-0123456789"
    answer = Answers(1000)(APP.function("whoAmI"), result({"seen": f"Bearer {secret}"}),
                           (secret,))
    assert secret not in json.dumps(answer)
    assert answer["structuredContent"] == {"seen": f"Bearer {REDACTED}"}


def test_deep_answers_fall_back_to_text() -> None:
    """An answer too deep to write back as JSON is answered as its raw text (an error
    beside a listed schema: a client would refuse a success without structured content)."""
    deep: Any = []
    for _ in range(50_000):
        deep = [deep]
    raw = b"[" * 10 + b"]" * 10
    answer = Answers(1000)(APP.function("createItem"), Result(
        status=200, headers=httpx.Headers({"content-type": "application/json"}), body=deep,
        content=raw))
    assert answer["isError"] is True and "structuredContent" not in answer
    assert answer["content"][1]["text"] == raw.decode()


def test_without_output_schemas_every_answer_is_text() -> None:
    """With output schemas off, even an answer off its schema is a plain text success."""
    answer = Answers(1000, structured=False)(APP.function("getItem"), result({"id": 5}))
    assert answer == {"content": [{"type": "text", "text": '{"id":5}'}]}
