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
