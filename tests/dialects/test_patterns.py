"""Patterns as ECMA-262 with the `u` flag reads them (issue 28): what has an equivalent is
translated, what has none is dropped with a loss, and node agrees with both."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
from typing import Any

import pytest

import httpllm
from httpllm.dialects import Options, RenderContext, get_dialect
from httpllm.dialects._patterns import Untranslatable, ecma_patterns, to_ecma
from httpllm.execute import validate

TRANSLATED = [
    (r"^[a-zA-Z0-9_\-\:]+$", r"^[a-zA-Z0-9_\-:]+$"),  # DigitalOcean
    (r"^[a-zA-Z0-9\-\_]", r"^[a-zA-Z0-9\-_]"),  # SendGrid
    (r"^[\w\u2018\-.,\":;\!?]*$", r'^[\w\u2018\-.,":;!?]*$'),  # PayPal
    (r"(?i)^[0-9a-f]{8}$", r"^[0-9a-fA-F]{8}$"),  # Okta
    (r"(a)|\[\x01]", r"(a)|\[\x01\]"),  # PayPal's e-mail pattern: a lone ]
    (r"\d\-\:\!\@\#", r"\d-:!@#"),
    (r"(?P<year>\d{4})-(?P=year)", r"(?<year>\d{4})-\k<year>"),
    (r"\Aabc\Z", r"^abc$"),
    (r"[\w-.]", r"[\w\-.]"),
    (r"[\w-]", r"[\w-]"),
    (r"[]a]", r"[\]a]"),
    (r"a{,3}", r"a{0,3}"),
    (r"a{", r"a\{"),
    (r"(?x) a b # comment", r"ab"),
    (r"(?s)a.b", r"a[\s\S]b"),
    (r"(?i:ab)c", r"(?:[aA][bB])c"),
    (r"\N{EM DASH}", r"\u{2014}"),
    (r"\U0001F600", r"\u{1f600}"),
    (r"\012", r"\x0a"),
    (r"(?#note)x", r"x"),
    (r"^[a-z0-9]+(?:-[a-z0-9]+)*$", r"^[a-z0-9]+(?:-[a-z0-9]+)*$"),  # already ECMA
    (r"a*?b??c+?(d)*(?:e){2}?\bf", r"a*?b??c+?(d)*(?:e){2}?\bf"),  # quantifiable
    (r"\p{L}\P{Lu}[\p{Alpha}\p{sc=Greek}]\p{General_Category=Nd}",
     r"\p{L}\P{Lu}[\p{Alpha}\p{sc=Greek}]\p{General_Category=Nd}"),
]

UNTRANSLATABLE = [r"x*+", r"(?>a)", r"a\Gb", r"[[:alpha:]]", r"(?(1)a|b)", r"\Qa.b\E",
                  r"(?i)é", r"(a", r"\2(a)",
                  # what no engine reads, which Ajv throws on: nothing to repeat, a range or
                  # bounds out of order, a group name twice, a quantified lookahead
                  r"a**", r"^*", r"a|*", r"*a", r"(?:*)", r"x{2,1}", r"[z-a]",
                  r"(?P<n>a)(?P<n>b)", r"(?=a)*", r"\b+", r"\p{IsLatin}", r"[\P{Han}]",
                  r"\p{gc=Latin}", r"\p{Foo=L}"]


@pytest.mark.parametrize(("source", "ecma"), TRANSLATED)
def test_translates_what_has_an_equivalent(source: str, ecma: str) -> None:
    """Each pattern becomes its ECMA-262 `u` spelling (the same string when it is one)."""
    assert to_ecma(source) == ecma


@pytest.mark.parametrize("source", UNTRANSLATABLE)
def test_refuses_what_has_none(source: str) -> None:
    """Possessive quantifiers, atomic groups, `\\G`, POSIX classes, conditionals, `\\Q`,
    case folding past ASCII, broken groups and what `new RegExp(p, "u")` throws on (a
    quantifier with nothing to repeat, bounds or a range out of order, a group name
    twice: Ajv then refuses the schema and the TypeScript SDK client lists no tool) have
    no ECMA-262 form."""
    with pytest.raises(Untranslatable):
        to_ecma(source)


def _ctx() -> RenderContext:
    return RenderContext(dialect=get_dialect("mcp"), options=Options())


def test_rule_rewrites_and_drops_with_losses() -> None:
    """A translated pattern is a `rewritten` loss with the original value; one without an
    equivalent is dropped with a `dropped` loss; `patternProperties` keys alike."""
    ctx = _ctx()
    node: dict[str, Any] = {"type": "string", "pattern": r"^\d\-$"}
    assert ecma_patterns(node, ctx) == {"type": "string", "pattern": r"^\d-$"}
    assert [(x.keyword, x.action, x.value) for x in ctx.losses] == [
        ("pattern", "rewritten", r"^\d\-$")]
    ctx = _ctx()
    keyed = {"type": "object", "pattern": "a++", "patternProperties": {
        r"^x\-": {"type": "string"}, "(?>y)": {}}}
    assert ecma_patterns(keyed, ctx) == {"type": "object",
                                          "patternProperties": {"^x-": {"type": "string"}}}
    assert [(x.keyword, x.action) for x in ctx.losses] == [
        ("pattern", "dropped"), ("patternProperties", "rewritten"),
        ("patternProperties", "dropped")]
    plain = {"type": "string", "pattern": "^[a-z]+$"}
    assert ecma_patterns(plain, _ctx()) is plain


def _document() -> dict[str, Any]:
    schema = {"type": "object", "properties": {
        "code": {"type": "string", "pattern": r"^[a-z\-\:]+$"},
        "guid": {"type": "string", "pattern": "(?i)^[0-9a-f]+$"}}}
    op = {"operationId": "put", "requestBody": {"content": {"application/json": {
        "schema": schema}}}, "responses": {"200": {"description": "ok", "content": {
            "application/json": {"schema": schema}}}}}
    return {"openapi": "3.1.0", "info": {"title": "t", "version": "1"},
            "paths": {"/x": {"post": op}}}


def test_mcp_tools_list_ecma_patterns_in_and_out_and_validate_keeps_the_original() -> None:
    """The mcp tool's input and output schemas carry the translation; `validate` still
    checks the document's pattern."""
    app = httpllm.compile(_document(), "mcp")
    (tool,) = app.tools()
    body = tool["inputSchema"]["properties"]["body"]["properties"]
    assert body["code"]["pattern"] == r"^[a-z\-:]+$"
    assert body["guid"]["pattern"] == "^[0-9a-fA-F]+$"
    out = tool["outputSchema"]["properties"]
    assert out["code"]["pattern"] == r"^[a-z\-:]+$"
    (function,) = app.functions
    assert {x.value for x in function.losses if x.keyword == "pattern"} == {
        r"^[a-z\-\:]+$", "(?i)^[0-9a-f]+$"}
    assert validate(function, {"body": {"code": "a-b:c", "guid": "AB"}}).ok
    assert not validate(function, {"body": {"code": "A"}}).ok


