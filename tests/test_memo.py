"""_memo: one identity cache, unbounded per compile or bounded (least recently used)."""

from __future__ import annotations

from httpllm._memo import BoundedIdentityMemo, HeldById, IdentityCache, IdentityMemo


def test_a_value_is_found_by_the_same_object_only() -> None:
    """An equal but distinct object, or other extra keys, find nothing."""
    memo: IdentityMemo[int] = IdentityMemo()
    node = {"type": "string"}
    assert memo.put(node, 1) == 1 and memo.put(node, 2, "strict") == 2
    assert (memo.get(node), memo.get(node, "strict"), memo.get(dict(node))) == (1, 2, None)


def test_a_bounded_memo_drops_the_least_recently_used() -> None:
    """With a limit, a read keeps an entry and the oldest unread one goes first."""
    memo: BoundedIdentityMemo[str] = BoundedIdentityMemo(2)
    a, b, c = {"a": 1}, {"b": 1}, {"c": 1}
    memo.put(a, "a")
    memo.put(b, "b")
    assert memo.get(a) == "a"
    memo.put(c, "c")
    assert (memo.get(a), memo.get(b), memo.get(c), len(memo)) == ("a", None, "c", 2)


def test_a_memo_holds_what_it_was_given() -> None:
    """Temporaries put in the memo stay alive with it, so no new object can take an id it
    knows: fresh objects find nothing, with or without extra keys."""
    memo: IdentityMemo[int] = IdentityMemo()
    for i in range(300):
        memo.put({"n": i}, i)
        memo.put({"n": i}, -i, "response")
    assert len(memo) == 600
    fresh = [{"n": i} for i in range(300)]
    assert all(memo.get(node) is None and memo.get(node, "response") is None
               for node in fresh)


def test_putting_again_replaces_the_value() -> None:
    """A second put for the same object and keys replaces the value, holding it once."""
    memo: IdentityMemo[int] = IdentityMemo()
    node: dict[str, int] = {}
    memo.put(node, 1)
    memo.put(node, 2)
    assert (memo.get(node), len(memo)) == (2, 1)


def test_a_table_by_id_holds_each_object_once() -> None:
    """``keep`` stores by id and holds the object, once however often it is kept."""
    table: HeldById[int] = HeldById()
    node: dict[str, int] = {}
    assert (table.keep(node, 1), table.keep(node, 2)) == (1, 2)
    assert table == {id(node): 2} and table.held == [node]


def test_tables_given_one_list_hold_in_it() -> None:
    """A table made with another's ``held`` list holds its objects there."""
    first: HeldById[int] = HeldById()
    second: HeldById[int] = HeldById(first.held)
    a, b = {"a": 1}, {"b": 1}
    first.keep(a, 1)
    second.keep(b, 2)
    assert first.held == [a, b] and second.held is first.held


def test_both_memos_are_identity_caches() -> None:
    """The unbounded and the bounded memo both have the calls of ``IdentityCache`` (the
    annotations are what mypy checks; ``isinstance`` checks the calls at run time), and
    a function given either finds what it put."""
    memos: list[IdentityCache[int]] = [IdentityMemo(), BoundedIdentityMemo(4)]
    node: dict[str, int] = {}
    for memo in memos:
        assert isinstance(memo, IdentityCache)
        assert memo.put(node, 1, "x") == 1 and memo.get(node, "x") == 1 and len(memo) == 1
    assert not isinstance(HeldById(), IdentityCache)  # a table has no put
