"""`import httpllm` works without the `mcp` extra; serving then says how to install it."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from httpllm.errors import install_command

ROOT = Path(__file__).resolve().parents[2]
SRC = str(ROOT / "src")
PETSTORE = str(ROOT / "specs" / "petstore-3.0.yaml")

BLOCKED = """
import sys
from importlib.abc import MetaPathFinder

class NoMcp(MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in {"mcp", "mcp_types"}:
            raise ModuleNotFoundError(f"No module named {name!r}", name=name)
        return None

sys.meta_path.insert(0, NoMcp())
"""


def run(code: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-c", BLOCKED + code], capture_output=True,
                          text=True, timeout=120, env={"PYTHONPATH": SRC})


def test_core_imports_and_compiles_without_mcp() -> None:
    """With `mcp` unimportable, `import httpllm` and a compile for `mcp` still work."""
    done = run("import httpllm, sys\n"
               f"app = httpllm.compile({PETSTORE!r}, 'mcp')\n"
               "print(len(app.tools()), any(m.startswith('mcp') for m in sys.modules))")
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["4", "False"]


def test_serving_without_mcp_names_the_extra() -> None:
    """Without `mcp`, `httpllm.mcp_server` raises MissingExtra (still an ImportError)
    naming `httpllm[mcp]`."""
    done = run("import httpllm\n"
               "try:\n"
               f"    httpllm.mcp_server({PETSTORE!r})\n"
               "except ImportError as exc:\n"
               "    print(exc)\n")
    assert done.returncode == 0, done.stderr
    assert install_command("mcp") in done.stdout


def test_cli_serve_without_mcp_exits_1() -> None:
    """Without `mcp`, `httpllm serve` exits 1 with one line naming the extra."""
    done = run("import sys\nfrom httpllm.cli import main\n"
               f"sys.exit(main(['serve', {PETSTORE!r}]))")
    assert done.returncode == 1
    assert done.stderr.strip().splitlines() == [
        f"httpllm: error: serving over MCP needs the mcp extra: {install_command('mcp')} "
        "(mcp is not installed)"]
