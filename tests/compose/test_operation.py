"""Composing one operation's function: what the document says about its security and its
body's media type."""

from __future__ import annotations

import dataclasses
import json
from typing import Any

import pytest

import httpllm
from httpllm.dialects import providers
from httpllm.execute import build_request


def secured(name: Any, where: str = "header") -> dict[str, Any]:
    """Two operations, `getA` requiring an apiKey scheme named `name` in `where`, `getB`
    requiring nothing."""
    return {
        "openapi": "3.1.0", "info": {"title": "t", "version": "1"},
        "servers": [{"url": "https://api.example.com"}],
        "components": {"securitySchemes": {
            "k": {"type": "apiKey", "in": where, "name": name}}},
        "paths": {
            "/a": {"get": {"operationId": "getA", "security": [{"k": []}],
                           "responses": {"200": {"description": "ok"}}}},
            "/b": {"get": {"operationId": "getB",
                           "responses": {"200": {"description": "ok"}}}},
        },
    }


@pytest.mark.parametrize(("name", "where"), [
    ("X-K\r\nInjected: 1", "header"), ("X K", "header"), ("", "header"), (None, "header"),
    ("sid\r\nSet: 1", "cookie"), ("a=b", "cookie"),
])
def test_an_apikey_scheme_naming_a_bad_header_fails_the_operations_using_it(
        name: Any, where: str) -> None:
    """An apiKey scheme whose header or cookie name is not an RFC 9110 token is an error of
    each operation requiring it, naming the scheme's `name`; the other operations compile."""
    app = httpllm.compile(secured(name, where), "openai")
    assert [f.name for f in app.functions] == ["getB"]
    [error] = app.errors
    assert (error.path, error.kind) == ("/a", "SpecError")
    assert error.pointer == "#/components/securitySchemes/k/name"
    assert "not an RFC 9110 token" in error.message


@pytest.mark.parametrize("name", [None, "", 5, ["x"]])
def test_an_apikey_scheme_naming_no_query_parameter_fails_the_operations_using_it(
        name: Any) -> None:
    """A query apiKey whose name is no string or empty is an error of each operation
    requiring it: the key went out as ?None=..., ?=... or ?5=..., a name the document
    never gave, and nothing said so."""
    app = httpllm.compile(secured(name, "query"), "openai")
    assert [f.name for f in app.functions] == ["getB"]
    [error] = app.errors
    assert (error.path, error.kind) == ("/a", "SpecError")
    assert error.pointer == "#/components/securitySchemes/k/name"


@pytest.mark.parametrize("scheme", ["x", None, 5, ["apiKey"]])
def test_a_scheme_that_is_no_object_fails_the_operations_using_it(scheme: Any) -> None:
    """`securitySchemes: {k: "x"}`: each operation requiring `k` is an error naming the
    scheme (it compiled silently, and every call was refused as "not defined")."""
    source = secured("X-Key")
    source["components"]["securitySchemes"]["k"] = scheme
    app = httpllm.compile(source, "openai")
    assert [f.name for f in app.functions] == ["getB"]
    [error] = app.errors
    assert (error.path, error.kind) == ("/a", "SpecError")
    assert error.pointer == "#/components/securitySchemes/k"
    assert "expected a Security Scheme Object" in error.message


def test_a_query_apikey_name_may_hold_any_character() -> None:
    """A query parameter's name is percent-encoded on the wire: `api key` compiles."""
    app = httpllm.compile(secured("api key", "query"), "openai")
    assert [f.name for f in app.functions] == ["getA", "getB"] and not app.errors


def test_a_bad_swagger2_scheme_is_named_where_the_document_wrote_it() -> None:
    """In a Swagger 2.0 document the error names `#/securityDefinitions/<name>/name`."""
    doc = {"swagger": "2.0", "info": {"title": "t", "version": "1"}, "host": "api.example.com",
           "securityDefinitions": {"k": {"type": "apiKey", "in": "header", "name": "A\nB"}},
           "paths": {"/a": {"get": {"operationId": "getA", "security": [{"k": []}],
                                    "responses": {"200": {"description": "ok"}}}}}}
    [error] = httpllm.compile(doc, "openai").errors
    assert error.pointer == "#/securityDefinitions/k/name"


def test_a_header_parameter_with_a_bad_name_is_dropped_with_a_loss() -> None:
    """A header parameter named `X\\r\\nY: 1` is not an argument, and a loss says so."""
    doc = secured("X-Key")
    doc["paths"]["/b"]["get"]["parameters"] = [
        {"name": "X\r\nY: 1", "in": "header", "schema": {"type": "string"}}]
    function = httpllm.compile(doc, "openai").function("getB")
    assert function.parameters.get("properties", {}) == {}
    [loss] = function.losses
    assert (loss.pointer, loss.action, loss.value) == (
        "#/paths/~1b/get/parameters/0", "dropped", "X\r\nY: 1")


