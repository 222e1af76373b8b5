"""The public surface: one rule, Python's own, enforced.

A module is public when every package on its way from ``httpllm`` lists it in
``__all__`` (``httpllm.__all__`` holds ``"server"``, ``httpllm.adapters.__all__`` holds
``"langchain"``); every other module is private, whether or not its name starts with an
underscore. A public module's public names are its ``__all__``. This is what
``from package import *`` and pdoc (the API reference, ``tests/test_api_reference.py``)
read. Checked here: every module declares ``__all__``; each public module's ``__all__`` is
sorted (isort-style, as ruff's RUF022) and complete; the user's pages (README.md and
docs/ but the contributors' pages) name only public names
(encode/httpx ``tests/test_exported_members.py`` checks its one public module so).
"""

from __future__ import annotations

import ast
import importlib
import importlib.util
import inspect
import pkgutil
import re
import types
from pathlib import Path
from typing import Any

import pytest
from doc_pages import pages

import httpllm

USER_PAGES = pages()
"""The pages users read (the contributors' architecture.md, pitfalls.md and
provider-rules.md map the internals)."""


def all_modules() -> list[str]:
    """Every module of the package, by name, found on disk: collecting imports none of
    them (``httpllm.server`` brings the MCP SDK, 0.7 s; each test imports its module)."""
    found = ["httpllm"]
    todo = [("httpllm", Path(httpllm.__file__).parent)]
    while todo:
        package, folder = todo.pop()
        for info in pkgutil.iter_modules([str(folder)]):
            name = f"{package}.{info.name}"
            if name != "httpllm.__main__":
                found.append(name)
            if info.ispkg:
                todo.append((name, folder / info.name))
    return sorted(found)


def _listed(package: str, folder: Path) -> list[str]:
    """The submodules a package's ``__all__`` lists, read from its ``__init__.py`` (so
    collecting the suite imports no extra's SDK): a name of ``__all__`` is a submodule
    when the package has that module and binds the name to nothing else at module level
    (``toolsets.discover`` is a function), as ``from package import *`` would find it."""
    listed: list[str] = []
    bound: set[str] = set()

    def visit(statements: list[ast.stmt]) -> None:
        for node in statements:
            if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
                visit(node.orelse)
            elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                bound.add(node.name)
            elif isinstance(node, ast.Assign) and ast.unparse(node.targets[0]) == "__all__":
                listed.extend(ast.literal_eval(node.value))
            elif isinstance(node, (ast.Assign, ast.AnnAssign)):
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                bound.update(t.id for t in targets if isinstance(t, ast.Name))
            elif isinstance(node, ast.ImportFrom):
                own = node.module == package or (node.level == 1 and node.module is None)
                bound.update(a.asname or a.name for a in node.names if not own)
            elif isinstance(node, ast.Import):
                bound.update((a.asname or a.name).split(".")[0] for a in node.names)
            else:
                for field in ("body", "orelse", "finalbody"):
                    visit([c for c in getattr(node, field, ()) if isinstance(c, ast.stmt)])
                for handler in getattr(node, "handlers", ()):
                    visit(handler.body)

    visit(ast.parse((folder / "__init__.py").read_text(encoding="utf-8")).body)
    assert listed, f"{package}/__init__.py states no literal __all__"
    return [name for name in listed if name not in bound
            and ((folder / f"{name}.py").is_file() or (folder / name / "__init__.py").is_file())]


def public_modules() -> list[str]:
    """The modules the rule makes public: ``httpllm`` and, recursively, every submodule a
    public package lists in its ``__all__`` (:func:`_listed`)."""
    found, todo = [], [("httpllm", Path(httpllm.__file__).parent)]
    while todo:
        name, path = todo.pop()
        found.append(name)
        if path.is_dir():
            todo += [(f"{name}.{n}", path / n) for n in _listed(name, path)]
    return sorted(found)


def isort_key(name: str) -> tuple[int, str]:
    """ruff RUF022's order: CONSTANTS, then Classes, then the rest."""
    if name.isupper() or re.fullmatch(r"[A-Z0-9_]+", name):
        return (0, name)
    return (1 if name[0].isupper() else 2, name)


PUBLIC = public_modules()


def test_the_public_modules() -> None:
    """The rule gives these modules, which the README and docs/ send users to."""
    assert PUBLIC == [
        "httpllm",
        "httpllm.adapters",
        "httpllm.adapters.langchain",
        "httpllm.adapters.openai_agents",
        "httpllm.adapters.pydantic_ai",
        "httpllm.agent",
        "httpllm.codemode",
        "httpllm.dialects",
        "httpllm.errors",
        "httpllm.execute",
        "httpllm.server",
        "httpllm.toolsets",
        "httpllm.toolsets.embedders",
        "httpllm.toolsets.lint",
        "httpllm.upgrade",
    ]


@pytest.mark.parametrize("name", all_modules())
def test_every_module_declares_its_names(name: str) -> None:
    """Every module, public or private, states its public names in ``__all__``, and each
    is there."""
    module = importlib.import_module(name)
    assert isinstance(getattr(module, "__all__", None), list), f"{name} has no __all__"
    for member in module.__all__:
        assert hasattr(module, member), f"{name}.__all__ names {member!r}, which is absent"


