"""render: dialect rules, loss report, memoized shared schemas, strict fallback, limits."""

from __future__ import annotations

import re
from dataclasses import replace
from typing import Any

import pytest

import httpllm
from httpllm import dialects, render
from httpllm.dialects import JSON_SCHEMA_2020_12, Dialect, filter_keywords, get_dialect
from httpllm.dialects._base import leaf_triggers
from httpllm.execute import build_request
from httpllm.render import cut_description
from httpllm.walk import children

DOC: dict[str, Any] = {
    "openapi": "3.1.0",
    "info": {"title": "t", "version": "1"},
    "paths": {
        "/a": {"post": {"operationId": "a", "requestBody": {"content": {"application/json": {
            "schema": {"$ref": "#/components/schemas/Code"}}}},
            "responses": {"200": {"description": "ok"}}}},
        "/b": {"post": {"operationId": "b", "requestBody": {"content": {"application/json": {
            "schema": {"$ref": "#/components/schemas/Code"}}}},
            "responses": {"200": {"description": "ok"}}}},
    },
    "components": {"schemas": {"Code": {"type": "object", "properties": {
        "code": {"type": "string", "pattern": "^[A-Z]{3}$", "x-internal": True}}}}},
}

@pytest.fixture(autouse=True)
def _registry(monkeypatch: pytest.MonkeyPatch) -> None:
    """Providers registered by a test are gone after it."""
    monkeypatch.setattr(dialects, "_REGISTRY", dict(dialects._REGISTRY))
    monkeypatch.setattr(dialects, "_ALIASES", dict(dialects._ALIASES))


TOY = Dialect(name="toy", keywords=JSON_SCHEMA_2020_12 - {"pattern"}, rules=(filter_keywords,),
              envelope=lambda f, o: {"name": f.name, "schema": f.parameters})


def test_toy_dialect_moves_pattern_to_description_with_a_loss() -> None:
    """A keyword outside the dialect's set is described and reported with its pointer."""
    httpllm.register_provider("toy", TOY)
    app = httpllm.compile(DOC, provider="toy")
    for fn in app.functions:
        code = fn.parameters["properties"]["body"]["properties"]["code"]
        assert "pattern" not in code and "@pattern ^[A-Z]{3}$" in code["description"]
        (loss,) = fn.losses
        assert loss.pointer == "#/components/schemas/Code/properties/code/pattern"
        assert (loss.keyword, loss.action, loss.value) == ("pattern", "described", "^[A-Z]{3}$")


def test_shared_schema_losses_are_reported_for_every_function() -> None:
    """A named schema rendered once still reports its losses in each function using it."""
    httpllm.register_provider("toy", TOY)
    app = httpllm.compile(DOC, provider="toy")
    assert [len(f.losses) for f in app.functions] == [1, 1]
    assert len(app.losses) == 2


def test_a_schema_reached_along_several_paths_is_one_loss_per_function() -> None:
    """`Code` used by two properties of one body is rewritten in both places, but the
    function reports the loss once."""
    doc = {**DOC, "paths": {"/a": {"post": {
        "operationId": "a", "requestBody": {"content": {"application/json": {"schema": {
            "type": "object", "properties": {"from": {"$ref": "#/components/schemas/Code"},
                                             "to": {"$ref": "#/components/schemas/Code"}}}}}},
        "responses": {"200": {"description": "ok"}}}}}}
    httpllm.register_provider("toy", TOY)
    (fn,) = httpllm.compile(doc, provider="toy").functions
    body = fn.parameters["properties"]["body"]["properties"]
    assert all("@pattern" in body[k]["properties"]["code"]["description"] for k in ("from", "to"))
    assert [(x.pointer, x.keyword) for x in fn.losses] == [
        ("#/components/schemas/Code/properties/code/pattern", "pattern")]


def test_distinct_compares_values_it_cannot_hash() -> None:
    from httpllm.loss import Loss, distinct

    a = Loss(pointer="#/x", keyword="enum", action="dropped", value=[1, 2])
    b = Loss(pointer="#/x", keyword="enum", action="dropped", value=[1, 2])
    c = Loss(pointer="#/x", keyword="enum", action="dropped", value=[3])
    assert distinct([a, b, c, a]) == (a, c)


def _keywords(schema: Any) -> set[str]:
    found: set[str] = set()
    stack = [schema]
    while stack:
        node = stack.pop()
        if isinstance(node, dict):
            found |= set(node)
            stack.extend(sub for _, _, sub in children(node))
    return found