@pytest.mark.parametrize(("name", "why"), [
    ("ключ", "is no HTTP field name"), ("a b", "is no HTTP field name"),
    ("Transfer-Encoding", "frames or routes the request")])
def test_a_dropped_header_says_why_it_is_dropped(name: str, why: str) -> None:
    """A header parameter whose name HTTP cannot carry is dropped saying so (its loss said
    it 'frames or routes the request', which only HTTP's own headers do)."""
    doc = secured("X-Key")
    doc["paths"]["/b"]["get"]["parameters"] = [
        {"name": name, "in": "header", "schema": {"type": "string"}}]
    [loss] = httpllm.compile(doc, "openai").function("getB").losses
    assert loss.note.startswith(f"header {name!r} {why}")


@pytest.mark.parametrize(("name", "location", "why"), [
    ("ключ", "header", "is no HTTP field name"), ("a b", "header", "is no HTTP field name"),
    ("q\ud800", "query", "holds a lone surrogate"),
    ("q\ud800", "cookie", "holds a lone surrogate")])
def test_a_required_parameter_no_request_can_carry_is_the_operation_s_error(
        name: str, location: str, why: str) -> None:
    """A required parameter whose name no request can carry (a header name that is no
    token, a query or cookie name holding a lone surrogate) leaves no call the operation
    accepts: it is that operation's error at the parameter's name (it was dropped with a
    loss, and the tool listed, every call of which the API refused), the others compile;
    a transport header the client sets stays a loss, required or not."""
    doc = secured("X-Key")
    doc["paths"]["/b"]["get"]["parameters"] = [
        {"name": name, "in": location, "required": True, "schema": {"type": "string"}}]
    app = httpllm.compile(doc, "openai")
    assert "getB" not in [f.name for f in app.functions] and app.functions
    (error,) = app.errors
    assert error.pointer == "#/paths/~1b/get/parameters/0/name"
    assert why in error.message and "no request can carry it" in error.message
    doc["paths"]["/b"]["get"]["parameters"] = [
        {"name": "Content-Length", "in": "header", "required": True,
         "schema": {"type": "integer"}}]
    [loss] = httpllm.compile(doc, "openai").function("getB").losses
    assert "frames or routes the request" in loss.note


@pytest.mark.parametrize("location", ["query", "cookie"])
def test_a_parameter_named_with_a_lone_surrogate_is_dropped_with_a_loss(location: str) -> None:
    """A query or cookie parameter whose name holds a lone surrogate (a document's
    ``\\ud800`` escape without its pair) is not an argument: no UTF-8 request spells its
    name, and the model could not write it back; a loss says so (it was offered, and
    every call was refused as not valid Unicode)."""
    doc = secured("X-Key")
    doc["paths"]["/b"]["get"]["parameters"] = [
        {"name": "q\ud800", "in": location, "schema": {"type": "string"}},
        {"name": "ok", "in": location, "schema": {"type": "string"}}]
    function = httpllm.compile(doc, "openai").function("getB")
    assert list(function.parameters["properties"]) == ["ok"]
    [loss] = function.losses
    assert (loss.pointer, loss.action, loss.value) == (
        "#/paths/~1b/get/parameters/0", "dropped", "q\ud800")
    assert loss.note.startswith(f"{location} parameter 'q\\ud800' holds a lone surrogate")


@pytest.mark.parametrize(("name", "why"), [
    ("a;b", "is no cookie name"), ("a,b", "is no cookie name"), ("a b", "is no cookie name"),
    ("a=b", "is no cookie name"), ("a!b", "would be sent percent-encoded")])
def test_a_cookie_parameter_its_name_cannot_carry_is_dropped_with_a_loss(
        name: str, why: str) -> None:
    """A cookie parameter named otherwise than an RFC 6265 token (`a;b`, `a b`), or with a
    token percent-encoding changes (`a!b`, sent `a%21b` by style form), was sent
    percent-encoded, under another name: an optional one is no argument, with a loss at
    it, and the rest of the operation still builds; a required one is its operation's
    error at its name, and the other operations compile."""
    doc = secured("X-Key")
    doc["paths"]["/b"]["get"]["parameters"] = [
        {"name": name, "in": "cookie", "schema": {"type": "string"}},
        {"name": "sid", "in": "cookie", "schema": {"type": "string"}}]
    app = httpllm.compile(doc, "openai")
    function = app.function("getB")
    assert list(function.parameters["properties"]) == ["sid"]
    [loss] = function.losses
    assert (loss.pointer, loss.action, loss.value) == (
        "#/paths/~1b/get/parameters/0", "dropped", name)
    assert loss.note.startswith(f"cookie parameter {name!a} {why}")
    assert build_request(function, {"sid": "1"}).headers["cookie"] == "sid=1"
    doc["paths"]["/b"]["get"]["parameters"][0]["required"] = True
    app = httpllm.compile(doc, "openai")
    assert "getB" not in [f.name for f in app.functions]
    (error,) = app.errors
    assert error.pointer == "#/paths/~1b/get/parameters/0/name"
    assert why in error.message


