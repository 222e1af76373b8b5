"""Source -> raw document: safe JSON/YAML, size/nesting/alias limits, the file/network gate.

Nothing is fetched over the network and no file outside the document's folder (or the
``bound`` folder the caller names, e.g. a repository) is read unless the caller opts in
(``allow_network`` / ``allow_outside_root``); symbolic links are followed before the check,
so a link that leaves the folder is refused too. A file a ``$ref`` names must be a JSON or
YAML document (``.json``, ``.yaml``, ``.yml``) with OpenAPI or JSON Schema content and
no value shaped like a credential outside its examples (:mod:`httpllm._content`), and
never a dotfile or a file in a dot-folder (``.docker/config.json``, ``.aws/``, ``.env``):
the document is untrusted input, and what it refers to ends up in tools a model reads.
"""

from __future__ import annotations

import functools
import gc
import json
import os
import re
import sys
from collections.abc import Callable, Mapping
from itertools import chain
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urldefrag, urlparse

from httpllm._content import credential_in, schema_content
from httpllm._json import Unheld, scalar_text, valid_unicode
from httpllm._limits import DEFAULT_LIMITS, Limits
from httpllm._memo import IdentityCache, IdentityMemo
from httpllm.errors import AccessDenied, LimitExceeded, LoadError
from httpllm.pointer import escape

__all__ = ["DEFAULT_LIMITS", "Limits", "Loader", "Source", "is_url", "load_text",
           "read_bounded", "shown_url", "size_text", "source_of", "string_keys",
           "without_lone_surrogates", "without_userinfo"]

Source = str | bytes | os.PathLike[str] | Mapping[str, Any]


@functools.cache
def _yaml_loader() -> Any:
    """PyYAML's safe loader (libyaml when present: ~10x faster), timestamps kept as strings
    (JSON has no dates). Imported with the first YAML document: JSON never needs it."""
    import yaml

    base: Any = getattr(yaml, "CSafeLoader", yaml.SafeLoader)

    class SafeLoader(base):  # type: ignore[misc]
        """The safe loader without the timestamp resolver, refusing a key given twice in
        one mapping (PyYAML keeps the last silently; YAML 1.2.2 section 3.2.1.1: the keys
        of a mapping are unique)."""

        def construct_mapping(self, node: Any, deep: bool = False) -> Any:
            seen: set[str] = set()
            for key, _ in node.value:
                if isinstance(key, yaml.ScalarNode) and key.tag != "tag:yaml.org,2002:merge":
                    if key.value in seen:
                        raise yaml.constructor.ConstructorError(
                            None, None, f"the key {key.value!r} is given twice in one mapping",
                            key.start_mark)
                    seen.add(key.value)
            return super().construct_mapping(node, deep)

    def construct_int(loader: Any, node: Any) -> int:
        try:
            return int(yaml.SafeLoader.construct_yaml_int(loader, node))
        except ValueError as exc:  # past sys.get_int_max_str_digits() (4,300)
            raise yaml.constructor.ConstructorError(None, None, _TOO_LONG,
                                                    node.start_mark) from exc

    def construct_float(loader: Any, node: Any) -> float:
        value = float(yaml.SafeLoader.construct_yaml_float(loader, node))
        return Unheld.of(value, str(node.value)) if value in _UNHELD else value

    SafeLoader.add_constructor("tag:yaml.org,2002:int", construct_int)
    SafeLoader.add_constructor("tag:yaml.org,2002:float", construct_float)
    SafeLoader.yaml_implicit_resolvers = {
        first: [(tag, rx) for tag, rx in resolvers if tag != "tag:yaml.org,2002:timestamp"]
        for first, resolvers in yaml.SafeLoader.yaml_implicit_resolvers.items()
    }
    # YAML 1.2's floats that YAML 1.1's rule (a dot, and a signed exponent) leaves as
    # text: 1e3, 1E-7, 1.5e3, 2.e10 (PyYAML reads YAML 1.1; OpenAPI documents are 1.2)
    SafeLoader.add_implicit_resolver("tag:yaml.org,2002:float", _YAML12_FLOAT,
                                     list("-+0123456789."))
    return SafeLoader


_YAML12_FLOAT = re.compile(r"^[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)[eE][-+]?[0-9]+$")
"""A YAML 1.2 core-schema float with an exponent (YAML 1.2.2 section 10.3.2)."""


