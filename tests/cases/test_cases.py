"""Acceptance tests for the bug cases in shared/cases (C*.yaml), one test per case and target.

Each test encodes one bullet of a case header's EXPECTED BEHAVIOUR; the invariants 1-7 of
shared/cases/README.md run for every case and target. Targets map to compile() calls:

    openai -> ("chatgpt"), openai-strict -> ("chatgpt", strict=True), anthropic -> "claude",
    gemini -> "gemini", openai-compatible -> "llama", ollama -> "ollama", mcp -> "mcp".

P is `Function.parameters`; the request body is always wrapped as one argument, so B is
`P.properties.body` (followed through `$ref` inside P). The request-building bullets of C17 and
C25 are tested elsewhere.
"""

from __future__ import annotations

import contextlib
import inspect
import re
import signal
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
import shared
from checkers import BY_DIALECT, gemini, ollama, openai_strict
from checkers._schema import child, deref, iter_schemas, join, ref_problems, types_of
from checkers.reading import (
    accepts,
    is_null_schema,
    keywords,
    nullable_parts,
    pointers_with,
    texts,
    type_name,
)

import httpllm
from httpllm.dialects.openai import NULL_MARKER

TARGETS: dict[str, tuple[str, dict[str, Any]]] = {
    "openai": ("chatgpt", {}),
    "openai-strict": ("chatgpt", {"strict": True}),
    "anthropic": ("claude", {}),
    "gemini": ("gemini", {}),
    "openai-compatible": ("llama", {}),
    "ollama": ("ollama", {}),
    "mcp": ("mcp", {}),
}
JSON_TARGETS = ("openai", "openai-strict", "anthropic", "openai-compatible", "mcp")
PLAIN_JSON = ("openai", "anthropic", "openai-compatible", "mcp")
CHECKER_KEY = {
    "openai": "chatgpt",
    "openai-strict": "chatgpt-strict",
    "anthropic": "claude",
    "gemini": "gemini",
    "openai-compatible": "llama",
    "ollama": "ollama",
    "mcp": "mcp",
}
INVARIANT_NAME = re.compile(r"^[a-zA-Z_][a-zA-Z0-9_-]{0,63}$")
ARGUMENT_NAME = re.compile(r"^[a-zA-Z0-9_-]{1,64}$")
COMPILE_SECONDS = 60
KNOWN_CASES = (
    "C01", "C03", "C04", "C06", "C07", "C09", "C11", "C13", "C14", "C15",
    "C17", "C18", "C19", "C21", "C22", "C23", "C25", "C27", "C29",
)  # fmt: skip


def _case_ids() -> tuple[str, ...]:
    """Case ids present in the bug-case folder at collection time (tests/shared.py), else
    the ones known today."""
    return shared.case_ids() or KNOWN_CASES


CASES = _case_ids()


# ---------------------------------------------------------------------------------------------
# compiling, with a guard against hangs


class CompileTimeout(Exception):
    """compile() ran longer than allowed."""


@contextlib.contextmanager
def deadline(seconds: float) -> Iterator[None]:
    """Raise CompileTimeout in the block after `seconds` (main thread with SIGALRM only)."""
    usable = hasattr(signal, "SIGALRM") and threading.current_thread() is threading.main_thread()
    if not usable:
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


def run_compile(spec: Any, target: str, **options: Any) -> Any:
    """compile() for a case target; RecursionError and hangs become test failures."""
    provider, base = TARGETS[target]
    try:
        with deadline(COMPILE_SECONDS):
            return httpllm.compile(spec, provider, **{**base, **options})
    except RecursionError as exc:  # invariant 1
        pytest.fail(f"compile() raised RecursionError for {target}: {exc}", pytrace=False)
    except CompileTimeout as exc:
        pytest.fail(f"{target}: {exc}", pytrace=False)


@pytest.fixture(scope="module")
def case_path(cases_dir: Path) -> Callable[[str], Path]:
    """`case_path("C01")` -> the case document."""

    def find(case_id: str) -> Path:
        return shared.case(case_id)

    return find


@pytest.fixture(scope="module")
def compiled(case_path: Callable[[str], Path]) -> Callable[..., Any]:
    """`compiled("C01", "gemini", unroll=2)` -> Application, compiled once per module."""
    cache: dict[tuple[Any, ...], Any] = {}

    def get(case_id: str, target: str, **options: Any) -> Any:
        key = (case_id, target, tuple(sorted(options.items())))
        if key not in cache:
            cache[key] = run_compile(case_path(case_id), target, **options)
        return cache[key]

    return get


# ---------------------------------------------------------------------------------------------
# reading an Application


def function(app: Any, operation_id: str) -> Any:
    """The one function compiled from `operation_id`."""
    found = [f for f in app.functions if f.operation_id == operation_id]
    errors = [e.to_json() if hasattr(e, "to_json") else e for e in app.errors]
    assert len(found) == 1, f"{operation_id}: {len(found)} functions; errors: {errors}"
    return found[0]


def tool_for(app: Any, target: str, name: str) -> Any:
    """The provider envelope of function `name` in `app.tools()` (a Gemini declaration)."""
    tools = app.tools()
    if target == "gemini":
        decls = gemini.declarations(tools)
        matches = [d for d in decls if d.get("name") == name]
    else:
        matches = [t for t in tools if _tool_name(t) == name]
    assert len(matches) == 1, f"{len(matches)} tools named {name!r} in tools()"
    return matches[0]


def _tool_name(tool: Any) -> Any:
    if isinstance(tool.get("function"), dict):
        return tool["function"].get("name")
    if isinstance(tool.get("toolSpec"), dict):
        return tool["toolSpec"].get("name")
    return tool.get("name")


def body(fn: Any) -> Any:
    """B: the request-body schema inside P, `$ref` followed."""
    node = child(fn.parameters, "properties", "body")
    assert node is not None, f"{fn.name}: no body argument in {sorted(fn.parameters['properties'])}"
    return deref(fn.parameters, node)


def prop(root: Any, node: Any, name: str) -> Any:
    """The schema of property `name` of object `node` (non-null core first), `$ref` followed."""
    shape = nullable_parts(root, node)[1]
    value = child(shape, "properties", name)
    assert value is not None, f"no property {name!r} in {sorted(child(shape, 'properties') or {})}"
    return deref(root, value)


def core(root: Any, node: Any) -> Any:
    """The non-null part of a schema."""
    return nullable_parts(root, node)[1]


def is_nullable(root: Any, node: Any) -> bool:
    """Whether a property schema accepts null, in any of the three spellings."""
    return nullable_parts(root, node)[0]


def required_of(node: Any) -> set[str]:
    """The `required` names of an object schema."""
    return set(child(node, "required") or [])


def losses(app: Any, fn: Any = None) -> list[Any]:
    """Loss entries of a function (and the application's, which may repeat them)."""
    return [*(fn.losses if fn is not None else ()), *getattr(app, "losses", ())]


def loss_text(loss: Any) -> str:
    """Everything a loss entry (or warning) says, for 'names X' checks."""
    fields = ("pointer", "keyword", "note", "value", "message")
    return " ".join(str(getattr(loss, k, "")) for k in fields)


def reported(app: Any, fn: Any, needle: str) -> bool:
    """Whether a loss entry or a warning of the application mentions `needle`."""
    entries = [*losses(app, fn), *getattr(app, "warnings", ())]
    return any(needle in loss_text(x) for x in entries)


def errors_for(app: Any, method: str, path: str) -> list[Any]:
    """Operation errors recorded for one operation."""
    return [e for e in app.errors if e.method == method and e.path == path]


def compile_options() -> set[str]:
    """Keyword options compile() accepts."""
    return set(inspect.signature(httpllm.compile).parameters)


