"""What the commands share: the compile options and their checks, compiling from them,
reading the document (``-`` is standard input), writing output, credentials from flags,
and saying a library message in the command line's own terms (flags, not Python options).
"""

from __future__ import annotations

import argparse
import json
import math
import os
import re
import sys
from collections.abc import Callable, Mapping
from dataclasses import Field, fields
from typing import TYPE_CHECKING, Any

from httpllm.cli._terminal import say
from httpllm.dialects import Options
from httpllm.dialects._options import Flag, option_of
from httpllm.errors import HttpllmError
from httpllm.load import DEFAULT_LIMITS
from httpllm.pointer import escape
from httpllm.records import Argument

if TYPE_CHECKING:
    from httpllm._api import Application

__all__ = ["FLAGS", "SPEC_HELP", "UsageError", "add_compile_options", "auth_from", "base_url",
           "compile_from", "at_least", "flag_takes", "in_flags", "json_or_text", "key_values",
           "non_negative", "positive", "write"]

_FLAGGED: tuple[tuple[Field[Any], Flag], ...] = tuple(
    (spec, flag) for spec in fields(Options) if (flag := option_of(spec).flag) is not None)
"""The compile options the command line offers, with their flags, in ``--help`` order."""

_OTHER_FLAGS: dict[str, str] = {
    "provider": "--provider",
    "require_auth": "--auth",
    "host_arguments": "--host-arg",
    "server_variables": "--server-var",
    "base_url": "--base-url",
    "auth": "--auth",
    "always": "--always",
}
"""The flags of the keywords that are no compile option: ``compile``'s provider, and
``execute``'s and ``deferred_tools``' keywords the command line offers."""

FLAGS: dict[str, str] = {
    **{spec.name: flag.name for spec, flag in _FLAGGED}, **_OTHER_FLAGS}
"""Each keyword of :func:`httpllm.compile` (and of ``execute``) the command line offers,
and its flag: a compile option's is its ``Flag`` in :class:`httpllm.dialects.Options`. A
library message that names a Python option is shown with the flag."""

_METAVARS: dict[str, str] = {
    **{spec.name: flag.metavar for spec, flag in _FLAGGED if flag.metavar},
    "base_url": "URL", "host_arguments": "NAME=VALUE", "server_variables": "NAME=VALUE",
    "always": "NAME"}
"""The value a flag takes, as ``--help`` names it: a library message's ``base_url=...``
is ``--base-url URL`` on the command line."""

_NO_FLAG = re.compile(r"; or require_auth=False when the client supplies them|"
                      r" \(expected a path, OpenAPI text or a dict\)|"
                      r" or a dict(?= \(give the document as a path)")
"""Library hints the command line has no use for (``call`` needs credentials only with
``--send``; a document is a file or text there, never a dict): left out of the message."""

_OPTION = re.compile(r"\b([a-z][a-z_]*)=(True|False|[kKN]|\.\.\.)?(?=[\s,;:)/.]|$)|"
                     r"\binclude=/exclude=")

_TO_CALL = re.compile(r"(--[a-z-]+(?: [A-Z=]+)?) to (?:compile|execute)(?:\(\))?(?=[\s,;:.)]|$)")
"""``--document-url URL to compile``: the Python function a keyword goes to, which the
command line has no use for (the flag is the command's own)."""


SPEC_HELP = ("OpenAPI or Swagger document: a path, an http(s) URL (with --allow-network), "
             "or - for stdin")
"""The help of every command's SPEC argument."""


class UsageError(Exception):
    """A flag or its value is wrong: the command exits 2 with this one-line message."""


def in_flags(message: str) -> str:
    """``message`` with each Python option it names (``pass allow_outside_root=True``,
    ``unroll=k``, ``include=/exclude=``, ``base_url=...``) spelled as the command line's
    flag, its value named as ``--help`` names it, and without the Python function it goes
    to (``... to compile``): one line in the user's terms.

    >>> in_flags("outside the folder (pass allow_outside_root=True)")
    'outside the folder (pass --allow-outside-root)'
    >>> in_flags("pass unroll=k to expand it k levels")
    'pass --unroll K to expand it k levels'
    >>> in_flags('pass auth= with one of: "key" (apiKey in header X-Key) (none given)')
    'pass --auth SCHEME=VALUE with one of: "key" (apiKey in header X-Key) (none given)'
    >>> in_flags("pass base_url=..., or document_url=... to compile (the document's URL)")
    "pass --base-url URL, or --document-url URL (the document's URL)"
    """
    def flag(match: re.Match[str]) -> str:
        if match.group(0) == "include=/exclude=":
            return "--include/--exclude"
        name, value = match.group(1), match.group(2)
        if name not in FLAGS:
            return match.group(0)
        if name == "auth" and value is None:
            return "--auth SCHEME=VALUE"
        if value in (None, "True"):
            return FLAGS[name]
        if value == "...":
            return f"{FLAGS[name]} {_METAVARS.get(name, 'VALUE')}"
        return f"{FLAGS[name]} {'K' if value in 'kKN' else value}"

    return _TO_CALL.sub(r"\1", _OPTION.sub(flag, _NO_FLAG.sub("", message)))


