"""The fidelity sweep of issue 18: what `validate` accepts builds, and the original document
accepts what was built, judged by an independent validator (openapi-core, in-process).

For each document of `SAMPLE` and each dialect of `DIALECTS`, tool calls are drawn from every
compiled function's `parameters` (what the model sees) with hypothesis-jsonschema; the ones
`validate` accepts are built by `build_request` (made-up credentials, the document's own
server) and handed to openapi-core's request validator for the *original* document, through
werkzeug's request parser. Each rejection is sorted by kind (`kind_of`). Run as a module for
the figures: `python -m tests.execute.fidelity`.
"""

from __future__ import annotations

import contextlib
import json
import sys
import warnings
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import httpx
import yaml
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis.errors import HypothesisException
from hypothesis_jsonschema import from_schema

from httpllm import compile
from httpllm.errors import HttpllmError
from httpllm.execute import build_request, validate
from httpllm.records import Function

from .prism.sampling import FORMATS, closed, dummy_auth

if TYPE_CHECKING:
    from openapi_core import OpenAPI

SAMPLE = (
    "real/redocly-museum/openapi.yaml",
    "real/vonage/voice.yml",
    "real/hubspot/contacts.json",
    "real/1password/spec.yaml",
    "real/twilio/twilio_studio_v2.json",
    "real/ably/control-v1.yaml",
    "real/personio/personio-personnel-data-api-oa3.yaml",
    "real/typesense/openapi.yml",
    "real/resend/resend.yaml",
    "real/figma/openapi.yaml",
)
"""Real documents, 3.0 and 3.1, small to mid-sized, with query, path, header and JSON and
form bodies; OpenAPI 3.0 and 3.1 (the sweep stays within a few minutes on 2 cores)."""

DIALECTS = (("3.1", False), ("chatgpt", True))
"""(provider, strict): the `3.1` dialect and the chatgpt strict dialect."""

FUNCTIONS_PER_DOCUMENT = 24
"""Functions taken per document (every n-th, so the whole document is spread over)."""

EXAMPLES = 6
"""Tool calls drawn per function (hypothesis `max_examples`)."""


@dataclass(slots=True)
class Figures:
    """What one sweep found."""

    functions: int = 0
    unsampleable: int = 0
    samples: int = 0
    accepted: int = 0
    build_errors: Counter[str] = field(default_factory=Counter)
    rejected: Counter[str] = field(default_factory=Counter)
    excluded: Counter[str] = field(default_factory=Counter)
    findings: list[dict[str, Any]] = field(default_factory=list)

    def add(self, other: Figures) -> None:
        """Add another sweep's figures to these."""
        self.functions += other.functions
        self.unsampleable += other.unsampleable
        self.samples += other.samples
        self.accepted += other.accepted
        self.build_errors.update(other.build_errors)
        self.rejected.update(other.rejected)
        self.excluded.update(other.excluded)
        self.findings.extend(other.findings)

    def to_json(self) -> dict[str, Any]:
        """The figures as JSON (findings cut to 20)."""
        return {
            "functions": self.functions, "unsampleable": self.unsampleable,
            "samples": self.samples, "accepted_by_validate": self.accepted,
            "build_errors": dict(self.build_errors),
            "rejected_by_document": sum(self.rejected.values()),
            "rejected_by_kind": dict(self.rejected),
            "excluded_by_kind": dict(self.excluded),
            "findings": self.findings[:20],
        }


def judge(path: Path) -> OpenAPI:
    """openapi-core for the original document (the document's own validity is not checked
    again: the sample holds documents the corpus manifest lists as valid)."""
    from openapi_core import Config, OpenAPI
    raw = yaml.safe_load(path.read_text(encoding="utf-8"))
    return OpenAPI.from_dict(raw, config=Config(spec_validator_cls=None),
                             base_uri=path.as_uri())


def as_werkzeug(request: httpx.Request) -> Any:
    """The built request as werkzeug parses it on a server, wrapped for openapi-core."""
    from openapi_core.contrib.werkzeug import WerkzeugOpenAPIRequest
    from werkzeug.test import EnvironBuilder
    from werkzeug.wrappers import Request as WerkzeugRequest

    url = request.url
    environ = EnvironBuilder(
        method=request.method,
        base_url=f"{url.scheme}://{url.netloc.decode('ascii')}",
        path=url.raw_path.decode("ascii").split("?", 1)[0],
        query_string=url.query.decode("ascii"),
        headers=list(request.headers.items()),
        data=request.content,
    ).get_environ()
    environ["PATH_INFO"] = _path_info(url)
    return WerkzeugOpenAPIRequest(WerkzeugRequest(environ))


