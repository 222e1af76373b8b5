"""Function x Dialect -> the provider's parameters schema, envelope and loss report.

One :class:`Renderer` per compile and dialect: each shared named schema is rendered once
(memoized by identity, with its losses) and reused by every function that reaches it.
"""

from __future__ import annotations

import functools
import inspect
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from httpllm._memo import IdentityMemo
from httpllm._types import Schema
from httpllm.compose.names import safe_argument_names
from httpllm.compose.parameters import as_validated
from httpllm.compose.prune import Bounded, Sizes, bound
from httpllm.dialects import Dialect, Options, RenderContext
from httpllm.dialects._keywords import exclusive_unions
from httpllm.dialects._recursion import recursive_defs
from httpllm.errors import Unrepresentable
from httpllm.loss import Loss, distinct
from httpllm.pointer import escape
from httpllm.records import Function, evolve
from httpllm.render.depth import limit_depth
from httpllm.render.examples import place_examples
from httpllm.render.unroll import unroll
from httpllm.walk import transform

__all__ = ["STEPS", "Renderer", "Rendering", "Step", "cut_description"]

_FAIL = "$unrepresentable"
_POINTER = "parameters#"
_OUTPUT = "output#"
_SENTENCE = re.compile(r"(?<=[.!?])\s+|\n+")


