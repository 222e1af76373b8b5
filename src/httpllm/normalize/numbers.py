"""Pass: numbers no double holds leave the schema, each with a loss naming its place.

A document may write a number past a double's range (``maximum: 1e400``, an integer of 400
digits) or nearer zero than any double but zero (``multipleOf: 1e-400``, read as ``0.0``,
which JSON Schema forbids). No provider reads such a number (their JSON parsers hold
doubles), JSON has no text for the ``inf`` Python reads, and ``validate`` refuses the schema.
Each is dropped, or rewritten where the result bounds the numbers a double holds exactly
as the document does:

- a bound nearer zero than any double (``minimum: 1e-400``) is the bound ``0``, inclusive
  or exclusive by its sign (``exclusiveMinimum: 0``: the doubles ``>= 1e-400`` are the
  positive ones); ``rewritten``;
- a bound past the range on the side it cannot limit (``maximum: 1e400``,
  ``minimum: -1e400``, ``maxLength: 1e400``) is dropped, which changes nothing;
- any other bound, a ``multipleOf``, and a ``const``, ``default`` or ``example`` holding
  such a number (at any depth) is dropped, so the schema accepts more than the document
  says: the loss says so;
- ``enum`` and ``examples`` lose the members holding one (``enum`` itself when none is
  left).

A numeric keyword holding no number (``maxLength: "10"``, ``minimum: "abc"``,
``maxItems: null``; never sent to a provider as written): text that is a JSON number is
read as that number (``rewritten``) and then checked as any number is; anything else is
dropped (widening, reported). OpenAPI 3.0's ``exclusiveMinimum: true`` is left to
``exclusive_bounds``.

A number a double holds that the meta-schema refuses for its keyword makes the schema as
unusable: a ``multipleOf`` of 0 or less is dropped; a fractional count (``maxLength: 1.5``)
is rounded inward (exact: counts are whole), a negative ``min*`` count dropped (exact) and
a negative ``max*`` count dropped (reported as widening).

In the request direction each is a :class:`~httpllm.loss.Loss` at the keyword's document
pointer (``ctx.lose``: ``compile --losses``, ``app.losses``); in the response direction,
whose losses no function reports, a warning (``ctx.report``). Runs first, so no later pass
computes with such a number. Contract: *equivalent* for the rewrites and the drops that
change nothing, *widening* otherwise (reported).
Source: RFC 8259 section 6 (numbers past IEEE 754 binary64 are not interoperable); JSON
Schema Validation 2020-12 sections 6.2.1 (``multipleOf`` "MUST be strictly greater than
0"), 6.2.2-6.2.5, 6.3.1-6.3.2, 6.4.1-6.4.2, 6.4.4-6.4.5 and 6.5.1-6.5.2 (counts are
non-negative integers).
"""

from __future__ import annotations

import json
import math
import re
from typing import Any

from httpllm._json import Unheld, first_unheld, held, kind, shown_number
from httpllm._types import Schema
from httpllm.loss import Action, Loss
from httpllm.normalize._context import PassContext, acts_on

__all__ = ["numbers"]

_LOWER = frozenset({"minimum", "exclusiveMinimum", "minLength", "minItems", "minProperties",
                    "minContains"})
_UPPER = frozenset({"maximum", "exclusiveMaximum", "maxLength", "maxItems", "maxProperties",
                    "maxContains"})
_BOUNDS = frozenset({"minimum", "exclusiveMinimum", "maximum", "exclusiveMaximum"})
_NUMERIC = _LOWER | _UPPER | {"multipleOf"}
_FLAGS = frozenset({"exclusiveMinimum", "exclusiveMaximum"})
"""Numeric keywords OpenAPI 3.0 writes as booleans (read by ``exclusive_bounds``)."""
_NUMBER = re.compile(r"-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][-+]?[0-9]+)?")
"""A JSON number (RFC 8259 section 6), as text in a numeric keyword may hold one."""
_WHOLE = frozenset({"const", "default", "example"})
_MEMBERS = frozenset({"enum", "examples"})
_CHECKED = _NUMERIC | _WHOLE | _MEMBERS

