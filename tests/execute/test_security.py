"""Placing credentials by the operation's security requirements."""

from __future__ import annotations

import base64
import json
import re
from typing import Any
from urllib.parse import quote

import pytest

from httpllm.errors import RequestBuildError
from httpllm.execute import build_request
from httpllm.execute.security import credentials

from .records import API, function

SCHEMES: dict[str, Any] = {
    "header_key": {"type": "apiKey", "in": "header", "name": "X-API-Key"},
    "query_key": {"type": "apiKey", "in": "query", "name": "api key"},
    "cookie_key": {"type": "apiKey", "in": "cookie", "name": "sid"},
    "bearer": {"type": "http", "scheme": "Bearer"},
    "basic": {"type": "http", "scheme": "basic"},
    "digest": {"type": "http", "scheme": "digest"},
    "oauth": {"type": "oauth2", "flows": {}},
    "oidc": {"type": "openIdConnect", "openIdConnectUrl": "https://x/.well-known"},
    "mtls": {"type": "mutualTLS"},
    "bad_header": {"type": "apiKey", "in": "header", "name": "X-K\r\nInjected: 1"},
    "bad_cookie": {"type": "apiKey", "in": "cookie", "name": "a b"},
}


def secured(*requirements: dict[str, list[str]]) -> Any:
    """A function with these security requirements over every scheme of SCHEMES."""
    return function(security=requirements, security_schemes=SCHEMES)


@pytest.mark.parametrize(
    ("scheme", "credential", "placement"),
    [
        ("header_key", "k1", ("header", "X-API-Key", "k1")),
        ("query_key", "k2", ("query", "api key", "k2")),
        ("cookie_key", "abc=", ("cookie", "sid", "abc=")),
        ("bearer", "t", ("header", "Authorization", "Bearer t")),
        (
            "basic",
            ("Aladdin", "open sesame"),
            ("header", "Authorization", "Basic QWxhZGRpbjpvcGVuIHNlc2FtZQ=="),
        ),
        ("oauth", "t", ("header", "Authorization", "Bearer t")),
        ("oidc", "t", ("header", "Authorization", "Bearer t")),
    ],
)
def test_each_scheme_type_places_its_credential(
    scheme: str, credential: Any, placement: tuple[str, str, str]
) -> None:
    """apiKey, http bearer/basic, oauth2 and openIdConnect put the credential where they say."""
    assert credentials(secured({scheme: []}), {scheme: credential}) == [placement]


def test_credentials_land_in_the_request() -> None:
    """Header, query and cookie credentials appear in the built request, encoded as needed."""
    fn = secured({"header_key": [], "query_key": [], "cookie_key": []})
    auth = {"header_key": "h", "query_key": "q/1", "cookie_key": "c1"}
    request = build_request(fn, {}, auth=auth)
    assert str(request.url) == f"{API}/things?api%20key=q%2F1"
    assert request.headers["x-api-key"] == "h"
    assert request.headers["cookie"] == "sid=c1"


def test_only_schemes_of_the_requirements_are_applied() -> None:
    """Credentials for schemes the operation does not name are never sent."""
    fn = secured({"bearer": []})
    assert credentials(fn, {"bearer": "t", "header_key": "k"}) == [
        ("header", "Authorization", "Bearer t")
    ]


def test_the_first_satisfied_requirement_wins() -> None:
    """Requirements are alternatives; the first one fully covered by auth is applied."""
    fn = secured({"header_key": [], "query_key": []}, {"bearer": []})
    assert credentials(fn, {"header_key": "k", "bearer": "t"}) == [
        ("header", "Authorization", "Bearer t")
    ]


def test_no_security_means_no_credentials() -> None:
    """An operation without security requirements gets no credentials even if auth has some."""
    assert credentials(secured(), {"bearer": "t"}) == []


def test_optional_security_sends_nothing_when_not_satisfied() -> None:
    """With an empty requirement {}, unmatched credentials are fine and nothing is sent."""
    assert credentials(secured({"bearer": []}, {}), {"basic": ("u", "p")}) == []


def test_unsatisfied_requirement_is_a_build_error() -> None:
    """Credentials that satisfy no requirement of a secured operation raise RequestBuildError."""
    with pytest.raises(RequestBuildError, match=r'one of: "bearer" .*; "basic" '):
        credentials(secured({"bearer": []}, {"basic": []}), {"header_key": "k"})


