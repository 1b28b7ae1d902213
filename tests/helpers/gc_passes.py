"""Counting the cyclic collector's passes over some work, with the collector eager to start one.

Why: bulk work (routing every prompt, loading tasks and goldens) runs with the collector paused
(ratchet.core.gcpause); at a low threshold the same work unpaused starts dozens of passes.
"""

from __future__ import annotations

import gc
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

EAGER = 50  # a pass per 50 new containers (Python's default is 700)


@contextmanager
def passes() -> Iterator[list[int]]:
    """Every collection started while open (its generation)."""
    started: list[int] = []

    def seen(phase: str, info: dict[str, Any]) -> None:
        if phase == "start":
            started.append(int(info["generation"]))

    threshold = gc.get_threshold()
    gc.collect()  # every generation's count back to 0
    gc.callbacks.append(seen)
    gc.set_threshold(EAGER, 1, 1)
    try:
        yield started
    finally:
        gc.set_threshold(*threshold)
        gc.callbacks.remove(seen)


def assert_no_passes(work: Callable[[], object]) -> None:
    """At most one pass starts in `work` (in the few allocations before its pause begins); the collector is on after."""
    with passes() as before:
        [[] for _ in range(20 * EAGER)]  # the eager threshold does start passes outside a pause
    assert len(before) >= 10
    with passes() as started:
        work()
    assert len(started) <= 1
    assert gc.isenabled()
