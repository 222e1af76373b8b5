"""Read a provider's tool calls: its response object, message or list of calls -> ToolCalls.

Every provider puts its calls somewhere else and spells them its own way; one
:class:`Shape` per wire format says where (``lists``), how a call is told from the other
items of that list (``kind``), and which fields hold the id, the name and the arguments.
SDK objects (pydantic models) and their plain-dict forms are read alike, field by field,
without converting the whole response.

- ``chat`` (OpenAI Chat, OpenAI-compatible servers) and ``mistral``:
  ``choices[0].message.tool_calls``, every item a call: ``id``, ``function.name``,
  ``function.arguments`` (Mistral's id is optional);
- ``responses`` (OpenAI Responses): ``output`` items of ``type == "function_call"``:
  ``call_id``, ``name``, ``arguments``;
- ``anthropic`` (Messages): ``content`` blocks of ``type == "tool_use"``: ``id``, ``name``,
  ``input``;
- ``gemini``: ``candidates[0].content.parts`` holding a ``functionCall``: ``id`` (optional),
  ``name``, ``args``;
- ``bedrock`` (Converse): ``output.message.content`` blocks holding a ``toolUse``:
  ``toolUseId``, ``name``, ``input``;
- ``ollama``: ``message.tool_calls``, every item a call: ``function.name``,
  ``function.arguments`` (no id);
- ``mcp``: the ``params`` of a ``tools/call`` request: ``name``, ``arguments`` (no id).

Source: platform.openai.com/docs/guides/function-calling; docs.anthropic.com tool use;
ai.google.dev/gemini-api/docs/function-calling; Bedrock Converse API ``ToolUseBlock``;
github.com/ollama/ollama docs/api.md (tool calling); docs.mistral.ai function calling;
MCP 2025-06-18 ``tools/call``.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from httpllm.errors import CallError, UnknownDialect

__all__ = ["SHAPES", "Shape", "ToolCall", "field", "read_calls", "shape_of"]

Path = tuple[str | int, ...]


@dataclass(frozen=True, slots=True, kw_only=True)
class ToolCall:
    """One tool call as the model made it.

    Attributes:
        name: the function the model called.
        arguments: what the model sent: JSON text, or an already parsed mapping.
        id: the provider's call id (``"call_abc"``, ``"toolu_01"``), or ``None`` where the
            provider has none (Ollama, MCP, Gemini without ids).
        pointer: where the call was found in what was passed, spelled like a ``$ref``.
    """

    name: str
    arguments: Any
    id: str | None = None
    pointer: str = "#"


@dataclass(frozen=True, slots=True, kw_only=True)
class Shape:
    """Where a wire format keeps its tool calls and how each is spelled.

    Attributes:
        label: the format as a person names it, for messages (``"OpenAI Chat"``).
        lists: paths from a response (or a message) to its list of items, tried in order;
            a list passed as is is that list. Each step is a field name (snake_case and
            camelCase are both tried) or a list index.
        kind: ``(field, value)`` telling a call from the other items of the list
            (Responses ``("type", "function_call")``); ``None``: see ``inner``.
        inner: the field of an item that holds the call (``"function"``, ``"toolUse"``);
            with ``kind=None`` an item without it is not a call (Gemini text parts).
        every: whether every item of the list must be a call (OpenAI ``tool_calls``).
        id: the field holding the call id, on the inner call or else on the item
            (``""``: none).
        name: the field holding the function name, on the inner call.
        arguments: the field holding the arguments, on the inner call.
        needs_id: whether a call without an id is refused (the result must name it).
    """

    label: str
    lists: tuple[Path, ...]
    kind: tuple[str, str] | None = None
    inner: str = ""
    every: bool = False
    id: str = "id"
    name: str = "name"
    arguments: str = "arguments"
    needs_id: bool = True

    @property
    def a(self) -> str:
        """The label with its article: ``"an OpenAI Chat"``, ``"a Gemini"``."""
        return f"{'an' if self.label[0] in 'AEIOU' else 'a'} {self.label}"


CHAT = Shape(label="OpenAI Chat", lists=(("choices", 0, "message", "tool_calls"),
                                         ("message", "tool_calls"), ("tool_calls",)),
             inner="function", every=True)
SHAPES: dict[str, Shape] = {
    "chat": CHAT,
    "responses": Shape(label="OpenAI Responses", lists=(("output",),),
                       kind=("type", "function_call"), id="call_id"),
    "anthropic": Shape(label="Anthropic Messages", lists=(("content",),),
                       kind=("type", "tool_use"), arguments="input"),
    "gemini": Shape(label="Gemini", lists=(("candidates", 0, "content", "parts"), ("parts",)),
                    inner="function_call", arguments="args", needs_id=False),
    "bedrock": Shape(label="Bedrock Converse", lists=(("output", "message", "content"),
                                                      ("content",)),
                     inner="toolUse", id="toolUseId", arguments="input"),
    "ollama": Shape(label="Ollama", lists=(("message", "tool_calls"), ("tool_calls",)),
                    inner="function", every=True, id="", needs_id=False),
    "mistral": Shape(label="Mistral", lists=CHAT.lists, inner="function", every=True,
                     needs_id=False),
    "mcp": Shape(label="MCP tools/call", lists=(("params",),), id="", needs_id=False),
}
"""The call shape of each wire format, by format name."""

_MISSING: Any = object()


def field(node: Any, name: str, default: Any = None) -> Any:
    """``node[name]`` for a mapping, ``node.name`` for an SDK object; camelCase and
    snake_case spellings of ``name`` are both tried; ``default`` when absent."""
    for spelling in _spellings(name):
        if isinstance(node, Mapping):
            value = node.get(spelling, _MISSING)
        else:
            value = getattr(node, spelling, _MISSING)
        if value is not _MISSING:
            return value
    return default


@functools.cache  # the field names of SHAPES: a handful
def _spellings(name: str) -> tuple[str, ...]:
    if "_" in name:
        head, *rest = name.split("_")
        return (name, head + "".join(part.title() for part in rest))
    snake = "".join(f"_{c.lower()}" if c.isupper() else c for c in name)
    return (name, snake) if snake != name else (name,)


def _is_list(node: Any) -> bool:
    return isinstance(node, Sequence) and not isinstance(node, (str, bytes, bytearray))


def _follow(node: Any, path: Path) -> Any:
    """The node at ``path``; ``_MISSING`` when a step is absent, ``None`` when the last
    field is present but null (a response without calls)."""
    for step in path:
        if node is None:
            return _MISSING
        if isinstance(step, int):
            node = node[step] if _is_list(node) and len(node) > step else _MISSING
        else:
            node = field(node, step, _MISSING)
        if node is _MISSING:
            return _MISSING
    return node


def _items(response: Any, shape: Shape) -> list[tuple[Any, str]] | None:
    """The items that may hold calls, each with its pointer (``"#/0"``; a lone call's is
    where it is: ``"#"`` passed as is, ``"#/params"`` in an MCP request); ``None`` when
    ``response`` has no such list."""
    if _is_list(response):
        return [(item, f"#/{index}") for index, item in enumerate(response)]
    if not shape.every and _is_call(response, shape):
        return [(response, "#")]
    for path in shape.lists:
        node = _follow(response, path)
        if node is _MISSING:
            continue
        at = "#/" + "/".join(str(s) for s in path)
        if node is None:
            return []
        if _is_list(node):
            return [(item, f"{at}/{index}") for index, item in enumerate(node)]
        if not shape.every and _is_call(node, shape):  # one call: MCP's params
            return [(node, at)]
    return None


def _is_call(item: Any, shape: Shape) -> bool:
    """Whether ``item`` is a call of ``shape``: its kind, its inner call, or (MCP, where
    the item is the call itself) a name or arguments field, so that a call without a
    usable name is refused as one (:func:`_call`), as in every other format, rather than
    skipped as no call at all."""
    if shape.kind is not None:
        return bool(field(item, shape.kind[0]) == shape.kind[1])
    if shape.inner:
        return field(item, shape.inner) is not None
    return any(field(item, key, _MISSING) is not _MISSING
               for key in (shape.name, shape.arguments))


def read_calls(response: Any, format: str) -> list[ToolCall]:
    """The tool calls in ``response``, in order.

    ``response`` is the provider's response object, its message, its list of calls (or
    of output items / content blocks / parts, of which only the calls are read) or one
    call, as SDK objects or plain dicts. A response without calls gives ``[]``.

    Raises:
        UnknownDialect: no such format.
        CallError: ``response`` holds no list of this format's calls, or an item that must
            be a call is not one (the pointer names it).
    """
    shape = shape_of(format)
    found = _items(response, shape)
    if found is None:
        article = "an" if shape.label[:1].lower() in "aeiou" else "a"
        raise CallError(f"expected {article} {shape.label} response, message or list of tool "
                        f"calls; received {type(response).__name__} (format= reads another format)",
                        pointer="#")
    calls = []
    for item, where in found:
        if _is_call(item, shape):
            calls.append(_call(item, shape, where))
        elif shape.every or (not isinstance(item, Mapping) and not hasattr(item, "__dict__")):
            raise CallError(f"not {shape.a} tool call: {type(item).__name__}",
                            pointer=where)
    return calls


def shape_of(format: str) -> Shape:
    """The :class:`Shape` of the wire format ``format``.

    Raises:
        UnknownDialect: no such format; the message lists the known ones.
    """
    try:
        return SHAPES[format]
    except KeyError:
        known = ", ".join(sorted(SHAPES))
        raise UnknownDialect(f"no tool-call format {format!r}; known formats: {known}") from None


def _call(item: Any, shape: Shape, at: str) -> ToolCall:
    call = field(item, shape.inner) if shape.inner else item
    name = field(call, shape.name)
    if not isinstance(name, str) or not name:
        raise CallError(f"{shape.a} tool call needs a function name", pointer=at)
    ident = (field(call, shape.id) or field(item, shape.id)) if shape.id else None
    if not isinstance(ident, str) or not ident:
        if shape.needs_id:
            raise CallError(f"{shape.a} tool call needs an id ({shape.id})", pointer=at)
        ident = None
    return ToolCall(name=name, arguments=field(call, shape.arguments), id=ident, pointer=at)
