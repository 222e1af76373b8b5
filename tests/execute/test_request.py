"""Building the HTTP request: server URL, path, query, headers, cookies, files."""

from __future__ import annotations

import re
from typing import Any

import httpx
import pytest

import httpllm
from httpllm.errors import InvalidArguments, RequestBuildError
from httpllm.execute import build_request, validate
from httpllm.records import Server

from .records import API, body, function, param

C25 = function(
    param("path", "id"),
    param("query", "version", {"type": "integer"}),
    body(
        {
            "type": "object",
            "required": ["id", "name"],
            "properties": {
                "id": {"type": "string"},
                "version": {"type": "integer"},
                "name": {"type": "string"},
            },
        }
    ),
    path="/users/{id}",
    method="put",
    name="replaceUser",
)

C17 = function(
    param("query", "city", required=True),
    param("query", "units", {"type": "string", "enum": ["metric", "imperial"]}),
    param("query", "days", {"type": "integer"}),
    path="/weather",
    strict=True,
)


def url_of(fn: Any, args: Any, **kwargs: Any) -> str:
    """The URL `build_request` makes."""
    return str(build_request(fn, args, **kwargs).url)


def test_c25_path_query_and_body_fields_all_round_trip() -> None:
    """C25: path id, query version, body id and body version each land in their own place."""
    args = {"id": "u1", "version": 3, "body": {"id": "u1-b", "version": 7, "name": "A"}}
    request = build_request(C25, args)
    assert request.method == "PUT"
    assert str(request.url) == f"{API}/users/u1?version=3"
    assert request.content == b'{"id":"u1-b","version":7,"name":"A"}'
    assert request.headers["content-type"] == "application/json"


def test_c17_strict_nulls_never_reach_the_query() -> None:
    """C17: in strict mode null optional arguments are left out, never sent as 'null'."""
    url = url_of(C17, '{"city": "Oslo", "units": null, "days": null}')
    assert url == f"{API}/weather?city=Oslo"


def test_null_for_a_nullable_query_parameter_is_left_out() -> None:
    """A null value the schema allows is undefined and produces no query pair."""
    fn = function(param("query", "q", {"type": ["string", "null"]}))
    assert url_of(fn, {"q": None}) == f"{API}/things"


@pytest.mark.parametrize(
    ("value", "segment"),
    [
        ("a b", "a%20b"),
        ("ü/é", "%C3%BC%2F%C3%A9"),
        ("../admin", "..%2Fadmin"),
        ("x?y#z", "x%3Fy%23z"),
        ("%2e%2e", "%252e%252e"),
        ("a;b=c,d", "a%3Bb%3Dc%2Cd"),
        ("...", "..."),
        (42, "42"),
    ],
)
def test_path_values_are_percent_encoded(value: Any, segment: str) -> None:
    """Every reserved character in a path value is encoded, so it stays one segment."""
    fn = function(param("path", "id", {}), path="/users/{id}/x")
    request = build_request(fn, {"id": value})
    assert request.url.raw_path == f"/users/{segment}/x".encode()


@pytest.mark.parametrize("value", ["", ".", "..", [], None])
def test_path_values_that_empty_or_climb_the_path_are_refused(value: Any) -> None:
    """An empty path value or a "."/".." segment raises RequestBuildError."""
    fn = function(param("path", "id"), path="/users/{id}")
    with pytest.raises(RequestBuildError):
        build_request(fn, {"id": value})


def test_label_style_empty_value_is_refused() -> None:
    """A label-style empty string would expand to a "." segment and is refused."""
    fn = function(param("path", "id", style="label"), path="/users/{id}")
    with pytest.raises(RequestBuildError):
        build_request(fn, {"id": ""})


def test_path_styles_expand_in_the_template() -> None:
    """Matrix and label path parameters expand with their prefixes in the template."""
    fn = function(
        param("path", "m", {"type": "array"}, style="matrix", explode=True),
        param("path", "l", {"type": "object"}, style="label"),
        path="/a/{m}/b/{l}",
    )
    url = url_of(fn, {"m": ["x", "y z"], "l": {"R": 1, "G": 2}})
    assert url == f"{API}/a/;m=x;m=y%20z/b/.R,1,G,2"


def test_query_styles_combine_in_parameter_order() -> None:
    """Exploded arrays, deepObject and pipeDelimited parameters join in parameter-map order."""
    fn = function(
        param("query", "ids", {"type": "array"}),
        param("query", "filter", {"type": "object"}, style="deepObject", explode=True),
        param("query", "tags", {"type": "array"}, style="pipeDelimited"),
        param("query", "q"),
    )
    args = {"q": "a b+c", "tags": ["x", "y"], "filter": {"size": 2}, "ids": [1, 2]}
    assert url_of(fn, args) == (
        f"{API}/things?ids=1&ids=2&filter%5Bsize%5D=2&tags=x%7Cy&q=a%20b%2Bc"
    )


def test_allow_reserved_keeps_reserved_characters() -> None:
    """allowReserved sends reserved characters as they are, but still encodes & and #."""
    fn = function(param("query", "path", allow_reserved=True), param("query", "other"))
    assert url_of(fn, {"path": "/a/b?c:d&e#f", "other": "/a"}) == (
        f"{API}/things?path=/a/b?c:d%26e%23f&other=%2Fa"
    )


def test_empty_query_value_without_allow_empty_value_is_refused() -> None:
    """An empty string for a query parameter without allowEmptyValue raises RequestBuildError."""
    with pytest.raises(RequestBuildError, match="allow empty values"):
        build_request(function(param("query", "q")), {"q": ""})


def test_empty_query_value_with_allow_empty_value_is_sent_as_name_equals() -> None:
    """With allowEmptyValue an empty string is sent as `name=`."""
    fn = function(param("query", "q", allow_empty_value=True))
    assert url_of(fn, {"q": ""}) == f"{API}/things?q="


