"""The compile options, one record: each field of :class:`Options` is a keyword of
:func:`httpllm.compile`, and carries (as field metadata, :class:`Option`) its
documentation, its check and its command-line flag.

Everything else reads them from here: ``compile()``'s docstring lists the fields' docs
(:func:`document_keywords`), :func:`check_options` is its one validation, and
``httpllm.cli._common`` builds each flag's argparse argument and its ``FLAGS`` entry from
:class:`Flag`. Adding a compile option is one field here plus the keyword in
``compile()``'s signature (``tests/dialects/test_options.py`` holds the two together).
"""

from __future__ import annotations

import inspect
import os
import sys
from collections.abc import Callable, Collection, Iterable, Iterator, Mapping
from dataclasses import Field, dataclass, field, fields
from typing import TYPE_CHECKING, Any, Literal, TypeVar

from httpllm._limits import DEFAULT_LIMITS, PER_COMPILE, Limits
from httpllm.errors import OptionError

if TYPE_CHECKING:
    from httpllm.dialects._base import Dialect
    from httpllm.records import Argument
    from httpllm.selection import Selector

__all__ = ["EXAMPLES", "Flag", "Option", "Options", "check_options", "document_keywords",
           "option_of", "options_of"]

EXAMPLES: tuple[Literal["native", "description", "off"], ...] = (
    "native", "description", "off")
"""The values of ``Options.examples``."""

Check = Callable[[str, Any, "Dialect"], "str | None"]
"""``(keyword, value, dialect) -> message``: why the value cannot be used, or ``None``."""


@dataclass(frozen=True, slots=True, kw_only=True)
class Flag:
    """How the command line offers a compile option.

    Attributes:
        name: the flag (``"--max-depth"``); its argparse destination is the option's name.
        help: the ``--help`` text.
        kind: the argparse argument: ``"switch"`` (``store_true``), ``"count"`` (a whole
            number >= 0), ``"choice"`` (one of ``choices``, default the option's),
            ``"text"`` (a string) or ``"repeat"`` (a string, repeatable, collected in a
            list).
        metavar: the value's name in ``--help`` (``None``: argparse's own).
        choices: the values of a ``"choice"``.
    """

    name: str
    help: str
    kind: Literal["switch", "count", "choice", "text", "repeat"]
    metavar: str | None = None
    choices: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True, kw_only=True)
class Option:
    """What a field of :class:`Options` carries besides its type and default.

    Attributes:
        doc: the keyword's documentation (``compile()``'s and ``Options``' docstrings).
        flag: its command-line flag; ``None``: Python only (the reason is ``cli``).
        cli: why a Python-only option has no flag (required then, ``""`` otherwise).
        check: the value's check, run by :func:`check_options`; ``None``: any value of
            the type.
    """

    doc: str
    flag: Flag | None
    cli: str = ""
    check: Check | None = None


def _meta(doc: str, *, flag: Flag | None, cli: str = "",
          check: Check | None = None) -> dict[str, Option]:
    """The metadata of a field of :class:`Options`: its :class:`Option` (``doc``'s
    whitespace made single spaces)."""
    return {"option": Option(doc=" ".join(doc.split()), flag=flag, cli=cli, check=check)}


def _whole(keyword: str, value: Any, dialect: Dialect) -> str | None:
    if value is not None and (type(value) is not int or value < 0):
        return f"{keyword} must be a whole number >= 0, not {value!r}"
    return None


def _switch(keyword: str, value: Any, dialect: Dialect) -> str | None:
    if type(value) is not bool:  # "no" or 0 would read as a choice the caller never made
        return f"{keyword} must be True or False, not {value!r}"
    return None


def _one_of(*values: str) -> Check:
    """The check of an option taking one of ``values``."""
    def check(keyword: str, value: Any, dialect: Dialect) -> str | None:
        if type(value) is not str or value not in values:
            return (f"{keyword} must be {', '.join(map(repr, values[:-1]))} or "
                    f"{values[-1]!r}, not {value!r}")
        return None

    return check


def _selectors(keyword: str, value: Any, dialect: Dialect) -> str | None:
    if value is None:
        return None
    # Options keeps a one-shot iterable as a tuple, so what is left here is a collection
    given = (value,) if isinstance(value, str) or callable(value) else value
    if not isinstance(given, Collection) or isinstance(given, (bytes, Mapping)):
        return (f"{keyword} must be a selector or a list of selectors (strings such as "
                f"'tag:pets' or 'GET /pets/*', or functions), not {value!r}")
    for selector in given:
        if not isinstance(selector, str) and not callable(selector):
            return (f"{keyword} must hold selectors (strings such as 'tag:pets' or "
                    f"'GET /pets/*', or functions), not {selector!r}")
        if isinstance(selector, str) and not selector.strip():
            return f"{keyword}: a selector is empty; give tag:T, 'GET /path/*', /path/* ..."
    return None


