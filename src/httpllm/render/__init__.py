"""Function x Dialect -> the provider's parameters schema, envelope and loss report.

One :class:`Renderer` per compile and dialect runs :data:`STEPS`, each a :data:`Step`
``(job, ctx) -> None`` over one :class:`Rendering` with the compile's :class:`StepContext`:
each shared named schema is rendered once (memoized by identity, with its losses and
failures) and reused by every function that reaches it.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from httpllm._limits import DEFAULT_LIMITS
from httpllm._memo import IdentityMemo
from httpllm._types import Schema
from httpllm.compose.names import safe_argument_names
from httpllm.compose.parameters import as_validated
from httpllm.compose.prune import Bounded, Sizes, bound
from httpllm.dialects import Dialect, Options, RenderContext, StrictLimit
from httpllm.dialects._base import rule_triggers
from httpllm.dialects._keywords import exclusive_unions
from httpllm.dialects._recursion import recursive_defs
from httpllm.errors import Unrepresentable
from httpllm.loss import Failure, Loss, distinct
from httpllm.pointer import escape
from httpllm.records import Function, evolve
from httpllm.render.depth import limit_depth
from httpllm.render.examples import place_examples
from httpllm.render.split import split
from httpllm.render.unroll import unroll
from httpllm.walk import FoldMemo, Placed, is_leaf, subschemas, transform

__all__ = ["STEPS", "Renderer", "Rendering", "Step", "StepContext", "cut_description",
           "plain_leaf", "strict_checks", "strict_leaf"]

_POINTER = "parameters#"
_OUTPUT = "output#"
_SENTENCE = re.compile(r"(?<=[.!?])\s+|\n+")


def cut_description(text: str, limit: int) -> str:
    """Cut ``text`` to at most ``limit`` characters at a sentence boundary (or a word
    boundary when the first sentence is already too long)."""
    if len(text) <= limit:
        return text
    head = text[:limit]
    last = _last_boundary(head, limit // 3)
    if last > limit // 3:
        return head[:last].rstrip()
    space = head.rfind(" ", 0, limit - 1)
    return (head[:space] if space > limit // 3 else head[: limit - 1]).rstrip() + "…"


def _last_boundary(head: str, floor: int) -> int:
    """Where the last sentence boundary (a match of ``_SENTENCE``) of ``head`` starts, or
    -1 when none starts after ``floor``. Scans the end of ``head`` first, from ever
    earlier places, each a whitespace run's start or a character after a non-space:
    a boundary is whitespace, so none begun before such a place reaches past it, and the
    scan from there finds what a scan from the start would (the lookbehind still reads
    the character before). Scanning all of ``head`` cost 98 GitHub descriptions cut for
    chatgpt as much as a fifth of the walks of all 1,223 functions' parameters (a
    match, or a failed attempt, at each space)."""
    pos = len(head)
    while pos > floor + 1:
        pos = max(floor + 1, pos - 256)
        while pos > 0 and head[pos - 1].isspace():
            pos -= 1
        last = -1
        for match in _SENTENCE.finditer(head, pos):
            last = match.start()
        if last > floor:
            return last
    return -1


class StepContext:
    """What a render step may read besides its job: one per compile and dialect, shared by
    every function rendered (so each shared named schema is rendered once, memoized by
    identity, with its losses and failures).

    Attributes:
        dialect: the provider dialect.
        options: the compile options.
        origins: ``id(shared node) -> document pointer`` of the inlined named schemas.
        claim: hands out a unique valid function name for a raw one (the compile's name
            pool), or ``None``: the functions are not named within a compile (the
            discovery trio, code mode's pair) and are never split.
        output_names: the named schema a shared node of the outputs stands for (the
            ``$defs`` name a bounded output shares it under), or ``None``.
        output_sizes: the byte sizes of output subtrees measured so far
            (:class:`~httpllm.compose.prune.Sizes`).
        rendered_outputs: ``id(output) -> (output, rendering)``: each output bounded and
            walked once (:func:`outputs`).
        segments: the path-segment patterns :func:`validated` made, by argument schema.
        strict_limits: ``schema -> problems`` of the dialect's strict limits
            (:data:`~httpllm.dialects.StrictLimit`), with one memo per check for the whole
            compile.
    """

    __slots__ = ("_held", "_inert", "_named_losses", "_placed", "_plain_leaf", "_rules_memo",
                 "_strict_leaf", "_visitors", "_walk_memo",
                 "claim", "dialect", "options", "origins", "output_names",
                 "output_sizes", "rendered_outputs", "segments", "strict_limits")

    def __init__(self, dialect: Dialect, options: Options, origins: dict[int, str], *,
                 claim: Callable[[str], str] | None = None,
                 output_names: Callable[[Any], str | None] | None = None) -> None:
        self.dialect = dialect
        self.options = options
        self.origins = origins
        self.claim = claim
        self.output_names = output_names
        self.output_sizes = Sizes()
        self.rendered_outputs: dict[int, tuple[Any, tuple[Schema | None,
                                                          tuple[Loss, ...]] | None]] = {}
        self.segments: IdentityMemo[Schema] = IdentityMemo()
        self.strict_limits = strict_checks(dialect)
        self._walk_memo: dict[bool, dict[int, tuple[Any, tuple[Any, ...]]]] = {
            False: {}, True: {}}
        self._placed: dict[bool, Placed] = {False: Placed(), True: Placed()}
        self._rules_memo: dict[Any, Any] = {}
        self._inert: dict[int, int] = {}  # id(node) -> height if the rules keep it, else -1
        self._held: list[Any] = []  # the roots whose nodes ``_inert`` holds by id
        self._named_losses: IdentityMemo[Loss] = IdentityMemo()
        self._visitors: dict[bool, tuple[RenderContext, list[Loss | Failure],
                                         Callable[[dict[str, Any], str], Schema]]] = {}
        self._strict_leaf = strict_leaf(dialect, options)
        self._plain_leaf = plain_leaf(dialect, options)

    def walk(self, schema: Schema, strict: bool, pointer: str
             ) -> tuple[Schema, list[Loss], list[Failure]]:
        """``schema`` through the dialect's rules (and strict rules), every node children
        first, each node first through ``exclusive_unions``: ``(rendered, losses,
        failures)``, both lists new. Shared named schemas (``origins``) are rendered once
        per compile and hand over their losses and failures wherever they are met again.
        So is an argument's schema that several functions share without it being a named
        schema (a path parameter's, one object made by :func:`validated` for every
        function with that parameter; GitHub: ``owner`` in 526 functions), once per
        compile and pointer (the argument's name): its losses carry that pointer, and
        the rules read nothing else of its place (:data:`~httpllm.walk.Placed`). A
        strict walk skips the leaves no rule can change (:func:`strict_leaf`).

        Raises:
            Unrepresentable: a rule refused a node outright.
        """
        ctx, records, visit = self._visitor(strict)
        records.clear()  # a walk a rule ended (Unrepresentable) may have left some
        ctx.losses.clear()
        ctx.problems.clear()
        out = transform(schema, visit, pointer=pointer, memo=self._walk_memo[strict],
                        origins=self.origins, sink=records,
                        leaf=self._strict_leaf if strict else None,
                        placed=self._placed[strict])
        losses = [r for r in records if isinstance(r, Loss)]
        failures = ([r for r in records if isinstance(r, Failure)]
                    if len(losses) < len(records) else [])
        return out, losses, failures

    def inert(self, schema: Schema) -> bool:
        """Whether :meth:`walk` (not strict) would give ``schema`` itself, no loss and no
        failure: no rule changes or records anything at any of its nodes (each distinct
        node asked once per compile, so the functions that share a named schema do not
        walk it each), and it is shallower than a walk's ``walk_depth`` (deeper, the
        walk raises). What the render step :func:`outputs` asks before it walks an output
        (GitHub's MCP outputs: 466 walks, none changed anything). A leaf no rule can
        change (:func:`plain_leaf`) is kept without a visit."""
        if not isinstance(schema, dict):
            return True
        self._held.append(schema)
        known, leaf, untouched = self._inert, is_leaf, self._plain_leaf
        ctx, records, visit = self._visitor(False)
        records.clear()  # (what the last walk recorded, read already)
        ctx.losses.clear()
        ctx.problems.clear()

        def kept(node: dict[str, Any]) -> bool:
            """Whether the rules give ``node`` itself and record nothing (a visit leaves
            the rule context's losses and problems empty, its records in ``records``)."""
            if visit(node, _OUTPUT) is node and not records:
                return True
            records.clear()
            return False

        # (node, None) on the way down; (node, its object subschemas) once they are stacked
        stack: list[tuple[dict[str, Any], list[Any] | None]] = [(schema, None)]
        while stack:
            node, subs = stack.pop()
            if id(node) in known:
                continue  # met again, on another path
            if subs is None:
                subs = [sub for sub in subschemas(node) if isinstance(sub, dict)]
                stack.append((node, subs))
                for sub in subs:
                    if id(sub) in known:
                        continue
                    if leaf(sub):  # most nodes: asked at once, never stacked
                        known[id(sub)] = 0 if (untouched is not None and untouched(sub)
                                               is not None) or kept(sub) else -1
                    else:
                        stack.append((sub, None))
                continue
            height = _height(known, subs)
            known[id(node)] = height if height >= 0 and kept(node) else -1
        return 0 <= known[id(schema)] < DEFAULT_LIMITS.walk_depth

    def _visitor(self, strict: bool) -> tuple[RenderContext, list[Loss | Failure],
                                              Callable[[dict[str, Any], str], Schema]]:
        """The rule context, records and node visitor of strict or plain walks (made once
        each): the rules' losses and failures of a node go to the records once its rules
        ran, which ``transform`` keeps with each memoized subtree."""
        made = self._visitors.get(strict)
        if made is not None:
            return made
        ctx = RenderContext(dialect=self.dialect, options=self.options, strict=strict,
                            memo=self._rules_memo)
        records: list[Loss | Failure] = []
        # The exclusive-union mark first: no dialect rule, a registered one's included,
        # ever sees it (nor filter_keywords drops it as an unknown keyword).
        rules = (exclusive_unions, *self.dialect.rules,
                 *(self.dialect.strict_rules if strict else ()))

        def visit(node: dict[str, Any], at: str) -> Schema:
            ctx.pointer = at
            lost, failed = ctx.losses, ctx.problems
            for rule in rules:
                out = rule(node, ctx)
                if not isinstance(out, dict):
                    if lost:
                        records.extend(lost)
                        lost.clear()
                    failed.clear()  # the node is gone: nothing of it is left to express
                    return out
                node = out
            if lost:
                records.extend(lost)
                lost.clear()
            if failed:
                records.extend(failed)
                failed.clear()
            return node

        made = self._visitors[strict] = (ctx, records, visit)
        return made

    def keeps(self, strict: bool) -> Callable[[str], bool]:
        """Whether the dialect (in strict mode or not) keeps a keyword; under
        ``strip_constraints`` a ``pattern`` is never kept (it would be moved into the
        description as a loss of a keyword the document never had)."""
        keep = self.dialect.kept_keywords(strict)
        strip = self.options.strip_constraints
        return lambda keyword: ((keep is None or keyword in keep)
                                and not (strip and keyword == "pattern"))

    def _argument_at(self, function: Function) -> dict[str, str]:
        """``document pointer -> argument name`` of the arguments whose schema is shared."""
        return {self.origins[id(a.schema)]: a.name for a in function.arguments
                if id(a.schema) in self.origins}

    def name_arguments(self, function: Function, losses: list[Loss]) -> list[Loss]:
        """Losses inside an argument's own schema carry document pointers (the parameter's
        ``schema``), which do not say which argument: name it in the note."""
        if not losses:
            return losses
        where = self._argument_at(function)
        if not where:
            return losses
        out = []
        named = self._named_losses
        for loss in losses:
            name = _argument_of(loss.pointer, where)
            if name is not None and f"argument {name}" not in loss.note:
                # A shared argument's losses are the same objects in every function that
                # has it: each is renamed once per argument name.
                hit = named.get(loss, name)
                loss = hit if hit is not None else named.put(
                    loss, evolve(loss, note=f"{loss.note} (argument {name})".lstrip()), name)
            out.append(loss)
        return out

    def name_failures(self, function: Function, failures: list[Failure]) -> list[Failure]:
        """Failures inside an argument's own schema with that argument named (as
        :meth:`name_arguments` names losses)."""
        if not failures:
            return failures
        where = self._argument_at(function)
        out = []
        for failure in failures:
            name = _argument_of(failure.pointer, where)
            if name is not None and f"argument {name}" not in failure.message:
                failure = evolve(failure, argument=name)
            out.append(failure)
        return out

    def argument_note(self, function: Function, text: str) -> str:
        """``text`` with the argument named when it mentions a pointer inside one."""
        for argument in function.arguments:
            at = self.origins.get(id(argument.schema))
            if at and at in text:
                return f"argument {argument.name!r}: {text}"
        return text


def strict_leaf(dialect: Dialect, options: Options
                ) -> Callable[[dict[str, Any]], Any] | None:
    """The ``leaf`` of strict rule walks (:func:`~httpllm.walk.transform`): a leaf (no
    subschema) whose ``type`` is one string other than ``"object"`` and whose keywords the
    dialect keeps in strict mode, none a trigger of a rule, given back unvisited; else
    ``None`` (the leaf is visited). What every rule of the strict walk
    (``exclusive_unions``, ``rules``, ``strict_rules``) declares with
    :func:`~httpllm.dialects._base.leaf_triggers`; ``None`` (every leaf visited) when
    one rule declares nothing, or under ``strip_constraints`` (which moves kept
    constraints). GitHub's description: 3,835 of a chatgpt strict compile's 6,719
    visits were such leaves."""
    if not dialect.strict_rules:
        return None
    keep = dialect.kept_keywords(strict=True)
    return _untouched_leaf((exclusive_unions, *dialect.rules, *dialect.strict_rules), keep,
                           options)


def plain_leaf(dialect: Dialect, options: Options
               ) -> Callable[[dict[str, Any]], Any] | None:
    """:func:`strict_leaf` for walks that are not strict (``exclusive_unions`` and the
    dialect's ``rules``, the keywords it keeps): what :meth:`StepContext.inert` skips."""
    return _untouched_leaf((exclusive_unions, *dialect.rules), dialect.keywords, options)


def _untouched_leaf(rules: Sequence[Callable[..., Any]], keep: frozenset[str] | None,
                    options: Options) -> Callable[[dict[str, Any]], Any] | None:
    """The leaf ``rules`` all give back unchanged, with nothing recorded, when the dialect
    keeps the keywords ``keep`` (``None``: all): see :func:`strict_leaf`."""
    declared = [rule_triggers(rule) for rule in rules]
    if options.strip_constraints or None in declared:
        return None
    triggers = frozenset().union(*(d for d in declared if d is not None))

    if keep is None:
        def untouched(node: dict[str, Any]) -> Any:
            kind = node.get("type")
            return (node if kind.__class__ is str and kind != "object"
                    and triggers.isdisjoint(node) else None)

        return untouched
    allowed = keep - triggers

    def kept(node: dict[str, Any]) -> Any:
        kind = node.get("type")
        return (node if kind.__class__ is str and kind != "object"
                and allowed.issuperset(node) else None)

    return kept


def _argument_of(pointer: str, where: dict[str, str]) -> str | None:
    """The argument whose schema's pointer ``pointer`` is or lies below, or ``None``
    (a loop: this runs for every loss of a strict compile, thousands)."""
    for at, name in where.items():
        if pointer.startswith(at) and (len(pointer) == len(at) or pointer[len(at)] == "/"):
            return name
    return None


class Renderer:
    """Renders neutral functions for one dialect within one compile: :data:`STEPS` over
    each, with one :class:`StepContext`.

    Args:
        dialect: the provider dialect.
        options: the compile options.
        origins: ``id(shared node) -> document pointer`` of the inlined named schemas.
        output_names: see :class:`StepContext`.
        claim: see :class:`StepContext` (without it no function is split).
        steps: the steps to run, :data:`STEPS` as it is when the renderer is made unless
            given.
    """

    def __init__(self, dialect: Dialect, options: Options, origins: dict[int, str],
                 output_names: Callable[[Any], str | None] | None = None, *,
                 claim: Callable[[str], str] | None = None,
                 steps: Sequence[Step] | None = None) -> None:
        self.context = StepContext(dialect, options, origins, claim=claim,
                                   output_names=output_names)
        self.steps: tuple[Step, ...] = tuple(STEPS if steps is None else steps)

    def render(self, function: Function) -> list[Function]:
        """The function as the dialect's provider receives it: the steps in order; one
        function per part when a step splits it (:func:`split_unions`), each part through
        the steps after that one, in order.

        Raises:
            Unrepresentable: the parameters cannot be expressed in this dialect (e.g.
                recursion for a dialect without ``$ref`` and no ``unroll``).
        """
        return self._run(function, 0)

    def _run(self, function: Function, first: int) -> list[Function]:
        ctx = self.context
        job = Rendering(function=function, schema=function.parameters,
                        strict=ctx.options.strict and ctx.dialect.has_strict)
        for index in range(first, len(self.steps)):
            self.steps[index](job, ctx)
            if job.parts:
                return [done for part in job.parts for done in self._run(part, index + 1)]
        return [job.function]


@dataclass(slots=True)
class Rendering:
    """One function on its way through :data:`STEPS`.

    Attributes:
        function: the neutral function; the rendered one once :func:`assemble` ran.
        schema: the parameters the model may see, as the dialect spells them so far.
        neutral: the parameters the rules start from (after unrolling), for a fallback.
        strict: rendered in the dialect's strict mode (``False`` after a fallback).
        unrolled: losses of expanding ``$ref``s before the rules (:func:`unroll_refs`).
        losses: losses a step before the rules recorded, then those of the rule walk
            (:func:`apply_rules`) and of expanding the rendered ``$defs``
            (:func:`unroll_rendered`); a fallback replaces all but the first.
        failures: the nodes the dialect could not express (a strict rule's
            ``ctx.fail``, recursion a strict mode cannot take): in strict mode the reason
            to fall back (:func:`check_strict_limits`), otherwise an error
            (:func:`name_arguments`). Never in the loss report.
        ruled: how many ``losses`` the steps before the rules recorded (set by
            :func:`apply_rules`; :func:`fall_back` keeps them).
        fallback: why the function leaves strict mode, once :func:`check_strict_limits`
            found a reason (:func:`fall_back` renders it again, non-strict), or ``None``.
        parts: the functions this one became (:func:`split_unions`): each runs the steps
            after the one that set it as a job of its own; ``()`` otherwise.
    """

    function: Function
    schema: Schema
    strict: bool
    neutral: Schema = None
    unrolled: list[Loss] = field(default_factory=list)
    losses: list[Loss] = field(default_factory=list)
    failures: list[Failure] = field(default_factory=list)
    ruled: int = 0
    fallback: str | None = None
    parts: tuple[Function, ...] = ()


Step = Callable[[Rendering, StepContext], None]
"""A render step: ``(job, ctx) -> None``, updating ``job``; it reads only ``job`` and the
public fields of ``ctx``, and the dialect's and options' fields to know whether it has
anything to do."""


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


def split_unions(job: Rendering, ctx: StepContext) -> None:
    """``Options.split_unions``: a union request body makes the function one part per
    variant (:func:`~httpllm.render.split.split`, names from ``ctx.claim``), each part
    rendered by the steps after this one. Without ``ctx.claim`` nothing is split."""
    if not ctx.options.split_unions or ctx.claim is None:
        return
    parts = split(job.function, ctx.origins, ctx.claim)
    if len(parts) > 1 or parts[0] is not job.function:
        job.parts = tuple(parts)


def rename_arguments(job: Rendering, ctx: StepContext) -> None:
    """Arguments named otherwise than the dialect takes (``Dialect.argument_pattern``:
    Anthropic refuses the whole tool list over one such property key) get names it takes
    (:func:`~httpllm.compose.names.safe_argument_names`), alike in the parameters, their
    ``required``, ``Function.schema`` (what ``validate`` checks), the parameter map and the
    examples, so every later step sees only those; each is a ``renamed`` loss.
    ``Argument.original`` keeps the document's name, which the request sends. An argument
    the host supplies (``separated``) is never sent to the provider and keeps its name."""
    dialect, function = ctx.dialect, job.function
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


def validated(job: Rendering, ctx: StepContext) -> None:
    """The neutral parameters as the model may see them, saying what ``validate``
    enforces where the dialect can (a closed object, path-segment patterns; issue 18):
    :func:`~httpllm.compose.parameters.as_validated`. Strict modes close objects
    themselves."""
    job.schema = as_validated(job.schema, job.function.arguments,
                              ctx.keeps(job.strict), ctx.segments, job.strict,
                              close=not job.strict)


def unroll_refs(job: Rendering, ctx: StepContext) -> None:
    """A dialect without ``$ref`` (``refs="inline"``): expand the ``$defs`` the
    parameters keep (recursion ``Options.unroll`` levels deep), before the rules."""
    schema, dialect = job.schema, ctx.dialect
    if dialect.refs == "inline" and isinstance(schema, dict) and "$defs" in schema:
        job.schema, job.unrolled = unroll(schema, ctx.options.unroll, dialect.name,
                                          pointer=job.function.pointer)


def _on_request(schema: Schema, ctx: StepContext, pointer: str
                ) -> tuple[Schema, list[Loss]] | None:
    """``refs="on-request"`` with ``Options.unroll`` given: the rendered ``$defs``
    expanded; ``None`` when there is nothing to do."""
    depth = ctx.options.unroll
    if (ctx.dialect.refs != "on-request" or depth is None or not isinstance(schema, dict)
            or not isinstance(schema.get("$defs"), dict)):
        return None
    return unroll(schema, depth, ctx.dialect.name, pointer=pointer)


def unroll_rendered(job: Rendering, ctx: StepContext) -> None:
    """Expand the rendered parameters' ``$defs`` where the dialect's data asks for it
    after the rules: ``refs="on-request"`` with ``Options.unroll`` given, or a strict
    mode without recursion (``strict_recursion=False``) whose ``$defs`` are recursive,
    which without ``Options.unroll`` is a failure (the function leaves strict mode). The
    same :func:`~httpllm.render.unroll.unroll` as :func:`unroll_refs`, on the rendered
    schema; its losses follow the rules'."""
    schema, dialect, depth = job.schema, ctx.dialect, ctx.options.unroll
    if not isinstance(schema, dict) or not isinstance(schema.get("$defs"), dict):
        return
    expanded = _on_request(schema, ctx, job.function.pointer)
    if expanded is not None:
        job.schema, lost = expanded
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
                                      limits=strict_checks(dialect))
            job.losses.extend(lost)
            return
        except Unrepresentable as exc:
            problem = exc.message
    job.failures.append(Failure(pointer=_POINTER, reason=problem))


def strict_checks(dialect: Dialect) -> Callable[[Schema], list[str]]:
    """``schema -> problems`` of the dialect's strict limits
    (:data:`~httpllm.dialects.StrictLimit`), each check given one memo dict of its own for
    every schema this callable sees (the functions of a compile, or the parts of one
    unrolling, share subtrees)."""
    checks: list[tuple[StrictLimit, FoldMemo]] = [
        (check, FoldMemo()) for check in dialect.strict_limits]
    return lambda schema: [p for check, memo in checks for p in check(schema, memo)]


def apply_rules(job: Rendering, ctx: StepContext) -> None:
    """The dialect's node rules (and strict rules) over every node, children first, each
    node first through ``exclusive_unions`` (``oneOf`` or ``anyOf`` for the exclusive-union
    mark of normalize, which no tool carries): :meth:`StepContext.walk`."""
    job.neutral = job.schema
    job.ruled = len(job.losses)  # what the steps before recorded stays through a fallback
    try:
        job.schema, losses, failures = ctx.walk(job.schema, job.strict, _POINTER)
        job.losses.extend(losses)
        job.failures.extend(failures)
    except Unrepresentable as exc:
        raise Unrepresentable(ctx.argument_note(job.function, exc.message),
                              pointer=job.function.pointer) from exc


def check_strict_limits(job: Rendering, ctx: StepContext) -> None:
    """Strict mode past a size limit (``ctx.strict_limits``, measured on the tool as
    sent), or with failures: ``job.fallback`` says why, for :func:`fall_back`."""
    if not job.strict:
        return
    problems = ctx.strict_limits(job.schema)
    problems += [failure.message for failure in job.failures]
    if problems:
        job.fallback = "; ".join(problems)


def fall_back(job: Rendering, ctx: StepContext) -> None:
    """A function with a ``fallback`` reason rendered again without strict mode, as a
    first non-strict rendering would be (the rules over the neutral parameters, the
    on-request unrolling), with a ``strict`` ``fallback`` loss after the rules' losses."""
    if job.fallback is None:
        return
    neutral = as_validated(job.neutral, job.function.arguments, ctx.keeps(False),
                           ctx.segments, False)
    schema, losses, failures = ctx.walk(neutral, False, _POINTER)
    losses.append(Loss(pointer=_POINTER, keyword="strict", action="fallback",
                       dialect=ctx.dialect.name, note=job.fallback))
    expanded = _on_request(schema, ctx, job.function.pointer)
    if expanded is not None:
        schema, lost = expanded
        losses.extend(lost)
    # the losses the steps before the rules recorded stay, the strict walk's are replaced;
    # every failure was a reason for the fallback, which its loss quotes
    job.losses = [*job.losses[:job.ruled], *losses]
    job.schema, job.failures, job.strict = schema, failures, False


def name_arguments(job: Rendering, ctx: StepContext) -> None:
    """Losses and failures inside an argument's schema name the argument; a failure left
    (outside strict mode) makes the function an error.

    Raises:
        Unrepresentable: at the operation, its message the first failure's.
    """
    job.losses = ctx.name_arguments(job.function, job.losses)
    job.failures = ctx.name_failures(job.function, job.failures)
    if job.failures:
        raise Unrepresentable(job.failures[0].message, pointer=job.function.pointer)


def assemble(job: Rendering, ctx: StepContext) -> None:
    """The rendered function: parameters, losses, a description cut to the dialect's
    ``description_max``, the ``decode`` flag."""
    dialect, options, function = ctx.dialect, ctx.options, job.function
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


def outputs(job: Rendering, ctx: StepContext) -> None:
    """A dialect with ``output_max`` (MCP): the output schema within that many bytes
    (:func:`~httpllm.compose.prune.bound`: repeats shared, deep levels cut to stubs,
    a ``cut`` loss and a note in the schema's description), then the dialect's rules
    over it (ECMA-262 patterns), their losses at ``output#`` pointers. Each distinct
    output object is rendered once per compile (``ctx.rendered_outputs``): the functions
    that share a response schema share its rendering, which nothing changes later."""
    limit, function = ctx.dialect.output_max, job.function
    output = function.output if limit is not None else None
    if output is None or limit is None:
        return
    hit = ctx.rendered_outputs.get(id(output))
    if hit is None or hit[0] is not output:
        hit = ctx.rendered_outputs[id(output)] = (output, _rendered_output(output, limit, ctx))
    rendered = hit[1]
    if rendered is None:
        return
    schema, losses = rendered
    job.function = evolve(function, losses=(*function.losses, *losses),
                          output_source=functools.partial(_same, schema))


def _rendered_output(output: Schema, limit: int, ctx: StepContext
                     ) -> tuple[Schema | None, tuple[Loss, ...]] | None:
    """:func:`outputs` for one output: ``(the output as listed, or None when a rule
    failed on it; the losses to add)``, or ``None`` when it is listed unchanged."""
    bounded = bound(output, limit, names=ctx.output_names, sizes=ctx.output_sizes)
    losses: list[Loss] = []
    schema = output if bounded is None else bounded.schema
    if bounded is not None and bounded.cut:
        schema = _noted(schema, bounded, limit)
        losses.append(Loss(pointer=_OUTPUT, keyword="outputSchema", action="cut",
                           dialect=ctx.dialect.name, note=_cut_note(bounded, limit)))
    lost: list[Loss] = []
    failures: list[Failure] = []
    rendered = schema
    if not ctx.inert(schema):  # (an output has at most output_max bytes: no walk_nodes)
        rendered, lost, failures = ctx.walk(schema, False, _OUTPUT)
    if failures:  # informative only: the tool goes without it rather than fail
        return None, (*losses, *lost, *(
            Loss(pointer=f.pointer, keyword="outputSchema", action="dropped",
                 dialect=ctx.dialect.name, note=f"output schema dropped: {f.message}")
            for f in failures))
    if rendered is output:
        return None
    return rendered, (*losses, *lost)


def _height(known: dict[int, int], subs: list[Any]) -> int:
    """1 + the highest of ``subs``' heights in ``known`` (0 without any), or -1 when one of
    them is -1 (a rule changes something below)."""
    height = 0
    for sub in subs:
        below = known[id(sub)]
        if below < 0:
            return -1
        if below >= height:
            height = below + 1
    return height


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


def finish(job: Rendering, ctx: StepContext) -> None:
    """The dialect's ``finish`` on the parameters root, once (the function kept as it is
    when the finish changes nothing)."""
    dialect, rendered = ctx.dialect, job.function
    if dialect.finish is not None:
        rule_ctx = RenderContext(dialect=dialect, options=ctx.options,
                                 losses=list(rendered.losses))
        params = dialect.finish(rendered.parameters, rendered, rule_ctx)
        losses = tuple(rule_ctx.losses)
        if params is not rendered.parameters or losses != rendered.losses:
            job.function = evolve(rendered, parameters=params, losses=losses)


def depth(job: Rendering, ctx: StepContext) -> None:
    """``Options.max_depth`` for every dialect (:func:`~httpllm.render.depth.limit_depth`:
    too deep is an error, or with ``collapse_deep`` JSON text, with a loss)."""
    if ctx.options.max_depth is None:
        return
    rendered = job.function
    rule_ctx = RenderContext(dialect=ctx.dialect, options=ctx.options,
                             losses=list(rendered.losses))
    params = limit_depth(rendered.parameters, rendered, rule_ctx)
    if params is not rendered.parameters:
        job.function = evolve(rendered, parameters=params, losses=tuple(rule_ctx.losses))


def examples(job: Rendering, ctx: StepContext) -> None:
    """The operation's examples where the dialect takes them (or the description)."""
    job.function = place_examples(job.function, ctx.dialect, ctx.options)


def distinct_losses(job: Rendering, ctx: StepContext) -> None:
    """Each loss once per function (:func:`httpllm.loss.distinct`)."""
    losses = job.function.losses
    if len(losses) > 1:
        unique = distinct(losses)
        if len(unique) < len(losses):
            job.function = evolve(job.function, losses=unique)


STEPS: tuple[Step, ...] = (split_unions, rename_arguments, validated, unroll_refs,
                           apply_rules, unroll_rendered, check_strict_limits, fall_back,
                           name_arguments, assemble, outputs, finish, depth, examples,
                           distinct_losses)
"""The render steps, in order. New step = one function here + one entry."""