def assert_nullable_form(root: Any, node: Any, typ: str) -> Any:
    """`type: [typ, "null"]` or `anyOf [{typ ...}, {type: null}]`; returns the non-null core.
    The strict real-null marker (issue 18: an optional nullable property) is not counted."""
    node = deref(root, node)
    if isinstance(node.get("type"), list):
        assert sorted(node["type"]) == sorted([typ, "null"]), node
        return nullable_parts(root, node)[1]
    members = [deref(root, b) for b in node.get("anyOf") or [] if b != NULL_MARKER]
    assert len(members) == 2, f"expected [{typ}, null] or anyOf of two, got {node}"
    nulls = [m for m in members if is_null_schema(m)]
    others = [m for m in members if not is_null_schema(m)]
    assert len(nulls) == 1 and len(others) == 1, node
    assert types_of(others[0]) == [typ], others[0]
    return others[0]


def type_lists(schema: Any) -> list[str]:
    """Pointers of nodes whose `type` is not a single string."""
    return [
        p
        for p, n in iter_schemas(schema)
        if isinstance(n, dict) and not isinstance(n.get("type", ""), str)
    ]


def not_nullable(target: str, root: Any, node: Any) -> bool:
    """A property that must not accept null: no null spelling and, for JSON targets, null fails."""
    if is_nullable(root, node):
        return False
    if target == "gemini":
        return True
    return not accepts(root, node, None)


# ---------------------------------------------------------------------------------------------
# invariants 1-7 (shared/cases/README.md), every case x target


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("case_id", CASES)
def test_invariant_compile_returns(compiled, case_id, target):
    """compile() returns an Application for every case document (no exception, no hang)."""
    app = compiled(case_id, target)
    assert app.functions or app.errors


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("case_id", CASES)
def test_invariant_refs_resolve_inside_parameters(compiled, case_id, target):
    """Every `$ref` left in P resolves inside P and none points at `#/components/`."""
    app = compiled(case_id, target)
    problems = [f"{fn.name} {p}" for fn in app.functions for p in ref_problems(fn.parameters)]
    assert problems == []


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("case_id", CASES)
def test_invariant_errors_name_operation_and_path(compiled, case_id, target):
    """Every operation error names its operation (method and path) and a JSON pointer."""
    app = compiled(case_id, target)
    for err in app.errors:
        assert err.method and err.path.startswith("/"), err
        assert isinstance(err.pointer, str) and err.pointer.startswith("#"), err
        assert err.message, err


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("case_id", CASES)
def test_invariant_root_is_object_with_properties(compiled, case_id, target):
    """P is `{type: object, properties: {...}}` with no root union; Gemini omits empty P."""
    app = compiled(case_id, target)
    for fn in app.functions:
        if target == "gemini" and not fn.arguments:
            assert "parameters" not in tool_for(app, target, fn.name), fn.name
            continue
        p = fn.parameters
        assert isinstance(p, dict), fn.name
        assert type_name(p) == "object", (fn.name, p.get("type"))
        assert isinstance(p.get("properties"), dict), fn.name
        assert not {"anyOf", "oneOf", "allOf", "not", "$ref"} & set(p), (fn.name, sorted(p))


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("case_id", CASES)
def test_invariant_names_valid_unique_stable(case_path, compiled, case_id, target):
    """Function names match the safe pattern, are unique, and are the same on a second run."""
    app = compiled(case_id, target)
    names = [fn.name for fn in app.functions]
    assert [n for n in names if not INVARIANT_NAME.match(n)] == []
    assert len(set(names)) == len(names), names
    again = run_compile(case_path(case_id), target)
    assert [fn.name for fn in again.functions] == names


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("case_id", CASES)
def test_invariant_required_names_exist(compiled, case_id, target):
    """Every `required` list names only properties present in the sibling `properties`."""
    app = compiled(case_id, target)
    bad = []
    for fn in app.functions:
        for pointer, node in iter_schemas(fn.parameters):
            if isinstance(node, dict) and "required" in node:
                missing = set(node["required"]) - set(node.get("properties") or {})
                if missing:
                    bad.append(f"{fn.name} {pointer}: {sorted(missing)}")
    assert bad == []


@pytest.mark.parametrize("case_id", CASES)
def test_invariant_strict_shape(compiled, case_id):
    """openai-strict: strict functions conform to the strict subset and optionals are nullable."""
    app = compiled(case_id, "openai-strict")
    for fn in app.functions:
        if not fn.strict:  # allowed only as a reported fallback (C15 outcome b)
            fallbacks = [loss for loss in fn.losses if loss.action == "fallback"]
            assert fallbacks, f"{fn.name} left strict mode without a 'fallback' loss"
            continue
        assert openai_strict.check(fn) == [], fn.name
        p = fn.parameters
        for arg in fn.arguments:
            if not arg.required:
                assert accepts(p, join("#/properties", arg.name), None), (fn.name, arg.name)
        _assert_body_optionals_nullable(fn)


def _assert_body_optionals_nullable(fn: Any) -> None:
    """Optional properties of the emended body object are nullable in the strict body."""
    emended = fn.schema
    source = deref(emended, child(emended, "properties", "body"))
    if not isinstance(source, dict) or not isinstance(source.get("properties"), dict):
        return
    strict_body = deref(fn.parameters, child(fn.parameters, "properties", "body"))
    for name in set(source["properties"]) - required_of(source):
        node = child(core(fn.parameters, strict_body), "properties", name)
        assert node is not None, (fn.name, name)
        assert accepts(fn.parameters, node, None), f"{fn.name}: body.{name} is not nullable"


@pytest.mark.parametrize("case_id", CASES)
def test_invariant_gemini_schema_subset(compiled, case_id):
    """gemini: declarations use only Gemini Schema fields (invariant 6) and the SDK takes them."""
    app = compiled(case_id, "gemini")
    assert gemini.check(app.tools()) == []


@pytest.mark.parametrize("case_id", CASES)
def test_invariant_ollama_single_types(compiled, case_id):
    """ollama: every `type` in every P is a single string (invariant 7)."""
    app = compiled(case_id, "ollama")
    for fn in app.functions:
        assert type_lists(fn.parameters) == [], fn.name


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("case_id", CASES)
def test_tools_pass_provider_checkers(compiled, case_id, target):
    """Every tool in `tools()` passes the provider's own validators (SDK models and rules)."""
    app = compiled(case_id, target)
    problems = []
    tools = app.tools()
    for check in BY_DIALECT[CHECKER_KEY[target]]:
        if target == "gemini":
            problems.extend(check(tools))
            continue
        for tool in tools:
            strict = child(tool, "function", "strict")
            if check is openai_strict.check and strict is not True:
                continue  # a reported strict fallback (C15 outcome b) is judged non-strict
            problems.extend(check(tool))
    assert problems == []


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("case_id", CASES)
def test_tools_carry_function_parameters(compiled, case_id, target):
    """`tools()` holds one envelope per function, carrying exactly `Function.parameters`."""
    app = compiled(case_id, target)
    for fn in app.functions:
        tool = tool_for(app, target, fn.name)
        if target == "gemini":
            assert tool.get("parameters") == (fn.parameters if fn.arguments else None)
        elif target in ("openai", "openai-strict", "openai-compatible", "ollama"):
            assert tool["function"]["parameters"] == fn.parameters
            if target == "openai-strict":
                assert tool["function"].get("strict") is fn.strict
        elif target == "anthropic":
            assert tool["input_schema"] == fn.parameters
        else:
            assert tool["inputSchema"] == fn.parameters
    tools = app.tools()
    envelopes = gemini.declarations(tools) if target == "gemini" else tools
    assert len(envelopes) == len(app.functions)


