"""Each Swagger 2.0 -> OpenAPI 3.0 rule, on small inputs."""

from __future__ import annotations

from typing import Any

import httpx
import pytest

import httpllm
from httpllm.upgrade import swagger2
from httpllm.upgrade._record import Note
from httpllm.upgrade.swagger2 import TAB_DELIMITED, Context


def ctx(root: dict[str, Any] | None = None, **kw: Any) -> Context:
    return Context(root=root or {}, **kw)


@pytest.mark.parametrize(
    ("fmt", "where", "expected"),
    [
        (None, "query", {"style": "form", "explode": False}),
        ("csv", "path", {"style": "simple", "explode": False}),
        ("ssv", "query", {"style": "spaceDelimited", "explode": False}),
        ("tsv", "query", {"style": TAB_DELIMITED, "explode": False}),
        ("pipes", "query", {"style": "pipeDelimited", "explode": False}),
        ("multi", "query", {"style": "form", "explode": True}),
    ],
)
def test_collection_format_to_style(fmt: str | None, where: str, expected: dict[str, Any]) -> None:
    """Each collectionFormat (csv by default) maps to a style and explode of its location."""
    param = {"type": "array", "items": {"type": "string"},
             **({"collectionFormat": fmt} if fmt else {})}
    c = ctx()
    assert swagger2.collection_format(param, where, c, "#/p") == expected
    assert c.tally[f"collection_format:{fmt or 'csv'}"] == 1


def test_collection_format_without_equivalent_is_noted() -> None:
    """multi in a path or a header (2.0 allows it in the query and a form only) has no
    form: comma-joined, with a note at the original pointer."""
    for where in ("path", "header"):
        c = ctx()
        param = {"type": "array", "collectionFormat": "multi"}
        assert swagger2.collection_format(param, where, c, "#/p") == {"style": "simple",
                                                                       "explode": False}
        assert c.notes == [Note("#/p/collectionFormat", c.notes[0].message)]


@pytest.mark.parametrize(("fmt", "style"), [
    ("ssv", "spaceDelimited"), ("pipes", "pipeDelimited"), ("tsv", swagger2.TAB_DELIMITED)])
def test_delimited_collection_formats_apply_to_every_location(fmt: str, style: str) -> None:
    """ssv, pipes and tsv apply to path and header parameters too (OpenAPI 2.0
    `collectionFormat`): their delimited style, with no note."""
    for where in ("query", "formData", "path", "header"):
        c = ctx()
        param = {"type": "array", "collectionFormat": fmt}
        assert swagger2.collection_format(param, where, c, "#/p") == {"style": style,
                                                                       "explode": False}
        assert c.notes == []


def test_parameter_keywords_move_into_schema() -> None:
    """A query parameter's type, default and items go under schema; allowEmptyValue stays;
    x-example becomes example."""
    param = {"name": "q", "in": "query", "type": "array", "items": {"type": "integer"},
             "default": [1], "allowEmptyValue": True, "x-example": [2]}
    c = ctx()
    assert swagger2.parameter(param, c, "#/parameters/q") == {
        "name": "q", "in": "query", "schema": {"type": "array", "default": [1],
                                               "items": {"type": "integer"}},
        "style": "form", "explode": False, "example": [2], "allowEmptyValue": True}
    assert c.tally["default"] == c.tally["allow_empty_value"] == c.tally["x_example"] == 1


def test_body_parameter_becomes_request_body() -> None:
    """in: body becomes a request body with one media type per consumes entry."""
    param = {"name": "pet", "in": "body", "required": True, "schema": {"type": "object"}}
    out = swagger2.body(param, ["application/json", "application/xml"], ctx(), "#/a", "#/b")
    assert out == {"content": {"application/json": {"schema": {"type": "object"}},
                               "application/xml": {"schema": {"type": "object"}}},
                   "required": True, "x-codegen-request-body-name": "pet"}


def test_a_second_body_parameter_is_noted_not_silent() -> None:
    """2.0 allows one body parameter ("There can be one 'body' parameter at most"): of two
    in one list the later is kept and the earlier noted at its pointer (it vanished, its
    schema with it, without a word); an operation's body overriding its path item's of the
    same name is the override rule, not a loss."""
    def doc(item_params: list[Any], op_params: list[Any]) -> dict[str, Any]:
        return {"swagger": "2.0", "info": {"title": "t", "version": "1"}, "paths": {"/a": {
            "parameters": item_params, "put": {"parameters": op_params, "responses": {
                "200": {"description": "ok"}}}}}}

    first = {"name": "pet", "in": "body", "schema": {"type": "object"}}
    second = {"name": "raw", "in": "body", "schema": {"type": "string"}}
    root = doc([], [first, second])
    c = ctx(root)
    body = swagger2.convert(root, c)["paths"]["/a"]["put"]["requestBody"]
    assert body["content"]["application/json"]["schema"] == {"type": "string"}
    assert [n.pointer for n in c.notes] == ["#/paths/~1a/put/parameters/0"]
    assert "#/paths/~1a/put/parameters/1" in c.notes[0].message
    root = doc([first], [{**first, "schema": {"type": "integer"}}])
    c = ctx(root)
    swagger2.convert(root, c)
    assert c.notes == []


def test_form_data_with_file_is_multipart() -> None:
    """formData parameters become an object schema; a file makes it multipart."""
    params = [({"name": "f", "in": "formData", "type": "file", "required": True}, "#/0"),
              ({"name": "tags", "in": "formData", "type": "array", "items": {"type": "string"},
                "collectionFormat": "pipes"}, "#/1")]
    out = swagger2.form_data(params, ["application/x-www-form-urlencoded"], ctx(), "#/rb")
    media = out["content"]["multipart/form-data"]
    assert media["schema"]["properties"]["f"] == {"type": "file"}  # node rules run later
    assert media["schema"]["required"] == ["f"]
    assert media["encoding"] == {"tags": {"style": "pipeDelimited", "explode": False}}


def test_form_data_without_file_is_urlencoded() -> None:
    """formData without a file and without consumes is application/x-www-form-urlencoded."""
    params = [({"name": "a", "in": "formData", "type": "string"}, "#/0")]
    assert list(swagger2.form_data(params, ["application/json"], ctx(), "#/rb")["content"]) == [
        "application/x-www-form-urlencoded"]


def test_servers_from_host_base_path_and_schemes() -> None:
    """host, basePath and each scheme make a server, those over TLS first (the first is the
    one requests and credentials go to; 2.0's schemes prefer none); no host makes a
    relative one."""
    root = {"host": "api.example.com", "basePath": "/v1/"}
    assert swagger2.servers(root, ["http", "https"], ctx()) == [
        {"url": "https://api.example.com/v1"}, {"url": "http://api.example.com/v1"}]
    assert [s["url"] for s in swagger2.servers(root, ["ws", "http", "wss"], ctx())] == [
        "wss://api.example.com/v1", "ws://api.example.com/v1", "http://api.example.com/v1"]
    assert swagger2.servers(root, ["http"], ctx()) == [{"url": "http://api.example.com/v1"}]
    assert swagger2.servers({"basePath": "/v2"}, None, ctx()) == [{"url": "/v2"}]


def test_security_schemes() -> None:
    """basic becomes http basic and each OAuth2 flow its 3.x name."""
    c = ctx()
    assert swagger2.security_scheme({"type": "basic"}, c) == {"type": "http", "scheme": "basic"}
    flow = swagger2.security_scheme({"type": "oauth2", "flow": "application",
                                     "tokenUrl": "https://t", "scopes": {"r": "read"}}, c)
    assert flow == {"type": "oauth2", "flows": {"clientCredentials": {
        "tokenUrl": "https://t", "scopes": {"r": "read"}}}}


def test_response_schema_headers_and_examples() -> None:
    """A response schema goes under each produces media type, headers get a schema, examples
    become each media type's example."""
    node = {"description": "ok", "schema": {"type": "string"},
            "headers": {"X-Rate": {"type": "integer"}},
            "examples": {"application/json": "hi"}}
    assert swagger2.response(node, ["application/json"], ctx(), "#/r") == {
        "description": "ok",
        "content": {"application/json": {"schema": {"type": "string"}, "example": "hi"}},
        "headers": {"X-Rate": {"schema": {"type": "integer"}}}}


def test_convert_a_whole_document_without_changing_it() -> None:
    """A whole document converts: path and operation consumes/produces, parameters merged,
    shared body parameter referenced from requestBodies; the input is left as it was."""
    root: dict[str, Any] = {
        "swagger": "2.0", "info": {"title": "t", "version": "1"}, "host": "h",
        "consumes": ["application/json"], "produces": ["application/xml"],
        "parameters": {"Pet": {"name": "pet", "in": "body",
                               "schema": {"$ref": "#/definitions/Pet"}},
                       "Id": {"name": "id", "in": "path", "required": True, "type": "string"}},
        "definitions": {"Pet": {"type": "object", "x-nullable": True}},
        "paths": {"/pets/{id}": {
            "parameters": [{"$ref": "#/parameters/Id"}],
            "put": {"parameters": [{"$ref": "#/parameters/Pet"}],
                    "produces": ["application/json"],
                    "responses": {"200": {"description": "ok",
                                          "schema": {"$ref": "#/definitions/Pet"}}}}}}}
    before = repr(root)
    c = ctx(root)
    out = swagger2.convert(root, c)
    assert repr(root) == before
    op = out["paths"]["/pets/{id}"]["put"]
    assert op["parameters"] == [{"$ref": "#/components/parameters/Id"}]
    assert op["requestBody"] == {"$ref": "#/components/requestBodies/Pet"}
    assert op["responses"]["200"]["content"] == {
        "application/json": {"schema": {"$ref": "#/components/schemas/Pet"}}}
    assert out["components"]["schemas"]["Pet"] == {"type": "object", "nullable": True}
    assert out["components"]["requestBodies"]["Pet"]["content"]["application/json"] == {
        "schema": {"$ref": "#/components/schemas/Pet"}}
    assert out["servers"] == [{"url": "https://h"}]
    assert "swagger" not in out and out["openapi"] == "3.0.3"


def test_malformed_schemes_and_host_are_noted_not_silent() -> None:
    """`schemes` that is a string is read as a list of one (it named `http`: requests went to
    `https` without a word); an unknown or upper-case scheme, a `host` or `basePath` that is
    no string: each noted at its pointer, the host's note once however many `schemes` ask."""
    c = ctx()
    assert swagger2.servers({"host": "h"}, "http", c) == [{"url": "http://h"}]
    assert swagger2.servers({"host": "h"}, ["HTTPS", "ftp", 5], c) == [{"url": "https://h"}]
    assert [n.pointer for n in c.notes] == ["#/schemes", "#/schemes/1", "#/schemes/2"]
    c = ctx()
    root = {"host": 5, "basePath": ["v1"]}
    assert swagger2.servers(root, ["https"], c) == [{"url": "/"}]
    assert swagger2.servers(root, {"https": 1}, c, "#/paths/~1a/get/schemes") == [{"url": "/"}]
    assert [n.pointer for n in c.notes] == ["#/host", "#/basePath", "#/paths/~1a/get/schemes"]
    assert "host is a string, not int" in c.notes[0].message


@pytest.mark.parametrize("host", ["h.example/p?q=1#x", "user:pw@h.example",
                                  "h.example\r\nX: y", "exa mple.com", "h.example:99999"])
def test_a_host_that_is_no_host_is_noted(host: str) -> None:
    """2.0's `host` is a name or IP and a port ("MUST NOT include the scheme nor
    sub-paths"): anything else made a URL every call failed on, without a word."""
    c = ctx()
    assert swagger2.servers({"host": host}, ["https"], c) == [{"url": "/"}]
    assert [n.pointer for n in c.notes] == ["#/host"]
    for fine in ("api.example.com:8443", "[::1]:8080", "10.0.0.1", "{region}.example.com"):
        assert swagger2.servers({"host": fine}, ["https"], c) == [{"url": f"https://{fine}"}]
    assert len(c.notes) == 1


def test_operation_schemes_as_a_string_make_its_servers() -> None:
    """An operation's `schemes: "http"` makes its servers (it was ignored: the document's
    https server was used), with a note at the operation's pointer."""
    root: dict[str, Any] = {"swagger": "2.0", "info": {"title": "t", "version": "1"},
                            "host": "h", "schemes": ["https"],
                            "paths": {"/a": {"get": {"schemes": "http", "responses": {
                                "200": {"description": "ok"}}}}}}
    c = ctx(root)
    out = swagger2.convert(root, c)
    assert out["paths"]["/a"]["get"]["servers"] == [{"url": "http://h"}]
    assert [n.pointer for n in c.notes] == ["#/paths/~1a/get/schemes"]


def test_x_ms_paths_are_noted() -> None:
    """x-ms-paths operations are not carried, each with a note."""
    c = ctx()
    swagger2.x_ms_paths({"x-ms-paths": {"/a?op=b": {}}}, c)
    assert c.notes[0].pointer == "#/x-ms-paths/~1a?op=b"


def test_parameter_with_name_and_ref_reads_the_ref_as_its_schema() -> None:
    """A parameter with a name, an in and a $ref (not valid 2.0) keeps its name; the $ref
    becomes its schema, with a note."""
    root: dict[str, Any] = {"swagger": "2.0", "info": {"title": "t", "version": "1"},
                            "definitions": {"M": {"type": "object"}},
                            "paths": {"/a": {"get": {"parameters": [
                                {"name": "m", "in": "query", "$ref": "#/definitions/M"}],
                                "responses": {"200": {"description": "ok"}}}}}}
    c = ctx(root)
    out = swagger2.convert(root, c)
    assert out["paths"]["/a"]["get"]["parameters"] == [
        {"name": "m", "in": "query", "schema": {"$ref": "#/components/schemas/M"}}]
    assert [n.pointer for n in c.notes] == ["#/paths/~1a/get/parameters/0/$ref"]


ADLA_HOST: dict[str, Any] = {
    "hostTemplate": "{accountName}.{adlaJobDnsSuffix}",
    "positionInOperation": "last",
    "parameters": [
        {"name": "accountName", "description": "The account.", "required": True,
         "type": "string", "in": "path", "x-ms-skip-url-encoding": True},
        {"$ref": "#/parameters/adlaJobDnsSuffixInPath"},
    ],
}
"""Azure Data Lake Analytics' host (azure-rest-api-specs, datalake-analytics job
2017-09-01-preview): an account without a default, a DNS suffix by `$ref` with one."""


def test_parameterized_host_becomes_server_variables() -> None:
    """x-ms-parameterized-host gives the server: the host template after each scheme, plus
    basePath, its parameters (inline or by $ref) as variables with their default, enum
    and description; a parameter without a default is noted."""
    root: dict[str, Any] = {
        "swagger": "2.0", "info": {"title": "t", "version": "1"}, "schemes": ["https"],
        "basePath": "/v1", "x-ms-parameterized-host": ADLA_HOST, "paths": {},
        "parameters": {"adlaJobDnsSuffixInPath": {
            "name": "adlaJobDnsSuffix", "in": "path", "required": True, "type": "string",
            "default": "azuredatalakeanalytics.net", "enum": ["azuredatalakeanalytics.net"],
            "x-ms-parameter-location": "client"}}}
    c = ctx(root)
    out = swagger2.convert(root, c)
    assert out["servers"] == [{"url": "https://{accountName}.{adlaJobDnsSuffix}/v1",
                               "variables": {
                                   "accountName": {"description": "The account."},
                                   "adlaJobDnsSuffix": {"default": "azuredatalakeanalytics.net",
                                                        "enum": ["azuredatalakeanalytics.net"]}}}]
    assert "x-ms-parameterized-host" not in out
    assert [n.pointer for n in c.notes] == ["#/x-ms-parameterized-host/parameters/0"]
    assert "'accountName' has no default" in c.notes[0].message


