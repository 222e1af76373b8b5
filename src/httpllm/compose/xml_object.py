"""Read the XML Objects of an XML request body's schema: how its value becomes XML.

The emended schema a tool and ``validate`` use drops ``xml`` (an OpenAPI-only keyword), so
the body's XML Objects are read here, from the document's schema, once per operation, into
a tuple of :class:`httpllm.records.XmlNode` that ``execute`` serializes the value by
(:mod:`httpllm.execute.xml_body`). For each schema node (``$ref``s followed):

- the XML Object's ``name``, ``namespace``, ``prefix``, and its node type: 3.2's
  ``nodeType``, else ``attribute: true`` (``attribute``) or ``wrapped: true``
  (``element``); a ``$ref``'s own ``xml`` (3.1 siblings) wins key by key over the target's;
- the root element, when no XML Object names it, is named by the schema a ``$ref``
  names (``#/components/schemas/Pet``, ``#/definitions/Pet``, ``#/$defs/Pet``: ``Pet``;
  OpenAPI 3.2.0 XML Object: the root's name is inferred from its component name); any
  other element, by its property;
- properties and items: the node's own, then those of its ``allOf``, ``anyOf`` and
  ``oneOf`` members in order, the first one of each name kept.

What the document says that XML cannot carry is settled here, each told to ``report``
with the loss's action, never left to fail every call: a ``name`` or ``prefix`` that is
no XML name, and a ``namespace`` that is empty, holds a character XML 1.0 cannot carry or
is one of the two XML reserves (not carried); an attribute whose ``prefix`` is bound on the
same element to another namespace (its prefix rewritten to a free one: the attribute's
namespace is what a namespace-aware reader sees); two properties naming the same
attribute of one element (the later one's ``name`` not carried); an array whose items are
arrays without a node type of their own (each inner array is sent wrapped in an element,
:mod:`httpllm.execute.xml_body`: unwrapped, ``[[1, 2], [3]]`` would arrive as ``[1, 2, 3]``).

The walk is iterative, each schema node read once (a recursive schema is a cycle of
indices), and stops past :data:`MAX_XML_NODES` nodes: a property beyond it is an element
named by its property, as with no XML Object.

Source: OpenAPI 3.0.3 section 4.7.26, 3.1.1 section 4.8.26 and 3.2.0 XML Object; RFC 7303
(``application/xml``, ``text/xml``, the ``+xml`` suffix).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any

from httpllm.errors import HttpllmError
from httpllm.loss import Action
from httpllm.pointer import unescape
from httpllm.records import XmlNode

__all__ = ["MAX_XML_NODES", "NODE_TYPES", "is_xml_name", "is_xml_text", "xml_shape"]

MAX_XML_NODES = 4096
"""Schema nodes one body's XML shape reads at most (a bound on compile work for a wide
document; a real body's XML Objects sit on far fewer)."""

NODE_TYPES = frozenset({"element", "attribute", "text", "cdata", "none"})
"""OpenAPI 3.2.0 XML Object ``nodeType`` values."""

_MEMBERS = ("allOf", "anyOf", "oneOf")
_NAMED = ("schemas", "definitions", "$defs")
_MAX_HOPS = 32  # $ref to $ref chains followed per node

_START = ("A-Z_a-z\u00c0-\u00d6\u00d8-\u00f6\u00f8-\u02ff\u0370-\u037d\u037f-\u1fff"
          "\u200c-\u200d\u2070-\u218f\u2c00-\u2fef\u3001-\ud7ff\uf900-\ufdcf\ufdf0-\ufffd"
          "\U00010000-\U000effff")
_NCNAME = re.compile(f"[{_START}][{_START}\\-.0-9\u00b7\u0300-\u036f\u203f-\u2040]*")
"""Namespaces in XML 1.0 NCName: an XML 1.0 Name without a colon."""

_NOT_CHAR = re.compile("[^\t\n\r\u0020-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")
"""A character outside XML 1.0's Char production (section 2.2)."""

_RESERVED_NAMESPACES = frozenset({"http://www.w3.org/XML/1998/namespace",
                                  "http://www.w3.org/2000/xmlns/"})
"""Namespaces no declaration may bind (Namespaces in XML 1.0 section 3: ``xml``'s is bound
to ``xml`` alone, ``xmlns``'s to nothing)."""


def is_xml_name(text: str) -> bool:
    """Whether ``text`` is an XML name without a colon (Namespaces in XML 1.0 NCName).

    >>> is_xml_name("pet"), is_xml_name("my pet"), is_xml_name("1a")
    (True, False, False)
    """
    return _NCNAME.fullmatch(text) is not None


