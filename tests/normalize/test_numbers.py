"""Pass numbers: a number no double holds (or one the meta-schema refuses for its keyword)
leaves the schema, rewritten where that is exact, each change a loss at its pointer."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

import pytest

from httpllm._json import Unheld
from httpllm.loss import Loss
from httpllm.normalize import emend
from httpllm.normalize.numbers import numbers

from ._support import check_pure, context, valid

TINY = Unheld(0.0, "1e-400")
MINUS_TINY = Unheld(-0.0, "-1e-400")
HUGE = Unheld(float("inf"), "1e400")


def _run(schema: dict[str, Any], direction: str = "request"
         ) -> tuple[Any, list[Loss], list[tuple[str, str]]]:
    reports: list[tuple[str, str]] = []
    losses: list[Loss] = []
    ctx = context(direction, reports=reports)  # type: ignore[arg-type]
    ctx.lose = losses.append
    out = emend(schema, ctx, pointer="#/s", rewrite_ref=lambda node, at: node,
                passes=(numbers,))
    return out, losses, reports


@pytest.mark.parametrize(("schema", "out", "action"), [
    ({"type": "number", "maximum": HUGE}, {"type": "number"}, "dropped"),
    ({"maximum": float("inf"), "minimum": float("-inf")}, {}, "dropped"),
    ({"minimum": HUGE}, {}, "dropped"),
    ({"maximum": float("nan")}, {}, "dropped"),
    ({"maximum": 10 ** 400}, {}, "dropped"),
    ({"multipleOf": TINY}, {}, "dropped"),
    ({"multipleOf": 0}, {}, "dropped"),
    ({"multipleOf": -2.5}, {}, "dropped"),
    ({"minimum": TINY}, {"exclusiveMinimum": 0}, "rewritten"),
    ({"maximum": MINUS_TINY}, {"exclusiveMaximum": 0}, "rewritten"),
    ({"exclusiveMinimum": MINUS_TINY}, {"minimum": 0}, "rewritten"),
    ({"exclusiveMaximum": TINY}, {"maximum": 0}, "rewritten"),
    ({"maxLength": HUGE}, {}, "dropped"),
    ({"maxLength": 1.5}, {"maxLength": 1}, "rewritten"),
    ({"minItems": 1.5}, {"minItems": 2}, "rewritten"),
    ({"minLength": -1}, {}, "dropped"),
    ({"const": {"a": [HUGE]}}, {}, "dropped"),
    ({"default": 10 ** 400, "example": TINY}, {}, "dropped"),
])
def test_examples(schema: dict[str, Any], out: dict[str, Any], action: str) -> None:
    """Each such keyword is dropped or rewritten, with a loss at its pointer; the pass is
    pure and a fixpoint."""
    found, losses, _ = _run(schema)
    assert found == out
    assert check_pure(numbers, {"properties": {"p": schema}}) == {"properties": {"p": out}}
    assert losses and {x.action for x in losses} == {action}
    assert {x.pointer for x in losses} == {f"#/s/{k}" for k in schema if k != "type"}
    assert all(x.keyword in schema and x.note and x.keyword != "type" for x in losses)


def test_the_loss_names_the_number_as_written_and_what_was_expected() -> None:
    """The value is the document's text; the note says what a double holds."""
    _, [loss], _ = _run({"multipleOf": TINY})
    assert loss.value == "1e-400"
    assert "nearer 0 than any double" in loss.note and "expected a number" in loss.note


def test_enum_and_examples_lose_only_their_unheld_members() -> None:
    """`enum: [1, 1e400]` keeps 1; an enum with nothing left goes; so do `examples`."""
    found, losses, _ = _run({"properties": {
        "a": {"enum": [1, HUGE, "x"]}, "b": {"enum": [[HUGE]]}, "c": {"examples": [HUGE, 2]}}})
    assert found == {"properties": {"a": {"enum": [1, "x"]}, "b": {}, "c": {"examples": [2]}}}
    assert [x.pointer for x in losses] == [
        "#/s/properties/a/enum/1", "#/s/properties/b/enum/0", "#/s/properties/b/enum",
        "#/s/properties/c/examples/0"]


def test_the_response_direction_warns() -> None:
    """A response schema's changes are warnings (no function reports its losses)."""
    found, losses, reports = _run({"maximum": HUGE}, "response")
    assert found == {} and losses == []
    assert reports == [("#/s/maximum", reports[0][1])] and "1e400" in reports[0][1]


