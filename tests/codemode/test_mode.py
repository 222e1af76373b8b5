"""Code mode end to end: programs against the recording upstream on 127.0.0.1, through
`app.code_tools()`. The sandbox refuses network, file system, environment, endless loops
and memory bombs with a clear error and nothing sent upstream; credentials stay on the
host side of the binding."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterator
from typing import Any

import pytest
from upstream import SEEN, document

import httpllm
from httpllm.agent import read_calls
from httpllm.codemode import Limits

TOKEN = "tok-" + "c0dem0de" * 3


@pytest.fixture(scope="module")
def code(upstream: str, deno: str) -> Iterator[Any]:
    """Code mode over the shop API, with a bearer token the host holds."""
    app = httpllm.compile(document(upstream), "mcp", reference=True)
    mode = app.code_tools(execute_options={"auth": {"token": TOKEN}},
                          limits=Limits(seconds=8, calls=5), deno=deno)
    yield mode
    mode.sandbox.close()


def run(code: Any, program: str) -> tuple[dict[str, Any], list[str]]:
    """The answer to `program` and the requests the upstream received meanwhile."""
    before = len(SEEN)
    answer = code.handle("execute", {"code": program})
    return answer, SEEN[before:]


@pytest.mark.slow
def test_three_operations_and_a_filtered_result(code: Any) -> None:
    """A program calls three operations and prints only what it filtered; errors of the API
    and of its own arguments are exceptions it can catch."""
    answer, sent = run(code, """
const item = await api.getItem({ item_id: "a1", verbose: true });
const items = await api.listItems({ limit: 30 });
const me = await api.whoAmI({ n: 7 });
console.log(item.id, items.filter((i) => i.id.endsWith("7")).map((i) => i.id), me.n);
try { await api.getMissing({ id: 4 }); } catch (e) { console.log(e instanceof ApiError, e.status); }
try { await api.getItem({ item_id: 3 } as any); } catch (e) { console.log(e.name); }
""")
    assert answer == {"output": 'a1 ["item-00007","item-00017","item-00027"] 7\n'
                                "true 404\nInvalidArguments"}
    assert sent == ["GET /items/a1?verbose=true", "GET /items?limit=30", "GET /me?n=7",
                    "GET /missing/4"]


@pytest.mark.parametrize(("program", "expected"), [
    ('await fetch("{upstream}/items");', 'Requires net access to "127.0.0.1:'),
    ('await Deno.connect({{ hostname: "127.0.0.1", port: {port} }});',
     'Requires net access to "127.0.0.1:'),
    ('console.log(Deno.readTextFileSync("/etc/hostname"));',
     'Requires read access to "/etc/hostname"'),
    ('console.log(Deno.env.get("HOME"));', 'Requires env access to "HOME"'),
    ('new Deno.Command("/bin/sh").outputSync();', 'Requires run access to "/bin/sh"'),
])
@pytest.mark.slow
def test_sandbox_refuses_the_outside_world(code: Any, upstream: str, program: str,
                                          expected: str) -> None:
    """Network (to the very upstream the bindings reach), file system, environment and
    subprocesses are refused with an error naming what was refused; nothing is sent
    upstream."""
    port = upstream.rsplit(":", 1)[1]
    answer, sent = run(code, program.format(upstream=upstream, port=port))
    assert expected in answer["error"] and "the sandbox has no network" in answer["error"]
    assert "--allow" not in answer["error"] and sent == []


@pytest.mark.parametrize(("program", "expected"), [
    ("let n = 0;\nwhile (true) { n++; }", "stopped after 8 s (the time limit)"),
    ("const a: number[][] = [];\nfor (;;) a.push(new Array(1e6).fill(0));",
     "ran out of memory (the limit is 128 MiB of heap)"),
    ("const b: Uint8Array[] = [];\nfor (;;) b.push(new Uint8Array(1 << 28).fill(1));",
     "RangeError: Array buffer allocation failed"),
])
@pytest.mark.slow
def test_sandbox_stops_loops_and_memory_bombs(code: Any, program: str,
                                              expected: str) -> None:
    """An endless loop is stopped at the time limit, a heap bomb and an array-buffer bomb
    at the memory limits, each with an error saying so; nothing is sent upstream."""
    answer, sent = run(code, "console.log('started');\n" + program)
    assert answer["output"] == "started" and expected in answer["error"]
    assert sent == []


@pytest.mark.parametrize("program", [
    'const m = await import("/etc/passwd");',
    'export const x = 1;',
    'const f = "imp" + "ort"; console.log(eval(f + "(\'/etc/hosts\')"));',
])
def test_no_module_loading_and_no_eval(code: Any, program: str) -> None:
    """`import`/`export` are refused before anything runs (Deno reads statically imported
    local files without a read permission), and code made from strings cannot run."""
    answer, sent = run(code, program)
    assert ("may not appear in a program" in answer["error"]
            or "Code generation from strings disallowed" in answer["error"])
    assert sent == []


@pytest.mark.slow
def test_a_credential_never_reaches_the_program(code: Any) -> None:
    """The token is on the host side only: the sandbox's environment and files hold none,
    and an API that echoes it hands the program `[redacted]`, which is all it could pass
    on to another call."""
    answer, sent = run(code, """