_EXPECTED = ("expected a number a double holds (at most about 1.8e308 in size, and 0 or at "
             "least about 5e-324)")


def _number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _why(value: float | int) -> str:
    """What is wrong with a number :func:`~httpllm._json.held` refuses, in words."""
    text = shown_number(value)
    if isinstance(value, float) and math.isnan(value):
        return f"{text} is no number"
    if isinstance(value, Unheld) and value == 0.0:
        return f"{text} is nearer 0 than any double but 0"
    return f"{text} is past the largest double"


def _sign(value: float | int) -> float:
    return math.copysign(1.0, value) if isinstance(value, float) else (1.0 if value > 0 else -1.0)


@acts_on(*_CHECKED)
def numbers(node: dict[str, Any], ctx: PassContext) -> Schema:
    """Drop (or rewrite, where that is exact) each keyword holding a number no double holds.

    >>> numbers({"type": "number", "maximum": float("inf")}, CTX)
    {'type': 'number'}
    """
    if _CHECKED.isdisjoint(node):
        return node  # the common case: keep it cheap
    out: dict[str, Any] | None = None
    for keyword in [k for k in node if k in _CHECKED]:
        value = node[keyword]
        if keyword in _NUMERIC:
            out = _numeric(node, out, keyword, value, ctx)
            continue
        found = first_unheld(value)
        if found is None:
            continue
        if out is None:
            out = dict(node)
        _settle(out, keyword, value, found, ctx)
    return node if out is None else out


def _numeric(node: dict[str, Any], out: dict[str, Any] | None, keyword: str, value: Any,
             ctx: PassContext) -> dict[str, Any] | None:
    """Check one numeric keyword of ``node``: ``out``, the copy holding the changes so
    far (made here at the first change), or ``None`` while nothing changed."""
    if not _number(value):
        if isinstance(value, bool) and keyword in _FLAGS:
            return out  # OpenAPI 3.0's exclusiveMinimum: true (exclusive_bounds)
        out = dict(node) if out is None else out
        value = _no_number(out, keyword, value, ctx)
        if value is None:
            return out
    if held(value):
        if _valid(keyword, value):
            return out
        out = dict(node) if out is None else out
        _invalid(out, keyword, value, ctx)
        return out
    out = dict(node) if out is None else out
    _settle(out, keyword, value, value, ctx)
    return out


def _settle(out: dict[str, Any], keyword: str, value: Any, found: float | int,
            ctx: PassContext) -> None:
    """Rewrite or drop ``keyword`` of ``out`` (a copy) and record what was done."""
    why = _why(found)
    at = f"{ctx.pointer}/{keyword}"
    if keyword in _MEMBERS and isinstance(value, list):
        kept = [member for member in value if first_unheld(member) is None]
        for i, member in enumerate(value):
            bad = first_unheld(member)
            if bad is not None:
                _record(ctx, f"{at}/{i}", keyword, "dropped", shown_number(bad) if
                        bad is member else None,
                        f"{keyword} member {i} dropped: {_why(bad)}; {_EXPECTED}")
        if kept:
            out[keyword] = kept
        else:
            del out[keyword]
            _record(ctx, at, keyword, "dropped", None,
                    f"{keyword} dropped: no member is left; any value is taken")
        return
    del out[keyword]
    shown = shown_number(found) if found is value else None
    if keyword in _BOUNDS and isinstance(found, Unheld) and found == 0.0:
        lower = keyword in _LOWER
        target = ("exclusiveMinimum" if _sign(found) > 0 else "minimum") if lower else (
            "maximum" if _sign(found) > 0 else "exclusiveMaximum")
        if target == keyword or target not in out:
            out[target] = 0
            _record(ctx, at, keyword, "rewritten", shown,
                    f"{keyword} {why}: {target} 0 bounds every number a double holds alike")
            return
    positive = _sign(found) > 0 if _number(found) and not (
        isinstance(found, float) and math.isnan(found)) else None
    if (keyword in _UPPER and positive is True) or (keyword in _LOWER and positive is False):
        note = f"{keyword} dropped: {why}, so no number a double holds is past it"
    elif keyword in _NUMERIC:
        note = f"{keyword} dropped: {why}; {_EXPECTED}; values it refused are taken"
    else:
        note = f"{keyword} dropped: {why}; {_EXPECTED}"
    _record(ctx, at, keyword, "dropped", shown, note)