# ---------------------------------------------------------------------------------------------
# C01 recursive-self-ref


@pytest.mark.parametrize("target", TARGETS)
def test_c01_cycle_reported(compiled, target):
    """C01: the Folder -> Folder cycle is reported for every target."""
    app = compiled("C01", target)
    assert any("Folder" in cycle for cycle in app.cycles), app.cycles


@pytest.mark.parametrize("target", (*PLAIN_JSON, "openai-strict"))
def test_c01_folder_kept_as_local_definition(compiled, target):
    """C01: Folder lives in P.$defs and children items are `{"$ref": "#/$defs/Folder"}`."""
    fn = function(compiled("C01", target), "createFolder")
    p = fn.parameters
    folder = child(p, "$defs", "Folder")
    assert isinstance(folder, dict), sorted(p.get("$defs") or {})
    for obj in (body(fn), folder):
        children = prop(p, obj, "children")
        assert core(p, children).get("items") == {"$ref": "#/$defs/Folder"}
    b = body(fn)
    assert type_name(prop(p, b, "name")) == "string"
    assert "name" in required_of(b)
    assert "array" in types_of(core(p, prop(p, b, "children")))


@pytest.mark.parametrize("target", PLAIN_JSON)
def test_c01_children_optional(compiled, target):
    """C01: children stays optional (not in B.required) for non-strict JSON-schema targets."""
    fn = function(compiled("C01", target), "createFolder")
    assert "children" not in required_of(body(fn))


def test_c01_strict_closes_every_object_and_nulls_children(compiled):
    """C01 openai-strict: Folder is closed, lists all properties, and children is nullable."""
    fn = function(compiled("C01", "openai-strict"), "createFolder")
    p = fn.parameters
    for obj in (body(fn), p["$defs"]["Folder"]):
        assert obj.get("additionalProperties") is False
        assert required_of(obj) == {"name", "children"}
        assert_nullable_form(p, child(obj, "properties", "children"), "array")
        assert not is_nullable(p, child(obj, "properties", "name"))


def test_c01_gemini_default_is_an_error_naming_the_cycle(compiled):
    """C01 gemini: without unroll, createFolder is an operation error naming Folder; no refs."""
    app = compiled("C01", "gemini")
    assert not [f for f in app.functions if f.operation_id == "createFolder"]
    errs = errors_for(app, "post", "/folders")
    assert errs and any("Folder" in e.message for e in errs), app.errors
    assert not {"$ref", "$defs", "ref", "defs"} & _all_keys(app.tools())


def _all_keys(value: Any) -> set[str]:
    """Every dict key anywhere in a JSON value (iterative)."""
    keys: set[str] = set()
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, dict):
            keys.update(item)
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
    return keys


def test_c01_ollama_never_sends_property_refs(compiled):
    """C01 ollama: createFolder is an error naming Folder, or emitted without a property `$ref`."""
    app = compiled("C01", "ollama")
    found = [f for f in app.functions if f.operation_id == "createFolder"]
    if not found:
        errs = errors_for(app, "post", "/folders")
        assert errs and any("Folder" in e.message for e in errs), app.errors
        return
    dropped = [p for p in ollama.check(found[0]) if "dropped by the server" in p]
    assert dropped == []


@pytest.mark.parametrize("k", [1, 2, 3])
def test_c01_gemini_unroll_expands_exactly_k_levels(compiled, k):
    """C01 gemini unroll=k: k nested Folder levels, the deepest without children, cut reported."""
    app = compiled("C01", "gemini", unroll=k)
    fn = function(app, "createFolder")
    assert not {"$ref", "$defs", "ref", "defs"} & _all_keys(app.tools())
    node, levels = body(fn), 0
    while node is not None:
        levels += 1
        assert type_name(prop(fn.parameters, node, "name")) == "string"
        kids = child(node, "properties", "children")
        node = child(kids, "items") if kids is not None else None
    assert levels == k
    assert reported(app, fn, "children"), (fn.losses, app.warnings)


# ---------------------------------------------------------------------------------------------
# C03 gemini-ref-defs


def test_c03_gemini_inlines_place_and_units(compiled):
    """C03 gemini: no ref keys; location is an inline OBJECT; units an inline STRING enum."""
    app = compiled("C03", "gemini")
    fn = function(app, "getForecast")
    banned = {"$ref", "$defs", "definitions", "ref", "defs", "$schema"}
    assert not banned & keywords(fn.parameters)
    location = prop(fn.parameters, body(fn), "location")
    _assert_place(fn.parameters, location)
    units = child(fn.parameters, "properties", "units")
    assert type_name(units) == "string"
    assert sorted(units["enum"]) == ["imperial", "metric"]


def _assert_place(root: Any, location: Any) -> None:
    location = core(root, location)
    assert type_name(location) == "object"
    assert set(location["properties"]) == {"name", "region"}
    assert required_of(location) == {"name", "region"}
    assert "A named place" in texts(root, location)


@pytest.mark.parametrize("target", JSON_TARGETS)
def test_c03_json_targets_resolve_to_the_same_shapes(compiled, target):
    """C03: refs are inlined or local; location and units resolve to the component shapes."""
    fn = function(compiled("C03", target), "getForecast")
    p = fn.parameters
    assert ref_problems(p) == []
    _assert_place(p, prop(p, body(fn), "location"))
    units = core(p, child(p, "properties", "units"))
    assert sorted(v for v in units["enum"] if v is not None) == ["imperial", "metric"]


# ---------------------------------------------------------------------------------------------
# C04 ref-sibling-description


ROLES = ["editor", "owner", "viewer"]


def _assert_role(target: str, root: Any, node: Any, description: str) -> None:
    """A role property: string enum of the three roles, the site description on the property."""
    own = node.get("description") or core(root, node).get("description") or ""
    assert str(own).startswith(description), node
    shape = core(root, node)
    if target in ("gemini", "openai-strict"):
        assert type_name(shape) == "string", shape
        assert sorted(v for v in shape["enum"] if v is not None) == ROLES
    if target != "gemini":
        assert accepts(root, node, "editor") and not accepts(root, node, "admin")
        assert not accepts(root, node, 5)


def test_c04_strict_inlines_roles_without_ref_siblings(compiled):
    """C04 openai-strict: no `$ref` with siblings; role and previousRole inlined; no allOf."""
    fn = function(compiled("C04", "openai-strict"), "setMemberRole")
    p = fn.parameters
    crowded = [
        ptr for ptr, n in iter_schemas(p) if isinstance(n, dict) and "$ref" in n and len(n) > 1
    ]
    assert crowded == []
    assert "allOf" not in keywords(p)
    b = body(fn)
    role = child(b, "properties", "role")
    assert "$ref" not in role
    _assert_role("openai-strict", p, role, "New role for the member")
    assert not is_nullable(p, role)
    previous = child(b, "properties", "previousRole")
    _assert_role("openai-strict", p, previous, "Role the member had before")
    assert is_nullable(p, previous)


@pytest.mark.parametrize("target", PLAIN_JSON)
def test_c04_json_targets_keep_site_descriptions(compiled, target):
    """C04: role and previousRole carry their site descriptions; any `$ref` stands alone."""
    fn = function(compiled("C04", target), "setMemberRole")
    p = fn.parameters
    crowded = [
        ptr for ptr, n in iter_schemas(p) if isinstance(n, dict) and "$ref" in n and len(n) > 1
    ]
    assert crowded == []
    b = body(fn)
    for name, text in (("role", "New role for the member"), ("previousRole", "Role the member")):
        _assert_role(target, p, child(b, "properties", name), text)


