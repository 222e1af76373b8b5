"""JSON Schema -> TypeScript: each construct, names, comments, depth, determinism."""

from __future__ import annotations

import pytest

from httpllm.codemode.typescript import (
    MAX_NESTING,
    TypeScript,
    comment,
    identifier,
    pascal,
    property_key,
)

CASES = [
    ({"type": "string"}, "string"),
    ({"type": "integer"}, "number"),
    ({"type": ["string", "null"]}, "string | null"),
    ({"anyOf": [{"type": "string"}, {"type": "null"}]}, "string | null"),
    ({"oneOf": [{"type": "integer"}, {"type": "boolean"}]}, "number | boolean"),
    ({"enum": ["a", "b", None]}, '"a" | "b" | null'),
    ({"const": 3}, "3"),
    ({"const": {"k": [1, "x"]}}, '{"k": [1, "x"]}'),
    ({"type": "array", "items": {"type": ["string", "number"]}}, "(string | number)[]"),
    ({"type": "array"}, "unknown[]"),
    ({"type": "array", "prefixItems": [{"type": "string"}, {"type": "integer"}],
      "items": False, "minItems": 1}, "[string, number?]"),
    ({"type": "array", "prefixItems": [{"type": "string"}], "items": {"type": "boolean"},
      "minItems": 1}, "[string, ...boolean[]]"),
    ({"type": "object", "properties": {"id": {"type": "integer"}, "x-y": {"type": "string"}},
      "required": ["id"]}, '{ id: number; "x-y"?: string; }'),
    ({"type": "object", "additionalProperties": {"type": "integer"}},
     "{ [key: string]: number; }"),
    ({"type": "object"}, "{ [key: string]: unknown; }"),
    ({"type": "object", "additionalProperties": False}, "Record<string, never>"),
    ({"type": "object", "properties": {"a": {"type": "string"}}, "required": ["a"],
      "additionalProperties": {"type": "integer"}},
     "{ a: string; [key: string]: number | string; }"),
    ({"allOf": [{"type": "object", "properties": {"a": {"type": "string"}}},
                {"type": "object", "properties": {"b": {"type": "number"}}}]},
     "{ a?: string; } & { b?: number; }"),
    ({"$ref": "#/$defs/simple-user"}, "SimpleUser"),
    ({"$ref": "#/$defs/user~1admin"}, "UserAdmin"),  # the name unescaped: "user/admin"
    ({"type": "number", "enum": [1.5, float("inf")]}, "unknown"),
    (True, "unknown"),
    (False, "never"),
    ({"not": {"type": "string"}}, "unknown"),
]


@pytest.mark.parametrize(("schema", "expected"), CASES)
def test_construct(schema: object, expected: str) -> None:
    """Each JSON Schema construct has its TypeScript spelling."""
    assert TypeScript().expression(schema) == expected


def test_recursion_is_a_named_type() -> None:
    """A recursive schema, a `$ref` to its own `$defs` entry, renders as a named type that
    refers to itself."""
    node = {"type": "object", "properties": {"children": {
        "type": "array", "items": {"$ref": "#/$defs/Node"}}}}
    ts = TypeScript({"#/$defs/Node": "TreeNode"}.get)
    assert ts.expression(node) == "{ children?: TreeNode[]; }"
    assert ts.expression({"$ref": "#/$defs/Other"}) == "unknown"


def test_deep_input_is_cut_not_a_recursion_error() -> None:
    """10,000 nested levels render without RecursionError, nesting cut to MAX_NESTING."""
    schema: dict[str, object] = {"type": "string"}
    for _ in range(10_000):
        schema = {"type": "array", "items": schema}
    text = TypeScript().expression(schema)
    assert "nested deeper than" in text
    assert text.count("(") <= 2 * MAX_NESTING + 2


def test_same_schemas_same_text() -> None:
    """Two renderers give the same text for equal schemas (no order or identity leaks)."""
    schema = {"type": "object", "properties": {k: {"enum": [k, 1]} for k in "zyxa"}}
    assert TypeScript().expression(schema) == TypeScript().expression(dict(schema))