def test_a_style_cookie_token_name_is_sent_as_written() -> None:
    """OpenAPI 3.2's `style: cookie` sends a token name as written (`a!b`), so it stays
    an argument."""
    doc = secured("X-Key")
    doc["openapi"] = "3.2.0"
    doc["paths"]["/b"]["get"]["parameters"] = [
        {"name": "a!b", "in": "cookie", "style": "cookie", "schema": {"type": "string"}}]
    function = httpllm.compile(doc, "openai").function("getB")
    assert function.losses == ()
    request = build_request(function, {"a!b": "1"}, require_auth=False)
    assert request.headers["cookie"] == "a!b=1"


def test_a_path_with_a_lone_surrogate_is_the_operation_s_error() -> None:
    """A path holding a lone surrogate (in its text or a template's name) cannot be sent:
    that operation is an error naming it, the others compile."""
    doc = secured("X-Key")
    doc["paths"]["/a/{p\ud800}"] = {"get": {
        "operationId": "getC", "responses": {"200": {"description": "ok"}},
        "parameters": [{"name": "p\ud800", "in": "path", "required": True,
                        "schema": {"type": "string"}}]}}
    app = httpllm.compile(doc, "openai")
    assert "getC" not in [f.name for f in app.functions] and app.functions
    [error] = app.errors
    assert error.pointer == "#/paths/~1a~1{p\ud800}/get"
    assert "holds a lone surrogate" in error.message and "no request can carry it" in error.message


def _named(*operation_ids: str) -> dict[str, Any]:
    return {"openapi": "3.1.0", "info": {"title": "t", "version": "1"},
            "paths": {f"/p{i}": {"get": {"operationId": op,
                                         "responses": {"200": {"description": "ok"}}}}
                      for i, op in enumerate(operation_ids)}}


def test_a_server_variable_default_outside_its_enum_is_a_warning() -> None:
    """`default: zzz, enum: [prod, staging]` (OpenAPI 3.1.0 4.8.6.1: the default MUST be in
    the enum) compiled without a word, and every call was then refused by the build; it is
    a warning at the default, once for the document's servers, and a value the host gives
    still builds."""
    doc = {"openapi": "3.1.0", "info": {"title": "t", "version": "1"},
           "servers": [{"url": "https://{env}.example.com",
                        "variables": {"env": {"default": "zzz", "enum": ["prod", "staging"]},
                                      "ok": {"default": "a", "enum": ["a"]}}}],
           "paths": {p: {"get": {"operationId": p[1:], "responses": {
               "200": {"description": "ok"}}}} for p in ("/a", "/b")}}
    app = httpllm.compile(doc)
    assert [(w.pointer, w.message) for w in app.warnings] == [(
        "#/servers/0/variables/env/default",
        "server variable {env}'s default 'zzz' is not one of its enum ('prod', 'staging'): "
        "every call is refused unless the host passes server_variables=...")]
    request = build_request(app.function("a"), {}, server_variables={"env": "prod"})
    assert str(request.url) == "https://prod.example.com/a"


def _templated(path: str, parameters: list[dict[str, Any]]) -> dict[str, Any]:
    return {"openapi": "3.1.0", "info": {"title": "t", "version": "1"},
            "servers": [{"url": "https://api.example.com"}],
            "paths": {path: {"get": {"operationId": "op", "parameters": parameters,
                                     "responses": {"200": {"description": "ok"}}}},
                      "/ok": {"get": {"operationId": "ok", "responses": {
                          "200": {"description": "ok"}}}}}}


