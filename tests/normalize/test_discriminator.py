"""Pass discriminator: each variant of a discriminated union requires its own tag."""

from __future__ import annotations

from typing import Any

import pytest
import shared
from hypothesis import given
from hypothesis import strategies as st

import httpllm
from httpllm.errors import LimitExceeded
from httpllm.normalize.discriminator import discriminator
from httpllm.normalize.unions import EXCLUSIVE

from ._support import HEAVY, Sampled, check_contract, check_pure, deep, run, valid

EMAIL = {"type": "object", "required": ["address"],
         "properties": {"channel": {"type": "string", "description": "How", "default": "email"},
                        "address": {"type": "string"}}}
SMS = {"type": "object", "properties": {"channel": {"type": "string"},
                                        "phone": {"type": "string"}}}
DEFS = {"Email": EMAIL, "Sms": SMS}


def union(mapping: dict[str, str] | None = None, **extra: Any) -> dict[str, Any]:
    spec: dict[str, Any] = {"propertyName": "channel"}
    if mapping is not None:
        spec["mapping"] = mapping
    return {"anyOf": [{"$ref": "#/$defs/Email"}, {"$ref": "#/$defs/Sms"}],
            "discriminator": spec, **extra}


def tags(out: dict[str, Any]) -> list[Any]:
    return [m["properties"]["channel"] for m in out["anyOf"]]


def test_mapping_keys_are_the_tags() -> None:
    """Each variant's tag is the mapping keys that name it, required, as a one-value enum;
    the tag keeps its description, and its default when that is a tag value."""
    out, reports = run(discriminator, union({"email": "#/components/schemas/Email",
                                             "sms": "#/components/schemas/Sms"}), defs=DEFS)
    assert reports == []
    assert out == {"anyOf": [
        {"type": "object", "required": ["address", "channel"],
         "properties": {"channel": {"description": "How", "default": "email", "type": "string",
                                    "enum": ["email"]},
                        "address": {"type": "string"}}},
        {"type": "object", "required": ["channel"],
         "properties": {"channel": {"type": "string", "enum": ["sms"]},
                        "phone": {"type": "string"}}},
    ]}


def test_tagged_variants_lose_the_exclusive_mark() -> None:
    """A `oneOf` marked exclusive whose variants all get distinct required tags is no
    longer marked: the tags make it exclusive already."""
    out, _ = run(discriminator, union(**{EXCLUSIVE: True}), defs=DEFS)
    assert EXCLUSIVE not in out and len(out["anyOf"]) == 2
    untagged = {**union(**{EXCLUSIVE: True}), "anyOf": [{"$ref": "#/$defs/Email"}, SMS]}
    assert run(discriminator, untagged, defs=DEFS)[0][EXCLUSIVE] is True


def test_schema_names_without_mapping() -> None:
    """Without a mapping the tag is the schema's name (OpenAPI's implicit mapping); a
    default that is not the tag goes."""
    out, _ = run(discriminator, union(), defs=DEFS)
    assert tags(out) == [{"description": "How", "type": "string", "enum": ["Email"]},
                         {"type": "string", "enum": ["Sms"]}]


def test_an_implied_tag_its_own_property_refuses_is_left_as_declared() -> None:
    """Without a mapping the tag is the schema's name only where the variant's own property
    allows it (its `enum` or `const`, also through a `$ref`): else the property stays as
    declared, required, and one report names the variants. PagerDuty's runner_type (enum
    [sidecar, runbook]) and OpenAI's `type: {enum: [disabled]}` variants became enum
    [<schema name>], a value the API refuses. A mapping key is kept as the document says."""
    kinds = {"type": "string", "enum": ["email", "sms"]}
    email = {**EMAIL, "properties": {**EMAIL["properties"], "channel": {"$ref": "#/$defs/Kind"}}}
    sms = {**SMS, "properties": {**SMS["properties"], "channel": {"const": "sms"}}}
    defs = {"Email": email, "Sms": sms, "Kind": kinds}
    out, reports = run(discriminator, union(), defs=defs)
    assert tags(out) == [{"$ref": "#/$defs/Kind"}, {"const": "sms"}]
    assert [m["required"] for m in out["anyOf"]] == [["address", "channel"], ["channel"]]
    assert reports == [("#", "discriminator: 'channel' of Email, Sms does not allow the "
                             "schema's name, the tag a variant no mapping names takes; left "
                             "as declared")]
    mapped, reports = run(discriminator, union({"email": "Email", "text": "Sms"}), defs=defs)
    assert [t["enum"] for t in tags(mapped)] == [["email"], ["text"]]
    assert reports == []
    named = {**defs, "Sms": {**sms, "properties": {"channel": {"enum": ["Sms", "sms"]}}}}
    assert tags(run(discriminator, union(), defs=named)[0])[1] == {"type": "string",
                                                                    "enum": ["Sms"]}


