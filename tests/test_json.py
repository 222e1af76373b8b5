"""`_json`: numbers a double holds, and the `Unheld` the loader makes of those it does not."""

from __future__ import annotations

import copy
import pickle

import pytest

from httpllm._json import DOUBLE_MAX, Unheld, first_unheld, held, shown_number


@pytest.mark.parametrize(("value", "expected"), [
    (1.5, True), (0.0, True), (5e-324, True), (DOUBLE_MAX, True), (-DOUBLE_MAX, True),
    (2 ** 64, True), (True, True), ("1e400", True), (None, True),
    (float("inf"), False), (float("-inf"), False), (float("nan"), False),
    (DOUBLE_MAX + 1, False), (-(10 ** 400), False), (Unheld(0.0, "1e-400"), False),
])
def test_held(value: object, expected: bool) -> None:
    """A number is held unless non-finite, past the largest double, or an `Unheld`."""
    assert held(value) is expected


def test_unheld_is_made_only_for_numbers_a_double_does_not_hold() -> None:
    """`Unheld.of`: past the range, or non-zero text read as zero; zeros stay floats."""
    assert type(Unheld.of(float("1e-400"), "1e-400")) is Unheld
    assert type(Unheld.of(float("-1E+400"), "-1E+400")) is Unheld
    assert [type(Unheld.of(float(t), t)) for t in ("0.0", "-0e7", "0.000e-500", "1.5")] == [
        float] * 4


def test_unheld_survives_copy_and_pickle_with_its_text() -> None:
    """A loaded document may be deep-copied or pickled: the text goes along."""
    value = {"maximum": Unheld(float("inf"), "1e400")}
    for again in (copy.deepcopy(value), pickle.loads(pickle.dumps(value))):
        assert type(again["maximum"]) is Unheld and again["maximum"].text == "1e400"


def test_first_unheld_and_its_text() -> None:
    """The first number no double holds, at any depth, shown as the document wrote it."""
    found = first_unheld({"a": ["x", {"b": [1, Unheld(0.0, "1e-400")]}]})
    assert found is not None and shown_number(found) == "1e-400"
    assert first_unheld({"a": [1, 2.5, "inf"]}) is None
    assert shown_number(float("nan")) == "NaN"
    assert shown_number(-(10 ** 400)).endswith("(401 digits)")


def test_valid_unicode_replaces_lone_surrogates_in_keys_and_values() -> None:
    """Each surrogate in a string or a key becomes U+FFFD, its pointer named once (a key's
    spelled as replaced); the containers on the way are copies, the rest the same objects,
    and a value with none is returned as it is."""
    from httpllm._json import valid_unicode

    kept = {"d": "é", "n": [1, None, True]}
    value = {"a": ["x\ud800", "ok"], "k\udc00": {"d": "y\udfffz"}, "kept": kept}
    fixed, where = valid_unicode(value)
    assert fixed == {"a": ["x\ufffd", "ok"], "k\ufffd": {"d": "y\ufffdz"}, "kept": kept}
    assert fixed["kept"] is kept and value["a"] == ["x\ud800", "ok"]  # the input unchanged
    assert sorted(where) == ["#/a/0", "#/k\ufffd", "#/k\ufffd/d"]
    assert valid_unicode(kept) == (kept, []) and valid_unicode(kept)[0] is kept
    assert valid_unicode("\ud83d\ude00") == ("\ufffd\ufffd", ["#"])  # two code points


@pytest.mark.slow
def test_valid_unicode_walks_any_depth_and_shared_nodes_once() -> None:
    """No RecursionError however deep; a node held twice is fixed once (one copy in both
    places) and named at one of them."""
    from httpllm._json import valid_unicode

    deep: dict[str, object] = {"s": "\ud800"}
    for _ in range(20_000):
        deep = {"x": deep}
    fixed, where = valid_unicode(deep)
    assert len(where) == 1 and where[0].endswith("/x/s")
    shared = {"s": "\udc00"}
    fixed, where = valid_unicode([shared, shared])
    assert fixed[0] is fixed[1] and fixed[0] == {"s": "\ufffd"} and len(where) == 1
    # held at two depths, the deeper place listed after the shallower one's subtree (a
    # component a tool's $refs inline twice): fixed in both
    component = {"properties": {"x\ud800": {"type": "number"}}}
    fixed, where = valid_unicode({"a": component, "b": [component], "c": {"d": [component]}})
    assert fixed["a"] is fixed["b"][0] is fixed["c"]["d"][0]
    assert fixed["a"] == {"properties": {"x\ufffd": {"type": "number"}}} and len(where) == 1
