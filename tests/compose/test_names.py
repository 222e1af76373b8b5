"""Function names: sanitized, capped, unique and deterministic."""

from __future__ import annotations

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from httpllm.compose.names import (
    NAME_MAX,
    NamePool,
    argument_name,
    function_name,
    safe_argument_names,
    sanitize,
    transliterate,
)

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
        ("café", "cafe"),
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
        ("получить вещь", "get", "/things/{id}", "получить вещь"),
        ("...", "get", "/things/{id}", "get_/things/by_id"),
        ("\u200b\u202e", "get", "/p", "get_/p"),
        ("🎉party", "get", "/p", "🎉party"),
    ],
)
def test_function_name(operation_id: str | None, method: str, path: str, raw: str) -> None:
    """The operationId, else (also when no character of it may stand in a name once
    transliterated) the method and the path with `{p}` read as `by_p`: `получить вещь`
    was passed over, as if the model could not read it."""
    assert function_name(operation_id, method, path) == raw


@pytest.mark.parametrize(
    ("raw", "name"),
    [
        ("getCafé", "getCafe"),
        ("getCafe\u0301", "getCafe"),
        ("İstanbulAra", "IstanbulAra"),
        ("Zahlungsvorgänge_auflisten", "Zahlungsvorgange_auflisten"),
        ("Straße", "Strasse"),
        ("søkÆrøœđł", "sokAerooedl"),
        ("получитьПлатежи", "poluchit_Platezhi"),
        ("获取宠物", "HuoQuChongWu"),
        ("Λίστα", "Lista"),
        ("\uff4c\uff49\uff53\uff54", "list"),
        ("get\u200bPets\u202e", "getPets"),
    ],
)
def test_letters_outside_ascii_are_transliterated_not_dropped(raw: str, name: str) -> None:
    """A letter outside ASCII is spelled in ASCII (anyascii), not dropped: `getCafé` was
    `getCaf`, `İstanbulAra` `stanbulAra`, and `получитьПлатежи` and `获取宠物` fell back to
    the method and path, names that misled the model or told it nothing."""
    assert sanitize(raw) == name
    assert sanitize(raw) == sanitize(raw)


@given(st.text(alphabet=st.characters(codec="ascii"), max_size=80))
def test_ascii_is_never_transliterated(raw: str) -> None:
    """ASCII text is its own transliteration, so names of ASCII operationIds stay as they
    were."""
    assert transliterate(raw) == raw


def test_a_transliterated_name_at_the_limit_keeps_a_prefix_and_a_hash() -> None:
    """Transliteration may lengthen a name (`宠` is `Chong`): the limit holds for the
    transliterated name, and the hash is of the operationId as written, so two that
    transliterate alike differ."""
    fits = "get" + "é" * (NAME_MAX - 3)
    assert sanitize(fits) == "get" + "e" * (NAME_MAX - 3)
    long_a, long_b = "列出宠物" * 10, "列出寵物" * 10
    a, b = sanitize(long_a), sanitize(long_b)
    assert len(a) == len(b) == NAME_MAX and a != b
    assert re.fullmatch(r"LieChuChongWu[A-Za-z]+_[0-9a-f]{8}", a), a
    assert sanitize("宠" * 12) == "Chong" * 12
    assert re.fullmatch(r"(Chong){11}_[0-9a-f]{8}", sanitize("宠" * 13))


def test_names_that_transliterate_alike_are_numbered() -> None:
    """`getCafé` and `getCafe` are one name once transliterated: the later is numbered,
    as any repeated name is, whichever comes first."""
    pool = NamePool()
    assert [pool.claim(n) for n in ["getCafé", "getCafe", "GETCAFÉ"]] == [
        "getCafe", "getCafe_2", "GETCAFE_3"]
    pool = NamePool()
    assert [pool.claim(n) for n in ["getCafe", "getCafé"]] == ["getCafe", "getCafe_2"]


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
@pytest.mark.slow
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


ANTHROPIC = "a-zA-Z0-9_.-"
KEY = re.compile(r"^[a-zA-Z0-9_.-]{1,64}$")


@pytest.mark.parametrize(
    ("raw", "name"),
    [
        ("filter[status]", "filter_status"),
        ("a.b[c]", "a.b_c"),
        ("$top", "top"),
        ("@odata.nextLink", "odata.nextLink"),
        ("naïve-\U0001d501", "naive-x"),
        ("ids[]", "ids"),
        ("page size", "page_size"),
        ("Ünïcödé", "Unicode"),
        ("ペット", "petto"),
        ("Straße", "Strasse"),
        ("название", "nazvanie"),
    ],
)
def test_argument_name(raw: str, name: str) -> None:
    """Letters are transliterated (`ペット` and `название` were `query_<hash>`, `Straße`
    `Stra_e`), other runs outside the characters become one `_`, and `_` is trimmed at
    both ends."""
    assert argument_name(raw, ANTHROPIC, 64, "query") == name


def test_argument_name_with_nothing_left_is_its_stem_and_a_hash() -> None:
    """A name with no character the provider takes becomes the stem and a hash of it."""
    pet, name = (argument_name(raw, ANTHROPIC, 64, "query") for raw in ("[]", "\u200b"))
    assert re.fullmatch(r"query_[0-9a-f]{8}", pet) and re.fullmatch(r"query_[0-9a-f]{8}", name)
    assert pet != name and argument_name("[]", ANTHROPIC, 64, "query") == pet


def test_long_argument_name_keeps_a_prefix_and_a_hash() -> None:
    """A name past the limit keeps its start and ends in a hash of the whole name."""
    one, two = "x" * 66 + "_one", "x" * 66 + "_two"
    a, b = (argument_name(raw, ANTHROPIC, 64, "query") for raw in (one, two))
    assert len(a) == len(b) == 64 and a != b
    assert re.fullmatch(r"x{55}_[0-9a-f]{8}", a)


def test_argument_name_without_a_character_class_only_cuts() -> None:
    """No character class (`None`): only the length is fitted."""
    assert argument_name("filter[x]", None, 64, "query") == "filter[x]"
    assert len(argument_name("[" * 70, None, 64, "query")) == 64


def test_safe_argument_names_never_collide() -> None:
    """Two names spelled alike, or one spelled like a name that stays, get a hash of their
    own name; the first spelled so keeps the plain spelling."""
    names = safe_argument_names({"tag[a]": "query", "tag(a)": "query", "$top": "query"},
                                ANTHROPIC, 64, taken={"top"})
    assert names["tag[a]"] == "tag_a"
    assert re.fullmatch(r"tag_a_[0-9a-f]{8}", names["tag(a)"])
    assert re.fullmatch(r"top_[0-9a-f]{8}", names["$top"])


@settings(max_examples=80)
@given(st.lists(st.text(alphabet="aA_.-[]$@ é\U0001d501ペ", max_size=90), unique=True, max_size=12))
def test_safe_argument_names_are_valid_unique_deterministic(raws: list[str]) -> None:
    """Every new name matches the key pattern, none repeats a name or one that stays, and
    the same names give the same names."""
    wanted = {raw: "query" for raw in raws if not KEY.fullmatch(raw)}
    taken = [raw for raw in raws if KEY.fullmatch(raw)]
    names = safe_argument_names(wanted, ANTHROPIC, 64, taken)
    assert list(names) == list(wanted)
    assert all(KEY.fullmatch(n) for n in names.values()), names
    assert len({*names.values(), *taken}) == len(raws)
    assert safe_argument_names(wanted, ANTHROPIC, 64, taken) == names
