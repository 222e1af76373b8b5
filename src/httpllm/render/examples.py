"""OpenAPI examples as tool input examples: the provider's own field, or the description.

``Function.examples`` holds example argument objects gathered from the document. With
``examples="native"`` a dialect whose envelope has a field for them
(:attr:`Dialect.native_examples`, Anthropic ``input_examples``) gets them there, each
checked against the rendered parameters (Anthropic rejects a request whose examples do not
match ``input_schema``). Otherwise, and with ``examples="description"``, they are appended
to the description under an ``Input Examples:`` heading, one compact JSON object per line,
as the Vercel AI SDK's ``addToolInputExamplesMiddleware`` does (vercel/ai
``packages/ai/src/middleware/add-tool-input-examples-middleware.ts``). The operation's text
always comes first: examples that would pass ``Dialect.description_max`` are cut, last
first, each with a loss entry. ``examples="off"`` leaves the function as it is.
"""

from __future__ import annotations

import functools
import json
from typing import Any

from httpllm._types import JSON
from httpllm.dialects._base import Dialect, Options
from httpllm.loss import Loss
from httpllm.records import Function, evolve

__all__ = ["HEADING", "place_examples"]

HEADING = "Input Examples:"
"""The heading of the examples block in a description (Vercel AI SDK's default prefix)."""


def _plain(example: Any) -> JSON:
    """The example as plain JSON (YAML dates and the like become their text)."""
    return json.loads(json.dumps(example, default=str))


def _takes_text(schema: Any) -> bool:
    if not isinstance(schema, dict):
        return True
    members = schema.get("anyOf") or schema.get("oneOf")
    if isinstance(members, list):
        return any(_takes_text(m) for m in members)
    kind = schema.get("type")
    return kind is None or kind == "string" or (isinstance(kind, list) and "string" in kind)


def _decoded(function: Function, example: Any) -> Any:
    """JSON text given for an argument that takes no string becomes the value it spells
    (Elastic writes its Example Objects' ``value`` so). Only strings are read: the same
    on an example as found in the document as on its :func:`_plain` form."""
    if not isinstance(example, dict):
        return example
    out = example  # copied on the first change only
    for name, value in example.items():
        if not isinstance(value, str):
            continue
        argument = function.argument(name)
        if argument is not None and not _takes_text(argument.schema):
            try:
                decoded = json.loads(value)
            except ValueError:
                continue
            if out is example:
                out = dict(example)
            out[name] = decoded
    return out


_COMPACT = json.JSONEncoder(separators=(",", ":"), ensure_ascii=False, default=str)
"""One encoder for every line (``json.dumps`` with options builds one per call: two thirds
of the cost of a short line)."""


def _line(example: Any) -> str:
    """One compact JSON line: the text of ``_plain(example)`` in one serialization."""
    return _COMPACT.encode(example)


def _loss(function: Function, dialect: Dialect, example: JSON, note: str) -> Loss:
    return Loss(pointer=f"{function.pointer}/examples", keyword="examples", action="dropped",
                value=example, dialect=dialect.name, note=note)


def place_examples(function: Function, dialect: Dialect, options: Options) -> Function:
    """The rendered function with its examples in the provider's field or description.

    >>> fn = place_examples(fn, CHATGPT, Options(examples="description"))  # doctest: +SKIP
    >>> fn.description  # doctest: +SKIP
    'Create a pet.\\n\\nInput Examples:\\n{"body":{"name":"Rex"}}'
    """
    if options.examples == "off" or not function.examples:
        return function
    if options.examples == "native" and dialect.native_examples:
        return _native(function, dialect,
                       [_plain(_decoded(function, e)) for e in function.examples])
    return _described(function, dialect)


@functools.cache
def _validator_class() -> Any:
    """Draft 2020-12's validator with ``additionalProperties`` errors in the instance's
    order. jsonschema visits the extra properties as a ``set``, so which error comes
    first (the one a loss note names) hung on the process's string hash seed: a compile
    gave another note from one run to the next (Elasticsearch's
    ``connector-update-configuration``)."""
    # The pure-Python validator reads the schema lazily, along the example only; a
    # compiled validator would first convert the whole (possibly huge) schema.
    from jsonschema import Draft202012Validator  # type: ignore[import-untyped]  # no stubs
    from jsonschema.validators import extend  # type: ignore[import-untyped]

    unordered = Draft202012Validator.VALIDATORS["additionalProperties"]

    def additional_properties(validator: Any, schema_value: Any, instance: Any,
                              schema: Any) -> Any:
        errors = list(unordered(validator, schema_value, instance, schema))
        if len(errors) > 1 and isinstance(instance, dict):
            order = {key: at for at, key in enumerate(instance)}
            errors.sort(key=lambda error: order.get(error.path[0], -1) if error.path
                        else -1)
        yield from errors

    return extend(Draft202012Validator, {"additionalProperties": additional_properties})


def _native(function: Function, dialect: Dialect, examples: list[JSON]) -> Function:
    validator = _validator_class()(function.parameters)
    kept, losses = [], list(function.losses)
    for example in examples:
        try:
            error = next(iter(validator.iter_errors(example)), None)
        except Exception as exc:  # a malformed schema must not stop compile(): reported
            note = f"cannot be checked against the input schema ({type(exc).__name__})"
            losses.append(_loss(function, dialect, example, note))
            continue
        if error is None:
            kept.append(example)
            continue
        # ``error.message`` only: ``str(error)`` pretty-prints the whole schema.
        where = "/".join(str(p) for p in error.absolute_path)
        note = f"does not match the input schema at /{where}: {error.message}"
        losses.append(_loss(function, dialect, example, note.splitlines()[0][:300]))
    extra = {**function.extra, "input_examples": kept} if kept else function.extra
    return evolve(function, extra=extra, losses=tuple(losses))


def _described(function: Function, dialect: Dialect) -> Function:
    text = function.description
    examples = [_decoded(function, e) for e in function.examples]
    lines = [_line(e) for e in examples]
    limit = dialect.description_max
    losses = list(function.losses)
    while lines:
        block = "\n".join([HEADING, *lines])
        candidate = f"{text}\n\n{block}" if text else block
        if limit is None or len(candidate) <= limit:
            return evolve(function, description=candidate, losses=tuple(losses))
        lines.pop()
        losses.append(_loss(function, dialect, _plain(examples[len(lines)]),
                            f"no room left in the {limit}-character description"))
    return evolve(function, losses=tuple(losses))
