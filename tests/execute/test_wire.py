"""One argument on the wire: the rules compose and the wire share agree."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from httpllm.compose.operation import _cookie_name_loss
from httpllm.errors import SpecError
from httpllm.execute.wire import cookie_unescaped
from httpllm.records import Argument

_NAMES = st.text(max_size=6) | st.text("aZ09!#$%&'*+-.^_`|~ ;=,\"/()é", max_size=6)


def _compose_keeps(name: str, style: str | None) -> bool:
    node = {"name": name, "in": "cookie", "schema": {}, **({"style": style} if style else {})}
    try:
        return _cookie_name_loss(node, name, "#/p") is None
    except SpecError:  # pragma: no cover - an optional parameter is never an error
        return False


@settings(max_examples=300)
@given(_NAMES, st.sampled_from(["form", "cookie"]))
def test_a_cookie_name_compose_drops_is_a_key_the_wire_refuses(name: str, style: str) -> None:
    """A name compose drops as a cookie parameter's (it would not arrive as written) is the
    name the wire refuses as an exploded cookie object's key, in the same style, and only
    that: one rule for both."""
    argument = Argument(name="c", location="cookie", original="c", required=False,
                        schema={}, style=style, explode=True)
    refused = cookie_unescaped(argument, {name: "x"}) is not None
    assert _compose_keeps(name, None if style == "form" else style) is not refused