const echoed = await api.echoAuth();
console.log(JSON.stringify(echoed));
const me = await api.whoAmI({ n: 1 });
console.log(me.auth_sha);
let env = "none";
try { env = JSON.stringify(Deno.env.toObject()); } catch (e) { env = e.name; }
console.log(env);
await api.createItem({ body: { name: String((echoed as any).authorization) } });
""")
    assert TOKEN not in str(answer) and TOKEN[4:] not in str(answer)
    lines = answer["output"].splitlines()
    assert lines[0] == '{"authorization":"Bearer [redacted]"}'
    assert lines[1] == hashlib.sha256(f"Bearer {TOKEN}".encode()).hexdigest()
    assert lines[2] == "NotCapable"
    assert sent == ["GET /echo-auth", "GET /me?n=1", "POST /items"]


@pytest.mark.slow
def test_a_redirect_not_followed_is_an_api_error_with_its_location(upstream: str,
                                                                  deno: str) -> None:
    """A 3xx to another origin is not followed: the program catches an `ApiError` whose
    `location` says where it points, masked as every answer is (the token the upstream
    put in its query is `[redacted]`); any other `ApiError`'s `location` is `null`."""
    doc = document(upstream)
    doc["paths"]["/moved"] = {"get": {"operationId": "moved", "security": [{"token": []}],
                                      "responses": {"302": {"description": "elsewhere"}}}}
    mode = httpllm.compile(doc, "mcp").code_tools(
        execute_options={"auth": {"token": TOKEN}}, deno=deno)
    answer, sent = run(mode, """
try { await api.moved(); } catch (e) { console.log(e.status, e.location); }
try { await api.getMissing({ id: 4 }); } catch (e) { console.log(e.status, e.location); }
""")
    mode.sandbox.close()
    assert answer == {"output": "302 https://elsewhere.example/cb?token=[redacted]"
                                "&next=%2Fhome\n404 null"}
    assert sent == ["GET /moved", "GET /missing/4"]


def test_compiler_errors_come_back_as_text(code: Any) -> None:
    """A program that does not type-check is not run; the compiler's errors name the
    program's own lines."""
    answer, sent = run(code, "const i = await api.getItem({ itemId: 'x' });\nconsole.log(i.nope);")
    assert "does not type-check" in answer["error"]
    assert "'itemId' does not exist" in answer["error"] and "line 1" in answer["error"]
    assert "Property 'nope' does not exist" in answer["error"] and "line 2" in answer["error"]
    assert sent == []


@pytest.mark.slow
def test_calls_per_program_are_limited(code: Any) -> None:
    """Past `Limits.calls` operations a program's calls are refused, not sent."""
    answer, sent = run(code, """
let refused = "";
for (let i = 0; i < 9; i++) {
  try { await api.getItem({ item_id: String(i) }); }
  catch (e) { refused = e.name + ": " + e.message; }
}
console.log(refused);
""")
    assert len(sent) == 5
    assert answer["output"].startswith("LimitExceeded: GET /items/{item_id}: this program "
                                       "already called 5 operations")


@pytest.mark.slow
def test_read_only_refuses_writes(upstream: str, deno: str) -> None:
    """A read-only code mode has no write in its typed module: a program calling one
    fails its type check (even past it, with `as any`, there is no such method), nothing
    is sent, and the tool's description says read-only."""
    app = httpllm.compile(document(upstream), "mcp")
    mode = app.code_tools(read_only=True, deno=deno)
    typed, sent = run(mode, 'await api.createItem({ body: { name: "x" } });')
    untyped, sent_untyped = run(mode, 'try { await (api as any).createItem({ body: {} }); }'
                                      ' catch (e) { console.log(e.name); }')
    mode.sandbox.close()
    assert "createItem" in typed["error"] and "does not exist" in typed["error"]
    assert untyped["output"].startswith("TypeError")
    assert sent == sent_untyped == [] and "read-only" in mode.functions[1].description