def test_a_path_variable_without_a_parameter_is_offered_as_a_required_string() -> None:
    """`/vendors/{vendor_id}` with no `in: path` parameter `vendor_id` (square's PUT
    /v2/vendors/{vendor_id}, OpenAPI 3.1.0 4.8.12.1) was the operation's error; it is a
    tool taking a required string `vendor_id`, with a warning at the operation naming the
    variable, and every dialect's tool shows the argument."""
    doc = _templated("/vendors/{vendor_id}/{api-version}",
                     [{"name": "api-version", "in": "path", "required": True,
                       "schema": {"type": "integer"}}])
    app = httpllm.compile(doc)
    assert app.errors == ()
    declared, argument = app.function("op").arguments
    assert (argument.name, argument.location, argument.required, argument.style,
            argument.schema) == ("vendor_id", "path", True, "simple", {"type": "string"})
    assert declared.schema == {"type": "integer"}
    assert [(w.pointer, w.message) for w in app.warnings] == [(
        "#/paths/~1vendors~1{vendor_id}~1{api-version}/get",
        "path template variable {vendor_id} has no parameter; offered as a required string")]
    for provider in providers():
        tool = json.dumps(httpllm.compile(doc, provider=provider).tools())
        assert '"vendor_id"' in tool, provider
    request = build_request(app.function("op"), {"vendor_id": "a/b c", "api-version": 2})
    assert request.url.raw_path == b"/vendors/a%2Fb%20c/2"


def test_an_empty_path_variable_fails_its_operation() -> None:
    """`/a/{}` has a template expression no parameter can be named for: the operation's
    error at the path item, and the others compile."""
    app = httpllm.compile(_templated("/a/{}", []))
    assert [f.name for f in app.functions] == ["ok"]
    (error,) = app.errors
    assert error.pointer == "#/paths/~1a~1{}"


def test_a_path_parameter_the_template_lacks_is_dropped_with_a_loss() -> None:
    """An `in: path` parameter whose `{name}` the path does not hold was an argument whose
    value went nowhere without a word; it is no argument, with a loss at its name."""
    app = httpllm.compile(_templated("/z/{id}", [
        {"name": "id", "in": "path", "required": True, "schema": {"type": "string"}},
        {"name": "ghost", "in": "path", "required": True, "schema": {"type": "string"}}]))
    fn = app.function("op")
    assert [a.name for a in fn.arguments] == ["id"]
    (loss,) = [x for x in fn.losses if x.keyword == "name"]
    assert (loss.pointer, loss.action, loss.value) == (
        "#/paths/~1z~1{id}/get/parameters/1", "dropped", "ghost")
    assert app.validate("op", {"id": "a", "ghost": "b"}).errors[0].pointer == "#/ghost"


def test_a_server_url_with_a_password_is_a_warning_that_does_not_repeat_it() -> None:
    """`https://user:s3cret@api.example.com` compiled without a word and the build refused
    every call to it ("has a user name or password"); it is a warning at the URL, which
    names neither the user nor the password."""
    doc = {"openapi": "3.1.0", "info": {"title": "t", "version": "1"},
           "servers": [{"url": "https://user:s3cret@api.example.com/v1"},
                       {"url": "https://api.example.com/v1?at=a@b"}],
           "paths": {"/a": {"get": {"operationId": "a", "responses": {
               "200": {"description": "ok"}}}}}}
    app = httpllm.compile(doc)
    (warning,) = app.warnings
    assert warning.pointer == "#/servers/0/url"
    assert "user name or password" in warning.message
    assert "s3cret" not in warning.message and "api.example.com" not in warning.message


def test_a_renamed_operation_id_is_a_loss_at_the_operation_id() -> None:
    """An operationId the function name rule refuses (no usable character, too long, a
    character outside it, taken) is a `renamed` loss at its place, saying why; a kept one
    is none."""
    long = "list" + "VeryLongOperationName" * 4
    app = httpllm.compile(_named("...", long, "users/list", "getA", "getA", "fine"), "chatgpt")
    by_name = {f.name: f.losses for f in app.functions}
    assert by_name["getA"] == () and by_name["fine"] == ()
    renamed = {loss.value: loss for loss in app.losses}
    assert set(renamed) == {"...", long, "users/list", "getA"}
    assert all(x.keyword == "operationId" and x.action == "renamed" for x in app.losses)
    assert renamed["..."].pointer == "#/paths/~1p0/get/operationId"
    assert "'get__p0'" in renamed["..."].note and "method and path" in renamed["..."].note
    assert "cut, with a hash" in renamed[long].note
    assert "'users_list'" in renamed["users/list"].note and "replaced" in renamed["users/list"].note
    assert renamed["getA"].pointer == "#/paths/~1p4/get/operationId"
    assert "'getA_2'" in renamed["getA"].note and "numbered" in renamed["getA"].note


_UNICODE_IDS = ("getCafé", "İstanbulAra", "Zahlungsvorgänge_auflisten", "получитьПлатежи",
                "获取宠物", "getCafe", "list" + "宠物" * 30)
_UNICODE_NAMES = ["getCafe", "IstanbulAra", "Zahlungsvorgange_auflisten",
                  "poluchit_Platezhi", "HuoQuChongWu", "getCafe_2"]


def _tool_names(tools: list[Any], provider: str) -> list[str]:
    if provider == "gemini":
        return [d["name"] for group in tools for d in group["functionDeclarations"]]
    if provider == "chatgpt":
        return [tool["function"]["name"] for tool in tools]
    return [tool["name"] for tool in tools]


