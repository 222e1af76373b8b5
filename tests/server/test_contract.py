"""One contract for answers: what the official TypeScript SDK client (Ajv + ajv-formats)
refuses, the server never sends as ``structuredContent``.

The client and Ajv are installed by ``tests/server/ajv/setup.sh`` (npm, pinned versions);
without node and npm these tests are skipped, and fail under CI (the ``CI`` variable).
"""

from __future__ import annotations

import json
import os
import random
import shutil
import string
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import answers
import pytest
from loopback import running

HERE = Path(__file__).resolve().parent / "ajv"
SRC = str(Path(__file__).resolve().parents[2] / "src")
INSTALL_TIMEOUT = 600.0
"""Seconds ``npm ci`` may take."""
RUN_TIMEOUT = 120.0
"""Seconds one node run may take (a bound, not a measurement)."""


def _unavailable(message: str) -> None:
    if os.environ.get("CI"):
        pytest.fail(message, pytrace=False)
    pytest.skip(message)


@pytest.fixture(scope="module")
def node() -> str:
    """node, with the TypeScript SDK installed beside this test (``ajv/setup.sh``)."""
    found = shutil.which("node")
    if found is None or shutil.which("npm") is None:
        _unavailable("node and npm are needed to run the TypeScript SDK client")
    done = subprocess.run(["bash", str(HERE / "setup.sh")], capture_output=True, text=True,
                          timeout=INSTALL_TIMEOUT, check=False)
    if done.returncode != 0:
        _unavailable(f"installing the TypeScript SDK failed: {done.stderr[-500:]}")
    return str(found)


def _run(node: str, script: str, payload: Any, *args: str) -> Any:
    done = subprocess.run([node, str(HERE / script), *args], input=json.dumps(payload),
                          capture_output=True, text=True, timeout=RUN_TIMEOUT, check=True,
                          env={**os.environ, "PYTHONPATH": SRC})
    return json.loads(done.stdout)


SAMPLES: dict[str, list[str]] = {
    "date": ["2024-02-29", "2023-02-29", "2024-13-01", "2024-1-01", "2024-01-01\n",
             "\uff12\uff10\uff12\uff14-01-01", "2024-04-31"],  # full-width digits
    "time": ["10:00:00Z", "10:00:00", "23:59:60Z", "23:59:60+01:00", "00:59:60+01:00",
             "10:00:00.123+0530", "10:00:00+24:00", "10:00:00z"],
    "date-time": ["2024-01-01T10:00:00Z", "2024-01-01 10:00:00Z", "2024-01-01t10:00:00z",
                  "yesterday", "2024-01-01T10:00:00", "2024-01-01T10:00:00+01",
                  "2024-01-01T10:00:00Z\n"],
    "iso-time": ["10:00:00", "10:00:00Z", "25:00:00"],
    "iso-date-time": ["2024-01-01T10:00:00", "2024-01-01 10:00:00", "2024-01-01T10:00"],
    "duration": ["P1D", "PT", "P", "P1W", "P1Y2M3DT4H5M6S", "PT1.5S", "P1DT"],
    "uri": ["https://a.b/c?d#e", "a:b", "urn:isbn:123", "/rel", "http://[::1]:80/",
            "http://exa mple.com", 'http://a/"b', "x"],
    "uri-reference": ["/rel", "#frag", "", "http://a/b", 'a"b', "a b", "../x?y", "\\x"],
    "uri-template": ["/users/{id}", "/a{?b,c}", "{a:1000}", "{a:10000}", "a b"],
    "url": ["http://example.com", "https://10.0.0.1/", "http://localhost", "ftp://x.yz/a",
            "http://ex.co:80/p", "http://ünï.com"],
    "email": ["a@b.co", "a.b@c", "a..b@c.d", "a@b_c.d", "A@B.CO", "a@-b.c"],
    "hostname": ["example.com", "a-.com", "-a.com", "a" * 64 + ".com", "x.", "a_b.com"],
    "ipv4": ["1.2.3.4", "256.1.1.1", "01.2.3.4", "1.2.3", "1.2.3.4 "],
    "ipv6": ["::1", "2001:db8::1", "::ffff:1.2.3.4", "1::2::3", "fe80::1%eth0", "::",
             "1:2:3:4:5:6:7:8"],
    "uuid": ["123e4567-e89b-12d3-a456-426614174000", "123E4567-E89B-12D3-A456-426614174000",
             "urn:uuid:123e4567-e89b-12d3-a456-426614174000", "xyz"],
    "json-pointer": ["", "/a/b", "/a~2", "a", "/~0~1"],
    "json-pointer-uri-fragment": ["#", "#/a%20b", "#/a b", "/a"],
    "relative-json-pointer": ["0", "1/a", "0#", "01", "-1"],
    "byte": ["aGVsbG8=", "aGVsbG8", "abc\n\n", "", "YQ==", "Y===", "a b"],
    "regex": ["^a+$", "(", "a\\Z", "[a-z]"],
    "password": ["x"],
    "binary": ["\x00"],
    "idn-email": ["not an address"],
}
"""Valid and invalid strings per format, and the edges where the two engines could part."""