def test_c04_gemini_inlines_with_descriptions(compiled):
    """C04 gemini: role and previousRole inlined with their site descriptions, no allOf."""
    fn = function(compiled("C04", "gemini"), "setMemberRole")
    p = fn.parameters
    assert "allOf" not in keywords(p)
    b = body(fn)
    _assert_role("gemini", p, child(b, "properties", "role"), "New role for the member")
    _assert_role("gemini", p, child(b, "properties", "previousRole"), "Role the member had before")


# ---------------------------------------------------------------------------------------------
# C06 body-ref-dropped


@pytest.mark.parametrize("target", TARGETS)
def test_c06_body_resolved_and_required(compiled, target):
    """C06: B has exactly name, tag, owner; owner has id and displayName; body is required."""
    fn = function(compiled("C06", target), "addPet")
    p = fn.parameters
    b = body(fn)
    assert set(b["properties"]) == {"name", "tag", "owner"}
    assert "name" in required_of(b)
    owner = core(p, prop(p, b, "owner"))
    assert type_name(owner) == "object"
    assert set(owner["properties"]) == {"id", "displayName"}
    assert "id" in required_of(owner)
    if target != "openai-strict":
        assert required_of(owner) == {"id"}
    assert "body" in required_of(p)
    empty = [ptr for ptr, n in iter_schemas(p) if isinstance(n, dict) and n.get("properties") == {}]
    assert empty == [], "an object with empty properties was emitted"


def test_c06_strict_nulls_optionals(compiled):
    """C06 openai-strict: tag, owner and displayName are nullable; every property is required."""
    fn = function(compiled("C06", "openai-strict"), "addPet")
    p = fn.parameters
    b = body(fn)
    assert required_of(b) == {"name", "tag", "owner"}
    owner_node = child(b, "properties", "owner")
    owner = core(p, owner_node)
    assert required_of(owner) == {"id", "displayName"}
    for node in (
        child(b, "properties", "tag"),
        owner_node,
        child(owner, "properties", "displayName"),
    ):
        assert accepts(p, node, None), node
    for node in (child(b, "properties", "name"), child(owner, "properties", "id")):
        assert not accepts(p, node, None), node


# ---------------------------------------------------------------------------------------------
# C07 nullable-oas30-input


@pytest.mark.parametrize("target", JSON_TARGETS)
def test_c07_nullable_rewritten_to_json_schema(compiled, target):
    """C07: no `nullable` key; category, price, tags, owner accept null; name does not."""
    fn = function(compiled("C07", target), "createItem")
    p = fn.parameters
    assert "nullable" not in keywords(p)
    b = body(fn)
    assert_nullable_form(p, child(p, "properties", "category"), "string")
    assert_nullable_form(p, child(b, "properties", "price"), "number")
    tags = assert_nullable_form(p, child(b, "properties", "tags"), "array")
    assert deref(p, tags["items"]) == {"type": "string"}
    owner_node = child(b, "properties", "owner")
    owner = assert_nullable_form(p, owner_node, "object")
    assert set(owner["properties"]) == {"id"} and required_of(owner) == {"id"}
    assert "allOf" not in keywords(deref(p, owner_node))
    name = child(b, "properties", "name")
    assert types_of(deref(p, name)) == ["string"]
    assert accepts(
        p, "#/properties/body", {"name": "x", "price": None, "tags": None, "owner": None}
    )
    assert not accepts(p, "#/properties/body", {"name": None})


def test_c07_strict_lists_every_property(compiled):
    """C07 openai-strict: every property of P and B is listed in required."""
    fn = function(compiled("C07", "openai-strict"), "createItem")
    assert required_of(body(fn)) == {"name", "price", "tags", "owner"}
    assert required_of(fn.parameters) == set(fn.parameters["properties"])


def test_c07_gemini_uses_nullable_flag(compiled):
    """C07 gemini: category, price, tags, owner are single-typed with nullable; name is not."""
    fn = function(compiled("C07", "gemini"), "createItem")
    p = fn.parameters
    b = body(fn)
    nodes = {
        "category": (child(p, "properties", "category"), "string"),
        "price": (child(b, "properties", "price"), "number"),
        "tags": (child(b, "properties", "tags"), "array"),
        "owner": (child(b, "properties", "owner"), "object"),
    }
    for name, (node, typ) in nodes.items():
        assert node.get("nullable") is True, name
        assert type_name(node) == typ, (name, node.get("type"))
        assert "anyOf" not in node, name
    assert not child(b, "properties", "name").get("nullable")


def test_c07_ollama_single_types(compiled):
    """C07 ollama: every `type` is a single string; nullability is never a type list."""
    fn = function(compiled("C07", "ollama"), "createItem")
    assert [p for p in ollama.check(fn) if "type must be a single string" in p] == []


# ---------------------------------------------------------------------------------------------
# C09 ollama-type-array


def test_c09_ollama_collapses_type_lists(compiled):
    """C09 ollama: timezone is "string", offsetMinutes "integer"; requiredness unchanged."""
    fn = function(compiled("C09", "ollama"), "convertTime")
    b = body(fn)
    assert type_lists(fn.parameters) == []
    assert child(b, "properties", "timezone", "type") == "string"
    assert child(b, "properties", "offsetMinutes", "type") == "integer"
    assert {"instant", "timezone"} <= required_of(b)
    assert "offsetMinutes" not in required_of(b)


@pytest.mark.parametrize("target", PLAIN_JSON)
def test_c09_json_targets_keep_nullability(compiled, target):
    """C09: timezone and offsetMinutes still accept null."""
    fn = function(compiled("C09", target), "convertTime")
    b = body(fn)
    assert_nullable_form(fn.parameters, child(b, "properties", "timezone"), "string")
    assert_nullable_form(fn.parameters, child(b, "properties", "offsetMinutes"), "integer")
    assert {"instant", "timezone"} <= required_of(b)
    assert "offsetMinutes" not in required_of(b)


def test_c09_gemini_nullable_flag(compiled):
    """C09 gemini: timezone STRING nullable, offsetMinutes INTEGER nullable."""
    fn = function(compiled("C09", "gemini"), "convertTime")
    b = body(fn)
    for name, typ in (("timezone", "string"), ("offsetMinutes", "integer")):
        node = child(b, "properties", name)
        assert type_name(node) == typ and node.get("nullable") is True, node


# ---------------------------------------------------------------------------------------------
# C11 gemini-enum-null-member


def test_c11_gemini_enums_without_null_or_empty(compiled):
    """C11 gemini: mode is a nullable STRING enum; channel drops "" but keeps its note."""
    fn = function(compiled("C11", "gemini"), "setJobSchedule")
    b = body(fn)
    mode = child(b, "properties", "mode")
    assert type_name(mode) == "string" and mode.get("nullable") is True
    assert mode["enum"] == ["interval", "cron"]
    channel = child(b, "properties", "channel")
    assert type_name(channel) == "string"
    assert channel["enum"] == ["email", "sms"]
    assert "empty" in texts(fn.parameters, channel).lower()
    for _, node in iter_schemas(fn.parameters):
        if isinstance(node, dict) and "enum" in node:
            assert None not in node["enum"] and "" not in node["enum"], node


@pytest.mark.parametrize("target", JSON_TARGETS)
def test_c11_json_targets_keep_enums_exactly(compiled, target):
    """C11: mode still accepts null and channel still accepts the empty string."""
    fn = function(compiled("C11", target), "setJobSchedule")
    p = fn.parameters
    b = body(fn)
    mode = child(b, "properties", "mode")
    direct = deref(p, mode)
    if isinstance(direct.get("type"), list):  # the source spelling, kept as is
        assert "null" in direct["type"] and None in direct["enum"]
        assert sorted(v for v in direct["enum"] if v is not None) == ["cron", "interval"]
    else:  # the emended spelling: anyOf [{string enum}, {type: null}]
        shape = assert_nullable_form(p, mode, "string")
        assert sorted(shape["enum"]) == ["cron", "interval"]
    for value, ok in ((None, True), ("cron", True), ("interval", True), ("x", False), ("", False)):
        assert accepts(p, mode, value) is ok, value
    channel = core(p, child(b, "properties", "channel"))
    assert sorted(channel["enum"]) == ["", "email", "sms"]
    assert accepts(p, child(b, "properties", "channel"), "")


