"""Serve a compiled document as an MCP server (the ``mcp`` extra: ``pip install
'httpllm[mcp]'``), over stdio or streamable HTTP.

- :mod:`~httpllm.server.tools`: the tool set as plain data (:class:`ServedTool`, :class:`Call`);
- :mod:`~httpllm.server.answer`: an HTTP answer -> a ``CallToolResult``;
- :mod:`~httpllm.server.credentials`: credentials and forwarded headers, per call;
- :mod:`~httpllm.server.admission`: who the HTTP endpoint admits (tokens, Host/Origin);
- :mod:`~httpllm.server.limits`: sessions and upstream calls per client;
- :mod:`~httpllm.server.endpoint`: the streamable-HTTP app with both, and the protocol
  rules the SDK leaves to servers (no answer to a cancelled request, ``ping`` in every era);
- :mod:`~httpllm.server.listing`: ``tools/list`` in pages of at most 1 MiB, with cursors;
- :mod:`~httpllm.server.build`: :func:`mcp_server`, the SDK's low-level ``Server``;
- :mod:`~httpllm.server.listen`: uvicorn set up for sharing a process and facing clients;
- :mod:`~httpllm.server.run`: :func:`serve` over stdio or HTTP.

Only this package imports the ``mcp`` SDK; ``import httpllm`` never does.
"""

from __future__ import annotations

from httpllm.errors import requires_extra

_MCP_MODULES = frozenset({"mcp", "mcp_types", "starlette", "uvicorn", "sse_starlette", "jwt",
                          "multipart"})
"""The top-level modules the ``mcp`` extra installs (the SDK and what it requires beyond
httpllm's own dependencies)."""

with requires_extra("mcp", "serving over MCP", _MCP_MODULES):
    from httpllm.server.admission import JwtVerifier, StaticTokens, oauth_resource
    from httpllm.server.build import (
        DEFAULT_MAX_PAGE_BYTES,
        DEFAULT_MAX_RESULT_CHARS,
        Executor,
        function_tools,
        mcp_server,
    )
    from httpllm.server.code import code_tools
    from httpllm.server.credentials import AuthHook, FromRequestHeaders
    from httpllm.server.limits import Limits
    from httpllm.server.listing import MIN_PAGE_BYTES
    from httpllm.server.run import http_app, serve
    from httpllm.server.tools import Call, Handler, ServedTool, function_tool

__all__ = [
    "DEFAULT_MAX_PAGE_BYTES",
    "DEFAULT_MAX_RESULT_CHARS",
    "MIN_PAGE_BYTES",
    "AuthHook",
    "Call",
    "Executor",
    "FromRequestHeaders",
    "Handler",
    "JwtVerifier",
    "Limits",
    "ServedTool",
    "StaticTokens",
    "code_tools",
    "function_tool",
    "function_tools",
    "http_app",
    "mcp_server",
    "oauth_resource",
    "serve",
]
