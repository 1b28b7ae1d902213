"""Clocks: wall time is measured through a clock passed in, so a run that must be byte-stable
(the bench) passes a frozen one instead of rewriting the figures afterwards."""

from __future__ import annotations

import time
from collections.abc import Callable

Clock = Callable[[], float]
"""Seconds on a monotonic scale; only differences are meaningful."""

wall_clock: Clock = time.perf_counter


def frozen_clock() -> float:
    """A clock that never moves: every measured latency is 0."""
    return 0.0


def elapsed_ms(clock: Clock, started: float) -> float:
    return round((clock() - started) * 1000, 3)
