"""Every exception httpllm raises, as one tree.

```
HttpllmError
├── LoadError ── LimitExceeded, AccessDenied   (unreadable; limits; network/folder gate)
├── SpecError ── RefError                      (invalid document; unresolvable $ref)
├── SchemaError                                (cannot be emended, e.g. allOf conflict)
├── InternalError                              (a fault of httpllm's own, on one part)
├── OptionError                                (an option value compile cannot take)
├── DialectError ── UnknownDialect, Unrepresentable
├── CallError ── InvalidArguments, UnknownFunction, RequestBuildError, TransportError
└── MissingExtra ── MissingTokenizer           (an optional extra is not installed)
```

Each error carries a keyword-only ``pointer`` (a JSON pointer spelled like a ``$ref``,
``"#/paths/~1pets/get"``) and, where known, the ``source`` file. Its message is one line
saying where and what was expected; never a whole document.
"""

from __future__ import annotations

from collections.abc import Collection, Iterator
from contextlib import contextmanager
from typing import Any

__all__ = [
    "AccessDenied",
    "CallError",
    "DialectError",
    "HttpllmError",
    "InternalError",
    "InvalidArguments",
    "LimitExceeded",
    "LoadError",
    "MissingExtra",
    "MissingTokenizer",
    "OptionError",
    "RefError",
    "RequestBuildError",
    "SchemaError",
    "SpecError",
    "TransportError",
    "UnknownDialect",
    "UnknownFunction",
    "Unrepresentable",
    "install_command",
    "requires_extra",
]


class HttpllmError(Exception):
    """Base of every error httpllm raises.

    Attributes:
        message: what went wrong and what was expected, one line.
        pointer: JSON pointer of the offending node (``"#/..."``) or ``None``.
        source: the file or source label the pointer is relative to, or ``None``.
    """

    def __init__(self, message: str, *, pointer: str | None = None, source: str | None = None):
        self.message = message
        self.pointer = pointer
        self.source = source
        super().__init__(self._render())

    def _render(self) -> str:
        where = ""
        if self.source and self.pointer:
            where = f"{self.source}{self.pointer}: "
        elif self.source:
            where = f"{self.source}: "
        elif self.pointer:
            where = f"{self.pointer}: "
        return f"{where}{self.message}"


class LoadError(HttpllmError):
    """The source could not be read or decoded as JSON/YAML."""


class LimitExceeded(LoadError):
    """A safety limit was hit: size, nesting depth, YAML aliases, schema depth."""


class AccessDenied(LoadError):
    """A ``$ref`` needs the network or a file outside the document's folder, not allowed."""


class SpecError(HttpllmError):
    """The document is not an OpenAPI 3.0/3.1 description we can compile."""


class RefError(SpecError):
    """A ``$ref`` does not resolve (missing file, missing pointer, bad syntax)."""


class SchemaError(HttpllmError):
    """A schema cannot be turned into an emended schema (e.g. contradictory ``allOf``)."""


class InternalError(HttpllmError):
    """A fault of httpllm's own (an exception outside this tree) met on one operation, named
    schema or response: that part is reported as failed (``OperationError.kind`` is
    ``"InternalError"``) and the rest of the document compiles. Please report it with the
    document."""

    @classmethod
    def of(cls, exc: Exception, *, pointer: str | None = None) -> InternalError:
        """The error for ``exc``, met at ``pointer``: its class and text (cut to 200
        characters), without its traceback (a failed part's error is kept)."""
        return cls(f"httpllm failed here ({type(exc).__name__}: {str(exc)[:200]}); please "
                   "report it with the document", pointer=pointer)


class OptionError(HttpllmError, ValueError):
    """An option value that cannot be used (``unroll=-1``, an envelope the provider does
    not have, ``strict=True`` for a provider without a strict mode ...).

    Attributes:
        option: the keyword argument of :func:`httpllm.compile` at fault (``"unroll"``);
            the command line names its flag instead (``--unroll``).
    """

    def __init__(self, message: str, *, option: str):
        self.option = option
        super().__init__(message)


class DialectError(HttpllmError):
    """A provider dialect problem."""


class UnknownDialect(DialectError):
    """No provider of that name is registered."""


class Unrepresentable(DialectError):
    """A schema cannot be expressed in a dialect at all."""


