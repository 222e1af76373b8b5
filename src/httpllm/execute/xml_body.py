"""Serialize an XML request body: the model's value, by the schema's XML Objects.

The shape (:attr:`httpllm.records.Argument.xml`, read at compile time by
:mod:`httpllm.compose.xml_object`) says, per schema node, its element or attribute name,
namespace, prefix and node type. The value becomes one root element named by the root
node (its XML Object's ``name``, else the ``$ref``'d component's name, else the
argument's name, ``body``), always an element (a document has one root):

- an object: one node per property, named by the property's XML Object ``name`` or the
  property name, in the value's order;
- an array: one node per item, named by the items' XML Object ``name`` or the array's
  name; unwrapped (``nodeType: none``, the default for an array: the items sit in the
  parent) unless ``wrapped: true`` / ``nodeType: element`` (one element holds them);
- a string, number or boolean: the element's text (``true``/``false``, JSON numbers,
  OpenAPI Appendix B); ``null``: no node;
- ``attribute: true`` / ``nodeType: attribute``: an attribute of the parent element (an
  object or array value as its JSON text); ``nodeType: text`` or ``cdata``: text of the
  parent (CDATA is written as escaped text, the same characters to any XML parser);
- ``namespace``: an ``xmlns`` (or ``xmlns:prefix``) declaration on the element, whose
  name takes the ``prefix``; a prefix without a namespace is left out (XML would leave
  it unbound), and an unprefixed attribute is in no namespace (Namespaces in XML 1.0);
  an unprefixed attribute named ``xmlns`` would be a declaration, not data: refused.

xml.etree.ElementTree builds and escapes every name and value; a name that is no XML
name (``a b``, ``x><y``, from a document or an object's key) and a character XML 1.0
cannot carry (U+0000, U+0001 ...) are refused, never written: no value adds markup.

Source: OpenAPI 3.0.3 section 4.7.26, 3.1.1 section 4.8.26 and 3.2.0 XML Object; XML 1.0
(Fifth Edition) section 2.2 (Char) and 2.3 (Name); Namespaces in XML 1.0 section 3 (NCName).
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from collections.abc import Mapping
from typing import Any

from httpllm._limits import DEFAULT_LIMITS
from httpllm.compose.xml_object import is_xml_name
from httpllm.errors import RequestBuildError
from httpllm.execute.serialize import scalar
from httpllm.records import Argument, XmlNode

__all__ = ["xml_bytes"]

_NOT_CHAR = re.compile("[^\t\n\r\u0020-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")
"""A character outside XML 1.0's Char production (section 2.2)."""

_EMPTY = XmlNode()

_Task = tuple[ET.Element, Any, int | None, str, int]
"""Put ``value`` into ``element`` (node index, the name its items inherit, depth)."""


def xml_bytes(argument: Argument, value: Any) -> bytes:
    """The UTF-8 XML document of a body value, with its XML declaration.

    >>> from httpllm.records import Argument, XmlNode
    >>> pet = Argument(name="body", location="body", original=None, required=True,
    ...                schema={}, media_type="application/xml",
    ...                xml=(XmlNode(name="pet", properties={"id": 1}),
    ...                     XmlNode(node_type="attribute")))
    >>> xml_bytes(pet, {"id": 7, "name": "<b>"}).splitlines()[1]
    b'<pet id="7"><name>&lt;b&gt;</name></pet>'

    Raises:
        RequestBuildError: a name that is no XML name, a character XML cannot carry, or
            elements nested deeper than ``DEFAULT_LIMITS.value_depth``.
    """
    shape = argument.xml or (_EMPTY,)
    node = shape[0]
    name = node.name or argument.name
    root = ET.Element(_qualified(argument, node, name))
    _declare(argument, root, node)
    stack: list[_Task] = [(root, value, 0, name, 1)]
    while stack:
        element, item, index, inherited, level = stack.pop()
        tasks = _fill(argument, shape, element, item, index, inherited, level)
        stack.extend(reversed(tasks))
    document: bytes = ET.tostring(root, encoding="utf-8", xml_declaration=True)
    return document


