"""The neutral target ``"3.1"``: the emended schema itself, JSON Schema 2020-12. Its
``parameters`` hold JSON Schema's keywords only: any other key is dropped with a loss (a
typo such as ``max_items``, or the keys of a file a ``$ref`` inlined that was no schema: a
settings file's API key reached the tools); its ``output`` is the emended response schema
as it is (not rendered: a walk of GitHub's 7 MB of outputs).

Source: https://json-schema.org/draft/2020-12 and OpenAPI 3.1.0 section 4.8.24 (the
Schema Object is a superset of JSON Schema 2020-12).
"""

from __future__ import annotations

from typing import Any

from httpllm._types import JSON
from httpllm.dialects._base import Dialect, Options
from httpllm.dialects._rules import JSON_SCHEMA_2020_12, filter_keywords
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
    keywords=JSON_SCHEMA_2020_12,
    refs="keep",
    one_of=True,
    rules=(filter_keywords,),
    envelope=_envelope,
    outputs=True,
    source="https://json-schema.org/draft/2020-12/json-schema-core",
)

DIALECTS = (JSON_SCHEMA,)