def test_read_only_search_docs_shows_no_write(upstream: str, deno: str) -> None:
    """In read-only code mode `search_docs` never declares a POST or DELETE operation
    (createItem and deleteItem were shown, then refused when called); the reads still
    fill the k results."""
    app = httpllm.compile(document(upstream), "mcp")
    mode = app.code_tools(read_only=True, deno=deno, k=3)
    docs = [mode.handle("search_docs", {"query": q})["docs"]
            for q in ("create an item", "delete an item", "items")]
    full = app.code_tools(deno=deno, k=3)
    writable = full.handle("search_docs", {"query": "create an item"})
    mode.sandbox.close()
    full.sandbox.close()
    assert "createItem(" in writable["docs"]
    for text in docs:
        assert "createItem" not in text and "deleteItem" not in text and "login(" not in text
    assert "listItems(" in docs[2] and docs[2].count("(args") == 3


def test_search_docs_gives_declarations(code: Any) -> None:
    """`search_docs` answers the matching operations' TypeScript declarations, and a type
    asked for by its name."""
    docs = code.handle("search_docs", {"query": "get one item"})["docs"]
    assert "getItem(args: {\n    item_id: string;" in docs and "Promise<" in docs
    assert code.handle("search_docs", {"query": ""})["error"].startswith("Invalid arguments")


def test_answer_bytes_per_program_are_limited(upstream: str, deno: str) -> None:
    """Past `Limits.answer_bytes` of answers the answer that crossed the limit is withheld
    and every later call is refused unsent."""
    app = httpllm.compile(document(upstream), "mcp")
    mode = app.code_tools(limits=Limits(seconds=8, answer_bytes=5_000), deno=deno)
    answer, sent = run(mode, """
console.log((await api.listItems({ limit: 100 })).length);
for (let i = 0; i < 2; i++) {
  try { await api.listItems({ limit: 100 }); } catch (e) { console.log(e.name + ": " + e.message); }
}
""")
    mode.sandbox.close()
    first, crossed, refused = answer["output"].splitlines()
    assert first == "100" and "error" not in answer
    assert crossed == ("LimitExceeded: GET /items: the answers of this program passed 5,000 "
                       "bytes; this one was not handed over")
    assert refused.startswith("LimitExceeded: GET /items: this program already received ")
    assert refused.endswith(" bytes of answers, the most one may")
    assert sent == ["GET /items?limit=100"] * 2


def test_output_is_cut_to_the_answer_budget(code: Any, upstream: str, deno: str) -> None:
    """What the model reads of a program's output is cut to `max_answer_chars`, with a note
    that says how much was left out and to print less; the default is the budget of every
    other mode's answers."""
    from httpllm.cut import DEFAULT_BUDGET

    assert code.max_answer_chars == DEFAULT_BUDGET
    app = httpllm.compile(document(upstream), "mcp")
    mode = app.code_tools(max_answer_chars=300, deno=deno)
    answer, sent = run(mode, 'console.log("x".repeat(1000));')
    mode.sandbox.close()
    assert answer["output"] == "x" * 300 + (
        "\n[Output cut to fit 300 characters (it had 1,000): 700 left out. Print less: "
        "filter, count or summarize in the program, or print a part at a time.]")
    assert sent == []


