"""The API reference (docs/api_reference.py, pdoc) builds from the docstrings and shows
exactly the public surface: one page per public module, each name of its ``__all__``."""

from __future__ import annotations

import importlib
import importlib.util
import re
import types
from pathlib import Path

import pytest
from doc_pages import ROOT
from test_exported_members import PUBLIC

pytestmark = pytest.mark.skipif(importlib.util.find_spec("pdoc") is None, reason="needs pdoc")


def _builder() -> types.ModuleType:
    spec = importlib.util.spec_from_file_location("api_reference",
                                                  ROOT / "docs" / "api_reference.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.slow
def test_reference_shows_the_public_surface(tmp_path: Path) -> None:
    """Pages for the public modules and no other; every public name has its entry."""
    builder = _builder()
    out = builder.build(tmp_path / "api")
    built = {str(p.relative_to(out).with_suffix("")).replace("/", ".")
             for p in out.rglob("*.html")} - {"index", "search"}
    assert built == set(PUBLIC)
    for name in PUBLIC:
        module = importlib.import_module(name)
        page = (out / (name.replace(".", "/") + ".html")).read_text(encoding="utf-8")
        for member in module.__all__:
            if isinstance(getattr(module, member), types.ModuleType):
                assert f'href="{name.rsplit(".", 1)[-1]}/{member}.html"' in page, (name, member)
            else:
                assert re.search(rf'id="{re.escape(member)}"', page), (name, member)


def test_shadowed_submodules_stay_private() -> None:
    """A submodule named like a function its package exports is left out, not documented
    as a module."""
    assert _builder().shadowed() == ["httpllm.execute.decode", "httpllm.execute.validate",
                                     "httpllm.toolsets.discover"]