@pytest.mark.parametrize("provider", ["chatgpt", "claude", "gemini", "mcp"])
def test_an_operation_id_outside_ascii_is_transliterated_in_every_dialect(
        provider: str) -> None:
    """Tool names keep what a non-ASCII operationId says, spelled in ASCII: `getCafé` was
    `getCaf`, `İstanbulAra` `stanbulAra`, `Zahlungsvorgänge_auflisten` lost its `ä`, and
    `получитьПлатежи`, `获取宠物` were `get__p3`, `get__p4`. A later `getCafe` is
    numbered; a long one is cut to the limit with a hash; each rename is a loss saying
    why."""
    app = httpllm.compile(_named(*_UNICODE_IDS), provider)  # type: ignore[arg-type]
    names = _tool_names(app.tools(), provider)
    assert names[:6] == _UNICODE_NAMES
    assert len(names[6]) == 64 and names[6].startswith("listChongWuChongWu")
    notes = {loss.value: loss.note for loss in app.losses}
    assert notes["getCafé"] == ("operationId 'getCafé' is named 'getCafe': characters "
                                "outside ASCII transliterated (anyascii) (function names "
                                "match ^[a-zA-Z_][a-zA-Z0-9_-]{0,63}$)")
    assert "'getCafe_2'" in notes["getCafe"] and "named 'getCafe'" in notes["getCafe"]
    assert "cut, with a hash" in notes[_UNICODE_IDS[6]]
    assert not any("method and path" in note for note in notes.values())
    assert [f.name for f in app.functions] == names
    assert app.validate("getCafe_2", {}).ok and app.validate("getCafe", {}).ok


def test_a_clash_in_case_names_the_operation_it_clashed_with() -> None:
    """An operationId renamed because an earlier operation holds its name in another case
    (``GETA`` after ``getA``; ``get.A`` after ``get a``) names that operation's name in
    the loss and the warning (both named the operationId's own spelling, which no
    operation had). A zero-width space is no letter: ``get\u200bA`` reads as ``getA``."""
    app = httpllm.compile(_named("getA", "GETA", "get a", "get.A", "get\u200bA"), "chatgpt")
    assert [f.name for f in app.functions] == ["getA", "GETA_2", "get_a", "get_A_2", "getA_3"]
    notes = {loss.value: loss.note for loss in app.losses}
    assert notes["GETA"] == ("operationId 'GETA' is named 'GETA_2': an earlier operation is "
                             "named 'getA' (names are unique, case aside): numbered")
    assert notes["get.A"].endswith(
        "an earlier operation is named 'get_a' (names are unique, case aside): numbered")
    assert notes["get\u200bA"].endswith(
        "an earlier operation is named 'getA' (names are unique, case aside): numbered")
    assert [(w.pointer, w.message) for w in app.warnings] == [
        ("#/paths/~1p1/get", "function name 'GETA' is taken by an earlier operation (as "
         "'getA'; names are unique, case aside): this one is named 'GETA_2'"),
        ("#/paths/~1p3/get", "function name 'get_A' is taken by an earlier operation (as "
         "'get_a'; names are unique, case aside): this one is named 'get_A_2'"),
        ("#/paths/~1p4/get", "function name 'getA' is taken by an earlier operation: this "
         "one is named 'getA_3'")]


def test_an_example_no_double_holds_is_dropped_with_a_loss() -> None:
    """A media type's named example holding `1e400` is no input example (JSON text has
    none for it); the others stay, and the loss names the example's `value`."""
    text = json.dumps({
        "openapi": "3.1.0", "info": {"title": "t", "version": "1"},
        "paths": {"/a": {"post": {"operationId": "postA", "requestBody": {"content": {
            "application/json": {"schema": {"type": "object"}, "examples": {
                "big": {"value": {"n": "BIG"}}, "small": {"value": {"n": 1}}}}}},
            "responses": {"200": {"description": "ok"}}}}}}).replace('"BIG"', "1e400")
    app = httpllm.compile(text, "chatgpt")
    assert app.functions[0].examples == ({"body": {"n": 1}},)
    [loss] = app.losses
    assert loss.pointer == ("#/paths/~1a/post/requestBody/content/application~1json/examples/"
                            "big/value")
    assert (loss.keyword, loss.action) == ("examples", "dropped")