def test_several_keys_for_one_variant_and_unmapped_variants() -> None:
    """Two mapping keys naming one schema are both its tags; an unmapped variant keeps its
    name; mapping values may be bare schema names."""
    out, _ = run(discriminator, union({"mail": "Email", "e-mail": "#/components/schemas/Email"}),
                 defs=DEFS)
    assert [t["enum"] for t in tags(out)] == [["mail", "e-mail"], ["Sms"]]


def test_mapping_keys_that_are_no_strings_are_tags_as_text() -> None:
    """A mapping key given as a number or boolean (a dict document, ``1:`` in YAML) is the
    tag value as its text, said at the key's pointer; it made ``{"type": "string", "enum":
    [1]}``, a tag no value could match."""
    mapping: dict[Any, str] = {1: "#/components/schemas/Email", False: "Sms", 2.5: "Sms"}
    out, reports = run(discriminator, union(mapping), defs=DEFS)  # type: ignore[arg-type]
    assert [t["enum"] for t in tags(out)] == [["1"], ["false", "2.5"]]
    assert reports == [
        (f"#/discriminator/mapping/{text}",
         f"discriminator: the mapping key {key!r} is no string; read as the tag value "
         f"'{text}'") for key, text in ((1, "1"), (False, "false"), (2.5, "2.5"))]


def test_mapping_entries_that_name_no_schema_are_reported() -> None:
    """A mapping value that is no string, or names no schema, is left out and reported at
    its pointer (it was ignored in silence); its variant is tagged with its own name."""
    mapping: dict[str, Any] = {"email": 3, "sms": None}
    out, reports = run(discriminator, union(mapping), defs=DEFS)
    assert [t["enum"] for t in tags(out)] == [["Email"], ["Sms"]]
    assert reports == [
        (f"#/discriminator/mapping/{key}", f"discriminator: the mapping of '{key}' names no "
         f"schema (expected a $ref or a schema name, not {kind}); left out")
        for key, kind in (("email", "an integer"), ("sms", "null"))]
    _, reports = run(discriminator, {**union(), "discriminator": {
        "propertyName": "channel", "mapping": ["Email"]}}, defs=DEFS)
    assert reports == [("#/discriminator/mapping", "discriminator: expected mapping to be an "
                        "object of tag values to $refs, not an array; ignored")]


def test_an_inheritance_mapping_fault_is_one_warning() -> None:
    """An inheritance-style parent whose mapping names no schema is warned about once at
    the entry's pointer, though the parent is emended for requests and responses."""
    parent = {"type": "object", "properties": {"kind": {"type": "string"}},
              "discriminator": {"propertyName": "kind", "mapping": {
                  "c": "#/components/schemas/C", "x": "#/components/schemas/Nope"}}}
    child = {"allOf": [{"$ref": "#/components/schemas/Parent"},
                       {"type": "object", "properties": {"c": {"type": "string"}}}]}
    ref = {"$ref": "#/components/schemas/Parent"}
    doc = {"openapi": "3.0.3", "info": {"title": "t", "version": "1"}, "paths": {"/q": {
        "post": {"operationId": "q", "requestBody": {"content": {
            "application/json": {"schema": ref}}},
            "responses": {"200": {"description": "ok", "content": {
                "application/json": {"schema": ref}}}}}}},
        "components": {"schemas": {"Parent": parent, "C": child}}}
    app = httpllm.compile(doc, "mcp")
    assert app.functions[0].output is not None
    assert [(w.pointer, w.message) for w in app.warnings] == [
        ("#/components/schemas/Parent/discriminator/mapping/x",
         "discriminator: the mapping of 'x' names no schema (expected a $ref or a schema "
         "name, not '#/components/schemas/Nope'); left out")]


def test_variants_that_cannot_be_tagged() -> None:
    """Inline variants stay as written; a variant that is not an object is reported."""
    schema = {"anyOf": [{"type": "object"}, {"$ref": "#/$defs/Text"}],
              "discriminator": {"propertyName": "kind"}}
    out, reports = run(discriminator, schema, defs={"Text": {"type": "string"}})
    assert out == {"anyOf": [{"type": "object"}, {"$ref": "#/$defs/Text"}]}
    assert reports == [("#", "discriminator: variant 'Text' is not an object schema; its "
                             "'kind' tag cannot be required")]


def test_variant_being_emended_uses_its_base_form() -> None:
    """A variant that is itself being emended (a cycle) is tagged from its base form."""
    out, _ = run(discriminator, union(), defs={"Email": EMAIL}, base={"Sms": SMS})
    assert [t["enum"] for t in tags(out)] == [["Email"], ["Sms"]]


def test_single_variant_is_unwrapped() -> None:
    """A discriminated union of one is its one tagged variant."""
    schema = {"anyOf": [{"$ref": "#/$defs/Sms"}], "discriminator": {"propertyName": "channel"},
              "description": "d"}
    out, _ = run(discriminator, schema, defs=DEFS)
    assert out == {"type": "object", "required": ["channel"], "description": "d",
                   "properties": {"channel": {"type": "string", "enum": ["Sms"]},
                                  "phone": {"type": "string"}}}