def test_c11_strict_nulls_optionals(compiled):
    """C11 openai-strict: channel and expression become nullable and required."""
    fn = function(compiled("C11", "openai-strict"), "setJobSchedule")
    b = body(fn)
    assert required_of(b) == {"mode", "expression", "channel"}
    for name in ("channel", "expression", "mode"):
        assert accepts(fn.parameters, child(b, "properties", name), None), name


# ---------------------------------------------------------------------------------------------
# C13 gemini-unsupported-format


FORMATS = {
    "url": "uri",
    "contactEmail": "email",
    "id": "uuid",
    "birthday": "date",
    "createdAt": "date-time",
    "count": "int64",
    "ratio": "float",
}


def test_c13_gemini_keeps_only_supported_formats(compiled):
    """C13 gemini: uri/email/uuid/date move to descriptions; date-time, int64, float stay."""
    fn = function(compiled("C13", "gemini"), "createBookmark")
    b = body(fn)
    for name in ("url", "contactEmail", "id", "birthday"):
        node = child(b, "properties", name)
        assert "format" not in node, name
        assert FORMATS[name] in texts(fn.parameters, node).lower(), name
    for name in ("createdAt", "count", "ratio"):
        assert child(b, "properties", name, "format") == FORMATS[name], name


@pytest.mark.parametrize("target", PLAIN_JSON)
def test_c13_json_targets_keep_formats(compiled, target):
    """C13: every format is unchanged for non-strict JSON-schema targets."""
    fn = function(compiled("C13", target), "createBookmark")
    b = body(fn)
    for name, fmt in FORMATS.items():
        assert core(fn.parameters, prop(fn.parameters, b, name)).get("format") == fmt, name


def test_c13_strict_keeps_allowed_formats_only(compiled):
    """C13 openai-strict: allow-listed formats stay; uri, int64, float move to descriptions."""
    fn = function(compiled("C13", "openai-strict"), "createBookmark")
    p = fn.parameters
    b = body(fn)
    for name, fmt in FORMATS.items():
        node = child(b, "properties", name)
        kept = core(p, node).get("format")
        if fmt in openai_strict.FORMATS:
            assert kept == fmt, name
        else:
            assert kept is None and fmt in texts(p, node).lower(), name


def test_c13_strict_strip_constraints_moves_every_format(compiled):
    """C13 openai-strict strip_constraints: no format key at all; each is in a description."""
    fn = function(compiled("C13", "openai-strict", strip_constraints=True), "createBookmark")
    assert pointers_with(fn.parameters, "format") == []
    b = body(fn)
    for name, fmt in FORMATS.items():
        assert fmt in texts(fn.parameters, child(b, "properties", name)).lower(), name


# ---------------------------------------------------------------------------------------------
# C14 openai-strict-format-constraints


CONSTRAINT_KEYS = (
    "format", "minimum", "maximum", "minItems", "maxItems", "uniqueItems",
    "minLength", "maxLength", "pattern", "default",
)  # fmt: skip


def _c14_nodes(fn: Any) -> dict[str, Any]:
    p = fn.parameters
    tags = child(p, "properties", "tags")
    return {
        "from": child(p, "properties", "from"),
        "limit": child(p, "properties", "limit"),
        "tags": tags,
        "tags.items": deref(p, core(p, tags).get("items")),
        "code": child(p, "properties", "code"),
    }


def _assert_c14_described(fn: Any) -> None:
    """The moved constraints are all in the descriptions."""
    p = fn.parameters
    nodes = _c14_nodes(fn)
    text = {name: texts(p, node) for name, node in nodes.items()}
    assert "date-time" in text["from"]
    assert "100" in text["limit"] and "20" in text["limit"]
    assert re.search(r"(?<!\d)1(?!\d)", text["limit"]), text["limit"]
    assert "unique" in text["tags"].lower()
    assert re.search(r"(?<!\d)1(?!\d)", text["tags"]), text["tags"]
    assert "30" in text["tags.items"]
    assert "^[A-Z]{3}$" in text["code"]


@pytest.mark.parametrize("target", JSON_TARGETS)
def test_c14_strip_constraints_moves_them_to_descriptions(compiled, target):
    """C14 strip_constraints: no constraint keyword remains; every one is described."""
    fn = function(compiled("C14", target, strip_constraints=True), "listEvents")
    left = {k: pointers_with(fn.parameters, k) for k in CONSTRAINT_KEYS}
    assert {k: v for k, v in left.items() if v} == {}
    _assert_c14_described(fn)


def test_c14_strict_nulls_optionals(compiled):
    """C14 openai-strict: limit, tags and code are nullable and all four are required."""
    for options in ({"strip_constraints": True}, {}):
        fn = function(compiled("C14", "openai-strict", **options), "listEvents")
        p = fn.parameters
        assert {"from", "limit", "tags", "code"} <= required_of(p)
        for name in ("limit", "tags", "code"):
            assert accepts(p, f"#/properties/{name}", None), name
        assert not accepts(p, "#/properties/from", None)


def _kept_or_described(root: Any, node: Any, key: str, value: Any, needle: str) -> bool:
    return core(root, node).get(key) == value or needle in texts(root, node)


def test_c14_strict_default_allow_list(compiled):
    """C14 openai-strict: only allow-listed keywords are sent; the rest is in descriptions."""
    fn = function(compiled("C14", "openai-strict"), "listEvents")
    p = fn.parameters
    assert openai_strict.check(fn) == []
    nodes = _c14_nodes(fn)
    assert "unique" in texts(p, nodes["tags"]).lower()
    assert "20" in texts(p, nodes["limit"])
    expected = [
        ("from", "format", "date-time", "date-time"),
        ("limit", "minimum", 1, "1"),
        ("limit", "maximum", 100, "100"),
        ("tags", "minItems", 1, "1"),
        ("tags.items", "maxLength", 30, "30"),
        ("code", "pattern", "^[A-Z]{3}$", "^[A-Z]{3}$"),
    ]
    for name, key, value, needle in expected:
        assert _kept_or_described(p, nodes[name], key, value, needle), (name, key)


@pytest.mark.parametrize("target", PLAIN_JSON)
def test_c14_json_targets_keep_constraints_by_default(compiled, target):
    """C14: without strip_constraints every constraint keyword is kept as written."""
    fn = function(compiled("C14", target), "listEvents")
    p = fn.parameters
    nodes = {k: core(p, v) for k, v in _c14_nodes(fn).items()}
    assert nodes["from"].get("format") == "date-time"
    limit = nodes["limit"]
    assert (limit.get("minimum"), limit.get("maximum"), limit.get("default")) == (1, 100, 20)
    assert nodes["tags"].get("minItems") == 1 and nodes["tags"].get("uniqueItems") is True
    assert nodes["tags.items"].get("maxLength") == 30
    assert nodes["code"].get("pattern") == "^[A-Z]{3}$"


# ---------------------------------------------------------------------------------------------
# C15 openai-strict-typed-map


def _is_empty_map(node: Any) -> bool:
    return (
        isinstance(node, dict)
        and "object" in types_of(node)
        and node.get("properties") == {}
        and node.get("additionalProperties") is False
    )


