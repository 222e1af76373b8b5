"""HTTP answers -> CallToolResult objects: structured content only where it matches."""

from __future__ import annotations

import base64
import json
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

import answers
import anyio
import httpx
import pytest
from loopback import running
from upstream import document

import httpllm
from httpllm.execute import Result

if TYPE_CHECKING:
    import mcp_types as types

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
    from httpllm.server.answer import Answers
    answer = Answers(1000)(APP.function("getItem"), result({"id": "a"}))
    assert answer == {"content": [{"type": "text", "text": '{"id":"a"}'}],
                      "structuredContent": {"id": "a"}}


def test_non_object_output_is_wrapped_under_result() -> None:
    """An array answer is structured as {"result": [...]}, as its listed schema says."""
    from httpllm.server.answer import Answers
    answer = Answers(1000)(APP.function("listItems"), result([{"id": "a"}]))
    assert answer["structuredContent"] == {"result": [{"id": "a"}]}


def test_answer_that_does_not_match_its_schema_is_an_error_with_the_answer() -> None:
    """An answer off its documented schema is an error that still shows the answer."""
    from httpllm.server.answer import Answers
    answer = Answers(1000)(APP.function("getItem"), result({"id": 5}))
    assert answer["isError"] is True and "structuredContent" not in answer
    first, second = (block["text"] for block in answer["content"])
    assert first.startswith('Mismatch: at /id: the value is not of type "string" (received '
                            '5). GET /items/{item_id} answered HTTP 200 OK')
    assert second == '{"id":5}'


def test_error_status_is_an_error_with_status_and_body() -> None:
    """A 500 answer is an error naming the status and carrying the body."""
    from httpllm.server.answer import Answers
    answer = Answers(1000)(APP.function("getItem"), result("boom", 500, "text/plain"))
    assert answer["isError"] is True
    assert answer["content"][0]["text"] == ("GET /items/{item_id} answered HTTP 500 "
                                            "Internal Server Error:\nboom")


def test_images_are_image_blocks_and_other_binaries_are_resources() -> None:
    """An image answer is an image block; other binary answers are embedded resources."""
    from httpllm.server.answer import Answers
    answers = Answers(1000)
    image = answers(APP.function("login"), result(b"\x89PNG....", ctype="image/png"))
    assert image["content"][0]["type"] == "image"
    assert image["content"][0]["mimeType"] == "image/png"
    blob = answers(APP.function("login"), result(b"\x00\x01", ctype="application/zip"))
    assert blob["content"][0] == {"type": "resource", "resource": {
        "uri": "httpllm://answer/login", "mimeType": "application/zip", "blob": "AAE="}}


def test_secrets_are_redacted_from_text_and_structured_content() -> None:
    """A credential the upstream echoes back never reaches the model."""
    from httpllm.server.answer import REDACTED, Answers
    secret = "sk-live-0123456789"
    answer = Answers(1000)(APP.function("whoAmI"), result({"seen": f"Bearer {secret}"}),
                           (secret,))
    assert secret not in json.dumps(answer)
    assert answer["structuredContent"] == {"seen": f"Bearer {REDACTED}"}


def test_deep_answers_fall_back_to_text() -> None:
    """An answer too deep to write back as JSON is answered as its raw text (an error
    beside a listed schema: a client would refuse a success without structured content)."""
    from httpllm.server.answer import Answers
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
    from httpllm.server.answer import Answers
    answer = Answers(1000, structured=False)(APP.function("getItem"), result({"id": 5}))
    assert answer == {"content": [{"type": "text", "text": '{"id":5}'}]}


# Through the server, with a real upstream (tests/server/answers.py behind uvicorn).

@pytest.fixture(scope="module")
def api() -> Iterator[str]:
    """The answers API's base URL (uvicorn on a free 127.0.0.1 port)."""
    with running(answers.APP, lifespan="off") as url:
        yield url


def called(url: str, tool: str, arguments: dict[str, Any] | None = None,
           **options: Any) -> types.CallToolResult:
    """One ``tools/call`` through the SDK's client, against ``mcp_server`` of the API."""
    from mcp.client._memory import InMemoryTransport
    from mcp.client.session import ClientSession
    server = httpllm.mcp_server(httpllm.compile(answers.document(url), "mcp"), **options)

    async def call() -> types.CallToolResult:
        with anyio.fail_after(60):
            async with InMemoryTransport(server) as (read, write), \
                    ClientSession(read, write) as session:
                await session.initialize()
                return await session.call_tool(tool, arguments or {})

    return anyio.run(call)


def test_binary_answers_are_blocks_whatever_their_schema(api: str) -> None:
    """An image/png answer documented as {type: string, format: binary} is an image block
    (it was mojibake text); audio is an audio block, a PDF an embedded resource."""
    import mcp_types as types
    image = called(api, "getImage")
    assert not image.is_error and image.structured_content is None
    [block] = image.content
    assert isinstance(block, types.ImageContent) and block.mime_type == "image/png"
    assert base64.b64decode(block.data) == answers.PNG
    [sound] = called(api, "getAudio").content
    assert isinstance(sound, types.AudioContent) and sound.mime_type == "audio/wav"
    resource = called(api, "getPdf").content[0]
    assert isinstance(resource, types.EmbeddedResource)
    assert resource.resource.mime_type == "application/pdf"


def test_text_and_json_share_the_budget(api: str) -> None:
    """A 5 MB text/plain answer is cut to the budget the note names (it was cut to 1,000
    characters while the note said 40,000)."""
    import mcp_types as types
    result = called(api, "getLongText", max_result_chars=40_000)
    first, note = (b.text for b in result.content if isinstance(b, types.TextContent))
    assert len(first) == 40_000 and first.startswith("line of text\n")
    assert note.startswith("[Answer cut to fit 40,000 characters (it had ")


