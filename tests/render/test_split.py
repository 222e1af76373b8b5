"""split_unions=True: one function per variant of a union request body (render/split.py)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import shared

import httpllm


def document(body: Any, operation_id: str = "pay", **schemas: Any) -> dict[str, Any]:
    operation = {"operationId": operation_id,
                 "requestBody": {"required": True,
                                 "content": {"application/json": {"schema": body}}},
                 "responses": {"200": {"description": "ok"}}}
    return {"openapi": "3.1.0", "info": {"title": "t", "version": "1"},
            "paths": {"/pay": {"post": operation}}, "components": {"schemas": schemas}}


CARD = {"type": "object", "required": ["cardToken"],
        "properties": {"cardToken": {"type": "string"}}}
BANK = {"type": "object", "required": ["iban"], "properties": {"iban": {"type": "string"}}}
UNION = {"oneOf": [{"$ref": "#/components/schemas/Card"}, {"$ref": "#/components/schemas/Bank"}]}


def case(name: str) -> Path:
    return shared.case(name)


@pytest.mark.parametrize("provider", ["gemini", "ollama", "chatgpt"])
def test_c21_splits_by_discriminator_tag(provider: str) -> None:
    """C21: createPayment becomes createPayment__card and createPayment__bank."""
    app = httpllm.compile(case("C21"), provider, split_unions=True)
    by_name = {f.name: f for f in app.functions}
    assert set(by_name) == {"createPayment__card", "createPayment__bank"}
    card = by_name["createPayment__card"]
    body = card.parameters["properties"]["body"]
    assert "anyOf" not in body and "cardToken" in body["properties"]
    assert card.extra["split_of"] == "createPayment" and card.extra["variant"] == "card"
    assert card.schema["properties"]["body"]["properties"]["method"]["enum"] == ["card"]
    assert [a.name for a in card.arguments] == ["idempotencyKey", "body"]
    assert any(x.action == "rewritten" and x.keyword == "anyOf" for x in card.losses)


def test_without_split_the_union_stays() -> None:
    """The default keeps one function whose body is an anyOf."""
    app = httpllm.compile(case("C21"), "gemini")
    assert [f.name for f in app.functions] == ["createPayment"]
    assert "anyOf" in app.functions[0].parameters["properties"]["body"]


def test_variants_named_by_schema_name_without_a_tag() -> None:
    """Without a discriminator tag the variant is named after its named schema."""
    app = httpllm.compile(document(UNION, Card=CARD, Bank=BANK), "gemini", split_unions=True)
    assert [f.name for f in app.functions] == ["pay__Card", "pay__Bank"]


def test_variants_named_by_position_as_last_resort() -> None:
    """Inline variants without a name or title are numbered from 1."""
    app = httpllm.compile(document({"oneOf": [CARD, BANK]}), "ollama", split_unions=True)
    assert [f.name for f in app.functions] == ["pay__1", "pay__2"]


def test_split_names_are_capped_and_unique() -> None:
    """Long names stay within 64 characters and distinct."""
    long_id = "x" * 70
    app = httpllm.compile(document(UNION, long_id, Card=CARD, Bank=BANK), "gemini",
                          split_unions=True)
    names = [f.name for f in app.functions]
    assert len(set(names)) == 2 and all(len(n) <= 64 for n in names)


def test_nullable_union_keeps_null_in_every_variant() -> None:
    """anyOf [A, B, null] splits into A-or-null and B-or-null."""
    body = {"oneOf": [{"$ref": "#/components/schemas/Card"},
                      {"$ref": "#/components/schemas/Bank"}, {"type": "null"}]}
    app = httpllm.compile(document(body, Card=CARD, Bank=BANK), "3.1", split_unions=True)
    for fn in app.functions:
        members = fn.parameters["properties"]["body"]["anyOf"]
        assert members[-1] == {"type": "null"} and len(members) == 2


def test_split_functions_build_the_same_request() -> None:
    """Each variant function sends the original operation."""
    app = httpllm.compile(document(UNION, Card=CARD, Bank=BANK), "gemini", split_unions=True)
    fn = app.function("pay__Bank")
    assert (fn.method, fn.path) == ("post", "/pay")
    assert app.validate("pay__Bank", {"body": {"iban": "DE00"}}).ok
    assert not app.validate("pay__Bank", {"body": {"cardToken": "t"}}).ok
