"""Build the API reference: httpllm's public surface as HTML pages made from its
docstrings by pdoc (the ``test`` extra installs it).

    python docs/api_reference.py [FOLDER]        (default: build/api)

The pages are exactly the public modules (docs/architecture.md "The public surface": a
module is public when its package lists it in ``__all__``) and, in each, the names of its
``__all__``; ``tests/test_api_reference.py`` builds them and checks that.
"""

from __future__ import annotations

import importlib
import importlib.util
import sys
import types
from pathlib import Path

__all__ = ["build", "shadowed"]


def shadowed(package: str = "httpllm") -> list[str]:
    """Submodules whose name a public package's ``__all__`` gives to something else it
    exports (``httpllm.execute.decode`` is the function ``decode``, the module stays
    private); pdoc would document them as modules."""
    found, todo = [], [package]
    while todo:
        module = importlib.import_module(todo.pop())
        if not hasattr(module, "__path__"):
            continue
        for name in module.__all__:
            qualified = f"{module.__name__}.{name}"
            if isinstance(getattr(module, name), types.ModuleType):
                todo.append(qualified)
            elif importlib.util.find_spec(qualified) is not None:
                found.append(qualified)
    return sorted(found)


def build(output: Path) -> Path:
    """Write the reference into ``output`` (``index.html``, ``httpllm.html`` and one page
    per public module under ``httpllm/``) and return it."""
    import pdoc
    import pdoc.render

    pdoc.render.configure(docformat="google")  # "Args:", "Raises:", "Attributes:" sections
    pdoc.pdoc("httpllm", *(f"!{m}" for m in shadowed()), output_directory=output)
    return output


if __name__ == "__main__":
    folder = build(Path(sys.argv[1] if len(sys.argv) > 1 else "build/api"))
    print(f"API reference written to {folder / 'index.html'}")
