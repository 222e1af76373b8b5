"""httpllm: compile OpenAPI 3.0/3.1 documents into LLM function-calling tools for every
provider, and turn a model's tool call back into a validated HTTP request.

>>> import httpllm
>>> app = httpllm.compile("specs/petstore-3.1.yaml", provider="chatgpt")  # doctest: +SKIP
>>> app.tools()[0]["function"]["name"]  # doctest: +SKIP
'listPets'
"""

from httpllm._api import Application, Warning, compile
from httpllm.dialects import Dialect, get_dialect, providers, register_provider
from httpllm.errors import (
    AccessDenied,
    CallError,
    DialectError,
    HttpllmError,
    InvalidArguments,
    LimitExceeded,
    LoadError,
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

__all__ = [
    "AccessDenied",
    "Application",
    "Argument",
    "CallError",
    "Dialect",
    "DialectError",
    "Function",
    "HttpllmError",
    "InvalidArguments",
    "LimitExceeded",
    "LoadError",
    "Loss",
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
    "compile",
    "get_dialect",
    "providers",
    "register_provider",
]

__version__ = "0.1.0"