def _assert_entries(root: Any, node: Any) -> Any:
    """`{type: array, items: {key: string, value: string}}`, closed; returns the value schema."""
    assert types_of(node) == ["array"], node
    item = deref(root, node["items"])
    assert types_of(item) == ["object"]
    assert set(item["properties"]) == {"key", "value"}
    assert required_of(item) == {"key", "value"}
    assert item.get("additionalProperties") is False
    key, value = (deref(root, item["properties"][k]) for k in ("key", "value"))
    assert types_of(key) == ["string"] and types_of(value) == ["string"]
    return value


def test_c15_strict_maps_are_entries_or_fallback(compiled):
    """C15 openai-strict: maps become key/value entries (a), or the function leaves strict (b)."""
    app = compiled("C15", "openai-strict")
    fn = function(app, "createDeployment")
    p = fn.parameters
    b = body(fn)
    for name in ("labels", "settings"):
        assert not _is_empty_map(core(p, prop(p, b, name))), f"{name} emitted as an empty map"
    if fn.strict:  # outcome (a)
        _assert_entries(p, core(p, child(b, "properties", "labels")))
        assert not is_nullable(p, child(b, "properties", "labels"))
        settings = child(b, "properties", "settings")
        assert is_nullable(p, settings)
        value = _assert_entries(p, core(p, settings))
        assert "json" in texts(p, value).lower()
        rewrites = [loss_text(x) for x in losses(app, fn) if x.action == "rewritten"]
        for name in ("labels", "settings"):
            assert any(name in text for text in rewrites), f"no recorded transform for {name}"
    else:  # outcome (b)
        assert tool_for(app, "openai-strict", fn.name)["function"].get("strict") is False
        fallbacks = [x for x in losses(app, fn) if x.action == "fallback"]
        said = " ".join(loss_text(x) for x in fallbacks)
        assert "labels" in said and "settings" in said, fallbacks
        assert all(x.note for x in fallbacks), "a fallback must give its reason"


@pytest.mark.parametrize("target", PLAIN_JSON)
def test_c15_json_targets_keep_maps(compiled, target):
    """C15: labels keeps additionalProperties {type: string}; settings keeps true or {}."""
    fn = function(compiled("C15", target), "createDeployment")
    p = fn.parameters
    b = body(fn)
    assert prop(p, b, "labels").get("additionalProperties") == {"type": "string"}
    assert prop(p, b, "settings").get("additionalProperties") in (True, {})
    assert "name" in required_of(b) and type_name(prop(p, b, "name")) == "string"


# ---------------------------------------------------------------------------------------------
# C17 openai-strict-optional-params (schema parts)


def test_c17_strict_optional_query_parameters_are_nullable(compiled):
    """C17 openai-strict: all three required, units/days nullable, default in the description."""
    fn = function(compiled("C17", "openai-strict"), "getWeather")
    p = fn.parameters
    assert required_of(p) == {"city", "units", "days"}
    assert p.get("additionalProperties") is False
    units = deref(p, p["properties"]["units"])
    if isinstance(units.get("type"), list):
        assert sorted(units["type"]) == ["null", "string"]
        assert sorted(units["enum"], key=str) == sorted(["metric", "imperial", None], key=str)
    else:
        shape = assert_nullable_form(p, units, "string")
        assert sorted(shape["enum"]) == ["imperial", "metric"]
    assert_nullable_form(p, p["properties"]["days"], "integer")
    assert types_of(deref(p, p["properties"]["city"])) == ["string"]
    assert "default" not in keywords(units)
    text = texts(p, units)
    assert "metric" in text and "default" in text.lower(), text


@pytest.mark.parametrize("target", [t for t in TARGETS if t != "openai-strict"])
def test_c17_non_strict_keeps_optionals_optional(compiled, target):
    """C17: P.required is exactly [city]; units and days are not made nullable."""
    fn = function(compiled("C17", target), "getWeather")
    p = fn.parameters
    assert p.get("required") == ["city"]
    for name in ("units", "days"):
        assert not_nullable(target, p, p["properties"][name]), name


# ---------------------------------------------------------------------------------------------
# C18 array-items-dropped


@pytest.mark.parametrize("target", TARGETS)
def test_c18_every_array_has_items(compiled, target):
    """C18: every array node has items; tags items string; ids items integer (int64 kept)."""
    fn = function(compiled("C18", target), "findPets")
    p = fn.parameters
    bare = [ptr for ptr, n in iter_schemas(p) if "array" in types_of(n) and "items" not in n]
    assert bare == []
    tags = deref(p, core(p, p["properties"]["tags"])["items"])
    assert set(tags) == {"type"} and type_name(tags) == "string", tags
    ids = deref(p, core(p, p["properties"]["ids"])["items"])
    assert type_name(ids) == "integer" and set(ids) <= {"type", "format", "description"}, ids
    assert ids.get("format", "int64") == "int64"


@pytest.mark.parametrize("target", TARGETS)
def test_c18_requiredness_and_serialization(compiled, target):
    """C18: tags required, ids/fields optional; array query params keep form/explode."""
    fn = function(compiled("C18", target), "findPets")
    p = fn.parameters
    assert fn.argument("tags").required
    assert not fn.argument("ids").required and not fn.argument("fields").required
    if target == "openai-strict":
        assert required_of(p) == {"tags", "ids", "fields"}
        assert not is_nullable(p, p["properties"]["tags"])
        assert is_nullable(p, p["properties"]["ids"]) and is_nullable(p, p["properties"]["fields"])
    else:
        assert "tags" in required_of(p) and not {"ids", "fields"} & required_of(p)
    for name in ("tags", "ids", "fields"):
        arg = fn.argument(name)
        assert (arg.location, arg.style, arg.explode) == ("query", "form", True), name


@pytest.mark.parametrize("target", PLAIN_JSON)
def test_c18_untyped_array_gets_any_items(compiled, target):
    """C18: fields, declared without items, gets items {} (any value)."""
    fn = function(compiled("C18", target), "findPets")
    p = fn.parameters
    fields = core(p, p["properties"]["fields"])
    items = fields["items"]
    assert isinstance(items, dict)
    for value in (1, "a", None, [], {}, 1.5, True):
        assert accepts(p, items, value), value


@pytest.mark.parametrize("target", ["openai-strict", "gemini"])
def test_c18_untyped_array_gets_string_items_with_warning(compiled, target):
    """C18 openai-strict/gemini: fields gets items {type: string} and a loss naming fields."""
    app = compiled("C18", target)
    fn = function(app, "findPets")
    p = fn.parameters
    items = deref(p, core(p, p["properties"]["fields"])["items"])
    assert type_name(items) == "string" and set(items) <= {"type", "description"}, items
    assert reported(app, fn, "fields"), (fn.losses, app.warnings)


@pytest.mark.parametrize("target", ["openai-strict", "gemini"])
def test_c18_lenient_false_reports_fields(case_path, target):
    """C18 openai-strict/gemini lenient=False: an error naming the fields path, no function."""
    try:
        app = run_compile(case_path("C18"), target, lenient=False)
    except httpllm.HttpllmError as exc:
        assert "fields" in f"{exc} {getattr(exc, 'pointer', '')}"
        return
    assert not [f for f in app.functions if f.operation_id == "findPets"]
    errs = errors_for(app, "get", "/pets/search")
    assert any("fields" in f"{e.pointer} {e.message}" for e in errs), app.errors


# ---------------------------------------------------------------------------------------------
# C19 no-params-empty-object


@pytest.mark.parametrize("target", TARGETS)
def test_c19_zero_argument_functions_emitted(compiled, target):
    """C19: getHealth and flushCache are both emitted."""
    app = compiled("C19", target)
    assert {f.operation_id for f in app.functions} == {"getHealth", "flushCache"}