def is_xml_text(text: str) -> str | None:
    r"""The first character of ``text`` XML 1.0 cannot carry (section 2.2, Char), or ``None``.

    >>> is_xml_text("urn:a"), is_xml_text("urn:\x01")
    (None, '\x01')
    """
    bad = _NOT_CHAR.search(text)
    return None if bad is None else bad.group()


Report = Callable[[str, Any, Action], None]
"""``report(message, value, action)``: an XML Object field not carried (``dropped``) or
carried otherwise (``rewritten``) (:func:`xml_shape`)."""

Resolve = Callable[[str, str], tuple[Any, str, str]]
"""``resolve(ref, base) -> (node, base of the node, canonical pointer)``."""


@dataclass(slots=True)
class _Read:
    """One schema node being read: the node and the bases its parts resolve against."""

    xml: dict[str, Any] = field(default_factory=dict)
    name: str | None = None
    properties: dict[str, tuple[Any, str]] = field(default_factory=dict)
    items: tuple[Any, str] | None = None


def xml_shape(schema: Any, base: str, resolve: Resolve, report: Report | None = None
              ) -> tuple[XmlNode, ...]:
    """The XML shape of a body schema: its root node first, each node's children by index.
    What XML cannot carry as the document says it is settled (the module's list), each told
    to ``report``: kept, every call of the operation would be refused, or the value would
    arrive other than given.

    >>> def no_refs(ref, base):
    ...     raise AssertionError(ref)
    >>> pet = {"xml": {"name": "pet"}, "properties": {"id": {"xml": {"attribute": True}}}}
    >>> xml_shape(pet, "", no_refs)[0].name, xml_shape(pet, "", no_refs)[1].node_type
    ('pet', 'attribute')
    """
    index: dict[tuple[int, str], int] = {}
    nodes: list[XmlNode | None] = []
    pending: list[tuple[int, Any, str]] = []

    def place(node: Any, at: str) -> int | None:
        key = (id(node), at)
        if key in index:
            return index[key]
        if len(nodes) >= MAX_XML_NODES or not isinstance(node, dict):
            return None
        index[key] = len(nodes)
        nodes.append(None)
        pending.append((len(nodes) - 1, node, at))
        return len(nodes) - 1

    place(schema, base)
    arrays: set[int] = set()
    while pending:
        i, node, at = pending.pop()
        read = _read(node, at, resolve)
        properties = {name: child for name, (raw, where) in read.properties.items()
                      if (child := place(raw, where)) is not None}
        items = place(*read.items) if read.items is not None else None
        if read.items is not None:
            arrays.add(i)
        nodes[i] = _node(read, properties, items, root=i == 0, report=report)
    return _settled([node or XmlNode() for node in nodes], arrays, report)


def _settled(nodes: list[XmlNode], arrays: set[int], report: Report | None
             ) -> tuple[XmlNode, ...]:
    """``nodes`` with what one element cannot hold as written settled, each told to
    ``report``: an attribute prefix bound to two namespaces on one element gets a free
    prefix (a copy of its node, for that element), and the later of two properties naming
    the same attribute loses its ``name`` (likewise); an array of arrays is reported (the
    build wraps each inner array, :mod:`httpllm.execute.xml_body`)."""
    tell = report or (lambda note, value, action: None)
    taken = {node.prefix for node in nodes if node.prefix is not None}
    for i in range(len(nodes)):
        node = nodes[i]
        if node.items in arrays and nodes[node.items or 0].node_type is None:
            tell("an array whose items are arrays: each inner array is sent wrapped in an "
                 "element named as its items (unwrapped, [[1, 2], [3]] would arrive as "
                 "[1, 2, 3])", node.name, "rewritten")
        bound = {node.prefix: node.namespace} if node.prefix and node.namespace else {}
        seen: dict[tuple[str | None, str], str] = {}
        properties = dict(node.properties)
        for name, k in node.properties.items():
            child = nodes[k]
            if child.node_type != "attribute":
                continue
            if child.prefix and child.namespace and bound.get(
                    child.prefix, child.namespace) != child.namespace:
                fresh = next(f"{child.prefix}{n}" for n in range(1, len(taken) + 2)
                             if f"{child.prefix}{n}" not in taken)
                taken.add(fresh)
                tell(f"xml.prefix {child.prefix!r} of attribute {name!r} is bound to "
                     f"{bound[child.prefix]!r} on the same element: declared as {fresh!r} "
                     f"for {child.namespace!r}", child.prefix, "rewritten")
                child = replace(child, prefix=fresh)
            if child.prefix and child.namespace:
                bound[child.prefix] = child.namespace
            space = child.namespace if child.prefix and child.namespace else None
            other = seen.get((space, child.name or name))
            if other is not None and child.name is not None:
                tell(f"xml.name {child.name!r} of property {name!r} names the attribute "
                     f"property {other!r} names (one element holds one attribute of a "
                     f"name): not carried", child.name, "dropped")
                child = replace(child, name=None)
            seen.setdefault((space, child.name or name), name)
            if child is not nodes[k]:
                properties[name] = len(nodes)
                nodes.append(child)
        if properties != node.properties:
            nodes[i] = replace(node, properties=properties)
    return tuple(nodes)


