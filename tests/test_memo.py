"""_memo: one identity cache, unbounded per compile or bounded (least recently used)."""

from __future__ import annotations

from httpllm._memo import BoundedIdentityMemo, IdentityMemo


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
