"""Drawing tool calls for one compiled function and sending the accepted ones to Prism.

Tool calls are drawn from `Function.parameters` (what the model sees) with
hypothesis-jsonschema, decoded and checked by `validate`, built by `build_request` against
the Prism URL with made-up credentials, and sent; Prism's answer is sorted by
`harness.classify`.
"""

from __future__ import annotations

import base64
import json
from collections.abc import Callable, Mapping
from typing import Any

import httpx
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st
from hypothesis.errors import HypothesisException
from hypothesis_jsonschema import from_schema

from httpllm.errors import HttpllmError
from httpllm.execute import build_request, validate
from httpllm.records import Function

from .harness import (
    EXAMPLES,
    Call,
    Outcome,
    answer_kind,
    classify,
    describe,
    request_violations,
)

FORMATS: dict[str, st.SearchStrategy[str]] = {
    "byte": st.binary(max_size=24).map(lambda b: base64.b64encode(b).decode("ascii")),
    "uuid": st.uuids().map(str),
    "duration": st.sampled_from(["P1D", "PT1H30M", "P1Y2M3DT4H5M6S", "P2W"]),
}
"""String formats hypothesis-jsonschema does not know but `validate` checks."""

_DUMMY: dict[str, Callable[[Mapping[str, Any]], Any]] = {
    "apiKey": lambda scheme: "dummy-api-key",
    "http": lambda scheme: (
        ("dummy-user", "dummy-password")
        if str(scheme.get("scheme", "")).lower() == "basic" else "dummy-token"
    ),
    "oauth2": lambda scheme: "dummy-token",
    "openIdConnect": lambda scheme: "dummy-token",
}


def dummy_auth(function: Function) -> dict[str, Any]:
    """A made-up credential for every security scheme the operation names."""
    auth: dict[str, Any] = {}
    for name, scheme in function.security_schemes.items():
        if isinstance(scheme, Mapping) and str(scheme.get("type")) in _DUMMY:
            auth[name] = _DUMMY[str(scheme.get("type"))](scheme)
    return auth


def closed(schema: Mapping[str, Any]) -> dict[str, Any]:
    """`schema` without undeclared top-level keys, which `validate` refuses by design."""
    return {**schema, "additionalProperties": False}


class _PrismDied(Exception):
    """The connection to Prism failed: the process crashed or stopped answering."""


def exercise(function: Function, client: httpx.Client, base_url: str) -> Outcome:
    """Draw tool calls for `function` from `parameters` (the model's view), send the ones
    `validate` accepts to Prism and sort its answers.

    When no drawn call is accepted (a `format` or `pattern` the dialect dropped, an empty
    path value), calls are drawn again from `function.schema`, the constraints kept, so the
    request building is still checked; `Outcome.source` says which schema was used.
    """
    outcome = Outcome()
    for source, schema in (("parameters", function.parameters), ("schema", function.schema)):
        outcome.source = source
        _draw(function, schema, client, base_url, outcome)
        if outcome.sent or outcome.crashed or outcome.build_errors:
            break
    return outcome


def _draw(
    function: Function, schema: Mapping[str, Any], client: httpx.Client, base_url: str,
    outcome: Outcome,
) -> None:
    auth = dummy_auth(function)
    try:
        strategy = from_schema(closed(schema), custom_formats=FORMATS)
    except (HypothesisException, ValueError, TypeError, KeyError, RecursionError) as exc:
        outcome.unsampleable = f"{type(exc).__name__}: {str(exc)[:200]}"
        return

    def one_call(arguments: Any) -> None:
        outcome.drawn += 1
        checked = validate(function, arguments)
        if not checked.ok or checked.arguments is None:
            outcome.rejected += 1
            outcome.reasons.update(e.keyword for e in checked.errors)
            return
        try:
            request = build_request(function, arguments, base_url=base_url, auth=auth)
        except HttpllmError as exc:
            outcome.build_errors.append(f"{type(exc).__name__}: {exc} <- {_cut(arguments)}")
            return
        try:
            response = client.send(request)
        except httpx.HTTPError as exc:
            outcome.crashed = f"{type(exc).__name__}: {exc} on {describe(request)}"
            raise _PrismDied from exc
        outcome.sent += 1
        outcome.statuses[response.status_code] += 1
        outcome.answers[answer_kind(response)] += 1
        violations = request_violations(response)
        if not violations:
            return
        call = Call(function, arguments, checked.arguments, request)
        sorted_out = classify(violations, call)
        unexplained = sorted_out.pop("", [])
        outcome.known.update(sorted_out.keys())
        if unexplained:
            outcome.findings.append({
                "function": function.name,
                "operation": f"{function.method.upper()} {function.path}",
                "arguments": arguments,
                "decoded": checked.arguments,
                "request": describe(request),
                "status": response.status_code,
                "violations": unexplained,
            })

    run = settings(
        max_examples=EXAMPLES,
        deadline=None,
        derandomize=True,
        database=None,
        phases=(Phase.explicit, Phase.generate),
        suppress_health_check=list(HealthCheck),
        print_blob=False,
    )(given(strategy)(one_call))
    try:
        run()
    except _PrismDied:
        pass
    except (HypothesisException, RecursionError) as exc:
        if not outcome.drawn:
            outcome.unsampleable = f"{type(exc).__name__}: {str(exc)[:200]}"


def _cut(value: Any, limit: int = 300) -> str:
    text = json.dumps(value, ensure_ascii=False, default=repr)
    return text if len(text) <= limit else text[:limit] + "..."
