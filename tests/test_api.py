"""compile(): sources, errors, isolation of bad operations, selection."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

import httpllm
from httpllm import LoadError, SpecError, UnknownDialect

SPECS = Path(__file__).resolve().parents[1] / "specs"

MINIMAL = {
    "openapi": "3.1.0",
    "info": {"title": "t", "version": "1"},
    "paths": {
        "/a": {"get": {"operationId": "getA", "responses": {"200": {"description": "ok"}}}},
        "/b": {
            "get": {
                "operationId": "getB",
                "parameters": [{"name": "x", "in": "query",
                                "schema": {"$ref": "#/components/schemas/Missing"}}],
                "responses": {"200": {"description": "ok"}},
            }
        },
    },
}


def test_compiles_every_source_kind() -> None:
    """A path, JSON text, bytes and a dict give the same functions."""
    path = SPECS / "petstore-3.0.yaml"
    text = path.read_text()
    names = [f.name for f in httpllm.compile(path).functions]
    assert names == ["listPets", "createPet", "getPet", "deletePet"]
    assert [f.name for f in httpllm.compile(str(path)).functions] == names
    assert [f.name for f in httpllm.compile(text).functions] == names
    assert [f.name for f in httpllm.compile(text.encode()).functions] == names


def test_bad_operation_is_reported_and_the_rest_compiles() -> None:
    """A dangling $ref sinks only the operation that reaches it, with its pointer."""
    app = httpllm.compile(MINIMAL)
    assert [f.name for f in app.functions] == ["getA"]
    (error,) = app.errors
    assert (error.method, error.path, error.kind) == ("get", "/b", "RefError")
    assert error.pointer.startswith("#/paths/~1b/get/parameters/0/schema")
    assert "Missing" in error.message


def test_unknown_provider_lists_the_known_ones() -> None:
    """An unknown provider name raises UnknownDialect naming the registered providers."""
    with pytest.raises(UnknownDialect, match="chatgpt"):
        httpllm.compile(MINIMAL, provider="nope")


@pytest.mark.parametrize(
    ("doc", "pattern"),
    [
        ({"swagger": "1.2"}, "Swagger 1.2 is not supported"),
        ({"openapi": "3.3.0"}, "3.3.0 is not supported"),
        ({"info": {}}, "expected an `openapi` version .* or `swagger: \"2.0\"`"),
        ([], "expected an OpenAPI object at the top, got an array"),
        ("\n", "got an empty document"),
        ("just text\n", "got a string"),
    ],
)
def test_unsupported_documents_raise_spec_error(doc: object, pattern: str) -> None:
    """Documents that are not Swagger 2.0 or OpenAPI 3.0-3.2 raise SpecError saying what was
    expected."""
    with pytest.raises(SpecError, match=pattern):
        httpllm.compile(doc)  # type: ignore[arg-type]


def test_unreadable_text_names_line() -> None:
    """Broken YAML raises LoadError with the line."""
    with pytest.raises(LoadError, match="line"):
        httpllm.compile("openapi: 3.1.0\npaths: [\n")


def test_missing_file_is_a_load_error() -> None:
    """A path that does not exist raises LoadError naming it."""
    with pytest.raises(LoadError, match=r"nope\.yaml"):
        httpllm.compile("nope.yaml")


def test_deep_dict_input_never_raises_recursion_error() -> None:
    """A 10,000-level schema in a dict is an operation error, not a RecursionError."""
    deep: dict[str, object] = {"type": "string"}
    for _ in range(10_000):
        deep = {"type": "object", "properties": {"a": deep}}
    doc = {"openapi": "3.1.0", "info": {"title": "t", "version": "1"},
           "paths": {"/x": {"post": {"requestBody": {"content": {"application/json": {
               "schema": deep}}}, "responses": {"200": {"description": "ok"}}}}}}
    app = httpllm.compile(doc)
    assert app.functions == ()
    assert app.errors[0].kind == "LimitExceeded"


def test_selection_compiles_only_what_was_selected() -> None:
    """include= and exclude= pick operations by tag, method/path glob and operationId."""
    path = SPECS / "petstore-3.0.yaml"
    assert [f.name for f in httpllm.compile(path, include="GET /pets*").functions] == [
        "listPets", "getPet"]
    assert [f.name for f in httpllm.compile(path, exclude=["tag:pets"]).functions] == []
    assert [f.name for f in httpllm.compile(path, include=["delete*"]).functions] == [
        "deletePet"]


def test_tools_and_to_json_are_json() -> None:
    """tools() and to_json() serialize with json.dumps."""
    app = httpllm.compile(SPECS / "library" / "openapi.yaml")
    json.dumps(app.tools())
    data = json.loads(json.dumps(app.to_json()))
    assert data["cycles"] == [["Category"]]
    assert {f["name"] for f in data["functions"]} == {"addItem", "createCategory", "search"}


def test_same_document_same_bytes() -> None:
    """Compiling twice gives byte-identical tools."""
    path = SPECS / "library" / "openapi.yaml"
    first = json.dumps(httpllm.compile(path, strict=True).tools())
    assert json.dumps(httpllm.compile(path, strict=True).tools()) == first


def test_recursive_schema_is_kept_under_defs() -> None:
    """A recursive schema stays as #/$defs/Name with $defs pruned to what is reached."""
    app = httpllm.compile(SPECS / "library" / "openapi.yaml")
    fn = app.function("createCategory")
    assert fn.parameters["properties"]["body"] == {"$ref": "#/$defs/Category"}
    assert set(fn.parameters["$defs"]) == {"Category"}
    assert "$defs" not in app.function("search").parameters


