"""Native deferred loading: the provider's own tool search over deferred tools.

Two forms, chosen by ``Dialect.tool_search``:

- ``"anthropic"``: every tool but the always-loaded ones carries ``"defer_loading": true``,
  and the list starts with the server tool-search tool
  (``{"type": "tool_search_tool_bm25_20251119", "name": "tool_search_tool_bm25"}``, or the
  regex variant). Source: platform.claude.com/docs/en/agents-and-tools/tool-use/tool-search-tool;
  anthropic-sdk-python ``types/tool_param.py`` (``defer_loading``),
  ``types/tool_search_tool_bm25_20251119_param.py``.
- ``"openai"``: Responses tools: ``{"type": "tool_search"}``, the always-loaded functions,
  then one ``{"type": "namespace", "name", "description", "tools"}`` per group of fewer
  than 10 functions (by tag), each function with ``"defer_loading": true`` (the guide:
  "aim to keep each namespace to fewer than 10 functions"; ``defer_loading`` applies to
  the functions inside a namespace, not to the namespace). ``namespaces=False`` sends
  deferred functions at the top level instead. Source:
  developers.openai.com/api/docs/guides/tools-tool-search; openai-python
  ``types/responses/tool_search_tool_param.py``, ``namespace_tool_param.py``,
  ``function_tool_param.py``.

Which tools stay loaded (:func:`always_loaded`): Anthropic's guide advises keeping the 3-5
most used tools loaded. Usage is not in a document, so the rule is: the
:data:`ALWAYS_COUNT` read operations (``GET``, not deprecated) with the fewest required
arguments, then the fewest arguments, then in document order: entry points such as list
and search operations, which need no identifier from an earlier call. ``always=[names]``
replaces the rule; ``always=[]`` defers every tool.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import Literal

from httpllm._types import JSON
from httpllm.errors import DialectError, UnknownFunction
from httpllm.records import Function
from httpllm.toolsets._compiled import Compiled
from httpllm.toolsets.groups import By, groups

__all__ = ["ALWAYS_COUNT", "ANTHROPIC_SEARCH_TOOLS", "NAMESPACE_MAX", "always_loaded",
           "deferred_tools", "upfront"]

ALWAYS_COUNT = 3
"""Functions :func:`always_loaded` keeps loaded (Anthropic: "keep your 3-5 most frequently
used tools as non-deferred")."""

NAMESPACE_MAX = 9
"""Functions per OpenAI namespace ("fewer than 10 functions")."""

ANTHROPIC_SEARCH_TOOLS: dict[str, dict[str, str]] = {
    "bm25": {"type": "tool_search_tool_bm25_20251119", "name": "tool_search_tool_bm25"},
    "regex": {"type": "tool_search_tool_regex_20251119", "name": "tool_search_tool_regex"},
}
"""Anthropic's server tool-search tools: natural-language (BM25) or regex queries."""

Search = Literal["bm25", "regex"]


def always_loaded(functions: Sequence[Function], always: Sequence[str] | None = None,
                  ) -> list[Function]:
    """The functions that stay loaded: ``always`` (names) or the documented rule.

    Raises:
        UnknownFunction: a name in ``always`` is no function of the application.
    """
    if always is not None:
        by_name = {f.name: f for f in functions}
        unknown = [name for name in always if name not in by_name]
        if unknown:
            raise UnknownFunction(f"always=...: no function named {unknown[0]!r}")
        return [by_name[name] for name in dict.fromkeys(always)]
    reads = [(i, f) for i, f in enumerate(functions) if f.method == "get" and not f.deprecated]
    reads.sort(key=lambda item: (_required(item[1]), len(_shown(item[1])), item[0]))
    return [f for _, f in reads[:ALWAYS_COUNT]]


def _shown(function: Function) -> list[str]:
    return [a.name for a in function.arguments if not a.separated]


def _required(function: Function) -> int:
    return sum(1 for a in function.arguments if a.required and not a.separated)


def deferred_tools(app: Compiled, *, always: Sequence[str] | None = None,
                   search: Search = "bm25", namespaces: bool = True,
                   by: By = "tag") -> list[JSON]:
    """The tool list with the provider's native deferred loading (see the module).

    Args:
        app: the compiled application (``claude`` or ``chatgpt``; for OpenAI the
            Responses envelope is used whatever ``envelope`` was compiled).
        always: names of the functions to keep loaded; default: :func:`always_loaded`.
        search: Anthropic's tool-search variant, ``"bm25"`` or ``"regex"``.
        namespaces: OpenAI: deferred functions in namespaces of at most
            :data:`NAMESPACE_MAX` (by ``by``); ``False``: at the top level.
        by: how OpenAI namespaces are keyed (see :func:`~httpllm.toolsets.groups.groups`).

    Raises:
        DialectError: the provider has no native deferred loading.
        UnknownFunction: a name in ``always`` is no function of the application.
    """
    form = app.dialect.tool_search
    if form is None:
        raise DialectError(f"{app.provider} has no native deferred loading (claude and "
                           "chatgpt have); use a search tool of your own instead")
    loaded = always_loaded(app.functions, always)
    return _FORMS[form](app, loaded, search, namespaces, by)


def _anthropic(app: Compiled, loaded: list[Function], search: Search, namespaces: bool,
               by: By) -> list[JSON]:
    keep = {f.name for f in loaded}
    envelope, options = app.dialect.envelope, app.options
    tools: list[JSON] = [dict(ANTHROPIC_SEARCH_TOOLS[search])]
    for f in app.functions:
        tool = envelope(f, options)
        tools.append(tool if f.name in keep else {**tool, "defer_loading": True})
    return tools


def _openai(app: Compiled, loaded: list[Function], search: Search, namespaces: bool,
            by: By) -> list[JSON]:
    keep = {f.name for f in loaded}
    options = replace(app.options, envelope="responses")
    envelope = app.dialect.envelope
    tools: list[JSON] = [{"type": "tool_search"}]
    tools += [envelope(f, options) for f in loaded]
    rest = [f for f in app.functions if f.name not in keep]
    if not namespaces:
        return tools + [{**envelope(f, options), "defer_loading": True} for f in rest]
    for group in groups(app, by=by, max_tools=NAMESPACE_MAX, functions=rest):
        members = [{**envelope(f, options), "defer_loading": True} for f in group.functions]
        tools.append({"type": "namespace", "name": group.name,
                      "description": _namespace_description(group.key, group.functions),
                      "tools": members})
    return tools


def _namespace_description(key: str, functions: Sequence[Function]) -> str:
    """What the model sees of a namespace before it loads it: the key and its functions'
    names (the operationIds say what each does), at most 1,024 characters."""
    text = f"{key} operations: " + ", ".join(f.name for f in functions)
    return text if len(text) <= 1024 else text[:1021].rstrip(", ") + "..."


def upfront(tools: Sequence[JSON]) -> list[JSON]:
    """What the model sees of a deferred tool list before any search, as the guides say:
    Anthropic leaves a ``defer_loading`` tool out of the prompt; OpenAI shows a namespace's
    name and description only, and a deferred top-level function's name and description.
    The tool-search tool and the loaded tools are seen whole (their own prompt text, which
    the providers add, is not counted).

    >>> upfront([{"name": "a", "input_schema": {}, "defer_loading": True}])
    []
    """
    seen: list[JSON] = []
    for tool in tools:
        if not isinstance(tool, dict):
            seen.append(tool)
        elif tool.get("type") == "namespace":
            seen.append({k: v for k, v in tool.items() if k != "tools"})
        elif tool.get("defer_loading") and tool.get("type") == "function":
            seen.append({k: tool[k] for k in ("type", "name", "description") if k in tool})
        elif not tool.get("defer_loading"):
            seen.append(tool)
    return seen


_FORMS: dict[str, Callable[[Compiled, list[Function], Search, bool, By], list[JSON]]] = {
    "anthropic": _anthropic,
    "openai": _openai,
}
