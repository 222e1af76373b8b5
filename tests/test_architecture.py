"""The layers contract (pyproject.toml ``[tool.importlinter]``) holds: stages import
sideways or down only, and every module of ``httpllm`` is placed in a layer."""

from __future__ import annotations

from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

importlinter = pytest.importorskip("importlinter")
from importlinter import configuration  # noqa: E402
from importlinter.application import use_cases  # noqa: E402


def test_layers_contract_is_kept() -> None:
    """No module of httpllm imports one of a higher layer, lazily or not, and none is
    left out of the contract (import-linter prints the offending chain on failure)."""
    configuration.configure()  # what the lint-imports command does first
    kept = use_cases.lint_imports(config_filename=str(ROOT / "pyproject.toml"),
                                  cache_dir=None, no_logo=True)
    assert kept