def _node(read: _Read, properties: dict[str, int], items: int | None, *,
          root: bool, report: Report | None = None) -> XmlNode:
    xml = read.xml
    for key in ("name", "prefix"):
        if isinstance(xml.get(key), str) and xml[key] and not is_xml_name(xml[key]):
            if report is not None:
                report(f"xml.{key} {xml[key]!r} is no XML name (Namespaces in XML 1.0 "
                       "NCName): not carried", xml[key], "dropped")
            xml = {k: v for k, v in xml.items() if k != key}
    why = _bad_namespace(xml.get("namespace"))
    if why is not None:
        if report is not None:
            report(f"xml.namespace {xml['namespace']!r} {why}: not carried (nor its "
                   "prefix)", xml["namespace"], "dropped")
        xml = {k: v for k, v in xml.items() if k not in ("namespace", "prefix")}
    node_type = xml.get("nodeType")
    if node_type not in NODE_TYPES:
        node_type = ("attribute" if xml.get("attribute") is True
                     else "element" if xml.get("wrapped") is True else None)
    name = xml.get("name")
    namespace, prefix = xml.get("namespace"), xml.get("prefix")
    if isinstance(prefix, str) and prefix.lower().startswith("xml"):
        prefix = None  # reserved (Namespaces in XML 1.0 section 3): never declared
    inferred = read.name if root else None  # a property is named by its property
    return XmlNode(name=name if isinstance(name, str) and name else inferred,
                   namespace=namespace if isinstance(namespace, str) and namespace else None,
                   prefix=prefix if isinstance(prefix, str) and prefix else None,
                   node_type=node_type, properties=properties, items=items)


def _bad_namespace(namespace: Any) -> str | None:
    """Why an XML Object ``namespace`` cannot be declared, or ``None`` (absent, or fine)."""
    if namespace is None:
        return None
    if not isinstance(namespace, str) or not namespace:
        return "is no namespace name (Namespaces in XML 1.0 section 2.2: a URI)"
    bad = is_xml_text(namespace)
    if bad is not None:
        return f"holds U+{ord(bad):04X}, which XML 1.0 cannot carry (section 2.2)"
    if namespace in _RESERVED_NAMESPACES:
        return "is reserved (Namespaces in XML 1.0 section 3: no declaration may bind it)"
    return None


def _read(node: dict[str, Any], base: str, resolve: Resolve) -> _Read:
    """The XML Object, inferred name, properties and items of one schema node: its own,
    then its ``$ref`` target's, then its members' (breadth first, each node once)."""
    read = _Read()
    queue: list[tuple[Any, str]] = [(node, base)]
    seen: set[int] = set()
    while queue and len(seen) < MAX_XML_NODES:
        current, at = queue.pop(0)
        hops = 0
        while isinstance(current, dict) and id(current) not in seen and hops <= _MAX_HOPS:
            seen.add(id(current))
            _take(read, current, at)
            queue.extend((member, at) for keyword in _MEMBERS
                         if isinstance(current.get(keyword), list)
                         for member in current[keyword])
            ref = current.get("$ref")
            if not isinstance(ref, str):
                break
            try:
                current, at, pointer = resolve(ref, at)
            except HttpllmError:  # emending already reported it
                break
            if read.name is None:
                read.name = _component_name(pointer)
            hops += 1
    return read


def _take(read: _Read, node: dict[str, Any], base: str) -> None:
    """Add what ``node`` says and ``read`` does not yet hold."""
    xml = node.get("xml")
    if isinstance(xml, dict):
        for key, value in xml.items():
            read.xml.setdefault(key, value)
    properties = node.get("properties")
    if isinstance(properties, dict):
        for name, child in properties.items():
            if isinstance(name, str):
                read.properties.setdefault(name, (child, base))
    items = node.get("items")
    if read.items is None and isinstance(items, dict):
        read.items = (items, base)


def _component_name(pointer: str) -> str | None:
    """``Pet`` for ``#/components/schemas/Pet`` (or ``definitions``, ``$defs``, in any
    file); ``None`` for any other target."""
    tokens = pointer.split("#", 1)[-1].split("/")
    if len(tokens) >= 2 and tokens[-2] in _NAMED and tokens[-1]:
        return unescape(tokens[-1])
    return None
