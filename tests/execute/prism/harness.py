"""Prism as an independent judge of the requests httpllm builds: the documents, the Prism
processes, reading and sorting Prism's answers, and the tallies.

`PrismServer` runs one `prism mock` process per document on 127.0.0.1; `request_violations`
reads Prism's verdict on one request and `classify` sets apart what is not httpllm's doing
(`KNOWN`); `Tally` adds everything up for the session summary and `last_run.json`. Drawing
and sending tool calls is in `sampling.py` (hypothesis is imported there, not here: this
module is loaded by the conftest, before hypothesis may touch its storage).

Prism reports a request-validation error in one of two ways: when the operation documents a
422 or 400 response it answers with that response and lists the violations in the
`sl-violations` header (`[{"location": ["request", "query", "limit"], "severity": "Error",
"code": "maximum", "message": ...}]`); otherwise it answers a problem JSON whose `type` ends
in `#UNPROCESSABLE_ENTITY` (415: `#INVALID_CONTENT_TYPE`) with the violations under
`validation` (locations without the `request` prefix).
"""

from __future__ import annotations

import json
import os
import re
import signal
import socket
import subprocess
import time
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx

from httpllm.records import Function

HERE = Path(__file__).resolve().parent
PRISM_BIN = HERE / "node_modules" / ".bin" / "prism"
SETUP = HERE / "setup.sh"
LAST_RUN = HERE / "last_run.json"

EXAMPLES = 4
"""Tool calls drawn per operation and schema (hypothesis `max_examples`)."""

START_TIMEOUT = 120.0
"""Seconds all Prism processes together may take to listen (they start in parallel)."""

STOP_TIMEOUT = 5.0
"""Seconds a Prism process may take to exit after SIGTERM before it is killed."""

REQUEST_TIMEOUT = 30.0
"""Seconds one request to Prism may take."""


@dataclass(frozen=True, slots=True)
class Spec:
    """One document Prism serves: a short id, its path under the corpus, why it is in the
    set, and operations left out (function name -> reason)."""

    id: str
    path: str
    why: str
    exclude: Mapping[str, str] = field(default_factory=dict)


_PRISM_DIES = {
    "headers_": "Prism 5.16.0 dies (TypeError in deserializers/style/simple.js) on an array "
                "header parameter",
    "paths_": "Prism 5.16.0 dies (TypeError in deserializers/style/simple.js) on an array "
              "path parameter",
    "query_spaceDelimited": "Prism 5.16.0 dies (deserializers/style/delimited.js) on a "
                            "spaceDelimited object parameter, which OpenAPI allows",
    "query_pipeDelimited": "Prism 5.16.0 dies (deserializers/style/delimited.js) on a "
                           "pipeDelimited object parameter, which OpenAPI allows",
    "formData_spaceDelimited": "Prism 5.16.0 dies (deserializers/style/delimited.js) on a "
                               "spaceDelimited object property of a form body",
    "form_data_pipeDelimited": "Prism 5.16.0 dies (deserializers/style/delimited.js) on a "
                               "pipeDelimited object property of a form body",
}
"""Operations of parameters-style.json left out, by name prefix: Prism crashes on them."""


def _crashing(names: list[str]) -> dict[str, str]:
    return {n: r for n in names for prefix, r in _PRISM_DIES.items() if n.startswith(prefix)}