def test_discriminator_without_union_is_dropped() -> None:
    """A discriminator with nothing to tag (the 3.0 allOf-only idiom) is removed."""
    schema = {"type": "object", "discriminator": {"propertyName": "kind"}}
    assert run(discriminator, schema)[0] == {"type": "object"}


def test_no_discriminator_is_identity() -> None:
    """A schema without a discriminator comes back as the same object."""
    schema = {"anyOf": [{"$ref": "#/$defs/Sms"}]}
    assert run(discriminator, schema, defs=DEFS)[0] is schema


def test_depth_10000_is_limit_exceeded() -> None:
    """A schema 10,000 levels deep raises LimitExceeded, not RecursionError."""
    with pytest.raises(LimitExceeded):
        run(discriminator, deep(10_000))


def test_c23_tags_required() -> None:
    """C23: each branch requires `channel` restricted to its mapping value, so a body
    without the tag or with the other tag fails."""
    app = httpllm.compile(shared.case("C23"), "3.1")
    body = app.function("sendNotification").parameters["properties"]["body"]
    assert "discriminator" not in repr(body)
    assert [m["properties"]["channel"]["enum"] for m in body["anyOf"]] == [["email"], ["sms"]]
    assert all("channel" in m["required"] for m in body["anyOf"])
    assert not valid(body, {"address": "a", "subject": "s"})
    assert not valid(body, {"channel": "sms", "address": "a", "subject": "s"})
    assert valid(body, {"channel": "email", "address": "a", "subject": "s"})


VARIANT = st.fixed_dictionaries(
    {"type": st.just("object"),
     "properties": st.fixed_dictionaries(
         {"kind": st.sampled_from([{"type": "string"}, {"type": "string", "default": "x"}])},
         optional={"a": st.sampled_from([{"type": "string"}, {"type": "integer"}])})},
    optional={"required": st.just(["a"])},
)


@st.composite
def discriminated(draw: st.DrawFn) -> tuple[dict[str, Any], dict[str, Any]]:
    names = draw(st.lists(st.sampled_from(["Cat", "Dog", "Fox"]), min_size=1, max_size=3,
                          unique=True))
    defs = {n: draw(VARIANT) for n in names}
    mapping = draw(st.dictionaries(st.sampled_from(["c", "d", "f", "x"]),
                                   st.sampled_from(names), max_size=3))
    spec: dict[str, Any] = {"propertyName": "kind"}
    if mapping:
        spec["mapping"] = {k: f"#/components/schemas/{v}" for k, v in mapping.items()}
    schema = {"$defs": defs, "anyOf": [{"$ref": f"#/$defs/{n}"} for n in names],
              "discriminator": spec}
    return schema, defs


@pytest.mark.slow
def test_narrows_to_the_tagged_variants() -> None:
    """Every instance of the result is valid for the union as written, carries a tag, and
    matches exactly one variant; the pass is pure and a fixpoint."""
    sampled = Sampled()

    @given(discriminated(), st.data())
    @HEAVY
    def narrows(case: tuple[dict[str, Any], dict[str, Any]], data: st.DataObject) -> None:
        schema, defs = case
        out = check_pure(discriminator, schema, defs=defs)
        plain = {"anyOf": [defs[m["$ref"][8:]] for m in schema["anyOf"]]}  # refs resolved
        sampled.add(check_contract(plain, out, data, "narrows"))
        members = out.get("anyOf", [out])
        for member in members:
            assert "kind" in member["required"]
        instance = data.draw(st.dictionaries(st.sampled_from(["kind", "a"]),
                                             st.sampled_from(["c", "d", "Cat", "Dog", "Fox", 1])))
        if valid(out, instance):
            assert sum(valid({"$defs": out.get("$defs", {}), **m}, instance)
                       for m in members) == 1

    narrows()
    sampled.check()


@pytest.mark.parametrize("member", [True, False])
def test_a_lone_boolean_member_with_a_discriminator_compiles(member: bool) -> None:
    """``anyOf: [true]`` (or ``[false]``) with a discriminator and an annotation keeps its
    boolean member; folding the one member into the node raised TypeError ('bool' object
    is not a mapping) out of compile(). Validation still takes any body, or none."""
    doc = {"openapi": "3.1.0", "info": {"title": "t", "version": "1"},
           "servers": [{"url": "https://a.example.com"}],
           "paths": {"/a": {"post": {"operationId": "a", "requestBody": {"content": {
               "application/json": {"schema": {
                   "anyOf": [member], "discriminator": {"propertyName": "kind"},
                   "description": "x"}}}},
               "responses": {"200": {"description": "ok"}}}}}}
    for provider, options in (("chatgpt", {"strict": True}), ("mcp", {}), ("gemini", {})):
        app = httpllm.compile(doc, provider=provider, **options)
        assert not app.errors and app.tools()
        assert app.validate("a", {"body": {"kind": "x"}}).ok is member
