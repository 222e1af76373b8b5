"""Media type names: the one place a ``Content-Type``'s essence is read.

Source: RFC 9110 section 8.3.1 (``type/subtype`` then ``;`` parameters, case-insensitive);
RFC 7303 (``application/xml``, ``text/xml``, the ``+xml`` suffix); RFC 8259 section 11 and
RFC 6839 section 3.1 (``application/json``, the ``+json`` suffix).
"""

from __future__ import annotations

__all__ = ["FORM", "essence", "is_json", "is_xml"]

FORM = "application/x-www-form-urlencoded"
"""The form media type (OpenAPI's default for a Swagger 2.0 ``formData`` body and a 3.2
``querystring`` without ``content``)."""


def essence(media_type: str) -> str:
    """``type/subtype`` of a media type, lower case, without parameters.

    >>> essence("Application/JSON; charset=utf-8")
    'application/json'
    """
    return media_type.split(";", 1)[0].strip().lower()


def is_json(media_type: str) -> bool:
    """``application/json`` or a ``+json`` structured syntax suffix (RFC 6839 section 3.1).

    >>> is_json("application/problem+json; charset=utf-8"), is_json("text/json")
    (True, False)
    """
    found = essence(media_type)
    return found == "application/json" or found.endswith("+json")


def is_xml(media_type: str) -> bool:
    """``application/xml``, ``text/xml`` or a ``+xml`` structured syntax suffix (RFC 7303).

    >>> is_xml("application/atom+xml; charset=utf-8"), is_xml("application/json")
    (True, False)
    """
    found = essence(media_type)
    return found in ("application/xml", "text/xml") or found.endswith("+xml")