def _fill(argument: Argument, shape: tuple[XmlNode, ...], element: ET.Element, value: Any,
          index: int | None, inherited: str, level: int) -> list[_Task]:
    """Place ``value``'s content in ``element``; the elements it opens, to fill next."""
    node = _node(shape, index)
    if isinstance(value, Mapping):
        children = [(item, node.properties.get(key), key) for key, item in value.items()]
    elif isinstance(value, (list, tuple)):
        children = [(item, node.items, inherited) for item in value]
    else:
        _text(argument, element, value)
        return []
    tasks: list[_Task] = []
    for item, child, name in children:
        tasks += _place(argument, shape, element, item, child, name, level)
    return tasks


def _place(argument: Argument, shape: tuple[XmlNode, ...], parent: ET.Element, value: Any,
           index: int | None, name: str, level: int) -> list[_Task]:
    """One property's or item's node in ``parent``: an element (filled later), an
    attribute, text, or (``none``) its own content placed in ``parent``."""
    if value is None:
        return []
    node = _node(shape, index)
    kind = node.node_type or ("none" if isinstance(value, (list, tuple)) else "element")
    own = node.name or name
    if kind == "attribute":
        namespaced = node.prefix is not None and node.namespace is not None
        if namespaced:
            parent.set(f"xmlns:{_checked(argument, node.prefix or '')}",
                       _checked_text(argument, node.namespace or ""))
        if own == "xmlns" and not namespaced:
            raise RequestBuildError(f"argument {argument.name!r}: an attribute named "
                                    "'xmlns' declares a namespace (Namespaces in XML 1.0 "
                                    "section 3): the value would not arrive as data")
        key = _qualified(argument, node, own) if namespaced else _checked(argument, own)
        parent.set(key, _checked_text(argument, scalar(value)))
        return []
    if kind in ("text", "cdata") or (kind == "none" and not isinstance(
            value, (Mapping, list, tuple))):
        _text(argument, parent, value)
        return []
    if kind == "none":
        return _fill(argument, shape, parent, value, index, own, level)
    if level >= DEFAULT_LIMITS.value_depth:
        raise RequestBuildError(f"argument {argument.name!r}: the XML body nests deeper "
                                f"than {DEFAULT_LIMITS.value_depth} elements")
    child = ET.SubElement(parent, _qualified(argument, node, own))
    _declare(argument, child, node)
    return [(child, value, index, own, level + 1)]


def _node(shape: tuple[XmlNode, ...], index: int | None) -> XmlNode:
    return shape[index] if index is not None and index < len(shape) else _EMPTY


def _text(argument: Argument, element: ET.Element, value: Any) -> None:
    """Append a value's text to ``element`` (after its last child: that child's tail)."""
    if value is None:
        return
    text = _checked_text(argument, scalar(value))
    if len(element):
        last = element[-1]
        last.tail = (last.tail or "") + text
    else:
        element.text = (element.text or "") + text


def _qualified(argument: Argument, node: XmlNode, name: str) -> str:
    """``prefix:name`` when the node has a prefix and a namespace, else ``name``."""
    local = _checked(argument, name)
    if node.prefix is not None and node.namespace is not None:
        return f"{_checked(argument, node.prefix)}:{local}"
    return local


def _declare(argument: Argument, element: ET.Element, node: XmlNode) -> None:
    """The node's namespace declaration on its element (a namespace the document gives
    holding a character XML 1.0 cannot carry is refused, as a value's would be)."""
    if node.namespace is None:
        return
    element.set(f"xmlns:{node.prefix}" if node.prefix is not None else "xmlns",
                _checked_text(argument, node.namespace))


def _checked(argument: Argument, name: str) -> str:
    if not is_xml_name(name):
        raise RequestBuildError(f"argument {argument.name!r}: {name!r} is no XML name "
                                "(XML 1.0 section 2.3: a letter or _ first, then letters, "
                                "digits, - . _; no spaces or markup)")
    return name


def _checked_text(argument: Argument, text: str) -> str:
    bad = _NOT_CHAR.search(text)
    if bad is not None:
        raise RequestBuildError(f"argument {argument.name!r}: U+{ord(bad.group()):04X} "
                                "cannot be in an XML 1.0 document (section 2.2)")
    return text
