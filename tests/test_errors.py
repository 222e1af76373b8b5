"""One error for a missing extra: every entry point that needs an optional extra raises
`MissingExtra` (an `ImportError` too), naming the extra and the pip command, when one of
the extra's modules cannot be imported. Each case runs in a fresh interpreter where those
modules are blocked (`sys.modules[name] = None`, which makes `import name` raise)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

import httpllm
from httpllm.errors import HttpllmError, MissingExtra, install_command, requires_extra

ROOT = Path(__file__).resolve().parents[1]
PETSTORE = str(ROOT / "specs" / "petstore-3.0.yaml")

CATCH = """
import httpllm
from httpllm.errors import MissingExtra
try:
{body}
except MissingExtra as exc:
    assert isinstance(exc, ImportError) and isinstance(exc, httpllm.HttpllmError)
    print(exc.extra)
    print(exc)
else:
    print("no error")
"""

ENTRY_POINTS = {
    "mcp_server": (("mcp",), f"httpllm.mcp_server({PETSTORE!r})", "mcp"),
    "serve": (("mcp_types",), f"httpllm.serve({PETSTORE!r})", "mcp"),
    "import httpllm.server": (("mcp",), "import httpllm.server", "mcp"),
    "search": (("bm25s",), f"httpllm.compile({PETSTORE!r}, '3.1').search('pets')", "search"),
    "search_index embedder": (
        ("onnxruntime",),
        f"httpllm.compile({PETSTORE!r}, '3.1').search_index(embedder='builtin')",
        "search-embed"),
    "code_tools": (("deno",), f"httpllm.compile({PETSTORE!r}, 'chatgpt').code_tools()",
                   "code"),
    "adapters.openai_agents": (("agents",), "import httpllm.adapters.openai_agents",
                               "openai-agents"),
    "adapters.pydantic_ai": (("pydantic_ai",), "import httpllm.adapters.pydantic_ai",
                             "pydantic-ai"),
    "adapters.langchain": (("langchain_core",), "import httpllm.adapters.langchain",
                           "langchain"),
}
"""Entry point -> (modules blocked, the call, the extra it must name)."""


def blocked(modules: tuple[str, ...], code: str,
            env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    """``code`` run by a fresh interpreter in which ``modules`` cannot be imported."""
    prelude = "import sys\n" + "".join(f"sys.modules[{m!r}] = None\n" for m in modules)
    return subprocess.run([sys.executable, "-c", prelude + code], capture_output=True,
                          text=True, timeout=120,
                          env={"PYTHONPATH": str(ROOT / "src"), **(env or {})})


@pytest.mark.parametrize("entry", sorted(ENTRY_POINTS))
def test_entry_point_raises_missing_extra(entry: str) -> None:
    """Each entry point raises MissingExtra naming its extra and `pip install`."""
    modules, call, extra = ENTRY_POINTS[entry]
    # Code mode also finds Deno on PATH: an empty PATH leaves only the blocked package.
    env = {"PATH": ""} if extra == "code" else None
    done = blocked(modules, CATCH.format(body=f"    {call}"), env)
    assert done.returncode == 0, done.stderr
    named, message = done.stdout.strip().split("\n", 1)
    assert named == extra
    assert install_command(extra) in message


def test_cli_serve_says_it_in_one_line() -> None:
    """`httpllm serve` without the mcp extra: exit 1, one line with the pip command."""
    done = blocked(("mcp",), "from httpllm.cli import main\n"
                             f"sys.exit(main(['serve', {PETSTORE!r}]))")
    assert done.returncode == 1
    assert done.stderr.strip().splitlines() == [
        f"httpllm: error: serving over MCP needs the mcp extra: {install_command('mcp')} "
        "(mcp is not installed)"]


def test_requires_extra_passes_other_import_errors() -> None:
    """Only the extra's own modules become MissingExtra; another ImportError (a bug, a
    broken install of something else) passes unchanged."""
    with pytest.raises(ImportError) as caught, requires_extra("mcp", "serving", {"mcp"}):
        raise ModuleNotFoundError("No module named 'elsewhere'", name="elsewhere")
    assert not isinstance(caught.value, MissingExtra)
    with pytest.raises(MissingExtra) as missing, requires_extra("mcp", "serving", {"mcp"}):
        raise ModuleNotFoundError("No module named 'mcp.server'", name="mcp.server")
    assert (missing.value.extra, missing.value.name) == ("mcp", "mcp")
    assert isinstance(missing.value, HttpllmError) and isinstance(missing.value, ImportError)


def test_missing_extra_is_public() -> None:
    """`MissingExtra` is exported from the top level, where users catch it."""
    assert httpllm.MissingExtra is MissingExtra
    assert "MissingExtra" in httpllm.__all__


@pytest.mark.parametrize(("direct_url", "command"), [
    ('{"url": "file:///home/me/httpllm", "dir_info": {}}',
     'pip install "/home/me/httpllm[mcp]"'),
    ('{"url": "file:///home/me/my%20code/httpllm", "dir_info": {"editable": true}}',
     'pip install "/home/me/my code/httpllm[mcp]"'),
    ('{"url": "file:///tmp/httpllm-0.1.0-py3-none-any.whl", "archive_info": {}}',
     'pip install "httpllm[mcp]"'),
    ('{"url": "https://github.com/x/httpllm", "vcs_info": {"vcs": "git"}}',
     'pip install "httpllm[mcp]"'),
    (None, 'pip install "httpllm[mcp]"'), ("not json", 'pip install "httpllm[mcp]"')])
def test_install_command_names_the_folder_httpllm_came_from(
        direct_url: str | None, command: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """httpllm is installed from a checkout (it is not on PyPI yet, the README says), yet a
    missing extra said ``pip install "httpllm[mcp]"``, which fails or fetches a stranger's
    package: the folder PEP 610's direct_url.json names is the command's, else the name."""
    import importlib.metadata

    class Installed:
        def read_text(self, name: str) -> str | None:
            return direct_url if name == "direct_url.json" else None

    monkeypatch.setattr(importlib.metadata, "distribution", lambda name: Installed())
    assert install_command("mcp") == command
