"""Is a parameters schema a valid JSON Schema 2020-12 document that is self-contained?

Meta-schema validation uses `jsonschema_rs.meta.validate` (seconds over the whole corpus, where
`Draft202012Validator.check_schema` takes minutes: docs/pitfalls.md) and falls back to
`jsonschema.Draft202012Validator.check_schema` when jsonschema-rs is missing or cannot tell.
Self-contained: every `$ref` resolves inside the schema and none points at `#/components/`.
"""

from __future__ import annotations

from collections import OrderedDict
from typing import Any

from ._schema import dedupe, envelope_schema, ref_problems

__all__ = ["DRAFT_2020_12", "DRAFT_7", "check", "meta_problems"]

DRAFT_2020_12 = "https://json-schema.org/draft/2020-12/schema"
DRAFT_7 = "http://json-schema.org/draft-07/schema#"

try:  # pragma: no cover - exercised implicitly
    import jsonschema_rs
except ImportError:  # pragma: no cover
    jsonschema_rs = None


def _python_check(schema: Any, draft: str) -> list[str]:
    import jsonschema

    cls = jsonschema.Draft7Validator if draft == DRAFT_7 else jsonschema.Draft202012Validator
    try:
        cls.check_schema(schema)
    except jsonschema.SchemaError as exc:
        where = "#/" + "/".join(str(p) for p in exc.path)
        return [f"{where}: not a valid {draft} schema: {exc.message}"]
    return []


def meta_problems(schema: Any, draft: str = DRAFT_2020_12) -> list[str]:
    """Violations of the meta-schema of `draft` (2020-12 unless told), at most one per call.

    A schema declaring another `$schema` is itself a violation: the provider reads 2020-12.
    Shared subtrees are validated once (see `dedupe`): the meta-schema is context-free.
    """
    if not isinstance(schema, (dict, bool)):
        return [f"#: schema must be an object or a boolean, got {type(schema).__name__}"]
    out: list[str] = []
    probe = schema = dedupe(schema)
    if isinstance(schema, dict):
        declared = schema.get("$schema")
        if declared is None:
            probe = {"$schema": draft, **schema}
        elif declared.rstrip("#") != draft.rstrip("#"):
            out.append(f"#: declares $schema {declared!r}, expected {draft!r}")
    if jsonschema_rs is None:
        return out + _python_check(probe, draft)
    try:
        jsonschema_rs.meta.validate(probe)
    except jsonschema_rs.ValidationError as exc:
        where = "#/" + "/".join(str(p) for p in exc.instance_path)
        out.append(f"{where}: not a valid {draft} schema: {exc.message}")
    except Exception:  # ReferencingError etc.: let the pure-Python validator decide
        out.extend(_python_check(probe, draft))
    return out


_RECENT: OrderedDict[tuple[int, str], tuple[Any, list[str]]] = OrderedDict()
_RECENT_MAX = 4096


def check(tool_or_function: Any, draft: str = DRAFT_2020_12) -> list[str]:
    """Meta-schema violations plus dangling or `#/components/` refs of the parameters schema.

    The verdicts for the last few thousand schema objects are remembered by identity (the
    object is held, so its id cannot be reused): the corpus tests check the same parameters
    both directly and inside each provider checker.
    """
    schema = envelope_schema(tool_or_function)
    if schema is None:
        return []
    key = (id(schema), draft)
    hit = _RECENT.get(key)
    if hit is not None and hit[0] is schema:
        return list(hit[1])
    out = meta_problems(schema, draft)
    if isinstance(schema, dict):
        out.extend(ref_problems(schema))
    _RECENT[key] = (schema, out)
    if len(_RECENT) > _RECENT_MAX:
        _RECENT.popitem(last=False)
    return list(out)
