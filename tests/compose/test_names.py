"""Function names: sanitized, capped, unique and deterministic."""

from __future__ import annotations

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from httpllm.compose.names import NAME_MAX, NamePool, function_name, sanitize

VALID = re.compile(r"^[a-zA-Z_][a-zA-Z0-9_-]{0,63}$")


@pytest.mark.parametrize(
    ("raw", "name"),
    [
        ("listPets", "listPets"),
        ("repos/get-content.v2", "repos_get-content_v2"),
        ("pets.list all", "pets_list_all"),
        ("2fa-enable", "_2fa-enable"),
        ("-x-", "_-x-"),
        ("__init__", "init"),
        ("???", "operation"),
        ("", "operation"),
        ("café", "caf"),
    ],
)
def test_sanitize(raw: str, name: str) -> None:
    """Runs of invalid characters become `_`; a leading digit gets `_`; empty is `operation`."""
    assert sanitize(raw) == name


def test_long_names_keep_a_prefix_and_a_hash() -> None:
    """A name over the limit keeps its start and ends in a hash of the whole raw name."""
    long_a = "get_" + "a" * 100 + "_one"
    long_b = "get_" + "a" * 100 + "_two"
    a, b = sanitize(long_a), sanitize(long_b)
    assert len(a) == len(b) == NAME_MAX
    assert a.startswith("get_aaaa") and a != b
    assert re.fullmatch(r"get_a+_[0-9a-f]{8}", a)
    assert sanitize(long_a) == a


def test_tiny_limit_still_fits() -> None:
    """A limit too small for the hash truncates to the limit."""
    assert sanitize("abcdefghijklmnop", 5) == "abcde"
    assert len(sanitize("abcdefghijklmnop", 10)) == 10


@pytest.mark.parametrize(
    ("operation_id", "method", "path", "raw"),
    [
        ("listPets", "get", "/pets", "listPets"),
        (None, "get", "/pets/{petId}", "get_/pets/by_petId"),
        ("  ", "delete", "/a/{b}/{c}", "delete_/a/by_b/by_c"),
        (None, "post", "/", "post_/"),
        ("получить вещь", "get", "/things/{id}", "get_/things/by_id"),
        ("🎉party", "get", "/p", "🎉party"),
    ],
)
def test_function_name(operation_id: str | None, method: str, path: str, raw: str) -> None:
    """The operationId, else (also when no character of it may stand in a name) the method
    and the path with `{p}` read as `by_p`."""
    assert function_name(operation_id, method, path) == raw


def test_pool_suffixes_repeats_in_order() -> None:
    """A repeated name gets `_2`, `_3` in document order; case does not make names differ."""
    pool = NamePool()
    assert [pool.claim(n) for n in ["pets", "pets", "Pets", "pets.", "pets_2"]] == [
        "pets", "pets_2", "Pets_3", "pets_4", "pets_2_2"]


def test_pool_suffix_fits_the_limit() -> None:
    """The suffix of a long repeated name still fits the limit."""
    pool = NamePool(limit=10)
    names = [pool.claim("abcdefghij") for _ in range(12)]
    assert len(set(names)) == 12
    assert all(len(n) <= 10 for n in names)
    assert names[:3] == ["abcdefghij", "abcdefgh_2", "abcdefgh_3"]


@given(st.text(max_size=120))
def test_sanitize_always_valid(raw: str) -> None:
    """Any text becomes a name every provider accepts, and always the same one."""
    name = sanitize(raw)
    assert VALID.match(name), name
    assert sanitize(raw) == name


@settings(max_examples=80)
@given(st.lists(st.text(alphabet="aA_./-{}0é", max_size=80), max_size=20))
def test_pool_names_unique_valid_deterministic(raws: list[str]) -> None:
    """A pool's names are valid, unique ignoring case, and the same for the same input."""
    first, second = NamePool(), NamePool()
    names = [first.claim(r) for r in raws]
    assert all(VALID.match(n) for n in names)
    assert len({n.lower() for n in names}) == len(names)
    assert [second.claim(r) for r in raws] == names