def test_reference_true_keeps_every_named_schema() -> None:
    """reference=True keeps a $defs entry for every named schema a function reaches."""
    app = httpllm.compile(SPECS / "petstore-3.0.yaml", reference=True)
    fn = app.function("createPet")
    assert fn.parameters["properties"]["body"] == {"$ref": "#/$defs/NewPet"}
    assert set(fn.parameters["$defs"]) == {"NewPet", "Owner"}


def test_credentials_and_transport_headers_are_not_arguments() -> None:
    """apiKey credentials and Accept/Content-Type/Authorization headers never reach the model."""
    doc = {"openapi": "3.0.3", "info": {"title": "t", "version": "1"},
           "components": {"securitySchemes": {"k": {"type": "apiKey", "in": "header",
                                                    "name": "X-Key"}}},
           "paths": {"/x": {"get": {"parameters": [
               {"name": "X-Key", "in": "header", "schema": {"type": "string"}},
               {"name": "Accept", "in": "header", "schema": {"type": "string"}},
               {"name": "q", "in": "query", "schema": {"type": "string"}}],
               "responses": {"200": {"description": "ok"}}}}}}
    fn = httpllm.compile(doc).functions[0]
    assert list(fn.parameters["properties"]) == ["q"]


def test_a_parameter_ref_to_nowhere_names_the_list_entry() -> None:
    """The error points at the operation's `parameters/0`, not at the operation."""
    doc = {"openapi": "3.0.3", "info": {"title": "t", "version": "1"},
           "paths": {"/b": {"post": {"operationId": "b",
                                     "parameters": [{"$ref": "#/components/parameters/Nope"}],
                                     "responses": {"200": {"description": "ok"}}}},
                     "/c": {"get": {"operationId": "c",
                                    "responses": {"200": {"description": "ok"}}}}}}
    app = httpllm.compile(doc)
    assert [f.name for f in app.functions] == ["c"]
    assert app.errors[0].pointer == "#/paths/~1b/post/parameters/0"
    assert app.errors[0].kind == "RefError"


def test_a_renamed_duplicate_operation_id_is_warned() -> None:
    """A repeated operationId gets `_2` and a warning at the renamed operation."""
    doc = {"openapi": "3.0.3", "info": {"title": "t", "version": "1"}, "paths": {
        "/a": {"get": {"operationId": "getA", "responses": {"200": {"description": "ok"}}}},
        "/b": {"get": {"operationId": "getA", "responses": {"200": {"description": "ok"}}}}}}
    app = httpllm.compile(doc)
    assert [f.name for f in app.functions] == ["getA", "getA_2"]
    assert [(w.pointer, "getA_2" in w.message) for w in app.warnings] == [
        ("#/paths/~1b/get", True)]