def test_described_layout_puts_each_argument_on_its_line() -> None:
    """The top-level layout carries each member's description, format and default."""
    schema = {"type": "object", "required": ["q"], "properties": {
        "q": {"type": "string", "description": "What to find.\n\nLong text."},
        "since": {"type": "string", "format": "date-time", "default": "now"}}}
    assert TypeScript().layout(schema, describe=True) == (
        '{\n  /** What to find. */\n  q: string;\n'
        '  /** Format: date-time. Default: "now". */\n  since?: string;\n}')


def test_document_text_cannot_end_a_comment() -> None:
    """A description holding `*/` cannot close the comment it is put in."""
    assert "*/" not in comment('x */ import a from "/etc/x.json"; /*')
    assert comment("see [the docs](https://x.test/a) now") == "see [the docs](https://x.test/a) now"


def test_names() -> None:
    """Names are valid identifiers in the field's casing; member names are quoted when
    they are not identifiers."""
    assert pascal("nullable-simple-user") == "NullableSimpleUser"
    assert pascal("3d-secure") == "_3dSecure"
    assert identifier("list-global-advisories") == "listGlobalAdvisories"
    assert identifier("GetCustomersCustomer") == "getCustomersCustomer"
    assert identifier("URLPath") == "urlPath"
    assert property_key("per_page") == "per_page"
    assert property_key("x-total") == '"x-total"'


@pytest.mark.parametrize(("raw", "type_name", "member"), [
    ("宠物", "宠物", "宠物"),
    ("Zahlungsvorgänge", "Zahlungsvorgänge", "zahlungsvorgänge"),
    ("Платежи", "Платежи", "платежи"),
    ("café", "Café", "café"),
    ("getCafé-list", "GetCaféList", "getCaféList"),
    ("\uff21\uff22\uff23", "ABC", "abc"),  # NFKC: the full-width letters a model types as ABC
    ("٣ أشياء", "_٣أشياء", "_٣أشياء"),  # an Arabic-Indic digit starts no identifier
    ("\u0301x", "_\u0301x", "_\u0301x"),  # nor does a combining mark
    ("ßeta", "ßeta", "ßeta"),  # "ß".upper() is "SS": a letter more, left as it is
    ("İstanbul", "İstanbul", "İstanbul"),  # "İ".lower() is two characters
    ("a$b·c🐶", "ABC", "abc"),  # $, punctuation and symbols separate words
    ("🐶", "_", "_"),
    ("\u115fa\ufe0fb", "AB", "ab"),  # invisible: a Hangul filler, a variation selector
])
def test_names_keep_the_letters_of_every_script(raw: str, type_name: str,
                                                member: str) -> None:
    """A tag or name in another script keeps its letters (ECMAScript identifiers are
    Unicode ID_Start ID_Continue*, ECMA-262 12.7): `宠物`, `Платежи` and `café` were all
    `_` (or `Caf`), so several tags collided into `api._`, `api._2` ... and the model read
    nothing in them."""
    assert (pascal(raw), identifier(raw)) == (type_name, member)
    assert type_name.isidentifier() and member.isidentifier()


def test_a_member_named___proto___is_declared_as_a_computed_key() -> None:
    """An argument or property named `__proto__` is declared `["__proto__"]`: the
    object literal a model writes after a plain `__proto__: "x"` sets the object's
    prototype (a string is ignored) and the argument is never sent, so the call failed with
    'required property "__proto__"; received nothing' however often the model retried; the
    computed key is an own property (found by a fresh tester). ECMA-262 B.3.1 (__proto__
    property names in object initializers)."""
    rendered = TypeScript().expression({"type": "object", "properties": {
        "__proto__": {"type": "string"}, "constructor": {"type": "string"}},
        "required": ["__proto__"]})
    assert rendered == '{ ["__proto__"]: string; constructor?: string; }'
    assert property_key('"__proto__"') == '"\\"__proto__\\""'