SPECS: tuple[Spec, ...] = (
    Spec("petstore", "edge/oai-examples/v3.0/petstore-expanded.yaml",
         "the OpenAPI petstore: a query array, int32/int64 formats, an allOf body"),
    Spec("pagerduty-events", "real/pagerduty/events-v2/openapiv3.json",
         "JSON bodies with enums and maps"),
    Spec("hubspot-contacts", "real/hubspot/contacts.json",
         "JSON bodies with nested arrays and int32 fields, OAuth2"),
    Spec("twilio-studio", "real/twilio/twilio_studio_v2.json",
         "form-urlencoded bodies, HTTP basic auth"),
    Spec("twilio-messaging", "real/twilio/twilio_messaging_v1.yaml",
         "form bodies with array properties, 58 operations"),
    Spec("resend", "real/resend/resend.yaml",
         "3.1 with type arrays and const, a multipart body, bearer auth, 104 operations"),
    Spec("typesense", "real/typesense/openapi.yml",
         "apiKey header, exploded object query parameters, a binary body, 79 operations"),
    Spec("redocly-museum", "real/redocly-museum/openapi.yaml",
         "3.1 with dates and uuids, HTTP basic auth"),
    Spec("1password-connect", "real/1password/spec.yaml",
         "patterns, readOnly/writeOnly properties, bearer auth"),
    Spec("vonage-voice", "real/vonage/voice.yml", "oneOf bodies, bearer auth"),
    Spec("personio", "real/personio/personio-personnel-data-api-oa3.yaml",
         "JSON, form and multipart bodies, int32 path ids, bearer auth"),
    Spec("webex-messaging", "real/webex/webex-messaging.json",
         "many optional query parameters, 59 operations"),
    Spec("train-travel", "edge/readme-oas-examples/3.1/json/train-travel.json",
         "3.1 sample API: uuid and date-time formats, OAuth2"),
    Spec("parameters-style", "edge/readme-oas-examples/3.0/json/parameters-style.json",
         "query, cookie and form-body parameters in every style Prism survives",
         exclude=_crashing([
             "headers_standard", "headers_simple_nonExploded", "headers_simple_exploded",
             "paths_standard", "paths_matrix_nonExploded", "paths_matrix_exploded",
             "paths_label_nonExploded", "paths_label_exploded", "paths_simple_nonExploded",
             "paths_simple_exploded", "query_spaceDelimited_nonExploded",
             "query_pipeDelimited_nonExploded", "formData_spaceDelimited_nonExploded",
             "form_data_pipeDelimited_nonExploded",
         ])),
)

DIALECTS: tuple[tuple[str, bool], ...] = (("chatgpt", True), ("3.1", False))
"""(provider, strict) pairs exercised: OpenAI strict mode and the neutral 3.1 target."""


# --- Prism processes -------------------------------------------------------------------------


