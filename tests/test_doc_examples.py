"""The Python examples of the README and of docs/ run as written, page by page (each page's
blocks in order, in one namespace, from a folder holding `specs/`): the model endpoints
the OpenAI and Anthropic SDKs read from their environment variables are a scripted model
on 127.0.0.1, and the petstore's server is the echo server on 127.0.0.1, so the agent
loops really loop. The host configurations (```json `mcpServers`) start the server they
name, with the official MCP client."""

from __future__ import annotations

import contextlib
import io
import json
import re
import shutil
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from doc_pages import ROOT, Block, blocks
from execute.conftest import live_server
from loopback import running
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route

from httpllm import dialects

__all__ = ["live_server"]  # the echo server, a fixture of tests/execute

PETSTORE_HOST = "petstore.example.com"
"""The bundled example's server, answered here by the echo server."""

KEY = "petstore-secret-0123"
"""The `PETSTORE_KEY` the examples read: it must reach the API and never the model."""


class Model:
    """A scripted model behind OpenAI's Chat Completions and Anthropic's Messages routes:
    it asks for ``listPets`` once, then answers in words; it keeps what it was sent."""

    def __init__(self) -> None:
        self.seen: list[dict[str, Any]] = []

    async def chat(self, request: Request) -> JSONResponse:
        body = await request.json()
        self.seen.append(body)
        last = body["messages"][-1]
        message: dict[str, Any] = {"role": "assistant", "content": "Done."}
        reason = "stop"
        if last["role"] == "user":
            message = {"role": "assistant", "content": None, "tool_calls": [
                {"id": "call_1", "type": "function",
                 "function": {"name": "listPets", "arguments": '{"limit": 5}'}}]}
            reason = "tool_calls"
        return JSONResponse({"id": "c", "object": "chat.completion", "created": 0,
                             "model": body["model"], "choices": [
                                 {"index": 0, "finish_reason": reason, "message": message}]})

    async def messages(self, request: Request) -> JSONResponse:
        body = await request.json()
        self.seen.append(body)
        last = body["messages"][-1]
        answered = isinstance(last["content"], list) and any(
            block.get("type") == "tool_result" for block in last["content"])
        content: list[dict[str, Any]] = [{"type": "text", "text": "Done."}]
        if not answered:
            content = [{"type": "tool_use", "id": "toolu_1", "name": "listPets",
                        "input": {"limit": 5}}]
        return JSONResponse({"id": "m", "type": "message", "role": "assistant",
                             "model": body["model"], "content": content,
                             "stop_reason": "end_turn" if answered else "tool_use",
                             "stop_sequence": None,
                             "usage": {"input_tokens": 1, "output_tokens": 1}})


def python_blocks() -> dict[str, list[Block]]:
    """The Python blocks, by page."""
    out: dict[str, list[Block]] = {}
    for block in blocks("python"):
        out.setdefault(block.page, []).append(block)
    return out


@contextlib.contextmanager
def rerouted(upstream: str) -> Iterator[None]:
    """httpx requests to the petstore's host go to ``upstream`` instead (plain HTTP)."""
    target = httpx.URL(upstream)
    sync_send = httpx.HTTPTransport.handle_request
    async_send = httpx.AsyncHTTPTransport.handle_async_request

    def moved(request: httpx.Request) -> None:
        if request.url.host == PETSTORE_HOST:
            request.url = request.url.copy_with(scheme="http", host=target.host,
                                                port=target.port)

    def handle(self: httpx.HTTPTransport, request: httpx.Request) -> httpx.Response:
        moved(request)
        return sync_send(self, request)

    async def ahandle(self: httpx.AsyncHTTPTransport, request: httpx.Request
                      ) -> httpx.Response:
        moved(request)
        return await async_send(self, request)

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(httpx.HTTPTransport, "handle_request", handle)
        patch.setattr(httpx.AsyncHTTPTransport, "handle_async_request", ahandle)
        yield


@pytest.fixture(scope="module")
def model() -> Iterator[tuple[Model, str]]:
    scripted = Model()
    app = Starlette(routes=[Route("/v1/chat/completions", scripted.chat, methods=["POST"]),
                            Route("/v1/messages", scripted.messages, methods=["POST"])])
    with running(app, lifespan="off") as url:
        yield scripted, url