def _fanned_body(levels: int, width: int) -> dict[str, Any]:
    """A request body whose named schemas each hold ``width`` properties referring to the
    next, and an ``id``, readOnly at the top only: ``width ** levels`` argument paths to
    the last level, none of them holding a readOnly property."""
    schemas = {f"L{i}": {"type": "object", "properties": {
        "id": {"type": "string", "readOnly": i == 0},
        **{f"p{k}": {"$ref": f"#/components/schemas/L{i + 1}"} for k in range(width)}}}
        for i in range(levels)}
    schemas[f"L{levels}"] = {"type": "object", "properties": {"id": {"type": "string"}}}
    body = {"content": {"application/json": {"schema": {"$ref": "#/components/schemas/L0"}}}}
    return {"openapi": "3.0.3", "info": {"title": "t", "version": "1"},
            "paths": {"/x": {"post": {"operationId": "make", "requestBody": body,
                                      "responses": {"200": {"description": "ok"}}}}},
            "components": {"schemas": schemas}}


def test_read_only_places_of_a_small_body_are_all_found_without_a_loss() -> None:
    """Every readOnly property's place is recorded (``extra["read_only"]``) when the
    search ends by itself."""
    function = httpllm.compile(_fanned_body(2, 2)).functions[0]
    assert function.extra["read_only"] == ("#/body/id",)
    assert not [x for x in function.losses if x.keyword == "readOnly" and x.action == "cut"]


def test_a_read_only_search_through_shared_subtrees_stops_with_a_loss() -> None:
    """Shared schemas reaching 4**20 argument paths: the search stops after its budget of
    visits, keeps the places it found, and a ``cut`` loss says the search was partial (it
    used to run for hours)."""
    function = httpllm.compile(_fanned_body(20, 4)).functions[0]
    cut = [x for x in function.losses if x.keyword == "readOnly" and x.action == "cut"]
    assert len(cut) == 1 and cut[0].pointer == "#/paths/~1x/post/requestBody"
    assert "validate may let some readOnly values through" in cut[0].note
    assert function.extra["read_only"] == ("#/body/id",)  # what was found is kept


@pytest.mark.parametrize(("limit", "cut", "places"), [
    ({"read_only_visits": 3}, True, ("#/body/id",)),
    ({"read_only_places": 0}, False, None),
    ({"read_only_depth": 0}, False, None),
])
def test_the_read_only_search_is_bounded_by_the_limits_record(
        monkeypatch: pytest.MonkeyPatch, limit: dict[str, int], cut: bool,
        places: tuple[str, ...] | None) -> None:
    """The search's visits, places and depth are ``Limits`` fields: 3 visits cut even a
    small body (the loss naming the budget), no places or no depth record nothing."""
    from httpllm.compose import operation

    monkeypatch.setattr(operation, "DEFAULT_LIMITS",
                        dataclasses.replace(operation.DEFAULT_LIMITS, **limit))
    function = httpllm.compile(_fanned_body(2, 2)).functions[0]
    found = [x for x in function.losses if x.keyword == "readOnly" and x.action == "cut"]
    assert [x.note.split(" schema nodes")[0] for x in found] == (
        ["readOnly properties searched in the first 3"] if cut else [])
    assert function.extra.get("read_only") == places


def _served(root_extra: dict[str, Any], op_extra: dict[str, Any]) -> httpllm.Application:
    """A document with ``root_extra`` at its top and ``op_extra`` in ``GET /a``; ``GET /b``
    declares its own valid server and security."""
    return httpllm.compile({
        "openapi": "3.0.3", "info": {"title": "t", "version": "1"},
        "servers": [{"url": "https://api.example.com"}],
        "components": {"securitySchemes": {"k": {"type": "http", "scheme": "bearer"}}},
        **root_extra,
        "paths": {"/a": {"get": {"operationId": "a", **op_extra,
                                 "responses": {"200": {"description": "ok"}}}},
                  "/b": {"get": {"operationId": "b", "security": [{"k": []}],
                                 "servers": [{"url": "https://b.example.com"}],
                                 "responses": {"200": {"description": "ok"}}}}}})


@pytest.mark.parametrize(("root_extra", "op_extra", "pointer"), [
    ({"security": {"k": []}}, {}, "#/security"),  # a mapping for a list
    ({"security": ["k"]}, {}, "#/security/0"),  # the scheme's name for a requirement
    ({}, {"security": {"k": []}}, "#/paths/~1a/get/security"),
    ({"servers": {"url": "https://x.example.com"}}, {}, "#/servers"),
    ({}, {"servers": {"url": "https://x.example.com"}}, "#/paths/~1a/get/servers"),
    ({}, {"servers": ["https://x.example.com"]}, "#/paths/~1a/get/servers/0"),
    ({}, {"servers": [{"url": 5}]}, "#/paths/~1a/get/servers/0/url"),
])
def test_a_malformed_security_or_servers_is_the_operations_error(
        root_extra: dict[str, Any], op_extra: dict[str, Any], pointer: str) -> None:
    """A ``security`` that is not an array of requirement objects, or a ``servers`` that is
    not an array of Server objects with a ``url`` string, fails each operation that uses
    it, naming the field or the entry; the others compile. They were skipped: the host's
    credential was never sent (``security: {k: []}`` read as no requirement), or the calls
    went to the document's server, and nothing said why."""
    app = _served(root_extra, op_extra)
    assert [(e.path, e.pointer, e.kind) for e in app.errors] == [("/a", pointer, "SpecError")]
    assert [t["function"]["name"] for t in app.tools()] == ["b"]