def _mutated(text: str, rng: random.Random) -> str:
    chars = list(text)
    for _ in range(rng.randint(1, 3)):
        pick = rng.random()
        if pick < 0.4 and chars:
            chars[rng.randrange(len(chars))] = rng.choice(string.printable + "é€")
        elif pick < 0.7:
            chars.insert(rng.randrange(len(chars) + 1), rng.choice(string.printable + "é"))
        elif chars:
            del chars[rng.randrange(len(chars))]
    return "".join(chars)


@pytest.mark.slow
def test_string_formats_match_ajv_formats(node: str) -> None:
    """Every string format ajv-formats asserts gives the same verdict in Python, on the
    samples and on 20 mutations of each (a Python regex is allowed to be stricter only for
    ``regex``, where JavaScript accepts escapes Python refuses)."""
    from httpllm.server.contract import STRING_FORMATS
    rng = random.Random(28)
    cases = [(f, v) for f, values in SAMPLES.items() for v in values]
    cases += [(f, _mutated(v, rng)) for f, v in list(cases) for _ in range(20)]
    verdicts = _run(node, "formats.mjs", [[{"type": "string", "format": f}, v]
                                          for f, v in cases])
    differ = [(f, v, ajv) for (f, v), ajv in zip(cases, verdicts, strict=True)
              if STRING_FORMATS[f](v) != ajv and not (f == "regex" and ajv)]
    assert differ == []


def test_numbers_and_schemas_match_ajv(node: str) -> None:
    """Numeric formats, and a draft-07 reading of items beside prefixItems: the server's
    check refuses whatever Ajv refuses."""
    from httpllm.server.contract import checker
    cases: list[tuple[dict[str, Any], Any]] = [
        ({"type": "integer", "format": "int32"}, 3_000_000_000),
        ({"type": "integer", "format": "int32"}, -(2**31)),
        ({"type": "number", "format": "int64"}, 1.5),
        ({"type": "number", "format": "int64"}, 2**40),
        ({"type": "number", "format": "float"}, 1e300),
        ({"format": "int32"}, "not a number"),
        ({"type": "array", "prefixItems": [{"type": "string"}], "items": {"type": "integer"}},
         ["a", 1]),
        ({"type": "object", "properties": {"at": {"type": "string", "format": "date-time"}}},
         {"at": "2024-02-30T00:00:00Z"}),
    ]
    verdicts = _run(node, "formats.mjs", [[schema, instance] for schema, instance in cases])
    for (schema, instance), ajv in zip(cases, verdicts, strict=True):
        check = checker(schema)
        assert check is not None
        ours = check(instance) is None
        assert ours == ajv or (ours is False and ajv is True), (schema, instance)


@pytest.fixture(scope="module")
def api() -> Iterator[str]:
    with running(answers.APP, lifespan="off") as url:
        yield url


@pytest.mark.slow
def test_the_typescript_client_accepts_every_answer(node: str, api: str,
                                                    tmp_path_factory: pytest.TempPathFactory
                                                    ) -> None:
    """The official TypeScript SDK client calls ``httpllm serve`` over stdio: an answer
    off its ``date-time`` or ``int32`` format is data with a note, never the client's
    ``-32602``; a valid one is structured; binary answers come as blocks."""
    spec = tmp_path_factory.mktemp("contract") / "answers.json"
    spec.write_text(json.dumps(answers.document(api)))
    calls = [["getEvent", {}], ["getEvent", {"created": "2024-02-29T10:00:00Z",
                                             "size": 3 * 10**9}],
             ["getEvent", {"created": "2024-02-29 10:00:00+01:00", "size": 7}],
             ["getImage", {}], ["getEmptyText", {}], ["getLongText", {}]]
    got = _run(node, "client.mjs", calls, sys.executable, "-m", "httpllm", "serve",
               str(spec))
    errors = [g["error"] for g in got if "error" in g]
    assert errors == []
    bad_date, bad_size, good, image, empty, long_text = (g["result"] for g in got)
    assert bad_date["isError"] and "structuredContent" not in bad_date
    assert bad_date["content"][0]["text"].startswith("Mismatch: at /created")
    assert bad_size["isError"] and "at /size" in bad_size["content"][0]["text"]
    assert good["structuredContent"] == {"created": "2024-02-29 10:00:00+01:00", "size": 7}
    assert image["content"][0]["type"] == "image"
    assert empty["structuredContent"] == {"result": ""}
    assert len(long_text["content"][0]["text"]) == 40_000


