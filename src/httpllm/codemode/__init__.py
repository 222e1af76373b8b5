"""Code mode: an API as a typed module a model writes programs against, run in a sandbox
that never holds a credential (the ``code`` extra: ``pip install 'httpllm[code]'``).

- :mod:`~httpllm.codemode.typescript`: JSON Schema -> TypeScript types;
- :mod:`~httpllm.codemode.surface`: the typed module of an application (``api.<tag>.<method>``);
- :mod:`~httpllm.codemode.sandbox`: Deno with no permission, under limits; ``runtime.js``
  is the program's side of the bindings;
- :mod:`~httpllm.codemode.mode`: the ``search_docs`` and ``execute`` tools and the host
  side of every binding (limits, read-only, validation, credentials, redaction).

>>> code = httpllm.compile("github.json", "claude", reference=True).code_tools()  # doctest: +SKIP
>>> code.tools                                # two tools, for the provider's SDK  # doctest: +SKIP
"""

from __future__ import annotations

from httpllm.codemode.mode import EXECUTE, SEARCH_DOCS, CodeMode, Sent, code_mode
from httpllm.codemode.sandbox import Limits, Run, Sandbox
from httpllm.codemode.surface import Binding, Surface
from httpllm.codemode.typescript import TypeScript

__all__ = ["EXECUTE", "SEARCH_DOCS", "Binding", "CodeMode", "Limits", "Run", "Sandbox", "Sent",
           "Surface", "TypeScript", "code_mode"]