def test_empty_array_in_query_is_left_out() -> None:
    """An empty array is undefined in RFC 6570 and produces no query pair."""
    fn = function(param("query", "ids", {"type": "array"}), param("query", "q"))
    assert url_of(fn, {"ids": [], "q": "x"}) == f"{API}/things?q=x"


def test_content_query_parameter_is_json_then_percent_encoded() -> None:
    """A content-based query parameter is serialized as JSON, then percent-encoded."""
    fn = function(
        param("query", "coordinates", {"type": "object"}, style=None, media_type="application/json")
    )
    assert url_of(fn, {"coordinates": {"lat": 1, "long": 2}}) == (
        f"{API}/things?coordinates=%7B%22lat%22%3A1%2C%22long%22%3A2%7D"
    )


def test_suffixed_argument_names_use_the_original_parameter_name() -> None:
    """An argument renamed to avoid a collision is sent under the parameter's real name."""
    fn = function(param("query", "id__query", original="id"), param("path", "id"), path="/u/{id}")
    assert url_of(fn, {"id": "p", "id__query": "q"}) == f"{API}/u/p?id=q"


def test_headers_are_simple_style_and_cannot_inject() -> None:
    """Header parameters use simple style; CR/LF and non-ASCII are percent-encoded."""
    fn = function(
        param("header", "X-Ids", {"type": "array"}),
        param("header", "X-Note"),
        param("header", "X-Obj", {"type": "object"}, explode=True),
    )
    request = build_request(
        fn, {"X-Ids": [1, 2], "X-Note": "é\r\nEvil: 1", "X-Obj": {"a": 1, "b": 2}}
    )
    assert request.headers["X-Ids"] == "1,2"
    assert request.headers["X-Note"] == "%C3%A9%0D%0AEvil: 1"
    assert request.headers["X-Obj"] == "a=1,b=2"
    assert "Evil" not in request.headers


@pytest.mark.parametrize(("value", "says"), [
    (" a", "does not start or end with a space"),
    ("a ", "does not start or end with a space"),
    ("  ", "does not start or end with a space"),
    ([" a", "b"], "does not start or end with a space"),
    (["", "b"], "list members that are not empty"),
    (["a", " b"], "list members that are not empty"),
])
def test_a_header_value_a_receiver_would_trim_is_refused(value: Any, says: str) -> None:
    """A header field value never starts or ends with a space, and a header list drops
    empty members and the spaces around each `,` (RFC 9110 sections 5.5, 5.6.1): such a
    value was accepted by validate and built, then h11 refused to send it ("Illegal header
    value b' a'") or the receiver read `["b"]` for `["", "b"]`. Validate and build refuse
    it alike."""
    fn = function(param("header", "X-Note", {"type": ["string", "array"]}))
    (error,) = validate(fn, {"X-Note": value}).errors
    assert (error.pointer, error.keyword) == ("#/X-Note", "delimiter")
    assert says in error.expected
    with pytest.raises(RequestBuildError, match=says):
        build_request(fn, {"X-Note": value})


def test_a_header_value_with_inner_spaces_arrives_as_given(live_server: str) -> None:
    """Spaces inside a header value, or inside a list member, are sent and read as they are
    by a server on 127.0.0.1."""
    fn = function(param("header", "X-Note"), param("header", "X-Ids", {"type": "array"}))
    args = {"X-Note": "a  b", "X-Ids": ["c d", "e"]}
    assert validate(fn, args).ok
    request = build_request(fn, args, base_url=live_server)
    seen = dict(httpx.Client().send(request).json()["headers"])
    assert (seen["x-note"], seen["x-ids"]) == ("a  b", "c d,e")


def test_accept_content_type_and_authorization_header_parameters_are_ignored() -> None:
    """Header parameters named Accept, Content-Type or Authorization are ignored."""
    fn = function(param("header", "Accept"), param("header", "Authorization"))
    request = build_request(fn, {"Accept": "text/html", "Authorization": "Bearer model"})
    assert "authorization" not in request.headers
    assert request.headers.get("accept") is None


def test_accept_comes_from_the_success_media_types() -> None:
    """Accept lists the operation's success response media types from function.extra."""
    fn = function(extra={"accept": ["application/json", "application/problem+json"]})
    request = build_request(fn, {})
    assert request.headers["accept"] == "application/json, application/problem+json"


def test_cookies_join_in_one_header() -> None:
    """Cookie parameters become name=value pairs joined by '; ', values percent-encoded."""
    fn = function(
        param("cookie", "session"),
        param("cookie", "ids", {"type": "array"}, explode=False),
        param("cookie", "pref", {"type": "object"}, explode=True),
    )
    request = build_request(fn, {"session": "a b;c", "ids": [1, 2], "pref": {"x": "1"}})
    assert request.headers["cookie"] == "session=a%20b%3Bc; ids=1,2; x=1"


def _function_32(parameter: dict[str, Any], path: str = "/things") -> Any:
    """The function of a 3.2 document whose one operation, at ``path``, takes ``parameter``."""
    document = {
        "openapi": "3.2.0",
        "info": {"title": "t", "version": "1"},
        "servers": [{"url": API}],
        "paths": {path: {"get": {"operationId": "op", "parameters": [parameter],
                                      "responses": {"200": {"description": "ok"}}}}},
    }
    return httpllm.compile(document, provider="3.1").functions[0]