def test_parameterized_host_without_scheme_prefix() -> None:
    """useSchemePrefix: false keeps the template as the whole URL start (the parameter
    holds the scheme, as Cognitive Services' {Endpoint})."""
    spec = {"hostTemplate": "{Endpoint}/formrecognizer/v2.1", "useSchemePrefix": False,
            "parameters": [{"name": "Endpoint", "in": "path", "required": True,
                            "type": "string", "default": "https://westus2.api.cognitive.microsoft.com"}]}
    c = ctx({"swagger": "2.0", "x-ms-parameterized-host": spec, "schemes": ["https"]})
    assert swagger2.servers(c.root, ["https"], c) == [
        {"url": "{Endpoint}/formrecognizer/v2.1",
         "variables": {"Endpoint": {"default": "https://westus2.api.cognitive.microsoft.com"}}}]
    assert c.notes == []


def test_parameter_ref_into_a_list_is_followed() -> None:
    """A parameter ``$ref`` may point into another operation's parameter list (an index
    on the way, read with ``pointer.get``): a body parameter so named becomes the request
    body, as the one it names does (not a parameter ``$ref`` left dangling)."""
    body = {"name": "b", "in": "body", "schema": {"type": "object"}}
    root: dict[str, Any] = {"swagger": "2.0", "info": {"title": "t", "version": "1"},
                            "paths": {
                                "/a": {"post": {"parameters": [
                                    {"$ref": "#/paths/~1b/post/parameters/0"}],
                                    "responses": {"200": {"description": "ok"}}}},
                                "/b": {"post": {"parameters": [body],
                                    "responses": {"200": {"description": "ok"}}}}}}
    c = ctx(root)
    out = swagger2.convert(root, c)
    a, b = out["paths"]["/a"]["post"], out["paths"]["/b"]["post"]
    assert "parameters" not in a and "parameters" not in b
    assert a["requestBody"] == b["requestBody"]


def test_a_credential_goes_over_tls_when_the_document_lists_http_first() -> None:
    """A 2.0 document listing ``schemes: [http, https]`` (2 in the corpus): the request and
    the host's API key go to the https server; they went over cleartext http."""
    import httpllm
    from httpllm.execute import build_request

    app = httpllm.compile({
        "swagger": "2.0", "info": {"title": "t", "version": "1"}, "host": "api.example.com",
        "schemes": ["http", "https"],
        "securityDefinitions": {"key": {"type": "apiKey", "in": "header", "name": "X-Key"}},
        "security": [{"key": []}],
        "paths": {"/a": {"get": {"operationId": "a", "responses": {"200": {
            "description": "ok"}}}}}}, "chatgpt")
    request = build_request(app.functions[0], {}, auth={"key": "k-1"})
    assert (str(request.url), request.headers["X-Key"]) == ("https://api.example.com/a", "k-1")


@pytest.mark.parametrize(("fmt", "members", "sent"), [
    ("csv", ["a", "b c"], "a,b c"), ("ssv", ["a", "b,c"], "a b,c"),
    ("pipes", ["a", "b c"], "a|b c"), ("tsv", ["a", "b c"], "a\tb c")])
def test_header_collection_formats_on_the_wire(fmt: str, members: list[str], sent: str,
                                               echo_server: str) -> None:
    """A 2.0 header array is sent joined by its collectionFormat's delimiter, as written
    (the echo app on 127.0.0.1 receives it), with no warning; a member holding that
    delimiter is refused by validate, never sent ambiguous (a tab, sent %09, is not)."""
    doc = {"swagger": "2.0", "info": {"title": "t", "version": "1"}, "host": "a.example.com",
           "paths": {"/t": {"get": {"operationId": "op", "parameters": [
               {"name": "X-Ids", "in": "header", "type": "array",
                "items": {"type": "string"}, "collectionFormat": fmt}],
               "responses": {"200": {"description": "ok"}}}}}}
    app = httpllm.compile(doc, "3.1")
    assert [w.message for w in app.warnings] == []
    with httpx.Client() as client:
        result = app.execute("op", {"X-Ids": members}, client=client, base_url=echo_server)
    assert ["x-ids", sent] in result.body["headers"]
    if fmt == "tsv":  # a tab in a member is sent %09 (no header value holds it as is)
        assert app.validate("op", {"X-Ids": ["x\ty", "z"]}).ok
        return
    delimiter = {"csv": ",", "ssv": " ", "pipes": "|"}[fmt]
    (error,) = app.validate("op", {"X-Ids": [f"x{delimiter}y", "z"]}).errors
    assert error.keyword == "delimiter"
