"""Every example in the package's docstrings runs and shows what it says (`doctest`): a
docstring example is documentation a reader trusts, and one nobody runs drifts from the
code (22 of 143 no longer ran when this test was written).

A rule's example may pass its node and `CTX`: a context of its stage, made here (a
normalize pass gets a request-direction `PassContext` whose named schemas are objects, a
dialect rule a `RenderContext` of the `chatgpt` dialect); an example needing another one
builds it. An example that needs the network, a credential or a host (`app`,
`code_tools`) is marked `# doctest: +SKIP`.
"""

from __future__ import annotations

import doctest
import importlib
import pkgutil
from pathlib import Path
from typing import Any

import pytest

import httpllm
from httpllm.errors import MissingExtra


def _modules() -> list[str]:
    """Every module of the package but ``httpllm`` itself, found on disk: collecting
    imports none of them (``pkgutil.walk_packages`` imports each package, and
    ``httpllm.server`` brings the MCP SDK, 0.7 s); each test imports its module."""
    found, todo = [], [("httpllm", Path(httpllm.__file__).parent)]
    while todo:
        package, folder = todo.pop()
        for info in pkgutil.iter_modules([str(folder)]):
            found.append(f"{package}.{info.name}")
            if info.ispkg:
                todo.append((f"{package}.{info.name}", folder / info.name))
    return sorted(found)


MODULES = _modules()


def context(module: str) -> Any:
    """The `CTX` a rule's example in `module` is given."""
    if module.startswith("httpllm.normalize"):
        from httpllm.normalize._context import PassContext

        return PassContext(direction="request", resolve=lambda name: {"type": "object"},
                           resolve_base=lambda name: {"type": "object"},
                           name_of=lambda ref: ref.rsplit("/", 1)[-1],
                           report=lambda at, message: None)
    from httpllm.dialects import Options, get_dialect
    from httpllm.dialects._base import RenderContext

    return RenderContext(dialect=get_dialect("chatgpt"), options=Options())


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples_run(name: str) -> None:
    """Each module's docstring examples give the output they show."""
    try:
        module = importlib.import_module(name)
    except (ImportError, MissingExtra) as exc:  # an optional extra this install lacks
        pytest.skip(f"{name}: {exc}")
    failed: list[str] = []
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS)
    for test in doctest.DocTestFinder().find(module, name):
        if not test.examples:
            continue
        test.globs = {**module.__dict__, "CTX": context(name)}
        if runner.run(test, out=failed.append).failed:
            failed.append(f"^ in {test.name}")
    assert not failed, "\n".join(failed)