def _predicate(keyword: str, value: Any, dialect: Dialect) -> str | None:
    if value is not None and not callable(value):
        return f"{keyword} must be a function of an Argument (or None), not {value!r}"
    return None


def _document_url(keyword: str, value: Any, dialect: Dialect) -> str | None:
    if value is None:
        return None
    from urllib.parse import urlsplit

    try:
        split = urlsplit(value) if type(value) is str else None
        host = None
        if split is not None and (split.port is None or split.port >= 0):  # port: checks
            host = split.hostname
    except ValueError:  # "http://[::1" (an unclosed IPv6 address), port 99999
        split = host = None
    if split is not None and "@" in split.netloc:  # it would reach every request as
        # HTTP Basic credentials, and every printed server URL
        return (f"{keyword} must hold no user name or password (user:pass@); give "
                "credentials with auth= instead")
    if split is None or split.scheme.lower() not in ("http", "https") or not host:
        return (f"{keyword} must be an absolute http(s) URL (such as "
                f"https://api.example.com/openapi.json), not {value!r}")
    return None


def _folder(keyword: str, value: Any, dialect: Dialect) -> str | None:
    if value is None:
        return None
    if not isinstance(value, (str, os.PathLike)):
        return f"{keyword} must be a folder's path, not {value!r}"
    path = os.fspath(value)
    if not isinstance(path, str) or not path or "\0" in path or not os.path.isdir(path):
        return f"{keyword} must be an existing folder, not {path!r}"
    return None


def _envelope(keyword: str, value: Any, dialect: Dialect) -> str | None:
    if value is not None and value not in dialect.envelopes:
        known = (f"the envelopes {', '.join(map(repr, dialect.envelopes))}"
                 if dialect.envelopes else "no envelope variant")
        return f"provider {dialect.name!r} has {known}, not {value!r}"
    return None


def _strict(keyword: str, value: Any, dialect: Dialect) -> str | None:
    wrong = _switch(keyword, value, dialect)
    if wrong is not None:
        return wrong
    if value and not dialect.has_strict:
        return f"provider {dialect.name!r} has no strict mode"
    return None


def _per_compile(keyword: str, value: Any, dialect: Dialect) -> str | None:
    if not isinstance(value, Limits):
        return f"{keyword} must be an httpllm.Limits record, not {value!r}"
    for name in sorted(PER_COMPILE):
        given = getattr(value, name)
        if type(given) is not int or not 0 <= given < sys.maxsize:  # past it: OverflowError
            return (f"{keyword}: {name} must be a whole number from 0 to {sys.maxsize - 1}, "
                    f"not {given!r}")
    changed = value.fixed_changed()
    if changed:
        return (f"limits: {', '.join(changed)} cannot be set for one compile; these can: "
                f"{', '.join(sorted(PER_COMPILE))}")
    return None


