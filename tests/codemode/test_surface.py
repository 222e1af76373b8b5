"""The typed surface: what a method resolves to is the whole response schema even where the
dialect bounds the listed output schema (mcp), and the same application gives the same
bytes."""

from __future__ import annotations

from typing import Any

from upstream import document

import httpllm
from httpllm.codemode.surface import Surface

PADDING = {f"field_{i:03}": {"type": "string", "description": "padding " * 30}
           for i in range(100)}


def deep_document() -> dict[str, Any]:
    """One operation answering a four-level named schema past mcp's 16 KiB output bound."""
    ref = "#/components/schemas/"
    schemas = {
        "Report": {"type": "object", "required": ["section"],
                   "properties": {"section": {"$ref": ref + "Section"}}},
        "Section": {"type": "object", "properties": {"part": {"$ref": ref + "Part"}}},
        "Part": {"type": "object", "properties": {"entry": {"$ref": ref + "Entry"}}},
        "Entry": {"type": "object", "required": ["kind"], "properties": {
            "kind": {"type": "string", "enum": ["alpha", "beta"]}, **PADDING}},
    }
    return {"openapi": "3.1.0", "info": {"title": "reports", "version": "1"},
            "servers": [{"url": "http://127.0.0.1:9"}],
            "paths": {"/reports/{id}": {"get": {
                "operationId": "getReport",
                "parameters": [{"name": "id", "in": "path", "required": True,
                                "schema": {"type": "string"}}],
                "responses": {"200": {"description": "ok", "content": {"application/json": {
                    "schema": {"$ref": ref + "Report"}}}}}}}},
            "components": {"schemas": schemas}}


def test_results_are_typed_from_the_whole_response_schema() -> None:
    """mcp lists an output schema cut to 16 KiB; `Application.response_schema` is the whole
    one (as a dialect without the bound has it), and the surface code mode builds types the
    method's result from it: the deep enum is there, not `unknown`."""
    app = httpllm.compile(deep_document(), "mcp", reference=True)
    function = app.functions[0]
    assert "Schema shortened to fit 16 KiB" in str(function.output)
    whole = app.response_schema(function)
    assert whole == httpllm.compile(deep_document(), "3.1", reference=True).functions[0].output
    assert whole != function.output
    bounded = Surface(app.functions).docs(app.functions, 100_000)
    assert "alpha" not in bounded
    docs = Surface(app.functions, app.response_schema).docs(app.functions, 100_000)
    assert "}): Promise<Report>;" in docs
    assert 'type Entry = {\n  kind: "alpha" | "beta";\n  field_000?: string;' in docs


def test_same_application_same_bytes() -> None:
    """Two compiles of one document give the same module and the same search answer."""
    first, second = (Surface(httpllm.compile(document("http://127.0.0.1:9"), "mcp",
                                             reference=True).functions) for _ in range(2))
    assert first.module() == second.module()
    picked = [[b.function for b in surface.bindings[:2]] for surface in (first, second)]
    assert first.docs(picked[0], 12_000) == second.docs(picked[1], 12_000)


def test_code_mode_serves_the_whole_types(deno: str) -> None:
    """`search_docs` of an mcp-compiled application (what `serve --mode code` compiles)
    answers the whole named types."""
    mode = httpllm.compile(deep_document(), "mcp", reference=True).code_tools(deno=deno)
    docs = mode.search_docs("Entry")
    mode.sandbox.close()
    assert 'type Entry = {\n  kind: "alpha" | "beta";' in docs


def tagged_document(url: str) -> dict[str, Any]:
    """The shop API with its operations tagged in Chinese, German, Russian and French, and
    one operationId in Chinese."""
    doc = document(url)
    tags = {"getItem": "宠物", "listItems": "Zahlungsvorgänge", "whoAmI": "Платежи",
            "getMissing": "café"}
    for item in doc["paths"].values():
        for operation in item.values():
            if isinstance(operation, dict) and operation.get("operationId") in tags:
                operation["tags"] = [tags[operation["operationId"]]]
    doc["paths"]["/items/{item_id}"]["get"]["operationId"] = "获取宠物"
    return doc


def test_namespaces_and_methods_keep_the_letters_of_every_script() -> None:
    """Tags and operationIds in other scripts name their namespace and method with their
    own letters: they were `api._`, `api._2`, `api._3` ... and `api._.get_items_item_id`,
    so nothing told the model which namespace held what (ECMA-262 12.7: identifiers are
    Unicode ID_Start ID_Continue*)."""
    surface = Surface(httpllm.compile(tagged_document("http://127.0.0.1:9"), "mcp").functions)
    paths = sorted(surface.table())
    assert {"宠物.获取宠物", "zahlungsvorgänge.listItems", "платежи.whoAmI",
            "café.getMissing"} <= set(paths)
    module = surface.module()
    assert "  宠物: 宠物Api;\n" in module and "interface 宠物Api {" in module


def test_a_program_calls_namespaces_in_other_scripts(upstream: str, deno: str) -> None:
    """`await api.宠物.获取宠物(...)` type-checks and runs in Deno against the upstream on
    127.0.0.1; a wrong argument type is still a compiler error."""
    mode = httpllm.compile(tagged_document(upstream), "mcp").code_tools(deno=deno)
    try:
        answer = mode.handle("execute", {"code": """
const pet = await api.宠物.获取宠物({ item_id: "a1" });
const items = await api.zahlungsvorgänge.listItems({ limit: 2 });
console.log(pet.id, items.length);
"""})
        wrong = mode.handle("execute", {"code": "await api.café.getMissing({ id: [] });"})
    finally:
        mode.sandbox.close()
    assert answer == {"output": "a1 2"}
    assert "does not type-check" in wrong["error"]
