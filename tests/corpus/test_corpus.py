"""Corpus tests: every Swagger 2.0 and OpenAPI 3.0-3.2 root document of shared/specs compiles.

Each document of the `real` and `edge` sets in MANIFEST.tsv is compiled once per provider (a
module-scoped parametrized fixture, so only one Application is alive at a time) with
`allow_outside_root=True` (multi-file documents refer to sibling folders of their root) and
checked: only httpllm errors escape; every parameters schema is a valid self-contained JSON
Schema 2020-12 document (JSON-schema dialects); every tool passes its provider's checker; names
match `^[a-zA-Z0-9_-]{1,64}$` and are unique. Swagger 2.0 and OpenAPI 3.2 documents take the
same checks (httpllm.upgrade); no document is skipped for its version. The dialects beyond
"3.1" and "chatgpt" (strict and not) carry the `dialects` marker: `-m dialects` selects them,
`-m "not dialects"` skips them.

Run it on both cores with pytest-xdist: `pytest tests/corpus -n 2 --dist loadgroup`.
"""

from __future__ import annotations

import contextlib
import os
import re
import signal
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import shared
from checkers import BY_DIALECT, jsonschema_check, openai_strict
from checkers._schema import child
from checkers.census import offered

import httpllm

NAME = re.compile(r"^[a-zA-Z0-9_-]{1,64}$")
COMPILE_SECONDS = 180
CORE = {
    "3.1": ("3.1", {}),
    "chatgpt": ("chatgpt", {}),
    "chatgpt-strict": ("chatgpt", {"strict": True}),
}
DIALECTS = {
    name: (name, {})
    for name in (
        "3.0",
        "claude",
        "gemini",
        "llama",
        "deepseek",
        "qwen",
        "ollama",
        "mistral",
        "bedrock",
        "mcp",
    )
}
# The other dialects are checked over the real corpus by tests/dialects (issue 3); here they
# run only on request (HTTPLLM_CORPUS_DIALECTS=1), which keeps CI within its time budget.
PROVIDERS = {**CORE, **(DIALECTS if os.environ.get("HTTPLLM_CORPUS_DIALECTS") else {})}
NOT_JSON_SCHEMA = {"gemini", "3.0"}  # Gemini `Schema` and OpenAPI 3.0 Schema Objects
UNSUPPORTED: tuple[str, ...] = ()  # every version is read (2.0, 3.2: httpllm.upgrade)


def _manifest() -> list[dict[str, str]]:
    """MANIFEST.tsv rows of the `real` and `edge` sets, read at collection time (or none)."""
    return shared.manifest(["real", "edge"])


ROWS = _manifest()
ROWS_BY_PATH = {r["local_path"]: r for r in ROWS}
SUPPORTED = [r for r in ROWS if not (UNSUPPORTED and r["openapi_version"].startswith(UNSUPPORTED))]


# Known gaps, each a (provider, document) whose checks may fail until the named fix lands;
# they run and are reported as xfail/xpass, never silently skipped.
KNOWN_GAPS: dict[tuple[str, str], str] = {}


def _params() -> list[Any]:
    """One (document, provider) per param. `xdist_group` keeps each param's tests on one
    pytest-xdist worker under `--dist loadgroup`, so the document is compiled once there too."""
    out = []
    for key in PROVIDERS:
        for row in SUPPORTED:
            name = f"{key}:{row['local_path']}"
            marks = [pytest.mark.xdist_group(name)]
            gap = KNOWN_GAPS.get((key, row["local_path"]))
            if gap is not None:
                marks.append(pytest.mark.xfail(reason=gap, strict=False))
            if key in DIALECTS:
                marks.append(pytest.mark.dialects)
            out.append(pytest.param((row["local_path"], key), id=name, marks=marks))
    return out


def _real_3x(row: dict[str, str]) -> bool:
    return row["set"] == "real" and row["openapi_version"][:3] in ("3.0", "3.1")