@pytest.mark.parametrize(
    ("scheme", "credential", "match"),
    [
        ("digest", "x", "needs an httpx.Auth"),
        ("mtls", "x", "cannot be applied"),
        ("basic", "user:pass", "must be \\(user, password\\)"),
        ("bearer", "t\r\nX: y", "without CR, LF"),
        # None was told "must be a string without CR, LF or NUL"
        ("header_key", None, r"^credential for 'header_key' must be a string, got None$"),
        ("bearer", 5, r"must be a string, got int$"),
        ("cookie_key", "a;b", "not a valid cookie value"),
        ("bad_header", "k", r"header name 'X-K\\r\\nInjected: 1' is not an RFC 9110 token"),
        ("bad_cookie", "k", "cookie name 'a b' is not an RFC 9110 token"),
    ],
)
def test_unusable_credentials_are_build_errors(scheme: str, credential: Any, match: str) -> None:
    """Schemes that need more than a request header, and malformed credentials, are refused."""
    with pytest.raises(RequestBuildError, match=match):
        credentials(secured({scheme: []}), {scheme: credential})


def test_undefined_scheme_is_a_build_error() -> None:
    """A requirement naming a scheme the document does not define raises RequestBuildError."""
    fn = function(security=({"ghost": []},))
    with pytest.raises(RequestBuildError, match="not defined"):
        credentials(fn, {"ghost": "x"})


def test_secrets_of_reads_credential_headers_too() -> None:
    """Header values whose names speak of credentials are secrets, a scheme's token alone
    too; other headers are not."""
    from httpllm.execute.security import secrets_of

    found = secrets_of({"k": "key-1234567"}, {"Authorization": "Bearer tok-98765",
                                              "X-Session": "s3ss10n", "Accept": "text/plain"})
    assert {"key-1234567", "Bearer tok-98765", "tok-98765", "s3ss10n"} <= set(found)
    assert "text/plain" not in found


@pytest.mark.parametrize(("text", "secrets", "expected"), [
    ("key=sekrit-123&x=1", ["sekrit-123"], "key=[redacted]&x=1"),
    ("xxsekrit-123yy", ["sekrit-123"], "xx[redacted]yy"),  # long: replaced anywhere
    ("key=ab&about=1&tab", ["ab"], "key=[redacted]&about=1&tab"),  # short: alone only
    ('{"token":"q1"}', ["q1"], '{"token":"[redacted]"}'),
    # short: a hyphen or underscore joins it to a word (issue 26: `--auth apiKey=x`)
    ('{"note":"x-ray of x_id","key":"x"}', ["x"], '{"note":"x-ray of x_id","key":"[redacted]"}'),
    ("X-Api-Key: x\nkey=x&q=x-ray", ["x"], "X-Api-Key: [redacted]\nkey=[redacted]&q=x-ray"),
    ("no secret here", [], "no secret here"),
])
def test_redact_masks_long_secrets_anywhere_and_short_ones_alone(
        text: str, secrets: list[str], expected: str) -> None:
    """A short secret (under 4 characters) is masked only where no letter, digit, hyphen
    or underscore touches it, so ordinary words survive; a longer one wherever it occurs."""
    from httpllm.execute.security import redact

    assert redact(text, secrets) == expected


SECRET = 'k"e\\y/ 1+é'
"""A credential whose every encoding differs from it."""


@pytest.mark.parametrize("echoed", [
    SECRET,
    json.dumps(SECRET)[1:-1],  # JSON-escaped, non-ASCII kept
    json.dumps(SECRET, ensure_ascii=True)[1:-1],  # \\u00e9
    json.dumps(SECRET).replace('\\"', "\\u0022")[1:-1],  # another JSON spelling of "
    json.dumps(json.dumps(SECRET)[1:-1])[1:-1],  # JSON text inside a JSON string
    "k%22e%5Cy%2F%201%2B%C3%A9",  # percent-encoded, upper-case hex
    "k%22e%5cy%2f+1%2b%c3%a9",  # lower-case hex, + for the space
    "k%22e%5Cy/ 1+%C3%A9",  # some characters encoded, some not
    "k&quot;e\\y/ 1+é",  # HTML-escaped
    "k&#x22;e&#x5C;y&#x2F;&#x20;1&#x2B;&#xE9;",  # HTML hex references, upper case (OWASP)
    "k&#034;e&#092;y&#047;&#032;1&#043;&#233;",  # decimal, zero-padded (PHP's &#039;)
    "k%2522e%255Cy%252F%25201%252B%25C3%25A9",  # percent-encoded twice (a next= URL)
    "k%2522e%255cy%252f%25201%252b%25c3%25a9",
])
def test_redact_finds_a_secret_in_every_encoding(echoed: str) -> None:
    """A secret is masked however an API echoes it: raw, JSON-escaped (once or twice),
    percent-encoded (once or twice, either case, + for space, mixed), HTML-escaped (named,
    decimal or hex references, either case, zero-padded)."""
    from httpllm.execute.security import redact

    assert redact(f"<{echoed}>", [SECRET]) == "<[redacted]>"