def _load_yaml(text: str, label: str) -> Any:
    """Decode YAML text.

    Raises:
        LimitExceeded: nested past libyaml's own limit (1,000 levels).
        LoadError: not valid YAML.
    """
    import yaml

    try:
        return yaml.load(text, Loader=_yaml_loader())
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f" at line {mark.line + 1}, column {mark.column + 1}" if mark else ""
        problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
        if "nesting depth" in problem:  # libyaml's own limit (1,000 levels)
            raise LimitExceeded(f"nesting too deep to decode{where}", source=label) from exc
        raise LoadError(f"not valid JSON or YAML{where}: {problem}", source=label) from exc


_UNHELD = (0.0, float("inf"), float("-inf"))
"""What a number no double holds is read as (``-0.0 == 0.0``): only these are checked."""


def _json_float(text: str) -> float:
    """``json.loads``' ``parse_float``: a number past a double's range, or non-zero yet
    read as zero (``1e400``, ``1e-400``), is an :class:`~httpllm._json.Unheld` keeping its
    text, which normalize drops with a loss (``normalize.numbers``)."""
    value = float(text)
    return Unheld.of(value, text) if value in _UNHELD else value


_MAX_DIGITS: int = getattr(sys, "get_int_max_str_digits", lambda: 4300)()
_TOO_LONG = (f"an integer of more than {_MAX_DIGITS} digits (the most Python reads as a "
             "number)")


def _check_shape(value: Any, limits: Limits, label: str,
                 allowance: int | None = None) -> tuple[Any, int]:
    """Check depth and expanded size iteratively; turn non-string keys into strings.

    A walk of its own, not :mod:`httpllm.walk`'s: it walks every dict and list of the
    decoded data (the schema walker descends subschemas only). A node shared through YAML
    aliases is sized once, and its size (values, and bytes as JSON text) counts at every
    place it occurs; so does a shared string's. ``allowance``: the bytes left of
    ``max_expanded_bytes`` (a :class:`Loader` shares it among the files it reads).
    Returns the value and its expanded size."""
    allowance = limits.max_expanded_bytes if allowance is None else allowance
    sizes: IdentityMemo[tuple[int, int]] = IdentityMemo()
    stack: list[tuple[Any, int, bool]] = [(value, 0, False)]
    while stack:
        node, depth, done = stack.pop()
        if not isinstance(node, (dict, list)):
            continue
        if done:
            count, size = _sized(node, sizes)
            sizes.put(node, (count, size))
            if count > limits.max_nodes:
                raise LimitExceeded(
                    f"more than {limits.max_nodes} values after YAML alias expansion",
                    source=label,
                )
            if size > allowance:
                together = (" with the files read before it"
                            if allowance < limits.max_expanded_bytes else "")
                raise LimitExceeded(
                    f"larger than {size_text(limits.max_expanded_bytes)}{together} after "
                    "YAML alias expansion (max_expanded_bytes)", source=label)
            continue
        if sizes.get(node) is not None:
            continue
        if depth >= limits.max_depth:
            raise _too_deep(value, limits.max_depth, label)
        if isinstance(node, dict) and any(not isinstance(k, str) for k in node):
            fixed = {scalar_text(k): v for k, v in node.items()}
            node.clear()
            node.update(fixed)
        stack.append((node, depth, True))
        items = node.values() if isinstance(node, dict) else node
        for child in items:
            if isinstance(child, (dict, list)) and sizes.get(child) is None:
                stack.append((child, depth + 1, False))
    found = sizes.get(value) if isinstance(value, (dict, list)) else None
    return value, found[1] if found else len(str(value))


def _sized(node: dict[str, Any] | list[Any],
           sizes: IdentityCache[tuple[int, int]]) -> tuple[int, int]:
    """``(values, bytes as JSON text)`` of ``node`` once its containers are sized: each
    child counts whole at every place it occurs."""
    count, size = 1, 1 + len(node)  # brackets and commas
    if isinstance(node, dict):
        size += sum(len(k) + 3 for k in node)  # quotes and colon
    for child in node.values() if isinstance(node, dict) else node:
        if isinstance(child, (dict, list)):
            inner = sizes.get(child) or (1, 2)
            count += inner[0]
            size += inner[1]
        else:
            count += 1
            size += len(child) + 2 if isinstance(child, str) else 5
    return count, size