APPLIES: dict[str, Any] = {
    "test_valid_documents_compile": lambda row, key: key == "3.1"
    and row["validator"] == "valid" and expected_error_paths(row) is None,
    "test_every_operation_accounted_for": lambda row, key: key == "3.1",
    "test_parameters_are_valid_json_schema": lambda row, key: key not in NOT_JSON_SCHEMA,
    "test_strict_fallbacks_are_reported": lambda row, key: key == "chatgpt-strict",
    "test_no_request_schema_offers_read_only": lambda row, key: key in (
        "chatgpt", "chatgpt-strict") and _real_3x(row),
}
"""Test -> `(row, provider key) -> whether it checks that document for that key`; the
other pairs are deselected at collection (tests/corpus/conftest.py), not skipped, so that a
skip under the corpus means a document refused."""


def applies(test: str, param: Any) -> bool:
    """Whether `test` checks the document and provider of `param` (:data:`APPLIES`)."""
    rule = APPLIES.get(test)
    if rule is None or not isinstance(param, tuple):  # no corpus: pytest's empty parameter
        return True
    local_path, key = param
    return bool(rule(ROWS_BY_PATH[local_path], key))


# ---------------------------------------------------------------------------------------------
# compiling


class CompileTimeout(Exception):
    """compile() ran longer than allowed."""


@contextlib.contextmanager
def deadline(seconds: float) -> Iterator[None]:
    """Raise CompileTimeout in the block after `seconds` (main thread with SIGALRM only)."""
    if not hasattr(signal, "SIGALRM") or threading.current_thread() is not threading.main_thread():
        yield
        return

    def expire(signum: int, frame: Any) -> None:
        raise CompileTimeout(f"compile() did not finish within {seconds} s")

    previous = signal.signal(signal.SIGALRM, expire)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


@dataclass(frozen=True)
class Outcome:
    """One document compiled for one provider: the Application or the exception."""

    row: dict[str, str]
    key: str
    app: Any
    error: BaseException | None
    seconds: float


@pytest.fixture(scope="module", params=_params())
def outcome(request: pytest.FixtureRequest, specs_dir: Path) -> Outcome:
    """The document compiled for the provider, once per module (then released)."""
    local_path, key = request.param
    row = next(r for r in SUPPORTED if r["local_path"] == local_path)
    provider, options = PROVIDERS[key]
    started = time.perf_counter()
    try:
        with deadline(COMPILE_SECONDS):
            app = httpllm.compile(
                specs_dir / local_path, provider, allow_outside_root=True, **options
            )
        error = None
    except BaseException as exc:  # judged by the tests; KeyboardInterrupt still stops the run
        if isinstance(exc, KeyboardInterrupt):
            raise
        app, error = None, exc
    return Outcome(row, key, app, error, time.perf_counter() - started)


def compiled(outcome: Outcome) -> Any:
    """The Application, or skip when the document was refused with an httpllm error."""
    if outcome.error is not None:
        if isinstance(outcome.error, httpllm.HttpllmError):
            pytest.skip(f"document refused: {outcome.error}")
        pytest.fail(f"compile raised {type(outcome.error).__name__}: {outcome.error}")
    return outcome.app


def expected_error_paths(row: dict[str, str]) -> list[str] | None:
    """For `expected-error:` documents, the paths the notes say must be reported; else None."""
    notes = row["notes"]
    if "expected-error" not in notes:
        return None
    return re.findall(r"(/[\w{}./-]+) is reported", notes)


# ---------------------------------------------------------------------------------------------
# availability


def test_corpus_is_available(specs_dir):
    """The corpus folder holds MANIFEST.tsv with the real and edge sets."""
    rows = _manifest()
    assert (specs_dir / "MANIFEST.tsv").is_file()
    assert len(rows) >= 200 and SUPPORTED, "MANIFEST.tsv lists fewer documents than expected"


# ---------------------------------------------------------------------------------------------
# every version


def test_no_document_skipped_for_its_version(specs_dir):
    """Swagger 2.0 and OpenAPI 3.2 documents are in the corpus checks like 3.0 and 3.1
    (read from the corpus: without it, skipped)."""
    versions = {r["openapi_version"][:3] for r in SUPPORTED}
    assert {"2.0", "3.2"} <= versions and len(SUPPORTED) == len(ROWS)


# ---------------------------------------------------------------------------------------------
# OpenAPI 3.0 / 3.1, per provider