def test_an_empty_text_answer_is_an_empty_answer(api: str) -> None:
    """An empty 200 text/plain body is an empty answer, not an error."""
    result = called(api, "getEmptyText")
    assert not result.is_error
    assert result.structured_content == {"result": ""}


def test_a_mismatch_leads_with_its_reason(api: str) -> None:
    """An answer off its schema says why first, however large the value that failed."""
    import mcp_types as types
    result = called(api, "getWide")
    assert result.is_error and result.structured_content is None
    first = result.content[0]
    assert isinstance(first, types.TextContent)
    assert first.text.startswith('Mismatch: at /items: the value is not of type "string" '
                                 '(received ["item-0",')
    assert len(first.text.split(". GET /wide", 1)[0]) < 200


def test_formats_are_asserted_as_the_strictest_client_does(api: str) -> None:
    """"yesterday" for a date-time, or 3,000,000,000 for an int32, is data with a note,
    not structured content a client would refuse; valid values are structured."""
    import mcp_types as types
    bad_date = called(api, "getEvent")
    assert bad_date.is_error and bad_date.structured_content is None
    assert isinstance(bad_date.content[0], types.TextContent)
    assert bad_date.content[0].text.startswith(
        'Mismatch: at /created: the value is not a "date-time" (received "yesterday")')
    assert json.loads(bad_date.content[1].text) == {"created": "yesterday"}  # type: ignore[union-attr]
    too_big = called(api, "getEvent", {"created": "2024-02-29T10:00:00Z", "size": 3 * 10**9})
    assert too_big.is_error and "at /size" in too_big.content[0].text  # type: ignore[union-attr]
    good = called(api, "getEvent", {"created": "2024-02-29 10:00:00+01:00", "size": 7})
    assert not good.is_error
    assert good.structured_content == {"created": "2024-02-29 10:00:00+01:00", "size": 7}


def test_a_read_timeout_says_the_request_was_sent(api: str) -> None:
    """A POST whose answer does not come in time was sent: the model is told it may have
    taken effect (not "could not be sent", which invites a retry)."""
    result = called(api, "createSlowly", client=httpx.AsyncClient(timeout=0.5))
    assert result.is_error
    text = result.content[0].text  # type: ignore[union-attr]
    assert text.startswith(f"createSlowly failed: POST {api}/slow: sent, no answer within "
                           "0.5 s — it may have taken effect")
    assert "could not be sent" not in text


def test_answers_are_read_to_a_byte_limit(api: str) -> None:
    """An answer that never ends is read to the byte limit and said to be cut there; a
    declared size is named."""
    import mcp_types as types
    endless = called(api, "getEndless", max_answer_bytes=1_000_000)
    shown = "\n".join(b.text for b in endless.content if isinstance(b, types.TextContent))
    assert "[The answer was cut at 1,000,000 bytes of an unknown number of bytes" in shown
    declared = called(api, "getDeclared", {"size": 3_000_000}, max_answer_bytes=1_000_000)
    shown = "\n".join(b.text for b in declared.content if isinstance(b, types.TextContent))
    assert "[The answer was cut at 1,000,000 bytes of 3,000,000 bytes" in shown


@pytest.mark.slow
def test_accept_lists_json_first(api: str) -> None:
    """An operation offering text/plain and JSON asks for JSON first (Prism answered
    DocuSign with 500s when text/plain came first)."""
    result = called(api, "getAccept")
    assert result.content[0].text == "application/json, text/plain"  # type: ignore[union-attr]


def test_a_null_answer_its_schema_allows_is_structured() -> None:
    """A JSON ``null`` answer is a value (``Fitted.has_value``): structured when the listed
    schema takes it, under ``result``; it was a Mismatch, "the answer was cut as text, so
    it is no longer JSON", with ``isError``. The discover trio gives it as JSON ``null``,
    not the text "null"."""
    from httpllm.server.answer import Answers
    doc = {"openapi": "3.1.0", "info": {"title": "t", "version": "1"},
           "servers": [{"url": "http://127.0.0.1:9"}],
           "paths": {"/n": {"get": {"operationId": "n", "responses": {"200": {
               "description": "ok", "content": {"application/json": {"schema": {
                   "type": ["object", "null"]}}}}}}}}}
    app = httpllm.compile(doc, "mcp")
    answer = Answers(1000)(app.function("n"), result(None))
    assert answer == {"content": [{"type": "text", "text": "null"}],
                      "structuredContent": {"result": None}}
    assert Answers(1000)(APP.function("getItem"), result(None))["content"][0][
        "text"].startswith('Mismatch: at /: the value is not of type "object"')
    trio = httpllm.toolsets.discover(app, execute_options={
        "client": httpx.Client(transport=httpx.MockTransport(
            lambda request: httpx.Response(200, content=b"null", headers={
                "content-type": "application/json"})))})
    assert trio.handle("invoke_operation", {"name": "n", "arguments": {}}) == {
        "status": 200, "body": None}


def test_a_json_answer_that_does_not_read_as_json_says_so() -> None:
    """An answer typed JSON that stayed text (not JSON, or NaN or 1e400, which
    ``execute`` keeps as they came) is a mismatch saying it does not read as JSON, with the
    answer as it came; it said "it is not JSON" or "received null"."""
    from httpllm.server.answer import Answers
    text = '{"id": NaN}'
    answer = Answers(1000)(APP.function("getItem"), Result(
        status=200, headers=httpx.Headers({"content-type": "application/json"}), body=text,
        content=text.encode()))
    first, second = (block["text"] for block in answer["content"])
    assert answer["isError"] and first.startswith("Mismatch: it does not read as JSON")
    assert second == text
