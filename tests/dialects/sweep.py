"""The corpus sweep: every function compiled from every real OpenAPI 3.x document passes its
dialect's validators.

A *mode* is a dialect, its options and the validators each of its tools must pass
(`"claude-strict"` = `compile(..., "claude", strict=True)`, judged by the Anthropic SDK's
types and its strict subset); :data:`MODES` lists them all. The documents are every
Swagger 2.0 and OpenAPI 3.0/3.1/3.2 document of the `real` set (MANIFEST.tsv; the corpus
folder found by tests/shared.py).

One sweep reads each document once and compiles it for each mode in turn: a single-file
document is parsed once and compiled from the parsed value (compile never mutates its
input, and a dict gives the same functions as the file), a multi-file one from its path.
Parsing is half of a compile on this corpus (YAML), so the modes share it; the cyclic
garbage collector is paused per document by the sweep (httpllm's compile no longer
switches it: issue #24). Results are kept
for the session: the first corpus test sweeps every mode the session selected (tests/dialects
conftest.py tells :func:`select`), the others read their tally. `benchmarks/dialect_table.py`
prints the tallies as the report table.
"""

from __future__ import annotations

import collections
import contextlib
import gc
import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import shared
from checkers import anthropic, bedrock, gemini, mcp, mistral, ollama, openai_strict
from checkers.census import conflicts, offered
from toolkit import (
    closed_by_xgrammar,
    compatible,
    draft7_keywords,
    graph_problems,
    mistral_common_accepts,
    spec_problems,
    strict_problems,
    type_lists,
    unsupported_by_xgrammar,
)

import httpllm
from httpllm.compose.inline import SizeMemo, measure
from httpllm.load import load_text

VERSIONS = ("2.0", "3.0", "3.1", "3.2")
"""The versions swept (Swagger 2.0 and OpenAPI 3.2 through httpllm.upgrade)."""
KNOWN_UPSTREAM = ("exclusiveMinimum: true", "exclusiveMaximum: true", "properties/$ref")
"""Failures in the emended schema itself (OpenAPI 3.0 boolean exclusive bounds, a property
named `$ref`), the same for every dialect: reported to the normalize owner, not judged here."""

Check = Callable[[Any, Any], list[str]]
"""`(tool, function) -> problems`: the tool in the dialect's envelope, one per function."""

DocumentCheck = Callable[[Any], list[str]]
"""`(application) -> problems`: checks of a whole compiled document."""


def _none(tool: Any, function: Any) -> list[str]:
    return []


@dataclass(frozen=True)
class Mode:
    """One corpus check: a dialect, its options and the validators of its tools."""

    key: str
    provider: str
    check: Check = _none
    document: DocumentCheck | None = None
    options: dict[str, Any] = field(default_factory=dict)


@dataclass
class Tally:
    """What one mode made of the corpus (the row of the report table)."""

    documents: int = 0
    functions: int = 0
    not_compiled: int = 0
    failures: list[str] = field(default_factory=list)
    upstream: list[str] = field(default_factory=list)
    fallbacks: int = 0
    split: int = 0
    actions: collections.Counter[str] = field(default_factory=collections.Counter)
    refused: list[str] = field(default_factory=list)
    seconds: float = 0.0

    def add(self, where: str, problems: Iterable[str]) -> None:
        """Record the problems found at `where` (a document, maybe with a function)."""
        for problem in problems:
            known = any(k in problem for k in KNOWN_UPSTREAM)
            (self.upstream if known else self.failures).append(f"{where}: {problem}")


# -- the validators of each mode ------------------------------------------------------------


def _claude(strict: bool) -> Check:
    def check(tool: Any, function: Any) -> list[str]:
        out = anthropic.check(tool)
        if tool.get("strict"):
            out += strict_problems(tool)
        elif strict and not _fell_back(function):
            out.append("sent non-strict without a fallback loss entry")
        return out

    return check


def _bedrock(tool: Any, function: Any) -> list[str]:
    out = bedrock.check({"tools": [tool]})
    if tool["toolSpec"].get("strict"):
        out += strict_problems({"input_schema": tool["toolSpec"]["inputSchema"]["json"]})
    return out


def _mistral(tool: Any, function: Any) -> list[str]:
    extra = sorted(draft7_keywords(tool["function"]["parameters"]))
    out = [f"not Draft 7: {extra}"] if extra else []
    if mistral.check(tool):
        # The fast meta-schema check reads `pattern` as an ECMA-262 regex (jsonschema-rs)
        # where mistral-common's own validator uses Python's `re`: it has the last word.
        try:
            mistral_common_accepts(tool)
        except Exception as exc:  # the validator's own exceptions, whatever they are
            out.append(f"mistral-common: {exc}")
    return out