def _too_deep(value: Any, limit: int, label: str) -> LimitExceeded:
    """The error for a document nested past ``limit``, naming where: the pointer of the
    first path that deep, its first levels only (sought once the limit is known hit)."""
    path: list[str] = []
    stack: list[tuple[Any, int, str | None]] = [(value, 0, None)]
    while stack:
        node, depth, key = stack.pop()
        del path[max(depth - 1, 0):]
        if key is not None:
            path.append(key)
        if depth >= limit:
            break
        items = node.items() if isinstance(node, dict) else enumerate(node)
        for k, child in reversed(list(items)):
            if isinstance(child, dict | list):
                stack.append((child, depth + 1, escape(str(k))))
    shown = "/".join(path[:8]) + ("/…" if len(path) > 8 else "")
    return LimitExceeded(f"nesting deeper than {limit} levels (the loader's safety limit)",
                         pointer=f"#/{shown}", source=label)


def _check_json_shape(value: Any, limits: Limits, label: str) -> Any:
    """:func:`_check_shape` for what ``json.loads`` made: keys are strings and no value is
    shared, so the expanded size is the number of values. Visits containers only (a
    quarter of the cost on GitHub's description, where the general check took longer
    than decoding)."""
    if not isinstance(value, (dict, list)):
        return value
    total = 1
    stack: list[tuple[Any, int]] = [(value, 0)]
    pop, push = stack.pop, stack.append
    while stack:
        node, depth = pop()
        if depth >= limits.max_depth:
            raise _too_deep(value, limits.max_depth, label)
        total += len(node)
        depth += 1
        for child in node.values() if type(node) is dict else node:
            if type(child) is dict or type(child) is list:
                push((child, depth))
    if total > limits.max_nodes:
        raise LimitExceeded(f"more than {limits.max_nodes} values after YAML alias expansion",
                            source=label)
    return value


def string_keys(value: Any) -> Any:
    """``value`` (a document given as a ``dict``) with every mapping key a string, as the
    loader makes a YAML document's (``200`` -> ``"200"``, ``True`` -> ``"true"``), and every
    mapping a ``dict`` (a ``MappingProxyType`` or another
    :class:`~collections.abc.Mapping` is what the rest reads as an object only once
    copied): the same object when every key already is a string and every mapping a
    dict, else a copy (the caller's dict is never changed). Iterative: a document nests
    as deep as its caller made it.

    >>> string_keys({"responses": {200: {"description": "ok"}}})
    {'responses': {'200': {'description': 'ok'}}}

    Raises:
        LoadError: two keys of one mapping are one string (``200`` and ``"200"``), which
            the loader refuses in a YAML document too; the error names the mapping.
    """
    if not _other_keys(value):
        return value
    copies: dict[int, Any] = {}
    root: list[Any] = [value]
    # id(copy) -> (its holder, its key there): a pointer is spelled only for an error
    # (spelling each one as the walk goes costs the square of the depth)
    held_at: dict[int, tuple[Any, Any]] = {}
    todo: list[tuple[Any, Any]] = [(root, 0)]
    while todo:
        holder, key = todo.pop()
        node = holder[key]
        if not isinstance(node, (Mapping, list)):
            continue
        copy = copies.get(id(node))
        if copy is None:  # a node shared by two places stays one node
            if isinstance(node, Mapping):
                copy = {scalar_text(k): v for k, v in node.items()}
                if len(copy) < len(node):
                    raise _twice(node, _pointer_of(holder, key, root, held_at))
            else:
                copy = list(node)
            copies[id(node)] = copy
            held_at[id(copy)] = (holder, key)
            todo.extend((copy, k) for k in (copy if isinstance(copy, dict) else
                                            range(len(copy))))
        holder[key] = copy
    return root[0]


def _pointer_of(holder: Any, key: Any, root: list[Any],
                held_at: dict[int, tuple[Any, Any]]) -> str:
    """The pointer of ``holder[key]`` in the document :func:`string_keys` copies."""
    tokens: list[str] = []
    while holder is not root:
        tokens.append(escape(str(key)))
        holder, key = held_at[id(holder)]
    return "#" + "".join("/" + token for token in reversed(tokens))


def _twice(mapping: Mapping[Any, Any], at: str) -> LoadError:
    """The error for a mapping two of whose keys are one string once spelled as text."""
    seen: dict[str, Any] = {}
    for k in mapping:
        text = scalar_text(k)
        if text in seen:
            return LoadError(f"the key {text!r} is given twice in one mapping "
                             f"(as {seen[text]!r} and {k!r})", pointer=at, source="<dict>")
        seen[text] = k
    raise AssertionError("no two keys of the mapping are one string")  # pragma: no cover


