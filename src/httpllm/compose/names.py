"""Function names: from ``operationId`` (else method and path), sanitized, capped, unique.

The rule is the strictest common one, ``^[a-zA-Z_][a-zA-Z0-9_-]{0,63}$``, which every
provider accepts (OpenAI ``^[a-zA-Z0-9_-]{1,64}$``, Gemini must start with a letter or
``_``, Bedrock 1-64; docs/provider-rules.md section 2a). Long names keep a prefix and a
short hash of the whole name, so truncation never makes two names equal and the same
document always gives the same names.
"""

from __future__ import annotations

import hashlib
import re

__all__ = ["NAME_MAX", "NamePool", "function_name", "sanitize"]

NAME_MAX = 64
_INVALID = re.compile(r"[^A-Za-z0-9_-]+")
_PARAM = re.compile(r"\{([^}]*)\}")


def sanitize(raw: str, limit: int = NAME_MAX) -> str:
    """Make ``raw`` a valid function name of at most ``limit`` characters.

    >>> sanitize("repos/get-content.v2")
    'repos_get-content_v2'
    """
    name = _INVALID.sub("_", raw).strip("_") or "operation"
    if not (name[0].isalpha() or name[0] == "_"):
        name = "_" + name
    if len(name) > limit:
        digest = hashlib.sha1(raw.encode("utf-8", "surrogatepass")).hexdigest()[:8]
        keep = limit - len(digest) - 1
        # Too short a limit for a hash: plain truncation (NamePool still makes names unique).
        name = name[:keep].rstrip("_-") + "_" + digest if keep > 0 else name[:limit]
    return name


def function_name(operation_id: str | None, method: str, path: str) -> str:
    """The raw name of an operation before sanitizing: its ``operationId`` or ``get_pets_id``.
    An ``operationId`` with no character a name may hold (``"получить"``) is passed over
    like a missing one: the method and path say more than ``operation``."""
    if isinstance(operation_id, str) and _INVALID.sub("", operation_id):
        return operation_id
    words = _PARAM.sub(lambda m: "by_" + m.group(1), path)
    return f"{method}_{words}"


class NamePool:
    """Hands out unique names in document order: a repeated name gets ``_2``, ``_3`` ..."""

    def __init__(self, limit: int = NAME_MAX) -> None:
        self.limit = limit
        self.taken: set[str] = set()

    def claim(self, raw: str) -> str:
        """A unique sanitized name for ``raw``."""
        name = sanitize(raw, self.limit)
        candidate, i = name, 2
        while candidate.lower() in self.taken:
            suffix = f"_{i}"
            candidate = name[: self.limit - len(suffix)] + suffix
            i += 1
        self.taken.add(candidate.lower())
        return candidate