def _path_info(url: httpx.URL) -> str:
    """PATH_INFO as a WSGI server sets it: percent-decoded, as latin-1 (PEP 3333)."""
    from urllib.parse import unquote_to_bytes

    return unquote_to_bytes(url.raw_path.split(b"?", 1)[0].decode("ascii")).decode("latin-1")


KINDS: tuple[tuple[str, str], ...] = (
    ("oneOf", "is valid under each of"),
    ("oneOf", "valid under more than one"),
    ("format", "is not a '"),
    ("empty value", "empty"),
    ("missing required parameter", "Missing required query parameter"),
    ("additionalProperties", "Additional properties are not allowed"),
    ("readOnly", "read only"),
    ("required property", "is a required property"),
    ("type", "is not of type"),
    ("enum", "is not one of"),
    ("security", "security"),
    ("server", "Server not found"),
    ("path", "Path not found"),
    ("operation", "Operation not found"),
    ("operation", "OperationNotFound"),
)
"""Rejection kinds by a phrase of openapi-core's error chain (first match wins)."""


def kind_of(error: BaseException) -> str:
    """The kind of an openapi-core rejection, from the text of its error chain."""
    text = chain(error)
    for kind, phrase in KINDS:
        if phrase.lower() in text.lower():
            return kind
    return type(error).__name__


def chain(error: BaseException) -> str:
    """An error, its causes and its schema errors, as one line."""
    parts: list[str] = []
    seen: BaseException | None = error
    while seen is not None:
        parts.append(f"{type(seen).__name__}: {seen}")
        pending = list(getattr(seen, "schema_errors", None) or ())
        while pending and len(parts) < 5000:
            inner = pending.pop(0)
            message = str(getattr(inner, "message", inner))
            # The phrase after a long instance repr would be cut off: keep it whole.
            phrase = " is valid under each of " if " is valid under each of " in message else ""
            parts.append(message[:200] + phrase)
            pending.extend(getattr(inner, "context", None) or ())
        seen = seen.__cause__ or seen.__context__
    return " | ".join(parts)