_SCALARS = frozenset({str, int, float, bool, type(None)})
"""The values ``json.load`` makes besides dicts and lists."""

_STR = frozenset({str})

_CONTAINERS = frozenset({dict, list})

_TREE_VISITS = 1_000_000
"""How many containers :func:`_tree_other_keys` visits before it stops trusting the
document to be a tree (GitHub's description has 90,000)."""

_TREE_VALUES = 4_000_000
"""How many values (a dict's entries, a list's items) :func:`_tree_other_keys` reads
before it stops trusting the document to be a tree, counted before a level is listed: a
document that shares a wide node many times (a YAML alias bomb loaded by the caller)
would list each of its values once per place, past any memory, on the next level alone
(GitHub's description has 260,000 values)."""

_TREE_LEVELS = 1_000
"""How deep :func:`_tree_other_keys` goes before it stops trusting the document to be a
tree (the loader refuses text nested past 256 levels)."""

_REFERENTS_ARE_VALUES = sys.implementation.name == "cpython" and sys.version_info < (3, 13)
"""Whether ``gc.get_referents`` of plain dicts and lists gives each of their values and
items (CPython 3.10-3.12), and a dict's keys as well unless its table is the kind that
holds ``str`` keys only: a dict built with ``str`` keys alone (by ``json.load``, the YAML
loader, ``copy.deepcopy``, ``pickle``) has it, one that was ever given another key (and a
copy of it) does not. So one C call lists a level's values, and when it gives exactly as
many objects as the level has values, no key needs a look. Not on CPython 3.13, whose
``__dict__`` of an object holding its values inline gives none of them (a table holding
its keys could make up the count), nor on other Pythons: values are read one by one there."""


def _other_keys(value: Any) -> bool:
    """Whether a mapping in ``value`` has a key that is no string, or is no ``dict``.

    Two passes with one answer. The first, :func:`_tree_other_keys`, takes the document
    for a tree of the kinds ``json.load`` makes and leaves the work to C, a level at a
    time; a document that holds itself, shares so much that its tree is past
    ``_TREE_VISITS`` containers, or holds another kind of mapping goes on to the second,
    :func:`_graph_other_keys`. CPU on GitHub's description as a dict: 0.03 s for the
    first reading each value (half that where ``_REFERENTS_ARE_VALUES``), 0.065 s for the
    second (which the scan was before)."""
    found = _tree_other_keys(value)
    return _graph_other_keys(value) if found is None else found


def _tree_other_keys(value: Any) -> bool | None:
    """:func:`_other_keys` of a tree of what ``json.load`` makes, a level at a time: the
    keys of all its dicts are checked at once, the dicts and lists among their values and
    its lists' items make the next level. ``None`` for anything else: a value neither
    scalar (``_SCALARS``), dict nor list, a level past ``_TREE_LEVELS``, more than
    ``_TREE_VISITS`` containers or ``_TREE_VALUES`` values (a node held twice is visited
    twice; one that holds itself, forever): the work and the memory of the pass are
    bounded whatever the document shares. Where ``_REFERENTS_ARE_VALUES``, a level's
    values are listed by one C call, and its keys are looked at only when that call says
    a dict's table may hold other keys than strings: half the CPU of reading each value
    and key, on GitHub's description."""
    if type(value) is not dict and type(value) is not list:
        return None
    level: list[Any] = [value]  # dicts and lists
    visits, values_left, levels = _TREE_VISITS, _TREE_VALUES, _TREE_LEVELS
    while level:
        count = sum(map(len, level))
        visits -= len(level)
        values_left -= count
        levels -= 1
        if visits < 0 or values_left < 0 or levels < 0:
            return None
        values: list[Any] | chain[Any]
        dicts: list[Any] | None
        if _REFERENTS_ARE_VALUES:
            values = gc.get_referents(*level)
            if len(values) < count:  # pragma: no cover - no value is left out on 3.10-3.12
                return None
            # more than the values: the keys of a table not only for strings, after each
            # value, which are strings (a scalar) once checked
            dicts = [v for v in level if type(v) is dict] if len(values) > count else None
        else:
            dicts = [v for v in level if type(v) is dict]
            lists = [v for v in level if type(v) is list]
            values = chain(chain.from_iterable(map(dict.values, dicts)),
                           chain.from_iterable(lists))
        if dicts is not None and not _STR.issuperset(map(type, chain.from_iterable(dicts))):
            return True
        level = [v for v in values if type(v) not in _SCALARS]
        if not _CONTAINERS.issuperset(map(type, level)):
            return None
    return False


