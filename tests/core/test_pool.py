"""The run's one bounded pool: ordered results, a bound that holds when edits nest pairs, no deadlock."""

from __future__ import annotations

import threading
import time

import pytest

from ratchet.core.pool import WorkPool


class Gauge:
    """How many calls run at once, at most."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.now = 0
        self.peak = 0

    def run(self, seconds: float) -> None:
        with self.lock:
            self.now += 1
            self.peak = max(self.peak, self.now)
        time.sleep(seconds)
        with self.lock:
            self.now -= 1


def test_results_come_back_in_item_order_whatever_finishes_first() -> None:
    def slow_first(i: int) -> int:
        time.sleep(0.05 if i == 0 else 0.0)
        return i * i

    with WorkPool(4) as pool:
        assert pool.map_ordered(slow_first, list(range(10))) == [i * i for i in range(10)]


def test_size_one_runs_in_the_callers_thread_in_order() -> None:
    seen: list[tuple[int, str]] = []
    with WorkPool(1) as pool:
        pool.map_ordered(lambda i: seen.append((i, threading.current_thread().name)), [0, 1, 2])
        future = pool.submit(lambda i: i + 1, 41)
    assert seen == [(i, threading.current_thread().name) for i in range(3)]
    assert future.result() == 42


def test_edits_with_nested_pairs_share_one_bound_and_finish() -> None:
    gauge = Gauge()
    with WorkPool(4) as pool:

        def edit(e: int) -> list[int]:
            # each edit hands its pairs to the same pool; with 8 edits on 4 workers a pool that
            # only waited would deadlock
            def pair(p: int) -> int:
                gauge.run(0.02)
                return e * 10 + p

            return pool.map_ordered(pair, list(range(3)))

        futures = [pool.submit(edit, e) for e in range(8)]
        results = [f.result(timeout=20) for f in futures]
    assert results == [[e * 10 + p for p in range(3)] for e in range(8)]
    assert gauge.peak <= 4


def test_the_tail_edit_spreads_its_pairs_over_idle_workers() -> None:
    # Four pairs of one edit meet at a barrier: it only opens if all four run at the same time.
    barrier = threading.Barrier(4, timeout=10)
    threads: set[str] = set()

    def pair(_: int) -> None:
        threads.add(threading.current_thread().name)
        barrier.wait()

    with WorkPool(4) as pool:
        pool.submit(lambda _: pool.map_ordered(pair, list(range(4))), 0).result(timeout=20)
    assert len(threads) == 4


def test_the_first_failure_in_item_order_is_raised_and_unstarted_items_are_dropped() -> None:
    ran: list[int] = []

    def pair(i: int) -> int:
        ran.append(i)
        if i in (1, 3):
            raise ValueError(f"pair {i}")
        return i

    with WorkPool(2) as pool, pytest.raises(ValueError, match="pair 1"):
        pool.submit(lambda _: pool.map_ordered(pair, list(range(40))), 0).result(timeout=20)
    assert 1 in ran and len(ran) < 40
