"""What a `$ref` into another file may read (`httpllm._content`): the file must hold OpenAPI
or JSON Schema content, and what the `$ref` points at in it must be content itself."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

import httpllm
from httpllm.errors import AccessDenied
from httpllm.load import Loader


@pytest.mark.parametrize(("content", "read"), [
    ({"description": "a header"}, True),  # a response, body or header with nothing else
    ({"summary": "one", "value": {"id": 1}}, True),  # an example object
    ({"Pet": {"type": "object"}}, True),  # a file of named schemas
    ({"E400": {"value": {"errors": []}}, "E404": {"summary": "gone"}}, True),  # examples
    ({"get": {"responses": {"200": {"description": "ok"}}}}, True),  # a path item
    ({"scheme": {"type": "http", "scheme": "bearer"}}, True),  # a security scheme
    ({"description": "my app", "database": {"password": "hunter2"}}, False),  # settings
    # settings sharing a keyword's name, not the kind of value it takes
    ({"database": {"password": "hunter2", "schema": "public"}}, False),
    ({"proxy": {"headers": ["X-Token: t0k"]}, "key": "k"}, False),
    ({"bucket": {"in": "eu-west-1", "secret": "s"}}, False),
    ({"app": {"properties": "prod.properties", "items": 3, "enum": "on"}}, False),
    ({"Key": {"type": "apiKey", "in": "header", "name": "X-Key"}, "Q": {"in": "query"}}, True),
    ({"A": {"allOf": [{"$ref": "b.yaml"}], "x-tag": 1}}, True),
    ({"apiVersion": "v1", "kind": "Secret", "type": "Opaque", "data": {"k": "djE="}}, False),
    # maps of a setting's texts, not of objects or schemas
    ({"headers": {"Authorization": "Bearer t0k"}}, False),
    ({"parameters": {"api_key": "k"}}, False),
    ({"paths": {"data": "/var/db"}, "secret": "s"}, False),
    ({"spark": {"properties": {"executor": "4g"}}, "key": "k"}, False),
    ({"description": "ok", "headers": {"X-Rate": {"schema": {"type": "integer"}}}}, True),
    ({"properties": {"a": True}}, True),
    ({"type": "service_account", "private_key": "-----BEGIN"}, False),
    (["a", "list"], False),
])
def test_what_reads_as_openapi_or_json_schema_content(tmp_path: Path, content: Any,
                                                      read: bool) -> None:
    """The content rule: schema and OpenAPI objects are read; settings, a Kubernetes
    secret or a service-account key beside the document are not."""
    root = tmp_path / "openapi.yaml"
    root.write_text("openapi: 3.1.0\n")
    (tmp_path / "file.json").write_text(json.dumps(content))
    loader = Loader(root)
    if read:
        assert loader((tmp_path / "file.json").as_uri()) == content
    else:
        with pytest.raises(AccessDenied, match="does not read as OpenAPI or JSON Schema"):
            loader((tmp_path / "file.json").as_uri())


SETTINGS = "logging: {format: json}\nstripe_key: s3cr3t-X1\ndb: {password: hunter2}\n"
"""A settings file beside the document: a keyword sits in its first levels (``format``),
so the file passes the content rule, and no value has a credential's shape (a file
holding one is refused whole: ``credential_in``); what a ``$ref`` points at in it does
not read as content."""


@pytest.mark.parametrize("ref", ["config.yaml", "config.yaml#/stripe_key", "config.yaml#/db"])
@pytest.mark.parametrize("provider", httpllm.providers())
def test_a_ref_into_a_settings_file_is_refused(tmp_path: Path, ref: str,
                                               provider: str) -> None:
    """A `$ref` to a settings file beside the document, or to a value in it, is refused
    where it points (AccessDenied, the operation's error): the whole file's `stripe_key`
    was inlined into the tools (and dropped by a dialect's keyword filter only), and
    `#/stripe_key` put the key itself where a schema goes. No provider's tools, warnings
    or errors hold it; the other operation compiles."""
    (tmp_path / "config.yaml").write_text(SETTINGS)
    app = httpllm.compile(_api_with_ref(tmp_path, ref), provider)
    assert [e.kind for e in app.errors] == ["AccessDenied"]
    assert [f.name for f in app.functions] == ["b"]
    shown = json.dumps([app.tools(), app.to_json()])
    assert "s3cr3t" not in shown and "hunter2" not in shown
    assert "does not read as OpenAPI or JSON Schema content" in app.errors[0].message


@pytest.mark.parametrize(("settings", "ref"), [
    ("scheme: https\nhost: api.example.com\napi_key: sk_live_X2\n", "config.yaml"),
    ("primary: {scheme: postgres, password: hunter2}\n", "config.yaml"),
    ("primary: {scheme: postgres, password: hunter2}\n", "config.yaml#/primary"),
    ("format: json\ntokens: [sk_live_X3]\n", "config.yaml"),
    ("scheme: https\nx-api-key: hunter2\n", "config.yaml"),
    ("type: object\nclient_secret: hunter2\n", "config.yaml"),
])
def test_a_keyword_beside_a_setting_is_no_content(tmp_path: Path, settings: str,
                                                  ref: str) -> None:
    """One keyword at the target's top (`scheme: https`, a service's `format: json`) does
    not make a sibling credential content: the whole target was inlined and the key or
    password reached the loss report as a dropped keyword's value (`--losses`). A value
    shaped like a credential refuses the file (`sk_live_...`); a sibling whose key names
    one (`password`, `x-api-key`, `client_secret`) refuses the target. No output holds
    the secret."""
    (tmp_path / "config.yaml").write_text(settings)
    (tmp_path / "api.json").write_text(json.dumps({
        "openapi": "3.1.0", "info": {"title": "t", "version": "1"}, "paths": {
            "/a": {"post": {"operationId": "a", "requestBody": {"content": {
                "application/json": {"schema": {"type": "object", "properties": {
                    "x": {"$ref": ref}}}}}}, "responses": {"200": {"description": "ok"}}}}}}))
    app = httpllm.compile(tmp_path / "api.json", "3.1")
    assert [e.kind for e in app.errors] == ["AccessDenied"]
    shown = json.dumps([app.tools(), app.to_json(), [loss.to_json() for loss in app.losses]])
    assert "sk_live" not in shown and "hunter2" not in shown


def test_a_vendor_object_beside_keywords_is_content(tmp_path: Path) -> None:
    """A schema in another file holding a vendor's own object under a key of neither
    vocabulary (SendGrid's `example-1: {...}`) or an `x-` text is read as before."""
    (tmp_path / "schemas.yaml").write_text(
        "Err:\n  type: object\n  example-1: {errors: []}\n  x-note: kept\n"
        "  properties: {code: {type: integer}}\n")
    (tmp_path / "api.json").write_text(json.dumps({
        "openapi": "3.1.0", "info": {"title": "t", "version": "1"}, "paths": {
            "/a": {"post": {"operationId": "a", "requestBody": {"content": {
                "application/json": {"schema": {"$ref": "schemas.yaml#/Err"}}}},
                "responses": {"200": {"description": "ok"}}}}}}))
    app = httpllm.compile(tmp_path / "api.json", "3.1")
    assert app.errors == ()
    assert "code" in app.functions[0].parameters["properties"]["body"]["properties"]


def test_maps_of_named_content_in_files_are_read(tmp_path: Path) -> None:
    """A file holding named content a document's map points at reads as content: `paths`
    (Google Maps' `paths/_index.yml`), named `properties` (DigitalOcean's `attributes.yml`),
    security schemes (SendGrid's `securitySchemes.json`)."""
    (tmp_path / "paths.yaml").write_text(
        "/a:\n  get:\n    operationId: a\n    security: [{k: []}]\n    parameters:\n"
        "      - {name: q, in: query, schema: {type: object, properties: "
        "{$ref: 'props.yaml#/pair'}}}\n    responses: {'200': {description: ok}}\n")
    (tmp_path / "props.yaml").write_text("pair:\n  left: {type: integer}\n  right: "
                                         "{type: string}\n")
    (tmp_path / "schemes.yaml").write_text("k: {type: apiKey, in: header, name: X-Key}\n")
    (tmp_path / "api.json").write_text(json.dumps({
        "openapi": "3.1.0", "info": {"title": "t", "version": "1"},
        "paths": {"$ref": "paths.yaml"},
        "components": {"securitySchemes": {"$ref": "schemes.yaml"}}}))
    app = httpllm.compile(tmp_path / "api.json")
    assert app.errors == () and app.warnings == ()
    (a,) = app.functions
    assert set(a.parameters["properties"]["q"]["properties"]) == {"left", "right"}
    assert a.security_schemes["k"]["name"] == "X-Key"



def _api_with_ref(tmp_path: Path, ref: str) -> Path:
    """A document whose one operation's body has a property ``x`` that is ``$ref: ref``."""
    (tmp_path / "api.json").write_text(json.dumps({
        "openapi": "3.1.0", "info": {"title": "t", "version": "1"}, "paths": {
            "/a": {"post": {"operationId": "a", "requestBody": {"content": {
                "application/json": {"schema": {"type": "object", "properties": {
                    "x": {"$ref": ref}}}}}}, "responses": {"200": {"description": "ok"}}}},
            "/b": {"get": {"operationId": "b", "responses": {"200": {"description": "ok"}}}}}}))
    return tmp_path / "api.json"


AWS_KEY = "AKIAZ3MSJV4WWNKWW5FG"
PEM = ("-----BEGIN RSA PRIVATE KEY-----\n"
       "MIIEowIBAAKCAQEAu1SU1LfVLPHCozMxH2Mo4lgOEePzNm0tRgeLezV6ffAt0gun\n"
       "-----END RSA PRIVATE KEY-----\n")
"""Credentials' shapes (neither is live)."""


@pytest.mark.parametrize("settings", [
    # under an `x-` key beside real keywords
    {"type": "object", "x-aws-key": AWS_KEY},
    {"type": "string", "x-deploy": {"key": PEM}},
    # under vocabulary words used as a settings file's names
    {"scheme": "https", "url": "postgres://admin:hunter2@db.internal/prod", "name": "prod"},
    {"type": "object", "default": {"aws_access_key_id": AWS_KEY}},
    {"type": "string", "description": "db: host=db.internal password=hunter2 sslmode=on"},
    {"summary": "deploy", "value": PEM},
    {"Pet": {"type": "object", "properties": {"id": {"type": "integer"}}},
     "profiles": {"default": {"token": "ghp_" + "a1B2" * 9}}},
    {"type": "object", "x-slack": "xoxb-" + "1234567890-" * 2 + "abcdefghij"},
    {"type": "object", "x-stripe": "rk_live_" + "Z" * 24},
    {"type": "object", "x-maps": "AIza" + "S" * 35},
])
@pytest.mark.parametrize("ref", ["config.json", "config.json#/type"])
def test_a_file_holding_a_credential_is_refused_whatever_key_holds_it(
        tmp_path: Path, settings: dict[str, Any], ref: str) -> None:
    """A file whose value looks like a credential (an AWS access key ID, a private key, a
    password in a URL or as `password=`, a GitHub, Slack, Stripe or Google key) is refused
    for every `$ref` into it, whatever key holds it: an `x-` extension or a vocabulary
    word (`url`, `default`, `description`, `value`, `name`) passed the gate, and the
    value reached the tools or the loss report. The other operation compiles; no output
    holds the secret, nor does the error."""
    (tmp_path / "config.json").write_text(json.dumps(settings))
    app = httpllm.compile(_api_with_ref(tmp_path, ref), "3.1")
    assert [f.name for f in app.functions] == ["b"]
    (error,) = app.errors
    assert error.kind == "AccessDenied" and "looks like" in error.message
    shown = json.dumps([app.tools(), app.to_json(), [loss.to_json() for loss in app.losses],
                        [e.message for e in app.errors]])
    for secret in (AWS_KEY, "MIIEowIBAAK", "hunter2", "ghp_", "xoxb-", "rk_live", "AIza"):
        assert secret not in shown


def test_a_credential_in_an_example_is_the_apis_own(tmp_path: Path) -> None:
    """Example data (`example`, `examples` and what they hold) is the API's own sample,
    which real descriptions fill with connection strings and keys (DigitalOcean's
    database and certificate schemas: `postgres://doadmin:...@`, `-----BEGIN PRIVATE
    KEY-----`): a schema file holding one there is read."""
    (tmp_path / "config.json").write_text(json.dumps({
        "type": "object", "properties": {"uri": {
            "type": "string", "example": "postgres://doadmin:wv78n3zpz42x@db.example.com/d"}},
        "examples": [{"uri": "postgres://doadmin:wv78n3zpz42x@db.example.com/d",
                      "key": PEM}]}))
    app = httpllm.compile(_api_with_ref(tmp_path, "config.json"), "3.1")
    assert app.errors == ()
    assert "uri" in app.functions[0].parameters["properties"]["body"]["properties"]["x"][
        "properties"]


@pytest.mark.parametrize("vendor", [
    {"javaType": "com.example.Pet"},
    {"readonly": True},
    {"x-go-type": "Pet", "javaType": "com.example.Pet", "additionalProperties": False},
    {"example-1": {"errors": []}, "x-note": "kept"},
    {"dbColumn": "pet_id", "maxDepth": 3, "tags": ["a", "b"]},
])
def test_a_schema_with_vendor_keywords_in_another_file_is_read(
        tmp_path: Path, vendor: dict[str, Any]) -> None:
    """A schema in another file holding a vendor's own keyword, a text, number, flag or
    list under a key of neither vocabulary (jsonschema2pojo's `javaType`, a lower-case
    `readonly`), is read as it was in the document itself: it was refused as a settings
    file's `key: value`, and every operation using it was lost."""
    (tmp_path / "schemas.json").write_text(json.dumps({"Pet": {
        "type": "object", "properties": {"id": {"type": "integer"}}, **vendor}}))
    app = httpllm.compile(_api_with_ref(tmp_path, "schemas.json#/Pet"), "3.1")
    assert app.errors == ()
    pet = app.functions[0].parameters["properties"]["body"]["properties"]["x"]
    assert pet["properties"] == {"id": {"type": "integer"}}
