"""Installing and running the npm side of the client and host tests.

The pinned packages (``package.json`` and ``package-lock.json`` here and in ``hosts/``) are
installed by ``setup.sh`` into the ignored ``node_modules`` folders, once (it does nothing
when the pinned versions are there). Without node or npm the tests are skipped, and they
fail instead when the ``CI`` variable is set: CI must never skip them.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path
from typing import NoReturn

import pytest

HERE = Path(__file__).resolve().parent
SETUP = HERE / "setup.sh"
TS_CLIENT = HERE / "ts_client.mjs"
TAP = HERE / "tap.py"
HOSTS = HERE / "hosts"
INSTALL_TIMEOUT = 900.0
"""Seconds one install may take (the hosts are about 800 MB unpacked)."""


def unavailable(message: str) -> NoReturn:
    """Fail under CI (the ``CI`` variable is set), skip elsewhere."""
    if os.environ.get("CI"):
        pytest.fail(message, pytrace=False)
    pytest.skip(message)


def install(folder: str = "") -> Path:
    """Install the packages pinned in ``folder`` (``""``: the SDK, ``"hosts"``: the hosts)
    and return its ``node_modules/.bin``."""
    missing = [tool for tool in ("node", "npm") if shutil.which(tool) is None]
    if missing:
        unavailable(f"{' and '.join(missing)} not found: the MCP client and host tests "
                    "need Node.js and npm")
    what = folder or "the MCP TypeScript SDK"
    try:
        run = subprocess.run(["bash", str(SETUP), *([folder] if folder else [])],
                             capture_output=True, text=True, timeout=INSTALL_TIMEOUT,
                             check=False)
    except subprocess.TimeoutExpired:
        unavailable(f"installing {what} took over {INSTALL_TIMEOUT:.0f} s")
    if run.returncode != 0:
        unavailable(f"installing {what} failed: {(run.stderr or run.stdout)[-800:]}")
    return HERE / folder / "node_modules" / ".bin"
