"""Full tool-call rounds, each checked through an MCP ``ClientSession`` the same way over
every transport. The server under test serves ``upstream.document`` with
``--max-result-chars 3000`` and no credential of its own."""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

import pytest
from upstream import SEEN

if TYPE_CHECKING:
    import mcp_types as types
    from mcp.client.session import ClientSession

BUDGET = 3000
"""The ``--max-result-chars`` the server under test runs with."""

Round = Callable[["ClientSession"], Awaitable[None]]


def texts(result: types.CallToolResult) -> list[str]:
    """The text blocks of a result."""
    import mcp_types as types
    return [block.text for block in result.content if isinstance(block, types.TextContent)]


async def get_with_path_and_query(session: ClientSession) -> None:
    """A GET fills its path (percent-encoded) and query and answers structured content."""
    result = await session.call_tool("getItem", {"item_id": "a b", "verbose": True})
    assert not result.is_error
    assert result.structured_content == {"id": "a b", "verbose": True}
    assert json.loads(texts(result)[0]) == result.structured_content
    assert SEEN[-1] == "GET /items/a%20b?verbose=true"


async def json_body(session: ClientSession) -> None:
    """A JSON request body arrives as JSON and the answer comes back structured."""
    result = await session.call_tool("createItem", {"body": {"name": "pen", "price": 2.5}})
    assert not result.is_error
    assert result.structured_content == {"created": {"name": "pen", "price": 2.5},
                                         "content_type": "application/json"}


async def form_body(session: ClientSession) -> None:
    """A form body is sent url-encoded; an answer without a listed schema is text only."""
    result = await session.call_tool("login", {"body": {"user": "ann", "remember": True}})
    assert not result.is_error
    assert result.structured_content is None
    answer = json.loads(texts(result)[0])
    assert answer["form"] == {"user": "ann", "remember": "true"}
    assert answer["content_type"] == "application/x-www-form-urlencoded"


async def validation_failure(session: ClientSession) -> None:
    """Invalid arguments come back as an error naming each one, and nothing is sent."""
    before = len(SEEN)
    result = await session.call_tool("createItem", {"body": {"name": "", "price": -1}})
    assert result.is_error
    (text,) = texts(result)
    assert "nothing was sent" in text
    assert "body/name" in text and "body/price" in text
    assert len(SEEN) == before


async def upstream_404(session: ClientSession) -> None:
    """A 404 from the API is an error result with the status and the API's body."""
    result = await session.call_tool("getMissing", {"id": 7})
    assert result.is_error
    (text,) = texts(result)
    assert "404 Not Found" in text and "no thing 7" in text


async def oversized_answer(session: ClientSession) -> None:
    """An answer over the budget is cut to valid JSON with a note saying how to ask for less."""
    result = await session.call_tool("listItems", {})
    assert not result.is_error
    answer, cut = texts(result)
    assert len(answer) <= BUDGET
    items = json.loads(answer)
    assert result.structured_content == {"result": items}
    assert 0 < len(items) < 2000
    assert f"{2000 - len(items):,} item(s) left out" in cut and "limit" in cut


async def missing_credential(session: ClientSession) -> None:
    """A call whose operation needs a credential the server lacks is refused unsent."""
    before = len(SEEN)
    result = await session.call_tool("whoAmI", {"n": 1})
    assert result.is_error
    (text,) = texts(result)
    assert "token" in text and "nothing was sent" in text
    assert len(SEEN) == before


async def unknown_tool(session: ClientSession) -> None:
    """Calling a tool the server does not have is a JSON-RPC invalid-params error."""
    import mcp_types as types
    from mcp.shared.exceptions import MCPError
    with pytest.raises(MCPError) as caught:
        await session.call_tool("noSuchTool", {})
    assert caught.value.code == types.INVALID_PARAMS
    assert "noSuchTool" in caught.value.message


async def listing(session: ClientSession) -> None:
    """The listing has every compiled operation with title, schemas and annotations."""
    import mcp_types as types
    tools = {t.name: t for t in (await session.list_tools()).tools}
    assert "broken" not in tools
    assert set(tools) == {"getItem", "listItems", "createItem", "login", "getMissing",
                          "whoAmI", "echoAuth", "deleteItem"}
    get = tools["getItem"]
    assert get.title == "Get one item"
    assert get.output_schema is not None and get.output_schema["type"] == "object"
    assert get.annotations is not None and get.annotations.read_only_hint is True
    assert get.annotations.open_world_hint is True
    delete = tools["deleteItem"].annotations
    assert delete is not None and delete.destructive_hint and delete.idempotent_hint
    assert tools["whoAmI"].input_schema["properties"] == {"n": {"type": "integer"}}
    for tool in tools.values():
        types.Tool.model_validate(tool.model_dump(by_alias=True, exclude_none=True))
        assert "authorization" not in json.dumps(tool.input_schema).lower()


ROUNDS: tuple[Round, ...] = (listing, get_with_path_and_query, json_body, form_body,
                             validation_failure, upstream_404, oversized_answer,
                             missing_credential, unknown_tool)


def ids(check: Any) -> str:
    """A round's name, for test ids."""
    return str(check.__name__)
