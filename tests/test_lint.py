"""ruff and mypy --strict are part of the test suite."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


@pytest.mark.skipif(shutil.which("ruff") is None and sys.prefix == sys.base_prefix,
                    reason="ruff not installed")
def test_ruff_is_clean() -> None:
    """ruff finds nothing in src/ and tests/."""
    run = subprocess.run([sys.executable, "-m", "ruff", "check", "src", "tests"], cwd=ROOT,
                         capture_output=True, text=True, check=False)
    assert run.returncode == 0, run.stdout + run.stderr


@pytest.mark.slow
def test_mypy_strict_is_clean() -> None:
    """mypy --strict finds nothing in src/httpllm."""
    run = subprocess.run([sys.executable, "-m", "mypy", "--strict", "src/httpllm"], cwd=ROOT,
                         capture_output=True, text=True, check=False)
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr
