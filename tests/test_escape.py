"""The text encoders and the cookie-name rule, against RFC 3986, RFC 6570 and RFC 6265."""

from __future__ import annotations

import pytest

from httpllm._escape import (
    Encoder,
    arrives_as_cookie_name,
    cookie_reserved,
    cookie_text,
    header_text,
    percent,
    reserved,
)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("a b", "a%20b"),
        ("é", "%C3%A9"),
        ("日本", "%E6%97%A5%E6%9C%AC"),
        ("😀", "%F0%9F%98%80"),
        (":/?#[]@!$&'()*+,;=", "%3A%2F%3F%23%5B%5D%40%21%24%26%27%28%29%2A%2B%2C%3B%3D"),
        ("%2F", "%252F"),
        ("AZaz09-._~", "AZaz09-._~"),
        ("..", ".."),
    ],
)
def test_percent_encodes_everything_but_unreserved(text: str, expected: str) -> None:
    """Every UTF-8 byte outside RFC 3986's unreserved set is percent-encoded, in upper case."""
    assert percent(text) == expected


def test_reserved_expansion_keeps_reserved_and_triples() -> None:
    """allowReserved keeps reserved characters and %XX triples but encodes [ ] # & = + and %."""
    assert reserved("a/b:c?d@e!$'()*,;") == "a/b:c?d@e!$'()*,;"
    assert reserved("[x]#y&z=w+v") == "%5Bx%5D%23y%26z%3Dw%2Bv"
    assert reserved("%2F and 100%") == "%2F%20and%20100%25"


def test_header_text_encodes_controls_and_non_ascii_only() -> None:
    """Header values keep printable ASCII and percent-encode CR, LF and non-ASCII characters."""
    assert header_text("a, b=c; d") == "a, b=c; d"
    assert header_text("x\r\nSet-Cookie: y") == "x%0D%0ASet-Cookie: y"
    assert header_text("café") == "caf%C3%A9"


@pytest.mark.parametrize(("name", "encode", "arrives"), [
    ("sid", percent, True), ("a.b_c-d~e", percent, True),
    ("a!b", percent, False), ("a%41", percent, False),
    ("a!b", cookie_reserved, True), ("a%41", cookie_reserved, True),
    ("a%4", cookie_reserved, False), ("a!b", cookie_text, True),
    ("a b", cookie_text, False), ("a;b", cookie_reserved, False), ("", percent, False)])
def test_a_cookie_name_arrives_as_written_only_as_a_token_its_encoder_keeps(
        name: str, encode: Encoder, arrives: bool) -> None:
    """A cookie name arrives as written when it is an RFC 6265 token and its encoder leaves it
    as it is (a receiver never decodes a name): `a!b` percent-encoded is `a%21b`."""
    assert arrives_as_cookie_name(name, encode) is arrives