@pytest.mark.slow
def test_lines_a_program_writes_itself_are_held_to_its_limits(upstream: str,
                                                              deno: str) -> None:
    """A program writing the runtime's lines to `Deno.stdout` itself, past its checks: its
    printed output is kept to `Limits.output_chars` (400 MB of it were all held by the
    host, 820 MB of memory in two seconds), and a flood of call lines is stopped once it
    asks for 20 times `Limits.calls` calls (a task each: a gigabyte in ten seconds)."""
    app = httpllm.compile(document(upstream), "mcp")
    mode = app.code_tools(limits=Limits(seconds=20, output_chars=1_000, calls=5), deno=deno,
                          max_answer_chars=None)
    write = """
const g = globalThis as any;
const line = new g.TextEncoder().encode((JSON.stringify(LINE) + "\\n").repeat(REPEAT));
for (let i = 0; i < 200; i++) g.Deno.stdout.writeSync(line);
console.log("done");
"""
    printed, _ = run(mode, write.replace("LINE", '{ t: "out", s: "x".repeat(300) }')
                     .replace("REPEAT", "1000"))
    called, sent = run(mode, write.replace("LINE", '{ t: "call", id: 1e9, op: "nope" }')
                       .replace("REPEAT", "1000"))
    mode.sandbox.close()
    assert printed == {"output": "\n".join(["x" * 300] * 3 + ["x" * 300])}
    assert called["error"] == ("Uncaught LimitExceeded: the program asked for over 100 "
                               "calls; it may make 5")
    assert sent == []


def test_confirm_decides_on_writes(upstream: str, deno: str) -> None:
    """The host's `confirm` is asked before every operation but GET and HEAD (an async one
    too); what it refuses is not sent, and reads never ask it."""
    asked: list[tuple[str, Any]] = []

    async def confirm(function: Any, arguments: Any) -> bool:
        asked.append((function.name, arguments))
        return arguments["body"]["name"] == "allowed"

    app = httpllm.compile(document(upstream), "mcp")
    mode = app.code_tools(confirm=confirm, deno=deno)
    answer, sent = run(mode, """
await api.getItem({ item_id: "r" });
console.log((await api.createItem({ body: { name: "allowed" } }) as any).created.name);
try { await api.createItem({ body: { name: "refused" } }); }
catch (e) { console.log(e.name, e.message); }
""")
    mode.sandbox.close()
    assert answer["output"].splitlines() == [
        "allowed", "Refused POST /items: the host did not allow this call; nothing was sent"]
    assert asked == [("createItem", {"body": {"name": "allowed"}}),
                     ("createItem", {"body": {"name": "refused"}})]
    assert sent == ["GET /items/r", "POST /items"]


@pytest.mark.parametrize(("provider", "key", "fmt", "response"), [
    ("claude", "input_schema", "anthropic", {"content": [
        {"type": "text", "text": "Let me look."},
        {"type": "tool_use", "id": "t1", "name": "execute", "input": {"code": "{program}"}}]}),
    ("chatgpt", "function", "chat", {"choices": [{"message": {"tool_calls": [
        {"id": "t1", "type": "function", "function": {
            "name": "execute", "arguments": "{arguments}"}}]}}]}),
])
def test_an_agent_loop_step(upstream: str, deno: str, provider: str, key: str, fmt: str,
                            response: dict[str, Any]) -> None:
    """In an agent loop: the two tools in the provider's own envelope, the provider's
    response read with `httpllm.agent.read_calls`, each call answered by `handle`."""
    program = 'console.log((await api.getItem({ item_id: "loop" })).id);'
    text = (json.dumps(response).replace('"{program}"', json.dumps(program))
            .replace('"{arguments}"', json.dumps(json.dumps({"code": program}))))
    app = httpllm.compile(document(upstream), provider, reference=True)
    mode = app.code_tools(deno=deno)
    try:
        assert [t.get("name") or t["function"]["name"] for t in mode.tools] == [
            "search_docs", "execute"]
        assert all(key in tool for tool in mode.tools)
        (call,) = read_calls(json.loads(text), fmt)
        before = len(SEEN)
        assert mode.handle(call.name, call.arguments) == {"output": "loop"}
        assert SEEN[before:] == ["GET /items/loop"]
    finally:
        mode.sandbox.close()


def test_lone_surrogates_in_the_document_are_declared(upstream: str, deno: str) -> None:
    """Summaries and a parameter description holding lone surrogates (a `\\ud800` escape
    without its pair) go into the typed module as that escape: the program type-checks
    and runs (writing the module raised UnicodeEncodeError)."""
    doc = document(upstream)
    for item in doc["paths"].values():
        for operation in item.values():
            if isinstance(operation, dict):
                operation["summary"] = "Odd \ud800 summary"
                for parameter in operation.get("parameters", []):
                    parameter["description"] = "odd \udfff text"
    mode = httpllm.compile(doc, "mcp").code_tools(deno=deno)
    answer, sent = run(mode, 'console.log((await api.getItem({ item_id: "a1" })).id);')
    mode.sandbox.close()
    assert answer == {"output": "a1"} and sent == ["GET /items/a1"]