@pytest.mark.parametrize(("options", "option"), [
    ({"unroll": -1}, "unroll"), ({"max_depth": 1.5}, "max_depth"),
    ({"examples": "bogus"}, "examples"), ({"envelope": "bogus"}, "envelope"),
    ({"provider": "gemini", "strict": True}, "strict"),
])
def test_option_values_it_cannot_use_are_refused(options: dict[str, object],
                                                 option: str) -> None:
    """An option value compile cannot use raises OptionError naming the option."""
    with pytest.raises(httpllm.OptionError) as caught:
        httpllm.compile({"openapi": "3.1.0", "info": {"title": "t", "version": "1"},
                         "paths": {}}, **options)  # type: ignore[arg-type]
    assert caught.value.option == option and isinstance(caught.value, ValueError)


def test_warnings_leave_responses_alone_for_dialects_without_outputs() -> None:
    """Reading warnings computes response schemas only for a dialect whose tools carry
    them: a dangling response $ref is warned for mcp, not for chatgpt."""
    doc = {"openapi": "3.0.3", "info": {"title": "t", "version": "1"}, "paths": {
        "/a": {"get": {"operationId": "getA", "responses": {"200": {
            "description": "ok",
            "content": {"application/json": {"schema": {"$ref": "#/components/schemas/X"}}},
        }}}}}}
    assert not [w for w in httpllm.compile(doc).warnings if "response" in w.message]
    assert [w for w in httpllm.compile(doc, "mcp").warnings if "response" in w.message]
def test_mcp_renders_every_output_schema() -> None:
    """Compiling for `mcp` (whose renderer reads outputs) gives each operation its output."""
    path = SPECS / "petstore-3.0.yaml"
    wanted = {f.name: f.output for f in httpllm.compile(path, "3.1").functions}
    got = {f.name: f.output for f in httpllm.compile(path, "mcp").functions}
    assert sum(o is not None for o in wanted.values()) >= 2
    assert got == wanted


NOT_SCHEMAS: dict[str, Any] = {
    "openapi": "3.1.0", "info": {"title": "t", "version": "1"},
    "paths": {
        "/ref": {"post": {"operationId": "refToText", "requestBody": {"content": {
            "application/json": {"schema": {"$ref": "#/info/title"}}}},
            "responses": {"200": {"description": "ok"}}}},
        "/named": {"get": {"operationId": "named", "parameters": [
            {"name": "q", "in": "query", "schema": {"$ref": "#/components/schemas/Str"}}],
            "responses": {"200": {"description": "ok"}}}},
        "/self": {"get": {"operationId": "self", "parameters": [
            {"name": "q", "in": "query", "schema": {"$ref": "#"}}],
            "responses": {"200": {"description": "ok"}}}},
        "/number": {"post": {"operationId": "number", "requestBody": {"content": {
            "application/json": {"schema": 42}}}, "responses": {"200": {"description": "ok"}}}},
        "/nested": {"post": {"operationId": "nested", "requestBody": {"content": {
            "application/json": {"schema": {"type": "object", "properties": {
                "a": 42, "c": {"type": "array", "items": "x"},
                "d": {"anyOf": [{"type": "string"}, 7]},
                "e": {"type": "object", "patternProperties": {"^x": 5}},
                "f": {"type": "object", "properties": [1]}}}}}},
            "responses": {"200": {"description": "ok"}}}},
    },
    "components": {"schemas": {"Str": "just a string"}},
}


def test_a_value_that_is_not_a_schema_never_reaches_a_tool() -> None:
    """A `$ref` to a string or to the whole document and a body schema `42` fail their
    operation, naming the pointer and what was expected; non-schemas nested in a schema
    are dropped with a warning at their pointer; the other operation is compiled."""
    app = httpllm.compile(NOT_SCHEMAS, "chatgpt")
    errors = {e.path: (e.kind, e.pointer, e.message) for e in app.errors}
    kind, pointer, message = errors["/ref"]
    assert (kind, pointer) == (
        "RefError", "#/paths/~1ref/post/requestBody/content/application~1json/schema")
    assert "points to a string at #/info/title; expected a Schema Object" in message
    assert "points to the whole OpenAPI document" in errors["/self"][2]
    assert "points to a string at #/components/schemas/Str" in errors["/named"][2]
    kind, _, message = errors["/number"]
    assert kind == "SpecError" and "expected a Schema Object" in message and "not 42" in message
    (nested,) = app.functions
    body = nested.parameters["properties"]["body"]["properties"]
    # Dropped first, so the later passes finish what is left as they do any schema: an
    # array's absent items made explicit, a union of one member its member.
    assert body == {"c": {"type": "array", "items": {}}, "d": {"type": "string"},
                    "e": {"type": "object", "patternProperties": {}}, "f": {"type": "object"}}
    at = "#/paths/~1nested/post/requestBody/content/application~1json/schema/properties"
    assert sorted(w.pointer for w in app.warnings) == [
        f"{at}/a", f"{at}/c/items", f"{at}/d/anyOf/1", f"{at}/e/patternProperties/^x",
        f"{at}/f/properties"]