def _graph_other_keys(value: Any) -> bool:
    """:func:`_other_keys` of any document: each container looked at once (a node may be
    shared, or hold itself), a mapping being any :class:`~collections.abc.Mapping` (one
    that is no ``dict`` answers at once: it is copied)."""
    stack: list[Any] = [value]
    seen: set[int] = set()
    pop, push, add = stack.pop, stack.append, seen.add
    while stack:
        node = pop()
        if id(node) in seen:
            continue
        add(id(node))
        is_map = isinstance(node, Mapping)
        if is_map and not isinstance(node, dict):
            return True
        for k, v in node.items() if is_map else enumerate(node):
            if is_map and type(k) is not str:
                return True
            kind = type(v)
            if kind is dict or kind is list or (kind is not str and isinstance(v, Mapping)):
                push(v)
    return False


def size_text(size: int) -> str:
    """A size in bytes as people read it: binary units past 1 KiB.

    >>> size_text(64 * 1024 * 1024), size_text(70_000_000), size_text(100)
    ('64 MiB', '66.8 MiB', '100 bytes')
    """
    for unit, scale in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if size >= scale:
            whole = size % scale == 0
            return f"{size // scale} {unit}" if whole else f"{size / scale:.1f} {unit}"
    return f"{size} bytes"


def load_text(text: str | bytes, *, label: str = "<text>", limits: Limits = DEFAULT_LIMITS) -> Any:
    """Decode JSON or YAML text into plain JSON values.

    Args:
        text: the document text (bytes are decoded as UTF-8, falling back to Latin-1).
        label: how the source is named in errors (a file path or ``"<text>"``).
        limits: the safety limits.

    Returns:
        The decoded value (``dict``, ``list`` ...), with mapping keys as strings.

    Raises:
        LimitExceeded: too large, too deep, or a YAML alias bomb.
        LoadError: neither valid JSON nor valid YAML.
    """
    return _decode_text(text, label, limits)[0]


def _decode_text(text: str | bytes, label: str, limits: Limits,
                 allowance: int | None = None) -> tuple[Any, int]:
    """:func:`load_text`, also giving a YAML document's expanded size (``0`` for JSON,
    where nothing expands and ``max_bytes`` bounds the size), within ``allowance`` bytes
    of expansion (default ``limits.max_expanded_bytes``)."""
    if len(text) > limits.max_bytes:
        raise LimitExceeded(f"larger than {size_text(limits.max_bytes)} "
                            f"({size_text(len(text))})", source=label)
    if isinstance(text, bytes):
        data = text
        try:
            text = data.decode("utf-8-sig")
        except UnicodeDecodeError:
            text = data.decode("latin-1")
    try:
        if text.lstrip()[:1] in ("{", "["):
            try:
                return _check_json_shape(json.loads(text, parse_float=_json_float), limits,
                                         label), 0
            except json.JSONDecodeError:
                pass  # YAML flow style is a superset of JSON; let YAML report the error
            except ValueError as exc:  # past sys.get_int_max_str_digits()
                raise LoadError(f"not valid JSON: {_TOO_LONG}", source=label) from exc
        value = _load_yaml(text, label)
    except RecursionError as exc:
        raise LimitExceeded("nesting too deep to decode", source=label) from exc
    return _check_shape(value, limits, label, allowance)


_SURROGATE_ESCAPE = (r"\\u[dD][89abAB][0-9a-fA-F]{2}(?!\\u[dD][c-fC-F])"  # a high half alone
                     r"|(?<!\\u[dD][89abAB][0-9a-fA-F]{2})\\u[dD][c-fC-F]"  # a low half alone
                     r"|\\U0000[dD][89a-fA-F]")  # YAML's long escape: any half
"""The escape of a lone surrogate in JSON (``\\ud800``) or YAML (``\\U0000d800`` too)
text; a pair's escapes (``\\ud83d\\udc4d``, an emoji) do not match, so a document
with emoji is not walked (Twilio's: 19 ms). Text is not parsed: an escaped backslash
before ``ud800`` matches (a false alarm costs a walk), and before ``ud83d`` it hides a
lone low half that follows it (the MCP server still cleans what it lists)."""

