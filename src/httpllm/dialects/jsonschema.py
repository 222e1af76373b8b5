"""The neutral target ``"3.1"``: the emended schema itself, JSON Schema 2020-12.

Source: https://json-schema.org/draft/2020-12 and OpenAPI 3.1.0 section 4.8.24 (the
Schema Object is a superset of JSON Schema 2020-12).
"""

from __future__ import annotations

from typing import Any

from httpllm._types import JSON
from httpllm.dialects._base import Dialect, Options
from httpllm.dialects._rules import filter_keywords
from httpllm.records import Function

__all__ = ["DIALECTS", "JSON_SCHEMA"]


def _envelope(function: Function, options: Options) -> JSON:
    out: dict[str, Any] = {"name": function.name, "description": function.description,
                           "parameters": function.parameters}
    if function.output is not None:
        out["output"] = function.output
    return out


JSON_SCHEMA = Dialect(
    name="3.1",
    aliases=("jsonschema", "json-schema"),
    keywords=None,
    refs="keep",
    one_of=True,
    rules=(filter_keywords,),
    envelope=_envelope,
    outputs=True,
    source="https://json-schema.org/draft/2020-12/json-schema-core",
)

DIALECTS = (JSON_SCHEMA,)