def test_every_dropped_keyword_is_in_the_loss_report() -> None:
    """Whatever keyword the emended schema has and the strict output lacks is a loss."""
    spec = "specs/petstore-3.0.yaml"
    for fn in httpllm.compile(spec, strict=True).functions:
        missing = _keywords(fn.schema) - _keywords(fn.parameters) - {"$defs"}
        lost = {loss.keyword for loss in fn.losses}
        assert missing <= lost, (fn.name, missing - lost)


def test_strict_limits_fall_back_to_non_strict_with_a_loss() -> None:
    """A function over the strict limits is emitted non-strict with a fallback loss."""
    props = {f"p{i}": {"type": "string", "enum": [f"v{j}" for j in range(20)]}
             for i in range(60)}
    doc = {"openapi": "3.1.0", "info": {"title": "t", "version": "1"}, "paths": {"/x": {
        "post": {"operationId": "big", "requestBody": {"content": {"application/json": {
            "schema": {"type": "object", "properties": props}}}},
            "responses": {"200": {"description": "ok"}}}}}}
    fn = httpllm.compile(doc, strict=True).functions[0]
    assert fn.strict is False
    assert any(loss.action == "fallback" and "enum" in loss.note for loss in fn.losses)


def test_long_description_is_cut_at_a_sentence_with_a_loss() -> None:
    """chatgpt descriptions over 1024 characters are cut at a sentence boundary."""
    text = "This sentence is long enough to count. " * 40
    doc = {"openapi": "3.1.0", "info": {"title": "t", "version": "1"}, "paths": {"/x": {
        "get": {"operationId": "x", "description": text,
                "responses": {"200": {"description": "ok"}}}}}}
    fn = httpllm.compile(doc).functions[0]
    assert len(fn.description) <= 1024 and fn.description.endswith("count.")
    assert [loss.action for loss in fn.losses] == ["truncated"]


def test_cut_description_falls_back_to_a_word_boundary() -> None:
    """Without a sentence end in reach, the text is cut at a word and marked."""
    assert cut_description("word " * 50, 20).endswith("…")
    assert len(cut_description("word " * 50, 20)) <= 20