_ESCAPE_IN_TEXT = re.compile(_SURROGATE_ESCAPE)
_ESCAPE_IN_BYTES = re.compile(_SURROGATE_ESCAPE.encode())


def without_lone_surrogates(value: Any, text: str | bytes) -> tuple[Any, list[str]]:
    """``value``, decoded from ``text``, with every lone surrogate (an escape of one half
    of a pair without the other, which no UTF-8 text spells: a provider's SDK sending the
    tools, an MCP client, fails on it) replaced by U+FFFD, and the pointers of the strings
    changed (:func:`httpllm._json.valid_unicode`). Told from the text first, at C speed
    (GitHub's 13 MB description: 8 ms as bytes): most documents escape no surrogate and
    are returned as they are.

    >>> without_lone_surrogates({"a": "x\\ud800"}, '{"a": "x\\\\ud800"}')
    ({'a': 'x\ufffd'}, ['#/a'])
    """
    if isinstance(text, bytes):  # decoded strictly (or as Latin-1): escapes alone
        maybe = _ESCAPE_IN_BYTES.search(text) is not None
    else:  # a caller's str may hold a surrogate itself
        maybe = _ESCAPE_IN_TEXT.search(text) is not None or not _utf8(text)
    return valid_unicode(value) if maybe else (value, [])


def _utf8(text: str) -> bool:
    """Whether ``text`` encodes as UTF-8 (C speed: 2 ms a megabyte)."""
    if text.isascii():
        return True
    try:
        text.encode()
    except UnicodeEncodeError:
        return False
    return True


def is_url(spec: Source) -> bool:
    """Whether ``spec`` is an ``http(s)://`` URL: a document to fetch (through
    :meth:`Loader.document`), never a path (which would mangle it to ``https:/host``).

    >>> is_url("https://petstore3.swagger.io/api/v3/openapi.json"), is_url("openapi.yaml")
    (True, False)
    """
    return (isinstance(spec, str) and "\n" not in spec
            and spec.strip()[:8].lower().startswith(("http://", "https://")))


def shown_url(url: str) -> str:
    """``url`` as messages show it: a password in it (``https://user:pass@host/``) masked.

    >>> shown_url("https://me:s3cret@api.example.com/openapi.json")
    'https://me:[redacted]@api.example.com/openapi.json'
    """
    parts = urlparse(url)
    if parts.password is None:
        return url
    host = parts.netloc.rpartition("@")[2]
    return parts._replace(netloc=f"{parts.username}:[redacted]@{host}").geturl()


def without_userinfo(url: str) -> str:
    """``url`` without the ``user:password@`` a document's URL may carry to fetch it: what
    relative server URLs resolve against, so that the password never reaches a request
    to the API (as its Basic credentials) nor a printed server URL.

    >>> without_userinfo("https://me:s3cret@api.example.com/v1/openapi.json")
    'https://api.example.com/v1/openapi.json'
    """
    parts = urlparse(url)
    if "@" not in parts.netloc:
        return url
    return parts._replace(netloc=parts.netloc.rpartition("@")[2]).geturl()


def source_of(spec: Source, limits: Limits = DEFAULT_LIMITS
              ) -> tuple[Any, Path | None, str]:
    """Read any accepted ``spec`` into ``(raw value, file path or None, label)``.

    A ``str`` that names an existing file is read as a path (a pipe or a device too,
    at most ``limits.max_bytes`` of it); any other ``str`` is document text.

    Raises:
        LoadError: the path cannot be read.
        LimitExceeded: the file is larger than ``limits.max_bytes``.
    """
    if isinstance(spec, (Mapping, list)):
        return spec, None, "<dict>"
    if isinstance(spec, bytes):
        return spec, None, "<bytes>"
    if isinstance(spec, str) and ("\n" in spec or spec.lstrip()[:1] in ("{", "[", "")
                                  ) and not _names_file(spec):
        # an empty string is an empty document, never the path "." (the current folder)
        return spec, None, "<text>"
    if not isinstance(spec, (str, os.PathLike)):
        raise LoadError("expected a path, OpenAPI text, bytes or a dict; "
                        f"got {type(spec).__name__}")
    path = Path(os.fspath(spec))
    try:
        if path.is_dir():
            raise LoadError("is a folder, not a file (name the document inside it)",
                            source=str(path))
        if not path.exists():
            raise LoadError("no such file (expected a path, OpenAPI text or a dict)",
                            source=str(path))
        # a pipe (``<(curl ...)``) or a device is the caller's own choice: read it, bounded
        return read_bounded(path, limits.max_bytes), path.resolve(), str(path)
    except OSError as exc:
        raise LoadError(f"cannot read: {exc.strerror}", source=str(path)) from exc