def test_cookie_style_sends_values_unescaped_and_explodes_by_default() -> None:
    """OpenAPI 3.2 `style: cookie` sends the value as given (already escaped: `%2C` stays,
    `!` and spaces too, as the specification's example), explodes by default into
    `; `-joined pairs; a value holding what no cookie value holds as it is (`;`, `,`, CR,
    LF, non-ASCII) is refused by validate and build alike, never escaped into another
    value."""
    greeting = _function_32({"name": "greeting", "in": "cookie", "style": "cookie",
                           "schema": {"type": "string"}})
    request = build_request(greeting, {"greeting": "Hello%2C world!"})
    assert request.headers["cookie"] == "greeting=Hello%2C world!"
    for unescaped, char in (("a;b=c", '";"'), ("a\r\nX: 1", '"\\r"'), ("é", '"é"')):
        with pytest.raises(RequestBuildError, match=f"cookie-safe text .* holds {re.escape(char)}"):
            build_request(greeting, {"greeting": unescaped})
        (error,) = validate(greeting, {"greeting": unescaped}).errors
        assert (error.pointer, error.keyword) == ("#/greeting", "cookie")
    exploded = _function_32({"name": "color", "in": "cookie", "style": "cookie",
                           "schema": {"type": "object"}})
    request = build_request(exploded, {"color": {"R": 100, "G": 200}})
    assert request.headers["cookie"] == "R=100; G=200"
    listed = _function_32({"name": "color", "in": "cookie", "style": "cookie", "explode": False,
                         "schema": {"type": "array", "items": {"type": "string"}}})
    request = build_request(listed, {"color": ["blue", "black"]})
    assert request.headers["cookie"] == "color=blue,black"


def test_cookie_style_list_member_with_a_comma_is_refused() -> None:
    """`style: cookie`, `explode: false` joins members with `,`, which a cookie value cannot
    hold as it is: `["a,b", "c d"]` would be read as three members; validate and build
    refuse it naming the argument (the space passes, as OpenAPI 3.2's example sends one)."""
    listed = _function_32({"name": "color", "in": "cookie", "style": "cookie", "explode": False,
                           "schema": {"type": "array", "items": {"type": "string"}}})
    (error,) = validate(listed, {"color": ["a,b", "c d"]}).errors
    assert error.message.startswith('color: expected cookie-safe text ("a,b" holds ",";')
    with pytest.raises(RequestBuildError, match=r'argument .color.*holds ","'):
        build_request(listed, {"color": ["a,b", "c d"]})
    assert build_request(listed, {"color": ["a%2Cb", "c d"]}).headers["cookie"] == (
        "color=a%2Cb,c d")


@pytest.mark.parametrize("value", [" a", "a ", ["a", " b"], {"k": "v "}])
def test_cookie_style_text_a_receiver_would_trim_is_refused(value: Any) -> None:
    """A cookie's receiver strips the spaces at the ends of every name and value (RFC 6265
    section 5.2): `" a"` arrived as `"a"`, and `"a "` ended the Cookie header in a space
    h11 refuses to send. Validate and build refuse it alike; `style: cookie` sends values
    as given, so the caller escapes it (`%20`)."""
    fn = _function_32({"name": "c", "in": "cookie", "style": "cookie",
                       "schema": {"type": ["string", "array", "object"]}})
    (error,) = validate(fn, {"c": value}).errors
    assert (error.pointer, error.keyword) == ("#/c", "cookie")
    assert error.expected.startswith("cookie text that does not start or end with a space")
    with pytest.raises(RequestBuildError, match="does not start or end with a space"):
        build_request(fn, {"c": value})


def test_cookie_style_exploded_object_keys_must_be_cookie_names() -> None:
    """An exploded `style: cookie` object's keys are cookie names (RFC 6265 tokens): a key
    with a space or `=` is refused."""
    fn = _function_32({"name": "c", "in": "cookie", "style": "cookie",
                       "schema": {"type": "object"}})
    (error,) = validate(fn, {"c": {"a b": "1"}}).errors
    assert "cookie names that are RFC 6265 tokens" in error.expected


@pytest.mark.parametrize("key", ["a b", "a!b", "a=b", ""])
def test_form_cookie_exploded_object_keys_must_arrive_as_written(
        live_server: str, key: str) -> None:
    """An exploded `style: form` cookie object's keys are cookie names, sent percent-encoded:
    `{"a b": "1"}` arrived as a cookie named `a%20b` (`a!b` as `a%21b`), which a receiver
    does not decode (RFC 6265 section 5.2), so validate and build refuse such a key at the
    argument's pointer; a token encoding leaves alone is sent, its value percent-encoded."""
    fn = function(param("cookie", "c", {"type": "object"}))
    (error,) = validate(fn, {"c": {key: "1"}}).errors
    assert (error.pointer, error.keyword) == ("#/c", "cookie")
    assert "cookie names that arrive as written" in error.expected
    with pytest.raises(RequestBuildError, match="cookie names that arrive as written") as raised:
        build_request(fn, {"c": {key: "1"}})
    assert raised.value.pointer == "#/c"
    args = {"c": {"sid": "x y=1"}}
    assert validate(fn, args).ok
    seen = httpx.Client().send(build_request(fn, args, base_url=live_server)).json()
    assert (dict(seen["headers"])["cookie"], seen["cookies"]) == (
        "sid=x%20y%3D1", {"sid": "x%20y%3D1"})


def test_form_cookie_allow_reserved_passes_reserved_cookie_octets_in_openapi_32() -> None:
    """OpenAPI 3.2 applies `allowReserved` to a `style: form` cookie (Appendix D): reserved
    characters a cookie value holds and `%XX` triples pass; `,`, `;` and spaces are still
    encoded. Before 3.2 it applies to the query alone."""
    parameter = {"name": "c", "in": "cookie", "allowReserved": True,
                 "schema": {"type": "string"}}
    fn = _function_32(parameter)
    assert build_request(fn, {"c": "a/b=c%2C, d;"}).headers["cookie"] == "c=a/b=c%2C%2C%20d%3B"
    document = {"openapi": "3.1.0", "info": {"title": "t", "version": "1"},
                "servers": [{"url": API}], "paths": {"/things": {"get": {
                    "operationId": "op", "parameters": [parameter],
                    "responses": {"200": {"description": "ok"}}}}}}
    fn31 = httpllm.compile(document, provider="3.1").functions[0]
    assert build_request(fn31, {"c": "a/b"}).headers["cookie"] == "c=a%2Fb"


def test_querystring_form_follows_the_form_body_rules() -> None:
    """An OpenAPI 3.2 `in: querystring` form parameter is serialized as a form body is: an
    array property one pair per item, an object property JSON text, and its media type's
    Encoding Objects apply (here `explode: false` and `deepObject`)."""
    form = "application/x-www-form-urlencoded"
    schema = {"type": "object", "properties": {
        "tag": {"type": "array", "items": {"type": "string"}},
        "ids": {"type": "array", "items": {"type": "integer"}},
        "near": {"type": "object", "properties": {"lat": {"type": "number"}}},
        "box": {"type": "object", "properties": {"w": {"type": "integer"}}}}}
    encoding = {"ids": {"style": "form", "explode": False}, "box": {"style": "deepObject"}}
    fn = _function_32({"name": "q", "in": "querystring",
                       "content": {form: {"schema": schema, "encoding": encoding}}})
    value = {"tag": ["a b", "c"], "ids": [1, 2], "near": {"lat": 1.5}, "box": {"w": 3}}
    assert url_of(fn, {"q": value}) == (
        f"{API}/things?tag=a%20b&tag=c&ids=1,2&near=%7B%22lat%22%3A1.5%7D&box%5Bw%5D=3")


_NULLABLE_ITEMS = {"type": "object", "properties": {
    "tags": {"type": "array", "items": {"type": ["string", "null"]}},
    "ids": {"type": "array", "items": {"type": ["string", "null"]}}}}


@pytest.mark.parametrize("media_type", ["application/x-www-form-urlencoded",
                                        "multipart/form-data"])
def test_a_null_item_of_a_form_array_is_refused_by_the_build_as_by_validate(
        media_type: str) -> None:
    """A form field or part has no null: validate refused `["a", null]` in a form or
    multipart body, but a call built without it sent `tags=a`, one item short, without a
    word; the build refuses it too, naming the item's pointer. An array with an Encoding
    `style` follows RFC 6570 (null is undefined) in both."""
    fn = function(body(_NULLABLE_ITEMS, media_type, encoding={"ids": {"style": "form"}}),
                  method="post")
    value = {"tags": ["a", None], "ids": ["x", None]}
    assert [e.pointer for e in validate(fn, {"body": value}).errors] == ["#/body/tags/1"]
    with pytest.raises(RequestBuildError, match="is null") as raised:
        build_request(fn, {"body": value})
    assert raised.value.pointer == "#/body/tags/1"
    assert validate(fn, {"body": {"ids": ["x", None]}}).ok
    build_request(fn, {"body": {"ids": ["x", None]}})


def test_a_null_item_of_a_querystring_form_array_is_refused_by_the_build() -> None:
    """An OpenAPI 3.2 form `querystring` is sent as a form body is: a null item of its
    array is refused by the build as by validate, at the item's pointer."""
    fn = _function_32({"name": "q", "in": "querystring", "content": {
        "application/x-www-form-urlencoded": {"schema": _NULLABLE_ITEMS}}})
    value = {"tags": ["a", None]}
    assert [e.pointer for e in validate(fn, {"q": value}).errors] == ["#/q/tags/1"]
    with pytest.raises(RequestBuildError, match="is null") as raised:
        build_request(fn, {"q": value})
    assert raised.value.pointer == "#/q/tags/1"


def test_path_allow_reserved_passes_sub_delims_and_triples_in_openapi_32() -> None:
    """OpenAPI 3.2 applies `allowReserved` to a path value: sub-delimiters, `:`, `@` and
    percent-encoded triples pass (`%2F` as given), `/`, `?`, `#`, `[`, `]` and a lone `%`
    are still encoded, and a segment that decodes to `..` is refused."""
    fn = _function_32({"name": "id", "in": "path", "required": True, "allowReserved": True,
                       "schema": {"type": "string"}}, "/things/{id}")
    assert url_of(fn, {"id": "a:b@c;d=e,f+g%2Fh/i?j#k[l]m%n é"}) == (
        f"{API}/things/a:b@c;d=e,f+g%2Fh%2Fi%3Fj%23k%5Bl%5Dm%25n%20%C3%A9")
    with pytest.raises(RequestBuildError, match="segment"):
        build_request(fn, {"id": "%2e%2E"})


def test_path_allow_reserved_is_ignored_before_openapi_32() -> None:
    """OpenAPI 3.0 and 3.1 apply `allowReserved` to query parameters only."""
    document = {"openapi": "3.1.0", "info": {"title": "t", "version": "1"},
                "servers": [{"url": API}],
                "paths": {"/things/{id}": {"get": {"operationId": "op", "parameters": [
                    {"name": "id", "in": "path", "required": True, "allowReserved": True,
                     "schema": {"type": "string"}}],
                    "responses": {"200": {"description": "ok"}}}}}}
    fn = httpllm.compile(document, provider="3.1").functions[0]
    assert url_of(fn, {"id": "a:b%2F"}) == f"{API}/things/a%3Ab%252F"


def test_server_variables_take_defaults_and_overrides() -> None:
    """Server URL variables use their defaults unless server_variables overrides them."""
    server = Server(
        url="https://{region}.example.com/{version}", variables={"region": "eu", "version": "v1"}
    )
    fn = function(servers=(server,))
    assert url_of(fn, {}) == "https://eu.example.com/v1/things"
    assert url_of(fn, {}, server_variables={"region": "us"}) == "https://us.example.com/v1/things"


def test_base_url_overrides_the_server() -> None:
    """base_url replaces the document's server URL, path prefix included."""
    assert url_of(function(), {}, base_url="http://localhost:8080/api/") == (
        "http://localhost:8080/api/things"
    )


@pytest.mark.parametrize(
    ("servers", "match"),
    [
        ((), "names no server"),
        ((Server(url="/v1"),), "relative"),
        ((Server(url="https://{tenant}.example.com"),), "has no value"),
        ((Server(url="https://x.example.com/?a=1"),), "query or fragment"),
        ((Server(url="https://[::1/v1"),), "is not a URL"),
        ((Server(url="https://[{h}/v1", variables={"h": "x"}),), "is not a URL"),
    ],
)
def test_unusable_server_url_is_a_build_error(servers: tuple[Server, ...], match: str) -> None:
    """No server, a relative one, a variable without a value or a URL urlsplit cannot read
    (an unclosed IPv6 host: ValueError out of execute) raises RequestBuildError."""
    with pytest.raises(RequestBuildError, match=match):
        build_request(function(servers=servers), {})


_REGION = Server(url="https://{region}.example.com:{port}/{base}",
                 variables={"region": "eu", "port": "443", "base": "v1"},
                 enums={"port": ("443", "8443")})


@pytest.mark.parametrize(("name", "value", "refused"), [
    ("region", "us", None), ("region", "evil.example/x", "in the host"),
    ("port", "8443", None), ("port", "80", "(its enum)"),
    ("base", "v2/beta", None), ("base", "v2?x=1", "in the path"),
])
def test_server_value_error_is_the_check_server_url_makes(name: str, value: str,
                                                          refused: str | None) -> None:
    """server_value_error names the value the server URL refuses (its enum, its part of the
    URL) with the message a request built with it raises, and None for a value it takes."""
    from httpllm.execute.request import server_value_error

    problem = server_value_error(_REGION, name, value)
    assert (problem is None) == (refused is None)
    if problem is None:
        build_request(function(servers=(_REGION,)), {}, server_variables={name: value})
        return
    assert refused in problem
    with pytest.raises(RequestBuildError) as caught:
        build_request(function(servers=(_REGION,)), {}, server_variables={name: value})
    assert str(caught.value) == problem


def test_server_value_error_leaves_a_template_that_is_no_url_to_the_document() -> None:
    """A server URL urlsplit cannot read is the document's fault: no value's."""
    from httpllm.execute.request import server_value_error

    assert server_value_error(Server(url="https://[{h}/v1", variables={"h": "x"}), "h", "y") is None


@pytest.mark.parametrize("base_url", ["file:///etc/passwd", "not a url", "ftp://x.example",
                                      "/v1", "https://"])
def test_a_base_url_that_is_not_absolute_http_is_named_as_base_url(base_url: str) -> None:
    """A `base_url` that is not an absolute http(s) URL is refused naming base_url (it was
    told the server URL "is relative; pass base_url=..." though base_url was passed)."""
    with pytest.raises(RequestBuildError) as raised:
        build_request(function(), {}, base_url=base_url)
    assert raised.value.message == (f"base_url {base_url!r} is not an absolute http(s) URL "
                                    "(such as 'https://api.example.com/v1')")


def test_the_model_never_chooses_the_host() -> None:
    """Path values cannot move the request to another host."""
    fn = function(param("path", "p"), path="/{p}")
    for value in ["@evil.example", "//evil.example", "http://evil.example", "\\\\evil"]:
        request = build_request(fn, {"p": value})
        assert request.url.host == "api.example.com"


def test_host_arguments_are_merged_over_the_model_arguments() -> None:
    """host_arguments fill arguments the model does not see, and win over the model's."""
    fn = function(param("query", "tenant"), param("query", "q"))
    url = url_of(fn, {"q": "x", "tenant": "evil"}, host_arguments={"tenant": "acme"})
    assert url == f"{API}/things?tenant=acme&q=x"


def test_text_that_is_not_json_cannot_be_built() -> None:
    """Arguments that are not a JSON object raise InvalidArguments."""
    with pytest.raises(InvalidArguments):
        build_request(function(), "nope")


def test_file_at_a_pointer_becomes_a_multipart_file_part() -> None:
    """files= puts a file at a pointer into the body; it is sent as a multipart file part."""
    schema = {
        "type": "object",
        "properties": {"title": {"type": "string"}, "file": {"type": "string", "format": "binary"}},
    }
    fn = function(body(schema, "multipart/form-data"), method="post")
    request = build_request(
        fn, {"body": {"title": "T"}}, files={"#/body/file": ("a.png", b"\x89PNG", "image/png")}
    )
    boundary = request.headers["content-type"].split("boundary=")[1]
    assert (
        request.content
        == (
            f"--{boundary}\r\n"
            'Content-Disposition: form-data; name="title"\r\n\r\n'
            "T\r\n"
            f"--{boundary}\r\n"
            'Content-Disposition: form-data; name="file"; filename="a.png"\r\n'
            "Content-Type: image/png\r\n\r\n"
        ).encode()
        + b"\x89PNG\r\n"
        + f"--{boundary}--\r\n".encode()
    )


def test_file_for_a_binary_body() -> None:
    """A file at #/body is the whole application/octet-stream body."""
    fn = function(body({"type": "string", "format": "binary"}, "application/octet-stream"))
    request = build_request(fn, {}, files={"#/body": b"\x00\x01"})
    assert request.content == b"\x00\x01"
    assert request.headers["content-type"] == "application/octet-stream"


def test_files_can_be_appended_to_an_array() -> None:
    """A file pointer ending in '-' or the next index appends to an array of files."""
    schema = {"type": "object", "properties": {"files": {"type": "array"}}}
    fn = function(body(schema, "multipart/form-data"))
    request = build_request(
        fn, {"body": {}}, files={"#/body/files/0": b"a", "#/body/files/-": b"b"}
    )
    assert request.content.count(b'name="files"; filename="files"') == 2


@pytest.mark.parametrize(
    "files",
    [{"#": b"x"}, {"#/body/x/5": b"x"}, {"#/body/file": "text"}, {"#/body/file": ("a",)},
     {"#/body/x/\u00b2": b"x"}, {"#/body/x/" + "1" * 5_000: b"x"}],
)
def test_bad_file_arguments_are_build_errors(files: dict[str, Any]) -> None:
    """A file pointer that fits nothing or a value that is no file raises RequestBuildError
    (an index of a superscript digit or of 5,000 digits too: ``int()`` raised ValueError)."""
    fn = function(body({"type": "object"}, "multipart/form-data"))
    with pytest.raises(RequestBuildError):
        build_request(fn, {"body": {"x": []}}, files=files)


def test_the_arguments_given_are_not_mutated_by_files() -> None:
    """Placing files copies the containers on the way; the caller's arguments are untouched."""
    fn = function(body({"type": "object"}, "multipart/form-data"))
    args = {"body": {"title": "t"}}
    build_request(fn, args, files={"#/body/file": b"x"})
    assert args == {"body": {"title": "t"}}


def test_no_body_means_no_content_type() -> None:
    """An optional body left out sends no body and no Content-Type."""
    fn = function(body({"type": "object"}, required=False), method="post")
    request = build_request(fn, {})
    assert request.content == b""
    assert "content-type" not in request.headers


def test_httpx_auth_is_not_applied_by_build_request() -> None:
    """An httpx.Auth passed to build_request is left for execute to hand to the client."""
    fn = function(
        security=({"basic": []},), security_schemes={"basic": {"type": "http", "scheme": "basic"}}
    )
    request = build_request(fn, {}, auth=httpx.BasicAuth("u", "p"))
    assert "authorization" not in request.headers


def test_too_deep_arguments_are_a_build_error() -> None:
    """Arguments nested deeper than `Limits.value_depth` raise RequestBuildError, not
    RecursionError."""
    value: list[Any] = []
    deep = value
    for _ in range(10_000):
        deep.append([])
        deep = deep[0]
    fn = function(body({"type": "array"}))
    with pytest.raises(RequestBuildError, match="nested deeper"):
        build_request(fn, {"body": value})


def test_empty_multipart_body_is_only_the_close_delimiter() -> None:
    """A multipart body with no parts is sent as the close delimiter alone."""
    fn = function(body({"type": "object"}, "multipart/form-data"), method="post")
    request = build_request(fn, {"body": {"skip": None}})
    boundary = request.headers["content-type"].split("boundary=")[1]
    assert request.content == f"--{boundary}--\r\n".encode()


def test_null_for_a_required_nullable_json_body_is_sent_as_null() -> None:
    """A required JSON body whose schema allows null is sent as `null`; an optional one that
    is null is left out."""
    nullable = {"type": ["object", "null"]}
    required = build_request(function(body(nullable), method="post"), {"body": None})
    assert (required.content, required.headers["content-type"]) == (b"null", "application/json")
    optional = build_request(function(body(nullable, required=False), method="post"),
                             {"body": None})
    assert optional.content == b""
    assert "content-type" not in optional.headers


def test_a_parameter_named_empty_is_sent_as_named_even_when_renamed() -> None:
    """A query parameter named `""` (renamed for Claude, whose argument names may not be
    empty) is sent under its own, empty name: `?=e3`."""
    import httpllm

    doc = {"openapi": "3.1.0", "info": {"title": "t", "version": "1"},
           "servers": [{"url": "https://api.example.com"}],
           "paths": {"/a": {"get": {"operationId": "a", "parameters": [
               {"name": "", "in": "query", "schema": {"type": "string"}}],
               "responses": {"200": {"description": "ok"}}}}}}
    for provider in ("chatgpt", "claude"):
        (fn,) = httpllm.compile(doc, provider).functions
        (argument,) = fn.arguments
        assert argument.wire_name == ""
        assert str(build_request(fn, {argument.name: "e3"}).url).endswith("/a?=e3")


def test_a_path_variable_without_a_parameter_is_filled_from_its_argument(
        live_server: str) -> None:
    """A `{vendor_id}` no parameter declares (square's PUT /v2/vendors/{vendor_id}) is a
    required string argument: validate asks for it, and its value reaches a server on
    127.0.0.1 percent-encoded in its segment, as any path parameter's does."""
    doc = {"openapi": "3.1.0", "info": {"title": "t", "version": "1"},
           "servers": [{"url": "https://api.example.com"}],
           "paths": {"/vendors/{vendor_id}": {"put": {
               "operationId": "op", "responses": {"200": {"description": "ok"}}}}}}
    app = httpllm.compile(doc, provider="mcp")
    (error,) = app.validate("op", {}).errors
    assert (error.pointer, error.keyword) == ("#/vendor_id", "required")
    args = {"vendor_id": "v 1/ü"}
    assert app.validate("op", args).ok
    request = build_request(app.function("op"), args, base_url=live_server)
    seen = httpx.Client().send(request).json()
    assert (seen["method"], seen["raw_path"]) == ("PUT", "/vendors/v%201%2F%C3%BC")


def _judged(parameters: list[dict[str, Any]]) -> tuple[Any, Any]:
    """A 3.1 document whose one operation, `op` at /t, takes `parameters`: its function and
    openapi-core's validator for it (the judge of what a server reads)."""
    from openapi_core import Config, OpenAPI

    document = {"openapi": "3.1.0", "info": {"title": "t", "version": "1"},
                "servers": [{"url": API}], "paths": {"/t": {"get": {
                    "operationId": "op", "parameters": parameters,
                    "responses": {"200": {"description": "ok"}}}}}}
    judge = OpenAPI.from_dict(document, config=Config(spec_validator_cls=None))
    return httpllm.compile(document, provider="3.1").functions[0], judge


@pytest.mark.filterwarnings("ignore:Use of allowEmptyValue:DeprecationWarning")
def test_an_empty_array_member_is_an_empty_query_value() -> None:
    """`[""]` (or `["x", ""]` exploded) sends `a=` as `""` does: refused by validate and
    build alike without `allowEmptyValue`, sent (and read by openapi-core) with it."""
    from .fidelity import as_werkzeug

    schema = {"type": "array", "items": {"type": "string"}}
    fn, _ = _judged([{"name": "a", "in": "query", "schema": schema}])
    for value in ([""], ["x", ""]):
        (error,) = validate(fn, {"a": value}).errors
        assert (error.pointer, error.keyword) == ("#/a", "allowEmptyValue")
        assert "would send a=" in error.expected
        with pytest.raises(RequestBuildError, match=r"would be sent empty \(a=\)"):
            build_request(fn, {"a": value})
    assert validate(fn, {"a": ["", ""]}).ok is False  # exploded: a=&a=
    lax, judge = _judged([{"name": "a", "in": "query", "allowEmptyValue": True,
                           "schema": schema}])
    assert validate(lax, {"a": [""]}).ok
    request = build_request(lax, {"a": ["x", ""]})
    assert str(request.url) == f"{API}/t?a=x&a="
    judge.validate_request(as_werkzeug(request))


def test_a_header_member_holding_a_comma_is_refused() -> None:
    """A header array is sent as given, members joined with `,`: `["a,b", "c"]` would reach
    the server as three members (openapi-core reads `a,b,c` so), so validate and build
    refuse it; escaped, `["a%2Cb", "c"]`, it is read as two."""
    from .fidelity import as_werkzeug

    fn, judge = _judged([{"name": "X-H", "in": "header", "schema": {
        "type": "array", "items": {"type": "string"}, "maxItems": 2}}])
    (error,) = validate(fn, {"X-H": ["a,b", "c"]}).errors
    assert (error.pointer, error.keyword) == ("#/X-H", "delimiter")
    assert '"a,b" would be read as two' in error.expected
    with pytest.raises(RequestBuildError, match="argument 'X-H'"):
        build_request(fn, {"X-H": ["a,b", "c"]})
    request = build_request(fn, {"X-H": ["a%2Cb", "c"]})
    judge.validate_request(as_werkzeug(request))


@pytest.mark.parametrize(("parameter", "value"), [
    ({"style": "pipeDelimited", "explode": False}, ["x|y", "z"]),
    ({"style": "spaceDelimited", "explode": False}, ["x y", "z"]),
    ({"explode": False, "allowReserved": True}, ["x,y", "z"]),
])
def test_a_query_member_encoded_as_its_delimiter_is_refused(parameter: dict[str, Any],
                                                            value: list[str]) -> None:
    """A member that, encoded, holds the delimiter its members are joined with (`|` and
    `%7C` alike, a space and `%20`, `,` kept by allowReserved) would be read as two: refused
    by validate and build (OpenAPI 3.2 Appendix E)."""
    fn, _ = _judged([{"name": "a", "in": "query", **parameter,
                      "schema": {"type": "array", "items": {"type": "string"}}}])
    assert [e.keyword for e in validate(fn, {"a": value}).errors] == ["delimiter"]
    with pytest.raises(RequestBuildError, match="would be read as two"):
        build_request(fn, {"a": value})


_AMBIGUOUS = [
    # label exploded: members joined with ".", which no encoding hides
    ("path", "label", {}, {"a.b": "1"}, '"." (the members are joined with "."'),
    ("path", "label", {}, ["1.5", "2"], '"1.5" would be read as two'),
    ("path", "label", {}, {"k": "x.b=y"}, '"x.b=y" would be read as two'),
    # key=value pairs whose key keeps "=" as sent
    ("header", "simple", {}, {"a=b": "1"}, 'key "a=b" would be read as "a"'),
    ("path", "simple", {"allow_reserved": True}, {"a=b": "1"}, 'read as "a"'),
    ("path", "label", {"allow_reserved": True}, {"a=b": "1"}, 'read as "a"'),
    ("path", "matrix", {"allow_reserved": True}, {"a=b": "1"}, 'read as "a"'),
    ("path", "matrix", {"allow_reserved": True}, {"a;b": "1"}, '";" (the members'),
    ("cookie", "form", {"allow_reserved": True}, {"a=b": "1"}, 'read as "a"'),
]


@pytest.mark.parametrize(("where", "style", "extra", "value", "says"), _AMBIGUOUS)
def test_an_exploded_value_the_receiver_cannot_split_back_is_refused(
        where: str, style: str, extra: dict[str, Any], value: Any, says: str) -> None:
    """An exploded value whose member holds, as sent, the separator of its style (`.` of
    label, which percent-encoding keeps; `;` of matrix under allowReserved) or whose
    object key holds the `=` of its `key=value` pairs (a header's, sent as given; a path's
    or cookie's under allowReserved) was sent so that the receiver reads other members:
    validate and build refuse it alike, the build naming the argument's pointer."""
    fn = function(param(where, "a", {"type": ["object", "array"]}, style=style,
                        explode=True, **extra),
                  path="/things/{a}" if where == "path" else "/things")
    (error,) = validate(fn, {"a": value}).errors
    assert (error.pointer, error.keyword) == ("#/a", "delimiter")
    assert says in error.expected
    with pytest.raises(RequestBuildError, match=re.escape(says)) as raised:
        build_request(fn, {"a": value})
    assert raised.value.pointer == "#/a"


@pytest.mark.parametrize(("where", "style", "value", "sent"), [
    ("path", "matrix", {"a;b=c": "x;y"}, "/things/;a%3Bb%3Dc=x%3By"),
    ("path", "label", {"k": "x=y"}, "/things/.k=x%3Dy"),
    ("path", "label", {"a=b": "1"}, "/things/.a%3Db=1"),
    ("path", "label", ["x", "y"], "/things/.x.y"),
    ("query", "form", {"a=b&c;d": "1=2"}, "/things?a%3Db%26c%3Bd=1%3D2"),
    ("cookie", "form", {"sid": "a=b;c"}, "sid=a%3Db%3Bc"),
    ("header", "simple", {"k": "a=b"}, "k=a=b"),
])
def test_an_exploded_value_percent_encoding_keeps_apart_is_sent(
        live_server: str, where: str, style: str, value: Any, sent: str) -> None:
    """What the style's own encoding keeps apart (`=`, `;`, `&` percent-encoded in a path,
    a query or a cookie; a value's `=` after its key's) is no ambiguity: accepted, and a
    server on 127.0.0.1 receives it as built."""
    fn = function(param(where, "a", {"type": ["object", "array"]}, style=style,
                        explode=True),
                  path="/things/{a}" if where == "path" else "/things")
    assert validate(fn, {"a": value}).ok
    seen = httpx.Client().send(build_request(fn, {"a": value}, base_url=live_server)).json()
    got = {"path": seen["raw_path"],
           "query": f"{seen['raw_path']}?{seen['query_string']}",
           "header": dict(seen["headers"]).get("a"),
           "cookie": dict(seen["headers"]).get("cookie")}[where]
    assert got == sent


@pytest.mark.parametrize(("text", "query", "read"), [
    ("a=1&b=2", "a=1&b=2", [("a", "1"), ("b", "2")]),
    ("tag[0]=x y&c=%41+d", "tag%5B0%5D=x%20y&c=%41+d", [("tag[0]", "x y"), ("c", "A d")])])
def test_a_text_plain_querystring_is_the_query_string_as_written(
        live_server: str, text: str, query: str, read: list[tuple[str, str]]) -> None:
    """An OpenAPI 3.2 `in: querystring` parameter of `text/plain` is the query string in a
    format the API defines (section 4.12.7): sent as written, only what a query cannot hold
    (a space, `[ ]`) percent-encoded, and a server reads its pairs; it was encoded whole
    (`?a%3D1%26b%3D2`, one key and no value). JSON stays data, encoded whole."""
    fn = _function_32({"name": "q", "in": "querystring", "required": True,
                       "content": {"text/plain": {"schema": {"type": "string"}}}})
    assert validate(fn, {"q": text}).ok
    request = build_request(fn, {"q": text}, base_url=live_server)
    seen = httpx.Client().send(request).json()["query_string"]
    assert seen == query
    assert httpx.QueryParams(seen).multi_items() == read
    as_json = _function_32({"name": "q", "in": "querystring", "content": {
        "application/json": {"schema": {"type": "string"}}}})
    assert build_request(as_json, {"q": "a=1"}).url.query == b"%22a%3D1%22"


@pytest.mark.parametrize(("where", "style"), [
    ("query", "form"), ("query", "pipeDelimited"), ("header", "simple"), ("path", "simple"),
    ("cookie", "form")])
def test_a_null_item_of_a_parameter_array_is_refused(where: str, style: str) -> None:
    """A `null` item of a parameter array is undefined to RFC 6570 and left out, so
    `["x", null]` was sent as `?a=x` without a word, one item short; validate names the
    item and the build refuses it alike. An array of nothing but nulls sends nothing, as
    `[]` does, and an object's null member is an absent property."""
    items = {"type": ["string", "null"]}
    fn = function(param(where, "a", {"type": "array", "items": items},
                        required=where == "path", style=style),
                  path="/things/{a}" if where == "path" else "/things")
    (error,) = validate(fn, {"a": ["x", None]}).errors
    assert (error.pointer, error.keyword) == ("#/a/1", "null")
    assert "array has no null" in error.expected
    with pytest.raises(RequestBuildError, match="item 1 is null"):
        build_request(fn, {"a": ["x", None]})
    if where != "path":
        assert validate(fn, {"a": [None]}).ok
    exploded = function(param("query", "o", {"type": "object"}))
    assert url_of(exploded, {"o": {"k": None, "j": "1"}}) == f"{API}/things?j=1"


@pytest.mark.parametrize(("path", "value"), [
    ("{p}/x", "@evil.example"),  # the server's host becomes user info
    ("{p}/x", ".evil.example"),  # api.example.com.evil.example
])
def test_a_path_that_moves_the_origin_is_refused_without_the_query_credential(
        path: str, value: str) -> None:
    """A document path without its leading ``/`` and an OpenAPI 3.2 ``allowReserved`` path
    value the model chose move the request off the server: refused, and the message (raised
    to the host, which may log it) names neither the query credential nor the query."""
    fn = function(param("path", "p", allow_reserved=True), path=path,
                  security=({"k": []},),
                  security_schemes={"k": {"type": "apiKey", "in": "query", "name": "api_key"}})
    with pytest.raises(RequestBuildError, match="left the server") as caught:
        build_request(fn, {"p": value}, auth={"k": "HOST-QUERY-KEY-0123"})
    assert "HOST-QUERY-KEY" not in str(caught.value) and "api_key" not in str(caught.value)