def test_a_success_response_that_cannot_be_read_is_a_warning_not_a_skip() -> None:
    """A dangling or looping `$ref` for the success response leaves the operation compiled
    (the request does not need it), without an output schema, and warns at the `$ref`."""
    doc = {"openapi": "3.0.3", "info": {"title": "t", "version": "1"},
           "paths": {"/c": {"get": {"operationId": "getC", "responses": {
               "200": {"$ref": "#/components/responses/Nope"}}}},
                     "/d": {"get": {"operationId": "getD", "responses": {
                         "200": {"$ref": "#/components/responses/Loop"}}}}},
           "components": {"responses": {"Loop": {"$ref": "#/components/responses/Loop"}}}}
    for provider in ("chatgpt", "mcp"):
        app = httpllm.compile(doc, provider)
        assert app.errors == () and [f.name for f in app.functions] == ["getC", "getD"]
        assert all(f.output is None for f in app.functions)
        warned = {w.pointer: w.message for w in app.warnings}
        assert "points to nowhere" in warned["#/paths/~1c/get/responses/200"]
        assert "loops" in warned["#/components/responses/Loop"]


def test_errors_come_in_the_document_order() -> None:
    """Operations fail at different stages (here render, then draft) but are reported in the
    order of the document, so a reader finds them where they are."""
    doc = {"openapi": "3.1.0", "info": {"title": "t", "version": "1"},
           "paths": {
               "/a": {"post": {"operationId": "a", "requestBody": {"content": {
                   "application/json": {"schema": {"$ref": "#/components/schemas/Node"}}}},
                   "responses": {"200": {"description": "ok"}}}},
               "/b": {"get": {"operationId": "b", "parameters": [
                   {"name": "q", "in": "query", "schema": {"$ref": "#/components/schemas/No"}}],
                   "responses": {"200": {"description": "ok"}}}}},
           "components": {"schemas": {"Node": {"type": "object", "properties": {
               "next": {"$ref": "#/components/schemas/Node"}}}}}}
    app = httpllm.compile(doc, "gemini")
    assert [(e.path, e.kind) for e in app.errors] == [("/a", "Unrepresentable"),
                                                     ("/b", "RefError")]