@pytest.mark.parametrize("target", [*PLAIN_JSON, "ollama"])
def test_c19_empty_parameters_object(compiled, target):
    """C19: P has type object and an explicit empty properties."""
    app = compiled("C19", target)
    for op in ("getHealth", "flushCache"):
        p = function(app, op).parameters
        assert p.get("type") == "object" and p.get("properties") == {}, p


def test_c19_strict_empty_parameters_exact(compiled):
    """C19 openai-strict: P is exactly the closed empty object (a description is allowed)."""
    app = compiled("C19", "openai-strict")
    for op in ("getHealth", "flushCache"):
        p = dict(function(app, op).parameters)
        p.pop("description", None)
        assert p == {
            "type": "object",
            "properties": {},
            "required": [],
            "additionalProperties": False,
        }


def test_c19_gemini_omits_parameters(compiled):
    """C19 gemini: the declarations have no parameters field."""
    app = compiled("C19", "gemini")
    for op in ("getHealth", "flushCache"):
        assert "parameters" not in tool_for(app, "gemini", function(app, op).name)


# ---------------------------------------------------------------------------------------------
# C21 anthropic-toplevel-oneof


def _union(root: Any, node: Any) -> tuple[str, list[Any]]:
    node = deref(root, node)
    keys = [k for k in ("anyOf", "oneOf") if k in node]
    assert len(keys) == 1, f"expected one union keyword on {node}"
    return keys[0], [deref(root, b) for b in node[keys[0]]]


def _branch(branches: list[Any], marker: str) -> Any:
    found = [b for b in branches if marker in (b.get("properties") or {})]
    assert len(found) == 1, f"{len(found)} branches with {marker}"
    return found[0]


@pytest.mark.parametrize("target", [t for t in TARGETS if t != "ollama"])
def test_c21_union_body_wrapped_under_body(compiled, target):
    """C21: the root is a plain object; body holds the two variants with their own required."""
    fn = function(compiled("C21", target), "createPayment")
    p = fn.parameters
    assert type_name(p) == "object" and isinstance(p.get("properties"), dict)
    assert not {"oneOf", "anyOf", "allOf"} & set(p)
    assert {"body", "idempotencyKey"} <= required_of(p)
    assert "idempotencyKey" in p["properties"]
    keyword, branches = _union(p, p["properties"]["body"])
    assert len(branches) == 2
    assert required_of(_branch(branches, "cardToken")) == {"method", "cardToken", "amount"}
    assert required_of(_branch(branches, "iban")) == {"method", "iban", "amount"}
    if target in ("openai-strict", "gemini"):
        assert keyword == "anyOf" and "oneOf" not in keywords(p)


# ---------------------------------------------------------------------------------------------
# C22 allof-ref-merge


@pytest.mark.parametrize("target", TARGETS)
def test_c22_allof_merged(compiled, target):
    """C22: B is one merged object with all four properties; top has both bounds."""
    fn = function(compiled("C22", target), "searchCode")
    p = fn.parameters
    assert "allOf" not in keywords(p)
    b = body(fn)
    assert set(b["properties"]) == {"searchText", "top", "skip", "includeSnippet"}
    assert {"searchText", "includeSnippet"} <= required_of(b) <= set(b["properties"])
    top = b["properties"]["top"]
    kept = core(p, top)
    if (kept.get("minimum"), kept.get("maximum")) != (1, 1000):
        text = texts(p, top)
        assert re.search(r"(?<!\d)1(?!\d)", text) and "1000" in text, (kept, text)


def test_c22_strict_merged_object_closed(compiled):
    """C22 openai-strict: the merged object is closed, lists all four, top and skip nullable."""
    fn = function(compiled("C22", "openai-strict"), "searchCode")
    p = fn.parameters
    b = body(fn)
    assert b.get("additionalProperties") is False
    assert required_of(b) == {"searchText", "top", "skip", "includeSnippet"}
    assert accepts(p, b["properties"]["top"], None) and accepts(p, b["properties"]["skip"], None)


# ---------------------------------------------------------------------------------------------
# C23 discriminator-tag-required


def _c23_branches(fn: Any) -> tuple[str, Any, Any]:
    keyword, branches = _union(fn.parameters, fn.parameters["properties"]["body"])
    return keyword, _branch(branches, "subject"), _branch(branches, "phone")


@pytest.mark.parametrize("target", JSON_TARGETS)
def test_c23_tag_required_and_pinned(compiled, target):
    """C23: each branch requires channel pinned to its value; untagged bodies fail validation."""
    fn = function(compiled("C23", target), "sendNotification")
    p = fn.parameters
    assert "discriminator" not in keywords(p)
    assert not {"anyOf", "oneOf"} & set(p)
    _, email, sms = _c23_branches(fn)
    for branch, value in ((email, "email"), (sms, "sms")):
        assert "channel" in required_of(branch)
        channel = deref(p, branch["properties"]["channel"])
        assert channel.get("enum") == [value] or channel.get("const") == value, channel
    at = "#/properties/body"
    assert not accepts(p, at, {"address": "a", "subject": "s"})
    assert not accepts(p, at, {"channel": "sms", "address": "a", "subject": "s"})
    assert accepts(p, at, {"channel": "email", "address": "a", "subject": "s"})


def test_c23_strict_union_closed_and_default_described(compiled):
    """C23 openai-strict: anyOf of closed branches; channel's default is in its description."""
    fn = function(compiled("C23", "openai-strict"), "sendNotification")
    p = fn.parameters
    keyword, email, sms = _c23_branches(fn)
    assert keyword == "anyOf"
    for branch, value in ((email, "email"), (sms, "sms")):
        assert branch.get("additionalProperties") is False
        assert required_of(branch) == set(branch["properties"])
        channel = branch["properties"]["channel"]
        assert "default" not in keywords(deref(p, channel))
        assert value in texts(p, channel), texts(p, channel)


def test_c23_gemini_tag_is_string_enum(compiled):
    """C23 gemini: anyOf union; channel is a one-value STRING enum and required."""
    fn = function(compiled("C23", "gemini"), "sendNotification")
    keyword, email, sms = _c23_branches(fn)
    assert keyword == "anyOf"
    for branch, value in ((email, "email"), (sms, "sms")):
        channel = branch["properties"]["channel"]
        assert type_name(channel) == "string" and channel.get("enum") == [value]
        assert "const" not in channel
        assert "channel" in required_of(branch)


# ---------------------------------------------------------------------------------------------
# C25 param-collision-path-body (schema parts)


@pytest.mark.parametrize("target", TARGETS)
def test_c25_four_distinct_arguments(compiled, target):
    """C25: path id, query version, body id and body version are distinct, valid arguments."""
    fn = function(compiled("C25", target), "replaceUser")
    p = fn.parameters
    by_place = {(a.location, a.original): a for a in fn.arguments}
    path_id, query_version = by_place[("path", "id")], by_place[("query", "version")]
    bodies = [a for a in fn.arguments if a.location == "body"]
    assert len(bodies) == 1
    names = [path_id.name, query_version.name, bodies[0].name]
    assert len(set(names)) == 3, names
    assert set(p["properties"]) == {a.name for a in fn.arguments}
    assert all(ARGUMENT_NAME.match(n) for n in p["properties"]), sorted(p["properties"])
    b = deref(p, p["properties"][bodies[0].name])
    assert {"id", "version", "name"} <= set(core(p, b)["properties"])