def test_other_dialects_keep_the_pattern() -> None:
    """Only dialects whose clients compile patterns in JavaScript translate them."""
    (tool,) = httpllm.compile(_document(), "chatgpt").tools()
    params = tool["function"]["parameters"]["properties"]["body"]["properties"]
    assert params["code"]["pattern"] == r"^[a-z\-\:]+$"


def _node() -> str:
    node = shutil.which("node")
    if node is None:
        if os.environ.get("CI"):
            pytest.fail("node not found: the pattern checks need Node.js", pytrace=False)
        pytest.skip("node not found: the pattern checks need Node.js")
    return node


_MATCHES = """
const cases = JSON.parse(require("fs").readFileSync(0, "utf8"));
const out = cases.map(([p, texts]) => {
  try { const r = new RegExp(p, "u"); return texts.map((t) => r.test(t)); }
  catch (e) { return "refused: " + e.message; }
});
process.stdout.write(JSON.stringify(out));
"""

SAMPLES = ["", "a", "A", "ab", "aB", "a-b", "a:b", "1234abcd", "1234ABCD", "x!y",
           "2024-2024", "-", "{", "]", "\u2014", "a\nb", "AbC"]


def test_node_accepts_every_translation_and_matches_as_python() -> None:
    """node compiles each translation with the `u` flag and matches the samples as Python's
    `re` matches them with the original, where Python reads it (no sample ends in a
    newline, which Python's `$` accepts before and ECMA-262's does not)."""
    sources = [s for s, _ in TRANSLATED if not s.startswith(("\\N", "\\U"))]
    cases = [[to_ecma(s), SAMPLES] for s in sources]
    run = subprocess.run([_node(), "-e", _MATCHES], input=json.dumps(cases), text=True,
                         capture_output=True, check=True, timeout=60)
    answers = json.loads(run.stdout)
    for source, answer in zip(sources, answers, strict=True):
        assert isinstance(answer, list), (source, answer)
        try:
            compiled = re.compile(source)
        except re.error:  # PCRE/Java syntax Python refuses too ([\w-.]): accepted is enough
            continue
        assert answer == [compiled.search(s) is not None for s in SAMPLES], source