def _stated(module: types.ModuleType) -> set[str]:
    """The public names a module states: those its own source defines at the top level
    (functions, classes, assignments, also inside a top-level ``if``/``with``/``try``),
    and for a package those it imports from its own submodules (re-exports)."""
    tree = ast.parse(inspect.getsource(module))
    package = module.__name__ if hasattr(module, "__path__") else None
    found: set[str] = set()
    todo: list[ast.stmt] = list(tree.body)
    while todo:
        node = todo.pop()
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            continue  # names for annotations only
        if isinstance(node, (ast.If, ast.With, ast.Try)):
            todo += node.body + getattr(node, "orelse", [])
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            found.add(node.name)
        elif isinstance(node, (ast.Assign, ast.AnnAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            found |= {t.id for t in targets if isinstance(t, ast.Name)}
        elif (isinstance(node, ast.ImportFrom) and package and node.module
              and node.module.startswith(f"{package}.")):
            found |= {a.asname or a.name for a in node.names}
    return {n for n in found if not n.startswith("_")}


@pytest.mark.parametrize("name", PUBLIC)
def test_public_all_is_sorted_and_complete(name: str) -> None:
    """A public module's ``__all__`` is sorted and holds every public name it states: the
    functions, classes and constants it defines, and a package's re-exports (a helper
    is spelled with a leading underscore)."""
    module = importlib.import_module(name)
    assert module.__all__ == sorted(module.__all__, key=isort_key) or (
        module.__all__ == sorted(module.__all__)), f"{name}.__all__ is not sorted"
    missing = _stated(module) - set(module.__all__)
    assert not missing, f"{name} states public names missing from __all__: {sorted(missing)}"


REFERENCE = re.compile(r"\bhttpllm(?:\.[A-Za-z_][A-Za-z0-9_]*)+")
FROM_IMPORT = re.compile(r"^\s*from (httpllm(?:\.\w+)*) import ([\w, ()]+)", re.MULTILINE)


def _resolve(dotted: str) -> tuple[str, str | None]:
    """``httpllm.a.b.name`` -> (the module it is in, the name or ``None``): read from the
    left, a name a module exports wins over a submodule spelled alike
    (``httpllm.toolsets.discover`` is the function its package exports)."""
    parts = dotted.split(".")
    module = parts[0]
    for part in parts[1:]:
        current = importlib.import_module(module)
        found = getattr(current, part, None) if part in current.__all__ else None
        if found is None or isinstance(found, types.ModuleType):
            try:
                importlib.import_module(f"{module}.{part}")
            except ImportError:
                return module, part
            module = f"{module}.{part}"
            continue
        return module, part
    return module, None


def _references(text: str) -> set[str]:
    found = {m.group().rstrip(".") for m in REFERENCE.finditer(text)}
    for module, names in FROM_IMPORT.findall(text):
        found |= {f"{module}.{n.strip()}" for n in names.strip("()").split(",") if n.strip()}
    return found


@pytest.mark.parametrize("page", USER_PAGES, ids=lambda p: p.name)
def test_user_pages_name_only_the_public_surface(page: Path) -> None:
    """Every ``httpllm.x.y`` a user's page names is a public module or a name in a public
    module's ``__all__``."""
    for dotted in sorted(_references(page.read_text(encoding="utf-8"))):
        module, name = _resolve(dotted)
        assert module in PUBLIC, f"{page.name} names {dotted}: {module} is private"
        if name is not None:
            members = importlib.import_module(module).__all__
            assert name in members, f"{page.name} names {dotted}, not in {module}.__all__"


def test_top_level_names_are_importable() -> None:
    """Every name of ``httpllm.__all__`` is there, submodules included (imported on first
    use: ``import httpllm`` imports none of them)."""
    for name in httpllm.__all__:
        assert getattr(httpllm, name) is not None


def _public_callables(name: str) -> dict[str, Any]:
    """The functions a public module's ``__all__`` names and the public methods of the
    classes it names (defined in httpllm, so not an SDK's inherited ones)."""
    module = importlib.import_module(name)
    found: dict[str, Any] = {}
    for member in module.__all__:
        value = getattr(module, member)
        if inspect.isfunction(value):
            found[f"{name}.{member}"] = value
        elif inspect.isclass(value):
            found |= {f"{name}.{member}.{k}": v for k, v in vars(value).items()
                      if inspect.isfunction(v) and not k.startswith("_")
                      and v.__module__.startswith("httpllm")}
    return found


@pytest.mark.parametrize("name", PUBLIC)
def test_public_callables_state_their_return_type(name: str) -> None:
    """No public function or method returns an unstated or ``Any`` value: a user's type
    checker sees what it gets (``http_app`` returns the ``Starlette`` app)."""
    for dotted, function in _public_callables(name).items():
        returned = inspect.signature(function).return_annotation
        assert returned is not inspect.Signature.empty, f"{dotted} states no return type"
        assert returned not in ("Any", Any), f"{dotted} returns Any"