def _compatible(tool: Any, function: Any) -> list[str]:
    """OpenAI SDK types; a strict tool also xgrammar's subset (vLLM builds a grammar for
    strict tools; a tool that fell back is sent without `strict` and gets none)."""
    out = compatible(tool)
    if tool["function"].get("strict"):
        out += unsupported_by_xgrammar(tool["function"]["parameters"])
    return out


def _vllm(tool: Any, function: Any) -> list[str]:
    """:func:`_compatible`, and nothing left open that xgrammar would close (llama, qwen:
    DeepSeek's strict mode closes every object itself, as OpenAI's)."""
    out = _compatible(tool, function)
    if tool["function"].get("strict"):
        out += closed_by_xgrammar(tool["function"]["parameters"])
    return out


def _deepseek(tool: Any, function: Any) -> list[str]:
    out = _compatible(tool, function)
    if tool["function"].get("strict"):
        out += openai_strict.check(tool)
    return out


def _merged_document(app: Any) -> list[str]:
    """OpenAI-compatible servers (vLLM) merge every tool's root `$defs` into one map: a name
    two tools define differently fails the request (issue 18, kind 10). No request schema
    offers a `readOnly` property (kind 1)."""
    clash = conflicts([(fn.name, fn.parameters) for fn in app.functions])
    out = [f"$defs {name!r} defined differently across tools {sorted(tools)[:3]}"
           for name, tools in sorted(clash.items())]
    return out + [f"{fn.name} offers readOnly {at}" for fn in app.functions
                  for at in offered(fn.parameters)]


def _gemini_document(app: Any) -> list[str]:
    """One `Tool` holding every declaration; recursion errors name their cycle."""
    tools = app.tools()
    out = [] if [list(t) for t in tools] == [["functionDeclarations"]] * bool(tools) else [
        f"tools: not one Tool of functionDeclarations: {[list(t) for t in tools]}"]
    out += [f"error without its cycle: {e.message}" for e in app.errors
            if "without $ref" in e.message and "->" not in e.message]
    return out


def _ollama(tool: Any, function: Any) -> list[str]:
    out = ollama.check(tool)
    out += [f"{p}: a type list" for p in type_lists(tool["function"]["parameters"])]
    return out


def _openapi30_document(app: Any) -> list[str]:
    """The 3.0 node rules on each distinct node of the document's functions, and
    openapi-spec-validator on the first 20 small non-recursive ones (the validator is slow
    and recurses; the cases cover recursion)."""
    seen: set[int] = set()
    out = [f"{fn.name} {p}" for fn in app.functions for p in graph_problems(fn.parameters, seen)]
    sizes = SizeMemo()
    small = [fn for fn in app.functions[:50] if "x-defs" not in fn.parameters
             and measure(fn.parameters, sizes)[1] < 5_000]
    return out + spec_problems(small[:20], patterns=False)


def _fell_back(function: Any) -> bool:
    return any(x.action == "fallback" for x in function.losses)


def _modes() -> dict[str, Mode]:
    strict = {"strict": True}
    modes = [
        Mode("claude", "claude", _claude(False)),
        Mode("claude-strict", "claude", _claude(True), options=strict),
        Mode("bedrock", "bedrock", _bedrock),
        Mode("bedrock-strict", "bedrock", _bedrock, options=strict),
        Mode("mistral", "mistral", _mistral),
        Mode("mistral-strict", "mistral", _mistral, options=strict),
        Mode("mcp", "mcp", lambda tool, function: mcp.check(tool)),
        Mode("llama", "llama", _vllm, document=_merged_document),
        Mode("llama-strict", "llama", _vllm, document=_merged_document, options=strict),
        Mode("qwen", "qwen", _vllm, document=_merged_document),
        Mode("qwen-strict", "qwen", _vllm, document=_merged_document, options=strict),
        Mode("deepseek", "deepseek", _compatible, document=_merged_document),
        Mode("deepseek-strict", "deepseek", _deepseek, document=_merged_document, options=strict),
        Mode("gemini", "gemini", lambda tool, function: gemini.check(tool),
             document=_gemini_document),
        Mode("ollama", "ollama", _ollama),
        Mode("3.0", "3.0", document=_openapi30_document),
    ]
    return {m.key: m for m in modes}


MODES = _modes()
"""Every mode, by key."""


# -- the sweep --------------------------------------------------------------------------------

_SELECTED: set[str] = set()
_TALLIES: dict[str, Tally] = {}


def select(keys: Iterable[str]) -> None:
    """Modes the session will ask for: the first :func:`tally` sweeps them together."""
    _SELECTED.update(k for k in keys if k in MODES)


def tally(key: str) -> Tally:
    """The tally of mode `key`, sweeping it (and every selected mode not swept yet)."""
    if key not in _TALLIES:
        keys = [k for k in MODES if k == key or (k in _SELECTED and k not in _TALLIES)]
        _TALLIES.update(sweep([MODES[k] for k in keys]))
    return _TALLIES[key]