@pytest.mark.parametrize("echoed", [
    SECRET, json.dumps(SECRET)[1:-1], json.dumps(SECRET, ensure_ascii=True)[1:-1],
    json.dumps(json.dumps(SECRET)[1:-1])[1:-1], "k%22e%5Cy%2F%201%2B%C3%A9",
    "k%22e%5cy%2f+1%2b%c3%a9", "k&quot;e\\y/ 1+é", "k&#x22;e&#x5C;y&#x2F;&#x20;1&#x2B;&#xE9;",
    "k&#034;e&#092;y&#047;&#032;1&#043;&#233;", "k%2522e%255cy%252f%25201%252b%25c3%25a9"])
def test_a_text_cut_inside_a_secret_shows_none_of_its_start(echoed: str) -> None:
    """An answer cut at the byte limit may end inside a secret, in any of its encodings and
    inside one escape of it (``%2`` of ``%2F``): with ``cut=True`` that start is masked,
    however few characters of it there are; a text whose end begins none is kept."""
    from httpllm.execute.security import redact

    for end in range(1, len(echoed)):
        assert redact(f"pad <{echoed[:end]}", [SECRET], cut=True) == "pad <[redacted]"
    assert redact(f"pad <{echoed}> and k", [SECRET], cut=True) == (
        "pad <[redacted]> and [redacted]")
    assert redact("pad <x", [SECRET], cut=True) == "pad <x"
    assert redact(f"pad <{echoed[:3]}", [SECRET]) == f"pad <{echoed[:3]}"  # not cut: kept


TOKEN = "s3cr3t-TOKEN/+=xyz"
"""A key long enough to be masked in its byte encodings too (:data:`ENCODED_FROM`)."""


def _b64(data: bytes, url: bool = False) -> str:
    return (base64.urlsafe_b64encode if url else base64.b64encode)(data).decode()


@pytest.mark.parametrize("echoed", [
    _b64(TOKEN.encode()), _b64(TOKEN.encode(), url=True).rstrip("="),  # as an echo encodes it
    TOKEN.encode().hex(), TOKEN.encode().hex().upper(),
    quote(_b64(TOKEN.encode()), safe=""),  # base64 in a URL
    *(_b64(b"X-Api-Key: "[:n] + TOKEN.encode() + b"\r\n"[:m], url=url)  # inside a longer text
      for n in range(3) for m in range(3) for url in (False, True)),
])
def test_redact_finds_a_secret_in_its_byte_encodings(echoed: str) -> None:
    """An API that echoes the request base64- or hex-encoded (a debugging endpoint, a
    signed copy of it) gave the model the key to decode (found by a fresh tester, code mode
    printing `atob` of an echo): the base64 (either alphabet, at each of the three byte
    offsets a key takes in a longer encoded text) and the hex of a key of 8 characters or
    more are masked, in the plain forms of each (percent-encoded ...); the few base64 digits
    shared with the bytes beside it may stay. A short key's encodings are not: they occur
    by chance in any base64 body."""
    from httpllm.execute.security import redact

    masked = redact(f"<{echoed}>", [TOKEN])
    assert "[redacted]" in masked
    # what stays: the digits of the bytes beside the key (and the ones shared with them)
    assert max(map(len, re.split(r"\[redacted\]|[<>=]", masked))) <= 4
    short = _b64(b"ab3!")
    assert redact(f"<{short}>", ["ab3!"]) == f"<{short}>"


def test_a_text_cut_inside_an_encoded_secret_shows_none_of_its_start() -> None:
    """A cut inside the base64 of a key masks its start, as inside the key itself."""
    from httpllm.execute.security import redact

    echoed = _b64(TOKEN.encode())
    for end in range(1, len(echoed)):
        assert redact(f"pad <{echoed[:end]}", [TOKEN], cut=True) == "pad <[redacted]"