def test_numbers_a_double_holds_are_left_alone() -> None:
    """Large, small, integral counts and valid multipleOf: the very same schema."""
    schema = {"type": "number", "maximum": 1e308, "minimum": -5e-324, "multipleOf": 0.01,
              "enum": [1, 2.5, 2 ** 64], "maxLength": 2.0, "default": {"a": [1e-300]},
              "properties": {"x": {"exclusiveMinimum": 0, "const": 9007199254740993}}}
    assert check_pure(numbers, schema) is schema


DOUBLES = [float("-inf"), -1.0, -5e-324, -0.0, 0.0, 5e-324, 1.0, 1.7976931348623157e308]


@pytest.mark.parametrize("keyword", ["minimum", "maximum", "exclusiveMinimum",
                                     "exclusiveMaximum"])
@pytest.mark.parametrize("bound", [TINY, MINUS_TINY, HUGE, Unheld(float("-inf"), "-1e400")])
def test_rewrites_and_harmless_drops_bound_every_double_alike(keyword: str,
                                                              bound: Unheld) -> None:
    """Where the pass calls its change exact (`rewritten`, or dropped as changing nothing),
    every finite double is accepted exactly when the document's bound (read exactly, as a
    decimal) accepts it."""
    found, [loss], _ = _run({keyword: bound})
    if loss.action == "dropped" and "no number a double holds is past it" not in loss.note:
        return  # a widening drop: reported as such
    exact = Decimal(bound.text)
    test = {"minimum": exact.__le__, "maximum": exact.__ge__,
            "exclusiveMinimum": exact.__lt__, "exclusiveMaximum": exact.__gt__}[keyword]
    for x in DOUBLES[1:]:
        assert valid(found, x) == test(Decimal(x)), (keyword, bound.text, x, found)


@pytest.mark.parametrize(("schema", "out", "action", "note"), [
    ({"maxLength": "10"}, {"maxLength": 10}, "rewritten",
     "maxLength '10' is text: read as the number 10"),
    ({"multipleOf": " 2 "}, {"multipleOf": 2}, "rewritten",
     "multipleOf ' 2 ' is text: read as the number 2"),
    ({"minimum": "-1.5e3"}, {"minimum": -1500.0}, "rewritten",
     "minimum '-1.5e3' is text: read as the number -1500.0"),
    ({"minimum": "abc"}, {}, "dropped",
     "minimum dropped: expected a number, not 'abc'; values it refused are taken"),
    ({"maxItems": None}, {}, "dropped",
     "maxItems dropped: expected a number, not null; values it refused are taken"),
    ({"minProperties": True}, {}, "dropped",
     "minProperties dropped: expected a number, not a boolean; values it refused are taken"),
    ({"maximum": {"value": 3}}, {}, "dropped",
     "maximum dropped: expected a number, not an object; values it refused are taken"),
    ({"maxLength": ""}, {}, "dropped",
     "maxLength dropped: expected a number, not ''; values it refused are taken"),
])
def test_a_numeric_keyword_holding_no_number(schema: dict[str, Any], out: dict[str, Any],
                                             action: str, note: str) -> None:
    """Text in a numeric keyword that is a JSON number is read as that number, anything
    else that is no number is dropped; either a loss at the keyword's pointer (all were
    sent to providers as written: ``"maxLength": "10"``)."""
    got, losses, _ = _run({"type": "string", **schema})
    assert got == {"type": "string", **out}
    [keyword] = schema
    assert [(loss.pointer, loss.action, loss.note) for loss in losses] == [
        (f"#/s/{keyword}", action, note)]


def test_text_read_as_a_number_is_then_checked_as_one() -> None:
    """``maxLength: "-1"`` is read as -1, then dropped as any negative count is; an
    ``exclusiveMinimum: true`` (OpenAPI 3.0) is left to exclusive_bounds."""
    got, losses, _ = _run({"maxLength": "-1", "minLength": "2.5", "exclusiveMinimum": True})
    assert got == {"minLength": 3, "exclusiveMinimum": True}
    assert [(loss.keyword, loss.action) for loss in losses] == [
        ("maxLength", "rewritten"), ("maxLength", "dropped"), ("minLength", "rewritten"),
        ("minLength", "rewritten")]