def _malformed_keywords() -> dict[str, Any]:
    """A document whose schemas hold what JSON Schema allows or tolerates and Ajv refuses:
    an enum listing a value twice (``1`` and ``1.0`` are one), an empty enum, an enum that
    is no list, a name ``required`` twice, in parameters, a body and a response; a
    ``$ref`` cycle that passes no property or item (Ajv overflows its stack on it); and
    ``title``, ``description`` or ``contentEncoding`` that are no string, ``type`` null
    (YAML's empty ``description:`` or ``type:``), a ``pattern`` ``new RegExp(p, "u")``
    throws on (``a**``, PCRE's ``\\p{Han}``), ``items: []``,
    ``allOf`` holding one schema instead of a list of them."""
    wants = {"type": "object", "properties": {"a": {"type": "string"}, "e": {"enum": []}},
             "required": ["a", "a"]}
    returns = {"type": "object", "required": ["k", "k"], "properties": {
        "k": {"type": "string", "enum": ["a", "a"]}, "e": {"enum": []},
        "n": {"enum": [1, 1.0, [2], [2.0]]}, "s": {"type": "string", "enum": "a"}}}
    query = [{"name": name, "in": "query", "schema": schema} for name, schema in [
        ("kind", {"type": "string", "enum": ["a", "a", "b"]}), ("num", {"enum": [1, 1.0]}),
        ("none", {"type": "string", "enum": []}), ("text", {"type": "string", "enum": "a"})]]
    loop = {"$ref": "#/components/schemas/circular1"}  # oasdiff's circular3.yaml
    odd = {"type": "object", "title": 5, "description": {"x": 1}, "properties": {
        "t": {"type": "string", "title": 5, "contentEncoding": 5}, "u": {"type": "array",
                                                                     "items": []},
        "v": {"allOf": {"type": "string"}}, "w": {"type": "string", "description": None},
        "x": {"type": None, "format": "uri"}, "y": {"type": "string", "pattern": "a**"},
        "z": {"type": "string", "pattern": r"\p{Han}+"}}}
    cycle = {f"circular{i}": {"oneOf": [{"$ref": f"#/components/schemas/circular{i % 3 + 1}"}]}
             for i in (1, 2, 3)}
    return {"openapi": "3.1.0", "info": {"title": "t", "version": "1"}, "paths": {"/x": {
        "post": {"operationId": "makeX", "parameters": query, "requestBody": {"content": {
            "application/json": {"schema": wants}}}, "responses": {"200": {
                "description": "ok", "content": {"application/json": {"schema": returns}}}}}},
        "/loop": {"put": {"operationId": "putLoop", "requestBody": {"content": {
            "application/json": {"schema": loop}}}, "responses": {"200": {
                "description": "ok", "content": {"application/json": {"schema": loop}}}}}},
        "/odd": {"put": {"operationId": "putOdd", "requestBody": {"content": {
            "application/json": {"schema": odd}}}, "responses": {"200": {
                "description": "ok", "content": {"application/json": {"schema": odd}}}}}}},
        "components": {"schemas": cycle}}


def test_ajv_takes_every_listed_schema(node: str) -> None:
    """Ajv with its defaults (draft-07, the meta-schema checked: how VS Code and most hosts
    read a tool's schemas) and the TypeScript SDK client's validator (which compiles every
    ``outputSchema`` in ``listTools``, and lists no tool at all when one fails) take each
    schema of the ``mcp`` listing, whatever duplicates or empty enums the document holds;
    each change is in the loss report (a warning for the response)."""
    import httpllm

    for reference in (False, True):
        app = httpllm.compile(_malformed_keywords(), "mcp", reference=reference)
        tools = app.tools()
        schemas = [t[key] for t in tools for key in ("inputSchema", "outputSchema")]
        verdicts = _run(node, "schemas.mjs", schemas)
        assert len(tools) == 3 and verdicts == [None] * 6
    function = app.function("makeX")
    assert {(loss.keyword, loss.action) for loss in function.losses} == {
        ("enum", "rewritten"), ("enum", "dropped"), ("required", "rewritten")}
    assert sum(w.pointer.endswith(("/enum", "/required")) for w in app.warnings) == 5
    assert any(w.message.startswith("$ref cycle") for w in app.warnings)
    odd = app.function("putOdd")
    assert {(loss.keyword, loss.action) for loss in odd.losses} == {
        ("title", "dropped"), ("description", "dropped"), ("contentEncoding", "dropped"),
        ("type", "dropped"), ("pattern", "dropped")}
    assert {w.pointer.rsplit("/", 1)[1] for w in app.warnings if "~1odd/" in w.pointer} == {
        "title", "description", "contentEncoding", "items", "allOf", "type"}