def test_secrets_of_gives_the_forms_a_scheme_puts_on_the_wire() -> None:
    """Basic gives its password, user:password and the base64 token (also URL-safe); a
    bearer header gives the token alone; a Basic header value gives its password."""
    from httpllm.execute.security import redact, secrets_of

    found = secrets_of({"basic": ("ann", "s3cret??>")}, {"Authorization": "Bearer t0ken-1",
                                                          "X-Other": "Basic YW5uOnB3ZA=="})
    assert {"s3cret??>", "ann:s3cret??>", "YW5uOnMzY3JldD8_Pg", "YW5uOnMzY3JldD8/Pg",
            "t0ken-1", "pwd"} <= set(found)
    assert redact("Authorization: Basic YW5uOnMzY3JldD8/Pg==", found) == \
        "Authorization: Basic [redacted]=="


def test_redact_json_masks_keys_and_values_and_keeps_what_is_clean() -> None:
    """Every string and key of a JSON value is masked; a value with no secret is returned
    as the same object."""
    from httpllm.execute.security import redact_json

    clean = {"a": [1, "b"]}
    assert redact_json(clean, ["s3cret-1"]) is clean
    assert redact_json({"s3cret-1": ["x s3cret-1"]}, ["s3cret-1"]) == {
        "[redacted]": ["x [redacted]"]}


@pytest.mark.parametrize("secrets", [
    ["ABCDEFGHIJ", "ABCDEFGHIJKLMNOP"], ["ABCDEFGHIJKLMNOP", "ABCDEFGHIJ"],  # a prefix
    ["ABCDEFGHIJ", "HIJKLMNOPQ"], ["HIJKLMNOPQ", "ABCDEFGHIJ"],  # overlapping
], ids=["prefix", "prefix-reversed", "overlap", "overlap-reversed"])
def test_overlapping_secrets_leave_no_part_of_either(secrets: list[str]) -> None:
    """Two secrets, one a prefix of the other or one beginning inside the other, are
    masked as one: no character of either stays shown, whatever the order given."""
    from httpllm.execute.security import redact

    text = "<" + max(secrets, key=len) if secrets[0][0] == secrets[1][0] else (
        "<ABCDEFGHIJKLMNOPQ")
    assert redact(f"{text}>", secrets) == "<[redacted]>"


def test_a_secret_that_begins_inside_another_secrets_base64_is_masked_whole() -> None:
    """A secret whose text begins before the base64 of another and runs into it (or lies
    inside it) is masked with it: neither its head nor the rest of the base64 is shown."""
    from httpllm.execute.security import redact

    encoded = _b64(TOKEN.encode()).rstrip("=")
    head = "QQQQQQ" + encoded[:5]  # 11 characters, its last 5 those of the base64
    assert redact(f"<QQQQQQ{encoded}>", [TOKEN, head]) == "<[redacted]>"
    assert redact(f"<QQQQQQ{encoded}>", [head, TOKEN]) == "<[redacted]>"
    inside = encoded[4:14]
    assert redact(f"<{encoded}>", [inside, TOKEN]) == "<[redacted]>"


def test_a_cut_inside_a_secret_that_overlaps_another_shows_none_of_it() -> None:
    """An answer cut inside the second of two overlapping secrets (the first whole, the
    second begun inside it) shows neither: the cut end is sought in the text as it came,
    not after the first was masked; cut anywhere in them, nothing of either is shown."""
    from httpllm.execute.security import redact

    secrets, text = ["ABCDEFGHIJ", "HIJKLMNOPQ"], "ABCDEFGHIJKLMNOPQ"
    for end in range(1, len(text)):
        assert redact(f"pad <{text[:end]}", secrets, cut=True) == "pad <[redacted]"


def test_redact_masks_many_secrets_in_every_form_as_few_do() -> None:
    """Thirty secrets (letters and digits, punctuation only) are each masked in every form
    (raw, percent-encoded, base64 at each offset, hex) in one text, as each alone is."""
    import random
    import string

    from httpllm.execute.security import redact

    rng = random.Random(3)
    secrets = ["".join(rng.choice(alphabet) for _ in range(12))
               for alphabet in (string.ascii_letters + string.digits, string.punctuation)
               for _ in range(15)]
    forms = [form for secret in secrets for form in (
        secret, quote(secret, safe=""), *(_b64(b"xy"[:n] + secret.encode())[n + 1:]
                                           for n in range(3)), secret.encode().hex())]
    text = " | ".join(forms)
    alone = " | ".join(redact(form, [secret]) for secret in secrets for form in (
        secret, quote(secret, safe=""), *(_b64(b"xy"[:n] + secret.encode())[n + 1:]
                                           for n in range(3)), secret.encode().hex()))
    masked = redact(text, secrets)
    assert masked == alone
    assert not any(secret in masked for secret in secrets)