def _cut_by_full_scan(text: str, limit: int) -> str:
    """`cut_description` as first written: every boundary of the head scanned, the last
    one kept (the reference the end-first scan must agree with)."""
    if len(text) <= limit:
        return text
    head, last = text[:limit], None
    for last in re.finditer(r"(?<=[.!?])\s+|\n+", head):  # noqa: B007
        pass
    if last is not None and last.start() > limit // 3:
        return head[: last.start()].rstrip()
    space = head.rfind(" ", 0, limit - 1)
    return (head[:space] if space > limit // 3 else head[: limit - 1]).rstrip() + "…"


@pytest.mark.parametrize("text", [
    "One. " + "word " * 400,  # the only boundary near the start: before the floor
    "word " * 90 + "Two. \n\n" + "word " * 300,  # found after several scans back
    "word " * 90 + "end.\u2003  \n " + "x" * 700,  # a run of spaces at a scan's start
    "a b\n\nc " * 200, "ab. " * 300, "x" * 2000, "word\n" + " " * 600 + "z" * 500,
])
@pytest.mark.parametrize("limit", [20, 300, 1024])
def test_cut_description_finds_the_last_boundary_a_full_scan_finds(text: str,
                                                                    limit: int) -> None:
    """The end-first scan cuts where a scan of the whole head does."""
    assert cut_description(text, limit) == _cut_by_full_scan(text, limit)


def test_variant_by_replace_registers_as_a_provider() -> None:
    """A gateway dialect built with dataclasses.replace is usable by name."""
    base = get_dialect("chatgpt")
    httpllm.register_provider("gateway", replace(base, keywords=base.keywords - {"format"}))
    fn = httpllm.compile("specs/petstore-3.0.yaml", provider="gateway").function("getPet")
    assert "format" not in fn.parameters["properties"]["petId"]
    assert fn.losses[0].keyword == "format"


def test_a_registered_dialect_never_sees_the_exclusive_mark() -> None:
    """A dialect that knows nothing of normalize's `x-httpllm-oneOf` (no keyword filter at
    all) gets `anyOf` and a `rewritten` loss; with `one_of=True`, `oneOf` and no loss."""
    a, b = ({"type": "object", "required": [k]} for k in ("a", "b"))
    doc = {**DOC, "paths": {"/a": {"post": {
        "operationId": "a", "requestBody": {"content": {"application/json": {"schema": {
            "oneOf": [a, b]}}}}, "responses": {"200": {"description": "ok"}}}}}}
    bare = Dialect(name="bare", keywords=None, envelope=lambda f, o: f.parameters)
    httpllm.register_provider("bare", bare)
    httpllm.register_provider("bare-one-of", replace(bare, name="bare-one-of", one_of=True))
    fn = httpllm.compile(doc, "bare").functions[0]
    assert fn.parameters["properties"]["body"] == {"anyOf": [a, b]}
    assert [(x.keyword, x.action) for x in fn.losses] == [("oneOf", "rewritten")]
    fn = httpllm.compile(doc, "bare-one-of").functions[0]
    assert fn.parameters["properties"]["body"] == {"oneOf": [a, b]} and not fn.losses


FOLDER_DOC: dict[str, Any] = {
    "openapi": "3.1.0",
    "info": {"title": "t", "version": "1"},
    "paths": {"/f": {"post": {"operationId": "f", "requestBody": {"content": {
        "application/json": {"schema": {"$ref": "#/components/schemas/Folder"}}}},
        "responses": {"200": {"description": "ok"}}}}},
    "components": {"schemas": {"Folder": {"type": "object", "properties": {
        "name": {"type": "string"},
        "kids": {"type": "array", "items": {"$ref": "#/components/schemas/Folder"}}}}}},
}


def test_refs_on_request_unroll_the_rendered_schema_only_when_asked() -> None:
    """refs="on-request" keeps recursive $defs, and unroll=k expands them after the rules
    (their losses follow the rules' ones), leaving no $defs."""
    httpllm.register_provider("toy", replace(TOY, refs="on-request"))
    kept = httpllm.compile(FOLDER_DOC, provider="toy").functions[0]
    assert "Folder" in kept.parameters["$defs"]
    fn = httpllm.compile(FOLDER_DOC, provider="toy", unroll=1).functions[0]
    assert "$defs" not in fn.parameters and "$ref" not in str(fn.parameters)
    assert [loss.action for loss in fn.losses] == ["unrolled", "cut"]


def test_strict_mode_without_recursion_unrolls_or_falls_back() -> None:
    """strict_recursion=False: a strict function with recursive $defs falls back to
    non-strict (naming unroll), or is unrolled with unroll=k and stays strict."""
    strict = replace(TOY, strict_rules=(lambda node, ctx: node,), strict_recursion=False)
    httpllm.register_provider("toy", strict)
    fn = httpllm.compile(FOLDER_DOC, provider="toy", strict=True).functions[0]
    assert fn.strict is False and "Folder" in fn.parameters["$defs"]
    (fallback,) = [loss for loss in fn.losses if loss.action == "fallback"]
    assert "recursive schemas (Folder)" in fallback.note and "unroll=N" in fallback.note
    fn = httpllm.compile(FOLDER_DOC, provider="toy", strict=True, unroll=1).functions[0]
    assert fn.strict is True and "$defs" not in fn.parameters
    assert httpllm.compile(FOLDER_DOC, provider="toy", unroll=1).functions[0].parameters[
        "$defs"]  # non-strict: recursion is kept


DEEP: dict[str, Any] = {
    "openapi": "3.1.0", "info": {"title": "t", "version": "1"},
    "servers": [{"url": "https://api.example.com"}],
    "paths": {"/a": {"post": {"operationId": "deep", "requestBody": {"required": True, "content": {
        "application/json": {"schema": {"type": "object", "required": ["outer"], "properties": {
            "outer": {"type": "object", "properties": {"inner": {"type": "object", "properties": {
                "leaf": {"type": "string"}}}}}}}}}},
        "responses": {"200": {"description": "ok"}}}}},
}


@pytest.mark.parametrize("provider", dialects.providers())
def test_max_depth_holds_for_every_dialect(provider: str) -> None:
    """`max_depth` is an option of the compile, not of three dialects: past it the function
    is an error naming the path; with `collapse_deep` the deeper part is JSON text with a
    loss, and the model's text is decoded back before validate."""
    app = httpllm.compile(DEEP, provider, max_depth=1)
    assert app.functions == () and "nests deeper than max_depth=1" in app.errors[0].message
    app = httpllm.compile(DEEP, provider, max_depth=1, collapse_deep=True)
    (fn,) = app.functions
    outer = fn.parameters["properties"]["body"]["properties"]["outer"]
    inner = outer["properties"]["inner"]
    assert inner["type"] == "string" and "JSON" in inner["description"]
    assert any("max_depth=1" in x.note for x in fn.losses)
    call = {"body": {"outer": {"inner": '{"leaf": "x"}'}}}
    assert app.validate("deep", call).ok


KEYS = Dialect(name="keys", keywords=JSON_SCHEMA_2020_12, argument_characters="a-z0-9_",
               argument_max=12, native_examples=True,
               envelope=lambda f, o: {"name": f.name, "schema": f.parameters})
"""A toy dialect taking argument names of at most 12 lower-case letters, digits and `_`."""


def _keyed(*names: str, separated: str = "") -> tuple[httpllm.Application, Any]:
    doc = {"openapi": "3.1.0", "info": {"title": "t", "version": "1"},
           "paths": {"/a/{Id}": {"post": {
               "operationId": "a",
               "parameters": [{"name": n, "in": "path" if n == "Id" else "query",
                               "required": n == "Id", "example": f"<{n}>",
                               "schema": {"type": "string"}} for n in names],
               "requestBody": {"content": {"application/json": {"schema": {
                   "type": "object", "properties": {"Name": {"type": "string"}}}}}},
               "responses": {"200": {"description": "ok"}}}}}}
    httpllm.register_provider("keys", KEYS)
    chosen = (lambda a: a.original == separated) if separated else None
    app = httpllm.compile(doc, provider="keys", separate=chosen)
    return app, app.functions[0]


def test_argument_names_follow_the_dialects_characters_and_length() -> None:
    """A dialect's `argument_characters`/`argument_max` rename the arguments it refuses alike
    in the parameters, `required`, the validation schema, the examples and the parameter
    map, with a loss each, while the request sends the document's names and body keys stay."""
    app, function = _keyed("Id", "page", "longer_than_eight")
    names = [a.name for a in function.arguments]
    assert names[0] == "d" and names[1] == "page" and names[3] == "body"
    assert len(names[2]) == 12 and names[2].startswith("lon_")  # a prefix and a hash
    assert [a.original for a in function.arguments] == ["Id", "page", "longer_than_eight", None]
    assert list(function.parameters["properties"]) == names
    assert list(function.schema["properties"]) == names
    assert function.parameters["required"] == function.schema["required"] == ["d"]
    assert "Name" in function.parameters["properties"]["body"]["properties"]
    assert function.extra["input_examples"] == [
        {"d": "<Id>", "page": "<page>", names[2]: "<longer_than_eight>"}]
    assert [(loss.keyword, loss.action, loss.value) for loss in function.losses] == [
        ("name", "renamed", "Id"), ("name", "renamed", "longer_than_eight")]
    assert app.validate("a", {"d": "x", names[2]: "y"}).ok
    assert not app.validate("a", {"Id": "x"}).ok
    request = build_request(function, {"d": "x", names[2]: "y"}, base_url="https://h")
    assert str(request.url) == "https://h/a/x?longer_than_eight=y"


def test_a_separated_argument_keeps_its_name() -> None:
    """An argument the host supplies is never sent to the provider, so it keeps its name and
    no new name takes it."""
    app, function = _keyed("Id", "d", separated="d")
    renamed, kept = function.arguments[:2]
    assert kept.name == "d" and kept.separated and "d" not in function.parameters["properties"]
    assert re.fullmatch(r"d_[0-9a-f]{8}", renamed.name)
    assert app.validate("a", {renamed.name: "x"}, host_arguments={"d": "y"}).ok


def test_a_dialect_without_a_key_rule_keeps_every_name() -> None:
    """No `argument_characters` or `argument_max`: the document's names, no loss."""
    httpllm.register_provider("toy", TOY)
    doc = {**DOC, "paths": {"/a": {"get": {"operationId": "a", "parameters": [
        {"name": "filter[x]", "in": "query", "schema": {"type": "string"}}],
        "responses": {"200": {"description": "ok"}}}}}}
    (function,) = httpllm.compile(doc, provider="toy").functions
    assert list(function.parameters["properties"]) == ["filter[x]"] and function.losses == ()


def _one_body(body: Any, **schemas: Any) -> dict[str, Any]:
    return {"openapi": "3.1.0", "info": {"title": "t", "version": "1"},
            "paths": {"/x": {"post": {"operationId": "x", "requestBody": {"content": {
                "application/json": {"schema": body}}},
                "responses": {"200": {"description": "ok", "content": {"application/json": {
                    "schema": {"$ref": "#/components/schemas/Answer"}}}}}}}},
            "components": {"schemas": {"Answer": {"type": "object"}, **schemas}}}


def _refuse_titled(node: dict[str, Any], ctx: dialects.RenderContext) -> Any:
    """A rule of a user's dialect: a node titled `Refused` cannot be expressed."""
    if node.get("title") == "Refused":
        ctx.fail("no form for a refused node")
    return node


def test_a_failure_is_data_with_its_pointer_and_never_a_loss(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """A rule's `ctx.fail` reaches the steps as a `Failure` (pointer, reason) in
    `job.failures`, beside the losses; outside strict mode it is the operation's error,
    naming the node's pointer and the argument; no loss entry carries it."""
    from httpllm import render

    seen: list[list[Any]] = []

    def spy(job: render.Rendering, ctx: render.StepContext) -> None:
        seen.append(list(job.failures))

    at = render.STEPS.index(render.apply_rules) + 1
    monkeypatch.setattr(render, "STEPS", (*render.STEPS[:at], spy, *render.STEPS[at:]))
    httpllm.register_provider("refusing", replace(TOY, rules=(*TOY.rules, _refuse_titled)))
    doc = _one_body({"$ref": "#/components/schemas/Box"}, Box={
        "type": "object", "properties": {"inner": {"title": "Refused", "type": "object"}}})
    app = httpllm.compile(doc, provider="refusing")
    at = "#/components/schemas/Box/properties/inner"
    assert seen == [[dialects.Failure(pointer=at, reason="no form for a refused node")]]
    (error,) = app.errors
    assert error.pointer == "#/paths/~1x/post" and not app.functions
    assert error.message == f"{at}: no form for a refused node (argument body)"


def test_a_strict_failure_is_the_fallback_reason_and_never_a_loss() -> None:
    """In strict mode a node no strict rule can express (Claude: `allOf` with a `$ref`)
    makes the function non-strict; the `fallback` loss quotes the failure, and no other
    entry of the report stands for it."""
    doc = _one_body({"type": "object", "properties": {"a": {
        "allOf": [{"$ref": "#/components/schemas/Node"}], "description": "d"}}},
        Node={"type": "object", "properties": {"next": {"$ref": "#/components/schemas/Node"}}})
    (function,) = httpllm.compile(doc, "claude", strict=True).functions
    assert function.strict is False
    (fallback,) = [x for x in function.losses if x.action == "fallback"]
    assert fallback.keyword == "strict" and "not supported in strict mode" in fallback.note
    assert all(x.keyword in {"strict", *_keywords(function.schema)} for x in function.losses)
    assert not [x for x in function.losses if x.keyword.startswith("$")]


def test_every_strict_limit_gets_the_parameters_and_a_memo_of_its_own() -> None:
    """`Dialect.strict_limits` checks have one signature, `(parameters, memo)`: each gets
    one dict for the whole compile (shared by its calls, never by another check); one
    that needs none ignores it. A problem makes the function non-strict, quoted."""
    memos: dict[str, list[int]] = {"counting": [], "refusing": []}

    def counting(parameters: Any, memo: dict[int, Any]) -> list[str]:
        memos["counting"].append(id(memo))
        memo[id(parameters)] = (parameters, len(parameters.get("properties", {})))
        return []

    def refusing(parameters: Any, memo: dict[int, Any]) -> list[str]:
        memos["refusing"].append(id(memo))
        return ["too wide for a toy"]

    strict_toy = replace(get_dialect("chatgpt"), name="strict-toy",
                         strict_limits=(counting, refusing))
    httpllm.register_provider("strict-toy", strict_toy)
    app = httpllm.compile(DOC, provider="strict-toy", strict=True)
    assert len(memos["counting"]) == len(memos["refusing"]) == 2  # one call per function
    assert len(set(memos["counting"])) == len(set(memos["refusing"])) == 1
    assert set(memos["counting"]) != set(memos["refusing"])
    for function in app.functions:
        assert function.strict is False
        (fallback,) = [x for x in function.losses if x.action == "fallback"]
        assert fallback.note == "too wide for a toy"


def test_a_step_with_the_one_signature_runs_on_each_split_part(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """The union split is the step `split_unions`, before every other: a step after it
    runs once per variant, each its own job, and reads the compile's context."""
    from httpllm import render

    assert render.STEPS[0] is render.split_unions
    seen: list[tuple[str, str, bool]] = []

    def spy(job: render.Rendering, ctx: render.StepContext) -> None:
        seen.append((job.function.name, ctx.dialect.name, ctx.options.split_unions))

    monkeypatch.setattr(render, "STEPS", (*render.STEPS, spy))
    doc = _one_body({"oneOf": [{"$ref": "#/components/schemas/Card"},
                               {"$ref": "#/components/schemas/Bank"}]},
                    Card={"type": "object", "properties": {"number": {"type": "string"}}},
                    Bank={"type": "object", "properties": {"iban": {"type": "string"}}})
    app = httpllm.compile(doc, split_unions=True)
    assert [f.name for f in app.functions] == ["x__Card", "x__Bank"]
    assert seen == [("x__Card", "chatgpt", True), ("x__Bank", "chatgpt", True)]
    seen.clear()
    assert [f.name for f in httpllm.compile(doc).functions] == ["x"]
    assert seen == [("x", "chatgpt", False)]


def test_an_output_schema_a_rule_cannot_express_is_dropped_with_a_loss() -> None:
    """MCP output schemas are informative: a node of one a rule refuses drops the
    tool's output schema, reported, rather than failing the tool."""
    mcp = get_dialect("mcp")
    httpllm.register_provider("mcp-refusing",
                              replace(mcp, name="mcp-refusing",
                                      rules=(*mcp.rules, _refuse_titled)))
    doc = _one_body({"type": "object", "properties": {"a": {"type": "string"}}},
                    Answer={"type": "object", "title": "Refused"})
    (function,) = httpllm.compile(doc, provider="mcp-refusing").functions
    assert function.output is None
    (dropped,) = [x for x in function.losses if x.keyword == "outputSchema"]
    assert dropped.action == "dropped"
    assert dropped.pointer == "output#"
    assert dropped.note == "output schema dropped: output#: no form for a refused node"


def test_what_a_step_before_the_rules_records_reaches_the_report(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """A loss a step before the rule walk records is in the function's losses, also after
    a strict fallback (the rule walk replaced job.losses, and the fallback again); a
    failure it records makes a strict function fall back, and a plain one an error."""
    from httpllm import render
    from httpllm.loss import Failure, Loss

    early = Loss(pointer="#/early", keyword="x-early", action="dropped", note="early")

    def record(job: render.Rendering, ctx: render.StepContext) -> None:
        job.losses.append(early)
        if job.function.name == "fails":
            job.failures.append(Failure(pointer="#/early", reason="early failure"))

    at = render.STEPS.index(render.apply_rules)
    monkeypatch.setattr(render, "STEPS", (*render.STEPS[:at], record, *render.STEPS[at:]))
    assert early in httpllm.compile(DOC).functions[0].losses
    props = {f"p{i}": {"type": "string", "enum": [f"v{j}" for j in range(20)]}
             for i in range(60)}
    doc = {"openapi": "3.1.0", "info": {"title": "t", "version": "1"}, "paths": {"/x": {
        "post": {"operationId": "big", "requestBody": {"content": {"application/json": {
            "schema": {"type": "object", "properties": props}}}},
            "responses": {"200": {"description": "ok"}}}},
        "/y": {"get": {"operationId": "fails", "responses": {"200": {"description": "ok"}}}}}}
    big, fails = httpllm.compile(doc, strict=True).functions
    assert big.strict is False and early in big.losses
    assert fails.strict is False and early in fails.losses
    assert any(loss.action == "fallback" and "early failure" in loss.note
               for loss in fails.losses)
    app = httpllm.compile(doc)
    assert [f.name for f in app.functions] == ["big"]
    assert [e.message for e in app.errors] == ["#/early: early failure"]


def _answers(schema: Any, operations: int = 2, **schemas: Any) -> dict[str, Any]:
    """A document whose operations all answer with the same response schema."""
    answer = {"200": {"description": "ok", "content": {"application/json": {
        "schema": schema}}}}
    return {"openapi": "3.1.0", "info": {"title": "t", "version": "1"},
            "paths": {f"/{n}": {"get": {"operationId": f"op{n}", "responses": answer}}
                      for n in range(operations)},
            "components": {"schemas": schemas}}


def test_an_output_shared_by_operations_is_rendered_once_with_its_losses_in_each() -> None:
    """Operations answering with one response schema share one output object, rendered
    (bounded, rules walked) once per compile: each function carries its losses."""
    doc = _answers({"$ref": "#/components/schemas/Code"},
                   Code={"type": "object", "properties": {
                       "code": {"type": "string", "pattern": r"^a\-b$"}}})
    first, second = httpllm.compile(doc, provider="mcp").functions
    assert first.output is second.output
    assert first.output["properties"]["code"]["pattern"] == "^a-b$"
    for function in (first, second):
        (loss,) = [x for x in function.losses if x.keyword == "pattern"]
        assert (loss.pointer, loss.action) == ("output#/properties/code/pattern", "rewritten")


def test_an_output_no_rule_changes_is_listed_as_composed() -> None:
    """An output no rule changes anything of is the composed one itself, with no loss
    (its nodes are asked once, not walked per function)."""
    doc = _answers({"type": "object", "properties": {"a": {"type": "string"}}})
    app = httpllm.compile(doc, provider="mcp")
    composed = httpllm.compile(doc, provider="3.1").functions[0].output
    for function in app.functions:
        assert function.output == composed
        assert not [x for x in function.losses if x.pointer.startswith("output#")]
    assert app.functions[0].output is app.functions[1].output


def test_an_output_past_the_walk_depth_fails_as_its_walk_does() -> None:
    """Named schemas inlined into an output deeper than a walk descends (``walk_depth``):
    the rules' walk refuses it, whether or not any rule would change a node."""
    def chain(levels: int, tail: dict[str, Any]) -> dict[str, Any]:
        for _ in range(levels):
            tail = {"items": tail}
        return tail

    doc = _answers({"$ref": "#/components/schemas/S0"}, operations=1,
                   S0=chain(300, {"$ref": "#/components/schemas/S1"}),
                   S1=chain(300, {"type": "string"}))
    app = httpllm.compile(doc, provider="mcp")
    assert not app.functions
    (error,) = app.errors
    assert error.pointer.startswith("output#/items/items")
    assert "deeper than 512 levels" in error.message


def test_a_subtree_two_outputs_share_is_walked_for_each_after_an_inert_one() -> None:
    """Two response schemas holding one named schema a rule rewrites (a pattern), after an
    output no rule changes: each output's walk rewrites it with its loss, and the inert
    output is listed as composed, though the walk before it left records behind."""
    code = {"type": "object", "properties": {"code": {"type": "string",
                                                      "pattern": r"^a\-b$"}}}
    schemas = [{"type": "object", "properties": {"c": {"$ref": "#/components/schemas/Code"}}},
               {"type": "object", "properties": {"plain": {"type": "integer"}}},
               {"type": "array", "items": {"$ref": "#/components/schemas/Code"}}]
    paths = {}
    for n, schema in enumerate(schemas):
        ok = {"description": "ok", "content": {"application/json": {"schema": schema}}}
        paths[f"/{n}"] = {"get": {"operationId": f"op{n}", "responses": {"200": ok}}}
    doc = {"openapi": "3.1.0", "info": {"title": "t", "version": "1"}, "paths": paths,
           "components": {"schemas": {"Code": code}}}
    first, plain, third = httpllm.compile(doc, provider="mcp").functions
    composed = httpllm.compile(doc, provider="3.1").functions[1].output
    assert plain.output == composed
    assert not [x for x in plain.losses if x.pointer.startswith("output#")]
    assert first.output["properties"]["c"]["properties"]["code"]["pattern"] == "^a-b$"
    assert third.output["items"]["properties"]["code"]["pattern"] == "^a-b$"
    for function, at in ((first, "output#/properties/c"), (third, "output#/items")):
        (loss,) = [x for x in function.losses if x.keyword == "pattern"]
        assert (loss.pointer, loss.action) == (f"{at}/properties/code/pattern", "rewritten")


def _spied(dialect: Dialect, seen: list[dict[str, Any]], *triggers: str | None
           ) -> Dialect:
    """``dialect`` with one more strict rule that records each node it is given,
    declaring ``triggers`` (``None``: declaring nothing)."""

    def spy(node: dict[str, Any], ctx: dialects.RenderContext) -> Any:
        seen.append(node)
        return node

    rule = spy if triggers == (None,) else leaf_triggers(*(t for t in triggers if t))(spy)
    return replace(dialect, strict_rules=(*dialect.strict_rules, rule))


def test_a_strict_walk_skips_the_leaves_no_rule_changes_and_no_other() -> None:
    """A string leaf with kept keywords only is not visited; a leaf a strict rule must
    change (a format, a foreign `required`, an object, a described `title`) still is,
    and the walk gives what a walk visiting every leaf gives."""
    plain = {"type": "string", "description": "kept"}
    schema = {"type": "object", "properties": {
        "a": plain, "b": {"type": "string", "format": "int32"},
        "c": {"type": "string", "required": ["x"]}, "d": {"type": "object"},
        "e": {"type": "integer", "title": "T"}, "f": {"items": plain}},
        "required": ["a", "b", "c", "d", "e", "f"]}
    walks = []
    for triggers in ((), (None,)):
        seen: list[dict[str, Any]] = []
        dialect = _spied(get_dialect("chatgpt"), seen, *triggers)
        ctx = render.StepContext(dialect, dialects.Options(strict=True), {})
        walks.append((ctx.walk(schema, True, "parameters#"), seen))
    (gated, seen), (every, all_seen) = walks
    assert gated == every
    assert not any(node is plain for node in seen)
    assert sum(node is plain for node in all_seen) == 2
    assert len(all_seen) - len(seen) == 2  # only the two plain leaves were skipped
    out, losses, _ = gated
    props = out["properties"]
    assert props["a"] is plain and props["f"]["items"] is plain
    assert "format" not in props["b"] and "required" not in props["c"]
    assert props["d"]["type"] == "array" and "title" not in props["e"]  # a map: entries
    assert {(x.keyword, x.action) for x in losses} >= {
        ("format", "described"), ("required", "dropped"), ("title", "described")}


def test_every_leaf_is_visited_without_a_declaration_or_with_stripping() -> None:
    """No gate for a dialect with an undeclared rule or without strict rules, nor under
    strip_constraints (which moves constraints the dialect keeps); the gate lets through
    a typed leaf of kept keywords only."""
    chatgpt = get_dialect("chatgpt")
    assert render.strict_leaf(chatgpt, dialects.Options(strict=True)) is not None
    assert render.strict_leaf(_spied(chatgpt, [], None), dialects.Options(strict=True)) is None
    assert render.strict_leaf(chatgpt, dialects.Options(strict=True,
                                                        strip_constraints=True)) is None
    assert render.strict_leaf(replace(chatgpt, strict_rules=()), dialects.Options()) is None
    leaf = {"type": "string"}
    gate = render.strict_leaf(chatgpt, dialects.Options(strict=True))
    assert gate is not None
    assert gate(leaf) is leaf and gate({"type": "object"}) is None
    assert gate({"type": ["string", "null"]}) is None and gate({"description": "x"}) is None
    assert gate({"type": "string", "title": "t"}) is None  # not a strict keyword


def test_an_argument_schema_functions_share_is_walked_once_per_name() -> None:
    """An argument's schema that is one object in several functions (a path parameter's,
    made once by `validated`) but no named schema is ruled once per compile and argument
    name: each function gets the same rendering and the same losses, at its pointer."""
    seen: list[str] = []

    def spy(node: dict[str, Any], ctx: dialects.RenderContext) -> Any:
        seen.append(ctx.pointer)
        return node

    ctx = render.StepContext(replace(TOY, rules=(spy, *TOY.rules)), dialects.Options(), {})
    owner = {"type": "string", "pattern": "^[a-z]+$"}
    walks = [ctx.walk({"type": "object", "properties": props}, False, "parameters#")
             for props in ({"owner": owner}, {"owner": owner, "q": {"type": "integer"}},
                           {"user": owner})]
    assert seen == ["parameters#/properties/owner", "parameters#",
                    "parameters#/properties/q", "parameters#",
                    "parameters#/properties/user", "parameters#"]
    (first, lost, _), (second, again, _), (third, other, _) = walks
    assert second["properties"]["owner"] is first["properties"]["owner"]
    assert "@pattern ^[a-z]+$" in first["properties"]["owner"]["description"]
    assert third["properties"]["user"] == first["properties"]["owner"]
    assert lost == again and [x.pointer for x in lost] == [
        "parameters#/properties/owner/pattern"]
    assert [x.pointer for x in other] == ["parameters#/properties/user/pattern"]


def test_inert_skips_the_leaves_no_rule_changes_and_sees_a_pattern() -> None:
    """An output's inert check visits no leaf the dialect's plain gate lets through
    (:func:`render.plain_leaf`: MCP's rules all declare their triggers), and still finds
    a leaf whose pattern a rule rewrites; with a rule declaring nothing every leaf is
    visited, and the answer is the same."""
    plain = {"type": "string", "description": "kept"}
    patterned = {"type": "string", "pattern": r"^a\-b$"}
    mcp = get_dialect("mcp")
    assert render.plain_leaf(mcp, dialects.Options()) is not None
    assert render.plain_leaf(mcp, dialects.Options(strip_constraints=True)) is None
    for triggers, visited in (((), 0), ((None,), 1)):  # (one node: asked once)
        seen: list[dict[str, Any]] = []
        spy = _spied(mcp, seen, *triggers).strict_rules[-1]
        dialect = replace(mcp, rules=(*mcp.rules, spy))
        ctx = render.StepContext(dialect, dialects.Options(), {})
        assert ctx.inert({"type": "object", "properties": {"a": plain, "b": {"items": plain}}})
        assert sum(node is plain for node in seen) == visited
        assert not ctx.inert({"type": "object", "properties": {"a": plain, "p": patterned}})