@pytest.mark.parametrize("page", sorted(python_blocks()))
@pytest.mark.slow
def test_python_examples_run(page: str, model: tuple[Model, str], live_server: str,
                             tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Each Python block of the page runs, after the page's earlier blocks; a block marked
    not run at least parses; an agent loop answers every tool call the model makes with
    the API's answer, where the credential the API received shows only redacted."""
    scripted, url = model
    (tmp_path / "specs").symlink_to(ROOT / "specs")
    monkeypatch.chdir(tmp_path)
    for name, value in {"OPENAI_API_KEY": "test", "OPENAI_BASE_URL": f"{url}/v1",
                        "ANTHROPIC_API_KEY": "test", "ANTHROPIC_BASE_URL": url,
                        "PETSTORE_KEY": KEY}.items():
        monkeypatch.setenv(name, value)
    scripted.seen.clear()
    # A page may register a provider (the README's "my-gateway"): the registry is the
    # process's, so it is restored after the page.
    monkeypatch.setattr(dialects, "_REGISTRY", dict(dialects._REGISTRY))
    monkeypatch.setattr(dialects, "_ALIASES", dict(dialects._ALIASES))
    namespace: dict[str, Any] = {"__name__": "__doc_example__"}
    with rerouted(live_server), contextlib.redirect_stdout(io.StringIO()):
        for block in python_blocks()[page]:
            code = compile(block.code, block.id, "exec")
            if block.not_run is None:
                exec(code, namespace)
    asked = [body for body in scripted.seen if len(body["messages"]) == 1]
    answers = [json.dumps(body["messages"][-1]) for body in scripted.seen
               if len(body["messages"]) > 1]
    assert len(answers) == len(asked), "a tool call the model made was not answered"
    for answer in answers:
        assert "/v1/pets" in answer and "limit=5" in answer
        assert "[redacted]" in answer and KEY not in answer


def test_every_page_has_python_that_runs() -> None:
    """The README and the pages about compiling, calls, the loop, serving, large APIs and
    code mode each hold a Python example that runs (not only parses)."""
    running_pages = {b.page for b in blocks("python") if b.not_run is None}
    assert {"README.md", "docs/compile.md", "docs/calls.md", "docs/agent-loop.md",
            "docs/serve.md", "docs/large-apis.md", "docs/code-mode.md"} <= running_pages


def host_configs() -> list[Block]:
    return [b for b in blocks("json") if "mcpServers" in b.code and '"command"' in b.code]


@pytest.mark.anyio
@pytest.mark.parametrize("block", host_configs(), ids=lambda b: b.id)
@pytest.mark.slow
async def test_host_config_starts_the_server(block: Block, tmp_path: Path) -> None:
    """A host configuration, with its example paths made this checkout's, starts
    `httpllm serve` over stdio: the official MCP client lists the document's tools."""
    from mcp.client.session import ClientSession
    from mcp.client.stdio import StdioServerParameters, stdio_client

    (name, server), = json.loads(block.code)["mcpServers"].items()
    command = Path(server["command"])
    assert command.is_absolute() and command.name == "httpllm", "name httpllm by its path"
    spec = Path(server["args"][1])
    assert spec.is_absolute(), "hosts need the document's absolute path"
    local = ROOT / "specs" / spec.name
    assert local.is_file(), f"{spec}: a document of this checkout's specs/"
    installed = shutil.which("httpllm") or str(Path(sys.executable).with_name("httpllm"))
    args = [str(local) if arg == str(spec) else arg for arg in server["args"]]
    params = StdioServerParameters(command=installed, args=args,
                                   env={**server.get("env", {}), "PATH": "/usr/bin:/bin"})
    with (tmp_path / "serve.stderr").open("w") as log:
        async with stdio_client(params, errlog=log) as (read, write), \
                ClientSession(read, write) as session:
            await session.initialize()
            listed = await session.list_tools()
    assert {tool.name for tool in listed.tools} >= {"listPets", "createPet"}, name


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


def test_links_between_pages_resolve() -> None:
    """Every relative link of the pages names a file of the repository (and an anchor,
    when it names one, a heading of that page)."""
    from doc_pages import pages

    for page in pages():
        text = page.read_text(encoding="utf-8")
        for target in re.findall(r"\]\(([^)\s]+)\)", text):
            if re.match(r"[a-z]+:", target):
                continue
            path, _, anchor = target.partition("#")
            linked = (page.parent / path).resolve() if path else page
            assert linked.is_file(), f"{page.name}: {target}"
            if anchor:
                headings = {_anchor(h) for h in re.findall(r"^#+ (.+)$",
                                                           linked.read_text(encoding="utf-8"),
                                                           flags=re.MULTILINE)}
                assert anchor in headings, f"{page.name}: {target}"


def _anchor(heading: str) -> str:
    """GitHub's anchor of a heading: lower case, punctuation dropped, spaces as hyphens."""
    return re.sub(r"[^\w\- ]", "", heading.lower()).replace(" ", "-")


def test_each_goal_of_the_readme_runs_an_example() -> None:
    """The README leads with its goals (the quick start comes before the reference
    sections), and each goal's section holds an example the suite runs: a console line, a
    Python block or a host configuration."""
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    headings = re.findall(r"^## (.+)$", text, flags=re.MULTILINE)
    assert headings.index("Quick start, by goal") < headings.index("Security model")
    quick = text.split("## Quick start, by goal", 1)[1].split("\n## ", 1)[0]
    goals = re.split(r"^### ", quick, flags=re.MULTILINE)[1:]
    assert len(goals) >= 5
    for goal in goals:
        title = goal.splitlines()[0]
        runs = re.search(r"^```(console|python)$", goal, flags=re.MULTILINE) or (
            '"mcpServers"' in goal)
        assert runs and "<!-- not run" not in goal, f"README goal {title!r} runs no example"
