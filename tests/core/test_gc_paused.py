"""gc_paused: no cyclic-GC pass inside the block, and the collector left as it was found, whatever happens."""

from __future__ import annotations

import gc
import threading

import pytest

from ratchet.core.gcpause import gc_paused


def test_the_collector_is_off_inside_and_on_again_after() -> None:
    assert gc.isenabled()
    with gc_paused():
        assert not gc.isenabled()
        with gc_paused():  # nested: still off, and the inner exit does not turn it on
            assert not gc.isenabled()
        assert not gc.isenabled()
    assert gc.isenabled()


def test_an_error_inside_turns_it_back_on() -> None:
    with pytest.raises(RuntimeError), gc_paused():
        raise RuntimeError("boom")
    assert gc.isenabled()


def test_a_collector_someone_turned_off_stays_off() -> None:
    gc.disable()
    try:
        with gc_paused():
            assert not gc.isenabled()
        assert not gc.isenabled()
    finally:
        gc.enable()


def test_overlapping_blocks_in_two_threads_leave_it_on() -> None:
    entered, leave = threading.Event(), threading.Event()

    def other() -> None:
        with gc_paused():
            entered.set()
            leave.wait(5)

    thread = threading.Thread(target=other)
    thread.start()
    entered.wait(5)
    with gc_paused():
        leave.set()  # the other thread's block ends while this one is still open
        thread.join(5)
        assert not gc.isenabled()
    assert gc.isenabled()