def free_port() -> int:
    """A TCP port nothing listens on at 127.0.0.1 right now."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


@dataclass
class PrismServer:
    """One `prism mock` process serving one document on 127.0.0.1."""

    document: Path
    log: Path
    port: int = field(default_factory=free_port)
    process: subprocess.Popen[bytes] | None = None
    failure: str = ""

    @property
    def url(self) -> str:
        """The base URL requests go to (Prism matches paths without the servers' prefix)."""
        return f"http://127.0.0.1:{self.port}"

    def start(self, command: Path) -> None:
        """Launch the process in its own process group, its output to `log`."""
        env = {**os.environ, "SCARF_ANALYTICS": "false", "NO_COLOR": "1"}
        argv = [str(command), "mock", "-v", "error", "-h", "127.0.0.1", "-p", str(self.port),
                str(self.document)]
        with self.log.open("wb") as out:
            self.process = subprocess.Popen(
                argv, stdout=out, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, env=env,
                start_new_session=True,
            )

    def alive(self) -> bool:
        """Whether the process is still running."""
        return self.process is not None and self.process.poll() is None

    def poll_ready(self) -> bool | None:
        """`True` once it listens, `False` if it exited (see `failure`), `None` meanwhile."""
        if not self.alive():
            code = self.process.returncode if self.process else None
            self.failure = f"prism exited with {code}: {self.log_tail()}"
            return False
        try:
            with socket.create_connection(("127.0.0.1", self.port), timeout=0.2):
                return True
        except OSError:
            return None

    def log_tail(self, lines: int = 6) -> str:
        """The last lines of the process output, on one line."""
        try:
            text = self.log.read_text(errors="replace")
        except OSError:
            return ""
        return " | ".join(line.strip() for line in text.splitlines()[-lines:])

    def stop(self) -> None:
        """SIGTERM the process group, then SIGKILL it if it lingers."""
        process = self.process
        if process is None or process.poll() is not None:
            return
        try:
            os.killpg(process.pid, signal.SIGTERM)
            process.wait(STOP_TIMEOUT)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait(STOP_TIMEOUT)
        except ProcessLookupError:
            pass


def start_all(servers: list[PrismServer], command: Path, timeout: float = START_TIMEOUT) -> None:
    """Start every server and wait (bounded) until each listens or has failed."""
    for server in servers:
        server.start(command)
    pending = list(servers)
    deadline = time.monotonic() + timeout
    while pending:
        pending = [s for s in pending if s.poll_ready() is None]
        if pending and time.monotonic() > deadline:
            for server in pending:
                server.failure = f"not listening after {timeout:.0f} s: {server.log_tail()}"
            return
        time.sleep(0.1)


# --- Prism's answer --------------------------------------------------------------------------

_REQUEST_PROBLEMS = ("UNPROCESSABLE_ENTITY", "INVALID_CONTENT_TYPE")


def request_violations(response: httpx.Response) -> list[dict[str, Any]]:
    """Prism's request-validation errors in an answer (location without the `request`
    prefix); `[]` when the request passed."""
    found: list[dict[str, Any]] = []
    header = response.headers.get("sl-violations")
    if header:
        try:
            listed = json.loads(header.removeprefix("Too many violations! "))
        except ValueError:  # cut at 8 KB by Prism
            listed = [{"location": ["request"], "severity": "Error", "code": "", "message": header}]
        for item in listed if isinstance(listed, list) else []:
            location = item.get("location") or [""]
            if location[0] == "request" and item.get("severity") == "Error":
                found.append({**item, "location": location[1:]})
    problem = _problem(response)
    if problem and str(problem.get("type", "")).endswith(_REQUEST_PROBLEMS):
        listed = problem.get("validation") or [
            {"location": [], "code": str(response.status_code), "message": problem.get("detail")}
        ]
        found.extend({**item, "location": item.get("location") or []} for item in listed)
    return found


def _problem(response: httpx.Response) -> dict[str, Any] | None:
    if "problem+json" not in response.headers.get("content-type", ""):
        return None
    try:
        body = response.json()
    except ValueError:
        return None
    return body if isinstance(body, dict) else None


def answer_kind(response: httpx.Response) -> str:
    """A short label for Prism's answer: `mock 200`, `NO_PATH_MATCHED_ERROR 404` ..."""
    problem = _problem(response)
    if problem and "type" in problem:
        return f"{str(problem['type']).rsplit('#', 1)[-1]} {response.status_code}"
    return f"mock {response.status_code}"


# --- what is not httpllm's doing -------------------------------------------------------------

KNOWN: dict[str, str] = {
    "prism-falsy-body": (
        "Prism 5.16.0 takes a JSON body that is false, 0 or \"\" for a missing one "
        "(`!body` in prism-http validator/index.js)"
    ),
    "prism-exploded-object-query": (
        "Prism 5.16.0 builds an exploded form-style object query parameter from the whole "
        "query even when it is absent, and matches its properties lower-cased "
        "(deserializers/style/form.js), so its required properties fail"
    ),
    "prism-form-values": (
        "Prism 5.16.0 reads every form or multipart value as one string, the last of a "
        "repeated key, JSON parts unparsed (validators/body.js), so array and object "
        "properties cannot pass"
    ),
    "prism-multipart-reserved": (
        "Prism 5.16.0 refuses RFC 3986 reserved characters in a multipart part with an "
        "Encoding `style`; httpllm sends parts raw, as OpenAPI 3.1.1 Appendix E.2 advises "
        "(percent-encoding there is left open, OAI/OpenAPI-Specification#4798)"
    ),
    "prism-int64-safe-integer": (
        "Prism 5.16.0 bounds format int64 to JavaScript's safe integers, +-(2**53 - 1) "
        "(http-spec oas/transformers/schema/keywords/format.js); the value is a valid int64"
    ),
    "prism-format-url": (
        "format `url` is ajv-formats' own (neither JSON Schema nor the OpenAPI Format "
        "Registry); validate leaves unknown formats unchecked, as JSON Schema says"
    ),
    "oneof-widened": (
        "validate checks oneOf as anyOf: normalize/unions.py widens overlapping oneOf "
        "members by design, and Prism refuses a value matching several of them"
    ),
}
"""Request-validation errors that are not httpllm bugs, by key: counted and listed in the
summary, not failed. Anything else Prism reports fails the test."""

_REQUIRED = re.compile(r"must have required property '([^']*)'")


def known_cause(violation: dict[str, Any], call: Call) -> str | None:
    """The `KNOWN` key that explains one violation, or `None` (a finding)."""
    location = [str(p) for p in violation.get("location") or []]
    code = str(violation.get("code", ""))
    message = str(violation.get("message", ""))
    if message == "Body parameter is required" and _falsy_json(call.request.content):
        return "prism-falsy-body"
    if code == "format" and message.endswith('format "url"'):
        return "prism-format-url"
    if code in ("minimum", "maximum") and "9007199254740991" in message:
        value = value_at(location, call)
        if isinstance(value, int) and 2**53 <= abs(value) < 2**63:
            return "prism-int64-safe-integer"
    if location[:1] == ["query"] and len(location) == 2 and code == "required":
        return _exploded_object_query(location[1], message, call)
    form = _form_body(call)
    if form is not None and location[:1] == ["body"] and len(location) >= 2:
        if message == "Reserved characters used in request body" and form == "multipart":
            return "prism-multipart-reserved"
        if _structured(location[1], call):
            return "prism-form-values"
    return None


def _falsy_json(content: bytes) -> bool:
    """Whether the body is JSON that JavaScript finds falsy: `false`, `0`, `""`, `null`."""
    try:
        value = json.loads(content)
    except ValueError:
        return False
    return value in (False, 0, "", None) and not isinstance(value, (list, dict))


def value_at(location: list[str], call: Call) -> Any:
    """The decoded value a Prism location (`["body", "items", "0"]`, `["query", "limit"]`)
    points at, or `None`. Prism lower-cases parameter names."""
    if not location:
        return None
    where, rest = location[0], location[1:]
    node: Any = None
    for argument in call.function.arguments:
        if argument.location == "body" and where == "body":
            node = call.decoded.get(argument.name)
            break
        original = (argument.original or argument.name).lower()
        if argument.location == where and rest and original == rest[0].lower():
            node, rest = call.decoded.get(argument.name), rest[1:]
            break
    for step in rest:
        if isinstance(node, Mapping):
            node = node.get(step)
        elif isinstance(node, list) and step.isdigit() and int(step) < len(node):
            node = node[int(step)]
        else:
            return None
    return node


def _exploded_object_query(name: str, message: str, call: Call) -> str | None:
    for argument in call.function.arguments:
        original = (argument.original or argument.name).lower()
        if argument.location != "query" or original != name or not argument.explode:
            continue
        value = call.decoded.get(argument.name)
        missing = _REQUIRED.search(message)
        if not isinstance(value, Mapping) or not value or (
            missing and missing.group(1) != missing.group(1).lower()
        ):
            return "prism-exploded-object-query"
    return None


def _form_body(call: Call) -> str | None:
    """`"form"` or `"multipart"` when the body is form data, else `None`."""
    for argument in call.function.arguments:
        media = str(argument.media_type or "")
        if argument.location == "body" and media.startswith("application/x-www-form-urlencoded"):
            return "form"
        if argument.location == "body" and media.startswith("multipart/form-data"):
            return "multipart"
    return None


def _structured(prop: str, call: Call) -> bool:
    """Whether the form body's property holds an object or a non-empty array."""
    value = value_at(["body", prop], call)
    return isinstance(value, Mapping) or (isinstance(value, list) and bool(value))


def classify(violations: list[dict[str, Any]], call: Call) -> dict[str, list[dict[str, Any]]]:
    """Violations by `KNOWN` key; the unexplained ones under `""`.

    A `oneOf` violation explains itself and every violation at or below its location (ajv
    lists the failing alternatives' errors beside it).
    """
    out: dict[str, list[dict[str, Any]]] = {}
    one_of = [v.get("location") or [] for v in violations if v.get("code") == "oneOf"]
    for violation in violations:
        location = violation.get("location") or []
        if any(location[: len(at)] == at for at in one_of):
            key: str | None = "oneof-widened"
        else:
            key = known_cause(violation, call)
        out.setdefault(key or "", []).append(violation)
    return out


# --- calls -----------------------------------------------------------------------------------


def describe(request: httpx.Request) -> dict[str, Any]:
    """The request as JSON (credentials left out), body cut to 1,000 characters."""
    body = request.content.decode("utf-8", "replace")
    hidden = ("authorization", "cookie")
    return {
        "method": request.method,
        "url": str(request.url),
        "headers": {k: v for k, v in request.headers.items() if k.lower() not in hidden},
        "body": body if len(body) <= 1000 else body[:1000] + "...",
    }


@dataclass(frozen=True, slots=True)
class Call:
    """One accepted tool call and the request built from it."""

    function: Function
    arguments: Any
    decoded: dict[str, Any]
    request: httpx.Request


@dataclass
class Outcome:
    """What exercising one operation did."""

    drawn: int = 0
    rejected: int = 0
    sent: int = 0
    source: str = "parameters"
    unsampleable: str = ""
    crashed: str = ""
    build_errors: list[str] = field(default_factory=list)
    findings: list[dict[str, Any]] = field(default_factory=list)
    known: Counter[str] = field(default_factory=Counter)
    answers: Counter[str] = field(default_factory=Counter)
    statuses: Counter[int] = field(default_factory=Counter)
    reasons: Counter[str] = field(default_factory=Counter)


# --- tallies ---------------------------------------------------------------------------------


def _short(value: Any, limit: int = 800) -> Any:
    """`value` itself when its JSON is short, else that JSON cut to `limit` characters."""
    text = json.dumps(value, ensure_ascii=False, default=repr)
    return value if len(text) <= limit else text[:limit] + "..."


@dataclass
class Tally:
    """What one session did; `summary()` holds the figures the closing note quotes."""

    prism_version: str = ""
    started: float = field(default_factory=time.monotonic)
    startup_seconds: float = 0.0
    operations: int = 0
    exercised: int = 0
    exercised_from_schema: int = 0
    drawn: int = 0
    rejected: int = 0
    requests: int = 0
    findings: int = 0
    build_errors: int = 0
    known: Counter[str] = field(default_factory=Counter)
    known_where: dict[str, set[str]] = field(default_factory=dict)
    statuses: Counter[int] = field(default_factory=Counter)
    answers: Counter[str] = field(default_factory=Counter)
    rejections: Counter[str] = field(default_factory=Counter)
    skipped: dict[str, list[str]] = field(default_factory=dict)
    specs: dict[str, dict[str, Any]] = field(default_factory=dict)
    details: list[dict[str, Any]] = field(default_factory=list)

    def skip(self, reason: str, what: str) -> None:
        """Record an operation (or a whole document) left out, and why."""
        self.skipped.setdefault(reason, []).append(what)

    def add(self, spec: Spec, dialect: str, function: Function, outcome: Outcome) -> None:
        """Count one exercised operation."""
        what = f"{spec.id} [{dialect}] {function.name}"
        self.operations += 1
        self.drawn += outcome.drawn
        self.rejected += outcome.rejected
        self.requests += outcome.sent
        self.findings += len(outcome.findings)
        self.build_errors += len(outcome.build_errors)
        self.known.update(outcome.known)
        for key in outcome.known:
            self.known_where.setdefault(key, set()).add(f"{spec.id} {function.name}")
        self.statuses.update(outcome.statuses)
        self.answers.update(outcome.answers)
        self.rejections.update(outcome.reasons)
        if outcome.sent:
            self.exercised += 1
            self.exercised_from_schema += outcome.source == "schema"
        elif outcome.unsampleable:
            self.skip("hypothesis-jsonschema cannot draw from the schema", what)
        elif outcome.crashed:
            self.skip("Prism stopped answering", what)
        elif not outcome.build_errors:
            keywords = ", ".join(sorted(outcome.reasons))
            self.skip("validate accepted none of the drawn calls", f"{what} ({keywords})")
        row = self.specs.setdefault(f"{spec.id} [{dialect}]", Counter())
        row.update({"operations": 1, "exercised": int(bool(outcome.sent)),
                    "requests": outcome.sent, "findings": len(outcome.findings)})
        for finding in outcome.findings:
            short = {k: _short(v) for k, v in finding.items() if k in ("arguments", "decoded")}
            self.details.append({"spec": spec.path, "dialect": dialect, **finding, **short})
        for error in outcome.build_errors:
            self.details.append({"spec": spec.path, "dialect": dialect,
                                 "function": function.name, "build_error": error})

    def summary(self) -> dict[str, Any]:
        """The figures as JSON."""
        return {
            "prism_version": self.prism_version,
            "examples_per_operation": EXAMPLES,
            "dialects": [f"{p}{' strict' if s else ''}" for p, s in DIALECTS],
            "documents": {s.id: {"path": s.path, "why": s.why} for s in SPECS},
            "operations": self.operations,
            "operations_exercised": self.exercised,
            "operations_exercised_from_schema": self.exercised_from_schema,
            "tool_calls_drawn": self.drawn,
            "tool_calls_rejected_by_validate": self.rejected,
            "rejections_by_keyword": dict(self.rejections.most_common()),
            "requests_sent": self.requests,
            "request_validation_errors": self.findings,
            "known_differences": {
                k: {"requests": self.known[k], "operations": sorted(self.known_where[k])}
                for k in sorted(self.known)
            },
            "build_errors_after_validate": self.build_errors,
            "statuses": {str(k): v for k, v in sorted(self.statuses.items())},
            "answers": dict(self.answers.most_common()),
            "skipped": {k: sorted(v) for k, v in sorted(self.skipped.items())},
            "per_document": {k: dict(v) for k, v in self.specs.items()},
            "details": self.details[:80],
            "prism_startup_seconds": round(self.startup_seconds, 1),
            "seconds": round(time.monotonic() - self.started, 1),
        }


TALLY = Tally()
"""The session's tally."""
