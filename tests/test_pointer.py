"""JSON pointers (RFC 6901) spelled like a ``$ref``."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from httpllm import pointer
from httpllm.pointer import escape, file_label, join, parts, split, unescape


@pytest.mark.parametrize(
    ("token", "escaped"),
    [("pets", "pets"), ("/pets", "~1pets"), ("a~b", "a~0b"), ("~1", "~01"), (3, "3"), ("", "")],
)
def test_escape(token: str | int, escaped: str) -> None:
    """`~` becomes `~0` and `/` becomes `~1`, in that order (RFC 6901 section 3)."""
    assert escape(token) == escaped


def test_unescape_order() -> None:
    """`~01` is the token `~1`, not `/` (RFC 6901 section 4: `~1` is replaced first)."""
    assert unescape("~01") == "~1"


def test_join() -> None:
    """Tokens are escaped and appended; no tokens gives the pointer back."""
    assert join("#/paths", "/pets/{id}", "get") == "#/paths/~1pets~1{id}/get"
    assert join("#/components", "schemas", 0) == "#/components/schemas/0"
    assert join("#/a") == "#/a"


@pytest.mark.parametrize(
    ("fragment", "tokens"),
    [
        ("", []),
        ("#", []),
        ("#/", [""]),
        ("/a/b~1c", ["a", "b/c"]),
        ("#/components/schemas/Pet", ["components", "schemas", "Pet"]),
        ("#//a", ["", "a"]),
        ("#/a%20b", ["a b"]),
        ("#/p%25c", ["p%c"]),
        ("#/m~0n", ["m~n"]),
    ],
)
def test_parts(fragment: str, tokens: list[str]) -> None:
    """A fragment is percent-decoded, split on `/` and unescaped (RFC 6901 sections 4, 6)."""
    assert parts(fragment) == tokens


def test_parts_keeps_an_empty_first_key() -> None:
    """`#//a` names the key `""` then `a`; only the first slash is the separator."""
    assert parts("#//a") == ["", "a"]
    assert parts("#/a//") == ["a", "", ""]


@given(st.lists(st.text(alphabet=st.characters(blacklist_characters="%"), max_size=8), max_size=6))
def test_join_then_parts_round_trips(tokens: list[str]) -> None:
    """`parts(join("#", *tokens))` gives the tokens back (tokens without `%`, which a
    fragment percent-decodes)."""
    assert parts(join("#", *tokens)) == tokens


@given(st.lists(st.text(max_size=8), max_size=6))
def test_join_then_split_round_trips_every_key(tokens: list[str]) -> None:
    """`split(join("#", *tokens))` gives the tokens back, `%` and all: what join made is
    read by split, which never percent-decodes (`parts` read `a%20b` as `a b`)."""
    assert split(join("#", *tokens)) == tokens
    assert split("#/a%20b/c~1d") == ["a%20b", "c/d"] and parts("#/a%20b") == ["a b"]


@given(st.text(max_size=12))
def test_escape_round_trips(token: str) -> None:
    """`unescape(escape(t)) == t` for every token."""
    assert unescape(escape(token)) == token
    assert "/" not in escape(token)


@pytest.mark.parametrize(("uri", "label"), [
    ("file:///api/openapi.yaml", ""),
    ("file:///api/schemas/pet.yaml", "schemas/pet.yaml"),
    ("file:///common/pet.yaml", "../common/pet.yaml"),
    ("file:///elsewhere/deep/pet.yaml", "../elsewhere/deep/pet.yaml"),
    ("https://example.com/pet.yaml", "https://example.com/pet.yaml"),
])
def test_file_label_is_relative_to_the_root_folder(uri: str, label: str) -> None:
    """Another file is named from the root document's folder, never by an absolute path
    of the machine (a loss report reads the same wherever the document lies)."""
    assert file_label(uri, "file:///api/openapi.yaml") == label


def test_file_label_of_a_document_given_as_text() -> None:
    assert file_label("https://example.com/pet.yaml", "root:") == "https://example.com/pet.yaml"


DOC = {"a": [{"b/c": 1, "d~e": None}], "f": {"g": {"h": 2}}, "": {"": 3}}


@pytest.mark.parametrize(("at", "expected"), [
    ("#", DOC), ("", DOC), ("#/a/0/b~1c", 1), ("/a/0/d~0e", None), (["f", "g", "h"], 2),
    ("#//", 3), ("#/a/0/b%7E1c", 1), ("#/a/0/b~1c/x", "absent"), ("#/a/1", "absent"),
    ("#/a/00", "absent"), ("#/a/-", "absent"), ("#/x", "absent"), ("#/f/g/h/i", "absent"),
])
def test_get(at: Any, expected: Any) -> None:
    """RFC 6901 evaluation; a path that does not exist gives the default, never raises
    (an index with a leading zero is no index, section 4; a fragment is percent-decoded,
    section 6)."""
    assert pointer.get(DOC, at, "absent") == expected


def test_replace_copies_on_write() -> None:
    """Only the containers on the way are new; the input is untouched and every other
    subtree is shared."""
    new = pointer.replace(DOC, "#/a/0/b~1c", 9)
    assert new["a"][0] == {"b/c": 9, "d~e": None}
    assert DOC["a"][0]["b/c"] == 1
    assert new["f"] is DOC["f"] and new[""] is DOC[""]
    assert new is not DOC and new["a"] is not DOC["a"] and new["a"][0] is not DOC["a"][0]
    assert pointer.replace(DOC, ["f", "g"], 0) == {**DOC, "f": {"g": 0}}


def test_replace_root_and_missing_paths() -> None:
    """The root is replaced by the value; a path that does not exist leaves the document
    as it is (the same object)."""
    assert pointer.replace(DOC, "#", 5) == 5
    assert pointer.replace(DOC, "#/f/x/y", 5) is DOC
    assert pointer.replace(DOC, "#/a/7", 5) is DOC


@pytest.mark.parametrize("token", ["\u00b2", "\u0661", "01", "-", "", "1" * 19, "1e3", " 1"])
def test_index_takes_rfc_6901_indexes_only(token: str) -> None:
    """Only ASCII digits without a leading zero, at most 18 of them, are an index:
    ``get`` raised ValueError on ``²`` (``str.isdigit`` takes it, ``int`` does not)."""
    assert pointer.index(token) is None
    assert pointer.get({"a": [0, 1, 2]}, ["a", token], "none") == "none"
    assert pointer.index("2") == 2 and pointer.get({"a": [0, 1, 2]}, ["a", "2"]) == 2