def assert_clean(key: str) -> None:
    """The corpus test of one mode: no validator failure (the tally row is printed)."""
    result = tally(key)
    print(row(key, result))
    assert result.failures[:10] == [], f"{len(result.failures)} failures"


def specs_folder() -> Path:
    """The corpus folder (holding MANIFEST.tsv); else a failure under CI, a skip elsewhere."""
    return shared.require("specs")


def real_documents(folder: Path) -> list[dict[str, str]]:
    """The MANIFEST.tsv rows of every Swagger 2.0 and OpenAPI 3.0/3.1/3.2 document of the
    `real` set."""
    return [r for r in shared.manifest(["real"], folder)
            if r["openapi_version"][:3] in VERSIONS]


def sweep(modes: list[Mode], folder: Path | None = None) -> dict[str, Tally]:
    """Compile every real document for every mode and apply the mode's validators."""
    folder = folder or specs_folder()
    tallies = {mode.key: Tally() for mode in modes}
    for row in real_documents(folder):
        with _collector_paused():
            _sweep_one(folder, row, modes, tallies)
    return tallies


@contextlib.contextmanager
def _collector_paused() -> Iterator[None]:
    """The cyclic garbage collector off for one document: its parsed form and compiled
    functions are millions of objects without cycles, which every full collection would
    scan again (half the time of parsing, a tenth of the checks). The test harness's own
    choice: httpllm itself never switches the process-wide collector."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


def _sweep_one(folder: Path, row: dict[str, str], modes: list[Mode],
               tallies: dict[str, Tally]) -> None:
    """One document for every mode, read once."""
    local_path = row["local_path"]
    try:
        source = _source(folder / local_path, row)
    except httpllm.HttpllmError as exc:
        for result in tallies.values():
            result.refused.append(f"{local_path}: {exc}")
        return
    for mode in modes:
        result, start = tallies[mode.key], time.perf_counter()
        try:
            _compile_and_check(source, local_path, mode, result)
        except Exception as exc:  # a crash is a finding of its mode, not of the sweep
            result.failures.append(f"{local_path}: {type(exc).__name__}: {exc}")
        result.seconds += time.perf_counter() - start


def _source(path: Path, row: dict[str, str]) -> Any:
    """The parsed document (single file), or its path (it refers to other files)."""
    if row.get("n_files", "1") != "1":
        return path
    return load_text(path.read_bytes(), label=str(path))


def _compile_and_check(source: Any, local_path: str, mode: Mode, result: Tally) -> None:
    try:
        app = httpllm.compile(source, mode.provider, allow_outside_root=True, **mode.options)
    except httpllm.HttpllmError as exc:
        result.refused.append(f"{local_path}: {exc}")
        return
    result.documents += 1
    result.not_compiled += len(app.errors)
    # A fault of ours is reported as the operation's error, not raised: still a crash here.
    result.failures.extend(f"{local_path}: {e.pointer}: {e.message}" for e in app.errors
                           if e.kind == "InternalError")
    for function, tool in zip(app.functions, _tools(app), strict=True):
        result.functions += 1
        result.fallbacks += _fell_back(function)
        result.split += "split_of" in function.extra
        result.actions.update(x.action for x in function.losses)
        result.add(f"{local_path} {function.name}", mode.check(tool, function))
    if mode.document is not None:
        result.add(local_path, mode.document(app))


def _tools(app: Any) -> Iterator[Any]:
    """One tool per function in the dialect's envelope (ungrouped: Gemini's `tools()` is a
    single `Tool` holding every declaration)."""
    for function in app.functions:
        yield app.dialect.envelope(function, app.options)


# -- the report -------------------------------------------------------------------------------

ACTIONS = ("dropped", "described", "rewritten", "unrolled", "cut", "truncated", "fallback",
           "renamed")
"""Loss actions, in the table's column order (httpllm.loss.Action)."""


def row(key: str, result: Tally) -> str:
    """One line: the mode and its counts."""
    actions = ", ".join(f"{k} {v}" for k, v in sorted(result.actions.items()))
    return (f"{key}: functions {result.functions}, failures {len(result.failures)} "
            f"(+{len(result.upstream)} upstream), fallbacks {result.fallbacks}, {actions}")


def table(tallies: dict[str, Tally]) -> str:
    """The report table, as markdown: one row per mode."""
    head = ["dialect", "documents", "functions", "operations not compiled",
            "validator failures", "split", "fallen back to non-strict",
            *(f"loss: {a}" for a in ACTIONS)]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for key, result in tallies.items():
        failures = f"{len(result.failures):,}" + (
            f" (+{len(result.upstream):,} upstream)" if result.upstream else "")
        cells = [key, result.documents, result.functions, result.not_compiled, failures,
                 result.split, result.fallbacks, *(result.actions.get(a, 0) for a in ACTIONS)]
        lines.append("| " + " | ".join(f"{c:,}" if isinstance(c, int) else c
                                        for c in cells) + " |")
    return "\n".join(lines)