def test_null_or_empty_security_and_servers_are_the_next_holders() -> None:
    """``servers: []`` or ``null`` and ``security: null`` are as if absent (the path
    item's or the document's apply); ``security: []`` needs no credentials."""
    app = _served({"security": [{"k": []}]}, {"security": None, "servers": []})
    assert not app.errors
    function = app.function("a")
    assert function.security == ({"k": []},)
    assert [s.url for s in function.servers] == ["https://api.example.com"]
    assert _served({"security": [{"k": []}]}, {"security": []}).function("a").security == ()


def test_a_requirement_naming_an_undefined_scheme_is_warned_about() -> None:
    """A security requirement naming no defined scheme can never be met: a warning names
    it at its pointer (it compiled silently, and the CLI then said no operation requires
    the scheme when given ``--auth`` for it)."""
    app = _served({"security": [{"nosuch": []}, {"k": []}]}, {})
    pointers = [w.pointer for w in app.warnings if "'nosuch' is not defined" in w.message]
    assert pointers == ["#/security/0/nosuch"]
    assert not any("'k' is not defined" in w.message for w in app.warnings)


def bodied(media_type: str, schema: Any) -> dict[str, Any]:
    """One operation, `send`, whose body is `schema` as `media_type`."""
    return {
        "openapi": "3.1.0", "info": {"title": "t", "version": "1"},
        "servers": [{"url": "https://api.example.com"}],
        "paths": {"/s": {"post": {
            "operationId": "send",
            "requestBody": {"description": "Columns.", "content": {
                media_type: {"schema": schema}}},
            "responses": {"200": {"description": "ok"}}}}},
    }


@pytest.mark.parametrize(("media_type", "schema", "kind"), [
    ("multipart/form-data", {"type": "array", "items": {"type": "string"}}, "array"),
    ("multipart/mixed", {"type": "string", "format": "binary"}, "string"),
    ("application/x-www-form-urlencoded", {"type": ["array", "integer"]}, "array/integer")])
def test_a_named_fields_body_that_is_no_object_is_offered_as_one(
        media_type: str, schema: Any, kind: str) -> None:
    """A form or multipart body whose schema is no object (Jira's setColumns: a
    multipart array) is offered as an object of named fields, with a loss at its schema
    and its description kept: validate accepted the document's array and the build
    refused every call ("must be an object")."""
    app = httpllm.compile(bodied(media_type, schema), provider="chatgpt")
    function = app.function("send")
    body = function.arguments[0]
    assert body.schema["type"] == "object"
    assert body.schema["description"].startswith("Columns.")
    [loss] = [loss for loss in function.losses if loss.keyword == "type"]
    assert loss.pointer.endswith("/requestBody/content/" + media_type.replace("/", "~1")
                                 + "/schema")
    assert (loss.action, loss.value) == ("rewritten", kind)
    args = {"body": {"columns": ["a", "b"]}}
    assert app.validate("send", args).ok
    request = build_request(function, args)
    assert request.content.count(b"columns") == 2


@pytest.mark.parametrize(("media_type", "schema"), [
    ("application/x-www-form-urlencoded", {"type": "string"}),
    ("multipart/form-data", {"type": "object"}),
    ("multipart/form-data", {"anyOf": [{"type": "object"}, {"type": "null"}]}),
    ("text/plain", {"type": "array"})])
def test_other_bodies_keep_their_schema(media_type: str, schema: Any) -> None:
    """A string form body (the encoded form), an object, a union of members a form can
    carry and a body of another media type keep the document's schema and add no loss."""
    function = httpllm.compile(bodied(media_type, schema), provider="chatgpt").function("send")
    assert function.arguments[0].schema["description"] == "Columns."
    assert not [loss for loss in function.losses if loss.keyword == "type"]


STRINGS = {"type": "array", "items": {"type": "string"}}
"""An array of strings: a union member no form or multipart body can carry."""


