"""Pausing the garbage collector is counted across threads (httpllm/_gc.py)."""

from __future__ import annotations

import gc
import threading
from collections.abc import Iterator

import pytest

from httpllm._gc import pausing_gc


@pytest.fixture
def collector_on() -> Iterator[None]:
    was = gc.isenabled()
    gc.enable()
    yield
    if not was:
        gc.disable()


def test_two_threads_keep_the_collector_off_until_both_finish(collector_on: None) -> None:
    """The collector stays off while a paused call runs in any thread (the first to finish
    does not turn it on under the other) and is on again once both have finished."""
    first_in, second_in, first_out = threading.Event(), threading.Event(), threading.Event()
    seen: dict[str, bool] = {}

    @pausing_gc
    def first() -> None:
        first_in.set()
        second_in.wait(5)

    @pausing_gc
    def second() -> None:
        second_in.set()
        first_out.wait(5)
        seen["after the first finished"] = gc.isenabled()

    a = threading.Thread(target=first)
    b = threading.Thread(target=lambda: (first_in.wait(5), second()))
    a.start()
    b.start()
    a.join(5)
    first_out.set()
    b.join(5)
    assert seen == {"after the first finished": False}
    assert gc.isenabled()


def test_a_collector_turned_off_by_the_host_stays_off(collector_on: None) -> None:
    """A paused call never turns on a collector the host had turned off, even when it
    raises."""
    gc.disable()

    @pausing_gc
    def fails() -> None:
        assert not gc.isenabled()
        raise ValueError("x")

    with pytest.raises(ValueError):
        fails()
    assert not gc.isenabled()
