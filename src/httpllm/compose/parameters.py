"""The keyword parameters object: path, query, header and cookie parameters and the body.

Every argument is one property of one object. The request body is one argument, ``body``
(always wrapped, whatever its shape, so a body field can never collide with a parameter
and a union body never sits at the root). A parameter whose name another location
already uses gets the suffix ``__<in>`` (``id__query``): no argument is ever lost.
Transport headers (``Accept``, ``Content-Type``, ``Authorization``: OpenAPI 3.1 section
4.8.12.1 says they are ignored) and security-scheme credentials are not arguments.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from httpllm._types import Location

__all__ = [
    "BODY",
    "DEFAULT_STYLE",
    "IGNORED_HEADERS",
    "LOCATIONS",
    "ParameterSpec",
    "argument_names",
    "pick_media_type",
]

BODY = "body"
LOCATIONS: tuple[Location, ...] = ("path", "query", "header", "cookie")
IGNORED_HEADERS = frozenset({"accept", "content-type", "authorization"})
DEFAULT_STYLE = {"path": "simple", "query": "form", "header": "simple", "cookie": "form"}
_MEDIA_PREFERENCE = (
    "application/json",
    "application/x-www-form-urlencoded",
    "multipart/form-data",
    "text/plain",
    "application/octet-stream",
)


@dataclass(slots=True)
class ParameterSpec:
    """A resolved Parameter Object (or the request body), before naming.

    A component parameter's spec is shared by every operation that lists it: never
    changed once made.

    Attributes:
        examples: the values of its ``example``/``examples`` (or its media type's, or its
            schema's), for tool input examples.
    """

    name: str
    location: Location
    node: dict[str, Any]
    pointer: str
    base: str
    required: bool = False
    schema: Any = None
    media_type: str | None = None
    schema_pointer: str = ""
    examples: list[Any] = field(default_factory=list)
    extra: dict[str, Any] = field(default_factory=dict)


def pick_media_type(content: dict[str, Any]) -> str | None:
    """The media type to use from a Content map: JSON first, then form, multipart, text,
    binary, then the first one listed (``*/*`` counts as JSON-like)."""
    if not content:
        return None
    if len(content) == 1:  # the common case: the only one, whatever it is
        only = next(iter(content))
        if isinstance(only, str):
            return only
    keys = list(content)
    lowered = {k.lower().split(";")[0].strip(): k for k in keys}
    for want in _MEDIA_PREFERENCE:
        if want in lowered:
            return lowered[want]
    for key in keys:
        base = key.lower().split(";")[0].strip()
        if base.endswith(("+json", "/json")) or base in ("*/*", "application/*"):
            return key
    return keys[0]


def argument_names(specs: list[ParameterSpec], has_body: bool) -> list[str]:
    """Names for each parameter: the plain name unless another location uses it first.

    Order of preference: the body keeps ``body``; then path, query, header, cookie.
    """
    plain = [spec.name for spec in specs]
    if len(set(plain)) == len(plain) and not (has_body and BODY in plain):
        return plain  # no collision (the common case)
    taken: set[str] = {BODY} if has_body else set()
    order = sorted(range(len(specs)), key=lambda i: LOCATIONS.index(specs[i].location))
    names = [""] * len(specs)
    for i in order:
        spec = specs[i]
        name = spec.name
        if name in taken:
            name = f"{spec.name}__{spec.location}"
            n = 2
            while name in taken:
                name, n = f"{spec.name}__{spec.location}{n}", n + 1
        taken.add(name)
        names[i] = name
    return names
