"""Answers cut to a budget: JSON stays JSON, and what was left out is counted."""

from __future__ import annotations

import json

from httpllm.cut import cut_json, cut_text, dumps, note

ITEMS = {"items": [{"id": i, "name": "n" * 30} for i in range(300)], "total": 300}


def test_answer_within_budget_is_unchanged() -> None:
    """An answer that fits is the same value, as compact JSON, with nothing counted."""
    cut = cut_json(ITEMS, 100_000)
    assert cut.value is ITEMS and cut.text == dumps(ITEMS) and not cut.cut


def test_long_arrays_keep_as_many_first_items_as_fit() -> None:
    """Arrays keep their first items: the most that fit, and one more would not."""
    cut = cut_json(ITEMS, 2_000)
    assert len(cut.text) <= 2_000 and json.loads(cut.text) == cut.value
    kept = cut.value["items"]
    assert kept == ITEMS["items"][: len(kept)] and cut.kept == len(kept)
    assert cut.items == 300 - len(kept) and cut.arrays == 1
    one_more = {"items": ITEMS["items"][: len(kept) + 1], "total": 300}
    assert len(dumps(one_more)) > 2_000


def test_long_strings_are_shortened_when_arrays_are_not_enough() -> None:
    """A huge string is shortened (and counted) so the answer stays a JSON object."""
    cut = cut_json({"log": "x" * 50_000, "ok": True}, 500)
    assert cut.value["ok"] is True and len(cut.text) <= 500
    assert cut.strings == 1 and cut.chars > 49_000


def test_without_any_json_shape_that_fits_the_text_is_cut() -> None:
    """When no JSON shape fits, the text's first characters are kept and value is None."""
    wide = {f"key{i}": i for i in range(1000)}
    cut = cut_json(wide, 100)
    assert cut.value is None and cut.text == dumps(wide)[:100]
    assert cut.chars == len(dumps(wide)) - 100


def test_deep_answers_do_not_recurse() -> None:
    """Shortening a value nested 100,000 levels deep raises no RecursionError."""
    deep: list[object] = []
    node = deep
    for _ in range(100_000):
        child: list[object] = [1, 2, 3]
        node.append(child)
        node = child
    from httpllm.cut import _capped

    copy, stats = _capped(deep, 1, None)
    assert stats[1] > 0 and isinstance(copy, list)


def test_text_cut_counts_characters() -> None:
    """Plain text keeps its first characters and counts the rest."""
    cut = cut_text("abcdef", 4)
    assert (cut.text, cut.chars, cut.total) == ("abcd", 2, 6)


def test_note_says_how_much_and_how_to_ask_for_less() -> None:
    """The note gives the budget, the size, what was left out and the paging arguments."""
    cut = cut_json(ITEMS, 2_000)
    text = note(cut, 2_000, "listPets", ["limit", "page"])
    assert "2,000" in text and f"{cut.items:,} item(s) left out" in text
    assert "call listPets again with limit, page" in text
    assert "no paging or filter argument" in note(cut, 2_000, "listPets", [])


def test_one_long_string_keeps_half_the_budget() -> None:
    """A JSON answer holding one long text keeps half the budget of it, not 1,000
    characters (a 5 MB text was cut to 1,000 while the note said 40,000)."""
    cut = cut_json({"text": "x" * 5_000_000}, 40_000)
    assert cut.value is not None and len(cut.value["text"]) == 20_001  # with the "…"
    assert len(cut.text) <= 40_000
