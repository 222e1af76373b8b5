"""A draft -> its neutral :class:`Function` within the limits of a serialized schema.

With every non-recursive ``$ref`` inlined a function's schema can be far larger than the
document (a shared subtree is written out at each place): past
:data:`~httpllm.compose.inline.INLINE_MAX_NODES` nodes the function keeps its named
schemas under ``$defs`` instead (as with ``reference=True``, with a warning); past
:data:`MAX_DEPTH` levels or :data:`MAX_NODES` nodes even so, it is an error. The sizes are
:func:`~httpllm.compose.inline.measure` folds over the compile's shared memo.
"""

from __future__ import annotations

from collections.abc import Callable

from httpllm._types import Schema
from httpllm.compose.inline import INLINE_MAX_NODES, Inliner, measure
from httpllm.compose.operation import Composer, Draft
from httpllm.errors import LimitExceeded
from httpllm.records import Argument, Function

__all__ = ["MAX_DEPTH", "MAX_NODES", "finish_bounded"]

MAX_DEPTH = 200
"""Most subschema levels of a function's schema (``json.dumps`` recurses once per level)."""

MAX_NODES = 500_000
"""Most schema nodes of a function's schema as serialized, named schemas kept."""


def finish_bounded(draft: Draft, composer: Composer, inliner: Inliner,
                   separate: Callable[[Argument], bool] | None,
                   output: Callable[[], Schema | None] | None,
                   warn: Callable[[str, str], None]) -> Function:
    """``composer.finish(draft, ...)``, kept within the limits above.

    ``warn(pointer, message)`` is told when the function keeps its named schemas.

    Raises:
        LimitExceeded: deeper than :data:`MAX_DEPTH` or larger than :data:`MAX_NODES`.
    """
    function = composer.finish(draft, inliner, separate, output)
    depth, size = measure(function.schema, inliner.sizes)
    if size > INLINE_MAX_NODES and not inliner.reference:
        warn(draft.site.pointer,
             f"parameters would have {size:,} schema nodes with every $ref inlined (limit "
             f"{INLINE_MAX_NODES:,}): named schemas kept under $defs, as with reference=True")
        function = composer.finish(draft, inliner.keeping(), separate, output,
                                   claimed=function.name)
        depth, size = measure(function.schema, inliner.sizes)
    if depth > MAX_DEPTH:  # reference=True helps only where refs were inlined
        refs = not inliner.reference and any(inliner.named.refs(s) for s in draft.schemas())
        hint = "; try reference=True" if refs else ""
        raise LimitExceeded(f"parameters nest {depth} levels deep (limit {MAX_DEPTH}){hint}",
                            pointer=draft.site.pointer)
    if size > MAX_NODES:  # past INLINE_MAX_NODES refs are kept already: nothing to suggest
        raise LimitExceeded(f"parameters have {size:,} schema nodes (limit {MAX_NODES:,})",
                            pointer=draft.site.pointer)
    return function
