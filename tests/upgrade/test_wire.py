"""Requests built from a Swagger 2.0 document, as the echo app on 127.0.0.1 receives them:
every collectionFormat, a body parameter, formData with a file and a form."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import httpx
import pytest

import httpllm

WIRE = Path(__file__).resolve().parents[1] / "fixtures" / "swagger2" / "wire.yaml"


@pytest.fixture(scope="module")
def app() -> httpllm.Application:
    """The wire document, compiled."""
    return httpllm.compile(WIRE, "3.1")


def seen(app: httpllm.Application, name: str, arguments: dict[str, Any], base: str,
         **kwargs: Any) -> dict[str, Any]:
    """What the echo app received for a validated, sent tool call."""
    with httpx.Client() as client:
        result = app.execute(name, arguments, client=client, base_url=base, **kwargs)
    assert result.status == 200
    body: dict[str, Any] = result.body
    return body


def header(received: dict[str, Any], name: str) -> str:
    return next(v for k, v in received["headers"] if k == name.lower())


def test_each_collection_format_on_the_wire(app: httpllm.Application, echo_server: str) -> None:
    """csv (the default), ssv, tsv, pipes and multi arrays reach the server as 2.0 says."""
    got = seen(app, "listItems", {"csv": ["a", "b"], "ssv": ["a", "b"], "tsv": ["a", "b"],
                                  "pipes": ["a", "b"], "multi": ["a", "b"], "empty": ""},
               echo_server)
    assert got["query_string"] == ("csv=a,b&ssv=a%20b&tsv=a%09b&pipes=a%7Cb&multi=a&multi=b"
                                   "&empty=")


def test_csv_in_path_and_header(app: httpllm.Application, echo_server: str) -> None:
    """A csv array (the default) in a path and in a header is comma-joined."""
    got = seen(app, "getItems", {"ids": [1, 2], "X-Tags": ["x", "y"]}, echo_server)
    assert got["raw_path"] == "/items/1,2"
    assert header(got, "X-Tags") == "x,y"


def test_body_parameter_is_the_json_body(app: httpllm.Application, echo_server: str) -> None:
    """An `in: body` parameter is sent as the JSON request body."""
    got = seen(app, "addPet", {"body": {"name": "Rex", "tag": None}}, echo_server)
    assert json.loads(got["body"]) == {"name": "Rex", "tag": None}
    assert header(got, "content-type") == "application/json"


def test_form_data_with_a_file_is_multipart(app: httpllm.Application, echo_server: str) -> None:
    """formData with `type: file` is multipart/form-data with a file part; multi repeats."""
    got = seen(app, "upload", {"body": {"note": "hi", "tags": ["a", "b"]}}, echo_server,
               files={"#/body/file": ("a.txt", b"file bytes", "text/plain")})
    assert header(got, "content-type").startswith("multipart/form-data; boundary=")
    body = got["body"]
    assert 'name="file"; filename="a.txt"' in body and "file bytes" in body
    assert body.count('name="tags"') == 2 and 'name="note"' in body


def test_form_data_without_a_file_is_urlencoded(app: httpllm.Application,
                                                echo_server: str) -> None:
    """formData without a file is a urlencoded form; a pipes array is joined by `|`."""
    got = seen(app, "sendForm", {"body": {"name": "a b", "codes": ["x", "y"]}}, echo_server)
    assert header(got, "content-type") == "application/x-www-form-urlencoded"
    assert got["body"] == "name=a%20b&codes=x%7Cy"


def test_validate_reports_a_missing_required_form_field(app: httpllm.Application) -> None:
    """validate checks the form body made of formData parameters (its required fields)."""
    result = app.validate("sendForm", {"body": {"codes": ["x"]}})
    assert [(e.pointer, e.keyword) for e in result.errors] == [("#/body/name", "required")]


def test_servers_come_from_host_base_path_and_schemes(app: httpllm.Application) -> None:
    """build_request uses https://host/basePath when no base_url is given."""
    from httpllm.execute import build_request

    request = build_request(app.function("addPet"), {"body": {"name": "R"}})
    assert str(request.url) == "https://api.example.com/v2/pets"
