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

The walk is iterative, each schema node read once (a recursive schema is a cycle of
indices), and stops past :data:`MAX_XML_NODES` nodes: a property beyond it is an element
named by its property, as with no XML Object.

Source: OpenAPI 3.0.3 section 4.7.26, 3.1.1 section 4.8.26 and 3.2.0 XML Object; RFC 7303
(``application/xml``, ``text/xml``, the ``+xml`` suffix).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from httpllm.errors import HttpllmError
from httpllm.pointer import unescape
from httpllm.records import XmlNode

__all__ = ["MAX_XML_NODES", "NODE_TYPES", "is_xml_name", "xml_shape"]

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


def is_xml_name(text: str) -> bool:
    """Whether ``text`` is an XML name without a colon (Namespaces in XML 1.0 NCName).

    >>> is_xml_name("pet"), is_xml_name("my pet"), is_xml_name("1a")
    (True, False, False)
    """
    return _NCNAME.fullmatch(text) is not None


Report = Callable[[str, Any], None]
"""``report(message, value)``: an XML Object field not carried (:func:`xml_shape`)."""

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
    An XML Object ``name`` or ``prefix`` that is no XML name (``my pet``) is not carried
    (the element is named as without it), each told to ``report``: kept, every call of the
    operation would be refused.

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
    while pending:
        i, node, at = pending.pop()
        read = _read(node, at, resolve)
        properties = {name: child for name, (raw, where) in read.properties.items()
                      if (child := place(raw, where)) is not None}
        items = place(*read.items) if read.items is not None else None
        nodes[i] = _node(read, properties, items, root=i == 0, report=report)
    return tuple(node or XmlNode() for node in nodes)


def _node(read: _Read, properties: dict[str, int], items: int | None, *,
          root: bool, report: Report | None = None) -> XmlNode:
    xml = read.xml
    for key in ("name", "prefix"):
        if isinstance(xml.get(key), str) and xml[key] and not is_xml_name(xml[key]):
            if report is not None:
                report(f"xml.{key} {xml[key]!r} is no XML name (Namespaces in XML 1.0 "
                       "NCName): not carried", xml[key])
            xml = {k: v for k, v in xml.items() if k != key}
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