@pytest.mark.parametrize("stage", ["draft", "render"])
def test_a_fault_of_ours_costs_one_operation_not_the_document(
        stage: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """An exception that is not an HttpllmError (a fault of ours, as a malformed
    ``required`` raising TypeError was) in one operation, while drafting or rendering it,
    is that operation's error, kind ``InternalError``, saying to report it; the others
    compile (it sank the whole document)."""
    from httpllm.compose.operation import Composer
    from httpllm.render import Renderer

    doc = {"openapi": "3.1.0", "info": {"title": "t", "version": "1"}, "paths": {
        "/a": {"get": {"operationId": "a", "responses": {"200": {"description": "ok"}}}},
        "/b": {"get": {"operationId": "b", "responses": {"200": {"description": "ok"}}}}}}
    owner, name = (Composer, "draft") if stage == "draft" else (Renderer, "render")
    original = getattr(owner, name)

    def faulty(self: Any, job: Any, *args: Any, **kwargs: Any) -> Any:
        site = getattr(job, "site", job)
        if getattr(site, "path", None) == "/a" or getattr(job, "path", None) == "/a":
            raise TypeError("unhashable type: 'dict'")
        return original(self, job, *args, **kwargs)

    monkeypatch.setattr(owner, name, faulty)
    app = httpllm.compile(doc, "chatgpt")
    assert [f.name for f in app.functions] == ["b"]
    [error] = app.errors
    assert (error.path, error.kind, error.pointer) == ("/a", "InternalError", "#/paths/~1a/get")
    assert "TypeError: unhashable type: 'dict'" in error.message and "report" in error.message


def test_application_methods_are_typed() -> None:
    """Application's public methods state real types (mypy checks they resolve): no
    ``Any`` return, no untyped ``**kwargs`` (``dumps`` passes its keywords to
    ``json.dumps``, as it documents)."""
    import inspect

    methods = {n: m for n, m in vars(httpllm.Application).items()
               if callable(m) and not n.startswith("_")}
    assert {"validate", "execute", "aexecute", "budget", "groups", "lint"} <= set(methods)
    for name, method in methods.items():
        signature = inspect.signature(method)
        assert signature.return_annotation not in ("Any", "list[Any]"), name
        for parameter in signature.parameters.values():
            if parameter.kind is parameter.VAR_KEYWORD and name != "dumps":
                assert str(parameter.annotation).startswith("Unpack["), name


@pytest.mark.parametrize(("options", "function"), [
    ("ExecuteOptions", "execute"), ("AsyncExecuteOptions", "aexecute"),
    ("HandleOptions", "handle"), ("AsyncHandleOptions", "ahandle")])
def test_options_records_are_the_functions_keywords(options: str, function: str) -> None:
    """Each TypedDict Application unpacks holds exactly the keyword options of the
    function it forwards to, so a new option cannot be left out of the types."""
    import inspect

    from httpllm import agent, execute

    module = execute if "Execute" in options else agent
    record = getattr(module, options)
    parameters = inspect.signature(getattr(module, function)).parameters
    keywords = {n for n, p in parameters.items() if p.kind is p.KEYWORD_ONLY} - {"format"}
    assert set(record.__annotations__) == keywords


UNHELD = """{"openapi": "3.1.0", "info": {"title": "t", "version": "1"},
 "components": {"schemas": {"Size": {"type": "number", "maximum": 1e400, "minimum": 1e-400,
                                      "enum": [2, 1e400], "default": 1e400}}},
 "paths": {"/a": {"post": {"operationId": "postA",
  "parameters": [{"name": "x", "in": "query", "example": 1e400,
                  "schema": {"type": "number", "multipleOf": 1e-400, "const": -1e400}}],
  "requestBody": {"content": {"application/json": {"schema": {"type": "object",
    "properties": {"size": {"$ref": "#/components/schemas/Size"},
                   "n": {"type": "integer", "exclusiveMaximum": 1000%s}}}}}},
  "responses": {"200": {"description": "ok"}}}}}}""" % ("0" * 400)


@pytest.mark.parametrize("text", [UNHELD, "# YAML (flow style): YAML 1.1 floats have a dot\n"
                                  + UNHELD.replace("1e400", "1.0e+400").replace(
                                      "1e-400", "1.0e-400")], ids=["json", "yaml"])
def test_numbers_no_double_holds_leave_every_tool_with_a_loss(text: str) -> None:
    """`maximum: 1e400`, `multipleOf: 1e-400`, an integer of 400 digits ... : every tool
    of every provider is JSON with no such number (and no null in their place), validate
    works, and each change is a loss at the keyword's document pointer."""
    for provider in httpllm.providers():
        app = httpllm.compile(text, provider)
        assert not app.errors, provider
        tools = json.dumps(app.tools(), allow_nan=False)
        assert "null" not in tools and "1e400" not in tools and '"1' + "0" * 50 not in tools
    app = httpllm.compile(text, "chatgpt")
    [function] = app.functions
    assert function.examples == ()
    assert app.validate("postA", {"x": 3, "body": {"size": 2, "n": 5}}).errors == ()
    assert app.validate("postA", {"x": 3, "body": {"size": 0}}).errors
    lost = {x.pointer.removeprefix("#/"): x.action for x in app.losses}
    assert lost == {
        "paths/~1a/post/parameters/0/example": "dropped",
        "paths/~1a/post/parameters/0/schema/multipleOf": "dropped",
        "paths/~1a/post/parameters/0/schema/const": "dropped",
        "components/schemas/Size/maximum": "dropped",
        "components/schemas/Size/minimum": "rewritten",
        "components/schemas/Size/enum/1": "dropped",
        "components/schemas/Size/default": "dropped",
        "paths/~1a/post/requestBody/content/application~1json/schema/properties/n/"
        "exclusiveMaximum": "dropped",
    }


CYCLIC_GARBAGE_DOC: dict[str, Any] = {
    "openapi": "3.0.3",
    "info": {"title": "t", "version": "1"},
    "paths": {
        "/pets": {"post": {
            "operationId": "addPet",
            "requestBody": {"content": {"application/json": {"schema": {
                "$ref": "#/components/schemas/Pet"}}}},
            "responses": {"200": {"description": "ok", "content": {"application/json": {
                "schema": {"$ref": "#/components/schemas/Pet"}}}}}}},
        "/nodes": {"put": {
            "operationId": "putNode",
            "requestBody": {"content": {"application/json": {"schema": {
                "$ref": "#/components/schemas/Node"}}}},
            "responses": {"200": {"description": "ok", "content": {"application/json": {
                "schema": {"$ref": "#/components/schemas/Broken"}}}}}}},
        "/broken": {"post": {
            "operationId": "postBroken",
            "requestBody": {"content": {"application/json": {"schema": {
                "$ref": "#/components/schemas/Broken"}}}},
            "responses": {"204": {"description": "none"}}}},
    },
    "components": {"schemas": {
        "Pet": {"type": "object", "required": ["kind"], "discriminator": {
            "propertyName": "kind"},
            "properties": {"kind": {"type": "string"}, "id": {"type": "integer",
                                                              "readOnly": True}}},
        "Cat": {"allOf": [{"$ref": "#/components/schemas/Pet"},
                          {"type": "object", "properties": {"lives": {"type": "integer"}}}]},
        "Dog": {"allOf": [{"$ref": "#/components/schemas/Pet"},
                          {"type": "object", "properties": {"bark": {"type": "string"}}}]},
        "Node": {"type": "object", "properties": {
            "children": {"type": "array", "items": {"$ref": "#/components/schemas/Node"}},
            "value": {"oneOf": [{"type": "string"}, {"type": "integer"}]}}},
        "Broken": {"type": "object", "properties": {"x": {"$ref": "#/components/schemas/No"}}},
    }},
}


@pytest.mark.parametrize("options", [{}, {"provider": "claude", "strict": True},
                                     {"provider": "mcp"}, {"reference": True}])
def test_a_compile_leaves_no_reference_cycle(options: dict[str, Any]) -> None:
    """Compiling, listing the tools and reading every output leave nothing for the cyclic
    collector (httpllm switches no process-wide collector state: reference counting must
    free every intermediate, docs/architecture.md)."""
    import gc

    httpllm.compile(CYCLIC_GARBAGE_DOC, **options).tools()  # imports: their garbage is not ours
    gc.collect()
    was = gc.isenabled()
    gc.disable()
    try:
        app = httpllm.compile(CYCLIC_GARBAGE_DOC, **options)
        assert {f.name for f in app.functions} == {"addPet", "putNode"}
        json.dumps(app.tools())
        outputs = [f.output for f in app.functions]
        assert outputs[0] is not None and app.warnings  # the broken response is reported
        assert [error.path for error in app.errors] == ["/broken"]
        del app, outputs
        assert gc.collect() == 0
    finally:
        if was:
            gc.enable()


@pytest.mark.parametrize(("ref", "what"), [
    ("#/info", "the document's 'info'"),
    ("#/components/parameters/P", "a Parameter Object"),
    ("#/components/responses/R", "a Response Object"),
    ("#/components/headers/H", "a Header Object"),
    ("#/paths/~1p", "a Path Item Object"),
    ("#/paths/~1p/get", "an Operation Object"),
    ("#/components", "the document's components"),
])
def test_a_schema_ref_to_another_kind_of_object_fails_its_operation(ref: str,
                                                                      what: str) -> None:
    """A schema ``$ref`` naming a Parameter, Response, Header Object, a path item, an
    operation or ``info`` fails its operation saying what it points to (each compiled as
    a schema taking any value, in silence); a ``$ref`` into such an object's ``schema``
    is a schema, and the other operation compiles."""
    doc: dict[str, Any] = {
        "openapi": "3.1.0", "info": {"title": "t", "version": "1"},
        "paths": {
            "/p": {"get": {"operationId": "bad", "parameters": [
                {"name": "q", "in": "query", "schema": {"$ref": ref}}],
                "responses": {"200": {"description": "ok"}}}},
            "/ok": {"get": {"operationId": "ok", "parameters": [
                {"name": "q", "in": "query",
                 "schema": {"$ref": "#/components/parameters/P/schema"}}],
                "responses": {"200": {"description": "ok"}}}}},
        "components": {
            "parameters": {"P": {"name": "p", "in": "query", "schema": {"type": "integer"}}},
            "responses": {"R": {"description": "r"}},
            "headers": {"H": {"schema": {"type": "string"}}}}}
    app = httpllm.compile(doc)
    assert [f.name for f in app.functions] == ["ok"]
    assert app.functions[0].parameters["properties"]["q"] == {"type": "integer"}
    [error] = app.errors
    assert (error.kind, error.pointer) == ("RefError", "#/paths/~1p/get/parameters/0/schema")
    assert error.message == f"$ref {ref!r} points to {what}; expected a Schema Object"


_LONE = ('{"openapi": "3.0.3", "info": {"title": "t", "version": "1"}, "paths": {"/a": {"get": {'
         '"operationId": "getA", "summary": "Reads a \\ud83d", "parameters": [{"name": "q", '
         '"in": "query", "schema": {"type": "string", "enum": ["\\udfff", "ok"]}}], '
         '"responses": {"200": {"description": "ok"}}}}}}')
"""A document whose JSON text holds lone surrogates' escapes (a summary cut inside an
emoji's pair by the tool that wrote it, an enum)."""


@pytest.mark.parametrize("provider", ["chatgpt", "claude"])
def test_tools_of_text_with_lone_surrogates_reach_the_provider(provider: str) -> None:
    """The provider's own SDK sends the tools of a document whose text held lone
    surrogates (before: UnicodeEncodeError in the SDK's request, after compile said
    nothing); a warning names where U+FFFD took their place."""
    import anthropic
    import httpx
    import httpx2
    import openai

    sent: list[bytes] = []
    http_module: Any = httpx if provider == "chatgpt" else httpx2  # Anthropic's SDK: the fork

    def api(request: Any) -> Any:
        sent.append(request.content)
        return http_module.Response(500, json={"error": {"message": "stop here"}})

    app = httpllm.compile(_LONE, provider)
    [warning] = app.warnings
    assert "2 string(s) held a lone surrogate" in warning.message
    assert "#/paths/~1a/get/summary" in warning.message
    http = http_module.Client(transport=http_module.MockTransport(api))
    with pytest.raises((openai.APIStatusError, anthropic.APIStatusError)):
        if provider == "chatgpt":
            openai.OpenAI(api_key="k", http_client=http, max_retries=0).chat.completions.create(
                model="m", messages=[{"role": "user", "content": "hi"}], tools=app.tools())
        else:
            anthropic.Anthropic(api_key="k", http_client=http, max_retries=0).messages.create(
                model="m", max_tokens=8, messages=[{"role": "user", "content": "hi"}],
                tools=app.tools())
    [body] = sent
    assert "Reads a \ufffd" in body.decode() and "\\ud" not in body.decode()


def test_a_dict_document_keeps_the_callers_strings() -> None:
    """A document given as a ``dict`` is the caller's: its strings are used as given (a
    lone surrogate stays; ``json.dumps`` writes its escape), and no warning is made."""
    app = httpllm.compile(json.loads(_LONE), "chatgpt")
    assert app.warnings == ()
    assert "Reads a \ud83d" in json.dumps(app.tools(), ensure_ascii=False,
                                          ).encode("utf-8", "surrogatepass").decode(
                                              "utf-8", "surrogatepass")


def test_a_referenced_file_with_lone_surrogates_is_named_in_the_warning(
        tmp_path: Path) -> None:
    """A lone surrogate in a file a `$ref` reads: U+FFFD, the warning naming that file."""
    (tmp_path / "q.json").write_text('{"type": "string", "description": "x\\udc00"}')
    (tmp_path / "api.json").write_text(_LONE.replace(
        '{"type": "string", "enum": ["\\udfff", "ok"]}', '{"$ref": "q.json"}'))
    app = httpllm.compile(tmp_path / "api.json", "chatgpt")
    messages = [w.message for w in app.warnings]
    assert any(f"{tmp_path / 'q.json'}#/description" in m for m in messages), messages
    assert "x\ufffd" in json.dumps(app.tools(), ensure_ascii=False)