@dataclass(frozen=True, slots=True, kw_only=True)
class Options:
    """The options of a compile: one field per keyword of :func:`httpllm.compile` (all but
    the document and the provider), as ``Application.options`` keeps them; a dialect's
    envelope and rules read the ones that shape a tool (``strict``, ``unroll``,
    ``examples``, ``envelope`` ...). Every field has its default, so ``Options()`` is a
    compile's defaults.
    """

    # The order is the command line's ``--help`` order (then the Python-only options).
    strict: bool = field(default=False, metadata=_meta("""
        render the provider's strict mode (OpenAI structured outputs ...) where the
        dialect has one.""",
        flag=Flag(name="--strict", kind="switch",
                  help="the provider's strict mode (providers marked [strict])"),
        check=_strict))
    reference: bool = field(default=False, metadata=_meta("""
        keep a ``$defs`` entry for every named schema a function reaches instead of
        inlining non-recursive ones.""",
        flag=Flag(name="--reference", kind="switch",
                  help="keep named schemas under $defs instead of inlining them"),
        check=_switch))
    strip_constraints: bool = field(default=False, metadata=_meta("""
        move validation keywords (bounds, lengths, pattern, format, uniqueItems, default)
        into descriptions as ``@minimum 0`` tags, even where the provider accepts them.
        ``validate`` still enforces them.""",
        flag=Flag(name="--strip-constraints", kind="switch",
                  help="move validation keywords into descriptions"),
        check=_switch))
    unroll: int | None = field(default=None, metadata=_meta("""
        for dialects without ``$ref``: expand recursive schemas this many levels and cut
        the rest (reported); ``None`` reports such functions as errors. Also read by
        ``Dialect.refs="on-request"`` and ``strict_recursion=False``.""",
        flag=Flag(name="--unroll", kind="count", metavar="K",
                  help="unroll recursion K levels for dialects without $ref"),
        check=_whole))
    envelope: str | None = field(default=None, metadata=_meta("""
        the dialect's envelope variant (``"chat"`` or ``"responses"`` for OpenAI;
        ``"parameters"`` or ``"json-schema"`` for Gemini).""",
        flag=Flag(name="--envelope", kind="text",
                  help="envelope variant: 'chat' or 'responses' (OpenAI), 'parameters' or "
                       "'json-schema' (Gemini)"),
        check=_envelope))
    split_unions: bool = field(default=False, metadata=_meta("""
        for dialects without unions: one function per variant of a union request body
        instead of the documented fallback.""",
        flag=Flag(name="--split-unions", kind="switch",
                  help="one tool per variant of a union request body, for dialects "
                       "without unions"),
        check=_switch))
    examples: Literal["native", "description", "off"] = field(
        default="native", metadata=_meta("""
        where the document's examples go: ``"native"`` (the provider's own field where it
        has one, else the description), ``"description"`` or ``"off"``.""",
        flag=Flag(name="--examples", kind="choice", choices=EXAMPLES,
                  help="where the document's examples go (default native)"),
        check=_one_of(*EXAMPLES)))
    max_depth: int | None = field(default=None, metadata=_meta("""
        most object/array levels below each argument (the argument is level 0); ``None``:
        no limit. Past it a function is an error, see ``collapse_deep``.""",
        flag=Flag(name="--max-depth", kind="count", metavar="N",
                  help="most object/array levels below each argument"),
        check=_whole))
    collapse_deep: bool = field(default=False, metadata=_meta("""
        past ``max_depth``, send each deeper subtree as a string of JSON text (reported;
        ``execute.decode`` decodes it) instead of failing.""",
        flag=Flag(name="--collapse-deep", kind="switch",
                  help="past --max-depth, send deeper parts as JSON text"),
        check=_switch))
    include: Iterable[Selector] | Selector | None = field(default=None, metadata=_meta("""
        selectors of the operations to compile (see :mod:`httpllm.selection`).""",
        flag=Flag(name="--include", kind="repeat", metavar="SELECTOR",
                  help="only these operations: tag:T, 'GET /path/*', /path/*, method:M, "
                       "name or operationId glob (repeatable)"),
        check=_selectors))
    exclude: Iterable[Selector] | Selector | None = field(default=None, metadata=_meta("""
        selectors of operations to leave out.""",
        flag=Flag(name="--exclude", kind="repeat", metavar="SELECTOR",
                  help="leave these operations out (same selectors, repeatable)"),
        check=_selectors))
    separate: Callable[[Argument], bool] | None = field(default=None, metadata=_meta("""
        picks arguments kept out of the model's view (e.g. ``lambda a: a.location ==
        "header"``); the host passes their values to ``execute(...,
        host_arguments=...)``.""",
        flag=Flag(name="--separate", kind="repeat", metavar="ARGUMENT",
                  help="keep an argument out of the model's view, e.g. "
                       "'header:X-Api-Version' or 'api_version' (repeatable); 'call' takes "
                       "its value from --host-arg"),
        check=_predicate))
    allow_network: bool = field(default=False, metadata=_meta("""
        allow a URL as ``spec`` and ``$ref``s to ``http(s)://`` (off: never fetch).""",
        flag=Flag(name="--allow-network", kind="switch",
                  help="allow a URL as SPEC and $refs to http(s) URLs (never fetched "
                       "otherwise)"),
        check=_switch))
    allow_outside_root: bool = field(default=False, metadata=_meta("""
        allow ``$ref``s to files outside the document's folder.""",
        flag=Flag(name="--allow-outside-root", kind="switch",
                  help="allow $refs to files outside the document's folder"),
        check=_switch))
    document_url: str | None = field(default=None, metadata=_meta("""
        the URL the document was retrieved from; relative server URLs (``/api/v1``) and
        the default server ``/`` resolve against it (OpenAPI 3.1.0 section 4.6). Without
        it a relative server needs ``base_url=`` at execute time.""",
        flag=Flag(name="--document-url", kind="text", metavar="URL",
                  help="the URL the document came from; relative server URLs resolve "
                       "against it"),
        check=_document_url))
    root: str | os.PathLike[str] | None = field(default=None, metadata=_meta("""
        the folder whose files ``$ref``s may read (e.g. the repository holding the
        document and its shared schemas) instead of the document's folder.""",
        flag=Flag(name="--root", kind="text", metavar="DIR",
                  help="$refs may read files under DIR (e.g. the repository) instead of "
                       "the document's folder"),
        check=_folder))
    lenient: bool = field(default=True, metadata=_meta("""
        replace what a dialect cannot type (an array without ``items`` in strict mode) by
        a documented default and a loss entry; ``False`` makes it an error.""",
        flag=None, cli="the command line always compiles leniently",
        check=_switch))
    limits: Limits = field(default=DEFAULT_LIMITS, metadata=_meta("""
        size, nesting and alias-expansion limits of the loader (the fields of
        ``PER_COMPILE``; a change to another is an ``OptionError``).""",
        flag=None, cli="the command line keeps the default limits", check=_per_compile))
    form_style: Literal["brackets", "repeat"] = field(
        default="brackets", metadata=_meta("""
        how arrays inside ``deepObject`` values and form bodies, which OpenAPI leaves
        undefined, are sent: ``"brackets"`` (``expand[0]=a``,
        ``tax_id_data[0][type]=...``, as Stripe, Rails, PHP and Express read them) or
        ``"repeat"`` (``expand=a&expand=b``; objects in arrays as JSON text). A
        document's or an operation's ``x-httpllm-form-style`` overrides it.""",
        flag=None, cli="a document's x-httpllm-form-style chooses it on the command line",
        check=_one_of("brackets", "repeat")))

    def __post_init__(self) -> None:
        # A generator (any one-shot iterable) of selectors is kept as a tuple: read once,
        # it would select nothing at the next operation, nor at a later compile from
        # ``Application.options``.
        for name in ("include", "exclude"):
            value = getattr(self, name)
            if isinstance(value, Iterator) or (isinstance(value, Iterable) and not (
                    isinstance(value, Collection) or callable(value))):
                object.__setattr__(self, name, tuple(value))


