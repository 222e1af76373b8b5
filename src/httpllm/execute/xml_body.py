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
  parent) unless ``wrapped: true`` / ``nodeType: element`` (one element holds them); an
  array that is an item of an array, and says no node type, is wrapped (one element
  named as its items holds its own), else ``[[1, 2], [3]]`` would arrive as ``[1, 2, 3]``;
- a string, number or boolean: the element's text (``true``/``false``, JSON numbers,
  OpenAPI Appendix B); ``null``: no node;
- ``attribute: true`` / ``nodeType: attribute``: an attribute of the parent element (an
  object or array value as its JSON text); ``nodeType: text`` or ``cdata``: text of the
  parent (CDATA is written as escaped text, the same characters to any XML parser);
- ``namespace``: an ``xmlns`` (or ``xmlns:prefix``) declaration on the element, whose
  name takes the ``prefix``; a prefix without a namespace is left out (XML would leave
  it unbound), and an unprefixed attribute is in no namespace (Namespaces in XML 1.0);
  an unprefixed attribute named ``xmlns`` would be a declaration, not data: refused. What
  the document names that XML cannot carry (a bad namespace, a prefix bound twice on one
  element, two properties naming one attribute) is settled at compile time, with a loss
  (:mod:`httpllm.compose.xml_object`); what is still left (two keys of the value naming
  one attribute, an element binding one prefix twice) is refused, never overwritten.

xml.etree.ElementTree builds and escapes every name and value; a name that is no XML
name (``a b``, ``x><y``, from a document or an object's key) and a character XML 1.0
cannot carry (U+0000, U+0001 ...) are refused, never written: no value adds markup. A
carriage return in text is written as ``&#13;`` (ElementTree writes it raw, and a parser
reads a raw one as a line feed, XML 1.0 section 2.11); in an attribute ElementTree
already writes ``&#13;``, ``&#10;`` and ``&#09;`` (section 3.3.3 would turn them into
spaces).

A ``content`` parameter of an XML media type (``application/xml`` in a query or header)
is the same document without its XML declaration (:func:`xml_text`), its root named as a
body's, the parameter's name last.

Source: OpenAPI 3.0.3 section 4.7.26, 3.1.1 section 4.8.26 and 3.2.0 XML Object; XML 1.0
(Fifth Edition) sections 2.2 (Char), 2.3 (Name), 2.11 (End-of-Line Handling) and 3.3.3
(Attribute-Value Normalization); Namespaces in XML 1.0 section 3 (NCName) and 3.1
(no element holds two attributes of one expanded name).
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from collections.abc import Mapping
from typing import Any

from httpllm._limits import DEFAULT_LIMITS
from httpllm.compose.xml_object import is_xml_name, is_xml_text
from httpllm.errors import RequestBuildError
from httpllm.execute.serialize import scalar
from httpllm.records import Argument, XmlNode

__all__ = ["xml_bytes", "xml_text"]

_CR = "\ufffe"
"""Stands for a carriage return in text until the document is written, then ``&#13;``:
no Char of XML 1.0 (section 2.2), so no checked value or name holds it."""

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
        RequestBuildError: a name that is no XML name, a character XML cannot carry, two
            values for one attribute, or elements nested deeper than
            ``DEFAULT_LIMITS.value_depth``.
    """
    document: bytes = ET.tostring(_root(argument, value), encoding="utf-8",
                                  xml_declaration=True)
    return document.replace(_CR.encode("utf-8"), b"&#13;")


def xml_text(argument: Argument, value: Any) -> str:
    """The XML text of a ``content`` parameter's value: :func:`xml_bytes`'s document
    without its XML declaration, the root named as a body's root, else by the parameter.

    Raises:
        RequestBuildError: as :func:`xml_bytes`.
    """
    text: str = ET.tostring(_root(argument, value), encoding="unicode")
    return text.replace(_CR, "&#13;")


def _root(argument: Argument, value: Any) -> ET.Element:
    """The root element of ``value``'s document, filled."""
    shape = argument.xml or (_EMPTY,)
    node = shape[0]
    name = node.name or argument.wire_name
    root = ET.Element(_qualified(argument, node, name))
    _declare(argument, root, node)
    stack: list[_Task] = [(root, value, 0, name, 1)]
    while stack:
        element, item, index, inherited, level = stack.pop()
        tasks = _fill(argument, shape, element, item, index, inherited, level)
        stack.extend(reversed(tasks))
    return root


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
    in_array = isinstance(value, (list, tuple))
    for item, child, name in children:
        tasks += _place(argument, shape, element, item, child, name, level, in_array)
    return tasks


def _place(argument: Argument, shape: tuple[XmlNode, ...], parent: ET.Element, value: Any,
           index: int | None, name: str, level: int, in_array: bool = False) -> list[_Task]:
    """One property's or item's node in ``parent``: an element (filled later), an
    attribute, text, or (``none``) its own content placed in ``parent``; an array item
    that is an array, of no node type of its own, an element (its items in it)."""
    if value is None:
        return []
    node = _node(shape, index)
    array = isinstance(value, (list, tuple))
    kind = node.node_type or ("none" if array and not in_array else "element")
    own = node.name or name
    if kind == "attribute":
        namespaced = node.prefix is not None and node.namespace is not None
        if namespaced:
            _bind(argument, parent, node.prefix or "", node.namespace or "")
        if own == "xmlns" and not namespaced:
            raise RequestBuildError(f"argument {argument.name!r}: an attribute named "
                                    "'xmlns' declares a namespace (Namespaces in XML 1.0 "
                                    "section 3): the value would not arrive as data")
        key = _qualified(argument, node, own) if namespaced else _checked(argument, own)
        if key in parent.attrib:
            raise RequestBuildError(f"argument {argument.name!r}: attribute {key!r} is given "
                                    "twice (Namespaces in XML 1.0 section 3.1: an element "
                                    "holds one attribute of a name); give one of them")
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
    """Append a value's text to ``element`` (after its last child: that child's tail); a
    carriage return as :data:`_CR`, written ``&#13;``."""
    if value is None:
        return
    text = _checked_text(argument, scalar(value)).replace("\r", _CR)
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
    if node.prefix is None:
        element.set("xmlns", _checked_text(argument, node.namespace))
    else:
        _bind(argument, element, node.prefix, node.namespace)


def _bind(argument: Argument, element: ET.Element, prefix: str, namespace: str) -> None:
    """Declare ``xmlns:prefix`` on ``element``; a prefix it binds to another namespace
    already is refused, never rebound (the element's name or an attribute would change
    namespace)."""
    key = f"xmlns:{_checked(argument, prefix)}"
    bound = element.get(key)
    if bound is not None and bound != namespace:
        raise RequestBuildError(f"argument {argument.name!r}: prefix {prefix!r} is bound to "
                                f"{bound!r} on this element and cannot also stand for "
                                f"{namespace!r}")
    element.set(key, _checked_text(argument, namespace))


def _checked(argument: Argument, name: str) -> str:
    if not is_xml_name(name):
        raise RequestBuildError(f"argument {argument.name!r}: {name!r} is no XML name "
                                "(XML 1.0 section 2.3: a letter or _ first, then letters, "
                                "digits, - . _; no spaces or markup)")
    return name


def _checked_text(argument: Argument, text: str) -> str:
    bad = is_xml_text(text)
    if bad is not None:
        raise RequestBuildError(f"argument {argument.name!r}: U+{ord(bad):04X} "
                                "cannot be in an XML 1.0 document (section 2.2)")
    return text