def _names_file(spec: str) -> bool:
    """Whether a ``str`` that reads like document text (``{``, ``[``) is rather the path of
    something that exists: a folder named ``[v2]`` or a file ``{service}.yaml`` is a path,
    as :func:`source_of` says of any ``str`` naming one (``os.path.exists`` is ``False`` for
    a text no path can be: a NUL, too long a name)."""
    return "\n" not in spec and spec.strip() == spec != "" and os.path.exists(spec)


def read_bounded(path: Path, max_bytes: int) -> bytes:
    """The bytes of the file at ``path``, reading at most one byte past ``max_bytes``:
    a larger file (or an endless device such as ``/dev/zero``) is refused without being
    read into memory whole.

    Raises:
        LimitExceeded: the file holds more than ``max_bytes`` bytes.
        OSError: it cannot be opened or read.
    """
    with path.open("rb") as file:
        data = file.read(max_bytes + 1)
    if len(data) > max_bytes:
        raise LimitExceeded(f"larger than {size_text(max_bytes)}", source=str(path))
    return data


_DOCUMENT_SUFFIXES = (".json", ".yaml", ".yml")
"""What a file a ``$ref`` names may be: a JSON or YAML document."""

def _check_name(path: Path, folder: Path) -> None:
    """Refuse a ``$ref``'s file that is a dotfile, lies in a dot-folder (below the folder
    it shares with ``folder``, the document's own: a document kept in ``.specs/`` may
    read its neighbours), or is not named as a JSON or YAML document.

    Raises:
        AccessDenied: naming the file and why.
    """
    base = Path(os.path.commonpath([path, folder]))
    hidden = [part for part in path.relative_to(base).parts if part.startswith(".")]
    if hidden:
        raise AccessDenied(
            f"{path} is a dotfile or in a dot-folder ({hidden[0]}): such files hold a "
            "machine's settings and credentials and are never read for a $ref")
    if path.suffix.lower() not in _DOCUMENT_SUFFIXES:
        raise AccessDenied(f"{path} is not a JSON or YAML document (.json, .yaml, .yml): "
                           "only those are read for a $ref")


