"""The typed surface of an application: one TypeScript method per operation, grouped by tag.

Every compiled function becomes a method of a global ``api`` object: ``api.<tag>.<method>``
for an operation with tags (its first tag; the method name is the function name without
the tag's prefix, in camelCase: ``repos_get`` -> ``api.repos.get``), ``api.<method>`` for
one without. Its declaration carries a doc comment (summary, method and path, what it
resolves to), its arguments object (each argument with its description) and its result
type; the ``$defs`` of the parameters and responses become named types shared across
operations (compile with ``reference=True`` and every named schema is one named type).

The surface is computed once per application and kept; every text it gives is built
from it in document order, so the same application gives the same bytes.

>>> surface = Surface(app.functions)                            # doctest: +SKIP
>>> print(surface.module())                                     # doctest: +SKIP
interface Api {
  repos: ReposApi;
  ...
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from httpllm._types import Schema
from httpllm.codemode.typescript import (
    RESERVED,
    TypeScript,
    comment,
    identifier,
    pascal,
)
from httpllm.records import Function
from httpllm.walk import refs_in

__all__ = ["PRELUDE", "Binding", "Surface"]

PRELUDE = """\
/** A non-2xx answer: `status`, the parsed `body`, `operation` (`"GET /path"`), and
 * `location`: where a redirect not followed points (credentials masked), else null. */
declare class ApiError extends Error {
  readonly status: number;
  readonly body: unknown;
  readonly operation: string;
  readonly location: string | null;
}
declare const api: Api;
declare const console: {
  log(...data: unknown[]): void; info(...data: unknown[]): void;
  warn(...data: unknown[]): void; error(...data: unknown[]): void;
  debug(...data: unknown[]): void; table(...data: unknown[]): void;
};
declare function setTimeout(callback: () => void, ms?: number): number;
declare function clearTimeout(id?: number): void;
// Present but refused at run time, with a message saying so: no network, file,
// environment or process access.
declare const Deno: any;
declare function fetch(input: unknown, init?: unknown): Promise<any>;
"""
"""Declarations every program is checked with besides the operations: ``api``, its error,
and the few globals of the sandbox (the checker's library is the language's alone)."""

_SUMMARY_MAX = 300
"""Characters of an operation's description kept in its doc comment."""

_ALIAS_FROM = 60
"""A result type longer than this many characters gets a named alias."""

_WORD = re.compile(r"[^\x00-\x20\s\ufeff!-#%-/:-@\[-^`{-~]+")
"""A word of a program: a run between white space (``\\s`` and U+FEFF, ECMA-262 12.2) and
ASCII punctuation (every punctuator is ASCII, 12.8), so an identifier in any script
(``获取宠物``, ``हिन्दी`` with its marks) is one word, as ECMA-262 12.7 reads it; ``$``
and ``_`` are identifier characters."""


def _output(function: Function) -> Schema | None:
    return function.output


@dataclass(frozen=True, slots=True, kw_only=True)
class Binding:
    """Where one operation lives on ``api``.

    Attributes:
        function: the compiled function.
        namespace: the property of ``api`` holding it (from its first tag), or ``None``.
        interface: the interface of that namespace (``"ReposApi"``), or ``"Api"``.
        method: the method name (``"get"``).
    """

    function: Function
    namespace: str | None
    interface: str
    method: str

    @property
    def path(self) -> str:
        """How a program calls it: ``"api.repos.get"``."""
        return ".".join(["api", *([self.namespace] if self.namespace else []), self.method])


@dataclass(slots=True)
class _Operation:
    binding: Binding
    text: str
    types: list[str] = field(default_factory=list)


