"""Each adapter imports only what its extra installs, and `import httpllm` imports none."""

from __future__ import annotations

import ast
import subprocess
import sys
from importlib import metadata
from pathlib import Path

import pytest
import tomllib

ROOT = Path(__file__).resolve().parents[2]
EXTRAS = {"openai_agents": "openai-agents", "pydantic_ai": "pydantic-ai",
          "langchain": "langchain"}
"""The extra each adapter module needs."""
FRAMEWORKS = ("agents", "pydantic_ai", "langchain_core")


def _imports(path: Path) -> set[str]:
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            found.add(node.module.split(".")[0])
        elif isinstance(node, ast.Import):
            found.update(alias.name.split(".")[0] for alias in node.names)
    return {n for n in found if n != "httpllm" and n not in sys.stdlib_module_names}


def _name(requirement: str) -> str:
    return requirement.split(">")[0].split("=")[0].split("<")[0].strip().lower()


@pytest.mark.parametrize(("module", "extra"), sorted(EXTRAS.items()))
def test_adapter_imports_are_in_its_extra(module: str, extra: str) -> None:
    """An adapter's third-party imports come from its extra, which the test extra repeats."""
    extras = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"][
        "optional-dependencies"]
    declared = {_name(r) for r in extras[extra]}
    assert declared <= {_name(r) for r in extras["test"]}
    owners = metadata.packages_distributions()
    path = ROOT / "src" / "httpllm" / "adapters" / f"{module}.py"
    for name in _imports(path) - {"httpx"}:
        assert {d.lower() for d in owners[name]} & declared, (name, owners[name])


def test_core_import_loads_no_framework() -> None:
    """`import httpllm` and the agent loop load none of the frameworks."""
    code = ("import sys, httpllm, httpllm.agent, httpllm.adapters; "
            f"print([m for m in {FRAMEWORKS!r} if m in sys.modules])")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True)
    assert out.stdout.strip() == "[]"