def functions_of(path: Path, provider: str, strict: bool) -> list[Function]:
    """Every n-th function of the document, at most `FUNCTIONS_PER_DOCUMENT`."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        functions = list(compile(path, provider, strict=strict).functions)
    step = max(1, -(-len(functions) // FUNCTIONS_PER_DOCUMENT))
    return functions[::step]


def sweep(path: Path, provider: str, strict: bool, *, openapi: OpenAPI | None = None,
          examples: int = EXAMPLES) -> Figures:
    """Draw, validate, build and judge every sampled function of one document."""
    openapi = openapi or judge(path)
    figures = Figures()
    for function in functions_of(path, provider, strict):
        figures.functions += 1
        for arguments in draws(function, examples):
            figures.samples += 1
            _one(function, arguments, openapi, figures)
    return figures


def _one(function: Function, arguments: Any, openapi: OpenAPI, figures: Figures) -> None:
    checked = validate(function, arguments)
    if not checked.ok:
        return
    figures.accepted += 1
    try:
        request = build_request(function, arguments, auth=dummy_auth(function))
    except HttpllmError as exc:
        figures.build_errors[type(exc).__name__] += 1
        figures.findings.append({"function": function.name, "build": str(exc)[:300]})
        return
    try:
        openapi.validate_request(as_werkzeug(request))
    except Exception as exc:  # every rejection is a finding, whatever its class
        kind = kind_of(exc)
        reason = excluded(kind, exc, request, function)
        if reason:
            figures.excluded[kind] += 1
            return
        figures.rejected[kind] += 1
        figures.findings.append({
            "function": function.name, "kind": kind,
            "arguments": json.dumps(checked.arguments, default=repr)[:400],
            "request": f"{request.method} {request.url}",
            "body": request.content[:300].decode("utf-8", "replace"),
            "error": chain(exc),
        })


def excluded(kind: str, error: BaseException, request: httpx.Request,
             function: Function) -> str:
    """Why a rejection is openapi-core's own limitation rather than a bad request, or ``""``.

    Each entry of `EXCLUSIONS` names the limitation as read in openapi-core's source.
    """
    text = chain(error)
    for name, (matches, _) in EXCLUSIONS.items():
        if matches(kind, text, request, function):
            return name
    return ""


def _slash_in_path_value(kind: str, text: str, request: httpx.Request, function: Function
                         ) -> bool:
    return (kind in ("path", "server", "operation")
            and b"%2F" in request.url.raw_path.split(b"?")[0])


def _bracketed_form_key(kind: str, text: str, request: httpx.Request, function: Function
                        ) -> bool:
    if kind != "required property" or not request.headers.get("content-type", "").startswith(
            "application/x-www-form-urlencoded"):
        return False
    names = [part.split("'")[1] for part in text.split(" | ")
             if part.endswith("is a required property") and part.count("'") >= 2]
    keys = [pair.split("=", 1)[0] for pair in request.content.decode("ascii").split("&")]
    return bool(names) and all(any(k.startswith(f"{n}%5B") for k in keys) for n in names)


def _form_exploded_object(kind: str, text: str, request: httpx.Request, function: Function
                          ) -> bool:
    if kind != "missing required parameter":
        return False
    name = text.split("Missing required query parameter: ", 1)[1].split(" |", 1)[0]
    return any(
        a.location == "query" and a.original == name and a.style == "form" and a.explode
        and _object_schema(a.schema, function.schema) for a in function.arguments
    )


def _object_schema(schema: Any, root: Any) -> bool:
    from httpllm.execute.decode import alternatives

    return any(isinstance(alt, dict) and (alt.get("type") == "object" or "properties" in alt)
               for alt in alternatives(schema, root))


EXCLUSIONS: dict[str, tuple[Any, str]] = {
    "path value holding '/'": (_slash_in_path_value, (
        "openapi-core matches each path parameter with `[^/]*` on the decoded request path "
        "(openapi_core/templating/paths/parsers.py, PathParser._PARAM_PATTERN) and never "
        "percent-decodes a value, so a value holding '/', which the request sends as %2F "
        "(RFC 3986 section 3.3; OpenAPI 3.1.1 Appendix C), cannot match in either form.")),
    "bracketed form body key": (_bracketed_form_key, (
        "openapi-core reads a form body as flat name=value pairs (openapi_core/deserializing/"
        "media_types/util.py urlencoded_form_loads: parse_qsl) and a property without an "
        "Encoding Object by style form (media_types/deserializers.py decode_property), whose "
        "form_loads (styles/util.py) looks up `location[name]` only: an array of arrays or "
        "objects, which OpenAPI leaves undefined there and httpllm sends as name[0][key]=... "
        "(issue 18 kind 9), is not read at all; deep_object_loads reads one bracket level.")),
    "form-exploded object query parameter": (_form_exploded_object, (
        "openapi-core's form_loads (openapi_core/deserializing/styles/util.py) reads "
        "`location[name]` for (explode=True, object) and splits it on '&', i.e. it looks for "
        "a query key named after the parameter; OpenAPI 3.1.0 section 4.8.12.5 (Style "
        "Examples: form, explode true, object -> `R=100&G=200&B=150`) sends the properties "
        "as keys of their own and no key named after the parameter, as httpllm does.")),
}
"""Name -> (predicate on (kind, error text, request, function), the openapi-core limitation
it works around, verified in openapi-core 0.23.1's source)."""


def draws(function: Function, examples: int) -> Iterator[Any]:
    """Up to `examples` tool calls drawn from `function.parameters`, derandomized."""
    try:
        strategy = from_schema(closed(function.parameters), custom_formats=FORMATS)
    except (HypothesisException, ValueError, TypeError, KeyError, RecursionError):
        return iter(())
    found: list[Any] = []

    def keep(arguments: Any) -> None:
        found.append(arguments)

    run = settings(max_examples=examples, deadline=None, derandomize=True, database=None,
                   phases=(Phase.explicit, Phase.generate),
                   suppress_health_check=list(HealthCheck), print_blob=False)(
        given(strategy)(keep))
    with contextlib.suppress(HypothesisException, RecursionError):
        run()
    return iter(found)


def main(specs: Path) -> int:
    """Print the figures of the whole sample for both dialects as JSON."""
    out: dict[str, Any] = {}
    judges = {rel: judge(specs / rel) for rel in SAMPLE}
    for provider, strict in DIALECTS:
        total = Figures()
        for rel in SAMPLE:
            total.add(sweep(specs / rel, provider, strict, openapi=judges[rel]))
        out[f"{provider}{' strict' if strict else ''}"] = total.to_json()
    print(json.dumps(out, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main(Path(sys.argv[1])))