class Surface:
    """The typed module of a list of compiled functions (see the module docstring).

    Args:
        functions: the application's functions, in document order.
        outputs: ``function -> schema``, what each method resolves to (default
            ``function.output``; code mode passes
            :meth:`httpllm.Application.response_schema`, the whole schema where the
            dialect bounds ``output``, as ``mcp`` does).
    """

    def __init__(self, functions: Sequence[Function],
                 outputs: Callable[[Function], Schema | None] | None = None) -> None:
        self._output = outputs or _output
        self._taken = set(RESERVED)
        self.bindings = _place(functions, self._claim)
        self.by_name = {b.function.name: b for b in self.bindings}
        self._namespaces: dict[str, str] = {}
        for b in self.bindings:
            if b.namespace is not None:
                self._namespaces.setdefault(b.namespace, b.interface)
        self._defs: dict[str, Any] = {}
        """TypeScript name -> the schema of a named type."""
        self._names: dict[tuple[str, str], str] = {}
        """(``$defs`` name, content key) -> TypeScript name."""
        self._keys: dict[int, tuple[Any, Any]] = {}
        """``id(object)`` -> (the object, its content key or its ``$defs`` names)."""
        self._refs: dict[str, str] = {}
        """``"#/$defs/<name>"`` -> TypeScript name, for the shared renderer."""
        self._default = TypeScript(self._refs.get)
        self._type_text: dict[str, str] = {}
        self._type_refs: dict[str, list[str]] = {}
        self._operations = {b.function.name: self._operation(b) for b in self.bindings}
        self._module: str | None = None

    def _claim(self, wanted: str) -> str:
        """``wanted``, or ``wanted2``, ``wanted3`` ... the first not yet taken."""
        name, n = wanted, 1
        while name in self._taken:
            n += 1
            name = f"{wanted}{n}"
        self._taken.add(name)
        return name

    def table(self) -> dict[str, str]:
        """``{"repos.get": "repos_get", "getCustomers": "GetCustomers"}``: the path under
        ``api`` of each function, what the sandbox's runtime builds ``api`` from."""
        return {b.path.removeprefix("api."): b.function.name for b in self.bindings}

    def module(self) -> str:
        """The whole typed module (every operation and named type), computed once."""
        if self._module is None:
            self._module = self.declarations([b.function.name for b in self.bindings])
        return self._module

    def declarations(self, names: Iterable[str], *, every_namespace: bool = True) -> str:
        """The declarations of the functions ``names`` and every type they reach, after
        :data:`PRELUDE`: what a program calling them is checked against.
        ``every_namespace``: the ``Api`` interface lists every namespace (so that an
        operation left out reads as a missing method, not a missing namespace)."""
        chosen = [self._operations[n] for n in dict.fromkeys(names) if n in self._operations]
        types = self._closure(t for op in chosen for t in op.types)
        spaces = (self._namespaces if every_namespace else
                  {op.binding.namespace: op.binding.interface for op in chosen
                   if op.binding.namespace is not None})
        return PRELUDE + self._interfaces(chosen, spaces) + "".join(
            self._type_text[t] for t in types)

    def referenced(self, program: str) -> list[str]:
        """The functions a program may call: those whose method name occurs in it as a
        word (a superset of what it calls; ``api.repos.get`` names every ``get``)."""
        words = set(_WORD.findall(program))
        return [b.function.name for b in self.bindings if b.method in words]

    def docs(self, functions: Sequence[Function], budget: int, *,
             types: Sequence[str] = ()) -> str:
        """What ``search_docs`` answers: the declarations of ``functions`` (best first),
        then the named types they use and the named ``types`` asked for, while the text
        stays within ``budget`` characters; the types left out are listed by name, to ask
        for next."""
        chosen = [self._operations[f.name] for f in functions if f.name in self._operations]
        asked = [t for t in types if t in self._type_text]
        wanted = self._closure([*asked, *(t for op in chosen for t in op.types)])
        spaces = {op.binding.namespace: op.binding.interface for op in chosen
                  if op.binding.namespace is not None}
        head = "" if not chosen else self._interfaces(chosen, spaces)
        shown: list[str] = []
        left: list[str] = []
        size = len(head)
        for name in wanted:
            text = self._type_text[name]
            if size + len(text) <= budget or (name in asked and not shown):
                shown.append(text)
                size += len(text)
            else:
                left.append(name)
        tail = (f"// Types not shown (ask search_docs for them by name): {', '.join(left)}\n"
                if left else "")
        return head + "".join(shown) + tail

    def type_names(self) -> list[str]:
        """Every named type, in the order they were named."""
        return list(self._type_text)

    # -- building -------------------------------------------------------------------------

    def _interfaces(self, chosen: list[_Operation], spaces: dict[str, str]) -> str:
        root = [op for op in chosen if op.binding.namespace is None]
        lines = ["interface Api {\n"]
        lines.extend(f"  {ns}: {iface};\n" for ns, iface in spaces.items())
        lines.extend(op.text for op in root)
        lines.append("}\n")
        by_space: dict[str, list[_Operation]] = {}
        for op in chosen:
            if op.binding.namespace is not None:
                by_space.setdefault(op.binding.interface, []).append(op)
        for iface in dict.fromkeys(spaces.values()):
            body = "".join(op.text for op in by_space.get(iface, []))
            lines.append(f"interface {iface} {{\n{body}}}\n")
        return "".join(lines)

    def _closure(self, roots: Iterable[str]) -> list[str]:
        """``roots`` and every named type they reach, breadth first, each once."""
        seen = dict.fromkeys(roots)
        queue = list(seen)
        while queue:
            for ref in self._type_refs.get(queue.pop(0), []):
                if ref not in seen:
                    seen[ref] = None
                    queue.append(ref)
        return list(seen)

    def _operation(self, binding: Binding) -> _Operation:
        function = binding.function
        whole = self._output(function)
        schemas = [s for s in (function.parameters, whole) if isinstance(s, dict)]
        renderer, refs = self._renderer(schemas)
        op = _Operation(binding=binding, text="")
        args = _without_defs(function.parameters)
        output = _without_defs(whole)
        properties = args.get("properties")
        if isinstance(properties, dict) and properties:
            optional = not args.get("required")
            shown = renderer.layout(args, "  ", describe=True)
            signature = f"{binding.method}(args{'?' if optional else ''}: {shown})"
        else:
            signature = f"{binding.method}()"
        result = "unknown" if output is None else renderer.render(output).text
        out_refs = _names_in(output, refs)
        if len(result) > _ALIAS_FROM:
            alias = self._claim(pascal(f"{binding.namespace or ''} {binding.method}")
                                + "Result")
            self._type_text[alias] = (f"type {alias} = "
                                      f"{renderer.layout(output)};\n")
            self._type_refs[alias] = out_refs
            result, out_refs = alias, [alias]
        op.types = list(dict.fromkeys([*out_refs, *_names_in(function.parameters, refs)]))
        op.text = f"{_doc(function)}  {signature}: Promise<{result}>;\n"
        return op

    def _renderer(self, schemas: list[dict[str, Any]]) -> tuple[TypeScript, dict[str, str]]:
        """The renderer naming the ``$defs`` of ``schemas``, and the map
        ``"#/$defs/<name>"`` -> TypeScript name. A ``$defs`` name means one schema across
        the application as compiled (``compose.inline``), so one renderer serves all;
        a ``$defs`` entry whose content differs from the one first named so gets a name
        of its own, and its function a renderer of its own."""
        refs: dict[str, str] = {}
        for schema in schemas:
            defs = schema.get("$defs")
            if isinstance(defs, dict):
                refs.update(self._named(defs))
        if any(self._refs.get(ref, name) != name for ref, name in refs.items()):
            renderer = TypeScript(refs.get)
        else:
            self._refs.update(refs)
            renderer = self._default
        for name in refs.values():
            if name not in self._type_text:
                self._type_text[name] = f"type {name} = {renderer.layout(self._defs[name])};\n"
                self._type_refs[name] = _names_in(self._defs[name], refs)
        return renderer, refs

    def _named(self, defs: dict[str, Any]) -> dict[str, str]:
        """``"#/$defs/<name>"`` -> TypeScript name for one ``$defs`` object (computed once
        per object: the functions reaching the same named schemas share it)."""
        hit = self._keys.get(id(defs))
        if hit is not None and hit[0] is defs:
            return hit[1]  # type: ignore[no-any-return]
        refs = {}
        for def_name, sub in defs.items():
            key = (str(def_name), self._key(sub))
            name = self._names.get(key)
            if name is None:
                name = self._names[key] = self._claim(pascal(str(def_name)))
                self._defs[name] = sub
            refs[f"#/$defs/{def_name}"] = name
        self._keys[id(defs)] = (defs, refs)
        return refs

    def _key(self, schema: Any) -> str:
        """A key equal for equal schemas (canonical JSON, computed once per object)."""
        hit = self._keys.get(id(schema))
        if hit is not None and hit[0] is schema:
            return str(hit[1])
        try:
            key = json.dumps(schema, sort_keys=True, separators=(",", ":"))
        except (TypeError, ValueError, RecursionError):
            key = f"id:{id(schema)}"
        self._keys[id(schema)] = (schema, key)
        return key