class CallError(HttpllmError):
    """A tool call could not be validated, built or sent."""


class InvalidArguments(CallError):
    """The arguments of a tool call do not match the function's schema.

    Attributes:
        errors: the individual validation errors (``httpllm.execute.ArgumentError``).
    """

    def __init__(self, message: str, *, errors: Any = (), pointer: str | None = None):
        self.errors = tuple(errors)
        super().__init__(message, pointer=pointer)


class UnknownFunction(CallError):
    """A tool call names a function the application does not have."""


class RequestBuildError(CallError):
    """Valid arguments could not be turned into an HTTP request (e.g. no server URL)."""


class TransportError(CallError):
    """Sending the request failed (connection, timeout, protocol)."""


class MissingExtra(HttpllmError, ImportError):
    """A feature needs an optional extra that is not installed. The message names the
    feature, the missing module and the command that installs the extra
    (``pip install "httpllm[mcp]"``); also an ``ImportError``, so code that caught the
    bare ``ImportError`` raised before still catches it.

    Attributes:
        extra: the extra to install (``"mcp"``), or ``None`` when the message says what
            else is missing (a model file, a program).
        name: the module that could not be imported (``ImportError.name``), or ``None``.
    """

    def __init__(self, message: str, *, extra: str | None = None, module: str | None = None,
                 pointer: str | None = None, source: str | None = None):
        super().__init__(message, pointer=pointer, source=source)
        self.extra = extra
        self.name = module

    @classmethod
    def of(cls, extra: str, feature: str, module: str | None = None) -> MissingExtra:
        """The error for ``feature`` (``"serving over MCP"``) without ``module``, a
        module of ``extra``.

        >>> str(MissingExtra.of("mcp", "serving over MCP", "mcp")).replace(
        ...     install_command("mcp"), 'pip install "httpllm[mcp]"')
        'serving over MCP needs the mcp extra: pip install "httpllm[mcp]" (mcp is not installed)'
        """
        missing = f" ({module} is not installed)" if module else ""
        return cls(f"{feature} needs the {extra} extra: {install_command(extra)}{missing}",
                   extra=extra, module=module)


def install_command(extra: str) -> str:
    """The command that installs an extra into this installation: ``pip install
    "/path/to/httpllm[<extra>]"`` when httpllm was installed from a folder (a checkout, as
    the README says: it is not on PyPI yet, and a registry's ``httpllm`` may be anyone's),
    else ``pip install "httpllm[<extra>]"``."""
    return f'pip install "{_installed_from() or "httpllm"}[{extra}]"'


def _installed_from() -> str | None:
    """The folder httpllm was installed from (``pip install /path/to/httpllm``, editable or
    not), or ``None`` (a registry, a wheel file, no metadata).

    Source: PEP 610 (``direct_url.json``: ``url`` a ``file://`` URL with ``dir_info`` for a
    local folder)."""
    import json
    from importlib.metadata import PackageNotFoundError, distribution
    from urllib.parse import unquote, urlsplit

    try:
        text = distribution("httpllm").read_text("direct_url.json")
        info = json.loads(text) if text else None
    except (PackageNotFoundError, OSError, ValueError):
        return None
    if not isinstance(info, dict) or "dir_info" not in info:
        return None
    url = info.get("url")
    if not isinstance(url, str):
        return None
    parts = urlsplit(url)
    if parts.scheme != "file" or parts.netloc not in ("", "localhost"):
        return None
    return unquote(parts.path) or None


@contextmanager
def requires_extra(extra: str, feature: str, modules: Collection[str]) -> Iterator[None]:
    """Turn the ``ImportError`` of a top-level module in ``modules`` (the extra's
    distributions, as imported) raised inside the block into :class:`MissingExtra`;
    any other ``ImportError`` (a bug, a broken install of something else) passes.

    Raises:
        MissingExtra: one of ``modules`` cannot be imported.
    """
    try:
        yield
    except ImportError as exc:
        if (isinstance(exc, MissingExtra) or exc.name is None
                or exc.name.split(".")[0] not in modules):
            raise
        raise MissingExtra.of(extra, feature, exc.name.split(".")[0]) from exc


class MissingTokenizer(MissingExtra):
    """A token count needs a tokenizer whose package is not installed
    (``pip install "httpllm[tokens]"``)."""
