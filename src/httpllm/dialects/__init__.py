"""Provider dialects and the open registry.

A dialect is a :class:`Dialect` record (facts as fields, quirks as node rules, the wire
shape as ``envelope``). Built-in dialects are registered here; users add or adjust one
with :func:`register_provider` or through the entry-point group ``httpllm.providers``
(each entry point loads a :class:`Dialect`).
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from httpllm.dialects._base import (
    TOOL_CALL_FORMATS,
    Dialect,
    Options,
    RenderContext,
    Rule,
    StrictLimit,
    StrictObjects,
    ToolCallFormat,
)
from httpllm.dialects._rules import (
    CONSTRAINTS,
    JSON_SCHEMA_2020_12,
    close_objects,
    describe,
    filter_keywords,
    maps_as_entries,
    ref_alone,
    typed_nodes,
)
from httpllm.errors import UnknownDialect
from httpllm.loss import Failure

__all__ = [
    "CONSTRAINTS",
    "JSON_SCHEMA_2020_12",
    "TOOL_CALL_FORMATS",
    "Dialect",
    "Failure",
    "Options",
    "RenderContext",
    "Rule",
    "StrictLimit",
    "StrictObjects",
    "ToolCallFormat",
    "close_objects",
    "describe",
    "filter_keywords",
    "get_dialect",
    "maps_as_entries",
    "providers",
    "ref_alone",
    "register_provider",
    "strict_objects",
    "typed_nodes",
]

_REGISTRY: dict[str, Dialect] = {}
_ALIASES: dict[str, str] = {}
_LOADED_ENTRY_POINTS = False


def register_provider(name: str, dialect: Dialect, *, aliases: tuple[str, ...] = ()) -> None:
    """Register (or replace) the dialect used for ``provider=name``.

    Example: a gateway that accepts OpenAI's subset minus ``pattern``::

        from dataclasses import replace
        from httpllm.dialects import get_dialect
        base = get_dialect("chatgpt")
        register_provider("my-gateway", replace(base, name="my-gateway",
                          keywords=base.keywords - {"pattern"}))
    """
    if dialect.name != name:
        dialect = replace(dialect, name=name)
    _REGISTRY[name] = dialect
    for alias in (*dialect.aliases, *aliases):
        _ALIASES[alias] = name


def _entry_points(group: str) -> Any:
    """``importlib.metadata.entry_points(group=group)``, imported when first asked (its
    import costs 20-30 ms, and a built-in provider never needs it)."""
    from importlib import metadata

    return metadata.entry_points(group=group)


def _load_entry_points() -> None:
    global _LOADED_ENTRY_POINTS
    if _LOADED_ENTRY_POINTS:
        return
    _LOADED_ENTRY_POINTS = True
    for entry in _entry_points(group="httpllm.providers"):
        try:
            dialect = entry.load()
        except Exception:  # a broken plugin must not break compile()
            continue
        if isinstance(dialect, Dialect):
            register_provider(entry.name, dialect)


def get_dialect(name: str) -> Dialect:
    """The dialect registered as ``name`` (or an alias of it); case-blind when no name
    matches exactly (``"Claude"`` is ``claude``).

    Raises:
        UnknownDialect: no such provider, or ``name`` is no string (``None``, a number);
            the message lists the known ones.
    """
    if not isinstance(name, str):
        raise UnknownDialect(f"the provider is a name, got {type(name).__name__}; "
                             f"known providers: {', '.join(providers())}")
    if name not in _REGISTRY and name not in _ALIASES:
        _load_entry_points()
    key = _ALIASES.get(name, name)
    if key not in _REGISTRY:
        folded = {n.lower(): n for n in (*_REGISTRY, *_ALIASES)}.get(name.lower(), name)
        key = _ALIASES.get(folded, folded)
    if key not in _REGISTRY:
        known = ", ".join(providers())
        raise UnknownDialect(f"unknown provider {name!r}; known providers: {known}")
    return _REGISTRY[key]


def strict_objects(name: str) -> StrictObjects:
    """What the strict mode of the dialect registered as ``name`` does to objects
    (:attr:`Dialect.strict_objects`). A name no dialect is registered under (a
    ``Function`` built by hand) is read as OpenAI's: ``"required"``.

    >>> strict_objects("claude"), strict_objects("llama"), strict_objects("no-such")
    ('sealed', 'unsaid', 'required')
    """
    try:
        return get_dialect(name).strict_objects
    except UnknownDialect:
        return "required"


def providers() -> list[str]:
    """Every registered provider name (aliases not included), sorted."""
    _load_entry_points()
    return sorted(_REGISTRY)


_BUILTIN_MODULES = (
    "jsonschema",
    "openapi30",
    "openai",
    "anthropic",
    "gemini",
    "openai_compatible",
    "ollama",
    "mistral",
    "bedrock",
    "mcp",
)
"""Modules of built-in dialects; each exposes ``DIALECTS``, a tuple of :class:`Dialect`."""


def _register_builtins() -> None:
    from importlib import import_module
    from importlib.util import find_spec

    for module_name in _BUILTIN_MODULES:
        qualified = f"{__name__}.{module_name}"
        if find_spec(qualified) is None:
            continue
        for dialect in import_module(qualified).DIALECTS:
            register_provider(dialect.name, dialect)


_register_builtins()
