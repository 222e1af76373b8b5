"""Style and explode serialization, against the OpenAPI style examples and RFC 6570."""

from __future__ import annotations

from typing import Any

import pytest

from httpllm._escape import identity, percent
from httpllm.execute.serialize import content_text, expand, query_pairs, scalar

STRING = "blue"
ARRAY = ["blue", "black", "brown"]
OBJECT = {"R": 100, "G": 200, "B": 150}

# OpenAPI 3.1.1 section 4.8.12.5 (Style Examples); the 3.1.0 table's `label` explode=false
# array `.blue.black.brown` is corrected there to RFC 6570's `.blue,black,brown`.
PATH_TABLE = [
    ("matrix", False, "", ";color"),
    ("matrix", False, STRING, ";color=blue"),
    ("matrix", False, ARRAY, ";color=blue,black,brown"),
    ("matrix", False, OBJECT, ";color=R,100,G,200,B,150"),
    ("matrix", True, "", ";color"),
    ("matrix", True, STRING, ";color=blue"),
    ("matrix", True, ARRAY, ";color=blue;color=black;color=brown"),
    ("matrix", True, OBJECT, ";R=100;G=200;B=150"),
    ("label", False, "", "."),
    ("label", False, STRING, ".blue"),
    ("label", False, ARRAY, ".blue,black,brown"),
    ("label", False, OBJECT, ".R,100,G,200,B,150"),
    ("label", True, "", "."),
    ("label", True, STRING, ".blue"),
    ("label", True, ARRAY, ".blue.black.brown"),
    ("label", True, OBJECT, ".R=100.G=200.B=150"),
    ("simple", False, "", ""),
    ("simple", False, STRING, "blue"),
    ("simple", False, ARRAY, "blue,black,brown"),
    ("simple", False, OBJECT, "R,100,G,200,B,150"),
    ("simple", True, "", ""),
    ("simple", True, STRING, "blue"),
    ("simple", True, ARRAY, "blue,black,brown"),
    ("simple", True, OBJECT, "R=100,G=200,B=150"),
]

QUERY_TABLE = [
    ("form", False, "", "color="),
    ("form", False, STRING, "color=blue"),
    ("form", False, ARRAY, "color=blue,black,brown"),
    ("form", False, OBJECT, "color=R,100,G,200,B,150"),
    ("form", True, "", "color="),
    ("form", True, STRING, "color=blue"),
    ("form", True, ARRAY, "color=blue&color=black&color=brown"),
    ("form", True, OBJECT, "R=100&G=200&B=150"),
    ("spaceDelimited", False, ARRAY, "color=blue%20black%20brown"),
    ("spaceDelimited", False, OBJECT, "color=R%20100%20G%20200%20B%20150"),
    ("pipeDelimited", False, ARRAY, "color=blue%7Cblack%7Cbrown"),
    ("pipeDelimited", False, OBJECT, "color=R%7C100%7CG%7C200%7CB%7C150"),
    ("deepObject", True, OBJECT, "color%5BR%5D=100&color%5BG%5D=200&color%5BB%5D=150"),
]


def render(pairs: list[tuple[str, str]]) -> str:
    """Pairs joined as a query string."""
    return "&".join(f"{k}={v}" for k, v in pairs)


@pytest.mark.parametrize(("style", "explode", "value", "expected"), PATH_TABLE)
def test_path_styles_match_the_openapi_table(
    style: str, explode: bool, value: Any, expected: str
) -> None:
    """Each simple/label/matrix row of the OpenAPI style examples expands exactly as shown."""
    assert expand(style, "color", value, explode, percent) == expected


@pytest.mark.parametrize(("style", "explode", "value", "expected"), QUERY_TABLE)
def test_query_styles_match_the_openapi_table(
    style: str, explode: bool, value: Any, expected: str
) -> None:
    """Each form/spaceDelimited/pipeDelimited/deepObject row of the table serializes as shown."""
    assert render(query_pairs(style, "color", value, explode, percent)) == expected


@pytest.mark.parametrize(
    ("style", "explode", "value"),
    [
        ("spaceDelimited", False, STRING),
        ("pipeDelimited", False, STRING),
        ("spaceDelimited", True, ARRAY),
        ("pipeDelimited", True, ARRAY),
    ],
)
def test_undefined_combinations_fall_back_to_form(style: str, explode: bool, value: Any) -> None:
    """A combination the table marks n/a is serialized as form style with the same explode."""
    expected = query_pairs("form", "color", value, explode, percent)
    assert query_pairs(style, "color", value, explode, percent) == expected


@pytest.mark.parametrize("value", [None, [], {}, [None], {"R": None}])
def test_undefined_values_produce_nothing(value: Any) -> None:
    """Null, an empty array or object, and all-null members are undefined and give no output."""
    assert expand("matrix", "color", value, True, percent) is None
    assert query_pairs("form", "color", value, True, percent) == []


def test_null_members_are_skipped() -> None:
    """Null array members and null object values are left out, the rest serialized."""
    assert expand("simple", "c", ["a", None, "b"], False, percent) == "a,b"
    assert render(query_pairs("form", "c", {"a": 1, "b": None}, True, percent)) == "a=1"


def test_deep_object_nests_brackets_and_repeats_keys_for_arrays() -> None:
    """With `nested="repeat"`, nested objects become nested brackets and array members
    repeat their key, and a deepObject array falls back to form."""
    value = {"a": {"b": 1}, "tags": ["x", "y"]}
    assert render(query_pairs("deepObject", "f", value, True, percent, nested="repeat")) == (
        "f%5Ba%5D%5Bb%5D=1&f%5Btags%5D=x&f%5Btags%5D=y"
    )
    expected = query_pairs("form", "color", ARRAY, True, percent)
    assert query_pairs("deepObject", "color", ARRAY, True, percent, nested="repeat") == expected


def test_raw_delimiters_for_multipart() -> None:
    """In raw mode the space, pipe and bracket delimiters are literal characters."""
    assert query_pairs("pipeDelimited", "c", ARRAY, False, identity, raw=True) == [
        ("c", "blue|black|brown")
    ]
    assert query_pairs("deepObject", "c", {"R": 1}, True, identity, raw=True) == [("c[R]", "1")]


def test_scalar_spells_json_primitives() -> None:
    """Booleans are true/false, numbers their JSON text, nested values JSON."""
    assert [scalar(True), scalar(False), scalar(3), scalar(2.5), scalar([1, "a"])] == [
        "true",
        "false",
        "3",
        "2.5",
        '[1,"a"]',
    ]


def test_content_text_is_json_for_json_media_types() -> None:
    """A content parameter with a JSON media type is compact JSON; a string stays quoted."""
    assert content_text("application/json", {"lat": 1.5, "long": 2}) == '{"lat":1.5,"long":2}'
    assert content_text("application/json", "x") == '"x"'
    assert content_text("text/plain", "x") == "x"