def at_least(least: int) -> Callable[[str], int]:
    """argparse type: a whole number >= ``least``."""
    def whole(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected a whole number, not {text!r}") from None
        if value < least:
            raise argparse.ArgumentTypeError(f"expected a whole number >= {least}, "
                                             f"not {value}")
        return value

    return whole


def base_url(text: str) -> str:
    """argparse type of ``--base-url``: an absolute http(s) URL without a user name or
    password (``file:///etc/passwd`` or ``not a url`` was told the server URL "is
    relative; pass base_url=..."). httpx would
    send ``user:pass@`` as HTTP Basic in place of the ``--auth`` credential, and the URL is
    printed and shown in errors; so it is refused, in one line that does not repeat it.

    Source: issue 22 finding 8.
    """
    from urllib.parse import urlsplit

    try:
        split = urlsplit(text)
        userinfo = split.username is not None or split.password is not None
        absolute = split.scheme.lower() in ("http", "https") and bool(split.hostname)
    except ValueError:
        userinfo, absolute = "@" in text, False
    if userinfo:
        raise argparse.ArgumentTypeError(
            "a URL with a user name or password (user:pass@) is refused: give credentials "
            "with --auth or --auth-env, never in the URL")
    if not absolute:
        raise argparse.ArgumentTypeError(
            f"{text!r} is not an absolute http(s) URL (such as https://api.example.com/v1)")
    return text


def json_or_text(value: str) -> Any:
    """A flag's value as JSON when it parses (``42``, ``{"a": 1}``), else as the text."""
    try:
        return json.loads(value)
    except ValueError:
        return value


def provider_name(text: str) -> str:
    """argparse type: a provider httpllm knows (``--list-providers``), else exit 2."""
    from httpllm.dialects import get_dialect
    from httpllm.errors import UnknownDialect

    try:
        return get_dialect(text).name  # case-blind: "Claude" is claude
    except UnknownDialect as exc:
        raise argparse.ArgumentTypeError(exc.message) from None


non_negative = at_least(0)
"""argparse type: a whole number >= 0."""

positive = at_least(1)
"""argparse type: a whole number >= 1."""


_ARGUMENT: dict[str, Callable[[Flag, Any], dict[str, Any]]] = {
    "switch": lambda flag, default: {"action": "store_true"},
    "count": lambda flag, default: {"type": non_negative, "default": None,
                                    "metavar": flag.metavar},
    "choice": lambda flag, default: {"choices": flag.choices, "default": default},
    "text": lambda flag, default: {"default": None, "metavar": flag.metavar},
    "repeat": lambda flag, default: {"action": "append", "default": None,
                                     "metavar": flag.metavar},
}
"""The argparse keywords of each ``Flag.kind``."""


def add_compile_options(parser: argparse.ArgumentParser) -> None:
    """The flags every command that compiles a document takes: ``--provider``, then each
    compile option's :class:`~httpllm.dialects._options.Flag`, in the record's order."""
    parser.add_argument("--provider", "-p", default="chatgpt", type=provider_name,
                        help="target dialect (see 'httpllm compile --list-providers'); "
                             "default chatgpt")
    for spec, flag in _FLAGGED:
        parser.add_argument(flag.name, dest=spec.name, help=flag.help,
                            **_ARGUMENT[flag.kind](flag, spec.default))


_LOCATIONS = ("path", "query", "header", "cookie", "body")


def _separate(selectors: list[str] | None, matched: set[str]
              ) -> Callable[[Argument], bool] | None:
    """The ``separate=`` predicate of ``--separate`` selectors: an argument's name in the
    document (or as compiled before a provider's renaming), optionally after
    ``LOCATION:`` (header names case-blind); ``matched`` collects the selectors that
    picked an argument."""
    if not selectors:
        return None
    wanted: list[tuple[str, str | None, str]] = []
    for selector in selectors:
        location, colon, name = selector.partition(":")
        if colon and location in _LOCATIONS:
            wanted.append((selector, location, name))
        else:  # a name holding a colon ("sess:id"), not a location
            wanted.append((selector, None, selector))

    def chosen(argument: Argument) -> bool:
        names = {argument.name, argument.wire_name}
        if argument.location == "header":
            names = {n.lower() for n in names}
        for selector, location, name in wanted:
            key = name.lower() if argument.location == "header" else name
            if key in names and location in (None, argument.location):
                matched.add(selector)
                return True
        return False

    return chosen


def _source(args: argparse.Namespace) -> str | bytes:
    """The document argument: a path, or ``-`` for standard input (read once, kept on
    ``args`` for the commands that compile twice: ``lint``, ``inspect --budget``)."""
    if args.spec != "-":
        return str(args.spec)
    if getattr(args, "stdin_document", None) is None:
        # one byte past the limit is enough for the loader to refuse it (never all of
        # an endless stream: ``httpllm compile - < /dev/zero``)
        args.stdin_document = sys.stdin.buffer.read(DEFAULT_LIMITS.max_bytes + 1)
    return bytes(args.stdin_document)


def compile_from(args: argparse.Namespace) -> Application:
    """Compile the command's document with its flags.

    Raises:
        UsageError: a flag's value cannot be used (the message names the flag).
        HttpllmError: the document cannot be compiled.
    """
    from httpllm._api import compile  # not at import: `httpllm search` may not compile
    from httpllm.errors import OptionError

    matched: set[str] = set()
    try:
        keywords = {spec.name: getattr(args, spec.name) for spec, _ in _FLAGGED}
        app = compile(_source(args), args.provider,
                      **{**keywords, "separate": _separate(args.separate, matched)})
    except OptionError as exc:
        flag = FLAGS.get(exc.option, exc.option)
        message = in_flags(exc.message)
        for lead in (f"{exc.option}: ", f"{exc.option} "):  # said once, as the flag
            message = message.removeprefix(lead)
        raise UsageError(f"{flag}: {message}") from None
    for selector in args.separate or ():
        if selector not in matched:
            say(f"httpllm: warning: --separate {selector} matched no argument (name it as "
                "the document does, optionally after path:, query:, header: or cookie:)",
                file=sys.stderr)
    return app


def write(text: str, output: str | None) -> int:
    """Write ``text`` and a newline to the ``-o`` file or standard output; the characters
    written. For the output itself (JSON, a compiled document, a request or answer body),
    written as it is; a line the command says goes through
    :func:`~httpllm.cli._terminal.say` instead (one line, whatever a document put in it).

    Raises:
        HttpllmError: the file cannot be written (the message names it and why).
    """
    if not output or output == "-":
        sys.stdout.write(text + "\n")
        return len(text) + 1
    try:
        with open(output, "w", encoding="utf-8") as handle:
            handle.write(text + "\n")
    except OSError as exc:
        raise HttpllmError(f"cannot write --output {output}: {exc.strerror}") from None
    return len(text) + 1


def key_values(items: list[str] | None, flag: str) -> dict[str, str]:
    """``NAME=VALUE`` items of a repeatable flag as a dict.

    Raises:
        UsageError: an item has no ``=``, or names what an earlier item named (the second
            would silently win).
    """
    out: dict[str, str] = {}
    for item in items or ():
        name, sep, value = item.partition("=")
        if not sep or not name:
            raise UsageError(f"{flag} expects NAME=VALUE, not {item!r}")
        if name in out:
            raise UsageError(f"{flag} {name}=... is given twice; give each name once")
        out[name] = value
    return out


def auth_from(app: Application, values: list[str] | None,
              env: list[str] | None) -> dict[str, Any] | None:
    """The ``auth=`` mapping of ``--auth SCHEME=VALUE`` and ``--auth-env SCHEME=ENVVAR``:
    for an HTTP Basic scheme the value is ``user:password`` (split at the first colon).

    Raises:
        UsageError: a malformed item, a scheme given twice (by either flag), an unset
            environment variable, an empty credential or one holding CR, LF or NUL (never
            sendable in a header), a scheme the document does not declare, or a Basic
            credential without a colon.
    """
    given, flags = _given(values, env)
    if not given:
        return None
    schemes = security_schemes(app)
    auth: dict[str, Any] = {}
    for scheme, value in given.items():
        declared = schemes.get(scheme)
        flag = flags[scheme]
        if declared is None:
            raise UsageError(f"{flag} {scheme}=...: {unknown_scheme(app, scheme)}")
        if not flag_takes(declared):
            raise UsageError(f"{flag} {scheme}=...: {scheme!r} is {_scheme_kind(declared)}, "
                             "whose credential cannot be given as text; give the httpx "
                             "client its auth in Python (httpllm.execute(..., client=...))")
        if declared.get("type") == "http" and str(declared.get("scheme")).lower() == "basic":
            user, colon, password = value.partition(":")
            if not colon:
                raise UsageError(f"{flag} {scheme}=USER:PASSWORD: HTTP Basic needs both, "
                                 "separated by a colon")
            auth[scheme] = (user, password)
        else:
            auth[scheme] = value
    return auth


def _given(values: list[str] | None, env: list[str] | None
           ) -> tuple[dict[str, str], dict[str, str]]:
    """The credential text of each scheme ``--auth``/``--auth-env`` give, and the flag that
    gave it (see :func:`auth_from` for what is refused)."""
    given = key_values(values, "--auth")
    flags = dict.fromkeys(given, "--auth")
    variables = key_values(env, "--auth-env")
    for scheme, variable in variables.items():
        if scheme in given:
            raise UsageError(f"--auth-env {scheme}=...: {scheme!r} is also given by --auth; "
                             "give each scheme once")
        if variable not in os.environ:
            raise UsageError(f"--auth-env {scheme}={variable}: the environment variable "
                             f"{variable} is not set")
        given[scheme] = os.environ[variable]
        flags[scheme] = "--auth-env"
    for scheme, value in given.items():
        where = (f"the environment variable {variables[scheme]}"
                 if flags[scheme] == "--auth-env" else "the credential")
        if not value:
            raise UsageError(f"{flags[scheme]} {scheme}=...: {where} is empty")
        if any(c in value for c in "\r\n\0"):
            raise UsageError(f"{flags[scheme]} {scheme}=...: {where} holds a CR, LF or NUL "
                             "character, which no request can carry")
    return given, flags


def flag_takes(scheme: Mapping[str, Any]) -> bool:
    """Whether ``--auth NAME=VALUE`` can carry this scheme's credential
    (:func:`httpllm.execute.security.applies`)."""
    from httpllm.execute.security import applies

    return applies(scheme)


def _scheme_kind(scheme: Mapping[str, Any]) -> str:
    kind = str(scheme.get("type"))
    return f"HTTP {scheme.get('scheme', '')}".strip() if kind == "http" else kind


def security_schemes(app: Application) -> dict[str, Any]:
    """The security schemes the compiled functions name, by name."""
    out: dict[str, Any] = {}
    for function in app.functions:
        out.update(function.security_schemes)
    return out


def unknown_scheme(app: Application, scheme: str, *, what: str = "compiled") -> str:
    """Why a flag's ``scheme`` takes no credential: no operation requires it, or (a true
    answer for a document with that mistake) operations require it but the document never
    defines it, so it has no type or place to send a credential."""
    if any(scheme in requirement and scheme not in function.security_schemes
           for function in app.functions for requirement in function.security):
        return (f"operations require a security scheme named {scheme!r}, but the document "
                "does not define it (components/securitySchemes; securityDefinitions in "
                "Swagger 2.0), so no credential can be placed for it")
    known = ", ".join(sorted(security_schemes(app))) or "none"
    return (f"no {what} operation requires a security scheme named {scheme!r} (they "
            f"require: {known}; 'httpllm inspect' lists them)")


def dumps(value: Any) -> str:
    """Indented JSON text. JSON has no ``NaN`` or ``Infinity`` (a YAML document may say
    ``.nan``): such a number is written as ``null`` and named in a warning on stderr,
    never written bare (which no JSON parser reads). A lone surrogate (a document's
    ``\\ud800`` escape without its pair, which UTF-8 cannot hold) is written as that
    escape again."""
    try:
        text = json.dumps(value, indent=2, ensure_ascii=False, allow_nan=False)
    except ValueError:
        found: list[str] = []
        text = json.dumps(_finite(value, "", found), indent=2, ensure_ascii=False)
        say(f"httpllm: warning: {len(found)} number(s) JSON cannot hold (NaN, Infinity) "
            f"written as null: {', '.join(found[:5])}{' ...' if len(found) > 5 else ''}",
            file=sys.stderr)
    return text if text.isascii() else text.encode("utf-8", "backslashreplace").decode()


def _finite(value: Any, pointer: str, found: list[str]) -> Any:
    """``value`` with each non-finite number replaced by ``None``, its pointer in ``found``
    (iterative: output nests at most a few hundred levels, but no recursion is cheaper
    to reason about)."""
    root: list[Any] = [value]
    stack: list[tuple[Any, Any, str]] = [(root, 0, pointer)]
    while stack:
        holder, key, at = stack.pop()
        node = holder[key]
        if isinstance(node, float) and not math.isfinite(node):
            holder[key] = None
            found.append(at or "/")
        elif isinstance(node, dict):
            holder[key] = node = dict(node)  # the tools share subtrees: copy, never edit
            stack.extend((node, k, f"{at}/{escape(k)}") for k in node)
        elif isinstance(node, list):
            holder[key] = node = list(node)
            stack.extend((node, i, f"{at}/{i}") for i in range(len(node)))
    return root[0]