@pytest.mark.parametrize(("media_type", "schema", "sent", "refused", "lost"), [
    ("application/x-www-form-urlencoded", {"oneOf": [{"type": "string"}, STRINGS]},
     "a=1&b=2", ["a"], ("oneOf", "dropped", "array")),
    ("multipart/form-data", {"oneOf": [{"type": "string"}, STRINGS]},
     {"a": "1"}, "a", ("type", "rewritten", "array/string")),
    ("application/x-www-form-urlencoded",
     {"type": ["array", "object"], "items": {"type": "string"},
      "properties": {"a": {"type": "string"}}}, {"a": "1"}, ["a"], ("type", "dropped", "array")),
    ("multipart/form-data", {"anyOf": [{"type": "object", "properties": {
        "a": {"type": "string"}}}, STRINGS, {"type": "integer"}]},
     {"a": "1"}, 5, ("anyOf", "dropped", "array/integer"))])
def test_a_named_fields_union_offers_only_what_can_be_sent(
        media_type: str, schema: Any, sent: Any, refused: Any, lost: tuple[str, ...]) -> None:
    """A form or multipart body whose schema is a union offers only the members such a
    body can carry (an object, a form's string: the encoded form), with a loss naming the
    dropped ones; a union of nothing it can carry is offered as an object of named fields.
    The document's union was offered as written, and every call of an array member was
    refused by validate ("expected an object")."""
    app = httpllm.compile(bodied(media_type, schema), provider="chatgpt")
    function = app.function("send")
    [loss] = [loss for loss in function.losses if loss.keyword in ("type", "oneOf", "anyOf")]
    assert (loss.keyword, loss.action, loss.value) == lost
    assert loss.pointer.endswith("/schema")
    offered = json.dumps(function.parameters["properties"]["body"])
    assert '"array"' not in offered and '"integer"' not in offered
    assert app.validate("send", {"body": sent}).ok
    assert build_request(function, {"body": sent}).read()
    assert not app.validate("send", {"body": refused}).ok


@pytest.mark.parametrize(("media_type", "expected"), [
    ("application/json", {}), ("application/json; charset=utf-8", {}),
    ("Application/Problem+JSON ; charset=utf-8", {}),
    ("application/octet-stream", {"type": "string", "format": "binary"}),
])
def test_a_body_without_a_schema_is_any_value_for_json_whatever_its_parameters(
        media_type: str, expected: dict[str, Any]) -> None:
    """A request body with no schema takes any value for a JSON media type and a file
    otherwise, read from the media type's essence: ``application/json; charset=utf-8`` was
    made a binary string, which no JSON body can be."""
    doc = {"openapi": "3.1.0", "info": {"title": "t", "version": "1"},
           "servers": [{"url": "https://api.example.com"}],
           "paths": {"/x": {"post": {"operationId": "op", "requestBody": {
               "required": True, "content": {media_type: {}}},
               "responses": {"200": {"description": "ok"}}}}}}
    body = httpllm.compile(doc, "chatgpt").function("op").parameters["properties"]["body"]
    assert {k: v for k, v in body.items() if k != "description"} == expected


@pytest.mark.parametrize("own", [None, "v2/openapi.yaml"])
def test_read_only_owners_are_found_by_their_label_as_text(tmp_path: Any,
                                                            own: str | None) -> None:
    """The body walk reads each named schema's origin label (`models/A.yaml#`, relative to
    the root document's file) as text: resolved as a `$ref` against the document, it named
    another file when the document's OpenAPI 3.2 `$self` moves its base (`v2/`: there a
    `models/A.yaml` without the `allOf`), so `B`'s `readOnly` `id` was sent. Layout:
    `openapi.yaml` -> `paths/x.yaml` -> `../models/A.yaml` -> `allOf: [B.yaml]`."""
    files = {
        "openapi.yaml": {"openapi": "3.2.0", **({"$self": own} if own else {}),
                         "info": {"title": "t", "version": "1"},
                         "servers": [{"url": "http://127.0.0.1:9"}],
                         "paths": {"/a": {"$ref": "paths/x.yaml"}}},
        "paths/x.yaml": {"post": {"operationId": "make", "requestBody": {"content": {
            "application/json": {"schema": {"$ref": "../models/A.yaml"}}}},
            "responses": {"204": {"description": "ok"}}}},
        "models/A.yaml": {"allOf": [{"$ref": "B.yaml"}, {"type": "object", "properties": {
            "name": {"type": "string"}}}]},
        "models/B.yaml": {"type": "object", "properties": {
            "id": {"type": "string", "readOnly": True}, "kind": {"type": "string"}}},
        "v2/models/A.yaml": {"type": "object", "properties": {"other": {"type": "string"}}},
    }
    for name, content in files.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(json.dumps(content))
    app = httpllm.compile(str(tmp_path / "openapi.yaml"), "chatgpt")
    assert not app.errors
    result = app.validate("make", {"body": {"name": "a", "id": "x", "kind": "k"}})
    assert [(e.pointer, e.keyword) for e in result.errors] == [("#/body/id", "readOnly")]