class Loader:
    """Reads the files a document refers to, within the gate; caches each file once.

    Args:
        root: the document's own file (its folder bounds what may be read, unless ``bound``
            is given), or ``None`` for text or dict input (then no relative file can be read).
        limits: the safety limits for every file.
        allow_network: allow ``http(s)://`` references (off by default).
        allow_outside_root: allow files outside the folder (off by default).
        bound: the folder whose files may be read (a repository holding the document and
            its shared schemas), instead of the document's folder.

    Attributes:
        transform: ``(uri, value) -> value`` applied to each file read before it is cached
            (the Swagger 2.0 upgrade sets it), or ``None``.

    Raises:
        AccessDenied: the document itself is outside ``bound``.
        LoadError: ``bound`` is not a folder.
    """

    def __init__(
        self,
        root: Path | None,
        *,
        limits: Limits = DEFAULT_LIMITS,
        allow_network: bool = False,
        allow_outside_root: bool = False,
        bound: str | os.PathLike[str] | None = None,
    ) -> None:
        self.root = root
        self.folder = root.parent if root else None
        self._where = "the document's folder"
        if bound is not None:
            self._where = "the root folder"
            self.folder = Path(bound).resolve()
            if not self.folder.is_dir():
                raise LoadError(f"{self.folder} is not a folder (root=...)")
            if root is not None and not allow_outside_root and not root.resolve(
                    ).is_relative_to(self.folder):
                raise AccessDenied(f"{root} is outside the root folder {self.folder} "
                                   "(root=...)")
        self.limits = limits
        self.allow_network = allow_network
        self.allow_outside_root = allow_outside_root
        self.files: dict[str, Any] = {}
        self.transform: Callable[[str, Any], Any] | None = None
        self.expanded = 0
        """Bytes, as JSON text after alias expansion, of the YAML files read so far: all
        together stay within ``limits.max_expanded_bytes``."""
        self.on_replaced: Callable[[str, list[str]], None] | None = None
        """Told ``(file, pointers)`` when a file read held lone surrogates, replaced by
        U+FFFD (:func:`without_lone_surrogates`)."""

    def __call__(self, uri: str) -> Any:
        """Load the document at an absolute ``file://`` or ``http(s)://`` URI (no fragment).

        Raises:
            AccessDenied: network or outside-folder access without opt-in.
            LoadError: unreadable or undecodable file.
        """
        uri = urldefrag(uri)[0]
        if uri in self.files:
            return self.files[uri]
        parsed = urlparse(uri)
        if parsed.scheme in ("http", "https"):
            if not self.allow_network:
                raise AccessDenied(
                    f"reference to {uri} needs the network (pass allow_network=True)"
                )
            value = self._fetch(uri)
        elif parsed.scheme == "file":
            value = self._read(Path(unquote(parsed.path)))
        elif not parsed.scheme:
            raise AccessDenied(f"relative file reference {uri!r} in a document given as text or "
                               "a dict (give the document as a path to read files beside it)")
        else:
            raise AccessDenied(f"unsupported reference scheme {parsed.scheme!r} in {uri}")
        if self.transform is not None:
            value = self.transform(uri, value)
        self.files[uri] = value
        return value

    def document(self, url: str) -> Any:
        """The document at an ``http(s)://`` ``url``, fetched as a ``$ref`` to it would be
        (the same gate, limits and timeout).

        Raises:
            AccessDenied: without ``allow_network``.
            LoadError: it cannot be fetched or decoded.
        """
        if not self.allow_network:
            raise AccessDenied(f"{url} is a URL: reading the document from it needs the "
                               "network (pass allow_network=True, or download it and give "
                               "its path)")
        return self(url)

    def _read(self, path: Path) -> Any:
        path = path.resolve()
        if self.folder is None:
            raise AccessDenied(f"file reference {str(path)!r} in a document given as text "
                               "(give the document as a path to read files beside it)")
        if not self.allow_outside_root and not path.is_relative_to(self.folder):
            both = os.path.commonpath([path, self.folder])
            raise AccessDenied(
                f"{path} is outside {self._where} {self.folder} "
                f"(pass root= a folder holding both, such as {both}, or "
                "allow_outside_root=True)"
            )
        if self.root is not None and path == self.root.resolve():
            return self._decode(path)
        _check_name(path, self.root.resolve().parent if self.root else self.folder)
        value = self._decode(path)
        if not schema_content(value):
            raise AccessDenied(
                f"{path} does not read as OpenAPI or JSON Schema content (no keyword of "
                "either, holding a value it takes, in its first levels): a file that is "
                "not part of the API description is never inlined into a tool")
        found = credential_in(value)
        if found is not None:
            raise AccessDenied(
                f"{path} holds what looks like {found[1]} at {found[0]}: a file holding a "
                "credential outside its examples is never read for a $ref, so that none "
                "reaches a tool")
        return value

    def _decode(self, path: Path) -> Any:
        try:
            if path.exists() and not path.is_file():
                # opening a named pipe would wait for a writer forever, a device may
                # never end: a document never makes us read either
                raise AccessDenied(f"{path} is not a regular file (a pipe, a device or a "
                                   "socket): only files are read for a $ref")
            data = read_bounded(path, self.limits.max_bytes)
        except OSError as exc:
            raise LoadError(f"cannot read referenced file: {exc.strerror}",
                            source=str(path)) from exc
        return self._decoded(data, str(path))

    def _decoded(self, data: bytes, label: str) -> Any:
        value, size = _decode_text(data, label, self.limits,
                                   self.limits.max_expanded_bytes - self.expanded)
        self.expanded += size
        value, replaced = without_lone_surrogates(value, data)
        if replaced and self.on_replaced is not None:
            self.on_replaced(label, replaced)
        return value

    def _fetch(self, uri: str) -> Any:
        import httpx  # only with the explicit network opt-in

        shown = shown_url(uri)
        limit = self.limits.max_bytes
        try:
            with httpx.stream("GET", uri, timeout=30.0, follow_redirects=False) as response:
                response.raise_for_status()
                data = bytearray()
                for chunk in response.iter_bytes():
                    data += chunk
                    if len(data) > limit:  # an endless answer is never held whole
                        raise LimitExceeded(f"larger than {size_text(limit)}", source=shown)
        except httpx.HTTPError as exc:
            detail = str(exc).replace(uri, shown) if shown != uri else str(exc)
            raise LoadError(f"cannot fetch: {detail}", source=shown) from exc
        return self._decoded(bytes(data), shown)
