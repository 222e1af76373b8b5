"""Census helpers for two schema-fidelity faults (issue 18, kinds 1 and 10), shared by the
corpus checks ``tests/corpus/test_corpus.py`` (readOnly, chatgpt), the dialect sweep's
document checks and ``benchmarks/fidelity_census.py``.

- :func:`offered`: properties of a request schema, the arguments included, that carry
  ``readOnly`` (on themselves, through ``$ref``, ``allOf`` members or every non-null member
  of a union).
- :func:`conflicts`: ``$defs`` names that two tools of one list define differently (what an
  OpenAI-compatible server merging every tool's root ``$defs`` into one map refuses).
"""

from __future__ import annotations

import json
from typing import Any

from httpllm.walk import children

__all__ = ["conflicts", "flagged", "offered"]

_UNIONS = ("anyOf", "oneOf")


def _target(node: dict[str, Any], root: dict[str, Any]) -> Any:
    ref = node.get("$ref")
    if not isinstance(ref, str) or not ref.startswith("#/$defs/"):
        return None
    name = ref[8:].replace("~1", "/").replace("~0", "~")
    defs = root.get("$defs")
    return defs.get(name) if isinstance(defs, dict) else None


def flagged(schema: Any, root: dict[str, Any], flag: str = "readOnly") -> bool:
    """Whether a property schema carries ``flag``: on itself (or, once a dialect moved it
    into the description, as ``@readOnly true``), on a ``$ref`` target, on an ``allOf``
    member, or on every non-null member of a union."""
    seen: set[int] = set()

    def check(node: Any) -> bool:
        if not isinstance(node, dict) or id(node) in seen:
            return False
        seen.add(id(node))
        text = node.get("description")
        if node.get(flag) is True or (isinstance(text, str) and f"@{flag} true" in text):
            return True
        if check(_target(node, root)):
            return True
        members = node.get("allOf")
        if isinstance(members, list) and any(check(m) for m in members):
            return True
        for keyword in _UNIONS:
            members = node.get(keyword)
            if isinstance(members, list):
                real = [m for m in members if not (isinstance(m, dict) and m.get("type") == "null")]
                if real and all(check(m) for m in real):
                    return True
        return False

    return check(schema)


def offered(parameters: Any, flag: str = "readOnly") -> list[str]:
    """Pointers of the properties of ``parameters`` (its ``$defs`` included) that carry
    ``flag`` (see :func:`flagged`). The arguments count too: a path parameter whose schema
    is a ``readOnly`` id type is still a parameter the caller must give, so its schema must
    not call it read-only (the flags speak of properties, OpenAPI 3.0.3 section 4.7.24.1;
    ``compose.parameters.without_flags`` drops them)."""
    if not isinstance(parameters, dict):
        return []
    found: list[str] = []
    seen: set[int] = set()
    stack: list[tuple[Any, str]] = [(parameters, "#")]
    while stack:
        node, at = stack.pop()
        if not isinstance(node, dict) or id(node) in seen:
            continue
        seen.add(id(node))
        props = node.get("properties")
        if isinstance(props, dict):
            found += [f"{at}/properties/{name}" for name, sub in props.items()
                      if flagged(sub, parameters, flag)]
        for keyword, key, sub in children(node):
            stack.append((sub, f"{at}/{keyword}" if key is None else f"{at}/{keyword}/{key}"))
    return found


def conflicts(tools: list[tuple[str, Any]]) -> dict[str, set[str]]:
    """``$defs`` name -> the tools that define it, for each name two tools of the list define
    differently (what a server merging every tool's root ``$defs`` into one map refuses)."""
    texts: dict[str, set[str]] = {}
    holders: dict[str, set[str]] = {}
    for name, parameters in tools:
        defs = parameters.get("$defs") if isinstance(parameters, dict) else None
        if not isinstance(defs, dict):
            continue
        for key, schema in defs.items():
            texts.setdefault(key, set()).add(json.dumps(schema, sort_keys=True))
            holders.setdefault(key, set()).add(name)
    return {key: holders[key] for key, found in texts.items() if len(found) > 1}