def _no_number(out: dict[str, Any], keyword: str, value: Any, ctx: PassContext
               ) -> float | int | None:
    """A numeric keyword holding no number (``maxLength: "10"``, ``minimum: "abc"``,
    ``maxItems: null``): text that is a JSON number is read as it, and set in ``out``
    (``rewritten``; then checked as any number is); anything else is dropped (the schema
    takes what it refused). The number, or ``None`` when dropped."""
    at = f"{ctx.pointer}/{keyword}"
    number = _NUMBER.fullmatch(value.strip()) if isinstance(value, str) else None
    if number is not None:
        read: float | int = json.loads(number.group(0), parse_float=_float_of)
        out[keyword] = read
        shown = repr(read) if held(read) else shown_number(read)
        _record(ctx, at, keyword, "rewritten", value,
                f"{keyword} {value!r} is text: read as the number {shown}")
        return read
    del out[keyword]
    what = repr(value) if isinstance(value, str) else kind(value)
    _record(ctx, at, keyword, "dropped", value if isinstance(value, str) else None,
            f"{keyword} dropped: expected a number, not {what}; values it refused are "
            "taken")
    return None


def _float_of(text: str) -> float:
    """A JSON float's value, an :class:`~httpllm._json.Unheld` past a double's range."""
    value = float(text)
    return Unheld.of(value, text) if value in (0.0, math.inf, -math.inf) else value


def _valid(keyword: str, value: float | int) -> bool:
    """Whether a number a double holds is a value the meta-schema allows for ``keyword``:
    ``multipleOf`` greater than 0, a count a non-negative integer (``2.0`` is one)."""
    if keyword == "multipleOf":
        return value > 0
    if keyword in _BOUNDS:
        return True
    return value >= 0 and (type(value) is int or float(value).is_integer())


def _invalid(out: dict[str, Any], keyword: str, value: float | int, ctx: PassContext) -> None:
    """A number the meta-schema refuses for ``keyword`` (``validate`` could not use the
    schema): a fractional count is rounded inward, which bounds the counts alike; a
    negative ``min*`` count, which bounds nothing, is dropped; any other is dropped with a
    loss saying the schema takes more."""
    at = f"{ctx.pointer}/{keyword}"
    lower = keyword in _LOWER
    if keyword == "multipleOf":
        del out[keyword]
        _record(ctx, at, keyword, "dropped", value,
                f"multipleOf {value} dropped: expected a number greater than 0; values it "
                "refused are taken")
    elif value >= 0:
        out[keyword] = math.ceil(value) if lower else math.floor(value)
        _record(ctx, at, keyword, "rewritten", value,
                f"{keyword} {value} is {out[keyword]}: a count is a whole number, and "
                f"{out[keyword]} bounds the counts alike")
    elif lower:
        del out[keyword]
        _record(ctx, at, keyword, "dropped", value,
                f"{keyword} {value} dropped: expected a count (0 or more); no count is "
                "below it")
    else:
        del out[keyword]
        _record(ctx, at, keyword, "dropped", value,
                f"{keyword} {value} dropped: expected a count (0 or more); values it "
                "refused are taken")


def _record(ctx: PassContext, pointer: str, keyword: str, action: Action,
            value: str | float | None, note: str) -> None:
    if ctx.direction == "request":
        ctx.lose(Loss(pointer=pointer, keyword=keyword, action=action, value=value, note=note))
    else:
        ctx.report(pointer, note)