def option_of(spec: Field[Any]) -> Option:
    """The :class:`Option` a field of :class:`Options` carries.

    Raises:
        TypeError: the field was declared without ``metadata=_meta(...)`` (at import:
            ``Options``' docstring is made of every field's).
    """
    found = spec.metadata.get("option")
    if not isinstance(found, Option):
        raise TypeError(f"Options.{spec.name} is declared without its documentation and "
                        "flag: field(default=..., metadata=_meta(doc, flag=...))")
    return found


def options_of(keywords: Mapping[str, Any]) -> Options:
    """The record of a call's keywords: ``keywords`` may hold more names (``compile()``
    passes its ``locals()``); each field takes the value of its name."""
    return Options(**{spec.name: keywords[spec.name] for spec in fields(Options)})


def check_options(options: Options, dialect: Dialect) -> None:
    """Refuse option values the compile cannot use, naming the option: each field's check,
    in the record's order.

    Raises:
        OptionError: a field's check refuses its value (``option`` is the field's name,
            the message the check's: ``unroll must be a whole number >= 0, not -1``).
    """
    for spec in fields(options):
        check = option_of(spec).check
        message = None if check is None else check(spec.name, getattr(options, spec.name),
                                                   dialect)
        if message is not None:
            raise OptionError(message, option=spec.name)


_F = TypeVar("_F", bound=Callable[..., Any])


def document_keywords(function: _F) -> _F:
    """``function`` with the documentation of each of its keyword-only parameters, read
    from the :class:`Options` field of its name, added to its docstring's ``Args:``
    section (before ``Returns:``), in the signature's order.

    Raises:
        TypeError: a keyword-only parameter is no field of :class:`Options` (at import).
    """
    by_name = {spec.name: option_of(spec) for spec in fields(Options)}
    lines = []
    for name, parameter in inspect.signature(function).parameters.items():
        if parameter.kind is parameter.KEYWORD_ONLY:
            if name not in by_name:
                raise TypeError(f"{function.__name__}() keyword {name!r} is no field of "
                                "httpllm.dialects.Options")
            lines.append(_entry(name, by_name[name].doc))
    doc = function.__doc__ or ""
    head, returns, tail = doc.partition("\n    Returns:")
    function.__doc__ = head.rstrip("\n") + "\n" + "\n".join(lines) + "\n" + returns + tail
    return function


def _entry(name: str, doc: str, indent: str = "        ") -> str:
    """One ``name: doc`` entry of a Google-style section, wrapped at 90 columns (by hand:
    ``textwrap`` would add a module to ``import httpllm``)."""
    lines, line = [], f"{indent}{name}:"
    for word in doc.split():
        if len(line) + 1 + len(word) > 90:
            lines.append(line)
            line = f"{indent}    {word}"
        else:
            line += f" {word}"
    return "\n".join([*lines, line])


Options.__doc__ = (f"{(Options.__doc__ or '').rstrip()}\n\n    Attributes:\n" + "\n".join(
    _entry(spec.name, option_of(spec).doc) for spec in fields(Options)) + "\n")