def test_only_httpllm_errors_escape(outcome):
    """compile() returns, or raises an httpllm error; expected-error documents report theirs;
    no operation failed on a fault of ours (kind InternalError: compile reports it rather
    than raising, so it is looked for here)."""
    error = outcome.error
    if error is not None and not isinstance(error, httpllm.HttpllmError):
        pytest.fail(f"compile raised {type(error).__name__}: {error}", pytrace=False)
    if error is None:
        internal = [f"{e.pointer}: {e.message}" for e in outcome.app.errors
                    if e.kind == "InternalError"]
        assert not internal, internal[:3]
    paths = expected_error_paths(outcome.row)
    if paths is None or error is not None:
        return
    reported = {e.path for e in outcome.app.errors}
    dangling = [w for w in outcome.app.warnings if "no operation reaches it" in w.message]
    assert outcome.app.errors or dangling, (
        "a document broken on purpose compiled without any error or warning")
    assert set(paths) <= reported, f"expected errors for {paths}, got {sorted(reported)}"


def test_valid_documents_compile(outcome):
    """A document openapi-spec-validator calls valid compiles without a document-level error
    (provider 3.1, valid documents not broken on purpose: see :data:`APPLIES`)."""
    assert outcome.error is None, f"{type(outcome.error).__name__}: {outcome.error}"


def test_every_operation_accounted_for(outcome):
    """Each operation becomes a function or an operation error; none vanishes (3.1)."""
    app = compiled(outcome)
    expected = int(outcome.row["n_operations"])
    per_operation = {(e.method, e.path) for e in app.errors if e.method}
    accounted = len(app.functions) + len(per_operation)
    if any(not e.method for e in app.errors):  # a path-item error may stand for several
        assert accounted <= expected
    else:
        assert accounted == expected, (
            f"{len(app.functions)} functions + {len(per_operation)} errors"
        )


def test_parameters_are_valid_json_schema(outcome):
    """Every emitted parameters schema is a valid, self-contained JSON Schema 2020-12 document
    (not for the dialects whose parameters are not JSON Schema)."""
    app = compiled(outcome)
    problems = [
        f"{fn.name} {p}"
        for fn in app.functions
        if fn.parameters is not None
        for p in jsonschema_check.check(fn.parameters)
    ]
    assert problems[:20] == [], f"{len(problems)} problems"


def test_tools_pass_provider_checkers(outcome):
    """Every tool passes its provider's checker (strict tools the strict-subset checker)."""
    app = compiled(outcome)
    key = outcome.key
    if key in ("3.1", "3.0"):
        items = list(app.functions)
    elif key == "gemini":
        items = [app.tools()]
    else:
        items = list(app.tools())
    problems = []
    for item in items:
        for check in BY_DIALECT[key]:
            if check is openai_strict.check and child(item, "function", "strict") is not True:
                continue
            problems.extend(f"{_name(item)} {p}" for p in check(item))
    assert problems[:20] == [], f"{len(problems)} problems"


def test_strict_fallbacks_are_reported(outcome):
    """Under strict=True a function that is not strict carries a 'fallback' loss."""
    app = compiled(outcome)
    silent = [
        fn.name
        for fn in app.functions
        if not fn.strict and not any(x.action == "fallback" for x in fn.losses)
    ]
    assert silent == []


def test_no_request_schema_offers_read_only(outcome):
    """No function of a real OpenAPI 3.x document asks the model (chatgpt, strict and not)
    for a readOnly property, nor calls an argument (a path id, a body) readOnly (issue 18,
    kind 1: the fidelity census, on the compile the other checks use; kind 10, `$defs`
    names defined twice, is the llama and deepseek-strict sweep's, tests/dialects)."""
    app = compiled(outcome)
    found = [f"{fn.name} {at}" for fn in app.functions for at in offered(fn.parameters)]
    assert found[:10] == [], f"{len(found)} readOnly properties offered"


def test_names_valid_and_unique(outcome):
    """Function names match ^[a-zA-Z0-9_-]{1,64}$ and are unique in the document."""
    app = compiled(outcome)
    names = [fn.name for fn in app.functions]
    assert [n for n in names if not NAME.match(n)] == []
    assert len(set(names)) == len(names)


def _name(item: Any) -> str:
    if not isinstance(item, dict):
        return str(getattr(item, "name", "?"))
    return str(
        child(item, "function", "name") or child(item, "toolSpec", "name") or item.get("name")
    )