def cut_description(text: str, limit: int) -> str:
    """Cut ``text`` to at most ``limit`` characters at a sentence boundary (or a word
    boundary when the first sentence is already too long)."""
    if len(text) <= limit:
        return text
    head = text[:limit]
    last = None
    for last in _SENTENCE.finditer(head):  # noqa: B007  # the last boundary is wanted
        pass
    if last is not None and last.start() > limit // 3:
        return head[: last.start()].rstrip()
    space = head.rfind(" ", 0, limit - 1)
    return (head[:space] if space > limit // 3 else head[: limit - 1]).rstrip() + "…"


def _takes_memo(check: Callable[..., list[str]]) -> bool:
    try:
        return "memo" in inspect.signature(check).parameters
    except (TypeError, ValueError):  # no signature to read (a builtin): called without
        return False


class Renderer:
    """Renders neutral functions for one dialect within one compile.

    Args:
        dialect: the provider dialect.
        options: the compile options.
        origins: ``id(shared node) -> document pointer`` of the inlined named schemas.
        output_names: the named schema a shared node of the outputs stands for (the
            ``$defs`` name a bounded output shares it under), or ``None``.
    """

    def __init__(self, dialect: Dialect, options: Options, origins: dict[int, str],
                 output_names: Callable[[Any], str | None] | None = None) -> None:
        self.dialect = dialect
        self.options = options
        self.origins = origins
        self.output_names = output_names
        self.output_sizes = Sizes()
        self._bounded: dict[int, tuple[Any, Bounded | None]] = {}
        self._memo: dict[bool, dict[int, tuple[Any, tuple[Any, ...]]]] = {False: {}, True: {}}
        self._rules_memo: dict[Any, Any] = {}
        self._named_losses: IdentityMemo[Loss] = IdentityMemo()
        self._segments: IdentityMemo[Schema] = IdentityMemo()
        self._visitors: dict[bool, tuple[RenderContext, Callable[[dict[str, Any], str],
                                                                 Schema]]] = {}
        self._limits = _strict_checks(dialect)  # one memo per check for the whole compile

    def _walk(self, schema: Schema, strict: bool, pointer: str) -> tuple[Schema, list[Loss]]:
        ctx, visit = self._visitor(strict)
        ctx.losses, ctx.problems = [], []  # the context is reused: a walk's records are new
        out = transform(schema, visit, pointer=pointer, memo=self._memo[strict],
                        origins=self.origins, sink=ctx.losses)
        return out, ctx.losses

    def _visitor(self, strict: bool) -> tuple[RenderContext, Callable[[dict[str, Any], str],
                                                                     Schema]]:
        """The rule context and node visitor of strict or plain walks (made once each)."""
        made = self._visitors.get(strict)
        if made is not None:
            return made
        ctx = RenderContext(dialect=self.dialect, options=self.options, strict=strict,
                            memo=self._rules_memo)
        # The exclusive-union mark first: no dialect rule, a registered one's included,
        # ever sees it (nor filter_keywords drops it as an unknown keyword).
        rules = (exclusive_unions, *self.dialect.rules,
                 *(self.dialect.strict_rules if strict else ()))
        name = self.dialect.name

        def visit(node: dict[str, Any], at: str) -> Schema:
            ctx.pointer = at
            before = len(ctx.problems)
            for rule in rules:
                out = rule(node, ctx)
                if not isinstance(out, dict):
                    return out
                node = out
            for problem in ctx.problems[before:]:
                ctx.losses.append(Loss(pointer=at, keyword=_FAIL, action="dropped",
                                       dialect=name, note=problem))
            return node

        made = self._visitors[strict] = (ctx, visit)
        return made

    def _keeps(self, strict: bool) -> Callable[[str], bool]:
        """Whether the dialect (in strict mode or not) keeps a keyword; under
        ``strip_constraints`` a ``pattern`` is never kept (it would be moved into the
        description as a loss of a keyword the document never had)."""
        keep = self.dialect.keywords
        if strict and self.dialect.strict_keywords is not None:
            keep = self.dialect.strict_keywords
        strip = self.options.strip_constraints
        return lambda keyword: ((keep is None or keyword in keep)
                                and not (strip and keyword == "pattern"))

    def _name_arguments(self, function: Function, losses: list[Loss]) -> list[Loss]:
        """Losses inside an argument's own schema carry document pointers (the parameter's
        ``schema``), which do not say which argument: name it in the note."""
        if not losses:
            return losses
        where = {self.origins[id(a.schema)]: a.name for a in function.arguments
                 if id(a.schema) in self.origins}
        out = []
        named = self._named_losses
        for loss in losses:
            name = next((n for at, n in where.items()
                         if loss.pointer == at or loss.pointer.startswith(at + "/")), None)
            if name is not None and f"argument {name}" not in loss.note:
                # A shared argument's losses are the same objects in every function that
                # has it: each is renamed once per argument name.
                hit = named.get(loss, name)
                loss = hit if hit is not None else named.put(
                    loss, evolve(loss, note=f"{loss.note} (argument {name})".lstrip()), name)
            out.append(loss)
        return out

    def _argument_note(self, function: Function, text: str) -> str:
        """``text`` with the argument named when it mentions a pointer inside one."""
        for argument in function.arguments:
            at = self.origins.get(id(argument.schema))
            if at and at in text:
                return f"argument {argument.name!r}: {text}"
        return text

    def render(self, function: Function) -> Function:
        """The function as the dialect's provider receives it: :data:`STEPS` in order.

        Raises:
            Unrepresentable: the parameters cannot be expressed in this dialect (e.g.
                recursion for a dialect without ``$ref`` and no ``unroll``).
        """
        job = Rendering(function=function, schema=function.parameters,
                        strict=self.options.strict and self.dialect.has_strict)
        for step in STEPS:
            step(job, self)
        return job.function


@dataclass(slots=True)
class Rendering:
    """One function on its way through :data:`STEPS`.

    Attributes:
        function: the neutral function; the rendered one once :func:`assemble` ran.
        schema: the parameters the model may see, as the dialect spells them so far.
        neutral: the parameters the rules start from (after unrolling), for a fallback.
        strict: rendered in the dialect's strict mode (``False`` after a fallback).
        unrolled: losses of expanding ``$ref``s before the rules (:func:`unroll_refs`).
        losses: losses of the rule walk (:func:`apply_rules`) and of expanding the
            rendered ``$defs`` (:func:`unroll_rendered`).
    """

    function: Function
    schema: Schema
    strict: bool
    neutral: Schema = None
    unrolled: list[Loss] = field(default_factory=list)
    losses: list[Loss] = field(default_factory=list)


Step = Callable[[Rendering, Renderer], None]
"""A render step: ``(job, renderer) -> None``, updating ``job``; it reads the dialect's
fields to know whether it has anything to do."""


@functools.cache
def _fits(pattern: str) -> Callable[[str], object]:
    return re.compile(pattern).fullmatch


def _renamed(schema: Schema, names: Mapping[str, str]) -> Schema:
    """A parameters object with its ``properties`` and ``required`` renamed (a copy)."""
    if not isinstance(schema, dict) or not isinstance(schema.get("properties"), dict):
        return schema
    out = {**schema, "properties": {names.get(k, k): v for k, v in schema["properties"].items()}}
    if isinstance(schema.get("required"), list):
        out["required"] = [names.get(k, k) for k in schema["required"]]
    return out


def rename_arguments(job: Rendering, renderer: Renderer) -> None:
    """Arguments named otherwise than the dialect takes (``Dialect.argument_pattern``:
    Anthropic refuses the whole tool list over one such property key) get names it takes
    (:func:`~httpllm.compose.names.safe_argument_names`), alike in the parameters, their
    ``required``, ``Function.schema`` (what ``validate`` checks), the parameter map and the
    examples, so every later step sees only those; each is a ``renamed`` loss.
    ``Argument.original`` keeps the document's name, which the request sends. An argument
    the host supplies (``separated``) is never sent to the provider and keeps its name."""
    dialect, function = renderer.dialect, job.function
    pattern = dialect.argument_pattern
    if pattern is None:
        return
    fits = _fits(pattern)
    refused = {a.name: a.location for a in function.arguments
               if not a.separated and not fits(a.name)}
    if not refused:
        return
    names = safe_argument_names(refused, dialect.argument_characters, dialect.argument_max,
                                [a.name for a in function.arguments if a.name not in refused])
    losses = tuple(Loss(pointer=f"{_POINTER}/properties/{escape(old)}", keyword="name",
                        action="renamed", value=old, dialect=dialect.name,
                        note=f"argument {old!r} is named {new!r}: {dialect.name} takes "
                             f"argument names matching {pattern}; the request still sends "
                             f"{old!r}")
                   for old, new in names.items())
    schema = _renamed(function.schema, names)
    job.schema = schema if job.schema is function.schema else _renamed(job.schema, names)
    job.function = evolve(
        function, parameters=job.schema, schema=schema, losses=(*function.losses, *losses),
        arguments=tuple(evolve(a, name=names[a.name]) if a.name in names else a
                        for a in function.arguments),
        examples=tuple({names.get(k, k): v for k, v in e.items()} if isinstance(e, dict)
                       else e for e in function.examples))


def validated(job: Rendering, renderer: Renderer) -> None:
    """The neutral parameters as the model may see them, saying what ``validate``
    enforces where the dialect can (a closed object, path-segment patterns; issue 18):
    :func:`~httpllm.compose.parameters.as_validated`. Strict modes close objects
    themselves."""
    job.schema = as_validated(job.schema, job.function.arguments,
                              renderer._keeps(job.strict), renderer._segments, job.strict,
                              close=not job.strict)


def unroll_refs(job: Rendering, renderer: Renderer) -> None:
    """A dialect without ``$ref`` (``refs="inline"``): expand the ``$defs`` the
    parameters keep (recursion ``Options.unroll`` levels deep), before the rules."""
    schema, dialect = job.schema, renderer.dialect
    if dialect.refs == "inline" and isinstance(schema, dict) and "$defs" in schema:
        job.schema, job.unrolled = unroll(schema, renderer.options.unroll, dialect.name,
                                          pointer=job.function.pointer)


def unroll_rendered(job: Rendering, renderer: Renderer) -> None:
    """Expand the rendered parameters' ``$defs`` where the dialect's data asks for it
    after the rules: ``refs="on-request"`` with ``Options.unroll`` given, or a strict
    mode without recursion (``strict_recursion=False``) whose ``$defs`` are recursive,
    which without ``Options.unroll`` makes the function leave strict mode. The same
    :func:`~httpllm.render.unroll.unroll` as :func:`unroll_refs`, on the rendered
    schema; its losses follow the rules'."""
    schema, dialect, depth = job.schema, renderer.dialect, renderer.options.unroll
    if not isinstance(schema, dict) or not isinstance(schema.get("$defs"), dict):
        return
    if dialect.refs == "on-request" and depth is not None:
        job.schema, lost = unroll(schema, depth, dialect.name, pointer=job.function.pointer)
        job.losses.extend(lost)
        return
    recursive = recursive_defs(schema) if job.strict and not dialect.strict_recursion else ()
    if not recursive:
        return
    problem = (f"recursive schemas ({', '.join(recursive)}) are not supported in strict "
               "mode; pass unroll=N to expand them")
    if depth is not None:
        try:
            job.schema, lost = unroll(schema, depth, dialect.name, pointer=_POINTER,
                                      limits=_strict_checks(dialect))
            job.losses.extend(lost)
            return
        except Unrepresentable as exc:
            problem = exc.message
    # a node strict mode cannot express: the strict-limits step falls back to non-strict
    job.losses.append(Loss(pointer=_POINTER, keyword=_FAIL, action="dropped",
                           dialect=dialect.name, note=f"{_POINTER}: {problem}"))


def _strict_checks(dialect: Dialect) -> Callable[[Schema], list[str]]:
    """``schema -> problems`` of the dialect's strict limits; a check that takes ``memo``
    gets one dict for every schema this callable sees (the functions of a compile, or the
    parts of one unrolling, share subtrees)."""
    checks: list[tuple[Callable[..., list[str]], dict[int, Any] | None]] = [
        (check, {} if _takes_memo(check) else None) for check in dialect.strict_limits]
    return lambda schema: [p for check, memo in checks
                           for p in (check(schema) if memo is None else check(schema, memo=memo))]


def apply_rules(job: Rendering, renderer: Renderer) -> None:
    """The dialect's node rules (and strict rules) over every node, children first, each
    node first through ``exclusive_unions`` (``oneOf`` or ``anyOf`` for the exclusive-union
    mark of normalize, which no tool carries)."""
    job.neutral = job.schema
    try:
        job.schema, job.losses = renderer._walk(job.schema, job.strict, _POINTER)
    except Unrepresentable as exc:
        raise Unrepresentable(renderer._argument_note(job.function, exc.message),
                              pointer=job.function.pointer) from exc


def check_strict_limits(job: Rendering, renderer: Renderer) -> None:
    """Strict mode past a size limit, or with a node no strict rule could express: the
    function is rendered again without strict mode, with a ``fallback`` loss."""
    if not job.strict:
        return
    problems = renderer._limits(job.schema)
    problems += [loss.note for loss in job.losses if loss.keyword == _FAIL]
    if problems:
        neutral = as_validated(job.neutral, job.function.arguments, renderer._keeps(False),
                               renderer._segments, False)
        schema, losses = renderer._walk(neutral, False, _POINTER)
        job.schema, job.losses, job.strict = schema, [*losses, Loss(
            pointer=_POINTER, keyword="strict", action="fallback",
            dialect=renderer.dialect.name, note="; ".join(problems))], False
        unroll_rendered(job, renderer)  # the non-strict rendering, as a first one would be


def name_arguments(job: Rendering, renderer: Renderer) -> None:
    """Losses inside an argument's schema name the argument; a node the dialect cannot
    express makes the function an error."""
    job.losses = renderer._name_arguments(job.function, job.losses)
    failures = [loss.note for loss in job.losses if loss.keyword == _FAIL]
    if failures:
        raise Unrepresentable(failures[0], pointer=job.function.pointer)


def assemble(job: Rendering, renderer: Renderer) -> None:
    """The rendered function: parameters, losses, a description cut to the dialect's
    ``description_max``, the ``decode`` flag."""
    dialect, options, function = renderer.dialect, renderer.options, job.function
    losses = [*function.losses, *job.unrolled, *job.losses]
    described = function.description
    if dialect.description_max is not None and len(described) > dialect.description_max:
        described = cut_description(described, dialect.description_max)
        losses.append(Loss(pointer=function.pointer + "/description", keyword="description",
                           action="truncated", value=function.description,
                           dialect=dialect.name,
                           note=f"cut to {dialect.description_max} characters"))
    decodes = dialect.decodes or (options.collapse_deep and options.max_depth is not None)
    extra = {**function.extra, "decode": True} if decodes else function.extra
    job.function = evolve(function, parameters=job.schema, strict=job.strict,
                          description=described, losses=tuple(losses), dialect=dialect.name,
                          extra=extra)


def outputs(job: Rendering, renderer: Renderer) -> None:
    """A dialect with ``output_max`` (MCP): the output schema within that many bytes
    (:func:`~httpllm.compose.prune.bound`: repeats shared, deep levels cut to stubs,
    a ``cut`` loss and a note in the schema's description), then the dialect's rules
    over it (ECMA-262 patterns), their losses at ``output#`` pointers."""
    limit, function = renderer.dialect.output_max, job.function
    output = function.output if limit is not None else None
    if output is None or limit is None:
        return
    hit = renderer._bounded.get(id(output))
    if hit is None or hit[0] is not output:
        hit = renderer._bounded[id(output)] = (output, bound(
            output, limit, names=renderer.output_names, sizes=renderer.output_sizes))
    bounded = hit[1]
    losses = list(function.losses)
    schema = output if bounded is None else bounded.schema
    if bounded is not None and bounded.cut:
        schema = _noted(schema, bounded, limit)
        losses.append(Loss(pointer=_OUTPUT, keyword="outputSchema", action="cut",
                           dialect=renderer.dialect.name, note=_cut_note(bounded, limit)))
    rendered, lost = renderer._walk(schema, False, _OUTPUT)
    if rendered is output:
        return
    job.function = evolve(function, losses=(*losses, *lost),
                          output_source=functools.partial(_same, rendered))


def _same(value: Any) -> Any:
    return value


def _cut_note(bounded: Bounded, limit: int) -> str:
    kept = ("no level" if bounded.levels == -1 else
            f"{bounded.levels + 1} level{'s' if bounded.levels else ''}"  # type: ignore[operator]
            )
    return (f"output schema of {bounded.before:,} bytes cut to {bounded.after:,} (limit "
            f"{limit:,}): {kept} kept, deeper values described by their type only")


def _noted(schema: Schema, bounded: Bounded, limit: int) -> Schema:
    """The bounded output with a sentence saying it was cut (for a model reading it)."""
    if not isinstance(schema, dict):
        return schema
    note = (f"(Schema shortened to fit {limit // 1024} KiB: values below "
            f"{'the top' if bounded.levels == -1 else f'level {(bounded.levels or 0) + 1}'}"
            " are not described.)")
    text = schema.get("description")
    return {**schema, "description": f"{text}\n\n{note}" if isinstance(text, str) and text
            else note}


def finish(job: Rendering, renderer: Renderer) -> None:
    """The dialect's ``finish`` on the parameters root, once."""
    dialect, rendered = renderer.dialect, job.function
    if dialect.finish is not None:
        ctx = RenderContext(dialect=dialect, options=renderer.options,
                            losses=list(rendered.losses))
        params = dialect.finish(rendered.parameters, rendered, ctx)
        job.function = evolve(rendered, parameters=params, losses=tuple(ctx.losses))


def depth(job: Rendering, renderer: Renderer) -> None:
    """``Options.max_depth`` for every dialect (:func:`~httpllm.render.depth.limit_depth`:
    too deep is an error, or with ``collapse_deep`` JSON text, with a loss)."""
    if renderer.options.max_depth is None:
        return
    rendered = job.function
    ctx = RenderContext(dialect=renderer.dialect, options=renderer.options,
                        losses=list(rendered.losses))
    params = limit_depth(rendered.parameters, rendered, ctx)
    if params is not rendered.parameters:
        job.function = evolve(rendered, parameters=params, losses=tuple(ctx.losses))


def examples(job: Rendering, renderer: Renderer) -> None:
    """The operation's examples where the dialect takes them (or the description)."""
    job.function = place_examples(job.function, renderer.dialect, renderer.options)


def distinct_losses(job: Rendering, renderer: Renderer) -> None:
    """Each loss once per function (:func:`httpllm.loss.distinct`)."""
    losses = job.function.losses
    if len(losses) > 1:
        unique = distinct(losses)
        if len(unique) < len(losses):
            job.function = evolve(job.function, losses=unique)


STEPS: tuple[Step, ...] = (rename_arguments, validated, unroll_refs, apply_rules,
                           unroll_rendered, check_strict_limits, name_arguments, assemble,
                           outputs, finish, depth, examples, distinct_losses)
"""The render steps, in order. New step = one function here + one entry."""
