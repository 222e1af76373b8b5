"""Every third-party module `src/httpllm` imports is installed by a plain `pip install .`.

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


OPTIONAL = {"server": "mcp"}
"""Subpackages whose imports an extra installs: ``src/httpllm/<folder>`` -> extra name."""


def _imported_top_levels(folder: str = "") -> set[str]:
    found: set[str] = set()
    for path in (ROOT / "src" / "httpllm" / folder).rglob("*.py"):
        if not folder and path.relative_to(ROOT / "src" / "httpllm").parts[0] in OPTIONAL:
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                found.update(alias.name.split(".")[0] for alias in node.names)
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                found.add(node.module.split(".")[0])
    return {name for name in found
            if name != "httpllm" and name not in sys.stdlib_module_names}


def _name(requirement: str) -> str:
    return re.split(r"[\s;<>=!~\[(]", requirement, maxsplit=1)[0].lower().replace("_", "-")


def _runtime_closure(extra: str | None = None) -> set[str]:
    """The installed project's runtime requirements (pyproject's ``dependencies``, plus
    ``extra``'s as pyproject.toml lists them), with theirs, transitively."""
    declared = [r for r in metadata.requires("httpllm") or [] if "extra ==" not in r]
    if extra is not None:
        import tomllib

        project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
        declared += project["project"]["optional-dependencies"][extra]
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
               if not any(_name(dist) in closure for dist in owners.get(module, []))}
    assert not missing, f"imported by src but not installed by `pip install .`: {missing}"


def test_optional_subpackages_import_only_their_extra() -> None:
    """`httpllm.server` imports only what `pip install 'httpllm[mcp]'` installs."""
    owners = metadata.packages_distributions()
    for folder, extra in OPTIONAL.items():
        closure = _runtime_closure(extra)
        missing = {module: owners.get(module, ["?"])
                   for module in _imported_top_levels(folder)
                   if not any(_name(dist) in closure for dist in owners.get(module, []))}
        assert not missing, f"imported by src/httpllm/{folder} but not in [{extra}]: {missing}"