@pytest.mark.parametrize("target", TARGETS)
def test_c25_requiredness(compiled, target):
    """C25: path id and body required, body id and name required; both versions optional."""
    fn = function(compiled("C25", target), "replaceUser")
    p = fn.parameters
    by_place = {(a.location, a.original): a for a in fn.arguments}
    path_id, query_version = by_place[("path", "id")], by_place[("query", "version")]
    body_arg = next(a for a in fn.arguments if a.location == "body")
    assert path_id.required and body_arg.required and not query_version.required
    assert {path_id.name, body_arg.name} <= required_of(p)
    b = deref(p, p["properties"][body_arg.name])
    assert {"id", "name"} <= required_of(b)
    version_q, version_b = p["properties"][query_version.name], b["properties"]["version"]
    if target == "openai-strict":
        assert is_nullable(p, version_q) and is_nullable(p, version_b)
        assert not is_nullable(p, p["properties"][path_id.name])
    else:
        assert query_version.name not in required_of(p) and "version" not in required_of(b)


# ---------------------------------------------------------------------------------------------
# C27 name-too-long


LONG_GET = "manage_canary_deployment_history_for_assistant_public_assistants__assistant_id__canary_history_get"  # noqa: E501 - the operationId as written in the case
LONG_DELETE = LONG_GET[: -len("get")] + "delete"
VARIABLES_PATH = (
    "/organizations/{organizationId}/workspaces/{workspaceId}"
    "/environments/{environmentId}/variables"
)


@pytest.mark.parametrize("target", TARGETS)
def test_c27_long_names_valid_distinct_traceable(compiled, target):
    """C27: all three names are valid and distinct and keep the operationId or method+path."""
    app = compiled("C27", target)
    assert len(app.functions) == 3, app.errors
    names = [f.name for f in app.functions]
    assert all(INVARIANT_NAME.match(n) for n in names), names
    assert len(set(names)) == 3
    assert {f.operation_id for f in app.functions} == {LONG_GET, LONG_DELETE, None}
    anonymous = next(f for f in app.functions if f.operation_id is None)
    assert (anonymous.method, anonymous.path) == ("get", VARIABLES_PATH)


def test_c27_prefix_counts_toward_the_limit(case_path):
    """C27: with a name prefix option, the 64-character limit applies to the final name."""
    option = next((o for o in sorted(compile_options()) if "prefix" in o), None)
    if option is None:
        pytest.skip("compile() has no name prefix option")
    app = run_compile(case_path("C27"), "openai", **{option: "acme_"})
    names = [f.name for f in app.functions]
    assert all(INVARIANT_NAME.match(n) and n.startswith("acme_") for n in names), names
    assert len(set(names)) == 3


# ---------------------------------------------------------------------------------------------
# C29 gemini-nesting-depth


DEEP_PATH = ("sections", "blocks", "rows", "cells", "runs", "style", "font", "size")


def _follow(root: Any, node: Any, names: tuple[str, ...]) -> Any:
    """Follow properties `names` from `node`, stepping into `items` after each array."""
    for name in names:
        node = prop(root, node, name)
        shape = core(root, node)
        if "array" in types_of(shape):
            node = deref(root, shape["items"])
    return node


def c29_depth(root: Any, b: Any) -> int:
    """Max number of object/array schemas from B (exclusive) to any node (C29's definition)."""
    best = 0
    stack: list[tuple[Any, int]] = [(b, -1)]
    while stack:
        node, depth = stack.pop()
        node = deref(root, node)
        if not isinstance(node, dict):
            continue
        if {"object", "array"} & set(types_of(node)):
            depth += 1
        best = max(best, depth)
        subs = [node[k] for k in ("items", "additionalProperties") if isinstance(node.get(k), dict)]
        subs += list((node.get("properties") or {}).values()) + list(node.get("anyOf") or [])
        stack.extend((sub, depth) for sub in subs)
    return best


@pytest.mark.parametrize("target", [*PLAIN_JSON, "ollama"])
def test_c29_other_targets_keep_full_depth(compiled, target):
    """C29: without a depth option the whole structure reaches the provider, down to font.size."""
    fn = function(compiled("C29", target), "appendBlocks")
    size = core(fn.parameters, _follow(fn.parameters, body(fn), DEEP_PATH))
    assert type_name(size) == "number"


def test_c29_strict_limit_enforced_or_reported(compiled):
    """C29 openai-strict: the output respects the strict nesting limit, or is a named error."""
    app = compiled("C29", "openai-strict")
    found = [f for f in app.functions if f.operation_id == "appendBlocks"]
    if found:
        assert openai_strict.check(found[0]) == []
    else:
        errs = errors_for(app, "post", "/documents/{documentId}/blocks")
        assert errs and all(e.pointer.startswith("#") for e in errs), app.errors


@pytest.mark.parametrize("collapse", [False, True], ids=["error", "collapse"])
def test_c29_gemini_max_depth(case_path, collapse):
    """C29 gemini max_depth=4: an error naming rows, or (collapse_deep) JSON-encoded subtrees."""
    options = compile_options()
    if "max_depth" not in options or (collapse and "collapse_deep" not in options):
        pytest.skip("compile() has no max_depth / collapse_deep option")
    extra = {"collapse_deep": True} if collapse else {}
    app = run_compile(case_path("C29"), "gemini", max_depth=4, **extra)
    found = [f for f in app.functions if f.operation_id == "appendBlocks"]
    if not collapse:  # outcome (a)
        assert not found, "appendBlocks exceeds max_depth=4 but was emitted"
        errs = errors_for(app, "post", "/documents/{documentId}/blocks")
        assert any("rows" in f"{e.pointer} {e.message}" for e in errs), app.errors
        return
    assert found, app.errors  # outcome (b)
    fn = found[0]
    p = fn.parameters
    b = body(fn)
    assert c29_depth(p, b) <= 4
    rows = prop(p, _follow(p, b, ("sections", "blocks")), "rows")
    assert type_name(rows) == "string" and texts(p, rows).startswith("JSON-encoded"), rows
    assert reported(app, fn, "rows"), (fn.losses, app.warnings)


def _deep_document(levels: int, inline: bool) -> dict[str, Any]:
    """C29's shape `levels` deep: object -> array -> object ..., by refs or inline."""
    leaf: dict[str, Any] = {"type": "object", "properties": {"text": {"type": "string"}}}
    schemas: dict[str, Any] = {}
    if inline:
        node = leaf
        for _ in range(levels):
            node = {"type": "object", "properties": {"children": {"type": "array", "items": node}}}
        root_schema = node
    else:
        schemas[f"L{levels}"] = leaf
        for i in range(levels - 1, -1, -1):
            items = {"$ref": f"#/components/schemas/L{i + 1}"}
            children = {"type": "array", "items": items}
            schemas[f"L{i}"] = {"type": "object", "properties": {"children": children}}
        root_schema = {"$ref": "#/components/schemas/L0"}
    content = {"application/json": {"schema": root_schema}}
    operation = {
        "operationId": "appendDeep",
        "requestBody": {"required": True, "content": content},
        "responses": {"200": {"description": "ok"}},
    }
    document: dict[str, Any] = {
        "openapi": "3.1.0",
        "info": {"title": "deep", "version": "1"},
        "paths": {"/deep": {"post": operation}},
    }
    if schemas:
        document["components"] = {"schemas": schemas}
    return document


@pytest.mark.parametrize("inline", [False, True], ids=["refs", "inline"])
@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.slow
def test_c29_two_thousand_levels_never_crash(target, inline):
    """C29 robustness: 2000 levels compile or raise httpllm's own error, never RecursionError."""
    document = _deep_document(2000, inline)
    try:
        app = run_compile(document, target)
    except httpllm.HttpllmError:
        return
    for fn in app.functions:
        assert sum(1 for _ in iter_schemas(fn.parameters)) > 0
