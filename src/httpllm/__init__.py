"""httpllm: compile OpenAPI 3.0/3.1 documents into LLM function-calling tools for every
provider, and turn a model's tool call back into a validated HTTP request.

>>> import httpllm
>>> app = httpllm.compile("specs/petstore-3.1.yaml", provider="chatgpt")  # doctest: +SKIP
>>> app.tools()[0]["function"]["name"]  # doctest: +SKIP
'listPets'
"""

from __future__ import annotations

import importlib
import typing

from httpllm._limits import Limits
from httpllm.dialects import Dialect, get_dialect, providers, register_provider
from httpllm.errors import (
    AccessDenied,
    CallError,
    DialectError,
    HttpllmError,
    InternalError,
    InvalidArguments,
    LimitExceeded,
    LoadError,
    MissingExtra,
    MissingTokenizer,
    OptionError,
    RefError,
    RequestBuildError,
    SchemaError,
    SpecError,
    TransportError,
    UnknownDialect,
    UnknownFunction,
    Unrepresentable,
)
from httpllm.loss import Loss
from httpllm.records import Argument, Function, OperationError, Server

if typing.TYPE_CHECKING:
    from httpllm._api import Application, Warning, compile
    from httpllm.load import Source

_SUBMODULES = ("adapters", "agent", "codemode", "dialects", "errors", "execute", "server",
               "toolsets", "upgrade")
"""The public subpackages (a module is public when its package lists it in ``__all__``;
every other module is private: docs/architecture.md "The public surface")."""

__all__ = [
    "AccessDenied",
    "Application",
    "Argument",
    "CallError",
    "Dialect",
    "DialectError",
    "Function",
    "HttpllmError",
    "InternalError",
    "InvalidArguments",
    "LimitExceeded",
    "Limits",
    "LoadError",
    "Loss",
    "MissingExtra",
    "MissingTokenizer",
    "OperationError",
    "OptionError",
    "RefError",
    "RequestBuildError",
    "SchemaError",
    "Server",
    "SpecError",
    "TransportError",
    "UnknownDialect",
    "UnknownFunction",
    "Unrepresentable",
    "Warning",
    "adapters",
    "agent",
    "codemode",
    "compile",
    "dialects",
    "errors",
    "execute",
    "get_dialect",
    "mcp_server",
    "providers",
    "register_provider",
    "serve",
    "server",
    "toolsets",
    "upgrade",
]

__version__ = "0.1.0"


def mcp_server(app: Application | Source, **options: typing.Any) -> typing.Any:
    """The compiled document as an MCP server object (``mcp.server.lowlevel.Server``); see
    :func:`httpllm.server.mcp_server` for the options. Needs ``pip install 'httpllm[mcp]'``.

    Raises:
        MissingExtra: the ``mcp`` extra is not installed.
    """
    return _server().mcp_server(app, **options)


def serve(app: Application | Source, transport: str = "stdio", **options: typing.Any) -> None:
    """Serve the document over MCP (``transport="stdio"`` or ``"http"``); see
    :func:`httpllm.server.serve`. Needs ``pip install 'httpllm[mcp]'``.

    Raises:
        MissingExtra: the ``mcp`` extra is not installed.
    """
    _server().serve(app, transport, **options)


def _server() -> typing.Any:
    """``httpllm.server``, imported on first use (``import httpllm`` never needs ``mcp``)."""
    import httpllm.server as server  # raises MissingExtra without the mcp extra

    return server


_COMPILER = ("Application", "Warning", "compile")
"""The names of :mod:`httpllm._api`, imported on first use: the compiler's stages are not
loaded by what never compiles (``httpllm search`` of a document whose index is saved)."""


def __getattr__(name: str) -> typing.Any:
    """A public subpackage, or a name of :data:`_COMPILER`, imported on first use:
    ``import httpllm`` imports neither (PEP 562)."""
    if name in _COMPILER:
        value = getattr(importlib.import_module(f"{__name__}._api"), name)
        globals()[name] = value
        return value
    if name in _SUBMODULES:
        return importlib.import_module(f"{__name__}.{name}")
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