def _without_defs(schema: Any) -> Any:
    """A root schema without its ``$defs`` (their entries are named types of their own)."""
    if isinstance(schema, dict) and "$defs" in schema:
        return {k: v for k, v in schema.items() if k != "$defs"}
    return schema


def _names_in(schema: Any, refs: dict[str, str]) -> list[str]:
    """The named types a schema refers to, not following them."""
    schema = _without_defs(schema)
    return list(dict.fromkeys(refs[r] for r in refs_in(schema) if r in refs))


def _doc(function: Function) -> str:
    """The operation's doc comment: summary and description (cut), method and path, what
    the promise resolves to, deprecation."""
    lines = []
    text = function.description.strip()
    where = f"{function.method.upper()} {function.path}"
    if text and text != where:
        first, _, rest = text.partition("\n")
        lines.append(comment(first, _SUMMARY_MAX))
        more = comment(rest, _SUMMARY_MAX) if rest.strip() else ""
        if more:
            lines.append(more)
    lines.append(f"`{function.method.upper()} {comment(function.path, 200)}`")
    if function.deprecated:
        lines.append("@deprecated")
    return "  /**\n" + "".join(f"   * {line}\n" for line in lines) + "   */\n"


def _place(functions: Sequence[Function], claim: Any) -> tuple[Binding, ...]:
    """Each function's namespace and method: the first tag (its interface named once),
    the method name without the tag's prefix, made unique within its namespace.

    Both keep the letters of every script (``api.宠物.获取宠物``, ``api.café``; see
    :func:`~httpllm.codemode.typescript.identifier`): a tag or an operationId in Chinese,
    German or Russian was ``api._``, ``api._2`` ... and told the model nothing. A method
    is named from the function's name, or from its operationId when that holds letters
    the name (``[A-Za-z0-9_-]``, a tool name) lost."""
    interfaces: dict[str, str] = {}
    namespaces: dict[str, str] = {}
    root_taken: set[str] = set()
    for f in functions:
        if f.tags and f.tags[0] not in namespaces:
            wanted = identifier(f.tags[0])
            space = wanted
            n = 1
            while space in root_taken or space == "constructor":
                n += 1
                space = f"{wanted}{n}"
            root_taken.add(space)
            namespaces[f.tags[0]] = space
            interfaces[f.tags[0]] = claim(pascal(f.tags[0]) + "Api")
    methods: dict[str | None, set[str]] = {None: root_taken}
    out = []
    for f in functions:
        tag = f.tags[0] if f.tags else None
        # A tool name keeps [A-Za-z0-9_-] only: an operationId in another script
        # (获取宠物, getCafé) names its method itself, its letters kept as the tag's are.
        raw = f.name if f.operation_id is None or f.operation_id.isascii() else f.operation_id
        if tag is not None:
            for prefix in (f"{tag}_", f"{tag}/", f"{tag}."):
                if raw.startswith(prefix) and len(raw) > len(prefix):
                    raw = raw[len(prefix):]
                    break
        place: str | None = namespaces.get(tag) if tag is not None else None
        taken = methods.setdefault(place, set())
        wanted = identifier(raw)
        method, n = wanted, 1
        while method in taken or method == "constructor":
            n += 1
            method = f"{wanted}{n}"
        taken.add(method)
        out.append(Binding(function=f, namespace=place,
                           interface=interfaces[tag] if tag is not None else "Api",
                           method=method))
    return tuple(out)
