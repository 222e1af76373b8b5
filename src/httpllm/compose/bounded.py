"""A draft -> its neutral :class:`Function` within the limits of a serialized schema.

With every non-recursive ``$ref`` inlined a function's schema can be far larger than the
document (a shared subtree is written out at each place): past
:data:`~httpllm.compose.inline.INLINE_MAX_NODES` nodes, or past the function's byte limit
(:func:`parameters_limit`), the function keeps its named schemas under ``$defs`` instead
(as with ``reference=True``, with a warning); past ``Limits.parameters_depth`` levels or
``Limits.parameters_nodes`` nodes even so, it is an error. Parameters still past the byte limit are
bounded (:func:`~httpllm.compose.prune.bound`: deep levels become stubs): a ``cut`` loss,
a warning and a sentence in the description say so, and ``Function.schema`` (what
``validate`` checks) keeps the whole schema. The sizes are folds over the compile's shared
memos.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from httpllm._limits import DEFAULT_LIMITS, Limits
from httpllm._types import Schema
from httpllm.compose.inline import INLINE_MAX_NODES, Inliner
from httpllm.compose.operation import Composer, Draft
from httpllm.compose.prune import Bounded, Sizes, bound, weigh
from httpllm.errors import LimitExceeded
from httpllm.loss import Loss
from httpllm.pointer import unescape
from httpllm.records import Argument, Function, evolve

__all__ = ["PARAMETERS_BUDGET", "PARAMETERS_MAX", "PARAMETERS_MIN",
           "finish_bounded", "parameters_limit"]

PARAMETERS_MAX = 48 * 1024
"""Most bytes of one function's parameters (compact JSON): about 12,000 tokens, a tenth
of a 128k-token context window (the smallest of the providers' current models: GPT-4o,
Llama 3.1, Mistral Large), the threshold of ``httpllm lint``'s ``tool-too-large``.
Kubernetes' ``createBatchV1NamespacedJob`` had 70,000 tokens (issue 26)."""

PARAMETERS_BUDGET = 8 * 1024 * 1024
"""Most bytes of all the parameters of a document together: an MCP client takes one
``tools/list`` message of at most 10 MiB (the TypeScript SDK's stdio limit; issue 28)."""

PARAMETERS_MIN = 16 * 1024
"""The least byte limit of one function's parameters, however many operations share
:data:`PARAMETERS_BUDGET` (Kubernetes' 1,123 operations: 8.3 MiB together)."""


def parameters_limit(functions: int) -> int:
    """The byte limit of each function's parameters for a document of ``functions``
    operations: :data:`PARAMETERS_BUDGET` shared, within :data:`PARAMETERS_MIN` and
    :data:`PARAMETERS_MAX`.

    >>> parameters_limit(29), parameters_limit(1123)
    (49152, 16384)
    """
    share = PARAMETERS_BUDGET // max(functions, 1)
    return max(PARAMETERS_MIN, min(PARAMETERS_MAX, share))



def finish_bounded(draft: Draft, composer: Composer, inliner: Inliner,
                   separate: Callable[[Argument], bool] | None,
                   output: Callable[[], Schema | None] | None,
                   warn: Callable[[str, str], None], *,
                   limit: int = PARAMETERS_MAX, sizes: Sizes | None = None,
                   limits: Limits = DEFAULT_LIMITS) -> Function:
    """``composer.finish(draft, ...)``, kept within the limits above, its parameters
    within ``limit`` bytes (``sizes``: the compile's :class:`~httpllm.compose.prune.Sizes`).

    ``warn(pointer, message)`` is told when the function keeps its named schemas and when
    its parameters are cut.

    Raises:
        LimitExceeded: deeper than ``limits.parameters_depth`` or larger than
            ``limits.parameters_nodes``.
    """
    sizes = Sizes() if sizes is None else sizes
    function = composer.finish(draft, inliner, separate, output)
    depth, size, weight = _weighed(function, sizes)
    if (size > INLINE_MAX_NODES or weight > limit) and not inliner.reference:
        what = (f"{size:,} schema nodes" if size > INLINE_MAX_NODES else f"{weight:,} bytes")
        cap = f"{INLINE_MAX_NODES:,}" if size > INLINE_MAX_NODES else f"{limit:,} bytes"
        warn(draft.site.pointer,
             f"parameters would have {what} with every $ref inlined (limit {cap}): named "
             "schemas kept under $defs, as with reference=True")
        function = composer.finish(draft, inliner.keeping(), separate, output,
                                   claimed=function.name)
        depth, size, weight = _weighed(function, sizes)
    if depth > limits.parameters_depth:  # reference=True helps only where refs were inlined
        refs = not inliner.reference and any(inliner.named.refs(s) for s in draft.schemas())
        hint = "; try reference=True" if refs else ""
        raise LimitExceeded(f"parameters nest {depth} levels deep (limit "
                            f"{limits.parameters_depth}){hint}", pointer=draft.site.pointer)
    if size > limits.parameters_nodes:  # past INLINE_MAX_NODES refs are kept: no hint
        raise LimitExceeded(f"parameters have {size:,} schema nodes (limit "
                            f"{limits.parameters_nodes:,})", pointer=draft.site.pointer)
    return function if weight <= limit else _cut(function, weight, inliner, limit, sizes, warn)


def _weighed(function: Function, sizes: Sizes) -> tuple[int, int, int]:
    """Depth and nodes of ``function.schema``, bytes of ``function.parameters`` (the same
    schema unless arguments were separated), in one walk."""
    depth, size, weight = weigh(function.schema, sizes.weights)
    if function.parameters is not function.schema:
        weight = weigh(function.parameters, sizes.weights)[2]
    return depth, size, weight


def _cut(function: Function, weight: int, inliner: Inliner, limit: int, sizes: Sizes,
         warn: Callable[[str, str], None]) -> Function:
    """The function with its parameters (``weight`` bytes) within ``limit`` bytes."""
    origins = inliner.origins

    def name(node: Any) -> str | None:
        pointer = origins.get(id(node))
        return None if pointer is None else unescape(pointer.rsplit("/", 1)[-1])

    bounded = bound(function.parameters, limit, names=name, keep_root_properties=True,
                    sizes=sizes, before=weight)
    if bounded is None:
        return function
    if not bounded.cut:
        return evolve(function, parameters=bounded.schema)
    warn(function.pointer, f"parameters of {bounded.before:,} bytes cut to {bounded.after:,} "
         f"(limit {limit:,}): {_kept(bounded)}; validate still checks the whole schema")
    loss = Loss(pointer="parameters#", keyword="parameters", action="cut",
                note=f"{bounded.before:,} bytes cut to {bounded.after:,} (limit {limit:,}): "
                     f"{_kept(bounded)}")
    note = ("(Arguments are described to "
            f"{'the top level' if not bounded.levels else f'{bounded.levels} levels'} only; "
            "an invalid call is answered with what is wrong.)")
    return evolve(function, parameters=bounded.schema, losses=(*function.losses, loss),
                  description=f"{function.description}\n\n{note}".lstrip())


def _kept(bounded: Bounded) -> str:
    """What a cut kept, in words."""
    if bounded.levels is None or bounded.levels < 0:
        return "only the parameters object itself kept"
    return (f"arguments and {bounded.levels} level{'s' if bounded.levels != 1 else ''} "
            "below them kept, deeper values described by their type only")
